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
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import SolverError
from ..protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State,
)
from .base import Solver, register_solver
from .factorisation import f_kkt_factor, f_solve, kkt_correction, make_kkt
from .products import entries, sub_mtv, sub_mv
from .sparse import choose_linear_solver
from .stabilization import check_choice, evaluate, pop_options


#: Solves of the velocity correction with the step's factors (``stabilize="velocity"``): each
#: pass shrinks Φq q̇ + Φt by about 1e-3 on the spatial chain's whip (their Φq is the predictor's).
VELOCITY_PASSES = 2


def coefficients(rho_inf: float):
    """(α_m, α_f, γ, β) of Chung & Hulbert for the spectral radius ρ∞ at h → ∞."""
    r = float(rho_inf)
    am = (2.0 * r - 1.0) / (r + 1.0)
    af = r / (r + 1.0)
    g = 0.5 + af - am
    b = 0.25 * (g + 0.5) ** 2
    return am, af, g, b


# -- kernels ------------------------------------------------------------------------------------
@njit(cache=True)
def _predict(q, qd, a, qdd, am, af, g, b, h, q1, v1, qdd1, a1):
    """Predictor q̈₁ = q̈: a₁, q̇₁, q₁ from the generalized-α relations."""
    h2 = h * h
    for i in range(q.shape[0]):
        qdd1[i] = qdd[i]
        a1[i] = (qdd[i] - am * a[i]) / (1.0 - am)
        v1[i] = qd[i] + h * ((1.0 - g) * a[i] + g * a1[i])
        q1[i] = q[i] + h * qd[i] + h2 * ((0.5 - b) * a[i] + b * a1[i])


@njit(cache=True)
def _correct(rhs, s, gp, bp, q1, v1, qdd1, lam1):
    """q₁ += Δq, q̇₁ += γ'Δq, q̈₁ += β'Δq, λ₁ += (sΔλ)/s."""
    n = q1.shape[0]
    for i in range(n):
        d = rhs[i]
        q1[i] += d
        v1[i] += gp * d
        qdd1[i] += bp * d
    for i in range(lam1.shape[0]):
        lam1[i] += rhs[n + i] / s


#: Values below this are set to 0 when a step is committed: the α_m recursion makes round-off
#: in motion that is exactly zero (out-of-plane components of a planar motion) decay towards
#: subnormal numbers, whose arithmetic is ~100× slower (a step went from 29 to 110 µs after
#: 5000 steps of the double pendulum). Products of three such values stay normal.
FLUSH = 1e-80


@njit(cache=True, inline="always")
def _flushed(x):
    return 0.0 if abs(x) < FLUSH else x


@njit(cache=True)
def _finish(q, qd, a, qdd, lam, q1, v1, qdd1, lam1, am, af):
    """a ← ((1 − α_f) q̈₁ + α_f q̈ − α_m a)/(1 − α_m), then commit q, q̇, q̈, λ (tiny values flushed
    to zero, ``FLUSH``)."""
    for i in range(q.shape[0]):
        a[i] = _flushed(((1.0 - af) * qdd1[i] + af * qdd[i] - am * a[i]) / (1.0 - am))
        q[i] = _flushed(q1[i])
        qd[i] = _flushed(v1[i])
        qdd[i] = _flushed(qdd1[i])
    for i in range(lam.shape[0]):
        lam[i] = _flushed(lam1[i])


# -- kernels: products with M and Φq over their entries (``products``: dense loops, or the fixed
# patterns ``em``, ``ez``), solves with the factors (fa, fb) of ``factorisation`` (dense or sparse)
@njit(cache=True)
def _newton(fa, fb, em, ez, M, Q, phiq, phi, s, gp, bp, q1, v1, qdd1, lam1, rhs):
    """rhs = −[s(M q̈₁ − Q + Φqᵀλ₁); Φ], solved with the iteration matrix; then the correction."""
    n = M.shape[0]
    m = phi.shape[0]
    for i in range(n):
        rhs[i] = Q[i]
    sub_mv(em, M, qdd1, rhs)
    sub_mtv(ez, phiq, lam1, rhs)
    for i in range(n):
        rhs[i] *= s
    for i in range(m):
        rhs[n + i] = -phi[i]
    f_solve(fa, fb, rhs)
    _correct(rhs, s, gp, bp, q1, v1, qdd1, lam1)


@njit(cache=True)
def _velocity(fa, fb, ez, phiq, phit, v1, rhs):
    """q̇₁ += the velocity part of K⁻¹[0; −(Φq q̇₁ + Φt)] with the factors (fa, fb) of K."""
    n = v1.shape[0]
    m = phit.shape[0]
    for i in range(n):
        rhs[i] = 0.0
    for i in range(m):
        rhs[n + i] = -phit[i]
    sub_mv(ez, phiq, v1, rhs[n:])
    f_solve(fa, fb, rhs)
    for i in range(n):
        v1[i] += rhs[i]


@njit(cache=True)
def _project(fa, fb, idx, ez, M, phiq, phit, phi, rhs, q1, v1):
    """Factor P = [M Φqᵀ; Φq 0] at q₁; q₁ += the correction of [0; −Φ], then q̇₁ += that of
    [0; −(Φq q̇₁ + Φt)] (seed 000 eq. 30, velocities alike). Returns (pivot ratio, growth)."""
    ratio, growth = f_kkt_factor(fa, fb, idx, M, M, M, 0.0, 0.0, phiq, 1.0, phiq)
    kkt_correction(fa, fb, phi, rhs, q1)
    _velocity(fa, fb, ez, phiq, phit, v1, rhs)
    return ratio, growth


@njit(cache=True)
def _finite(x):
    for i in range(x.shape[0]):
        if not np.isfinite(x[i]):
            return False
    return True


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
        self.sparse = choose_linear_solver(self.name, system, o["linear_solver"])
        self.rho_inf = float(r)
        self.alpha_m, self.alpha_f, self.gamma, self.beta = coefficients(self.rho_inf)
        self.newton_iterations = int(k)
        self.jac_all = o["jacobian"] == "all"
        self.jac_flag = EVAL_JAC if self.jac_all else EVAL_JAC_STIFF
        self.stabilize = o["stabilize"] if system.m > 0 else "none"

    # -- set-up ----------------------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        sysm, n, m = self.system, self.system.n, self.system.m
        self.q1, self.v1, self.qdd1, self.a1 = (np.zeros(n) for _ in range(4))
        self.lam1 = np.zeros(m)
        self.rhs = np.zeros(n + m)
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
        self.qdd = x[:n].copy()
        self.a = x[:n].copy()
        self.lam = x[n:].copy()
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
        if self.sparse:
            sysm.evaluate(state.t, state.q, state.qd, ws, self.what | self.jac_flag)
            c, cd, _, _, _ = self._scales(1e-3)
            self.kkt.factor(ws.M, ws.Jq, ws.Jqd, c, cd, ws.phiq, 1.0, ws.phiq)
            if self.pkkt is not None:
                self.pkkt.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
        self._nan0 = self._nanalyse_total()

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
        return bool(ok and _finite(state.q) and _finite(state.qd))
