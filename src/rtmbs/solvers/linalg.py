"""Dense linear algebra of the solvers, numpy and the engine.

* :func:`lu_factor` / :func:`lu_solve` / :func:`lu_solve_t`: LU with partial (row) pivoting, the
  engine's (``src/rtmbs/engine/dense_lu.c``, through ``rtmbs.solvers.dense``); the factor
  returns a cheap conditioning estimate, the pivot ratio min|u_kk| / max|u_kk| (0 for an exactly
  singular matrix).
* :func:`null_basis_qr`: B as the transpose of the right n x f block of the orthogonal factor of
  the QR decomposition of Φqᵀ (Carpinelli 2015 eqs. 4.11-4.12), by Householder reflections.
* :func:`select_partition`: independent coordinates by Gaussian elimination with rook pivoting of
  Φq (coordinate partitioning, García de Jalón & Bayo), full pivoting where a rook pivot is small.

The last two run when Algorithm 2 chooses B (at ``reset`` and at a rebase), not in a fixed step;
the partitioning in the engine (partition_choice.c), the QR with numpy.
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from .dense import lu_factor, lu_solve, lu_solve_t  # noqa: F401  (the engine's dense LU)


def null_basis_qr(phiq, w, v, beta, B):
    """Rows of ``B (f, n)``: an orthonormal basis of the null space of ``phiq (m, n)``, the last
    f columns of C1 in Φqᵀ = C1 C2 (Carpinelli 2015 eqs. 4.11-4.12), by Householder reflections
    (Golub & Van Loan 2013, Algorithm 5.2.1). Work arrays ``w (n, m)``, ``v (m, n)``,
    ``beta (m,)``. Returns min|r_kk| / max|r_kk| (0 when Φq is rank deficient)."""
    m, n = phiq.shape
    f = n - m
    w[:, :] = phiq.T
    rmax, rmin = 0.0, np.inf
    for k in range(m):
        nrm = float(np.sqrt(w[k:, k] @ w[k:, k]))
        v[k, :] = 0.0
        if nrm == 0.0:
            beta[k] = 0.0
            rmin = 0.0
            continue
        alpha = -nrm if w[k, k] >= 0.0 else nrm
        vk = v[k, k:]
        vk[:] = w[k:, k]
        vk[0] -= alpha
        vv = float(vk @ vk)
        beta[k] = 2.0 / vv if vv > 0.0 else 0.0
        d = beta[k] * (vk @ w[k:, k:])  # H_k = I − β v vᵀ on the remaining columns
        w[k:, k:] -= np.outer(vk, d)
        r = abs(w[k, k])
        rmax, rmin = max(rmax, r), min(rmin, r)
    # B[j] = C1 e_{m+j} = H_0 H_1 ... H_{m-1} e_{m+j}
    B[:, :] = 0.0
    B[np.arange(f), m + np.arange(f)] = 1.0
    for k in range(m - 1, -1, -1):
        vk = v[k, k:]
        d = beta[k] * (B[:, k:] @ vk)
        B[:, k:] -= np.outer(d, vk)
    if m == 0:
        return 1.0
    if rmax == 0.0:
        return 0.0
    return rmin / rmax


def select_partition(phiq, w, cols):
    """Coordinate partitioning: Gaussian elimination with rook pivoting of ``phiq (m, n)`` (copied
    into ``w``, C-contiguous (m, n); each pivot the largest entry of its row and its column in the
    remaining block; García de Jalón & Bayo 1994, §5.3; Foster 1997 for rook pivoting), in the
    engine (partition_choice.c). On return ``cols[:m]`` (int64) are the dependent coordinates u
    (pivot columns) and ``cols[m:]`` the independent ones v, each group ascending. Returns the
    pivot ratio (0 when Φq is rank deficient). A rook pivot below 1e-2 of its column's largest
    entry in Φq is replaced by the remaining block's first largest entry (full pivoting)."""
    return _engine.select_partition(np.ascontiguousarray(phiq, float), w, cols)
