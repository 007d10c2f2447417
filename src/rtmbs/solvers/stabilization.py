"""Constraint stabilisation shared by the fixed-step solvers, each with a fixed cost.

* Baumgarte at index 1 (seed 000 eq. 4): Φq q̈ = γ − 2α(Φq q̇ + Φt) − β²Φ.
* Baumgarte at index 2 (seed 000 eq. 5, seed 001 eq. 10): Φq q̇ + Φt + γ_B Φ = 0.
* Non-iterative projection (seed 000 eq. 30, Table 3): one solve of
  [M hΦqᵀ; Φq 0][Δq* − Δq; μ] = [0; −Φ(q + Δq, t + h)].
* GGL positions (seed 001 eq. 11) live in ``li_euler.py`` (they need the step's data).

Option checking helpers are here too, so every solver reports a bad option the same way.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SolverError, did_you_mean
from .linalg import lu_factor, lu_solve
from .sparse import SparseKKT, lu_solve_sp


# -- kernels ---------------------------------------------------------------------------------
@njit(cache=True)
def kkt_assemble(A, phiq_top, scale, phiq_bottom, K):
    """K = [A, scale·phiq_topᵀ; phiq_bottom, 0] (square, n + m)."""
    n = A.shape[0]
    m = phiq_top.shape[0]
    for i in range(n):
        for j in range(n):
            K[i, j] = A[i, j]
        for j in range(m):
            K[i, n + j] = scale * phiq_top[j, i]
    for i in range(m):
        for j in range(n):
            K[n + i, j] = phiq_bottom[i, j]
        for j in range(m):
            K[n + i, n + j] = 0.0


@njit(cache=True)
def projection_kernel(M, phiq, phi, h, K, piv, rhs, dq):
    """Non-iterative projection (seed 000 eq. 30): factor [M hΦqᵀ; Φq 0], solve with
    [0; −Φ] and add the correction to ``dq``. Returns the pivot ratio of the factor."""
    n = M.shape[0]
    m = phiq.shape[0]
    kkt_assemble(M, phiq, h, phiq, K)
    ratio = lu_factor(K, piv)
    for i in range(n):
        rhs[i] = 0.0
    for i in range(m):
        rhs[n + i] = -phi[i]
    lu_solve(K, piv, rhs)
    for i in range(n):
        dq[i] += rhs[i]
    return ratio


@njit(cache=True)
def baumgarte_index1(gamma, phiq, qd, phit, phi, alpha, beta, out):
    """out = γ − 2α(Φq q̇ + Φt) − β²Φ (seed 000 eq. 4)."""
    m, n = phiq.shape
    b2 = beta * beta
    for i in range(m):
        s = phit[i]
        for j in range(n):
            s += phiq[i, j] * qd[j]
        out[i] = gamma[i] - 2.0 * alpha * s - b2 * phi[i]


class Projector:
    """Buffers and call of the non-iterative projection (seed 000 eq. 30) for an (n, m) system."""

    def __init__(self, n: int, m: int):
        self.K = np.zeros((n + m, n + m))
        self.piv = np.zeros(n + m, np.int64)
        self.rhs = np.zeros(n + m)
        self.ratio = 1.0

    def correct(self, M, phiq, phi, h, dq) -> bool:
        """Add the projection correction Δq* − Δq to ``dq``; False if the factor is singular."""
        self.ratio = projection_kernel(M, phiq, phi, h, self.K, self.piv, self.rhs, dq)
        return self.ratio > 0.0


@njit(cache=True)
def projection_rhs_solve(ib, fb, phi, rhs, dq):
    """Solve K[x; μ] = [0; −Φ] with the sparse factors of a KKT matrix K ([M hΦqᵀ; Φq 0] of
    eq. 30, or eq. 22's) and add x to ``dq``."""
    n = dq.shape[0]
    for i in range(n):
        rhs[i] = 0.0
    for i in range(phi.shape[0]):
        rhs[n + i] = -phi[i]
    lu_solve_sp(ib, fb, rhs)
    for i in range(n):
        dq[i] += rhs[i]


@njit(cache=True)
def projection_rhs_solve_dense(K, piv, phi, rhs, dq):
    """:func:`projection_rhs_solve` with dense LU factors (``linalg.lu_factor``)."""
    n = dq.shape[0]
    for i in range(n):
        rhs[i] = 0.0
    for i in range(phi.shape[0]):
        rhs[n + i] = -phi[i]
    lu_solve(K, piv, rhs)
    for i in range(n):
        dq[i] += rhs[i]


class SparseProjector:
    """:class:`Projector` on the fixed patterns of M and Φq (``rtmbs.solvers.sparse``)."""

    def __init__(self, mass_pattern, phiq_pattern):
        n, m = mass_pattern.shape[0], phiq_pattern.shape[0]
        self.kkt = SparseKKT(mass_pattern, phiq_pattern)
        self.rhs = np.zeros(n + m)
        self.ratio = 1.0

    def correct(self, M, phiq, phi, h, dq) -> bool:
        self.ratio = self.kkt.factor(M, M, M, 0.0, 0.0, phiq, h, phiq)
        lu = self.kkt.lu
        projection_rhs_solve(lu.ib, lu.fb, phi, self.rhs, dq)
        return self.ratio > 0.0

    @property
    def nanalyse(self) -> int:
        return self.kkt.nanalyse


# -- option checking ------------------------------------------------------------------------
def pop_options(solver_name: str, options: dict, defaults: dict) -> dict:
    """Merge ``options`` into ``defaults``; an unknown key raises :class:`SolverError`."""
    out = dict(defaults)
    for key, value in options.items():
        if key not in defaults:
            raise SolverError(
                f"solver '{solver_name}': unknown option '{key}'" + did_you_mean(key, defaults)
            )
        out[key] = value
    return out


def check_choice(solver_name: str, key: str, value, allowed) -> None:
    if value not in allowed:
        raise SolverError(
            f"solver '{solver_name}': option {key}={value!r} is not one of "
            + ", ".join(repr(a) for a in allowed)
        )


def check_positive(solver_name: str, key: str, value, allow_zero: bool = False) -> None:
    ok = value is not None and np.isfinite(value) and (value >= 0 if allow_zero else value > 0)
    if not ok:
        bound = ">= 0" if allow_zero else "> 0"
        raise SolverError(f"solver '{solver_name}': option {key}={value!r}, expected a number {bound}")


def evaluate(solver, ws, t, q, qd, what) -> None:
    """``solver.system.evaluate`` into workspace ``ws``, counted in ``solver.neval``."""
    solver.system.evaluate(t, q, qd, ws, what)
    solver.neval += 1
