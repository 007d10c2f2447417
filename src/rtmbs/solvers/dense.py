"""Dense linear algebra of the steps driven from Python: systems without a compiled step in the C
engine (hand-written models, subsystem synthesis, the reduced system of redundant joints) and the
dense ``linear_solver``. numpy assembles the matrices and forms the products; the LU with partial
pivoting is the engine's (``src/rtmbs/engine/dense_lu.c``: min|u_kk| / max|u_kk| as the pivot
ratio, 0 when a pivot is exactly zero). Every function works in place on preallocated arrays.
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine

#: LU with partial pivoting of the square C-contiguous ``a`` in place, row swaps in ``piv``
#: (int64); returns the pivot ratio (Golub & Van Loan 2013, Algorithm 3.4.1)
lu_factor = _engine.dense_lu_factor
#: solve A x = b in place in ``b`` with :data:`lu_factor`'s factors
lu_solve = _engine.dense_lu_solve


def kkt_assemble(A, phiq_top, s, phiq_bottom, K) -> None:
    """K = [A, s·Φq_topᵀ; Φq_bottom, 0] (square, n + m)."""
    n = A.shape[0]
    K[:n, :n] = A
    K[:n, n:] = s * phiq_top.T
    K[n:, :n] = phiq_bottom
    K[n:, n:] = 0.0


def iteration_matrix(M, Jq, Jqd, cd, c, out) -> None:
    """out = M − cd Jq̇ − c Jq (c = cd = 0: M alone)."""
    if c == 0.0 and cd == 0.0:
        out[:] = M
        return
    np.multiply(Jqd, -cd, out=out)
    out += M
    out -= c * Jq


def kkt_factor(K, piv, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom) -> float:
    """Assemble [M − cd Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] into K and factor it in place.
    Returns the pivot ratio."""
    n = M.shape[0]
    iteration_matrix(M, Jq, Jqd, cd, c, K[:n, :n])
    K[:n, n:] = s * phiq_top.T
    K[n:, :n] = phiq_bottom
    K[n:, n:] = 0.0
    return lu_factor(K, piv)


def kkt_correction(K, piv, phi, rhs, dq) -> None:
    """Solve K[x; μ] = [0; −Φ] and add x to ``dq`` (the projection of Carpinelli 2016 eq. 30 with the
    factors of any KKT matrix of that form)."""
    n = dq.shape[0]
    rhs[:n] = 0.0
    np.negative(phi, out=rhs[n:])
    lu_solve(K, piv, rhs)
    dq += rhs[:n]


def kkt_rhs_solve(K, piv, top, bottom, rhs) -> None:
    """rhs = [top; bottom], then K x = rhs in place (Carpinelli 2016 eq. 12's [Q; γ])."""
    n = top.shape[0]
    rhs[:n] = top
    rhs[n:] = bottom
    lu_solve(K, piv, rhs)


def lu_solve_t(lu, piv, b) -> None:
    """Solve Aᵀ x = b in place with :data:`lu_factor`'s factors (A = Pᵀ L U, L unit lower)."""
    from scipy.linalg import solve_triangular

    y = solve_triangular(lu, b, trans="T", lower=False, check_finite=False)
    b[:] = solve_triangular(lu, y, trans="T", lower=True, unit_diagonal=True, check_finite=False)
    for k in range(piv.shape[0] - 1, -1, -1):
        p = piv[k]
        if p != k:
            b[k], b[p] = b[p], b[k]


def pivot_range(lu) -> tuple[float, float]:
    """(min, max) of |u_kk| of the factors."""
    d = np.abs(np.diag(lu))
    return (float(d.min()), float(d.max())) if d.size else (np.inf, 0.0)


def update(q, qd, dq, rhs, h, implicit) -> None:
    """The Euler update of Carpinelli 2016 Table 1: q̇ ← q̇ + Δq̇ (Δq̇ = rhs[:n]); q ← q + Δq, with
    Δq = h(q̇ + Δq̇) for the implicit position update (``implicit``), else the given ``dq``."""
    n = q.shape[0]
    if implicit:
        np.add(qd, rhs[:n], out=dq)
        dq *= h
    q += dq
    qd += rhs[:n]
