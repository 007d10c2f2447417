"""Linearly implicit Euler in independent coordinates, Algorithm 2 (seed 000 eqs. 24-28, Table 2).

State (q, ż). With T = [S R] = [Φq; B]⁻¹ (eq. 24), b = −Φt and c = γ (eq. 23):

    q̇ = S b + R ż                                                               (eq. 24)
    Rᵀ A R Δż = Rᵀ (hQ + h²Jq q̇) − Rᵀ A h S c,   A = M − hJq̇ − h²Jq             (eq. 28)
    Δq = h q̇ [+ projection, eq. 30],   q ← q + Δq,   ż ← ż + Δż                   (Table 2/3)

``state.qd`` is kept equal to S b + R ż at the new positions (so callers see velocities that
satisfy the velocity constraints); ż is internal (``self.zd``). The multipliers follow from eq. 18:
hλ = Sᵀ(hQ + h²Jq q̇ − A Δq̇) with Δq̇ = h S c + R Δż (one transposed solve; ``multipliers``).

Choice of B (``B=``):

* ``"qr"`` (seed 003 eqs. 4.11-4.12): B = right n x f block of C1 in Φqᵀ(q0) = C1 C2, transposed;
  [Φq; B] (n x n) is factorised every step.
* ``"partition"`` (default): B = rows of the identity at f independent coordinates v chosen by Gaussian
  elimination with full pivoting of Φq (coordinate partitioning); then R = [−Φu⁻¹Φv; I] and
  S = [Φu⁻¹; 0], so only Φu (m x m, as sparse as Φq) is factorised.

Beyond the seed: the pivot ratio of that factorisation (min|u_kk|/max|u_kk|) is a cheap
conditioning estimate, checked every step. When it falls below ``rebase_tol`` times its value at
the last choice of B, B is chosen again at the current configuration (QR or partitioning of the
current Φq) and ż is re-mapped, ż = B q̇ with q̇ = q̇ᵢ + Δq̇. That event (counted in ``nrebase``)
costs one QR or one full-pivot elimination and one more factorisation; steps without it have
the fixed cost below.

Sparse path (``linear_solver``, B = "partition" on systems with fixed patterns): Φu by the
fixed-pattern sparse LU of ``sparse`` (analysed at each choice of B), R and S c by one solve with
f + 1 right-hand sides, A and Rᵀ A R as sparse products; same counts as the dense path.

Cost per step: evaluations 3 (+1 projection), factorisations 2 (+1 projection="kkt"),
solves f + 4 (+1 projection, −1 without multipliers).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..errors import RedundantConstraintError, SolverError
from ..protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State,
)
from ..tolerances import SINGULAR_PIVOT_RATIO
from .base import Solver, register_solver
from .li_euler import li_matrix
from .linalg import lu_factor, lu_solve, lu_solve_t, null_basis_qr, select_partition
from .sparse import (
    H_ANALYSIS, SparseLU, choose_linear_solver, lu_refactor, lu_solve_multi_sp, lu_solve_sp,
    lu_solve_t_sp, threshold_rows,
)
from .stabilization import (
    Projector, SparseProjector, check_choice, check_positive, evaluate, pop_options,
)


# -- B = QR: factor T⁻¹ = [Φq; B] -------------------------------------------------------------
@njit(cache=True)
def _qr_factor(phiq, B, K, piv):
    m, n = phiq.shape
    for i in range(m):
        for j in range(n):
            K[i, j] = phiq[i, j]
    for i in range(n - m):
        for j in range(n):
            K[m + i, j] = B[i, j]
    return lu_factor(K, piv)


@njit(cache=True)
def _qr_R_Sc(K, piv, gamma, Rt, Sc):
    """Rows of Rt = columns of R = T[0; I]; Sc = T[c; 0]."""
    f, n = Rt.shape
    m = n - f
    for j in range(f):
        for i in range(n):
            Rt[j, i] = 0.0
        Rt[j, m + j] = 1.0
        lu_solve(K, piv, Rt[j])
    for i in range(m):
        Sc[i] = gamma[i]
    for i in range(m, n):
        Sc[i] = 0.0
    lu_solve(K, piv, Sc)


@njit(cache=True)
def _qr_velocity(K, piv, phit, phi, gb, zd, qd):
    """q̇ = T[b; ż], b = −Φt − γ_B Φ (eq. 24)."""
    m = phit.shape[0]
    for i in range(m):
        qd[i] = -phit[i] - gb * phi[i]
    for i in range(zd.shape[0]):
        qd[m + i] = zd[i]
    lu_solve(K, piv, qd)


@njit(cache=True)
def _qr_zd(B, qd, zd):
    for j in range(B.shape[0]):
        s = 0.0
        for i in range(B.shape[1]):
            s += B[j, i] * qd[i]
        zd[j] = s


@njit(cache=True)
def _qr_lambda(K, piv, x, lam, h):
    lu_solve_t(K, piv, x)
    for i in range(lam.shape[0]):
        lam[i] = x[i] / h


@njit(cache=True)
def _qr_project_T(K, piv, phi, x, dq):
    m = phi.shape[0]
    n = dq.shape[0]
    for i in range(m):
        x[i] = -phi[i]
    for i in range(m, n):
        x[i] = 0.0
    lu_solve(K, piv, x)
    for i in range(n):
        dq[i] += x[i]


# -- B = partition: factor Φu ----------------------------------------------------------------
@njit(cache=True)
def _p_factor(phiq, cols, Fu, piv):
    """LU of Φu. Returns min|u_kk| / max(|u_kk|, |Φq_ij|): the pivot ratio measured against the
    whole Φq, so that it also detects a singular Φu of size 1."""
    m, n = phiq.shape
    big = 0.0
    for i in range(m):
        for j in range(n):
            a = abs(phiq[i, j])
            if a > big:
                big = a
        for k in range(m):
            Fu[i, k] = phiq[i, cols[k]]
    if lu_factor(Fu, piv) == 0.0:
        return 0.0
    umin = np.inf
    for k in range(m):
        a = abs(Fu[k, k])
        if a < umin:
            umin = a
        if a > big:
            big = a
    if m == 0:
        return 1.0
    return umin / big


@njit(cache=True)
def _p_R_Sc(Fu, piv, phiq, cols, gamma, Xt, Rt, Sc, tmp):
    """R = [−Φu⁻¹Φv; I], Sc = [Φu⁻¹c; 0] (in the order of ``cols``)."""
    f, n = Rt.shape
    m = n - f
    for j in range(f):
        for i in range(m):
            Xt[j, i] = phiq[i, cols[m + j]]
        lu_solve(Fu, piv, Xt[j])
        for k in range(m):
            Rt[j, cols[k]] = -Xt[j, k]
        for k in range(f):
            Rt[j, cols[m + k]] = 1.0 if k == j else 0.0
    for i in range(m):
        tmp[i] = gamma[i]
    lu_solve(Fu, piv, tmp)
    for k in range(m):
        Sc[cols[k]] = tmp[k]
    for k in range(f):
        Sc[cols[m + k]] = 0.0


@njit(cache=True)
def _p_velocity(Fu, piv, phiq, cols, phit, phi, gb, zd, qd, tmp):
    """q̇_v = ż, Φu q̇_u = b − Φv ż."""
    m, n = phiq.shape
    for i in range(m):
        s = -phit[i] - gb * phi[i]
        for k in range(n - m):
            s -= phiq[i, cols[m + k]] * zd[k]
        tmp[i] = s
    lu_solve(Fu, piv, tmp)
    for k in range(m):
        qd[cols[k]] = tmp[k]
    for k in range(n - m):
        qd[cols[m + k]] = zd[k]


@njit(cache=True)
def _p_zd(cols, qd, zd):
    m = cols.shape[0] - zd.shape[0]
    for k in range(zd.shape[0]):
        zd[k] = qd[cols[m + k]]


@njit(cache=True)
def _p_lambda(Fu, piv, cols, x, tmp, lam, h):
    m = tmp.shape[0]
    for k in range(m):
        tmp[k] = x[cols[k]]
    lu_solve_t(Fu, piv, tmp)
    for i in range(m):
        lam[i] = tmp[i] / h


@njit(cache=True)
def _p_project_T(Fu, piv, phi, cols, tmp, dq):
    m = phi.shape[0]
    for i in range(m):
        tmp[i] = -phi[i]
    lu_solve(Fu, piv, tmp)
    for k in range(m):
        dq[cols[k]] += tmp[k]


# -- the reduced system, eq. 28 --------------------------------------------------------------
@njit(cache=True)
def _reduced_factor(M, Jq, Jqd, h, Rt, A, ARt, H, hpiv):
    """A = M − hJq̇ − h²Jq, H = Rᵀ A R, factorised."""
    f, n = Rt.shape
    li_matrix(M, Jq, Jqd, h, A)
    for j in range(f):
        for i in range(n):
            s = 0.0
            for k in range(n):
                s += A[i, k] * Rt[j, k]
            ARt[j, i] = s
    for a in range(f):
        for b in range(f):
            s = 0.0
            for i in range(n):
                s += Rt[a, i] * ARt[b, i]
            H[a, b] = s
    return lu_factor(H, hpiv)


@njit(cache=True)
def _reduced_solve(H, hpiv, Q, Jq, qd, A, Rt, Sc, h, r, w, dzd, dqd):
    """Δż from eq. 28; r = hQ + h²Jq q̇ (kept for λ); Δq̇ = h S c + R Δż (eq. 26)."""
    f, n = Rt.shape
    h2 = h * h
    for i in range(n):
        s = 0.0
        t = 0.0
        for j in range(n):
            s += Jq[i, j] * qd[j]
            t += A[i, j] * Sc[j]
        r[i] = h * Q[i] + h2 * s
        w[i] = r[i] - h * t
    for a in range(f):
        s = 0.0
        for i in range(n):
            s += Rt[a, i] * w[i]
        dzd[a] = s
    lu_solve(H, hpiv, dzd)
    for i in range(n):
        s = h * Sc[i]
        for a in range(f):
            s += Rt[a, i] * dzd[a]
        dqd[i] = s


@njit(cache=True)
def _lambda_rhs(r, A, dqd, x):
    """x = hQ + h²Jq q̇ − A Δq̇ = hΦqᵀλ (eq. 18)."""
    n = r.shape[0]
    for i in range(n):
        s = r[i]
        for k in range(n):
            s -= A[i, k] * dqd[k]
        x[i] = s


# -- sparse path (rtmbs.solvers.sparse): B = partition, Φu on its fixed pattern ----------------
# ``pidx`` (uint32) = [nu, nv, f, ur, uk, uc, vr, vj, vc, vptr]: the entries of Φq in the dependent
# columns (row, position in Φu, column of Φq) and in the independent ones (row, position in v,
# column of Φq; sorted by position, vptr[j]..vptr[j+1] for v_j). ``aidx`` = [na, ai, aj]: the
# entries of A = M − hJq̇ − h²Jq (mass pattern | force Jacobian pattern). R is kept as Rn (n, f).
@njit(cache=True)
def _pidx_parts(pidx):
    nu = np.intp(pidx[0])
    nv = np.intp(pidx[1])
    f = np.intp(pidx[2])
    o = 3
    ur = pidx[o:o + nu]
    uk = pidx[o + nu:o + 2 * nu]
    uc = pidx[o + 2 * nu:o + 3 * nu]
    o += 3 * nu
    vr = pidx[o:o + nv]
    vj = pidx[o + nv:o + 2 * nv]
    vc = pidx[o + 2 * nv:o + 3 * nv]
    vptr = pidx[o + 3 * nv:o + 3 * nv + f + 1]
    return ur, uk, uc, vr, vj, vc, vptr


@njit(cache=True, error_model="numpy")
def _sp_p_factor(ib, fb, pidx, phiq):
    """Gather Φu and factorise on its fixed pattern. Returns (pivot ratio measured against
    max|Φq| as in :func:`_p_factor`, pivot ratio of the LU, largest multiplier)."""
    ur, uk, uc, vr, vj, vc, vptr = _pidx_parts(pidx)
    big = 0.0
    for e in range(ur.shape[0]):
        v = phiq[ur[e], uc[e]]
        fb[e] = v
        if abs(v) > big:
            big = abs(v)
    for e in range(vr.shape[0]):
        v = abs(phiq[vr[e], vc[e]])
        if v > big:
            big = v
    ratio, growth = lu_refactor(ib, fb)
    if ratio == 0.0:
        return 0.0, 0.0, growth
    m = np.intp(ib[0])
    diag = ib[ib[4]:ib[4] + m]
    ne = ur.shape[0]
    umin = np.inf
    for k in range(m):
        a = abs(fb[ne + diag[k]])
        if a < umin:
            umin = a
        if a > big:
            big = a
    if m == 0:
        return 1.0, ratio, growth
    return umin / big, ratio, growth


@njit(cache=True)
def _sp_p_R_Sc(ib, fb, pidx, phiq, cols, gamma, Rn, Sc, X, W):
    """R = [−Φu⁻¹Φv; I] as Rn (n, f), Sc = [Φu⁻¹c; 0]: one sparse solve with the f + 1
    right-hand sides [Φv c] as the columns of X (m, f + 1)."""
    ur, uk, uc, vr, vj, vc, vptr = _pidx_parts(pidx)
    n, f = Rn.shape
    m = n - f
    for i in range(m):
        for j in range(f):
            X[i, j] = 0.0
        X[i, f] = gamma[i]
    for e in range(vr.shape[0]):
        X[vr[e], vj[e]] = phiq[vr[e], vc[e]]
    lu_solve_multi_sp(ib, fb, X, W)
    for k in range(m):
        ck = cols[k]
        for j in range(f):
            Rn[ck, j] = -X[k, j]
        Sc[ck] = X[k, f]
    for k in range(f):
        ck = cols[m + k]
        for j in range(f):
            Rn[ck, j] = 1.0 if k == j else 0.0
        Sc[ck] = 0.0


@njit(cache=True)
def _sp_reduced(aidx, M, Jq, Jqd, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd):
    """Sparse eq. 28: A on its pattern, H = Rᵀ(A R) (zeros of R skipped), factor, solve for Δż;
    r = hQ + h²Jq q̇; Δq̇ = h S c + R Δż. Returns the pivot ratio of H."""
    na = np.intp(aidx[0])
    ai = aidx[1:1 + na]
    aj = aidx[1 + na:1 + 2 * na]
    n, f = Rn.shape
    h2 = h * h
    for i in range(n):
        r[i] = 0.0
        w[i] = 0.0
        for b in range(f):
            AR[i, b] = 0.0
    for e in range(na):
        i = ai[e]
        j = aj[e]
        jq = Jq[i, j]
        a = M[i, j] - h * Jqd[i, j] - h2 * jq
        Aval[e] = a
        r[i] += jq * qd[j]
        w[i] += a * Sc[j]
        for b in range(f):
            AR[i, b] += a * Rn[j, b]
    for a_ in range(f):
        for b in range(f):
            H[a_, b] = 0.0
    for i in range(n):
        for a_ in range(f):
            ria = Rn[i, a_]
            if ria != 0.0:
                for b in range(f):
                    H[a_, b] += ria * AR[i, b]
    hr = lu_factor(H, hpiv)
    for i in range(n):
        r[i] = h * Q[i] + h2 * r[i]
        w[i] = r[i] - h * w[i]
    for a_ in range(f):
        dzd[a_] = 0.0
    for i in range(n):
        wi = w[i]
        for a_ in range(f):
            dzd[a_] += Rn[i, a_] * wi
    lu_solve(H, hpiv, dzd)
    for i in range(n):
        s = h * Sc[i]
        for a_ in range(f):
            s += Rn[i, a_] * dzd[a_]
        dqd[i] = s
    return hr


@njit(cache=True)
def _sp_lambda_rhs(aidx, Aval, r, dqd, x):
    """x = r − A Δq̇ over the entries of A (eq. 18)."""
    na = np.intp(aidx[0])
    ai = aidx[1:1 + na]
    aj = aidx[1 + na:1 + 2 * na]
    for i in range(x.shape[0]):
        x[i] = r[i]
    for e in range(na):
        x[ai[e]] -= Aval[e] * dqd[aj[e]]


@njit(cache=True)
def _sp_p_middle(ib, fb, pidx, aidx, phiq, M, Jq, Jqd, Q, gamma, qd, cols, h, Rn, Sc, Aval, AR,
                 H, hpiv, r, w, dzd, dqd, x, tmp, lam, multipliers, X, W):
    """One compiled call for the solves of a step: R, S c, eq. 28, and λ (Φuᵀ solve)."""
    _sp_p_R_Sc(ib, fb, pidx, phiq, cols, gamma, Rn, Sc, X, W)
    hr = _sp_reduced(aidx, M, Jq, Jqd, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd)
    if multipliers:
        _sp_lambda_rhs(aidx, Aval, r, dqd, x)
        m = lam.shape[0]
        for k in range(m):
            tmp[k] = x[cols[k]]
        lu_solve_t_sp(ib, fb, tmp)
        for i in range(m):
            lam[i] = tmp[i] / h
    return hr


@njit(cache=True)
def _sp_p_velocity(ib, fb, pidx, phiq, cols, phit, phi, gb, zd, qd, tmp):
    """q̇_v = ż, Φu q̇_u = b − Φv ż (sparse)."""
    ur, uk, uc, vr, vj, vc, vptr = _pidx_parts(pidx)
    m = phit.shape[0]
    f = zd.shape[0]
    for i in range(m):
        tmp[i] = -phit[i] - gb * phi[i]
    for e in range(vr.shape[0]):
        tmp[vr[e]] -= phiq[vr[e], vc[e]] * zd[vj[e]]
    lu_solve_sp(ib, fb, tmp)
    for k in range(m):
        qd[cols[k]] = tmp[k]
    for k in range(f):
        qd[cols[m + k]] = zd[k]


@njit(cache=True)
def _sp_p_project_T(ib, fb, phi, cols, tmp, dq):
    m = phi.shape[0]
    for i in range(m):
        tmp[i] = -phi[i]
    lu_solve_sp(ib, fb, tmp)
    for k in range(m):
        dq[cols[k]] += tmp[k]


@njit(cache=True)
def _position_increment(qd, dqd, h, implicit, dq):
    """Δq = h(q̇ + Δq̇) (``implicit``: the position follows the new velocity, symplectic Euler)
    or Δq = h q̇ (seed 000 Table 2)."""
    for i in range(dq.shape[0]):
        dq[i] = h * (qd[i] + dqd[i]) if implicit else h * qd[i]


@njit(cache=True)
def _euler_update(q, dq, zd, dzd, qd, dqd, qd_pred):
    """q += Δq, ż += Δż, q̇_pred = q̇ + Δq̇ (Table 2), one compiled call."""
    for i in range(q.shape[0]):
        q[i] += dq[i]
        qd_pred[i] = qd[i] + dqd[i]
    for i in range(zd.shape[0]):
        zd[i] += dzd[i]


@njit(cache=True)
def _keep(q, qd, q_last, qd_last):
    for i in range(q.shape[0]):
        q_last[i] = q[i]
        qd_last[i] = qd[i]


@njit(cache=True)
def _unchanged(q, qd, q_last, qd_last):
    return _same(q, q_last) and _same(qd, qd_last)


@njit(cache=True)
def _same(a, b):
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def _partition_index(r, c, cols, m, f):
    """Entries (r, c) of Φq split by the partition ``cols`` (dependent first): the packed index
    ``pidx`` = [nu, nv, f, ur, uk, uc, vr, vj, vc, vptr] of the sparse Algorithm 2 kernels (Φv
    entries sorted by independent column), and ur, uc, uk of Φu."""
    n = cols.shape[0]
    pos = np.empty(n, np.int64)
    for k in range(n):
        pos[cols[k]] = k
    nu = 0
    for e in range(r.shape[0]):
        if pos[c[e]] < m:
            nu += 1
    nv = r.shape[0] - nu
    ur = np.empty(nu, np.int64)
    uc = np.empty(nu, np.int64)
    uk = np.empty(nu, np.int64)
    vcount = np.zeros(f + 1, np.int64)
    a = 0
    for e in range(r.shape[0]):
        k = pos[c[e]]
        if k < m:
            ur[a] = r[e]
            uc[a] = c[e]
            uk[a] = k
            a += 1
        else:
            vcount[k - m + 1] += 1
    vptr = np.cumsum(vcount)
    fill = vptr[:f].copy()
    vr = np.empty(nv, np.int64)
    vj = np.empty(nv, np.int64)
    vc = np.empty(nv, np.int64)
    for e in range(r.shape[0]):  # stable by independent column
        k = pos[c[e]]
        if k >= m:
            b = fill[k - m]
            vr[b] = r[e]
            vj[b] = k - m
            vc[b] = c[e]
            fill[k - m] += 1
    pidx = np.empty(3 + 3 * nu + 3 * nv + f + 1, np.uint32)
    pidx[0] = nu
    pidx[1] = nv
    pidx[2] = f
    o = 3
    for arr in (ur, uk, uc, vr, vj, vc, vptr):
        for i in range(arr.shape[0]):
            pidx[o + i] = arr[i]
        o += arr.shape[0]
    return pidx, ur, uc, uk


def _carry_column_order(old_dep, new_dep, pcol_old):
    """Column order for Φu after a rebase: the dependent coordinates in the order the last
    analysis eliminated them, each one that left the set replaced in place by one that came in
    (a rebase swaps one or two)."""
    local = {c: k for k, c in enumerate(new_dep.tolist())}
    before = set(old_dep.tolist())
    incoming = [k for k, c in enumerate(new_dep.tolist()) if c not in before]
    old_cols = old_dep.tolist()
    order = []
    for j in pcol_old.tolist():
        k = local.get(old_cols[j])
        order.append(incoming.pop(0) if k is None else k)
    return np.array(order, np.int64)


class _RetiredFactors:
    """Fallbacks of the Φu factors replaced at a rebase (so that ``nfallback`` keeps them)."""

    count = 0
    last_fallback = -1

    @property
    def nfallback(self) -> int:
        return self.count


@register_solver("li-euler-indep")
class LIEulerIndep(Solver):
    """Linearly implicit Euler in independent coordinates (seed 000 Algorithm 2).

    Options
    -------
    B : "partition" (default, coordinate partitioning) | "qr" (seed 003 eqs. 4.11-4.12)
    jacobian : "stiff" (default) | "all"
    stabilize : "projection" (default, eq. 30) | "none" | "baumgarte" (b = −Φt − γ_B Φ, eq. 5);
        ignored when m = 0
    projection_solve : "kkt" (eq. 30, default) | "T" (Δq* − Δq = S(−Φ): reuses [Φq; B]'s factors)
    baumgarte_gamma : float or None (1/h)
    position_update : "implicit" (default: Δq = h(q̇ + Δq̇), positions follow the new velocity; runs
        the whip of ``spatial-chain-10`` where the seed's form diverges) | "explicit" (Δq = h q̇,
        seed 000 Table 2)
    independent : list of f coordinate indices (B="partition" only): the initial independent
        coordinates instead of the automatic choice (a rebase then chooses automatically)
    rebase : bool, default True; rebase_tol : float, default 0.1
    multipliers : bool, default True (compute λ)
    linear_solver : "auto" (sparse for B="partition" when the system has fixed patterns and
        n >= 18) | "dense" | "sparse" (B="partition" only): Φu by ``rtmbs.solvers.sparse`` with
        its pattern, ordering and pivots fixed at each choice of B; R, Rᵀ A R as sparse products
    """

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(
            B="partition", jacobian="stiff", stabilize="projection", projection_solve="kkt",
            baumgarte_gamma=None, rebase=True, rebase_tol=0.1, multipliers=True,
            independent=None, linear_solver="auto",
            position_update="implicit"))
        check_choice(self.name, "position_update", o["position_update"], ("explicit", "implicit"))
        self.implicit = o["position_update"] == "implicit"
        check_choice(self.name, "B", o["B"], ("qr", "partition"))
        check_choice(self.name, "jacobian", o["jacobian"], ("stiff", "all"))
        check_choice(self.name, "stabilize", o["stabilize"], ("none", "projection", "baumgarte"))
        check_choice(self.name, "projection_solve", o["projection_solve"], ("kkt", "T"))
        check_positive(self.name, "rebase_tol", o["rebase_tol"])
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        if o["linear_solver"] == "sparse" and o["B"] != "partition":
            raise SolverError(f"solver '{self.name}': option linear_solver='sparse' needs "
                              f"B='partition' (B={o['B']!r} is dense only)")
        self.sparse = (o["B"] == "partition"
                       and choose_linear_solver(self.name, system, o["linear_solver"]))
        self.jac_all = o["jacobian"] == "all"
        if o["baumgarte_gamma"] is not None:
            check_positive(self.name, "baumgarte_gamma", o["baumgarte_gamma"], allow_zero=True)
        self.B_mode = o["B"]
        self.jac_flag = EVAL_JAC_STIFF if o["jacobian"] == "stiff" else EVAL_JAC
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        self.projection_solve = o["projection_solve"]
        self.baumgarte_gamma = o["baumgarte_gamma"]
        self.rebase = bool(o["rebase"])
        self.rebase_tol = float(o["rebase_tol"])
        self.multipliers = bool(o["multipliers"])
        self.nrebase = 0
        self._retired = _RetiredFactors()
        ind = o["independent"]
        if ind is not None:
            if self.B_mode != "partition":
                raise SolverError(f"solver '{self.name}': option independent= needs B='partition'")
            ind = [int(i) for i in ind]
            f = system.n - system.m
            if len(ind) != f or len(set(ind)) != f or not all(0 <= i < system.n for i in ind):
                raise SolverError(
                    f"solver '{self.name}': option independent={ind!r}, expected {f} distinct "
                    f"coordinate indices in 0..{system.n - 1}")
        self.independent = ind

    # -- setup ---------------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        n, m = self.system.n, self.system.m
        f = n - m
        if f < 0:
            raise SolverError(f"solver '{self.name}': system '{self.system.name}' has more "
                              f"constraints (m = {m}) than coordinates (n = {n})")
        self.f = f
        self.nrebase = 0
        self.B = np.zeros((f, n))
        self.K = np.zeros((n, n))
        self.piv = np.zeros(n, np.int64)
        self.qr_w = np.zeros((n, m))
        self.qr_v = np.zeros((m, n))
        self.qr_beta = np.zeros(m)
        self.cols = np.arange(n, dtype=np.int64)
        self.part_w = np.zeros((m, n))
        self.Fu = np.zeros((m, m))
        self.fpiv = np.zeros(m, np.int64)
        self.Xt = np.zeros((f, m))
        self.tmp_m = np.zeros(m)
        self.Rt = np.zeros((f, n))
        self.Sc = np.zeros(n)
        self.A = np.zeros((n, n))
        self.ARt = np.zeros((f, n))
        self.H = np.zeros((f, f))
        self.hpiv = np.zeros(f, np.int64)
        self.r = np.zeros(n)
        self.x = np.zeros(n)
        self.w = np.zeros(n)
        self.dzd = np.zeros(f)
        self.dqd = np.zeros(n)
        self.dq = np.zeros(n)
        self.qp = np.zeros(n)
        self.qd_pred = np.zeros(n)
        self.zd = np.zeros(f)
        self.q_last = np.zeros(n)
        self.qd_last = np.zeros(n)
        self.zero_m = np.zeros(m)
        self.ws1 = self.system.workspace()
        self.proj = Projector(n, m)
        self.lam = np.zeros(m)
        self.what_end = EVAL_PHIQ | (EVAL_PHI if self.stabilize == "baumgarte" else 0)
        self.what0 = EVAL_M | EVAL_Q | EVAL_GAMMA
        self.ratio = 1.0
        self.ratio_ref = 1.0
        self._h = None
        if self.sparse:
            sysm = self.system
            ap = np.asarray(sysm.mass_pattern, bool) | np.asarray(
                sysm.jacobian_pattern(not self.jac_all), bool)
            ai, aj = np.nonzero(ap)
            self.aidx = np.concatenate([[ai.size], ai, aj]).astype(np.uint32)
            self.Aval = np.zeros(ai.size)
            self.Rn = np.zeros((n, f))
            self.AR = np.zeros((n, f))
            self.Xm = np.zeros((m, f + 1))
            self.Wm = np.zeros((m, f + 1))
            self.splu = None
            if self.stabilize == "projection" and self.projection_solve == "kkt":
                pp = np.asarray(sysm.phiq_pattern, bool)
                self.proj = SparseProjector(np.asarray(sysm.mass_pattern, bool), pp)
                evaluate(self, self.ws, state.t, state.q, state.qd, EVAL_M | EVAL_PHIQ)
                self.proj.kkt.factor(self.ws.M, self.ws.M, self.ws.M, 0.0, 0.0, self.ws.phiq,
                                     H_ANALYSIS, self.ws.phiq)
        # B at q0 (seed 003 eqs. 4.11-4.12 or partitioning), ż0 = B q̇0, q̇0 = S b + R ż0
        evaluate(self, self.ws, state.t, state.q, state.qd, self.what_end)
        self._choose_B(state.t, self.independent)
        self._map_velocity(state.qd, state.qd)
        self.q_last[:] = state.q
        self.qd_last[:] = state.qd

    def _gb(self, h):
        if self.stabilize != "baumgarte":
            return 0.0
        if self.baumgarte_gamma is not None:
            return float(self.baumgarte_gamma)
        return 1.0 / h if h else 0.0

    def _choose_B(self, t, independent=None) -> None:
        """Choose B at the configuration whose Φq is in ``self.ws`` and factorise."""
        phiq = self.ws.phiq
        if self.B_mode == "qr":
            sel = null_basis_qr(phiq, self.qr_w, self.qr_v, self.qr_beta, self.B)
        elif independent is not None:
            dep = [i for i in range(self.system.n) if i not in independent]
            self.cols[:] = dep + sorted(independent)
            sel = _p_factor(phiq, self.cols, self.Fu, self.fpiv)
        else:
            sel = select_partition(phiq, self.part_w, self.cols)
        if sel < SINGULAR_PIVOT_RATIO:
            raise RedundantConstraintError(
                f"solver '{self.name}': the constraint Jacobian of '{self.system.name}' is rank "
                f"deficient at t = {t:g} (pivot ratio {sel:.3g}); expected full row rank "
                f"m = {self.system.m}")
        if self.sparse:
            self._sp_analyse_partition()
        self.ratio = self.ratio_ref = self._factor_T()

    def _sp_analyse_partition(self) -> None:
        """Patterns of Φu and Φv for the current ``cols``; ordering and pivots of Φu at the
        current Φq (at reset and at each rebase: allocates)."""
        n, m, f = self.system.n, self.system.m, self.f
        if getattr(self, "_phiq_nz", None) is None:
            self._phiq_nz = [a.astype(np.int64) for a in
                             np.nonzero(np.asarray(self.system.phiq_pattern, bool))]
        r, c = self._phiq_nz
        self.pidx, ur, uc, uk = _partition_index(r, c, self.cols, m, f)
        old = self.splu
        columns = None
        if old is not None:  # a rebase: keep the fill-reducing column order of the last analysis
            self._retired.count += old.nfallback  # (and its fallbacks in the count)
            columns = _carry_column_order(self._cols_dep, self.cols[:m], old.column_order)
        self._cols_dep = self.cols[:m].copy()
        self.splu = SparseLU(m, ur, uk)
        self.splu.ax[:] = self.ws.phiq[ur, uc]
        nan = old.nanalyse if old is not None else 0
        try:
            self.splu.analyse(columns=columns)
            if old is None:  # load the rebase's compiled code now, not in the first rebase step
                threshold_rows(ur, uk, self.splu.ax, self.splu.column_order, 0.01)
        except np.linalg.LinAlgError:
            raise RedundantConstraintError(
                f"solver '{self.name}': Φu of '{self.system.name}' is singular for the chosen "
                f"dependent coordinates; expected full row rank m = {m}") from None
        self.splu.nanalyse += nan

    def _factor_T(self) -> float:
        if self.B_mode == "qr":
            ratio = _qr_factor(self.ws.phiq, self.B, self.K, self.piv)
        elif self.sparse:
            lu = self.splu
            # static pivots (never a re-analysis); a degraded Φu shows in the ratio: rebase
            ratio, lratio, growth = _sp_p_factor(lu.ib, lu.fb, self.pidx, self.ws.phiq)
            lu.ratio, lu.growth = lratio, growth
        else:
            ratio = _p_factor(self.ws.phiq, self.cols, self.Fu, self.fpiv)
        self.nfactor += 1
        return ratio

    def _sparse_factors(self):
        proj = self.proj.kkt.lu if isinstance(getattr(self, "proj", None), SparseProjector) else None
        return (getattr(self, "splu", None), proj, getattr(self, "_retired", None))

    @property
    def nanalyse(self) -> int:
        """Analyses of the sparse factors after ``reset``, not counting those of a rebase (the
        projection matrix's: none is ever repeated; 0 on the dense path)."""
        if self.sparse and isinstance(self.proj, SparseProjector):
            return self.proj.nanalyse - 1
        return 0

    def _map_velocity(self, qd_src, qd_out, h=None) -> None:
        """ż = B q̇_src, then q̇_out = S b + R ż (at the factorised configuration)."""
        if self.B_mode == "qr":
            _qr_zd(self.B, qd_src, self.zd)
        else:
            _p_zd(self.cols, qd_src, self.zd)
        self._velocity(qd_out, self._gb(h or self._h))

    def _velocity(self, qd, gb) -> None:
        ws = self.ws
        phi = ws.phi if gb else self.zero_m
        if self.B_mode == "qr":
            _qr_velocity(self.K, self.piv, ws.phit, phi, gb, self.zd, qd)
        elif self.sparse:
            _sp_p_velocity(self.splu.ib, self.splu.fb, self.pidx, ws.phiq, self.cols, ws.phit,
                           phi, gb, self.zd, qd, self.tmp_m)
        else:
            _p_velocity(self.Fu, self.fpiv, ws.phiq, self.cols, ws.phit, phi, gb, self.zd, qd,
                        self.tmp_m)
        self.nsolve += 1

    # -- step ----------------------------------------------------------------------------
    def _step_impl(self, state: State, h: float):
        ws = self.ws
        q, qd, t = state.q, state.qd, state.t
        self._h = h
        if not _unchanged(q, qd, self.q_last, self.qd_last):
            # the caller changed the state: re-factorise at q and take ż from its q̇ (rare)
            evaluate(self, ws, t, q, qd, self.what_end)
            self.ratio = self._factor_T()
            self._map_velocity(qd, qd, h)
        self._tic()
        evaluate(self, ws, t, q, qd, self.what0)
        self._toc("evaluation")
        evaluate(self, ws, t, q, qd, self.jac_flag)
        self._toc("jacobians")
        if self.sparse:
            hr = self._sp_middle(ws, qd, h)
        else:
            hr = self._dense_middle(ws, qd, h)
        _position_increment(qd, self.dqd, h, self.implicit, self.dq)
        self._toc("solve")
        ok = hr > 0.0
        if self.stabilize == "projection":
            np.add(q, self.dq, out=self.qp)
            kkt = self.projection_solve == "kkt"
            evaluate(self, self.ws1, t + h, self.qp, qd, EVAL_PHI | (EVAL_PHIQ if kkt else 0))
            if kkt:  # Newton step at q + Δq (see li_euler.py): quadratic in Φ(q + Δq)
                ok &= self.proj.correct(ws.M, self.ws1.phiq, self.ws1.phi, h, self.dq)
                self.nfactor += 1
            elif self.B_mode == "qr":
                _qr_project_T(self.K, self.piv, self.ws1.phi, self.x, self.dq)
            elif self.sparse:
                _sp_p_project_T(self.splu.ib, self.splu.fb, self.ws1.phi, self.cols, self.tmp_m,
                                self.dq)
            else:
                _p_project_T(self.Fu, self.fpiv, self.ws1.phi, self.cols, self.tmp_m, self.dq)
            self.nsolve += 1
            self._toc("projection")
        return self._step_end(state, q, qd, t, h, ok)

    def _sp_middle(self, ws, qd, h) -> float:
        lu = self.splu
        mult = self.multipliers and self.system.m > 0
        hr = _sp_p_middle(lu.ib, lu.fb, self.pidx, self.aidx, ws.phiq, ws.M, ws.Jq, ws.Jqd, ws.Q,
                          ws.gamma, qd, self.cols, h, self.Rn, self.Sc, self.Aval, self.AR,
                          self.H, self.hpiv, self.r, self.w, self.dzd, self.dqd, self.x,
                          self.tmp_m, self.lam, mult, self.Xm, self.Wm)
        self.nsolve += self.f + 1
        self.nfactor += 1
        self.nsolve += 2 if mult else 1
        self._toc("factorisation")
        return hr

    def _dense_middle(self, ws, qd, h) -> float:
        f = self.f
        # R and S c at q (eqs. 24-25)
        if self.B_mode == "qr":
            _qr_R_Sc(self.K, self.piv, ws.gamma, self.Rt, self.Sc)
        else:
            _p_R_Sc(self.Fu, self.fpiv, ws.phiq, self.cols, ws.gamma, self.Xt, self.Rt, self.Sc,
                    self.tmp_m)
        self.nsolve += f + 1
        self._toc("solve")
        hr = _reduced_factor(ws.M, ws.Jq, ws.Jqd, h, self.Rt, self.A, self.ARt, self.H, self.hpiv)
        self.nfactor += 1
        self._toc("factorisation")
        _reduced_solve(self.H, self.hpiv, ws.Q, ws.Jq, qd, self.A, self.Rt, self.Sc, h, self.r,
                       self.w, self.dzd, self.dqd)
        self.nsolve += 1
        if self.multipliers and self.system.m:
            _lambda_rhs(self.r, self.A, self.dqd, self.x)
            if self.B_mode == "qr":
                _qr_lambda(self.K, self.piv, self.x, self.lam, h)
            else:
                _p_lambda(self.Fu, self.fpiv, self.cols, self.x, self.tmp_m, self.lam, h)
            self.nsolve += 1
        return hr

    def _step_end(self, state, q, qd, t, h, ok):
        ws = self.ws
        # Euler step of (q, ż) (Table 2), predicted dependent velocities for a re-mapping
        _euler_update(q, self.dq, self.zd, self.dzd, qd, self.dqd, self.qd_pred)
        t1 = t + h
        state.t = t1
        self._toc("other")
        # T at the new positions, conditioning check, q̇ = S b + R ż
        evaluate(self, ws, t1, q, qd, self.what_end)
        self._toc("evaluation")
        self.ratio = self._factor_T()
        if self.rebase and self.ratio < self.rebase_tol * self.ratio_ref:
            self.nrebase += 1
            self._choose_B(t1)
            if self.B_mode == "qr":
                _qr_zd(self.B, self.qd_pred, self.zd)
            else:
                _p_zd(self.cols, self.qd_pred, self.zd)
        self._toc("factorisation")
        self._velocity(qd, self._gb(h))
        _keep(q, qd, self.q_last, self.qd_last)
        self._toc("solve")
        return ok and self.ratio > 0.0
