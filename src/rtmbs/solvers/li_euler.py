"""Linearly implicit Euler in dependent coordinates, Algorithm 1 (Carpinelli 2016 eq. 22, Table 1).

Two position updates (``position_update``):

* ``"implicit"`` (default): symplectic Euler with the constraint at the new positions,

      [M − hJq̇ − h²Jq   hΦqᵀ(q)        ] [Δq̇]   [hQ + h²Jq q̇         ]
      [Φq(q_p, t + h)      0            ] [λ  ] = [−Φ(q_p, t + h) / h   ],   q_p = q + h q̇
      q ← q + h(q̇ + Δq̇),   q̇ ← q̇ + Δq̇

  the bottom row is the linearisation of Φ(q + h(q̇ + Δq̇), t + h) = 0 at q_p, so the new
  positions satisfy the constraints up to O(h²‖Δq̇‖²) even before any projection, and (as the
  iteration matrix M − hJq̇ − h²Jq assumes) positions move with the new velocity: no energy gain
  on undamped motion (docs/solvers.md). For m = 0 this is the 1-stage linearly implicit Euler /
  Rosenbrock method (Truck benchmark eqs. 3-5).
* ``"explicit"``: the papers' form, Δq = h q̇ (Truck benchmark eq. 7, Carpinelli 2016 Table 1), with the velocity
  constraint Φq(q + Δq, t + h)(q̇ + Δq̇) + Φt = 0 in the bottom row (eq. 22). It pumps energy
  into undamped motion; the studies that reproduce the papers use it.

Jq, Jq̇ are the Jacobians of the stiff force terms (``jacobian="stiff"``, ``EVAL_JAC_STIFF``) or of
all terms (``"all"``).

Stabilisation (``stabilize``):

* ``"projection"``: the non-iterative projection of the positions, Carpinelli 2016 eq. 30 / Table 3.
  ``projection="step"`` (default) solves it with the factors of eq. 22 already made:
  [A hΦq(q)ᵀ; Φq(q_p) 0][Δ; μ] = [0; −Φ(q⁺, t + h)] (the metric A = M − hJq̇ − h²Jq instead of
  M; one factorisation per step). With the explicit update q⁺ = q_p, so this is an exact Newton
  step; with the implicit one Φq(q_p) differs from Φq(q⁺) by O(h‖Δq̇‖), and Φ(q⁺), already
  O(h²‖Δq̇‖²), shrinks by that factor. ``projection="mass"``: eq. 30 as written, a second
  factorisation of [M hΦqᵀ; Φq(q⁺) 0] at q⁺ (one exact Newton step at the projected point).
* ``"baumgarte"``: index-2 Baumgarte, Φq q̇ + Φt + γ_B Φ = 0 at the predicted positions (eq. 5,
  Truck benchmark eq. 10), ``baumgarte_gamma`` (default 1/h); explicit position update only.
* ``"ggl"``: Gear-Gupta-Leimkuhler (Truck benchmark eq. 11): M(q⁺ − q)/h = M q̇ − Φqᵀ(q) η, Φ(q⁺, t+h) = 0,
  solved by ``ggl_iterations`` simplified Newton corrections from q + h q̇ (Jacobian frozen at the
  predictor); the velocity system (eq. 22) then imposes Φq(q⁺) q̇⁺ + Φt = 0 at the corrected q⁺.

Linear algebra (``linear_solver``): on a compiled Cartesian model, the sparse path (default) runs
the whole step, every configuration, as one call of the C engine (``src/rtmbs/engine/li_euler.c``:
fixed-pattern sparse LU of eqs. 22, 30 and GGL, docs/engine.md; ``instrument`` times it whole,
as phase "other"). So does the reduced system of such a model with redundant joints
(``rtmbs.solvers.redundancy``): the engine is given its row map (the kept rows it solves with,
the left-out rows it checks). A hand-written model with a compiled evaluation
(``compiled_provider()``: the planar truck) runs the dense step, every configuration, as one call
of the C engine too (``src/rtmbs/engine/li_euler_dense.c``: the dense matrices and the engine's
dense LU), and its rollout there. Any other system (a model written in Python), or
``linear_solver="dense"`` on a compiled model, steps from Python with numpy and the engine's dense
LU (``rtmbs.solvers.dense``); ``dense_in_engine = False`` set before ``reset`` keeps a provider on
that path (to compare the two).

Cost per step (fixed): evaluations 1 + (m > 0) (projection: + projection_solves − 1, +1 with
implicit positions; GGL: 2 + k for k = ``ggl_iterations``), factorisations 1
(+1 projection="mass", +1 GGL), solves 1 (+ projection_solves with projection, +k GGL);
tests/solvers/test_fixed_cost.py.
"""
from __future__ import annotations

import numpy as np

from ..errors import SolverError
from ..protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from .base import Solver, register_solver, time_after
from .rollout import run_rollout_kernel
from ..engine import _engine
from .dense import iteration_matrix, kkt_assemble, kkt_correction, lu_factor, lu_solve, update
from .sparse import H_ANALYSIS, PackedKKTMap, SparseKKT, choose_linear_solver, kkt_hubs
from .stabilization import (
    SparseProjector, check_choice, check_positive, evaluate, pop_options,
)

#: the ``stab`` argument of the engine's step (src/rtmbs/engine/li_euler.h)
STAB_NONE, STAB_PROJECT, STAB_BAUMGARTE, STAB_MASS, STAB_GGL = 0, 1, 2, 3, 4


def vector_size(n: int, m: int, m_model: int | None = None) -> int:
    """Length of the ``vec`` buffer of the engine's step (src/rtmbs/engine/li_euler.h): m rows
    solved with; with ``m_model`` (a row map: m of the model's m_model rows) the kept rows' Φ and
    Φt and λ over the model's rows follow (``RTMBS_LI_EULER_VEC_ROWS``)."""
    size = 3 * (n + m) + 3 * n + 2 * m
    return size if m_model is None else size + 2 * m + m_model


# -- the dense step driven from Python (numpy, the engine's dense LU) ----------------------------
def _factor(M, Jq, Jqd, phiq_i, phiq_1, h, A, K, piv):
    """K = [M − hJq̇ − h²Jq, hΦq(q)ᵀ; Φq(q_p), 0] factorised (eq. 22). Returns the pivot ratio."""
    iteration_matrix(M, Jq, Jqd, h, h * h, A)
    kkt_assemble(A, phiq_i, h, phiq_1, K)
    return lu_factor(K, piv)


def _solve(K, piv, Q, Jq, qd, phiq_1, phit_1, phi_1, gb, cv, h, rhs):
    """rhs = [hQ + h²Jq q̇; −cv(Φq₁ q̇ + Φt₁) − γ_B Φ₁], solved in place (eq. 22, eq. 5; cv = 0,
    γ_B = 1/h: the position form Φ(q₁) + hΦq₁Δq̇ = 0)."""
    n = Q.shape[0]
    np.dot(Jq, qd, out=rhs[:n])
    rhs[:n] *= h * h
    rhs[:n] += h * Q
    np.dot(phiq_1, qd, out=rhs[n:])
    rhs[n:] += phit_1
    rhs[n:] *= -cv
    rhs[n:] -= gb * phi_1
    lu_solve(K, piv, rhs)


def _ggl_newton(P, piv, M, phiq_i, h, qp, qk, eta, phi, rhs):
    """One simplified Newton correction of the GGL positions (Truck benchmark eq. 11), multiplied by h:
    F1 = M(qk − qp) + hΦqᵀ(q)η, F2 = Φ(qk); [M hΦqᵀ(q); Φq(qp) 0][δq; δη] = −[F1; F2]."""
    n = M.shape[0]
    rhs[:n] = -(M @ (qk - qp) + h * (phiq_i.T @ eta))
    np.negative(phi, out=rhs[n:])
    lu_solve(P, piv, rhs)
    qk += rhs[:n]
    eta += rhs[n:]


def compiled_provider(system):
    """(kind, parameter vector) of a hand-written model whose evaluation is the C engine's
    (``system.compiled_provider()``, engine/providers/: the planar truck), else None. Looked up on
    the class: a wrapper that forwards attributes (the reduced system) is not the provider."""
    hook = getattr(type(system), "compiled_provider", None)
    return hook(system) if callable(hook) else None


def _run_dense(solver, state, *args):
    """The C engine's rollout of the dense step (``truck_li_euler_rollout``,
    src/rtmbs/engine/dense_rollout.c) for a ``li-euler`` solver on a compiled provider."""
    return run_rollout_kernel(_engine.truck_li_euler_rollout,
                              (solver.jac_flag, solver.implicit, *solver.stab_options()), solver,
                              state, *args)


def is_compiled_cartesian(system) -> bool:
    """True for a compiled Cartesian model (not a wrapper that changes its rows): the compiled
    step reads its packed buffers directly."""
    from ..system import CartesianSystem

    return type(system) is CartesianSystem or (isinstance(system, CartesianSystem)
                                               and type(system).evaluate is CartesianSystem.evaluate)


def reduced_compiled(system) -> bool:
    """True for the reduced system of a compiled Cartesian model with redundant rows
    (``rtmbs.solvers.redundancy.ReducedSystem``): the compiled steps of ``li-euler``,
    ``generalized-alpha`` and ``explicit-euler`` solve with its kept rows (the engine's row
    map)."""
    from .redundancy import ReducedSystem

    return type(system) is ReducedSystem and is_compiled_cartesian(system.system)


def sparse_in_engine(solver_name: str, system, choice: str, row_map: bool = False) -> bool:
    """True for the sparse path (``linear_solver`` ``choice``), which runs in the C engine: a
    compiled Cartesian model (:func:`is_compiled_cartesian`; with ``row_map``, the step that
    takes the engine's row map, also the reduced system of one: :func:`reduced_compiled`) with
    ``"auto"`` or ``"sparse"``. Any other system steps on the dense path from Python;
    ``"sparse"`` there raises."""
    if not (is_compiled_cartesian(system) or (row_map and reduced_compiled(system))):
        choose_linear_solver(solver_name, system, choice)  # (no patterns: its own refusal)
        if choice == "sparse":
            raise SolverError(
                f"solver '{solver_name}': option linear_solver='sparse' runs in the C engine, "
                f"which needs a compiled model; '{getattr(system, 'name', system)}' is not one "
                "(use 'dense' or 'auto')")
        return False
    return choose_linear_solver(solver_name, system, choice, compiled=True)


@register_solver("li-euler")
class LIEuler(Solver):
    """Linearly implicit Euler, dependent coordinates, index 2 (Carpinelli 2016 Algorithm 1).

    Options
    -------
    jacobian : "stiff" (default) | "all"
    stabilize : "projection" (default, eq. 30) | "none" | "baumgarte" | "ggl"; ignored when m = 0
    baumgarte_gamma : float or None (1/h)
    ggl_iterations : int, default 1
    projection : "step" (default: eq. 30 with the factors of eq. 22) | "mass" (eq. 30 as written:
        a second factorisation with M and Φq at the projected point)
    projection_solves : int, default 2: corrections with the factors of eq. 22, each after an
        evaluation of Φ at the corrected positions (projection="step" only)
    position_update : "auto" (implicit; explicit with GGL) | "implicit" (Δq = h(q̇ + Δq̇) with
        the constraint at the new positions) | "explicit" (Δq = h q̇, Carpinelli 2016 Table 1)
    linear_solver : "auto" (sparse on a compiled model, else dense) | "dense" | "sparse" (the C
        engine's step: fixed pattern, ordering and pivots; ``nanalyse`` counts the re-analyses
        after the first; compiled models only)
    """

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(
            jacobian="stiff", stabilize="projection", baumgarte_gamma=None, ggl_iterations=1,
            position_update="auto", linear_solver="auto", projection="step", projection_solves=2))
        check_choice(self.name, "jacobian", o["jacobian"], ("stiff", "all"))
        check_choice(self.name, "stabilize", o["stabilize"],
                     ("none", "projection", "baumgarte", "ggl"))
        check_choice(self.name, "position_update", o["position_update"],
                     ("auto", "explicit", "implicit"))
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        check_choice(self.name, "projection", o["projection"], ("step", "mass"))
        self.sparse = sparse_in_engine(self.name, self.system, o["linear_solver"], row_map=True)
        self.jac_all = o["jacobian"] == "all"
        if o["baumgarte_gamma"] is not None:
            check_positive(self.name, "baumgarte_gamma", o["baumgarte_gamma"], allow_zero=True)
        k = o["ggl_iterations"]
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise SolverError(f"solver '{self.name}': option ggl_iterations={k!r}, expected an "
                              "integer >= 1")
        m = system.m
        self.stabilize = o["stabilize"] if m > 0 else "none"
        pu = o["position_update"]
        own_positions = self.stabilize in ("ggl", "baumgarte")  # act on Δq = h q̇ themselves
        if pu == "auto":
            pu = "explicit" if own_positions else "implicit"
        if pu == "implicit" and own_positions and m:
            raise SolverError(f"solver '{self.name}': stabilize={self.stabilize!r} works on the "
                              "explicit position update (the implicit one imposes Φ = 0 at the "
                              "new positions itself); use position_update='explicit' or 'auto'")
        self.implicit = pu == "implicit"
        self.jac_flag = EVAL_JAC_STIFF if o["jacobian"] == "stiff" else EVAL_JAC
        self.baumgarte_gamma = o["baumgarte_gamma"]
        self.ggl_iterations = int(k)
        self.projection = o["projection"]
        k = o["projection_solves"]
        if not isinstance(k, (int, np.integer)) or k < 1:
            raise SolverError(f"solver '{self.name}': option projection_solves={k!r}, expected an "
                              "integer >= 1")
        self.projection_solves = int(k) if self.projection == "step" else 1
        self.project_with_step = self.stabilize == "projection" and self.projection == "step"
        # the whole step in one call of the C engine (src/rtmbs/engine/li_euler.c), every
        # stabilisation (``instrument`` then times the whole step, as phase "other")
        self.fused = self.sparse
        self.extra_in_step = self.fused  # (the compiled step advances the transient tyres)
        # the dense step in one call of the C engine (li_euler_dense.c) on a compiled provider
        self.dense_in_engine = not self.sparse and compiled_provider(self.system) is not None
        self.dense_c = False  # (set by reset)

    def _reset(self, state: State) -> None:
        n, m = self.system.n, self.system.m
        self.lam = np.zeros(m)
        self.ratio = 1.0
        if self.sparse:
            self._sparse_reset(state)
            return
        self.A = np.zeros((n, n))
        self._K = np.zeros((n + m, n + m))
        self.piv = np.zeros(n + m, np.int64)
        self.rhs = np.zeros(n + m)
        self.dq = np.zeros(n)
        self.qp = np.zeros(n)
        self.qk = np.zeros(n)
        self.eta = np.zeros(m)
        self.zero_m = np.zeros(m)
        self._ws1 = None
        self.P = np.zeros((n + m, n + m))  # the projection's or GGL's KKT matrix
        self.ppiv = np.zeros(n + m, np.int64)
        self.prhs = np.zeros(n + m)
        self.what0 = EVAL_M | EVAL_Q | (EVAL_PHIQ if m else 0)
        self.what1 = EVAL_PHIQ | (EVAL_PHI if self.stabilize in ("projection", "baumgarte")
                                  or self.implicit else 0)
        self._nan0 = 0
        self.bound = None
        self.dense_c = self.dense_in_engine
        if self.dense_c:
            self._dense_reset()

    # -- the dense step in the C engine (src/rtmbs/engine/li_euler_dense.c) ----------------------
    def _dense_reset(self) -> None:
        """The compiled dense step's arguments: the provider (kind, parameters), the dense
        workspaces and KKT matrices above, the vectors as views of one buffer ``vec``
        (li_euler.c's layout, λ at its end), the step's counters and warnings (``system.data``);
        bound once (:meth:`Solver.bind_step`, kind "truck-li-euler")."""
        sysm, n, m = self.system, self.system.n, self.system.m
        N, size = n + m, vector_size(n, m)
        self.vec = np.zeros(size)
        self.rhs, self.prhs = self.vec[:N], self.vec[N:2 * N]
        self.dq, self.qp, self.qk = (self.vec[3 * N + k * n:3 * N + (k + 1) * n] for k in range(3))
        self.eta, self.lam = self.vec[3 * N + 3 * n:size - m], self.vec[size - m:]
        kind, par = compiled_provider(sysm)
        self.kernel_args = (kind, par, self.ws.buf, self.ws1.buf, self.K, self.P, self.piv,
                            self.ppiv, self.vec, sysm.data.counter, sysm.data.warning)
        self._per_step = self._counts_per_step()
        self.bind_step("truck-li-euler", self.kernel_args + (
            np.zeros(n), np.zeros(n), m, 0.0, H_ANALYSIS, self.jac_flag, self.implicit,
            *self.stab_options()), self._per_step)

    def stab_options(self) -> tuple[int, int, float]:
        """(stab, niter, γ_B) of the C engine's steps (``rtmbs_li_euler_options``, li_euler.h):
        STAB_* of ``stabilize`` and ``projection``, the projection solves or GGL corrections,
        ``baumgarte_gamma`` (−1: 1/h)."""
        stab, niter, gamma = STAB_NONE, self.projection_solves, 0.0
        if self.stabilize == "projection":
            stab = STAB_PROJECT if self.project_with_step else STAB_MASS
        elif self.stabilize == "baumgarte":
            stab = STAB_BAUMGARTE
            gamma = -1.0 if self.baumgarte_gamma is None else float(self.baumgarte_gamma)
        elif self.stabilize == "ggl":
            stab, niter = STAB_GGL, self.ggl_iterations
        return stab, niter, gamma

    @property
    def rollout_runner(self):
        """The compiled dense rollout on a provider (:func:`_run_dense`), else None (the sparse
        path's rollout: ``rtmbs.solvers.rollout``)."""
        return _run_dense if self.dense_c else None

    # -- the step in the C engine (src/rtmbs/engine/li_euler.c) ----------------------------------
    def _sparse_reset(self, state: State) -> None:
        """Patterns, orderings and pivot sequences, analysed at q0 with h = H_ANALYSIS."""
        sysm, n, m = self.system, self.system.n, self.system.m
        # (M's own structure where the system gives it: no entries between translations and
        # rotations, so fewer operations in the LU than on the full blocks)
        mp = np.asarray(getattr(sysm, "mass_structure", sysm.mass_pattern), bool)
        ap = mp | np.asarray(sysm.jacobian_pattern(not self.jac_all), bool)
        pp = np.asarray(sysm.phiq_pattern, bool) if m else np.zeros((0, n), bool)
        hubs = kkt_hubs(sysm)  # (the ordering may condense onto the chassis: sparse.py)
        self.what0 = EVAL_M | EVAL_Q | (EVAL_PHIQ if m else 0)
        self.skkt = SparseKKT(ap, pp, hubs=hubs, augment_pattern=mp)
        self.sproj = (SparseProjector(mp, pp, hubs) if self.stabilize == "projection"
                      and not self.project_with_step else None)
        self.sggl = SparseKKT(mp, pp, hubs=hubs) if self.stabilize == "ggl" else None
        self._fused_reset(state)

    def _fused_reset(self, state: State) -> None:
        """The compiled step's buffers: two packed workspaces (M, Φq, Jq, Jq̇ in their blocks,
        ``CartesianSystem.packed_layout``) and the KKT map reading them; the factors analysed
        from them at q0. No dense n × n array is kept (the dense ``ws`` is made at first use).
        A reduced system (redundant rows left out) passes the engine its row map (``rows_args``):
        the KKT maps read the kept rows of the model's packed Φq."""
        sysm, n, m, h = self.system, self.system.n, self.system.m, H_ANALYSIS
        lay = sysm.packed_layout
        self.pw0, self.pw1 = np.zeros(lay.size), np.zeros(lay.size)
        reduced = reduced_compiled(sysm)
        self._kept = sysm.kept if reduced else None
        self.rows_args = (sysm.row_map if reduced else None,)
        self.pidx = PackedKKTMap(self.skkt.map, lay, self._kept).idx
        self._ws = None
        sysm.evaluate_packed(state.t, state.q, state.qd, self.pw0, self.what0 | self.jac_flag)
        self.skkt.factor_packed(self.pidx, self.pw0, h * h, h, h, self.pw0)
        size = vector_size(n, m)
        self.vec = np.zeros(vector_size(n, m, self.full_system.m) if reduced else size)
        self.lam = self.vec[size - m:size]  # (the kept rows' λ; over the model's rows at the end)
        self.kernel_args = sysm.kernel_buffers() + (self.pw0, self.pw1, self.skkt.lu.ib,
                                                    self.skkt.lu.fb, self.pidx, self.vec)
        self.stab_args = self._second_kkt()
        self._options_args = (self.jac_flag, self.implicit) + self.stab_args
        # (the engine's model has all the model's rows: the row map names those solved with)
        self._m, self._per_step = self.full_system.m, self._counts_per_step()
        self._nan0 = self._nanalyse_total()
        self.bind_step_options()

    def bind_step_options(self) -> None:
        """Bind the C engine's step (``rtmbs_li_euler_step``, src/rtmbs/engine/li_euler.c) with
        ``_options_args`` (:meth:`Solver.bind_step`)."""
        n = self.system.n
        self.bind_step("li-euler", self.kernel_args + (np.zeros(n), np.zeros(n), self._m, 0.0,
                                                       H_ANALYSIS) + self._options_args
                       + (np.zeros(0, np.int64), np.zeros(0)) + self.rows_args, self._per_step)

    def _second_kkt(self) -> tuple:
        """(stab, niter, γ_B, the second KKT's ib, fb and packed index) of
        the C engine's ``rtmbs_li_euler_step`` (``li_euler.c``). The second KKT (the projector's
        for projection="mass", GGL's) is mapped onto the packed workspaces and analysed at q0
        from ``pw0`` (evaluated there), as the Python-driven path analyses it from the dense
        workspace (without one eq. 22's factors stand in, unused)."""
        stab, niter, gamma = self.stab_options()
        k = self.sggl if stab == STAB_GGL else None
        if self.sproj is not None:  # (STAB_MASS)
            k = self.sproj.kkt.kkt
        if k is None:
            lu = self.skkt.lu
            return (stab, niter, gamma, lu.ib, lu.fb, self.pidx)
        pidx = PackedKKTMap(k.map, self.system.packed_layout, self._kept).idx
        ratio = k.factor_packed(pidx, self.pw0, 0.0, 0.0, H_ANALYSIS, self.pw0)
        lu = k.lu
        if self.sproj is not None:  # (as SparseKKTFactorisation.factor's first call)
            self.sproj.kkt.ratio = ratio
            self.sproj.kkt.args = (lu.ib, lu.fb, k.idx)
        return (stab, niter, gamma, lu.ib, lu.fb, pidx)

    # the dense workspaces, made at first use (the compiled step reads the packed ones)
    @property
    def ws(self):
        return self._workspace_at_first_use()

    @ws.setter
    def ws(self, value):
        self._ws = value

    @property
    def K(self):
        """The dense KKT matrix of eq. 22 ((n + m)², dense path; elsewhere made at first use)."""
        if self.__dict__.get("_K") is None:
            n, m = self.system.n, self.system.m
            self._K = np.zeros((n + m, n + m))
        return self._K

    @property
    def ws1(self):
        return self._workspace_at_first_use("_ws1")

    def _nanalyse_total(self) -> int:
        return sum(k.nanalyse for k in (getattr(self, "skkt", None), getattr(self, "sproj", None),
                                        getattr(self, "sggl", None)) if k is not None)

    @property
    def nanalyse(self) -> int:
        """Analyses of the sparse factors since ``reset``: 0 (none is ever repeated)."""
        return self._nanalyse_total() - self._nan0 if self.sparse else 0

    def _sparse_factors(self):
        kkts = (getattr(self, "skkt", None), getattr(self, "sggl", None),
                getattr(getattr(self, "sproj", None), "kkt", None))
        return tuple(k.lu for k in kkts if k is not None) if getattr(self, "sparse", False) else ()

    def _factor_solve(self, ws, ws1, qd, gb, h, phi1, cv=1.0) -> float:
        """Factor eq. 22 and solve into ``self.rhs`` (dense path). Returns the pivot ratio."""
        ratio = _factor(ws.M, ws.Jq, ws.Jqd, ws.phiq, ws1.phiq, h, self.A, self.K, self.piv)
        self._toc("factorisation")
        _solve(self.K, self.piv, ws.Q, ws.Jq, qd, ws1.phiq, ws1.phit, phi1, gb, cv, h, self.rhs)
        return ratio

    def _step_impl(self, state: State, h: float):
        if self.fused or self.dense_c:
            return self._step_fused(state, h)
        if self.stabilize == "ggl":
            return self._step_ggl(state, h)
        ws, ws1, m = self.ws, self.ws1, self.system.m
        q, qd, t = state.q, state.qd, state.t
        self._tic()
        evaluate(self, ws, t, q, qd, self.what0 | self.jac_flag)  # one pass: M, Q, Φq, Jq, Jq̇
        self._toc("evaluation")
        np.multiply(qd, h, out=self.dq)  # Δq = h q̇, q_p = q + Δq
        np.add(q, self.dq, out=self.qp)
        if m:
            evaluate(self, ws1, t + h, self.qp, qd, self.what1)
            self._toc("evaluation")
        gb, cv = 0.0, 1.0
        if self.stabilize == "baumgarte":
            gb = 1.0 / h if self.baumgarte_gamma is None else float(self.baumgarte_gamma)
        if self.implicit and m:
            gb, cv = 1.0 / h, 0.0
        ratio = self._factor_solve(ws, ws1, qd, gb, h, ws1.phi if gb else self.zero_m, cv=cv)
        self.nfactor += 1
        self.nsolve += 1
        self._toc("solve")
        ok = ratio > 0.0
        if self.stabilize == "projection":
            if self.implicit:
                np.add(qd, self.rhs[:self.system.n], out=self.dq)
                self.dq *= h
                np.add(q, self.dq, out=self.qp)
                evaluate(self, ws1, t + h, self.qp, qd,
                         EVAL_PHI if self.project_with_step else EVAL_PHI | EVAL_PHIQ)
            if self.project_with_step:  # eq. 30 with the factors of eq. 22
                for k in range(self.projection_solves):
                    if k > 0:
                        np.add(q, self.dq, out=self.qp)
                        evaluate(self, ws1, t + h, self.qp, qd, EVAL_PHI)
                    kkt_correction(self.K, self.piv, ws1.phi, self.prhs, self.dq)
                self.nsolve += self.projection_solves - 1
            else:
                # one Newton step of eq. 29 at the predicted positions: Φq(q + Δq) (not Φq(q), as
                # eq. 30 writes it), so the residual left is quadratic in Φ(q + Δq)
                kkt_assemble(ws.M, ws1.phiq, h, ws1.phiq, self.P)
                pr = lu_factor(self.P, self.ppiv)
                kkt_correction(self.P, self.ppiv, ws1.phi, self.prhs, self.dq)
                ok &= pr > 0.0
                self.nfactor += 1
            self.nsolve += 1
            self._toc("projection")
            update(q, qd, self.dq, self.rhs, h, False)
        else:
            update(q, qd, self.dq, self.rhs, h, self.implicit)
        self.lam[:] = self.rhs[self.system.n:]
        self.ratio = ratio
        self._toc("other")
        return ok

    def _step_fused(self, state: State, h: float):
        """The compiled step timed whole (``instrument``): :meth:`Solver.step` calls it."""
        self._tic()
        ok = self.bound.step(state.q, state.qd, state.x, state.t, h)
        self._toc("other")  # (the engine's step has no phase timers)
        self.nstep -= 1  # (Solver.step counts it)
        return ok

    def _counts_per_step(self) -> tuple[int, int, int]:
        """(evaluations, factorisations, solves) of one compiled step, those of the Python-driven
        one (module docstring)."""
        if self.stabilize == "ggl":
            return 2 + self.ggl_iterations, 2, 1 + self.ggl_iterations
        proj = self.stabilize == "projection"
        return (1 + (self.system.m > 0) + proj * (self.projection_solves - 1 + self.implicit),
                1 + (proj and not self.project_with_step), 1 + proj * self.projection_solves)

    def count_steps(self, k: int) -> None:
        """Count ``k`` compiled steps (:meth:`_step_fused`, ``rtmbs.solvers.rollout``)."""
        self.add_step_counts(k, self._counts_per_step())

    def _step_ggl(self, state: State, h: float):
        ws, ws1, n = self.ws, self.ws1, self.system.n
        q, qd, t = state.q, state.qd, state.t
        self._tic()
        evaluate(self, ws, t, q, qd, self.what0 | self.jac_flag)  # one pass: M, Q, Φq, Jq, Jq̇
        self._toc("evaluation")
        # GGL positions (Truck benchmark eq. 11): simplified Newton from the predictor q + h q̇
        np.multiply(qd, h, out=self.dq)
        np.add(q, self.dq, out=self.qp)
        self.qk[:] = self.qp
        self.eta[:] = 0.0
        evaluate(self, ws1, t + h, self.qp, qd, EVAL_PHI | EVAL_PHIQ)
        kkt_assemble(ws.M, ws.phiq, h, ws1.phiq, self.P)
        ok = lu_factor(self.P, self.ppiv) > 0.0
        self.nfactor += 1
        for k in range(self.ggl_iterations):
            if k > 0:
                evaluate(self, ws1, t + h, self.qk, qd, EVAL_PHI)
            _ggl_newton(self.P, self.ppiv, ws.M, ws.phiq, h, self.qp, self.qk, self.eta,
                        ws1.phi, self.prhs)
            self.nsolve += 1
        self._toc("projection")
        # velocities: eq. 22 with the velocity constraint at the corrected positions
        evaluate(self, ws1, t + h, self.qk, qd, EVAL_PHIQ)
        self._toc("evaluation")
        ratio = self._factor_solve(ws, ws1, qd, 0.0, h, self.zero_m)
        self.nfactor += 1
        self.nsolve += 1
        self._toc("solve")
        np.subtract(self.qk, q, out=self.dq)
        update(q, qd, self.dq, self.rhs, h, False)
        self.lam[:] = self.rhs[n:]
        self.ratio = ratio
        self._toc("other")
        return ok and ratio > 0.0
