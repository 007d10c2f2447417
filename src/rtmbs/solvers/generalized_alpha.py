"""``generalized-alpha``: second-order, fixed-cost integrator for stiff constrained systems.

The generalized-α method of Chung & Hulbert (1993) for the index-3 equations of motion
(seed 000 eq. 1) in the form of Arnold & Brüls (2007, "Convergence of the generalized-α scheme
for constrained mechanical systems", Multibody Syst Dyn 18): with the acceleration-like
variable a,

    q₁ = q + h q̇ + h²(½ − β) a + h²β a₁,     q̇₁ = q̇ + h(1 − γ) a + hγ a₁,
    (1 − α_m) a₁ + α_m a = (1 − α_f) q̈₁ + α_f q̈,
    M(q₁) q̈₁ + Φqᵀ(q₁, t₁) λ₁ = Q(q₁, q̇₁, t₁),     Φ(q₁, t₁) = 0,

α_m = (2ρ∞ − 1)/(ρ∞ + 1), α_f = ρ∞/(ρ∞ + 1), γ = ½ + α_f − α_m, β = ¼(γ + ½)² (second order,
unconditionally stable for linear problems, high-frequency spectral radius ρ∞).

Fixed cost: ``newton_iterations`` k simplified Newton corrections in Δq from the predictor
q̈₁ = q̈, λ₁ = λ, with Δq̇ = γ'Δq, Δq̈ = β'Δq (γ' = γ/(βh), β' = (1 − α_m)/(βh²(1 − α_f))) and
the iteration matrix factorised once per step at the predictor, scaled by s = 1/β' (Bottasso,
Dopico & Trainelli 2008) so that its conditioning does not grow as h → 0:

    [M − sγ' Jq̇ − s Jq   Φqᵀ] [Δq  ]     [s (M q̈₁ − Q + Φqᵀ λ₁)]
    [Φq                  0  ] [sΔλ ] = − [Φ(q₁, t₁)             ]

(Euler-parameter normalisation rows are ordinary rows of Φ). Stabilisation at the end of the step
(``stabilize``):

* "velocity" (default): Φq, Φt evaluated at q₁, then ``VELOCITY_PASSES`` = 2 solves with the
  step's factors, right-hand side [0; −(Φq(q₁) q̇₁ + Φt)]: an oblique projection in the metric
  of the iteration matrix, refined once because the factors hold the predictor's Φq; no
  factorisation;
* "projection": [M Φqᵀ; Φq 0] evaluated and factorised at q₁, position correction with
  [0; −Φ(q₁)] (seed 000 eq. 30) then velocity correction with [0; −(Φq q̇₁ + Φt)];
* "none": the plain index-3 scheme (Φq q̇ + Φt stays at the size of the velocity error).

Cost per step: evaluations k (+1 "velocity": Φq only; +1 "projection"), factorisations 1
(+1 "projection"), solves k (+2 with either stabilisation).

On the sparse path of a compiled Cartesian model every option set runs the whole step as one
call of the C engine (``_engine.generalized_alpha_step``, src/rtmbs/engine/generalized_alpha.c,
with the arguments of :func:`rtmbs.solvers.compiled_alpha.generalized_alpha_step`: evaluations,
the factorisations, solves, stabilisation, commit and the extra states, over packed workspaces;
``step_outputs`` adds the named outputs in the same call and ``rollout``/``simulate`` run many
steps in one call, :func:`rtmbs.solvers.compiled_alpha.run`), bit for bit the results of the
Python-driven sparse step, which runs kernel by kernel when ``instrument`` asks for phase times
(and on the dense path, or for other systems). a, q̈ and λ live in the compiled step's buffer.
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..engine import _engine
from ..errors import SolverError
from ..protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State,
)
from .base import Solver, register_solver
from .compiled_alpha import (
    STAB_NONE, STAB_PROJECTION, STAB_VELOCITY, VELOCITY_PASSES, _finish, _predict, finite,
    newton_end, vector_size, vector_views, velocity_end, velocity_rhs,
)
from .compiled_alpha import run as run_rollout
from .factorisation import f_kkt_factor, kkt_correction, make_kkt
from .li_euler import is_compiled_cartesian
from .products import entries, sub_mtv, sub_mv
from .sparse import PackedKKTMap, choose_linear_solver
from .storage import entry_index
from .stabilization import check_choice, evaluate, pop_options


def coefficients(rho_inf: float):
    """(α_m, α_f, γ, β) of Chung & Hulbert for the spectral radius ρ∞ at h → ∞."""
    r = float(rho_inf)
    am = (2.0 * r - 1.0) / (r + 1.0)
    af = r / (r + 1.0)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    return am, af, g, b


# -- kernels of the Python-driven step (the predictor, corrections and commit are those of the
# compiled step, ``compiled_alpha``): products with M and Φq over their entries (``products``:
# dense loops, or the fixed patterns ``em``, ``ez``), solves with the factors (fa, fb) of
# ``factorisation`` (dense or sparse)
@njit(cache=True)
def _newton(fa, fb, em, ez, M, Q, phiq, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs):
    """rhs = −[s(M q̈₁ − Q + Φqᵀλ₁); Φ], solved with the iteration matrix; then the correction."""
    for i in range(M.shape[0]):
        rhs[i] = Q[i]
    sub_mv(em, M, qdd1, rhs)
    sub_mtv(ez, phiq, lam1, rhs)
    newton_end(fa, fb, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs)


@njit(cache=True)
def _velocity(fa, fb, ez, phiq, phit, v1, rhs):
    """q̇₁ += the velocity part of K⁻¹[0; −(Φq q̇₁ + Φt)] with the factors (fa, fb) of K."""
    n = v1.shape[0]
    velocity_rhs(phit, rhs, n)
    sub_mv(ez, phiq, v1, rhs[n:])
    velocity_end(fa, fb, v1, rhs)


@njit(cache=True)
def _project(fa, fb, idx, ez, M, phiq, phit, phi, rhs, q1, v1):
    """Factor P = [M Φqᵀ; Φq 0] at q₁; q₁ += the correction of [0; −Φ], then q̇₁ += that of
    [0; −(Φq q̇₁ + Φt)] (seed 000 eq. 30, velocities alike). Returns (pivot ratio, growth)."""
    ratio, growth = f_kkt_factor(fa, fb, idx, M, M, M, 0.0, 0.0, phiq, 1.0, phiq)
    kkt_correction(fa, fb, phi, rhs, q1)
    _velocity(fa, fb, ez, phiq, phit, v1, rhs)
    return ratio, growth


@register_solver("generalized-alpha")
class GeneralizedAlpha(Solver):
    """Generalized-α (Chung & Hulbert) for index-3 DAEs after Arnold & Brüls (2007), with a
    fixed number of simplified Newton iterations and a velocity (position) projection.

    Options
    -------
    rho_inf : float in [0, 1], default 0.9: spectral radius at h → ∞ (1: no numerical damping)
    newton_iterations : int >= 1, default 3 (3 reaches the converged scheme on the 1e7 N/m bushings
        at h = 1 ms; 2 leaves a Newton error as large as the method's there, docs/solvers.md)
    jacobian : "all" (default) | "stiff": force Jacobians in the iteration matrix
    stabilize : "velocity" (default: velocity correction with the step's factors) |
        "projection" (positions and velocities, [M Φqᵀ; Φq 0] factorised at q₁) | "none"
    linear_solver : "auto" | "dense" | "sparse" (as ``li-euler``)
    """

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(
            rho_inf=0.9, newton_iterations=3, jacobian="all", stabilize="velocity",
            linear_solver="auto"))
        r = o["rho_inf"]
        if (isinstance(r, bool) or not isinstance(r, (int, float, np.integer, np.floating))
                or not 0.0 <= float(r) <= 1.0):
            raise SolverError(f"solver '{self.name}': option rho_inf={r!r}, expected a number "
                              "in [0, 1]")
        k = o["newton_iterations"]
        if isinstance(k, bool) or not isinstance(k, (int, np.integer)) or k < 1:
            raise SolverError(f"solver '{self.name}': option newton_iterations={k!r}, expected "
                              "an integer >= 1")
        check_choice(self.name, "jacobian", o["jacobian"], ("all", "stiff"))
        check_choice(self.name, "stabilize", o["stabilize"], ("velocity", "projection", "none"))
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        self.sparse = choose_linear_solver(self.name, system, o["linear_solver"],
                                           compiled=is_compiled_cartesian(self.system))
        self.rho_inf = float(r)
        self.alpha_m, self.alpha_f, self.gamma, self.beta = coefficients(self.rho_inf)
        self.newton_iterations = int(k)
        self.jac_all = o["jacobian"] == "all"
        self.jac_flag = EVAL_JAC if self.jac_all else EVAL_JAC_STIFF
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        # the whole step in one compiled call (rtmbs.solvers.compiled_alpha) on the sparse path
        # of a compiled Cartesian model, unless instrumented (phase times: the Python-driven step)
        self.fused = self.sparse and not instrument and is_compiled_cartesian(self.system)
        self.extra_in_step = self.fused  # (the compiled step advances the transient tyres)

    # -- set-up ----------------------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        sysm, n, m = self.system, self.system.n, self.system.m
        if self.ws is None:  # (dropped after a compiled step's reset)
            self.ws = sysm.workspace()
        # the step's vectors and the solver's state (a, q̈, λ) in one buffer (compiled_alpha)
        self.vec = np.zeros(vector_size(n, m))
        (self.q1, self.v1, self.qdd1, self.a1, self.a, self.qdd, self.rhs, self.lam1,
         self.lam) = vector_views(self.vec, n, m)
        self.what = EVAL_M | EVAL_Q | EVAL_PHI | (EVAL_PHIQ if m else 0)
        self.ratio = 1.0
        # consistent start: q̈₀, λ₀ of the index-1 equations (seed 000 eq. 12); a₀ = q̈₀
        ws = self.ws
        sysm.evaluate(state.t, state.q, state.qd, ws,
                      EVAL_M | EVAL_Q | (EVAL_PHIQ | EVAL_GAMMA if m else 0))
        kkt = np.zeros((n + m, n + m))
        kkt[:n, :n] = ws.M
        kkt[:n, n:] = ws.phiq.T
        kkt[n:, :n] = ws.phiq
        x = np.linalg.lstsq(kkt, np.concatenate([ws.Q, ws.gamma]), rcond=None)[0]
        self.qdd[:] = x[:n]
        self.a[:] = x[:n]
        self.lam[:] = x[n:]
        # the iteration matrix (M | force Jacobian, Φq) and the projection matrix (M, Φq), dense
        # or on their fixed patterns (analysed here, at the initial state); the entries of M and
        # Φq for the products (None: dense loops)
        ap, self.em, self.ez = None, None, None
        if self.sparse:
            mp = np.asarray(sysm.mass_pattern, bool)
            ap = mp | np.asarray(sysm.jacobian_pattern(not self.jac_all), bool)
            self.em = entries(mp)
            self.ez = entries(np.asarray(sysm.phiq_pattern, bool) if m else np.zeros((0, n), bool))
        self.kkt = make_kkt(sysm, self.sparse, ap)
        self.pkkt = make_kkt(sysm, self.sparse) if self.stabilize == "projection" else None
        if self.fused:
            self._fused_reset(state, mp)
        elif self.sparse:
            sysm.evaluate(state.t, state.q, state.qd, ws, self.what | self.jac_flag)
            c, cd, _, _, _ = self._scales(1e-3)
            self.kkt.factor(ws.M, ws.Jq, ws.Jqd, c, cd, ws.phiq, 1.0, ws.phiq)
            if self.pkkt is not None:
                self.pkkt.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
        self._nan0 = self._nanalyse_total()

    def _fused_reset(self, state: State, mass_pattern) -> None:
        """The compiled step's buffers (rtmbs.solvers.compiled_alpha): two packed workspaces, the
        maps of the iteration and projection matrices onto them and of M's and Φq's entries for
        the products; the factors analysed at q0 from the packed values (the same values as the
        dense ones the Python-driven path analyses), as that path does."""
        sysm, m = self.system, self.system.m
        lay = sysm.packed_layout
        self.pw0, self.pw1 = np.zeros(lay.size), np.zeros(lay.size)
        sysm.evaluate_packed(state.t, state.q, state.qd, self.pw0, self.what | self.jac_flag)
        c, cd, _, _, _ = self._scales(1e-3)
        kidx = self._analyse_packed(self.kkt, c, cd)
        kk = self.kkt.lu
        pk = self.pkkt.lu if self.pkkt is not None else kk
        pidx = self._analyse_packed(self.pkkt, 0.0, 0.0) if self.pkkt is not None else kidx
        pp = np.asarray(sysm.phiq_pattern, bool) if m else np.zeros((0, sysm.n), bool)
        midx = entry_index(mass_pattern, pp, lay)
        self.kernel_args = sysm.kernel_buffers() + (self.pw0, self.pw1, kk.ib, kk.fb, kidx, pk.ib,
                                                    pk.fb, pidx, midx, self.vec)
        stab = {"none": STAB_NONE, "velocity": STAB_VELOCITY,
                "projection": STAB_PROJECTION}[self.stabilize]
        self.options_args = (self.alpha_m, self.alpha_f, self.gamma, self.beta, self.jac_flag,
                             self.newton_iterations, stab)
        self._extra_state = sysm.extra_state if sysm.nx else None
        self._per_step = self._counts_per_step()
        # the step in the C engine (src/rtmbs/engine/generalized_alpha.c): every option set
        self._kernel = _engine.generalized_alpha_step
        self._kernel_outputs = _engine.generalized_alpha_step_outputs
        self.ws = None  # (the dense workspace served the start's index-1 solve only)

    def _analyse_packed(self, k, c: float, cd: float):
        """Map the KKT factorisation ``k`` onto the packed workspace and analyse and factor it
        from ``pw0`` (as its first ``factor`` does from a dense workspace). Returns the map."""
        pidx = PackedKKTMap(k.kkt.map, self.system.packed_layout).idx
        k.ratio = k.kkt.factor_packed(pidx, self.pw0, c, cd, 1.0, self.pw0)
        k.args = (k.lu.ib, k.lu.fb, k.idx)
        return pidx

    def _kkts(self):
        return tuple(k for k in (getattr(self, "kkt", None), getattr(self, "pkkt", None))
                     if k is not None)

    def _nanalyse_total(self) -> int:
        return sum(k.nanalyse for k in self._kkts())

    def _sparse_factors(self):
        return tuple(lu for k in self._kkts() for lu in k.factors())

    @property
    def nanalyse(self) -> int:
        """Re-analyses of the sparse factors since ``reset`` (0 on the dense path)."""
        return self._nanalyse_total() - self._nan0

    def _scales(self, h):
        """(c, cd, s, γ', β'): iteration matrix M − cd Jq̇ − c Jq scaled by s = 1/β'."""
        am, af, g, b = self.alpha_m, self.alpha_f, self.gamma, self.beta
        bp = (1.0 - am) / (b * h * h * (1.0 - af))
        gp = g / (b * h)
        s = 1.0 / bp
        return s, s * gp, s, gp, bp

    # -- one step ----------------------------------------------------------------------------------
    def _step_impl(self, state: State, h: float):
        if self.fused:
            ok = self._fused_call(self._kernel, state, h, ())
            self.nstep -= 1  # (Solver.step counts it)
            return ok
        ws = self.ws
        q1, v1, qdd1, lam1, rhs = self.q1, self.v1, self.qdd1, self.lam1, self.rhs
        am, af = self.alpha_m, self.alpha_f
        c, cd, s, gp, bp = self._scales(h)
        t1 = state.t + h
        self._tic()
        _predict(state.q, state.qd, self.a, self.qdd, am, af, self.gamma, self.beta, h,
                 q1, v1, qdd1, self.a1)
        lam1[:] = self.lam
        ratio = 1.0
        for k in range(self.newton_iterations):
            if k == 0:
                evaluate(self, ws, t1, q1, v1, self.what | self.jac_flag)
                self._toc("evaluation")
                ratio = self.kkt.factor(ws.M, ws.Jq, ws.Jqd, c, cd, ws.phiq, 1.0, ws.phiq)
                fa, fb = self.kkt.args[:2]
                self.nfactor += 1
                self._toc("factorisation")
            else:
                evaluate(self, ws, t1, q1, v1, self.what)
                self._toc("evaluation")
            _newton(fa, fb, self.em, self.ez, ws.M, ws.Q, ws.phiq, ws.phi, s, gp, bp, q1, v1,
                    qdd1, lam1, rhs)
            self.nsolve += 1
            self._toc("solve")
        ok = ratio > 0.0
        if self.stabilize == "velocity":
            # Φq, Φt at q₁; the step's factors (Φq at the predictor, metric of the iteration matrix)
            evaluate(self, ws, t1, q1, v1, EVAL_PHIQ)
            for _ in range(VELOCITY_PASSES):
                _velocity(fa, fb, self.ez, ws.phiq, ws.phit, v1, rhs)
            self.nsolve += VELOCITY_PASSES
            self._toc("projection")
        elif self.stabilize == "projection":
            evaluate(self, ws, t1, q1, v1, EVAL_M | EVAL_PHI | EVAL_PHIQ)
            pk = self.pkkt
            pr, growth = _project(*pk.args, self.ez, ws.M, ws.phiq, ws.phit, ws.phi, rhs, q1, v1)
            if pk.lu is not None:
                pk.lu.ratio, pk.lu.growth = pr, growth
            self.nfactor += 1
            self.nsolve += 2
            ok &= pr > 0.0
            self._toc("projection")
        _finish(state.q, state.qd, self.a, self.qdd, self.lam, q1, v1, qdd1, lam1, am, af)
        state.t = t1
        self.ratio = ratio
        self._toc("other")
        return bool(ok and finite(state.q) and finite(state.qd))

    # -- the compiled step (rtmbs.solvers.compiled_alpha) ---------------------------------------
    def step(self, state: State, h: float) -> bool:
        """:meth:`Solver.step`; the compiled step is called from here, without the generic
        glue."""
        if not self.fused:
            return super().step(state, h)
        if self._fused_call(self._kernel, state, h, ()):
            return True
        self.status = -1
        return False

    def step_outputs(self, state: State, h: float, out, at_start: bool = False) -> bool:
        """:meth:`Solver.step_outputs` as one compiled call (the C engine's
        ``generalized_alpha_step_outputs``, the arguments of
        :func:`rtmbs.solvers.compiled_alpha.generalized_alpha_step_outputs`) on the compiled
        step; otherwise the step, then ``system.outputs``."""
        if not self.fused or len(out) != len(self.system.output_index):
            return super().step_outputs(state, h, out, at_start)
        ok = self._fused_call(self._kernel_outputs, state, h,
                              (self.system.output_index, out, bool(at_start)))
        if not ok:
            self.status = -1
        return ok

    def _fused_call(self, kernel, state: State, h: float, post: tuple) -> bool:
        """One compiled step (``kernel``: the C engine's ``generalized_alpha_step`` or its
        ``_outputs`` form; ``post`` its arguments after the options) and its
        bookkeeping: the extra states in from ``state.x`` and back advanced, factor
        statistics, counters, the time."""
        x = self._extra_state
        if x is not None:
            x[:] = state.x
        r = kernel(*self.kernel_args, state.q, state.qd, self.system.m, float(state.t), float(h),
                   *self.options_args, *post)
        if x is not None:
            state.x[:] = x
        self.take_statistics(r[0], r[1], r[2], r[3])
        self.count_steps(1)
        state.t = state.t + h
        return r[0] > 0.0 and r[2] > 0.0 and r[4]

    def take_statistics(self, ratio, growth, ratio2, growth2) -> None:
        """The factor statistics of a compiled step, as the Python-driven step reports them."""
        k = self.kkt
        k.lu.ratio, k.lu.growth = ratio, growth
        k.ratio = self.ratio = ratio
        if self.pkkt is not None:
            self.pkkt.lu.ratio, self.pkkt.lu.growth = ratio2, growth2

    def _counts_per_step(self) -> tuple[int, int, int]:
        """(evaluations, factorisations, solves) of one step (module docstring)."""
        k = self.newton_iterations
        if self.stabilize == "velocity":
            return k + 1, 1, k + VELOCITY_PASSES
        if self.stabilize == "projection":
            return k + 1, 2, k + 2
        return k, 1, k

    def count_steps(self, k: int) -> None:
        """Count ``k`` compiled steps (one step, or a rollout's)."""
        ne, nf, ns = self._per_step
        self.nstep += k
        self.neval += k * ne
        self.nfactor += k * nf
        self.nsolve += k * ns

    @property
    def rollout_runner(self):
        """The compiled rollout (:func:`rtmbs.solvers.compiled_alpha.run`) on the compiled step;
        None otherwise (``rtmbs.solvers.rollout`` then loops over :meth:`step` in Python)."""
        return run_rollout if self.fused else None
