"""Index-3 augmented Lagrangian with mass-orthogonal projections (``reference`` solver,
``formulation="augmented-lagrangian"``; offline, through singular positions).

Bayo & García de Jalón, *Kinematic and Dynamic Simulation of Multibody Systems* (1994), ch. 5,
in the ALI3-P form (Bayo & Ledesma 1996; Cuadrado et al. 1997), on the generalized-α integrator
(Chung & Hulbert 1993; Arnold & Brüls 2007 for the index-3 form, Carpinelli 2016 eq. 1 at tₙ₊₁):

    qₙ₊₁ = qₙ + h q̇ₙ + h²(½ − β) aₙ + h²β aₙ₊₁,   q̇ₙ₊₁ = q̇ₙ + h(1 − γ) aₙ + hγ aₙ₊₁,
    (1 − αm) aₙ₊₁ + αm aₙ = (1 − αf) q̈ₙ₊₁ + αf q̈ₙ,

so q̇ₙ₊₁ = c₁ qₙ₊₁ + …, q̈ₙ₊₁ = c₂ qₙ₊₁ + … (ρ∞ = 1 is the trapezoidal rule, c₁ = 2/h,
c₂ = 4/h²). The index-3 augmented-Lagrangian equations M q̈ + Φqᵀ(λ* + αΦ) = Q, scaled by
b = 1/c₂, are solved for qₙ₊₁ by Newton with the tangent

    T = M + (c₁/c₂) C + b (K + α Φqᵀ Φq),    C = −∂Q/∂q̇, K = −∂Q/∂q   (Φqq terms left out)

(factorised once per step, at the predictor) and the multipliers iterated as
λ*ᵢ₊₁ = λ*ᵢ + α Φ(qᵢ₊₁), until the correction and Φ are below ``newton_tol``·max(1, ‖q‖∞).
Then q̇ is projected onto Φq q̇ + Φt = 0 with the minimal change in the metric W = T − bαΦqᵀΦq
(= M + O(h)), by the same factors (σ: the projection's multipliers, g = −Φt):

    (W + b α ΦqᵀΦq) v = W v* + b Φqᵀ(α g − σ),   bαΦq T⁻¹Φqᵀ σ = α (Φq v(0) − g),

by default (``velocity_projection="multipliers"``) iterated as σ += α(Φq v − g), the method of
multipliers, which leaves the directions where Φq has nearly lost rank unprojected (it stalls
there); with ``velocity_projection="exact"`` solved to ``newton_tol`` by GMRES (Saad & Schultz 1986) with
T refactored at qₙ₊₁ (:func:`_project`). Next to a singular position a residual tolerance costs
accuracy divided by Φq's smallest singular value; with ``"exact"`` a Newton iteration whose
corrections stop contracting below 100× the tolerance, ‖Φ‖ converged, is taken as converged (the
round-off floor), so ``newton_tol=1e-12`` can be used.

q̈ is projected the same way onto Φq q̈ = γ for the outputs only (fed back into the recursion it
cost accuracy). Nothing inverts Φq or M alone: T is regular as long as M is positive definite on
null(Φq), so the method passes positions where Φq loses rank (a parallelogram going flat) and
redundant constraints; the Euler-parameter rows of Φ make T regular although M is singular in p.
The trapezoidal rule (ρ∞ = 1) keeps the spurious oscillation the singular passes excite and lost
energy on the 20-loop chain; ρ∞ = 0.9 (default) damps it (docs/solvers.md).

Order 2; accuracy by Richardson: runs with h, 2h (and 4h) on the same outputs give the error
estimate (y_h − y_2h)/3 and, by default, the extrapolated outputs y_h + (y_h − y_2h)/3 (their
error estimated as |E_h − E_2h|/3 from the extrapolations of (h, 2h) and (2h, 4h)) moved back
onto Φ = 0, Φq q̇ + Φt = 0, Φq q̈ = γ (``meta["error_estimate"]``). Dense LU for small models, a
sparse LU (SuperLU) of T formed from the fixed patterns of M, Jq, Jq̇ and Φq for large ones.
"""
from __future__ import annotations

import math
import time

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from ..errors import SolverError
from ..protocol import (EVAL_GAMMA, EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q,
                        MechanicalSystem, State)
from ..result import Result
from .base import RunFailure as _Failure, output_steps

#: The formulation's own options (``reference`` solver) and their defaults.
AL_DEFAULTS = dict(step=1e-3, rho_inf=0.9, penalty=1e4, newton_tol=1e-10, max_iter=100,
                   richardson="extrapolate", linear_solver="auto", velocity_projection="multipliers")
#: ``linear_solver="auto"`` takes the sparse LU from this many coordinates on.
SPARSE_FROM_N = 60
#: A state component beyond this is taken as diverged (as the other offline solvers).
DIVERGENCE_LIMIT = 1e8
#: A residual below this many times newton_tol counts as converged where an iteration stagnates
#: (the round-off floor next to a singular position).
FLOOR_FACTOR = 100
#: GMRES iterations of a projection between restarts (about one per singular value of Φq that
#: nearly vanishes: 40 on the 40-loop chain at a flat position).
GMRES_RESTART = 100
#: A Newton correction below this × max(1, ‖q‖∞) is at the round-off floor (converged).
ROUNDOFF = 1e3 * np.finfo(float).eps
#: Contraction assumed before two corrections of the first step are known.
THETA_START = 0.1
#: Refactorisations of T at the iterate (corrections growing, or penalty raised) per step.
MAX_REFACTORS = 8
#: ‖Φ‖ falling by less than PHI_CONTRACTION per iteration, or corrections by less than THETA_SLOW,
#: raise the penalty PENALTY_RAISE×, at most MAX_PENALTY_RAISE× the ``penalty`` option
#: (Bertsekas 1982 §2.2: factors 0.25 and 4-10).
PHI_CONTRACTION = 0.25
THETA_SLOW = 0.25
PENALTY_RAISE = 10.0
MAX_PENALTY_RAISE = 1e4
_WHERE = "solver 'reference' (formulation 'augmented-lagrangian')"


def check_options(opts: dict) -> dict:
    """Validate the formulation's options (``SolverError`` naming the option); completed."""
    out = {**AL_DEFAULTS, **opts}
    for key in ("step", "penalty", "newton_tol"):
        try:
            ok = float(out[key]) > 0 and math.isfinite(float(out[key]))
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise SolverError(f"{_WHERE}: option '{key}' must be a finite number > 0, "
                              f"got {out[key]!r}")
    try:
        ok = 0.0 <= float(out["rho_inf"]) <= 1.0
    except (TypeError, ValueError):
        ok = False
    if not ok:
        raise SolverError(f"{_WHERE}: option 'rho_inf' must be in [0, 1], got {out['rho_inf']!r}")
    if isinstance(out["max_iter"], bool) or not (isinstance(out["max_iter"], int)
                                                 and out["max_iter"] >= 1):
        raise SolverError(f"{_WHERE}: option 'max_iter' must be an integer >= 1, "
                          f"got {out['max_iter']!r}")
    if out["linear_solver"] not in ("auto", "dense", "sparse"):
        raise SolverError(f"{_WHERE}: option 'linear_solver' must be 'auto', 'dense' or "
                          f"'sparse', got {out['linear_solver']!r}")
    if out["velocity_projection"] not in ("multipliers", "exact"):
        raise SolverError(f"{_WHERE}: option 'velocity_projection' must be 'multipliers' or 'exact', got "
                          f"{out['velocity_projection']!r}")
    if out["richardson"] not in ("extrapolate", "estimate", "none"):
        raise SolverError(f"{_WHERE}: option 'richardson' must be 'extrapolate', 'estimate' or "
                          f"'none', got {out['richardson']!r}")
    return out


class _Tangent:
    """T = W + b α ΦqᵀΦq with W = M − hh·Jq̇ − b·Jq (b = h²/4, hh = h/2): LU and W v.

    Sparse: W and Φq are gathered on the model's fixed patterns (CSR, built once) and
    T = W + bα ΦqᵀΦq is formed by sparse products and factored by SuperLU."""

    def __init__(self, system: MechanicalSystem, sparse: bool):
        self.sparse = sparse
        if sparse:
            wpat = (np.asarray(system.mass_pattern, bool)
                    | np.asarray(system.jacobian_pattern(False), bool))
            self.w_csr = _csr_structure(wpat)
            self.p_csr = _csr_structure(np.asarray(system.phiq_pattern, bool))

    def factor(self, M, Jq, Jqd, phiq, hh: float, b: float, alpha: float) -> None:
        self.hh, self.b = hh, b
        if self.sparse:
            lin, idx, ptr, shape = self.w_csr
            w = M.ravel()[lin]
            if hh:
                w = w - hh * Jqd.ravel()[lin] - b * Jq.ravel()[lin]
            self.Wm = sp.csr_matrix((w, idx, ptr), shape=shape)
            lin, idx, ptr, shape = self.p_csr
            P = sp.csr_matrix((phiq.ravel()[lin], idx, ptr), shape=shape)
            T = (self.Wm + (b * alpha) * (P.T @ P)).tocsc()
            self.lu = spl.splu(T)
        else:
            self.Wm = M - hh * Jqd - b * Jq
            self.lu = sla.lu_factor(self.Wm + (b * alpha) * (phiq.T @ phiq), check_finite=False)

    def solve(self, r: np.ndarray) -> np.ndarray:
        if self.sparse:
            return self.lu.solve(r)
        return sla.lu_solve(self.lu, r, check_finite=False)

    def W(self, v: np.ndarray) -> np.ndarray:
        """W v = (M − (h/2) Jq̇ − (h²/4) Jq) v: the metric of the projections."""
        return self.Wm @ v


def _csr_structure(pat: np.ndarray):
    """(flat indices of the entries, column indices, row pointers, shape) of a CSR matrix with
    the fixed pattern ``pat``: its data is ``A.ravel()[flat]`` for a dense A."""
    lin = np.flatnonzero(pat.ravel())
    ptr = np.concatenate(([0], np.cumsum(pat.sum(axis=1)))).astype(np.int32)
    return lin, (lin % pat.shape[1]).astype(np.int32), ptr, pat.shape


def _scale_alpha(M: np.ndarray, b: float, penalty: float) -> float:
    """α with b·α = penalty · max diag M (the penalty relative to the mass scale)."""
    mscale = float(np.abs(np.diag(M)).max()) if M.size else 1.0
    return penalty * (mscale if mscale > 0 else 1.0) / b


def _gmres(apply, r: np.ndarray, stop: float, kmax: int) -> tuple[np.ndarray, int]:
    """x with ‖r − A x‖₂ ≤ ``stop`` (or the best in kmax iterations) by GMRES from x = 0
    (Saad & Schultz 1986: Arnoldi with modified Gram-Schmidt, the least-squares problem kept
    triangular by Givens rotations); ``apply(v)`` = A v. Returns (x, iterations)."""
    beta = float(np.linalg.norm(r))
    if beta <= stop or kmax < 1:
        return np.zeros_like(r), 0
    V = np.empty((kmax + 1, r.size))
    H = np.zeros((kmax + 1, kmax))
    cs, sn, e = np.zeros(kmax), np.zeros(kmax), np.zeros(kmax + 1)
    V[0], e[0] = r / beta, beta
    k = kmax
    for j in range(kmax):
        w = apply(V[j])
        for i in range(j + 1):
            H[i, j] = w @ V[i]
            w -= H[i, j] * V[i]
        hn = float(np.linalg.norm(w))
        H[j + 1, j] = hn
        if hn > 0:
            V[j + 1] = w / hn
        for i in range(j):
            H[i, j], H[i + 1, j] = (cs[i] * H[i, j] + sn[i] * H[i + 1, j],
                                    -sn[i] * H[i, j] + cs[i] * H[i + 1, j])
        d = math.hypot(H[j, j], hn)
        cs[j], sn[j] = (H[j, j] / d, hn / d) if d > 0 else (1.0, 0.0)
        H[j, j], H[j + 1, j] = d, 0.0
        e[j + 1], e[j] = -sn[j] * e[j], cs[j] * e[j]
        if abs(e[j + 1]) <= stop or hn == 0:
            k = j + 1
            break
    y = np.linalg.lstsq(H[:k, :k], e[:k], rcond=None)[0]     # triangular; lstsq if singular
    return V[:k].T @ y, k


def _project(lin: _Tangent, phiq, Wv, g, alpha, b, tol, maxit, cnt):
    """(v, ‖Φq v − g‖∞, λ): v minimises ½(v − v*)ᵀW(v − v*) subject to Φq v = g (``Wv`` = W v*),
    λ its multipliers (W(v − v*) + Φqᵀλ = 0). The augmented-Lagrangian form needs no rank of Φq:
    v(σ) = T⁻¹(W v* + bΦqᵀ(αg − σ)) with T = W + bαΦqᵀΦq, and the multipliers σ solve
    bαΦqT⁻¹Φqᵀ σ = α(Φq v(0) − g). The method of multipliers, σ += α(Φq v − g), is Richardson's
    iteration on that system; its rate 1/(1 + bασ²/μ) in the direction of Φq's smallest singular
    value σ tends to 1 next to a singular position (on the 40-loop chain Φq has 40 singular values
    from sin θ/2 down to sin θ/50 there). GMRES on the same system (Saad & Schultz 1986), whose
    Krylov space holds the method of multipliers' iterates, converges in about one iteration per
    such singular value. Stops at ‖Φq v − g‖∞ ≤ tol·max(1, ‖v‖∞); a restart cycle of
    ``GMRES_RESTART`` iterations that does not halve the residual (g inconsistent next to a
    singular position: acceleration outputs) leaves v at the best residual, counted, not failed."""
    m = phiq.shape[0]
    if m == 0:
        return lin.solve(Wv), 0.0, np.zeros(0)
    v0 = lin.solve(Wv + (b * alpha) * (phiq.T @ g))
    sigma = np.zeros(m)
    v, res = v0, phiq @ v0 - g
    rn = float(np.abs(res).max())
    its = 0
    while True:
        stop = tol * max(1.0, float(np.abs(v).max()))
        if rn <= stop or its >= 10 * maxit:
            break
        ds, k = _gmres(lambda s: (b * alpha) * (phiq @ lin.solve(phiq.T @ s)), alpha * res,
                       alpha * stop, min(GMRES_RESTART, 10 * maxit - its, m))
        its += max(k, 1)
        v_new = v0 - lin.solve(b * (phiq.T @ (sigma + ds)))
        res_new = phiq @ v_new - g
        rn_new = float(np.abs(res_new).max())
        if rn_new < rn:
            sigma, v, res = sigma + ds, v_new, res_new
        if not rn_new <= 0.5 * rn:               # stagnates (inconsistent g, round-off floor)
            rn = min(rn, rn_new)
            break
        rn = rn_new
    cnt["proj"] += its
    cnt["proj_max"] = max(cnt["proj_max"], its)
    return v, rn, b * (sigma + alpha * res)


def _project_multipliers(lin: _Tangent, phiq, Wv, g, alpha, b, tol, maxit, cnt):
    """(v, ‖Φq v − g‖∞) of ``velocity_projection="multipliers"``: the projection of :func:`_project` by
    the method of multipliers, σ += α(Φq v − g), stopped at ‖Φq v − g‖∞ ≤ tol·max(1, ‖v‖∞) or
    when the residual no longer halves: it leaves the directions where Φq has nearly lost rank
    (bασ²/μ ≪ 1) unprojected, a regularised projection."""
    if phiq.shape[0] == 0:
        return lin.solve(Wv), 0.0
    sigma = np.zeros(phiq.shape[0])
    last = np.inf
    for it in range(1, 10 * maxit + 1):
        v = lin.solve(Wv + b * (phiq.T @ (alpha * g - sigma)))
        res = phiq @ v - g
        rn = float(np.abs(res).max())
        scale = max(1.0, float(np.abs(v).max()))
        if rn <= tol * scale:
            break
        if rn > 0.5 * last:        # slow: a direction where Φq is (nearly) rank deficient
            break
        sigma += alpha * res
        last = rn
    cnt["proj"] += it
    cnt["proj_max"] = max(cnt["proj_max"], it)
    return v, rn


def _initial_acceleration(lin: _Tangent, ws, alpha0, tol, maxit, t0):
    """q̈, λ of M q̈ + Φqᵀλ = Q, Φq q̈ = γ (``lin`` factored with W = M, b = 1): the projection of
    M⁻¹Q onto Φq q̈ = γ in the metric M, by :func:`_project`."""
    cnt = dict(proj=0, proj_max=0)
    qdd, rn, lam = _project(lin, ws.phiq, ws.Q, ws.gamma, alpha0, 1.0, tol, maxit, cnt)
    if not rn <= FLOOR_FACTOR * tol * max(1.0, float(np.abs(qdd).max())):
        raise _Failure("initial accelerations not converged (‖Φq q̈ − γ‖∞ = "
                       f"{rn:.3g}): Φq q̈ = γ is inconsistent at the initial state", t0)
    return qdd, lam


def _newton(system, ws, lin: _Tangent, cnt, t1, q1, lam1, coef, alpha, alpha_max, tol, maxit,
            theta0, floor=False):
    """Solve the step's AL equations for qₙ₊₁ (``q1``, ``lam1`` updated in place): modified Newton
    with the tangent factored at the predictor, λ* += αΦ after every correction (the method of
    multipliers merged into the Newton loop, Bayo & Ledesma 1996).

    Stop (Hairer & Wanner 1996, IV.8 eqs. 8.10-8.11): the corrections contract by
    θ = ‖Δqᵢ‖/‖Δqᵢ₋₁‖, so the error left is about ‖Δqᵢ‖ θ/(1 − θ); the step is converged when
    that and ‖Φ‖∞ are below ``newton_tol``·max(1, ‖q‖∞) (θ of the previous step before two
    corrections are known). Next to a singular position the multipliers contract only by
    1/(1 + b α σ²/μ) in the direction of Φq's smallest singular value σ (μ: the mass there), and
    q with them: when the corrections shrink by less than 4× per iteration (or ‖Φ‖ does) α is
    raised 10× and T refactored at the current iterate (penalty update of the method of
    multipliers, Bertsekas 1982 §2.2, up to ``alpha_max``); the solution does not depend on α.
    With ``floor`` (``velocity_projection="exact"``) corrections that stop contracting below 100×
    ``newton_tol`` with ‖Φ‖ converged are taken as the round-off floor (counted: ``floor_stops``).
    Returns (iterations, estimated error left, α used, last θ, q̇ₙ₊₁, q̈ₙ₊₁)."""
    c1, c2, hd, hdd, hh, b = coef
    dqn = dq_prev = phin_prev = math.inf
    theta, factored, refactors = theta0, False, 0
    for it in range(maxit + 1):
        qd1 = c1 * q1 + hd
        qdd1 = c2 * q1 + hdd
        what = EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ
        system.evaluate(t1, q1, qd1, ws, what | (EVAL_JAC if it == 0 else 0))
        cnt["evals"] += 1
        if it:
            lam1 += alpha * ws.phi                           # λ*ᵢ₊₁ = λ*ᵢ + α Φ(qᵢ₊₁)
        qscale = max(1.0, float(np.abs(q1).max()))
        tolq = tol * qscale
        phin = float(np.abs(ws.phi).max()) if ws.phi.size else 0.0
        if not (math.isfinite(phin) and np.isfinite(q1).all()):
            raise _Failure("non-finite state or constraints in the Newton iteration", t1)
        if math.isfinite(dq_prev):
            theta = dqn / dq_prev
        rem = dqn * theta / (1 - theta) if theta < 1 else math.inf
        if phin <= tolq and (math.isfinite(dq_prev) and rem <= tolq
                             or dqn <= ROUNDOFF * qscale):
            return it, min(rem, dqn), alpha, theta, qd1, qdd1
        if it == maxit:
            raise _Failure(_slow_message(maxit, theta, math.isfinite(dq_prev), dqn, phin, tolq,
                                         tol, alpha, alpha_max),
                           t1)
        measured = math.isfinite(dq_prev)
        diverging = measured and theta >= 1
        if floor and diverging and phin <= tolq and dqn <= FLOOR_FACTOR * tolq:
            # the round-off floor: next to a singular position q is fixed along Φq's nearly
            # lost directions only to about ε‖Φq‖/σ; the corrections there are noise
            cnt["floor_stops"] += 1
            return it, dqn, alpha, THETA_START, qd1, qdd1
        slow = measured and (theta > THETA_SLOW or (phin > PHI_CONTRACTION * phin_prev
                                                    and phin > tolq))
        if not factored or diverging or (slow and alpha < alpha_max):
            if factored:         # refactor at the iterate; the penalty raised when contracting
                refactors += 1
                if refactors > MAX_REFACTORS:
                    raise _Failure(
                        f"Newton iteration not converging (θ = {theta:.3g}, last correction "
                        f"{dqn:.3g}, ‖Φ‖∞ = {phin:.3g}) with the tangent refactored "
                        f"{MAX_REFACTORS} times at the iterate: the predictor is too far from "
                        "the solution; a smaller 'step' helps", t1)
                if not diverging and alpha < alpha_max:
                    alpha = min(alpha * PENALTY_RAISE, alpha_max)
                    cnt["penalty_raises"] += 1
                dq_prev = dqn = math.inf
                system.evaluate(t1, q1, qd1, ws, what | EVAL_JAC)
            lin.factor(ws.M, ws.Jq, ws.Jqd, ws.phiq, hh, b, alpha)
            cnt["factor"] += 1
            factored = True
        dq = lin.solve(b * (ws.M @ qdd1 + ws.phiq.T @ (lam1 + alpha * ws.phi) - ws.Q))
        q1 -= dq
        dq_prev, dqn, phin_prev = dqn, float(np.abs(dq).max()), phin
    raise AssertionError("unreachable")  # pragma: no cover


def _slow_message(maxit, theta, measured, dqn, phin, tolq, tol, alpha, alpha_max) -> str:
    """Why the Newton iteration stopped at ``max_iter``, and what helps: more iterations when it
    still contracts (how many it needs at the measured θ), a smaller step when it does not."""
    head = (f"Newton iteration not converged in max_iter = {maxit} iterations (last correction "
            f"{dqn:.3g}, ‖Φ‖∞ = {phin:.3g}, newton_tol = {tol:g}")
    if not measured:
        return f"{head}): raise 'max_iter' (two corrections are needed to measure convergence)"
    if theta < 1 and dqn > 0:
        more = max(1, math.ceil(math.log(tolq * (1 - theta) / dqn) / math.log(theta))
                   if 0 < theta and tolq * (1 - theta) < dqn else 1)
        return (f"{head}; contracting by θ = {theta:.3g} per iteration"
                + (", penalty at its cap" if alpha >= alpha_max else "")
                + f"): about {more} more iterations reach newton_tol; raise 'max_iter' to "
                f"{maxit + more + 1} or 'newton_tol'")
    return f"{head}; not contracting, θ = {theta:.3g}): a smaller 'step' helps"


def integrate(system: MechanicalSystem, state: State, nout: int, nsub: int, hstep: float,
              opts: dict, sparse: bool, record, bar=None) -> dict:
    """ALI3-P from ``state`` over ``nout`` outputs, ``nsub`` steps of ``hstep`` between two;
    ``record(k, t, q, qd, qdd, lam)`` at every output (k = 0 … nout − 1).
    Returns the counters; raises ``_Failure`` (reason, time) when a step does not converge."""
    n, m = system.n, system.m
    ws = system.workspace()
    lin = _Tangent(system, sparse)
    tol, maxit, penalty = float(opts["newton_tol"]), int(opts["max_iter"]), float(opts["penalty"])
    h = float(hstep)
    # generalized-α (Chung & Hulbert 1993; Arnold & Brüls 2007 for the index-3 form):
    # q̈ₙ₊₁ = c2·qₙ₊₁ + …, q̇ₙ₊₁ = c1·qₙ₊₁ + …; ρ∞ = 1 is the trapezoidal rule
    rho = float(opts["rho_inf"])
    am, af = (2 * rho - 1) / (rho + 1), rho / (rho + 1)
    gam, beta = 0.5 - am + af, 0.25 * (1 - am + af) ** 2
    c2 = (1 - am) / ((1 - af) * beta * h * h)
    c1 = gam / (beta * h)
    b, hh = 1 / c2, c1 / c2
    t0 = float(state.t)
    q, qd = np.array(state.q, float), np.array(state.qd, float)
    exact = opts["velocity_projection"] == "exact"
    project = _project if exact else _project_multipliers
    cnt = dict(steps=0, newton=0, newton_max=0, proj=0, proj_max=0, factor=0, evals=1,
               vel_residual_max=0.0, acc_residual_max=0.0, iteration_error=0.0,
               penalty_raises=0, penalty_max=float(penalty), floor_stops=0)

    # q̈, λ at the start: M q̈ + Φqᵀλ = Q, Φq q̈ = γ by the same iteration on M + α₀ΦqᵀΦq
    system.evaluate(t0, q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA)
    alpha0 = _scale_alpha(ws.M, 1.0, penalty)
    zero = np.zeros((n, n))
    lin.factor(ws.M, zero, zero, ws.phiq, 0.0, 1.0, alpha0)
    qdd, lam = _initial_acceleration(lin, ws, alpha0, tol, maxit, t0)
    alpha = _scale_alpha(ws.M, b, penalty)
    acc = qdd.copy()                                       # the auxiliary acceleration a₀
    record(0, t0, q, qd, qdd, lam)

    t1 = t0
    alpha_base, theta_prev = alpha, THETA_START
    for k in range(1, nout):
        for s in range(nsub):
            t1 = t0 + ((k - 1) * nsub + s + 1) * h
            # qₙ₊₁ = qₙ + h q̇ₙ + h²(½ − β) aₙ + h²β aₙ₊₁, q̇ₙ₊₁ = q̇ₙ + h(1 − γ) aₙ + hγ aₙ₊₁,
            # (1 − αm) aₙ₊₁ + αm aₙ = (1 − αf) q̈ₙ₊₁ + αf q̈ₙ: all affine in qₙ₊₁
            qbase = q + h * qd + h * h * (0.5 - beta) * acc      # qₙ₊₁ − h²β aₙ₊₁
            q1 = qbase + h * h * beta * qdd                      # predictor aₙ₊₁ = q̈ₙ
            hd = qd + h * (1 - gam) * acc - c1 * qbase
            hdd = (am * acc - af * qdd) / (1 - af) - c2 * qbase
            lam1 = lam.copy()
            # a penalty raised at a singular pass decays back step by step
            alpha = max(alpha_base, alpha / PENALTY_RAISE)
            it, rem, alpha, theta, qd1, qdd1 = _newton(
                system, ws, lin, cnt, t1, q1, lam1, (c1, c2, hd, hdd, hh, b), alpha,
                alpha_base * MAX_PENALTY_RAISE, tol, maxit, theta_prev, exact)
            theta_prev = max(theta, THETA_START)
            cnt["penalty_max"] = max(cnt["penalty_max"], penalty * alpha / alpha_base)
            cnt["iteration_error"] += rem
            cnt["newton"] += it
            cnt["newton_max"] = max(cnt["newton_max"], it)
            # mass-orthogonal projection of q̇; q̈ and a go on unprojected (projecting q̈ inside
            # the recursion lost accuracy, docs/solvers.md). "exact": solved to newton_tol (GMRES
            # on the multipliers) with T refactored with Φq at qₙ₊₁ (with T's Φq from the
            # predictor the converged v is not W-orthogonal to null(Φq(qₙ₊₁))). "multipliers":
            # the method of multipliers with the base penalty, which leaves Φq's nearly lost
            # directions unprojected (with a raised penalty it removed the velocity there:
            # −29 % energy at a flat pass of the 40-loop chain at 0.25 ms).
            if exact or alpha > alpha_base:
                lin.factor(ws.M, ws.Jq, ws.Jqd, ws.phiq, hh, b, alpha_base)
                cnt["factor"] += 1
            qd1, rn = project(lin, ws.phiq, lin.W(qd1), -ws.phit, alpha_base, b, tol, maxit,
                              cnt)[:2]
            cnt["vel_residual_max"] = max(cnt["vel_residual_max"], rn)
            acc = (q1 - qbase) / (beta * h * h)
            q, qd, qdd, lam = q1, qd1, qdd1, lam1
            cnt["steps"] += 1
            if np.abs(q).max() > DIVERGENCE_LIMIT or np.abs(qd).max() > DIVERGENCE_LIMIT:
                raise _Failure(f"state beyond {DIVERGENCE_LIMIT:g} (diverged)", t1)
        phiq = ws.phiq.copy()
        # output: q̈ projected onto Φq q̈ = γ (mass-orthogonal, by the step's factors)
        system.evaluate(t1, q, qd, ws, EVAL_GAMMA)
        qdd_out, rn = project(lin, phiq, lin.W(qdd), ws.gamma.copy(), alpha_base, b, tol, maxit,
                              cnt)[:2]
        cnt["acc_residual_max"] = max(cnt["acc_residual_max"], rn)
        record(k, t1, q, qd, qdd_out, lam)
        if bar is not None:
            bar.update(nsub * h)
    return cnt


class _Run:
    """The raw outputs of one run: t, q, q̇, q̈, λ at each output, and how many were reached."""

    def __init__(self, nout: int, n: int, m: int):
        self.t, self.q, self.qd = np.empty(nout), np.empty((nout, n)), np.empty((nout, n))
        self.qdd, self.lam = np.empty((nout, n)), np.zeros((nout, m))
        self.done = 0
        self.cnt: dict = {}

    def record(self, k, t, q, qd, qdd, lam):
        self.t[k], self.q[k], self.qd[k], self.qdd[k], self.lam[k] = t, q, qd, qdd, lam
        self.done = k + 1

    def go(self, system, state, nsub, hstep, opts, sparse, bar=None) -> "_Run":
        self.cnt = integrate(system, state, self.t.size, nsub, hstep, opts, sparse, self.record,
                             bar)
        return self


def _project_state(system, lin: _Tangent, ws, t, q_star, qd_star, qdd_star, penalty, tol,
                   maxit, cnt):
    """(q, q̇, q̈) nearest (in M) to the given ones that satisfy Φ = 0, Φq q̇ + Φt = 0 and
    Φq q̈ = γ: Gauss-Newton on min ½(q − q*)ᵀM(q − q*) s.t. Φ(q) = 0, each correction the
    projection of q* − q onto Φq Δq = −Φ at the iterate (:func:`_project`; its fixed point is
    the constrained minimum), then the two projections at q."""
    q = q_star.copy()
    system.evaluate(t, q, qd_star, ws, EVAL_M | EVAL_PHI | EVAL_PHIQ)
    M = ws.M.copy()
    alpha0 = _scale_alpha(M, 1.0, penalty)
    zero = np.zeros_like(M)
    for _ in range(maxit):
        lin.factor(M, zero, zero, ws.phiq, 0.0, 1.0, alpha0)
        dq = _project(lin, ws.phiq, M @ (q_star - q), -ws.phi, alpha0, 1.0, tol, maxit, cnt)[0]
        q += dq
        system.evaluate(t, q, qd_star, ws, EVAL_PHI | EVAL_PHIQ)
        scale = max(1.0, float(np.abs(q).max()))
        if np.abs(ws.phi).max() <= tol * scale and np.abs(dq).max() <= FLOOR_FACTOR * tol * scale:
            break
    cnt["phi_max"] = max(cnt["phi_max"], float(np.abs(ws.phi).max()))
    lin.factor(M, zero, zero, ws.phiq, 0.0, 1.0, alpha0)
    qd = _project(lin, ws.phiq, M @ qd_star, -ws.phit, alpha0, 1.0, tol, maxit, cnt)[0]
    system.evaluate(t, q, qd, ws, EVAL_GAMMA)
    qdd = _project(lin, ws.phiq, M @ qdd_star, ws.gamma.copy(), alpha0, 1.0, tol, maxit, cnt)[0]
    return q, qd, qdd


def _project_state_multipliers(system, lin: _Tangent, ws, t, q_star, qd_star, qdd_star, penalty,
                               tol, maxit, cnt):
    """:func:`_project_state` of ``velocity_projection="multipliers"``: AL Newton on
    min ½(q − q*)ᵀM(q − q*) s.t. Φ(q) = 0, then the two projections by the method of multipliers."""
    q = q_star.copy()
    system.evaluate(t, q, qd_star, ws, EVAL_M | EVAL_PHI | EVAL_PHIQ)
    M = ws.M.copy()
    alpha0 = _scale_alpha(M, 1.0, penalty)
    zero = np.zeros_like(M)
    lin.factor(M, zero, zero, ws.phiq, 0.0, 1.0, alpha0)
    sigma = np.zeros(system.m)
    for _ in range(maxit):
        dq = lin.solve(M @ (q - q_star) + ws.phiq.T @ (sigma + alpha0 * ws.phi))
        q -= dq
        system.evaluate(t, q, qd_star, ws, EVAL_PHI | EVAL_PHIQ)
        sigma += alpha0 * ws.phi
        scale = max(1.0, float(np.abs(q).max()))
        if np.abs(ws.phi).max() <= tol * scale and np.abs(dq).max() <= FLOOR_FACTOR * tol * scale:
            break
    cnt["phi_max"] = max(cnt["phi_max"], float(np.abs(ws.phi).max()))
    qd = _project_multipliers(lin, ws.phiq, M @ qd_star, -ws.phit, alpha0, 1.0, tol, maxit,
                              cnt)[0]
    system.evaluate(t, q, qd, ws, EVAL_GAMMA)
    qdd = _project_multipliers(lin, ws.phiq, M @ qdd_star, ws.gamma.copy(), alpha0, 1.0, tol,
                               maxit, cnt)[0]
    return q, qd, qdd


def _richardson(system, state, fine: _Run, nsub, hstep, opts, sparse) -> tuple[dict, _Run]:
    """Runs with 2h (and 4h) on the same outputs; the error estimate and, for
    ``richardson="extrapolate"``, the extrapolated, re-projected outputs."""
    wall0 = time.perf_counter()
    nout = fine.t.size
    half = _Run(nout, system.n, system.m).go(system, state, nsub // 2, 2 * hstep, opts, sparse)
    ex = lambda a, b: a + (a - b) / 3                        # noqa: E731  (order 2)
    # the Newton iterations' own errors (each step's estimate, Hairer & Wanner IV.8 eq. 8.10,
    # summed over the run): not in the differences of the runs, added to the estimate
    it_h, it_2h = fine.cnt["iteration_error"], half.cnt["iteration_error"]
    if opts["richardson"] == "estimate":
        it_err = it_h + (it_h + it_2h) / 3
        est = dict(q=float(np.abs(fine.q - half.q).max() / 3) + it_err,
                   qd=float(np.abs(fine.qd - half.qd).max() / 3), of="the h run",
                   steps=[hstep, 2 * hstep], iteration=it_err)
        est["wall_s"] = time.perf_counter() - wall0
        return est, fine
    quarter = _Run(nout, system.n, system.m).go(system, state, nsub // 4, 4 * hstep, opts, sparse)
    e1 = [ex(getattr(fine, a), getattr(half, a)) for a in ("q", "qd", "qdd", "lam")]
    e2 = [ex(getattr(half, a), getattr(quarter, a)) for a in ("q", "qd")]
    # error of the extrapolation taken as O(h²), the method's order (as O(h³), |E₁ − E₂|/7, it
    # fell 4-11 % short of the true error on the 40-loop chain at 1 and 0.5 ms, whose
    # extrapolated error falls by 7.5 per halving there)
    it_4h = quarter.cnt["iteration_error"]
    it_err = (4 * it_h + it_2h) / 3 + (4 * it_h + 5 * it_2h + it_4h) / 21
    est = dict(q=float(np.abs(e1[0] - e2[0]).max() / 3) + it_err,
               qd=float(np.abs(e1[1] - e2[1]).max() / 3),
               of="the extrapolated output", steps=[hstep, 2 * hstep, 4 * hstep],
               q_h_run=float(np.abs(fine.q - half.q).max() / 3) + it_h + (it_h + it_2h) / 3,
               iteration=it_err)
    out = _Run(nout, system.n, system.m)
    ws = system.workspace()
    lin = _Tangent(system, sparse)
    cnt = dict(proj=0, proj_max=0, phi_max=0.0)
    tol, maxit, penalty = float(opts["newton_tol"]), int(opts["max_iter"]), float(opts["penalty"])
    project_state = _project_state if opts["velocity_projection"] == "exact" else _project_state_multipliers
    for k in range(nout):
        q, qd, qdd = project_state(system, lin, ws, fine.t[k], e1[0][k], e1[1][k], e1[2][k],
                                   penalty, tol, maxit, cnt)
        out.record(k, fine.t[k], q, qd, qdd, e1[3][k])
    out.cnt = fine.cnt
    est["projection_phi_max"] = cnt["phi_max"]
    est["wall_s"] = time.perf_counter() - wall0
    return est, out


class _single_thread:
    """Single-threaded BLAS during the run when threadpoolctl is installed (the small dense LUs
    here are several times faster on one thread than with threads)."""

    def __enter__(self):
        try:
            from threadpoolctl import threadpool_limits
        except ImportError:  # pragma: no cover - optional
            self._ctx = None
            return self
        self._ctx = threadpool_limits(1)
        return self

    def __exit__(self, *exc):
        if self._ctx is not None:
            self._ctx.restore_original_limits()
        return False


def solve(system: MechanicalSystem, options: dict, state: State, t_end: float, h: float,
          progress: bool = False) -> Result:
    """The run of the ``reference`` solver with ``formulation="augmented-lagrangian"``: outputs
    on the grid ``state.t + k·h``, each a step end (steps of h/nsub ≤ ``step``, nsub a multiple
    of 4 with ``richardson="extrapolate"``, of 2 with ``"estimate"``)."""
    opts = check_options(options)
    n, m, nx = system.n, system.m, system.nx
    if nx:
        raise SolverError(f"{_WHERE}: '{system.name}' has {nx} extra first-order states, which "
                          "this formulation does not integrate; use formulation 'index1'")
    t0, nsteps = output_steps(state, t_end, h)
    mult = {"extrapolate": 4, "estimate": 2, "none": 1}[opts["richardson"]]
    nsub = mult * max(1, int(math.ceil(h / (mult * float(opts["step"])) - 1e-9)))
    hstep = h / nsub
    mode = opts["linear_solver"]
    has_pattern = all(hasattr(system, a) for a in ("phiq_pattern", "mass_pattern",
                                                   "jacobian_pattern"))
    if mode == "sparse" and not has_pattern:
        raise SolverError(f"{_WHERE}: option 'linear_solver' = 'sparse' needs the model's "
                          f"sparsity patterns, which '{system.name}' does not provide")
    sparse = mode == "sparse" or (mode == "auto" and has_pattern and n >= SPARSE_FROM_N)
    bar = None
    if progress:
        from tqdm import tqdm

        bar = tqdm(total=float(nsteps * h), unit="s", mininterval=0.5, leave=False,
                   desc=f"reference (augmented-lagrangian) {system.name}")
    status, message, est = 1, "finished", None
    fine = out = _Run(nsteps + 1, n, m)
    wall0 = time.perf_counter()
    try:
        with _single_thread():
            fine.go(system, state, nsub, hstep, opts, sparse, bar)
            if bar is not None:
                bar.close()
                bar = None
            if mult > 1 and nsteps > 0:
                try:
                    est, out = _richardson(system, state, fine, nsub, hstep, opts, sparse)
                except _Failure as exc:
                    message = (f"finished; no error estimate: the run with a longer step failed "
                               f"at t = {exc.t:.9g} s ({exc})")
    except _Failure as exc:
        status = -1
        k = fine.done
        t_last = fine.t[k - 1] if k else t0
        message = exc.message(f"augmented-lagrangian, step = {hstep:g}", t_last)
    finally:
        if bar is not None:
            bar.close()
    meta = dict(model=system.name, solver="reference", formulation="augmented-lagrangian", h=h,
                step=hstep, richardson=opts["richardson"] if est else "none",
                penalty=float(opts["penalty"]), newton_tol=float(opts["newton_tol"]),
                linear_solver="sparse" if sparse else "dense", **fine.cnt,
                wall_s=time.perf_counter() - wall0, status=status, message=message)
    if est is not None:
        meta["error_estimate"] = est
    return _result(system, out, meta)


def _result(system, run: _Run, meta: dict) -> Result:
    """The Result of the outputs reached: constraint norms and named outputs evaluated there."""
    k = run.done
    ws = system.workspace()
    out_names = list(system.output_names)
    acc_names = list(getattr(system, "acceleration_names", ()))
    PHI, PHID = np.zeros(k), np.zeros(k)
    OUT, ACC = np.empty((k, len(out_names))), np.empty((k, len(acc_names)))
    obuf, abuf = np.zeros(len(out_names)), np.zeros(len(acc_names))
    for i in range(k):
        t, q, qd = run.t[i], run.q[i], run.qd[i]
        if system.m:
            system.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)
            PHI[i] = np.linalg.norm(ws.phi)
            PHID[i] = np.linalg.norm(ws.phiq @ qd + ws.phit)
        if out_names:
            system.outputs(t, q, qd, obuf)
            OUT[i] = obuf
        if acc_names:
            system.acceleration_outputs(t, q, qd, run.qdd[i], abuf)
            ACC[i] = abuf
    return Result(t=run.t[:k].copy(), q=run.q[:k].copy(), qd=run.qd[:k].copy(),
                  lam=run.lam[:k].copy(), phi_norm=PHI, phid_norm=PHID,
                  outputs={**{nm: OUT[:, j].copy() for j, nm in enumerate(out_names)},
                           **{nm: ACC[:, j].copy() for j, nm in enumerate(acc_names)}},
                  coordinate_names=list(getattr(system, "coordinate_names", [])),
                  x=np.zeros((k, 0)), meta=meta)
