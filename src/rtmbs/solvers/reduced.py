"""Algorithm 2's reduced system (seed 000 eqs. 26-28, 18) with A dense or on its fixed pattern.

    Rᵀ A R Δż = Rᵀ (hQ + h²Jq q̇) − Rᵀ A h S c,   A = M − hJq̇ − h²Jq             (eq. 28)
    Δq̇ = h S c + R Δż (eq. 26),   hΦqᵀλ = hQ + h²Jq q̇ − A Δq̇                    (eq. 18)

:func:`reduced` and :func:`lambda_rhs` are numba overloads (as ``factorisation``) that choose from
the type of ``aidx`` when the caller (``compiled_indep._middle``) is compiled: dense (``aidx``
None, ``mats`` = (M, Jq, Jq̇) as (n, n) arrays) or on the entries of A (``aidx`` a
:class:`~rtmbs.solvers.sparse.PackedKKTMap` index, ``mats`` the flat buffer it reads: a packed
workspace or a dense one, ``rtmbs.solvers.storage``). Both forms add in the same order (the
entries form skips the zeros of R), so on the same matrices they give the same numbers.
"""
from __future__ import annotations

from numba import njit, types
from numba.extending import overload

from .li_euler import li_matrix
from .linalg import lu_factor, lu_solve
from .products import sub_mv
from .sparse import _packed_parts


# A = M − hJq̇ − h²Jq on its entries ``aidx`` (a PackedKKTMap index: rows, columns and the flat
# places of M, Jq, Jq̇ in ``buf``; sparse: mass | force Jacobian pattern) into ``Aval`` (na,) with
# A R in ``AR`` (n, f), or dense (``aidx`` None: A in ``Aval`` (n, n), (A R)ᵀ in ``AR`` (f, n));
# the overloads ``reduced``/``lambda_rhs`` choose by the type of ``aidx``. R is kept as Rn (n, f).
@njit(cache=True)
def _reduced_entries(aidx, buf, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd):
    """A on its entries, H = Rᵀ(A R) (zeros of R skipped), factor, solve eq. 28 for Δż;
    r = hQ + h²Jq q̇ (kept for λ); Δq̇ = h S c + R Δż (eq. 26). Returns the pivot ratio of H."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(aidx)
    na = ai.shape[0]
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
        k = aq[e]
        jq = buf[k]
        a = buf[am[e]] - h * buf[k + dj] - h2 * jq
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
def _reduced_dense(M, Jq, Jqd, Q, qd, h, Rn, Sc, A, ARt, H, hpiv, r, w, dzd, dqd):
    """:func:`_reduced_entries` with dense A (n, n) and (A R)ᵀ (f, n)."""
    n, f = Rn.shape
    h2 = h * h
    li_matrix(M, Jq, Jqd, h, A)
    for j in range(f):
        for i in range(n):
            s = 0.0
            for k in range(n):
                s += A[i, k] * Rn[k, j]
            ARt[j, i] = s
    for a in range(f):
        for b in range(f):
            s = 0.0
            for i in range(n):
                s += Rn[i, a] * ARt[b, i]
            H[a, b] = s
    hr = lu_factor(H, hpiv)
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
            s += Rn[i, a] * w[i]
        dzd[a] = s
    lu_solve(H, hpiv, dzd)
    for i in range(n):
        s = h * Sc[i]
        for a in range(f):
            s += Rn[i, a] * dzd[a]
        dqd[i] = s
    return hr


@njit(cache=True)
def _lambda_rhs_entries(aidx, Aval, r, dqd, x):
    """x = r − A Δq̇ = hΦqᵀλ over the entries of A (eq. 18)."""
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(aidx)
    na = ai.shape[0]
    for i in range(x.shape[0]):
        x[i] = r[i]
    for e in range(na):
        x[ai[e]] -= Aval[e] * dqd[aj[e]]


def reduced(aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd):
    """Eq. 28 (A, H = RᵀAR factorised, Δż, Δq̇), dense (``mats`` = (M, Jq, Jq̇)) or on the entries
    of A (``mats`` = the flat buffer ``aidx`` reads)."""
    raise NotImplementedError("numba only")


def lambda_rhs(aidx, Aval, r, dqd, x):
    """x = r − A Δq̇ = hΦqᵀλ (eq. 18), dense or on the entries of A."""
    raise NotImplementedError("numba only")


@overload(reduced)
def _ov_reduced(aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd):
    if isinstance(aidx, types.NoneType):
        return (lambda aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd:
                _reduced_dense(mats[0], mats[1], mats[2], Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r,
                               w, dzd, dqd))
    return (lambda aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd:
            _reduced_entries(aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd))


@overload(lambda_rhs)
def _ov_lambda_rhs(aidx, Aval, r, dqd, x):
    if isinstance(aidx, types.NoneType):
        def impl(aidx, Aval, r, dqd, x):
            for i in range(x.shape[0]):
                x[i] = r[i]
            sub_mv(None, Aval, dqd, x)
        return impl
    return lambda aidx, Aval, r, dqd, x: _lambda_rhs_entries(aidx, Aval, r, dqd, x)
