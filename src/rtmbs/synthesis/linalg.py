"""Small dense linear algebra that runs on float arrays (numpy/LAPACK) and on object arrays of
:class:`rtmbs.synthesis.opcount.Op` (plain loops, so every operation is counted)."""
from __future__ import annotations

import numpy as np

from . import opcount as oc


def zeros(shape, like) -> np.ndarray:
    """Zeros of the dtype of ``like`` (float, or object for counting)."""
    return np.zeros(shape, dtype=object if np.asarray(like).dtype == object else float)


def skew(v) -> np.ndarray:
    """ṽ, the cross-product matrix: ṽ a = v × a."""
    S = zeros((3, 3), v)
    S[0, 1], S[0, 2] = -v[2], v[1]
    S[1, 0], S[1, 2] = v[2], -v[0]
    S[2, 0], S[2, 1] = -v[1], v[0]
    return S


def lu_factor(A):
    """LU factors of A with partial pivoting (LAPACK on floats; plain loops on object arrays,
    n³/3 multiplications, the count a hand-written LU takes)."""
    if A.dtype != object:
        import scipy.linalg as sl

        return ("f", sl.lu_factor(A))
    A = np.array(A, dtype=object)
    n = A.shape[0]
    perm = []
    for k in range(n):
        p = k + int(np.argmax([abs(oc._v(A[i, k])) for i in range(k, n)]))
        perm.append(p)
        if p != k:
            A[[k, p]] = A[[p, k]]
        if k == n - 1:
            break
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            f = A[i, k] * inv
            A[i, k] = f
            for j in range(k + 1, n):
                A[i, j] = A[i, j] - f * A[k, j]
    return ("o", (A, perm))


def lu_solve(F, B) -> np.ndarray:
    """A⁻¹B from :func:`lu_factor`'s factors (B a vector or a matrix)."""
    kind, fac = F
    if kind == "f" and np.asarray(B).dtype != object:
        import scipy.linalg as sl

        return sl.lu_solve(fac, B)
    if kind == "f":
        raise TypeError("float LU factors with an object right-hand side")
    A, perm = fac
    X = np.array(B, dtype=object)
    vec = X.ndim == 1
    if vec:
        X = X.reshape(-1, 1)
    n = A.shape[0]
    for k, p in enumerate(perm):           # the row swaps first (full rows were swapped)
        if p != k:
            X[[k, p]] = X[[p, k]]
    for k in range(n):
        for i in range(k + 1, n):
            for j in range(X.shape[1]):
                X[i, j] = X[i, j] - A[i, k] * X[k, j]
    for k in range(n - 1, -1, -1):
        inv = 1.0 / A[k, k]
        for j in range(X.shape[1]):
            s = X[k, j]
            for i in range(k + 1, n):
                s = s - A[k, i] * X[i, j]
            X[k, j] = s * inv
    return X[:, 0] if vec else X


def solve(A, B) -> np.ndarray:
    """A⁻¹B (B a vector or a matrix): LAPACK on floats, :func:`lu_factor` and :func:`lu_solve`
    on object arrays."""
    if A.dtype != object and np.asarray(B).dtype != object:
        return np.linalg.solve(A, B)
    return lu_solve(lu_factor(A), B)


def rotation(dpi) -> np.ndarray:
    """exp(d̃π): the rotation by the vector dπ (Rodrigues), I + sin a/a d̃ + (1 − cos a)/a² d̃², with
    a = √(|dπ|² + 1e-300): the same operations for every dπ (fixed cost; at dπ = 0 it is I)."""
    a2 = dpi[0] * dpi[0] + dpi[1] * dpi[1] + dpi[2] * dpi[2] + 1e-300
    S = skew(dpi)
    a = oc.sqrt(a2)
    return np.eye(3) + (oc.sin(a) / a) * S + ((1.0 - oc.cos(a)) / a2) * (S @ S)
