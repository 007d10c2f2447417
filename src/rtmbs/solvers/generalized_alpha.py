"""``generalized-alpha``: second-order, fixed-cost integrator for stiff constrained systems.

The generalized-α method of Chung & Hulbert (1993) for the index-3 equations of motion
(Carpinelli 2016 eq. 1) in the form of Arnold & Brüls (2007, "Convergence of the generalized-α scheme
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
  [0; −Φ(q₁)] (Carpinelli 2016 eq. 30) then velocity correction with [0; −(Φq q̇₁ + Φt)];
* "none": the plain index-3 scheme (Φq q̇ + Φt stays at the size of the velocity error).

Cost per step: evaluations k (+1 "velocity": Φq only; +1 "projection"), factorisations 1
(+1 "projection"), solves k (+2 with either stabilisation).

On the sparse path of a compiled Cartesian model every option set runs the whole step as one
call of the C engine (bound at ``reset``: ``solver.bound``, src/rtmbs/engine/generalized_alpha.c:
evaluations, factorisations, solves, stabilisation, commit and the extra states, over packed
workspaces; ``step_outputs`` adds the named outputs in the same call and ``rollout``/``simulate``
run many steps in one call, :func:`run_rollout`); ``instrument`` times it whole (phase "other").
So does the reduced system of such a model with redundant joints (``rtmbs.solvers.redundancy``):
the engine is given its row map (the kept rows it solves with, the left-out rows it checks after
each evaluation). A hand-written model with a compiled evaluation (``compiled_provider()``: the
planar trucks) runs the dense step, every option set, as one call of the C engine too
(src/rtmbs/engine/alpha_dense.c: the dense matrices and the engine's dense LU, the arithmetic of
the numpy path below with its matrix-vector products as loops), and its rollout there
(:func:`run_dense_rollout`). Any other system, or ``linear_solver="dense"``, steps from Python
with numpy and the engine's dense LU (``rtmbs.solvers.dense``); ``dense_in_engine = False`` set
before ``reset`` keeps a provider on that path (to compare the two). a, q̈ and λ live in the
step's buffer ``vec``.
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..errors import SolverError
from ..protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State,
)
from .base import Solver, register_solver, time_after
from .dense import kkt_correction, kkt_factor, lu_solve
from .factorisation import make_kkt
from .li_euler import compiled_provider, reduced_compiled, sparse_in_engine
from .rollout import run_rollout_kernel
from .sparse import PackedKKTMap
from .storage import entry_index
from .stabilization import check_choice, evaluate, pop_options

#: Solves of the velocity correction with the step's factors (``stabilize="velocity"``): each
#: pass shrinks Φq q̇ + Φt by about 1e-3 on the spatial chain's whip (their Φq is the predictor's).
VELOCITY_PASSES = 2

#: ``stab`` of the engine's step (src/rtmbs/engine/generalized_alpha.h)
STAB_NONE, STAB_VELOCITY, STAB_PROJECTION = 0, 1, 2

#: Values below this are set to 0 when a step is committed: the α_m recursion makes round-off
#: in motion that is exactly zero (out-of-plane components of a planar motion) decay towards
#: subnormal numbers, whose arithmetic is ~100× slower (a step went from 29 to 110 µs after
#: 5000 steps of the double pendulum). Products of three such values stay normal.
FLUSH = 1e-80


def vector_size(n: int, m: int, m_model: int | None = None) -> int:
    """Length of the step's ``vec``: q₁ (n) | q̇₁ (n) | q̈₁ (n) | a₁ (n) | a (n) | q̈ (n) |
    rhs (n + m) | λ₁ (m) | λ (m) (the engine's layout: its rollout continues a loop of steps);
    with ``m_model`` (a row map: m of the model's m_model rows) the kept rows' Φ and Φt and λ
    over the model's rows follow (``RTMBS_ALPHA_VEC_ROWS``)."""
    size = 7 * n + 3 * m
    return size if m_model is None else size + 2 * m + m_model


def vector_views(vec, n: int, m: int) -> tuple:
    """(q₁, q̇₁, q̈₁, a₁, a, q̈, rhs, λ₁, λ): views of ``vec``."""
    N = n + m
    cuts = np.cumsum([0, n, n, n, n, n, n, N, m, m])
    return tuple(vec[cuts[i]:cuts[i + 1]] for i in range(9))


def finite(x) -> bool:
    return bool(np.isfinite(x).all())


def run_rollout(solver, state, t_origin, i0, h, n_steps, every, chan, inputs, oidx, res):
    """The engine's rollout (``generalized_alpha_rollout``, src/rtmbs/engine/generalized_alpha.c)
    for a ``generalized-alpha`` solver with its step in the engine (``fused``;
    ``rtmbs.solvers.rollout._runner`` describes the arguments): the extra states in and out, the
    counters and factor statistics. Returns the number of good steps."""
    system = solver.system
    n, nx = system.n, system.nx
    if nx:
        system.extra_state[:] = state.x
    diag = solver.diag  # (the factor statistics of the last step: the bound step's)
    # (the engine's model has every row of the given system; a row map says which it solves with)
    done = _engine.generalized_alpha_rollout(
        *solver.kernel_args, state.q, state.qd, solver.full_system.m, t_origin, i0, h,
        *solver.options_args, n_steps, every, chan, inputs, oidx, *res, np.empty(n), np.empty(n),
        np.empty(nx), diag, *solver.rows_args)
    if nx:
        state.x[:] = system.extra_state
    solver.count_steps(done + (done < n_steps))
    return done


def run_dense_rollout(solver, state, *args):
    """The C engine's rollout of the dense step (``truck_generalized_alpha_rollout``,
    src/rtmbs/engine/dense_rollout.c) for a ``generalized-alpha`` solver on a compiled provider."""
    return run_rollout_kernel(_engine.truck_generalized_alpha_rollout, solver.options_args,
                              solver, state, *args)


def coefficients(rho_inf: float):
    """(α_m, α_f, γ, β) of Chung & Hulbert for the spectral radius ρ∞ at h → ∞."""
    r = float(rho_inf)
    am = (2.0 * r - 1.0) / (r + 1.0)
    af = r / (r + 1.0)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    return am, af, g, b


# -- the dense step driven from Python (numpy, the engine's dense LU) ---------------------------
def _predict(q, qd, a, qdd, am, g, b, h, q1, v1, qdd1, a1) -> None:
    """Predictor q̈₁ = q̈: a₁, q̇₁, q₁ from the generalized-α relations (Arnold & Brüls 2007,
    eqs. 9-10)."""
    qdd1[:] = qdd
    a1[:] = (qdd - am * a) / (1.0 - am)
    v1[:] = qd + h * ((1.0 - g) * a + g * a1)
    q1[:] = q + h * qd + (h * h) * ((0.5 - b) * a + b * a1)


def _newton(K, piv, M, Q, phiq, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs) -> None:
    """rhs = [s(Q − M q̈₁ − Φqᵀλ₁); −Φ], solved with the iteration matrix's factors; then
    q₁ += Δq, q̇₁ += γ'Δq, q̈₁ += β'Δq, λ₁ += (sΔλ)/s."""
    n = q1.shape[0]
    rhs[:n] = s * (Q - M @ qdd1 - phiq.T @ lam1)
    np.negative(phi, out=rhs[n:])
    lu_solve(K, piv, rhs)
    d = rhs[:n]
    q1 += d
    v1 += gp * d
    qdd1 += bp * d
    lam1 += rhs[n:] / s


def _velocity(K, piv, phiq, phit, v1, rhs) -> None:
    """q̇₁ += the velocity part of K⁻¹[0; −(Φq q̇₁ + Φt)] with the factors (K, piv)."""
    n = v1.shape[0]
    rhs[:n] = 0.0
    rhs[n:] = -phit - phiq @ v1
    lu_solve(K, piv, rhs)
    v1 += rhs[:n]


def _flushed(x):
    return np.where(np.abs(x) < FLUSH, 0.0, x)


def _finish(q, qd, a, qdd, lam, q1, v1, qdd1, lam1, am, af) -> None:
    """a ← ((1 − α_f) q̈₁ + α_f q̈ − α_m a)/(1 − α_m), then commit q, q̇, q̈, λ (tiny values flushed
    to zero, ``FLUSH``)."""
    a[:] = _flushed(((1.0 - af) * qdd1 + af * qdd - am * a) / (1.0 - am))
    q[:] = _flushed(q1)
    qd[:] = _flushed(v1)
    qdd[:] = _flushed(qdd1)
    lam[:] = _flushed(lam1)


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
        self.sparse = sparse_in_engine(self.name, self.system, o["linear_solver"], row_map=True)
        self.rho_inf = float(r)
        self.alpha_m, self.alpha_f, self.gamma, self.beta = coefficients(self.rho_inf)
        self.newton_iterations = int(k)
        self.jac_all = o["jacobian"] == "all"
        self.jac_flag = EVAL_JAC if self.jac_all else EVAL_JAC_STIFF
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        # the whole step in one call of the engine (generalized_alpha.c) on the sparse path of a
        # compiled Cartesian model (``instrument`` times it whole, phase "other")
        self.fused = self.sparse
        self.extra_in_step = self.fused  # (the compiled step advances the transient tyres)
        # the dense step in one call of the C engine (alpha_dense.c) on a compiled provider
        # (False before ``reset``: the numpy path, to compare the two)
        self.dense_in_engine = not self.sparse and compiled_provider(self.system) is not None
        self.dense_c = False  # (set by reset)

    # -- set-up ----------------------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        sysm, n, m = self.system, self.system.n, self.system.m
        if self.ws is None:  # (dropped after a compiled step's reset)
            self.ws = sysm.workspace()
        # the step's vectors and the solver's state (a, q̈, λ) in one buffer (the engine's layout)
        # (a reduced system in the engine: the kept rows' Φ, Φt and λ over the model's rows follow)
        reduced = self.fused and reduced_compiled(sysm)
        self.vec = np.zeros(vector_size(n, m, self.full_system.m if reduced else None))
        (self.q1, self.v1, self.qdd1, self.a1, self.a, self.qdd, self.rhs, self.lam1,
         self.lam) = vector_views(self.vec, n, m)
        self.what = EVAL_M | EVAL_Q | EVAL_PHI | (EVAL_PHIQ if m else 0)
        self.ratio = 1.0
        # consistent start: q̈₀, λ₀ of the index-1 equations (Carpinelli 2016 eq. 12); a₀ = q̈₀
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
        if self.fused:
            mp = np.asarray(sysm.mass_pattern, bool)
            ap = mp | np.asarray(sysm.jacobian_pattern(not self.jac_all), bool)
            self.kkt = make_kkt(sysm, True, ap)
            self.pkkt = make_kkt(sysm, True) if self.stabilize == "projection" else None
            self._fused_reset(state, mp)
        else:  # the dense iteration and projection matrices, their pivots
            self.K, self.piv = np.zeros((n + m, n + m)), np.zeros(n + m, np.int64)
            self.P, self.ppiv = np.zeros((n + m, n + m)), np.zeros(n + m, np.int64)
            self.bound = None
            self.dense_c = self.dense_in_engine
            if self.dense_c:
                self._dense_reset()
        self._nan0 = self._nanalyse_total()

    def _dense_reset(self) -> None:
        """The compiled dense step's arguments (src/rtmbs/engine/alpha_dense.c): the provider
        (kind, parameters), the dense workspace (every evaluation; passed twice, the second not
        used), the iteration and projection matrices and their pivots, ``vec``, the step's
        counters and warnings (``system.data``); bound once (:meth:`Solver.bind_step`, kind
        "truck-generalized-alpha")."""
        sysm, n, m = self.system, self.system.n, self.system.m
        kind, par = compiled_provider(sysm)
        self.kernel_args = (kind, par, self.ws.buf, self.ws.buf, self.K, self.P, self.piv,
                            self.ppiv, self.vec, sysm.data.counter, sysm.data.warning)
        self.options_args = self._options()
        self._per_step = self._counts_per_step()
        self.bind_step("truck-generalized-alpha", self.kernel_args + (
            np.zeros(n), np.zeros(n), m, 0.0, 1e-3) + self.options_args, self._per_step)

    def _options(self) -> tuple:
        """(α_m, α_f, γ, β, Jacobian flag, k, stab) of the engine's steps
        (``rtmbs_alpha_options``, src/rtmbs/engine/generalized_alpha.h)."""
        stab = {"none": STAB_NONE, "velocity": STAB_VELOCITY,
                "projection": STAB_PROJECTION}[self.stabilize]
        return (self.alpha_m, self.alpha_f, self.gamma, self.beta, self.jac_flag,
                self.newton_iterations, stab)

    def _fused_reset(self, state: State, mass_pattern) -> None:
        """The engine step's buffers (generalized_alpha.c): two packed workspaces, the
        maps of the iteration and projection matrices onto them and of M's and Φq's entries for
        the products; the factors analysed at q0 from the packed values (the same values as the
        dense ones the Python-driven path analyses), as that path does."""
        sysm, m = self.system, self.system.m
        lay = sysm.packed_layout
        self.pw0, self.pw1 = np.zeros(lay.size), np.zeros(lay.size)
        # a reduced system passes the engine its row map: the maps read the kept rows of Φq
        reduced = reduced_compiled(sysm)
        self._kept = sysm.kept if reduced else None
        self.rows_args = (sysm.row_map if reduced else None,)
        sysm.evaluate_packed(state.t, state.q, state.qd, self.pw0, self.what | self.jac_flag)
        c, cd, _, _, _ = self._scales(1e-3)
        kidx = self._analyse_packed(self.kkt, c, cd)
        kk = self.kkt.lu
        pk = self.pkkt.lu if self.pkkt is not None else kk
        pidx = self._analyse_packed(self.pkkt, 0.0, 0.0) if self.pkkt is not None else kidx
        pp = np.asarray(sysm.phiq_pattern, bool) if m else np.zeros((0, sysm.n), bool)
        midx = entry_index(mass_pattern, pp, lay, self._kept)
        self.kernel_args = sysm.kernel_buffers() + (self.pw0, self.pw1, kk.ib, kk.fb, kidx, pk.ib,
                                                    pk.fb, pidx, midx, self.vec)
        self.options_args = self._options()
        self._per_step = self._counts_per_step()
        # the step in the C engine (src/rtmbs/engine/generalized_alpha.c), every option set,
        # bound to its arrays
        self.bind_step("generalized-alpha", self.kernel_args + (
            np.zeros(sysm.n), np.zeros(sysm.n), self.full_system.m, 0.0, 1e-3) + self.options_args
                       + self.rows_args, self._per_step)
        self.ws = None  # (the dense workspace served the start's index-1 solve only)

    def _analyse_packed(self, k, c: float, cd: float):
        """Map the KKT factorisation ``k`` onto the packed workspace and analyse and factor it
        from ``pw0`` (as its first ``factor`` does from a dense workspace). Returns the map."""
        pidx = PackedKKTMap(k.kkt.map, self.system.packed_layout, self._kept).idx
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
        if self.fused or self.dense_c:  # (instrumented: Solver.step's path to the engine's step)
            self._tic()
            ok = self.bound.step(state.q, state.qd, state.x, state.t, h)
            self._toc("other")
            self.nstep -= 1  # (Solver.step counts it)
            return ok
        ws = self.ws
        q1, v1, qdd1, lam1, rhs = self.q1, self.v1, self.qdd1, self.lam1, self.rhs
        am, af = self.alpha_m, self.alpha_f
        c, cd, s, gp, bp = self._scales(h)
        t1 = state.t + h
        self._tic()
        _predict(state.q, state.qd, self.a, self.qdd, am, self.gamma, self.beta, h,
                 q1, v1, qdd1, self.a1)
        lam1[:] = self.lam
        ratio = 1.0
        for k in range(self.newton_iterations):
            if k == 0:
                evaluate(self, ws, t1, q1, v1, self.what | self.jac_flag)
                self._toc("evaluation")
                ratio = kkt_factor(self.K, self.piv, ws.M, ws.Jq, ws.Jqd, c, cd, ws.phiq, 1.0,
                                   ws.phiq)
                fa, fb = self.K, self.piv
                self.nfactor += 1
                self._toc("factorisation")
            else:
                evaluate(self, ws, t1, q1, v1, self.what)
                self._toc("evaluation")
            _newton(fa, fb, ws.M, ws.Q, ws.phiq, ws.phi, s, gp, bp, q1, v1, qdd1, lam1, rhs)
            self.nsolve += 1
            self._toc("solve")
        ok = ratio > 0.0
        if self.stabilize == "velocity":
            # Φq, Φt at q₁; the step's factors (Φq at the predictor, metric of the iteration matrix)
            evaluate(self, ws, t1, q1, v1, EVAL_PHIQ)
            for _ in range(VELOCITY_PASSES):
                _velocity(fa, fb, ws.phiq, ws.phit, v1, rhs)
            self.nsolve += VELOCITY_PASSES
            self._toc("projection")
        elif self.stabilize == "projection":
            evaluate(self, ws, t1, q1, v1, EVAL_M | EVAL_PHI | EVAL_PHIQ)
            # P = [M Φqᵀ; Φq 0] at q₁; q₁ += the correction of [0; −Φ], then q̇₁ += that of
            # [0; −(Φq q̇₁ + Φt)] (Carpinelli 2016 eq. 30, velocities alike)
            pr = kkt_factor(self.P, self.ppiv, ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
            kkt_correction(self.P, self.ppiv, ws.phi, rhs, q1)
            _velocity(self.P, self.ppiv, ws.phiq, ws.phit, v1, rhs)
            self.nfactor += 1
            self.nsolve += 2
            ok &= pr > 0.0
            self._toc("projection")
        _finish(state.q, state.qd, self.a, self.qdd, self.lam, q1, v1, qdd1, lam1, am, af)
        self.ratio = ratio
        self._toc("other")
        return bool(ok and finite(state.q) and finite(state.qd))

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
        self.add_step_counts(k, self._per_step)

    @property
    def rollout_runner(self):
        """The engine's rollout on the compiled step (:func:`run_rollout`) or on the compiled
        dense step of a provider (:func:`run_dense_rollout`); None otherwise
        (``rtmbs.solvers.rollout`` then loops over :meth:`step` in Python)."""
        return run_rollout if self.fused else run_dense_rollout if self.dense_c else None
