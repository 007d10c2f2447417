"""Coordinate partitioning (Wehage-Haug; Nikravesh 1988) for the index-1 formulations (Pękal & Frączek 2016 §2.1
and §4.1).

The coordinates are split once, at the start, into dependent ``u`` (r = rank Φq of them) and
independent ``v`` (n − r) by QR with column pivoting of Φq: the first r pivot columns are the
best-conditioned dependent set. Only v and v̇ are integrated. At each right-hand side
evaluation

* u solves Φ(u, v, t) = 0 by Newton-Raphson, ``Δu = −Φu⁺ Φ`` with the Moore-Penrose inverse of
  the m × r dependent sub-Jacobian (rank deficient Φq: m > r), until ‖Φ‖₂ ≤ ``newton_tol``
  (Pękal & Frączek 2016: three orders of magnitude below the integrator tolerance);
* u̇ solves the velocity constraints Φu u̇ = −(Φv v̇ + Φt) (eq. 5) in the least-squares sense;
* the condition number of Φu (σ1/σr) is monitored: its maximum over the run tells whether the
  partition chosen at the start stayed good.
"""
from __future__ import annotations

import numpy as np
import scipy.linalg as sla

from ..errors import AssemblyError, SolverError
from ..protocol import EVAL_PHI, EVAL_PHIQ, MechanicalSystem
from ..tolerances import SOLVER_RANK_RTOL
from .formulations import _svd_pinv, jacobian_rank

#: Newton tolerance on ‖Φ‖₂ = NEWTON_TOL_FACTOR × integrator tolerance (Pękal & Frączek 2016 §4.1: 1000× smaller).
NEWTON_TOL_FACTOR = 1e-3
#: Newton-Raphson iterations before giving up (the paper reports 3-4 in practice).
NEWTON_MAXITER = 25


def choose_coordinates(phiq: np.ndarray, rtol: float = SOLVER_RANK_RTOL):
    """``(dep, indep, rank)``: dependent and independent coordinate indices of Φq (m × n).

    rank r by SVD with relative tolerance ``rtol``; dependent = first r columns chosen by QR with
    column pivoting (largest remaining column norm first), independent = the others, sorted."""
    r, _ = jacobian_rank(phiq, rtol)
    _, piv = sla.qr(phiq, mode="r", pivoting=True, check_finite=False)
    dep = np.sort(piv[:r]).astype(np.intp)
    indep = np.sort(piv[r:]).astype(np.intp)
    return dep, indep, r


class CoordinatePartitioning:
    """A fixed u/v split of ``system``'s coordinates with the position and velocity solves.

    Parameters
    ----------
    system : MechanicalSystem
    t0, q0 : time and a consistent configuration where the split is chosen
    newton_tol : tolerance on ‖Φ‖₂ for the Newton-Raphson solve of u
    rtol : rank tolerance (see :mod:`rtmbs.solvers.formulations`)
    independent : optional indices of the independent coordinates (instead of QR pivoting)

    Attributes
    ----------
    dep, indep : index arrays (r,), (n − r,)
    rank : r = rank Φq at ``q0``
    newton_tol : as given
    newton_calls, newton_iterations, newton_max_iterations : counters
    cond, cond_max : condition number of Φu at the last velocity solve, and its maximum
    """

    def __init__(self, system: MechanicalSystem, t0: float, q0, newton_tol: float,
                 rtol: float = SOLVER_RANK_RTOL, independent=None, maxiter: int = NEWTON_MAXITER):
        if not newton_tol > 0:
            raise SolverError(f"`newton_tol` must be positive, got {newton_tol!r}")
        self.system = system
        self.ws = system.workspace()
        self.rtol = rtol
        self.newton_tol = float(newton_tol)
        self.maxiter = int(maxiter)
        q0 = np.asarray(q0, dtype=float)
        system.evaluate(t0, q0, np.zeros(system.n), self.ws, EVAL_PHIQ)
        r, _ = jacobian_rank(self.ws.phiq, rtol)
        if independent is None:
            self.dep, self.indep, self.rank = choose_coordinates(self.ws.phiq, rtol)
        else:
            indep = np.unique(np.asarray(independent, dtype=np.intp))
            if indep.size != system.n - r or indep.min(initial=0) < 0 or indep.max(initial=0) >= system.n:
                raise SolverError(
                    f"`independent` must list n − rank(Φq) = {system.n - r} distinct indices in "
                    f"[0, {system.n}), got {list(independent)}"
                )
            self.indep = indep
            self.dep = np.setdiff1d(np.arange(system.n), indep).astype(np.intp)
            self.rank = r
            ru, _ = jacobian_rank(self.ws.phiq[:, self.dep], rtol)
            if ru < r:
                raise SolverError(
                    f"independent coordinates {list(indep)}: the dependent sub-Jacobian has rank "
                    f"{ru} < rank(Φq) = {r}; choose others"
                )
        self.newton_calls = 0
        self.newton_iterations = 0
        self.newton_max_iterations = 0
        self.cond = np.nan
        self.cond_max = 0.0

    def positions(self, t: float, v, q_guess) -> np.ndarray:
        """Full q with q[indep] = v and q[dep] from Newton-Raphson started at ``q_guess``."""
        q = np.array(q_guess, dtype=float)
        q[self.indep] = v
        ws, dep = self.ws, self.dep
        zero = np.zeros(self.system.n)
        for k in range(self.maxiter + 1):
            self.system.evaluate(t, q, zero, ws, EVAL_PHI | EVAL_PHIQ)
            norm = float(np.linalg.norm(ws.phi))
            if norm <= self.newton_tol:
                break
            if k == self.maxiter or not np.isfinite(norm):
                raise AssemblyError(
                    f"coordinate partitioning: Newton-Raphson for the dependent coordinates did not "
                    f"reach ‖Φ‖ ≤ {self.newton_tol:.3g} in {self.maxiter} iterations at t = {t:.6g} s "
                    f"(‖Φ‖ = {norm:.3g}, cond(Φu) = {self.cond:.3g}): the partition chosen at the "
                    f"start may have become singular"
                )
            pinv, _, _ = _svd_pinv(ws.phiq[:, dep], self.rtol)
            q[dep] -= pinv @ ws.phi
        self.newton_calls += 1
        self.newton_iterations += k
        self.newton_max_iterations = max(self.newton_max_iterations, k)
        return q

    def velocities(self, t: float, q, vd) -> np.ndarray:
        """Full q̇ with q̇[indep] = vd and q̇[dep] from Φu u̇ = −(Φv v̇ + Φt); updates ``cond``."""
        ws = self.ws
        self.system.evaluate(t, q, np.zeros(self.system.n), ws, EVAL_PHIQ)
        qd = np.zeros(self.system.n)
        qd[self.indep] = vd
        pinv, r, s = _svd_pinv(ws.phiq[:, self.dep], self.rtol)
        self.cond = float(s[0] / s[-1]) if s.size and s[-1] > 0 else np.inf
        self.cond_max = max(self.cond_max, self.cond)
        qd[self.dep] = -pinv @ (ws.phiq[:, self.indep] @ vd + ws.phit)
        return qd
