"""Constraint stabilisation shared by the fixed-step solvers, each with a fixed cost.

* Baumgarte at index 1 (Carpinelli 2016 eq. 4): Φq q̈ = γ − 2α(Φq q̇ + Φt) − β²Φ (``explicit``).
* Baumgarte at index 2 (Carpinelli 2016 eq. 5, Truck benchmark eq. 10): Φq q̇ + Φt + γ_B Φ = 0.
* Non-iterative projection (Carpinelli 2016 eq. 30, Table 3): one solve of
  [M hΦqᵀ; Φq 0][Δq* − Δq; μ] = [0; −Φ(q + Δq, t + h)] (:class:`Projector`, dense or sparse
  behind ``factorisation.KKTFactorisation``).
* GGL positions (Truck benchmark eq. 11) live in ``li_euler.py`` (they need the step's data).

Option checking helpers are here too, so every solver reports a bad option the same way.
"""
from __future__ import annotations

import numpy as np

from ..errors import SolverError, did_you_mean
from .factorisation import KKTFactorisation, SparseKKTFactorisation, kkt_correction, kkt_factor


#: Solve K[x; μ] = [0; −Φ] with the factors (fa, fb) of a KKT matrix K ([M hΦqᵀ; Φq 0] of
#: eq. 30, or eq. 22's) and add x to ``dq``: dense or sparse factors alike (``factorisation``).
projection_rhs_solve = kkt_correction


class Projector:
    """The non-iterative projection (Carpinelli 2016 eq. 30) for an (n, m) system on a
    :class:`~rtmbs.solvers.factorisation.KKTFactorisation` (dense unless ``kkt`` is given)."""

    def __init__(self, n: int, m: int, kkt: KKTFactorisation | None = None):
        self.kkt = KKTFactorisation(n, m) if kkt is None else kkt
        self.rhs = np.zeros(n + m)
        self.ratio = 1.0

    def correct(self, M, phiq, phi, h, dq) -> bool:
        """Factor [M hΦqᵀ; Φq 0], add the correction Δq* − Δq to ``dq``; False if the factor is
        singular."""
        kkt = self.kkt
        if kkt.args is None:  # a sparse KKT not analysed yet (analyses in its first factor)
            kkt.factor(M, M, M, 0.0, 0.0, phiq, h, phiq)
        fa, fb, idx = kkt.args
        ratio, growth = kkt_factor(fa, fb, idx, M, M, M, 0.0, 0.0, phiq, h, phiq)
        kkt_correction(fa, fb, phi, self.rhs, dq)
        if kkt.lu is not None:
            kkt.lu.ratio, kkt.lu.growth = ratio, growth
        kkt.ratio = self.ratio = ratio
        return ratio > 0.0

    @property
    def nanalyse(self) -> int:
        return self.kkt.nanalyse


class SparseProjector(Projector):
    """:class:`Projector` on the fixed patterns of M and Φq (``rtmbs.solvers.sparse``)."""

    def __init__(self, mass_pattern, phiq_pattern, hubs=()):
        super().__init__(mass_pattern.shape[0], phiq_pattern.shape[0],
                         SparseKKTFactorisation(mass_pattern, phiq_pattern, hubs))


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
