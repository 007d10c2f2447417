"""Acceleration-level formulations for systems that may have redundant constraints (Pękal & Frączek 2016 §3).

Each formulation solves the index-1 system (Pękal & Frączek 2016 eq. 8)

    M q̈ + Φqᵀ λ = Q,     Φq q̈ = γ

for the accelerations ``q̈`` and the multipliers ``λ``. When Φq is rank deficient (redundant
constraints) the accelerations of an ideal system are still unique but λ is not: every
formulation here returns the **minimum-norm** λ, i.e. the one in range(Φq) (orthogonal to
null(Φqᵀ)); the generalised reactions Φqᵀλ are unique.

========================  ===================  =========  ===========  =====================
name                      Pękal & Frączek 2016 equations   singular   redundant    λ
                                               M allowed  constraints
========================  ===================  =========  ===========  =====================
``direct``                 10                   yes [1]    no           unique
``pseudoinverse``          11                   yes [1]    yes          min-norm (X⁺ b)
``udwadia-kalaba``         14-24 (+ MP [2])     no         yes          (DDᵀ)⁺(Φq q̈f − γ)
``least-squares-1``        25-29                no         yes          Q_LS1⁺(Φq M⁻¹Q − γ)
``least-squares-2``        30-34                yes [1]    yes          eq. 34
``udwadia-phohomsiri``     35-43 (C = 0)        yes [1]    yes          (Φqᵀ)⁺(Q − M q̈)
========================  ===================  =========  ===========  =====================

[1] as long as the accelerations are unique: M positive definite on null(Φq).
[2] the right inverse D† of eq. 22 and (DDᵀ)⁻¹ of eq. 24 replaced by Moore-Penrose inverses,
    as the paper prescribes for redundant systems.

Rank decisions use one documented relative tolerance (:data:`rtmbs.tolerances.SOLVER_RANK_RTOL`):
a singular value σ of a rectangular factor (Φq, D = Φq M^(-1/2), M̄ of eq. 41, the KKT matrix X)
counts as zero when σ ≤ rtol·σmax; an eigenvalue of a symmetric positive semidefinite product
(M = LLᵀ, Q_LS1 = DDᵀ, EME) counts as zero when λ ≤ rtol²·λmax (its eigenvalues are squares of
singular values). Where a formulation cannot apply it raises
:class:`rtmbs.errors.FormulationNotApplicable` naming the failed condition, the rank and the
condition number, instead of returning a wrong answer.

These are offline formulations in numpy/scipy (dense SVD/eigh/Cholesky); the fixed-cost
real-time solvers use their own kernels. Per call they cache what does not change: the
factorisation and the rank check of M when M is the same as in the previous call.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla

from ..errors import FormulationNotApplicable, SolverError, did_you_mean
from ..tolerances import SOLVER_RANK_RTOL


# -- small dense helpers ---------------------------------------------------------------
def _svd_pinv(A: np.ndarray, rtol: float):
    """Moore-Penrose inverse of ``A`` by SVD with rank tolerance ``rtol``.

    Returns ``(A⁺, rank, s)`` with ``s`` the singular values (descending)."""
    U, s, Vt = np.linalg.svd(A, full_matrices=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros((A.shape[1], A.shape[0])), 0, s
    r = int(np.count_nonzero(s > rtol * s[0]))
    return (Vt[:r].T / s[:r]) @ U[:, :r].T, r, s


def _sym_pinv(S: np.ndarray, rtol2: float):
    """Moore-Penrose inverse of a symmetric positive semidefinite ``S`` by ``eigh``.

    An eigenvalue ≤ ``rtol2``·λmax counts as zero. Returns ``(S⁺, rank, w)``, ``w`` descending."""
    w, V = np.linalg.eigh(S)
    w, V = w[::-1], V[:, ::-1]
    if w.size == 0 or w[0] <= 0.0:
        return np.zeros_like(S), 0, w
    r = int(np.count_nonzero(w > rtol2 * w[0]))
    return (V[:, :r] / w[:r]) @ V[:, :r].T, r, w


def _cond(s: np.ndarray, r: int | None = None) -> float:
    """σmax/σmin (σmin the smallest of all, or the r-th when ``r`` is given)."""
    if s.size == 0:
        return 1.0
    smin = abs(s[-1]) if r is None else abs(s[r - 1]) if r > 0 else 0.0
    return float(np.inf if smin == 0.0 else abs(s[0]) / smin)


def jacobian_rank(phiq: np.ndarray, rtol: float = SOLVER_RANK_RTOL) -> tuple[int, np.ndarray]:
    """``(rank(Φq), singular values)`` with the relative tolerance of this module."""
    s = np.linalg.svd(phiq, compute_uv=False)
    r = 0 if s.size == 0 or s[0] == 0.0 else int(np.count_nonzero(s > rtol * s[0]))
    return r, s


def min_norm_multipliers(phiq, M, Q, qdd, rtol: float = SOLVER_RANK_RTOL) -> np.ndarray:
    """λ = (Φqᵀ)⁺ (Q − M q̈): the minimum-norm multipliers for given accelerations."""
    pinv, _, _ = _svd_pinv(phiq.T, rtol)
    return pinv @ (Q - M @ qdd)


# -- the formulations ------------------------------------------------------------------
class Formulation:
    """Base class: ``f(M, phiq, Q, gamma) -> (qdd, lam)`` (Pękal & Frączek 2016 eq. 8).

    Attributes after a call: ``rank`` (rank of Φq or of the factor the method decomposes),
    ``cond`` (its condition number over the non-zero singular values).
    """

    name = "formulation"
    #: Pękal & Frączek 2016 equation numbers
    equations = ""
    #: needs a non-singular M (Udwadia-Kalaba, least-squares 1)
    needs_regular_mass = False
    #: accepts a rank-deficient Φq
    allows_redundant = True

    def __init__(self, rtol: float = SOLVER_RANK_RTOL):
        if not (0.0 < rtol < 1.0):
            raise SolverError(f"`rtol` must be in (0, 1), got {rtol!r}")
        self.rtol = float(rtol)
        self.rank = -1
        self.cond = np.nan
        self._M_last = None
        self._M_fac = None

    def __call__(self, M, phiq, Q, gamma):
        M = np.asarray(M, dtype=float)
        phiq = np.asarray(phiq, dtype=float)
        Q = np.asarray(Q, dtype=float)
        gamma = np.asarray(gamma, dtype=float)
        n = M.shape[0]
        if M.shape != (n, n) or Q.shape != (n,) or phiq.ndim != 2 or phiq.shape[1] != n \
                or gamma.shape != (phiq.shape[0],):
            raise SolverError(
                f"formulation '{self.name}': shapes M {M.shape}, phiq {phiq.shape}, Q {Q.shape}, "
                f"gamma {gamma.shape} do not fit (expected (n, n), (m, n), (n,), (m,))"
            )
        return self._solve(M, phiq, Q, gamma)

    def _solve(self, M, phiq, Q, gamma):
        raise NotImplementedError

    # shared: Cholesky of a regular M, with the check cached while M does not change
    def _mass_factor(self, M):
        if self._M_last is not None and np.array_equal(M, self._M_last):
            return self._M_fac
        w = np.linalg.eigvalsh(M)
        n = M.shape[0]
        wmax = w[-1] if n else 1.0
        r = int(np.count_nonzero(w > self.rtol**2 * wmax)) if wmax > 0 else 0
        if r < n:
            cond = np.inf if w[0] == 0 else wmax / abs(w[0])
            raise FormulationNotApplicable(
                f"formulation '{self.name}' needs a non-singular mass matrix M: "
                f"rank(M) = {r} < n = {n} (condition number {cond:.3g}; an eigenvalue counts as "
                f"zero below rtol² = {self.rtol**2:.3g} times the largest); "
                f"use 'least-squares-2' or 'udwadia-phohomsiri'"
            )
        L = np.linalg.cholesky(M)
        self._M_last = M.copy()
        self._M_fac = L
        return L

    def _redundant_error(self, r, m, s):
        smin = s[-1] / s[0] if s.size and s[0] > 0 else 0.0
        return FormulationNotApplicable(
            f"formulation '{self.name}' needs independent constraints: rank(Φq) = {r} < m = {m} "
            f"(redundant constraints; σmin/σmax = {smin:.3g} ≤ rtol = {self.rtol:.3g}); "
            f"use 'pseudoinverse', 'udwadia-kalaba', 'least-squares-1', 'least-squares-2' "
            f"or 'udwadia-phohomsiri'"
        )

    def _not_unique_error(self, what, r, need, s):
        return FormulationNotApplicable(
            f"formulation '{self.name}': the accelerations are not unique, {what} has rank {r} "
            f"< {need} (condition number {_cond(s):.3g}); M must be positive definite on the "
            f"null space of Φq"
        )


class Direct(Formulation):
    """Direct solution of the KKT system by LU (Pękal & Frączek 2016 eq. 10); independent constraints only."""

    name = "direct"
    equations = "10"
    allows_redundant = False

    def _solve(self, M, phiq, Q, gamma):
        n, m = M.shape[0], phiq.shape[0]
        r, s = jacobian_rank(phiq, self.rtol)
        self.rank, self.cond = r, _cond(s)
        if r < m:
            raise self._redundant_error(r, m, s)
        X = np.zeros((n + m, n + m))
        X[:n, :n] = M
        X[:n, n:] = phiq.T
        X[n:, :n] = phiq
        b = np.concatenate((Q, gamma))
        anorm = np.abs(X).sum(axis=0).max()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", sla.LinAlgWarning)
            lu, piv = sla.lu_factor(X, check_finite=False)
        rcond, _ = sla.lapack.dgecon(lu, anorm, norm="1")
        if not rcond > self.rtol**2:  # X singular: M not positive definite on null(Φq)
            sX = np.linalg.svd(X, compute_uv=False)
            rX = int(np.count_nonzero(sX > self.rtol * sX[0]))
            raise self._not_unique_error("the KKT matrix X", rX, n + m, sX)
        x = sla.lu_solve((lu, piv), b, check_finite=False)
        return x[:n], x[n:]


class Pseudoinverse(Formulation):
    """Moore-Penrose solution of the KKT system, ``[q̈; λ] = X⁺ [Q; γ]`` (Pękal & Frączek 2016 eq. 11).

    X⁺b is the minimum-norm least-squares solution: q̈ is unique, so λ is the min-norm one."""

    name = "pseudoinverse"
    equations = "11"

    def _solve(self, M, phiq, Q, gamma):
        n, m = M.shape[0], phiq.shape[0]
        X = np.zeros((n + m, n + m))
        X[:n, :n] = M
        X[:n, n:] = phiq.T
        X[n:, :n] = phiq
        Xp, r, s = _svd_pinv(X, self.rtol)
        self.rank, self.cond = r, _cond(s, r)
        # q̈ is unique iff M is positive definite on null(Φq) iff rank [M; Φq] = n (M ⪰ 0)
        ru, su = jacobian_rank(np.vstack((M, phiq)), self.rtol)
        if ru < n:
            raise self._not_unique_error("[M; Φq]", ru, n, su)
        x = Xp @ np.concatenate((Q, gamma))
        return x[:n], x[n:]


class UdwadiaKalaba(Formulation):
    """Udwadia-Kalaba (Pękal & Frączek 2016 eqs. 14-24) with M^(1/2) = L from Cholesky (eqs. 17-19),
    D = Φq M^(-1/2) (eq. 20), q̈ = q̈f + M^(-1/2) D⁺ (γ − Φq q̈f) (eq. 23) and
    λ = (DDᵀ)⁺ (Φq q̈f − γ) (eq. 24), Moore-Penrose inverses for redundant systems."""

    name = "udwadia-kalaba"
    equations = "14-24"
    needs_regular_mass = True

    def _solve(self, M, phiq, Q, gamma):
        L = self._mass_factor(M)
        # q̈f = M⁻¹Q (eq. 14); M^(-1/2) = M⁻¹ M^(1/2) = L⁻ᵀ (eq. 19)
        qdd_f = sla.cho_solve((L, True), Q, check_finite=False)
        D = sla.solve_triangular(L, phiq.T, lower=True, check_finite=False).T  # Φq L⁻ᵀ (eq. 20)
        U, s, Vt = np.linalg.svd(D, full_matrices=False)
        r = int(np.count_nonzero(s > self.rtol * s[0])) if s.size and s[0] > 0 else 0
        self.rank, self.cond = r, _cond(s, r)
        Ur, sr, Vr = U[:, :r], s[:r], Vt[:r].T
        e = gamma - phiq @ qdd_f
        Ute = Ur.T @ e
        # D⁺ e = V S⁻¹ Uᵀ e; M^(-1/2) D⁺ e = L⁻ᵀ (...)  (eq. 23)
        corr = sla.solve_triangular(L, Vr @ (Ute / sr), lower=True, trans="T", check_finite=False)
        lam = -(Ur @ (Ute / sr**2))  # (DDᵀ)⁺ (Φq q̈f − γ)  (eq. 24)
        return qdd_f + corr, lam


class LeastSquares1(Formulation):
    """Least-squares block solution 1 (Pękal & Frączek 2016 eqs. 25-29): Q_LS1 = Φq M⁻¹ Φqᵀ (eq. 26),
    q̈ = (I − M⁻¹ΦqᵀQ_LS1⁺Φq) M⁻¹Q + M⁻¹Φqᵀ Q_LS1⁺ γ,  λ = Q_LS1⁺ (Φq M⁻¹Q − γ) (eq. 29)."""

    name = "least-squares-1"
    equations = "25-29"
    needs_regular_mass = True

    def _solve(self, M, phiq, Q, gamma):
        L = self._mass_factor(M)
        Minv_Q = sla.cho_solve((L, True), Q, check_finite=False)
        Minv_PT = sla.cho_solve((L, True), phiq.T, check_finite=False)
        QLS1 = phiq @ Minv_PT
        QLS1 = 0.5 * (QLS1 + QLS1.T)
        QLS1p, r, w = _sym_pinv(QLS1, self.rtol**2)
        self.rank, self.cond = r, float(np.sqrt(_cond(w, r))) if r else np.inf
        lam = QLS1p @ (phiq @ Minv_Q - gamma)
        qdd = Minv_Q - Minv_PT @ lam
        return qdd, lam


class LeastSquares2(Formulation):
    """Least-squares block solution 2 (Pękal & Frączek 2016 eqs. 30-34), valid for a singular M:
    R = M Φq⁺ (eq. 30), E = I − Φq⁺Φq (eq. 31), Q_LS2 = (EME)⁺ (eq. 32),
    q̈ = Q_LS2 Q + (Φq⁺ − Q_LS2 R) γ,
    λ = [(Φq⁺)ᵀ − RᵀQ_LS2] Q + [−(Φq⁺)ᵀ + RᵀQ_LS2] R γ (eq. 34)."""

    name = "least-squares-2"
    equations = "30-34"

    def _solve(self, M, phiq, Q, gamma):
        n = M.shape[0]
        Pp, r, s = _svd_pinv(phiq, self.rtol)
        self.rank, self.cond = r, _cond(s, r)
        R = M @ Pp
        E = np.eye(n) - Pp @ phiq
        EME = E @ M @ E
        QLS2, r2, w = _sym_pinv(0.5 * (EME + EME.T), self.rtol**2)
        if r2 < n - r:
            raise self._not_unique_error("E M E", r2, n - r, w)
        Rg = R @ gamma
        qdd = QLS2 @ Q + Pp @ gamma - QLS2 @ Rg
        lam = Pp.T @ Q - R.T @ (QLS2 @ Q) - Pp.T @ Rg + R.T @ (QLS2 @ Rg)
        return qdd, lam


class UdwadiaPhohomsiri(Formulation):
    """Udwadia-Phohomsiri (Pękal & Frączek 2016 eqs. 35-43) for ideal constraints (C = 0):
    M̄ = [EM; Φq] (eq. 41), q̈ = M̄⁺ [Q; γ] (eq. 43). The formulation gives no λ; the
    min-norm one is λ = (Φqᵀ)⁺ (Q − M q̈) (from eqs. 2-3, W = −Φqᵀλ = M q̈ − Q)."""

    name = "udwadia-phohomsiri"
    equations = "35-43"

    def _solve(self, M, phiq, Q, gamma):
        n = M.shape[0]
        Pp, r, s = _svd_pinv(phiq, self.rtol)
        self.rank, self.cond = r, _cond(s, r)
        E = np.eye(n) - Pp @ phiq
        Mbar = np.vstack((E @ M, phiq))
        Mbp, rb, sb = _svd_pinv(Mbar, self.rtol)
        if rb < n:
            raise self._not_unique_error("M̄ = [EM; Φq]", rb, n, sb)
        qdd = Mbp @ np.concatenate((Q, gamma))
        lam = Pp.T @ (Q - M @ qdd)  # (Φqᵀ)⁺ = (Φq⁺)ᵀ
        return qdd, lam


#: name -> class; ``get_formulation(name)`` makes an instance.
FORMULATIONS: dict[str, type[Formulation]] = {
    "direct": Direct,
    "pseudoinverse": Pseudoinverse,
    "udwadia-kalaba": UdwadiaKalaba,
    "least-squares-1": LeastSquares1,
    "least-squares-2": LeastSquares2,
    "udwadia-phohomsiri": UdwadiaPhohomsiri,
}


def get_formulation(formulation, rtol: float = SOLVER_RANK_RTOL) -> Formulation:
    """An instance from a name in :data:`FORMULATIONS`, a class or an instance."""
    if isinstance(formulation, Formulation):
        return formulation
    if isinstance(formulation, type) and issubclass(formulation, Formulation):
        return formulation(rtol)
    try:
        cls = FORMULATIONS[formulation]
    except (KeyError, TypeError):
        raise SolverError(
            f"unknown formulation '{formulation}'" + did_you_mean(formulation, FORMULATIONS)
        ) from None
    return cls(rtol)


_INSTANCES: dict[str, Formulation] = {}


def accelerations(formulation, M, phiq, Q, gamma):
    """``(q̈, λ)`` of ``M q̈ + Φqᵀλ = Q, Φq q̈ = γ`` by the named formulation (Pękal & Frączek 2016 eq. 8).

    The acceleration solve a fixed-step explicit solver can call; one cached instance per name
    (so M's factorisation is reused while M does not change)."""
    if isinstance(formulation, str):
        f = _INSTANCES.get(formulation)
        if f is None:
            f = _INSTANCES[formulation] = get_formulation(formulation)
    else:
        f = get_formulation(formulation)
    return f(M, phiq, Q, gamma)
