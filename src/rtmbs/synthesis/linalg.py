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


def solve(A, B) -> np.ndarray:
    """A⁻¹B (B a vector or a matrix): LAPACK on floats, Gaussian elimination with partial
    pivoting on object arrays (n³/3 multiplications, the count a hand-written LU would take)."""
    if A.dtype != object and np.asarray(B).dtype != object:
        return np.linalg.solve(A, B)
    A = np.array(A, dtype=object)
    X = np.array(B, dtype=object)
    vec = X.ndim == 1
    if vec:
        X = X.reshape(-1, 1)
    n = A.shape[0]
    for k in range(n):
        p = k + int(np.argmax([abs(oc._v(A[i, k])) for i in range(k, n)]))
        if p != k:
            A[[k, p]] = A[[p, k]]
            X[[k, p]] = X[[p, k]]
        if k == n - 1:
            break
        inv = 1.0 / A[k, k]
        for i in range(k + 1, n):
            f = A[i, k] * inv
            for j in range(k + 1, n):
                A[i, j] = A[i, j] - f * A[k, j]
            for j in range(X.shape[1]):
                X[i, j] = X[i, j] - f * X[k, j]
    for k in range(n - 1, -1, -1):
        inv = 1.0 / A[k, k]
        for j in range(X.shape[1]):
            s = X[k, j]
            for i in range(k + 1, n):
                s = s - A[k, i] * X[i, j]
            X[k, j] = s * inv
    return X[:, 0] if vec else X


def rotation(dpi) -> np.ndarray:
    """exp(d̃π): the rotation by the vector dπ (Rodrigues), I + sin a/a d̃ + (1 − cos a)/a² d̃²."""
    a2 = dpi[0] * dpi[0] + dpi[1] * dpi[1] + dpi[2] * dpi[2]
    S = skew(dpi)
    R = zeros((3, 3), dpi) + np.eye(3)
    if oc._v(a2) < 1e-30:
        return R + S
    a = oc.sqrt(a2)
    return R + (oc.sin(a) / a) * S + ((1.0 - oc.cos(a)) / a2) * (S @ S)
