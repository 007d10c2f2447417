"""Explicit Euler on the index-1 form (Carpinelli 2016 eqs. 11-12, 14): the non-stiff baseline.

    [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ]               (eq. 12; γ ← γ − 2α(Φq q̇ + Φt) − β²Φ, eq. 4)
    q ← q + h q̇,   q̇ ← q̇ + h q̈                 (eq. 11, both from the values at step i)

or, with ``position_update="semi-implicit"``, q ← q + h q̇⁺ with the new velocity (symplectic
Euler, MuJoCo's "Euler" integrator: no energy growth on undamped motion; the same cost).

Per step: 1 evaluation (M, Q, Φq, Φt, γ [, Φ]), 1 factorisation of size n + m, 1 solve; with
``stabilize="projection"`` one more evaluation of Φ(q + h q̇, t + h) and one more solve with the
same factors (eq. 30 with λ-column scaled by h is the same matrix).

On the sparse path of a compiled Cartesian model (``fused``) the whole step is one call of the C
engine (``src/rtmbs/engine/explicit_euler.c``, every ``stabilize``) over packed workspaces (M and
Φq in their blocks: memory O(non-zeros)); :meth:`ExplicitEuler.step_outputs` publishes the named
outputs in the same call and ``rollout`` / ``simulate`` run many steps in one call
(``rollout_runner``, ``fixed_rollout.c``); ``instrument=True`` times the whole step (phase
"other"). So does the reduced system of such a model with redundant joints
(``rtmbs.solvers.redundancy``): the engine is given its row map (the kept rows it solves with,
the left-out rows it checks after each evaluation). Any other system, or
``linear_solver="dense"``, steps from Python with numpy and the engine's dense LU
(``rtmbs.solvers.dense``).
"""
from __future__ import annotations

import numpy as np

from ..protocol import EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from .base import Solver, register_solver, time_after
from ..engine import _engine
from .dense import kkt_correction, kkt_factor, kkt_rhs_solve
from .factorisation import make_kkt
from .li_euler import (
    STAB_BAUMGARTE, STAB_NONE, STAB_PROJECT, LIEuler, reduced_compiled, sparse_in_engine,
)
from .rollout import run_rollout_kernel
from .sparse import PackedKKTMap
from .stabilization import check_choice, check_positive, evaluate, pop_options

#: ``stab`` of the engine's step for each ``stabilize`` option (src/rtmbs/engine/explicit_euler.h)
STAB = {"none": STAB_NONE, "baumgarte": STAB_BAUMGARTE, "projection": STAB_PROJECT}


def vector_size(n: int, m: int, m_model: int | None = None) -> int:
    """Length of the engine step's ``vec``: rhs = [q̈; λ] (n + m) | projection rhs (n + m) |
    Δq (n) | q + Δq (n); with ``m_model`` (a row map: m of the model's m_model rows) the kept
    rows' Φ, Φt and γ and λ over the model's rows follow (``RTMBS_EXPLICIT_EULER_VEC_ROWS``)."""
    size = 2 * (n + m) + 2 * n
    return size if m_model is None else size + 3 * m + m_model


def run_rollout(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """A rollout of an ``explicit-euler`` solver with its step in the engine (``fused``): the
    engine's ``explicit_euler_rollout`` (src/rtmbs/engine/fixed_rollout.c) through
    :func:`rtmbs.solvers.rollout.run_rollout_kernel`. Returns the good steps."""
    return run_rollout_kernel(_engine.explicit_euler_rollout, solver.step_options, solver, state,
                              t_origin, i0, h, n_steps, every, chan, inputs, oidx, res,
                              rows=solver.rows_args)


def baumgarte_index1(gamma, phiq, qd, phit, phi, alpha, beta, out) -> None:
    """out = γ − 2α(Φq q̇ + Φt) − β²Φ (Carpinelli 2016 eq. 4)."""
    np.dot(phiq, qd, out=out)
    out += phit
    out *= -2.0 * alpha
    out += gamma
    out -= beta * beta * phi


@register_solver("explicit-euler")
class ExplicitEuler(Solver):
    """Explicit Euler with the index-1 acceleration solve (Carpinelli 2016 eq. 12).

    Options
    -------
    stabilize : "projection" (default) | "none" | "baumgarte"
        The non-iterative projection of the positions (eq. 30) or Baumgarte at index 1 (eq. 4,
        ``alpha``, ``beta`` in 1/s); ignored when m = 0.
    alpha, beta : float, default 10.0
    position_update : "explicit" (default: eq. 11, q + h q̇) | "semi-implicit" (q + h q̇⁺, the
        velocity of the step's end: symplectic Euler)
    linear_solver : "auto" | "dense" | "sparse", as for ``li-euler`` ([M Φqᵀ; Φq 0] on the fixed
        patterns of M and Φq; "auto" is sparse on a compiled Cartesian model at every size: the
        compiled step)
    """

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(stabilize="projection", alpha=10.0, beta=10.0,
                                                 linear_solver="auto", position_update="explicit"))
        check_choice(self.name, "position_update", o["position_update"],
                     ("explicit", "semi-implicit"))
        self.semi_implicit = o["position_update"] == "semi-implicit"
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        # ("auto": sparse at every size where the step is the compiled call, as for li-euler)
        self.sparse = sparse_in_engine(self.name, self.system, o["linear_solver"], row_map=True)
        check_choice(self.name, "stabilize", o["stabilize"], ("none", "baumgarte", "projection"))
        check_positive(self.name, "alpha", o["alpha"], allow_zero=True)
        check_positive(self.name, "beta", o["beta"], allow_zero=True)
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        self.alpha = float(o["alpha"])
        self.beta = float(o["beta"])
        # the whole step in one call of the engine (explicit_euler.c), every stabilize
        self.fused = self.sparse
        self.extra_in_step = self.fused  # (the compiled step advances the transient tyres)

    # the dense workspaces, made at first use on the compiled step (it reads the packed ones)
    ws = LIEuler.ws

    def _reset(self, state: State) -> None:
        if self.fused:
            self._fused_reset(state)
            return
        n, m = self.system.n, self.system.m
        self.rhs = np.zeros(n + m)
        self.rhs2 = np.zeros(n + m)
        self.c = np.zeros(m)
        self.dq = np.zeros(n)
        self.qp = np.zeros(n)
        self.ws1 = self.system.workspace()
        what = EVAL_M | EVAL_Q
        if m:
            what |= EVAL_PHIQ | EVAL_GAMMA
        if self.stabilize == "baumgarte":
            what |= EVAL_PHI
        self.what = what
        self.lam = np.zeros(m)
        self.K = np.zeros((n + m, n + m))  # [M Φqᵀ; Φq 0], dense
        self.piv = np.zeros(n + m, np.int64)
        self._nan0 = 0

    def _fused_reset(self, state: State) -> None:
        """The compiled step's buffers: two packed workspaces (``CartesianSystem.packed_layout``),
        the KKT map reading them, its factors analysed from them at q0 (as the Python-driven
        path analyses them from the dense workspace: the same values) and ``vec``. No dense
        n × n array is kept. A reduced system (redundant rows left out) passes the engine its row
        map (``rows_args``): the KKT map reads the kept rows of the model's packed Φq."""
        sysm, n, m = self.system, self.system.n, self.system.m
        lay = sysm.packed_layout
        self.pw0, self.pw1 = np.zeros(lay.size), np.zeros(lay.size)
        self.what = EVAL_M | EVAL_Q | (EVAL_PHIQ | EVAL_GAMMA if m else 0)
        self.kkt = k = make_kkt(sysm, True)
        reduced = reduced_compiled(sysm)
        self.rows_args = (sysm.row_map if reduced else None,)
        self.pidx = PackedKKTMap(k.kkt.map, lay, sysm.kept if reduced else None).idx
        self._ws = None
        sysm.evaluate_packed(state.t, state.q, state.qd, self.pw0, self.what)
        k.ratio = k.kkt.factor_packed(self.pidx, self.pw0, 0.0, 0.0, 1.0, self.pw0)
        k.args = (k.lu.ib, k.lu.fb, k.idx)  # (as SparseKKTFactorisation.factor's first call)
        self.vec = np.zeros(vector_size(n, m, self.full_system.m if reduced else None))
        self.lam = self.vec[n:n + m]  # (λ = rhs[n:] of the kept rows, written by the step)
        self.kernel_args = sysm.kernel_buffers() + (self.pw0, self.pw1, k.lu.ib, k.lu.fb,
                                                    self.pidx, self.vec)
        self.step_options = (STAB[self.stabilize], self.alpha, self.beta, self.semi_implicit)
        self._per_step = (1 + (self.stabilize == "projection"), 1,
                          1 + (self.stabilize == "projection"))
        self._nan0 = k.nanalyse
        # the engine's step (explicit_euler.c) bound to its arrays
        # (the engine's model has every row of the given system: the row map names those solved with)
        self.bind_step("explicit-euler", self.kernel_args + (np.zeros(n), np.zeros(n),
                                                             self.full_system.m, 0.0, 1e-3)
                       + self.step_options + (np.zeros(0, np.int64), np.zeros(0)) + self.rows_args,
                       self._per_step)

    def _sparse_factors(self):
        return self.kkt.factors() if hasattr(self, "kkt") else ()

    @property
    def nanalyse(self) -> int:
        """Re-analyses of the sparse factors since ``reset`` (0 on the dense path)."""
        return self.kkt.nanalyse - self._nan0 if self.fused else 0

    def count_steps(self, k: int) -> None:
        """Count ``k`` compiled steps (``rtmbs.solvers.rollout``)."""
        self.add_step_counts(k, self._per_step)

    @property
    def rollout_runner(self):
        """The engine's rollout (:func:`run_rollout`) on the compiled
        step; None otherwise (``rtmbs.solvers.rollout`` then loops over :meth:`step`)."""
        return run_rollout if self.fused else None

    def _step_impl(self, state: State, h: float):
        if self.fused:  # (Solver.step's path to the engine's step: instrumented)
            self._tic()
            ok = self.bound.step(state.q, state.qd, state.x, state.t, h)
            self._toc("other")
            self.nstep -= 1  # (Solver.step counts it)
            return ok
        ws = self.ws
        self._tic()
        evaluate(self, ws, state.t, state.q, state.qd, self.what)
        self._toc("evaluation")
        ratio = kkt_factor(self.K, self.piv, ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
        self.nfactor += 1
        self._toc("factorisation")
        if self.stabilize == "baumgarte":
            baumgarte_index1(ws.gamma, ws.phiq, state.qd, ws.phit, ws.phi, self.alpha, self.beta,
                             self.c)
            c = self.c
        else:
            c = ws.gamma
        fa, fb = self.K, self.piv
        kkt_rhs_solve(fa, fb, ws.Q, c, self.rhs)
        self.nsolve += 1
        if self.semi_implicit:  # q̇⁺ = q̇ + h q̈ (as the compiled step: (q̇ + h q̈) h)
            np.multiply(state.qd + h * self.rhs[:self.system.n], h, out=self.dq)
        else:
            np.multiply(state.qd, h, out=self.dq)
        self._toc("solve")
        if self.stabilize == "projection":
            np.add(state.q, self.dq, out=self.qp)
            evaluate(self, self.ws1, state.t + h, self.qp, state.qd, EVAL_PHI)
            kkt_correction(fa, fb, self.ws1.phi, self.rhs2, self.dq)
            self.nsolve += 1
            self._toc("projection")
        state.q += self.dq  # q ← q + Δq, q̇ ← q̇ + h q̈ (eq. 11)
        state.qd += h * self.rhs[:self.system.n]
        self.lam[:] = self.rhs[self.system.n:]
        self._toc("other")
        return ratio > 0.0
