"""Linearly implicit Euler in dependent coordinates, Algorithm 1 (seed 000 eq. 22, Table 1).

Two position updates (``position_update``):

* ``"implicit"`` (default): symplectic Euler with the constraint at the new positions,

      [M − hJq̇ − h²Jq   hΦqᵀ(q)        ] [Δq̇]   [hQ + h²Jq q̇         ]
      [Φq(q_p, t + h)      0            ] [λ  ] = [−Φ(q_p, t + h) / h   ],   q_p = q + h q̇
      q ← q + h(q̇ + Δq̇),   q̇ ← q̇ + Δq̇

  the bottom row is the linearisation of Φ(q + h(q̇ + Δq̇), t + h) = 0 at q_p, so the new
  positions satisfy the constraints up to O(h²‖Δq̇‖²) even before any projection, and (as the
  iteration matrix M − hJq̇ − h²Jq assumes) positions move with the new velocity: no energy gain
  on undamped motion (docs/solvers.md). For m = 0 this is the 1-stage linearly implicit Euler /
  Rosenbrock method (seed 001 eqs. 3-5).
* ``"explicit"``: the seeds' form, Δq = h q̇ (seed 001 eq. 7, seed 000 Table 1), with the velocity
  constraint Φq(q + Δq, t + h)(q̇ + Δq̇) + Φt = 0 in the bottom row (eq. 22). It pumps energy
  into undamped motion; the studies that reproduce the seeds use it.

Jq, Jq̇ are the Jacobians of the stiff force terms (``jacobian="stiff"``, ``EVAL_JAC_STIFF``) or of
all terms (``"all"``).

Stabilisation (``stabilize``):

* ``"projection"``: the non-iterative projection of the positions, seed 000 eq. 30 / Table 3.
  ``projection="step"`` (default) solves it with the factors of eq. 22 already made:
  [A hΦq(q)ᵀ; Φq(q_p) 0][Δ; μ] = [0; −Φ(q⁺, t + h)] (the metric A = M − hJq̇ − h²Jq instead of
  M; one factorisation per step). With the explicit update q⁺ = q_p, so this is an exact Newton
  step; with the implicit one Φq(q_p) differs from Φq(q⁺) by O(h‖Δq̇‖), and Φ(q⁺), already
  O(h²‖Δq̇‖²), shrinks by that factor. ``projection="mass"``: eq. 30 as written, a second
  factorisation of [M hΦqᵀ; Φq(q⁺) 0] at q⁺ (one exact Newton step at the projected point).
* ``"baumgarte"``: index-2 Baumgarte, Φq q̇ + Φt + γ_B Φ = 0 at the predicted positions (eq. 5,
  seed 001 eq. 10), ``baumgarte_gamma`` (default 1/h); explicit position update only.
* ``"ggl"``: Gear-Gupta-Leimkuhler (seed 001 eq. 11): M(q⁺ − q)/h = M q̇ − Φqᵀ(q) η, Φ(q⁺, t+h) = 0,
  solved by ``ggl_iterations`` simplified Newton corrections from q + h q̇ (Jacobian frozen at the
  predictor); the velocity system (eq. 22) then imposes Φq(q⁺) q̇⁺ + Φt = 0 at the corrected q⁺.

Linear algebra (``linear_solver``): dense LU (``linalg``) or, for systems with fixed sparsity
patterns, the fixed-pattern sparse LU of ``sparse`` for the matrices of eqs. 22, 30 and GGL.

Cost per step (fixed): evaluations 2 (projection: + projection_solves − 1, +1 with implicit
positions; GGL: 2 + k for k = ``ggl_iterations``), factorisations 1 (+1 projection="mass", +1
GGL), solves 1 (+ projection_solves with projection, +k GGL); tests/solvers/test_fixed_cost.py.

On the sparse path of a compiled Cartesian model every configuration runs the whole step as one
call of the C engine (``src/rtmbs/engine/li_euler.c``, docs/engine.md), the same arithmetic as
the Python-driven sparse path, unless ``instrument`` asks for phase times (which runs that one).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SolverError
from ..protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from .base import Solver, register_solver
from ..engine import _engine
from .compiled_step import (
    STAB_BAUMGARTE, STAB_GGL, STAB_MASS, STAB_NONE, STAB_PROJECT, _sp_factor_solve, _update,
    ggl_correct, vector_size,
)
from .linalg import lu_factor, lu_solve
from .sparse import (
    H_ANALYSIS, PackedKKTMap, SparseKKT, a_times, choose_linear_solver, kkt_hubs, kkt_values,
    phiq_times,
)
from .stabilization import (
    Projector, SparseProjector, check_choice, check_positive, evaluate, kkt_assemble, pop_options,
    projection_rhs_solve, projection_rhs_solve_dense,
)


@njit(cache=True)
def li_matrix(M, Jq, Jqd, h, A):
    """A = M − hJq̇ − h²Jq (the iteration matrix block of eqs. 22 and 28)."""
    n = M.shape[0]
    h2 = h * h
    for i in range(n):
        for j in range(n):
            A[i, j] = M[i, j] - h * Jqd[i, j] - h2 * Jq[i, j]


@njit(cache=True)
def _factor(M, Jq, Jqd, phiq_i, phiq_1, h, A, K, piv):
    li_matrix(M, Jq, Jqd, h, A)
    kkt_assemble(A, phiq_i, h, phiq_1, K)
    return lu_factor(K, piv)


@njit(cache=True)
def _solve(K, piv, Q, Jq, qd, phiq_1, phit_1, phi_1, gb, cv, h, rhs):
    """rhs = [hQ + h²Jq q̇; −cv(Φq₁ q̇ + Φt₁) − γ_B Φ₁], solved in place (eq. 22, eq. 5; cv = 0,
    γ_B = 1/h: the position form Φ(q₁) + hΦq₁Δq̇ = 0)."""
    n = Q.shape[0]
    m = phiq_1.shape[0]
    h2 = h * h
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += Jq[i, j] * qd[j]
        rhs[i] = h * Q[i] + h2 * s
    for i in range(m):
        s = 0.0
        for j in range(n):
            s += phiq_1[i, j] * qd[j]
        rhs[n + i] = -(cv * (s + phit_1[i]) + gb * phi_1[i])
    lu_solve(K, piv, rhs)


@njit(cache=True)
def _ggl_newton(P, piv, M, phiq_i, h, qp, qk, eta, phi, rhs):
    """One simplified Newton correction of the GGL positions (seed 001 eq. 11), multiplied by h:
    F1 = M(qk − qp) + hΦqᵀ(q)η, F2 = Φ(qk); [M hΦqᵀ(q); Φq(qp) 0][δq; δη] = −[F1; F2]."""
    n = M.shape[0]
    m = phiq_i.shape[0]
    for i in range(n):
        s = 0.0
        for j in range(n):
            s += M[i, j] * (qk[j] - qp[j])
        for j in range(m):
            s += h * phiq_i[j, i] * eta[j]
        rhs[i] = -s
    for i in range(m):
        rhs[n + i] = -phi[i]
    lu_solve(P, piv, rhs)
    for i in range(n):
        qk[i] += rhs[i]
    for i in range(m):
        eta[i] += rhs[n + i]


@njit(cache=True)
def _predict(q, qd, h, dq, qp):
    """Δq = h q̇, q_p = q + Δq."""
    for i in range(q.shape[0]):
        dq[i] = h * qd[i]
        qp[i] = q[i] + dq[i]


@njit(cache=True)
def _sp_ggl_newton(ib, fb, idx, M, phiq_i, h, qp, qk, eta, phi, rhs, tmp):
    """:func:`_ggl_newton` with the sparse factors and products on the fixed patterns."""
    n = M.shape[0]
    for i in range(n):
        tmp[i] = qk[i] - qp[i]
    a_times(idx, M, tmp, rhs[:n])
    # + h Φqᵀ η over the Φq entries (the top-right block of the same map)
    for i in range(n):
        tmp[i] = 0.0
    _phiqt_times(idx, phiq_i, eta, tmp)
    ggl_correct(ib, fb, h, phi, rhs, tmp, qk, eta)


@njit(cache=True)
def _phiqt_times(idx, phiq, x, y):
    """y += Φqᵀ x over the Φq entries of a KKT map."""
    na = np.intp(idx[0])
    nz = np.intp(idx[1])
    zr = idx[2 + 2 * na:2 + 2 * na + nz]
    zc = idx[2 + 2 * na + nz:2 + 2 * na + 2 * nz]
    for e in range(nz):
        y[zc[e]] += phiq[zr[e], zc[e]] * x[zr[e]]


@njit(cache=True)
def _implicit_dq(qd, rhs, h, dq):
    for i in range(dq.shape[0]):
        dq[i] = h * (qd[i] + rhs[i])


def is_compiled_cartesian(system) -> bool:
    """True for a compiled Cartesian model (not a wrapper that changes its rows): the compiled
    step reads its packed buffers directly."""
    from ..system import CartesianSystem

    return type(system) is CartesianSystem or (isinstance(system, CartesianSystem)
                                               and type(system).evaluate is CartesianSystem.evaluate)


@register_solver("li-euler")
class LIEuler(Solver):
    """Linearly implicit Euler, dependent coordinates, index 2 (seed 000 Algorithm 1).

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
        the constraint at the new positions) | "explicit" (Δq = h q̇, seed 000 Table 1)
    linear_solver : "auto" (sparse when the system has fixed patterns and n >= 18) | "dense" |
        "sparse" (``rtmbs.solvers.sparse``: fixed pattern, ordering and pivots; ``nanalyse``
        counts the re-analyses after the first)
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
        self.sparse = choose_linear_solver(self.name, system, o["linear_solver"],
                                           compiled=is_compiled_cartesian(self.system))
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
        # the whole step in one compiled call (rtmbs.solvers.compiled_step), every stabilisation
        self.fused = self.sparse and not instrument and is_compiled_cartesian(self.system)
        self.extra_in_step = self.fused  # (the compiled step advances the transient tyres)

    def _reset(self, state: State) -> None:
        n, m = self.system.n, self.system.m
        dense = not self.sparse  # (n + m)² arrays only on the dense path
        self.A = np.zeros((n, n)) if dense else None
        self._K = np.zeros((n + m, n + m)) if dense else None
        self.piv = np.zeros(n + m, np.int64) if dense else None
        self.rhs = np.zeros(n + m)
        self.dq = np.zeros(n)
        self.qp = np.zeros(n)
        self.qk = np.zeros(n)
        self.eta = np.zeros(m)
        self.zero_m = np.zeros(m)
        self._ws1 = None  # (allocated at first use: the compiled step needs none)
        self.proj = Projector(n, m) if dense else None
        self.P = np.zeros((n + m, n + m)) if dense else None
        self.ppiv = np.zeros(n + m, np.int64) if dense else None
        self.prhs = np.zeros(n + m)
        self.what0 = EVAL_M | EVAL_Q | (EVAL_PHIQ if m else 0)
        self.what1 = EVAL_PHIQ | (EVAL_PHI if self.stabilize in ("projection", "baumgarte")
                                  or self.implicit else 0)
        self.lam = np.zeros(m)
        self.ratio = 1.0
        if self.sparse:
            self._sparse_reset(state)

    # -- sparse path (rtmbs.solvers.sparse) ------------------------------------------------
    def _sparse_reset(self, state: State) -> None:
        """Patterns, orderings and pivot sequences, analysed at q0 with h = H_ANALYSIS."""
        sysm, n, m = self.system, self.system.n, self.system.m
        # (M's own structure where the system gives it: no entries between translations and
        # rotations, so fewer operations in the LU than on the full blocks)
        mp = np.asarray(getattr(sysm, "mass_structure", sysm.mass_pattern), bool)
        ap = mp | np.asarray(sysm.jacobian_pattern(not self.jac_all), bool)
        pp = np.asarray(sysm.phiq_pattern, bool) if m else np.zeros((0, n), bool)
        hubs = kkt_hubs(sysm)  # (the ordering may condense onto the chassis: sparse.py)
        self.skkt = SparseKKT(ap, pp, hubs=hubs, augment_pattern=mp)
        self.sproj = (SparseProjector(mp, pp, hubs) if self.stabilize == "projection"
                      and not self.project_with_step else None)
        self.sggl = SparseKKT(mp, pp, hubs=hubs) if self.stabilize == "ggl" else None
        self.stmp = np.zeros(n + m)
        if self.fused:
            self._fused_reset(state)
            return
        ws, h = self.ws, H_ANALYSIS
        sysm.evaluate(state.t, state.q, state.qd, ws, self.what0)
        sysm.evaluate(state.t, state.q, state.qd, ws, self.jac_flag)
        self.skkt.factor(ws.M, ws.Jq, ws.Jqd, h * h, h, ws.phiq, h, ws.phiq)
        if self.sproj is not None:
            self.sproj.kkt.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, h, ws.phiq)
        if self.sggl is not None:
            self.sggl.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, h, ws.phiq)
        self._nan0 = self._nanalyse_total()

    def _fused_reset(self, state: State) -> None:
        """The compiled step's buffers: two packed workspaces (M, Φq, Jq, Jq̇ in their blocks,
        ``CartesianSystem.packed_layout``) and the KKT map reading them; the factors analysed
        from them at q0. No dense n × n array is kept (the dense ``ws`` is made at first use)."""
        sysm, n, m, h = self.system, self.system.n, self.system.m, H_ANALYSIS
        lay = sysm.packed_layout
        self.pw0, self.pw1 = np.zeros(lay.size), np.zeros(lay.size)
        self.pidx = PackedKKTMap(self.skkt.map, lay).idx
        self._ws = None
        sysm.evaluate_packed(state.t, state.q, state.qd, self.pw0, self.what0 | self.jac_flag)
        self.skkt.factor_packed(self.pidx, self.pw0, h * h, h, h, self.pw0)
        self.vec = np.zeros(vector_size(n, m))
        self.lam = self.vec[vector_size(n, m) - m:]
        self._no_outputs = (np.zeros(0, np.int64), np.zeros(0))  # (no outputs at the start)
        self.kernel_args = sysm.kernel_buffers() + (self.pw0, self.pw1, self.skkt.lu.ib,
                                                    self.skkt.lu.fb, self.pidx, self.vec)
        self.stab_args = self._second_kkt()
        # the step in the C engine (src/rtmbs/engine/li_euler.c): every stabilisation
        self._kernel, self._kernel_outputs = _engine.li_euler_stab_step, _engine.li_euler_stab_step_outputs
        self._options_args = (self.jac_flag, self.implicit) + self.stab_args
        self._post = self._options_args + self._no_outputs
        self._m, self._lu, self._per_step = m, self.skkt.lu, self._counts_per_step()
        self._extra_state = sysm.extra_state if sysm.nx else None
        self._nan0 = self._nanalyse_total()

    def _second_kkt(self) -> tuple:
        """(stab, niter, γ_B, the second KKT's ib, fb and packed index) of
        :func:`rtmbs.solvers.compiled_step.li_euler_stab_step`. The second KKT (the projector's
        for projection="mass", GGL's) is mapped onto the packed workspaces and analysed at q0
        from ``pw0`` (evaluated there), as the Python-driven path analyses it from the dense
        workspace; ``_lu2`` is its SparseLU (None without one: eq. 22's factors stand in,
        unused)."""
        stab, niter, gamma = STAB_NONE, self.projection_solves, 0.0
        k = None
        if self.stabilize == "projection":
            stab = STAB_PROJECT
        elif self.stabilize == "baumgarte":
            stab = STAB_BAUMGARTE
            gamma = -1.0 if self.baumgarte_gamma is None else float(self.baumgarte_gamma)
        elif self.stabilize == "ggl":
            stab, niter, k = STAB_GGL, self.ggl_iterations, self.sggl
        if self.sproj is not None:
            stab, k = STAB_MASS, self.sproj.kkt.kkt
        self._lu2 = None
        if k is None:
            lu = self.skkt.lu
            return (stab, niter, gamma, lu.ib, lu.fb, self.pidx)
        pidx = PackedKKTMap(k.map, self.system.packed_layout).idx
        ratio = k.factor_packed(pidx, self.pw0, 0.0, 0.0, H_ANALYSIS, self.pw0)
        lu = self._lu2 = k.lu
        if self.sproj is not None:  # (as SparseKKTFactorisation.factor's first call)
            self.sproj.kkt.ratio = ratio
            self.sproj.kkt.args = (lu.ib, lu.fb, k.idx)
        return (stab, niter, gamma, lu.ib, lu.fb, pidx)

    # the dense workspaces, made at first use (the compiled step reads the packed ones)
    @property
    def ws(self):
        if self.__dict__.get("_ws") is None:
            self._ws = self.system.workspace()
        return self._ws

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
        if self.__dict__.get("_ws1") is None:
            self._ws1 = self.system.workspace()
        return self._ws1

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

    def _factor_solve(self, ws, ws1, q, qd, gb, h, phi1, update=False, cv=1.0):
        """Factor eq. 22 and solve into ``self.rhs``; with ``update`` (sparse path only) also
        update q, q̇ and λ in the same compiled call. Returns (pivot ratio, updated)."""
        if not self.sparse:
            ratio = _factor(ws.M, ws.Jq, ws.Jqd, ws.phiq, ws1.phiq, h, self.A, self.K, self.piv)
            self._toc("factorisation")
            _solve(self.K, self.piv, ws.Q, ws.Jq, qd, ws1.phiq, ws1.phit, phi1, gb, cv, h, self.rhs)
            return ratio, False
        k = self.skkt
        lu = k.lu
        a = (k.idx, ws.M, ws.Q, ws.Jq, ws.Jqd, qd, ws.phiq, ws1.phiq, ws1.phit, phi1, gb, cv, h,
             self.rhs, self.stmp)
        b = (q, self.dq, self.lam, update, self.implicit)
        ratio, growth = _sp_factor_solve(lu.ib, lu.fb, *a, *b)
        lu.ratio, lu.growth = ratio, growth
        self._toc("factorisation")
        return ratio, update and ratio > 0.0

    def _step_impl(self, state: State, h: float):
        if self.fused:
            return self._step_fused(state, h)
        if self.stabilize == "ggl":
            return self._step_ggl(state, h)
        ws, ws1, m = self.ws, self.ws1, self.system.m
        q, qd, t = state.q, state.qd, state.t
        self._tic()
        evaluate(self, ws, t, q, qd, self.what0 | self.jac_flag)  # one pass: M, Q, Φq, Jq, Jq̇
        self._toc("evaluation")
        _predict(q, qd, h, self.dq, self.qp)
        if m:
            evaluate(self, ws1, t + h, self.qp, qd, self.what1)
            self._toc("evaluation")
        gb, cv = 0.0, 1.0
        if self.stabilize == "baumgarte":
            gb = 1.0 / h if self.baumgarte_gamma is None else float(self.baumgarte_gamma)
        if self.implicit and m:
            gb, cv = 1.0 / h, 0.0
        ratio, done = self._factor_solve(ws, ws1, q, qd, gb, h, ws1.phi if gb else self.zero_m,
                                         update=self.stabilize != "projection", cv=cv)
        self.nfactor += 1
        self.nsolve += 1
        self._toc("solve")
        ok = ratio > 0.0
        if done:
            pass  # q, q̇, λ updated in the compiled call
        elif self.stabilize == "projection":
            if self.implicit:
                _implicit_dq(qd, self.rhs, h, self.dq)
                np.add(q, self.dq, out=self.qp)
                evaluate(self, ws1, t + h, self.qp, qd,
                         EVAL_PHI if self.project_with_step else EVAL_PHI | EVAL_PHIQ)
            if self.project_with_step:  # eq. 30 with the factors of eq. 22
                for k in range(self.projection_solves):
                    if k > 0:
                        np.add(q, self.dq, out=self.qp)
                        evaluate(self, ws1, t + h, self.qp, qd, EVAL_PHI)
                    if self.sparse:
                        projection_rhs_solve(self.skkt.lu.ib, self.skkt.lu.fb, ws1.phi, self.prhs, self.dq)
                    else:
                        projection_rhs_solve_dense(self.K, self.piv, ws1.phi, self.prhs, self.dq)
                self.nsolve += self.projection_solves - 1
            else:
                # one Newton step of eq. 29 at the predicted positions: Φq(q + Δq) (not Φq(q), as
                # eq. 30 writes it), so the residual left is quadratic in Φ(q + Δq)
                proj = self.sproj if self.sparse else self.proj
                ok &= proj.correct(ws.M, ws1.phiq, ws1.phi, h, self.dq)
                self.nfactor += 1
            self.nsolve += 1
            self._toc("projection")
            _update(q, qd, self.dq, self.rhs, h, False)
        else:
            _update(q, qd, self.dq, self.rhs, h, self.implicit)
        if not done:
            self.lam[:] = self.rhs[self.system.n:]
        self.ratio = ratio
        state.t = t + h
        self._toc("other")
        return ok

    def step(self, state: State, h: float) -> bool:
        """:meth:`Solver.step`; the compiled step is called from here, without the generic
        glue (a few per cent of a small model's step from Python)."""
        if not self.fused:
            return super().step(state, h)
        if self._fused_call(self._kernel, state, h, self._post):
            return True
        self.status = -1
        return False

    def _step_fused(self, state: State, h: float):
        ok = self._fused_call(self._kernel, state, h, self._post)
        self.nstep -= 1  # (Solver.step counts it)
        return ok

    def step_outputs(self, state: State, h: float, out, at_start: bool = False) -> bool:
        """:meth:`Solver.step_outputs` as one compiled call
        (the C engine's ``li_euler_stab_step_outputs``) on the compiled step of a
        model; otherwise the step, then ``system.outputs``."""
        if not self.fused or len(out) != len(self.system.output_index):
            return super().step_outputs(state, h, out, at_start)
        ok = self._fused_call(self._kernel_outputs, state, h,
                              self._options_args + (self.system.output_index, out, bool(at_start)))
        if not ok:
            self.status = -1
        return ok

    def _fused_call(self, kernel, state: State, h: float, post: tuple) -> bool:
        """One compiled step (``kernel``: the C engine's ``li_euler_stab_step`` or
        their ``_outputs`` forms; ``post``: its arguments after h) and its bookkeeping: factor
        statistics (of the second KKT too: the projector's or GGL's), counters, the time; the
        extra states (transient tyres) go in from ``state.x`` and come back advanced."""
        # (what does not change between steps is looked up once in _fused_reset: this glue is
        # a few per cent of a small model's step)
        x = self._extra_state
        if x is not None:
            x[:] = state.x
        r = kernel(*self.kernel_args, state.q, state.qd, self._m, float(state.t), float(h), *post)
        if x is not None:
            state.x[:] = x
        ratio = r[0]
        lu = self._lu
        lu.ratio, lu.growth = ratio, r[1]
        self.ratio = ratio
        ne, nf, ns = self._per_step
        self.nstep += 1
        self.neval += ne
        self.nfactor += nf
        self.nsolve += ns
        state.t = state.t + h
        if self._lu2 is not None:  # the second KKT's statistics, as the Python-driven step reports them
            return self._second_stats(r[2], r[3]) and ratio > 0.0
        return ratio > 0.0

    def _second_stats(self, ratio2: float, growth2: float) -> bool:
        lu2 = self._lu2
        lu2.ratio, lu2.growth = ratio2, growth2
        if self.sproj is not None:  # (Projector.correct's bookkeeping)
            self.sproj.kkt.ratio = self.sproj.ratio = ratio2
        return ratio2 > 0.0

    def _counts_per_step(self) -> tuple[int, int, int]:
        """(evaluations, factorisations, solves) of one compiled step, those of the Python-driven
        one (module docstring)."""
        if self.stabilize == "ggl":
            return 2 + self.ggl_iterations, 2, 1 + self.ggl_iterations
        proj = self.stabilize == "projection"
        return (2 + proj * (self.projection_solves - 1 + self.implicit),
                1 + (self.sproj is not None), 1 + proj * self.projection_solves)

    def count_steps(self, k: int) -> None:
        """Count ``k`` compiled steps (:meth:`_step_fused`, ``rtmbs.solvers.rollout``)."""
        ne, nf, ns = self._counts_per_step()
        self.nstep += k
        self.neval += k * ne
        self.nfactor += k * nf
        self.nsolve += k * ns

    def _step_ggl(self, state: State, h: float):
        ws, ws1, n = self.ws, self.ws1, self.system.n
        q, qd, t = state.q, state.qd, state.t
        self._tic()
        evaluate(self, ws, t, q, qd, self.what0 | self.jac_flag)  # one pass: M, Q, Φq, Jq, Jq̇
        self._toc("evaluation")
        # GGL positions (seed 001 eq. 11): simplified Newton from the predictor q + h q̇
        np.multiply(qd, h, out=self.dq)
        np.add(q, self.dq, out=self.qp)
        self.qk[:] = self.qp
        self.eta[:] = 0.0
        evaluate(self, ws1, t + h, self.qp, qd, EVAL_PHI | EVAL_PHIQ)
        if self.sparse:
            g = self.sggl
            ok = g.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, h, ws1.phiq) > 0.0
        else:
            kkt_assemble(ws.M, ws.phiq, h, ws1.phiq, self.P)
            ok = lu_factor(self.P, self.ppiv) > 0.0
        self.nfactor += 1
        for k in range(self.ggl_iterations):
            if k > 0:
                evaluate(self, ws1, t + h, self.qk, qd, EVAL_PHI)
            if self.sparse:
                _sp_ggl_newton(g.lu.ib, g.lu.fb, g.idx, ws.M, ws.phiq, h, self.qp, self.qk,
                               self.eta, ws1.phi, self.prhs, self.stmp)
            else:
                _ggl_newton(self.P, self.ppiv, ws.M, ws.phiq, h, self.qp, self.qk, self.eta,
                            ws1.phi, self.prhs)
            self.nsolve += 1
        self._toc("projection")
        # velocities: eq. 22 with the velocity constraint at the corrected positions
        evaluate(self, ws1, t + h, self.qk, qd, EVAL_PHIQ)
        self._toc("evaluation")
        ratio, _ = self._factor_solve(ws, ws1, q, qd, 0.0, h, self.zero_m)
        self.nfactor += 1
        self.nsolve += 1
        self._toc("solve")
        np.subtract(self.qk, q, out=self.dq)
        _update(q, qd, self.dq, self.rhs, h, False)
        self.lam[:] = self.rhs[n:]
        self.ratio = ratio
        state.t = t + h
        self._toc("other")
        return ok and ratio > 0.0
