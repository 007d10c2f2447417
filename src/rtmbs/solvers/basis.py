"""Algorithm 2's ways of choosing B (seed 000 eq. 24: T = [S R] = [Φq; B]⁻¹), behind one interface.

A basis object offers, in Python (at ``reset`` and at a rebase; may allocate):

* ``choose(phiq, independent=None)``: choose B at the configuration of ``phiq``; returns the pivot
  ratio of that choice (near 0: Φq rank deficient);
* ``prepare(phiq)``: set up the factorisation for that B (the sparse Φu is analysed here; raises
  ``numpy.linalg.LinAlgError`` when it is singular);

and holds the arrays of its compiled kernels in the tuple ``args``. The kernels are overloads on
that tuple (a ``QRBasis`` tuple has 4 arrays, a ``PartitionBasis`` tuple 7), so the method is
written once (``li_euler_indep``) and each kernel is one compiled call per step:

* :func:`b_factor` (T⁻¹ or Φu, returns the pivot ratio), :func:`b_R_Sc` (R as an (n, f) array and
  S c, eqs. 24-25), :func:`b_velocity` (q̇ = S b + R ż), :func:`b_zd` (ż = B q̇), :func:`b_lambda`
  (λ from a transposed solve, eq. 18), :func:`b_project_T` (Δq += S(−Φ)).

Ways:

* "qr" (:class:`QRBasis`, seed 003 eqs. 4.11-4.12): B = the right n × f block of C1 in
  Φqᵀ(q0) = C1 C2, transposed; [Φq; B] (n × n) is factorised densely every step.
* "partition" (:class:`PartitionBasis`): B = rows of the identity at f independent coordinates v
  chosen by Gaussian elimination with rook pivoting of Φq (coordinate partitioning,
  ``linalg.select_partition``); then R = [−Φu⁻¹Φv; I], S = [Φu⁻¹; 0], and only Φu (m × m) is
  factorised, dense or on its fixed pattern (``factorisation.SquareFactorisation``; a rebase
  re-analyses it, keeping the column order of the last analysis where the coordinates stay, or
  keeps the analysis when the partition and the threshold-pivoting rows are unchanged).
  Its kernels take Φq as ``(w, idx)``: a flat buffer (packed blocks or a dense workspace) and a
  ``PackedKKTMap`` index of the entries of its pattern (``rtmbs.solvers.storage``; ``reader``
  makes one for a dense array). ``choose``/``prepare`` take a dense Φq (at reset and rebase).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from .factorisation import (
    f_pivot_range, f_refactor, f_set, f_solve, f_solve_cols, f_solve_t, make_square,
)
from .linalg import lu_factor, lu_solve, lu_solve_t, null_basis_qr, select_partition
from .sparse import _index_given_columns, lu_rereference, threshold_rows
from .storage import phiq_at, phiq_index, phiq_reader

_QR_ARGS = 4  # (K, piv, B, xn)
_PARTITION_ARGS = 7  # (fa, fb, pidx, cols, X, W, tmp)


# -- B = QR: T⁻¹ = [Φq; B] -----------------------------------------------------------------------
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
def _qr_R_Sc(K, piv, gamma, Rn, Sc, xn):
    """Columns of R = T[0; I]; Sc = T[c; 0]."""
    n, f = Rn.shape
    m = n - f
    for j in range(f):
        for i in range(n):
            xn[i] = 0.0
        xn[m + j] = 1.0
        lu_solve(K, piv, xn)
        for i in range(n):
            Rn[i, j] = xn[i]
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


# -- B = partition: Φu (dense or sparse factors (fa, fb)) ----------------------------------------
# ``pidx`` (uint32) = [nu, nv, f, ur, uk, ue, vr, vj, ve, vptr]: the entries of Φq in the dependent
# columns (row, position in Φu, entry number) and in the independent ones (row, position in v,
# entry number; sorted by position, vptr[j]..vptr[j+1] for v_j). Dense: every entry of Φq.
# Φq is read as ``pq`` = (w, idx): entry e of the pattern is ``phiq_at(w, zptr, zidx, e)``
# (``rtmbs.solvers.storage``: a packed workspace or a dense one, the same kernel).
@njit(cache=True)
def _pidx_parts(pidx):
    nu = np.intp(pidx[0])
    nv = np.intp(pidx[1])
    f = np.intp(pidx[2])
    o = 3
    ur = pidx[o:o + nu]
    uk = pidx[o + nu:o + 2 * nu]
    ue = pidx[o + 2 * nu:o + 3 * nu]
    o += 3 * nu
    vr = pidx[o:o + nv]
    vj = pidx[o + nv:o + 2 * nv]
    ve = pidx[o + 2 * nv:o + 3 * nv]
    vptr = pidx[o + 3 * nv:o + 3 * nv + f + 1]
    return ur, uk, ue, vr, vj, ve, vptr


@njit(cache=True, error_model="numpy")
def _p_factor(fa, fb, pidx, w, idx, m):
    """Gather Φu and factorise. Returns (min|u_kk| / max(|u_kk|, |Φq_ij|): the pivot ratio
    measured against the whole Φq, so that it also detects a singular Φu of size 1; the pivot
    ratio of the LU; its largest multiplier)."""
    ur, uk, ue, vr, vj, ve, vptr = _pidx_parts(pidx)
    zptr, zidx = phiq_index(idx)
    big = 0.0
    for e in range(ur.shape[0]):
        v = phiq_at(w, zptr, zidx, ue[e])
        f_set(fa, fb, e, ur[e], uk[e], v)
        if abs(v) > big:
            big = abs(v)
    for e in range(vr.shape[0]):
        v = abs(phiq_at(w, zptr, zidx, ve[e]))
        if v > big:
            big = v
    ratio, growth = f_refactor(fa, fb)
    return _p_ratio(fa, fb, ratio, growth, big, m)


@njit(cache=True, error_model="numpy")
def _p_ratio(fa, fb, ratio, growth, big, m):
    if ratio == 0.0:
        return 0.0, 0.0, growth
    umin, umax = f_pivot_range(fa, fb)
    if umax > big:
        big = umax
    if m == 0:
        return 1.0, ratio, growth
    return umin / big, ratio, growth


@njit(cache=True, error_model="numpy")
def _p_factor_dense(a, piv, phiq, cols, m):
    """:func:`_p_factor`'s pivot ratio for Φu = Φq[:, cols[:m]] of a dense (m, n) Φq (the check of
    given independent coordinates at ``reset``)."""
    big = 0.0
    for i in range(m):
        for j in range(phiq.shape[1]):
            big = max(big, abs(phiq[i, j]))
        for k in range(m):
            a[i, k] = phiq[i, cols[k]]
    ratio, growth = f_refactor(a, piv)
    return _p_ratio(a, piv, ratio, growth, big, m)


@njit(cache=True)
def _p_R_Sc(fa, fb, pidx, w, idx, cols, gamma, Rn, Sc, X, W):
    """R = [−Φu⁻¹Φv; I] as Rn (n, f), Sc = [Φu⁻¹c; 0]: one solve with the f + 1 right-hand sides
    [Φv c] as the columns of X (m, f + 1)."""
    ur, uk, ue, vr, vj, ve, vptr = _pidx_parts(pidx)
    zptr, zidx = phiq_index(idx)
    n, f = Rn.shape
    m = n - f
    for i in range(m):
        for j in range(f):
            X[i, j] = 0.0
        X[i, f] = gamma[i]
    for e in range(vr.shape[0]):
        X[vr[e], vj[e]] = phiq_at(w, zptr, zidx, ve[e])
    f_solve_cols(fa, fb, X, W)
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
def _p_velocity(fa, fb, pidx, w, idx, cols, phit, phi, gb, zd, qd, tmp):
    """q̇_v = ż, Φu q̇_u = b − Φv ż."""
    ur, uk, ue, vr, vj, ve, vptr = _pidx_parts(pidx)
    zptr, zidx = phiq_index(idx)
    m = phit.shape[0]
    f = zd.shape[0]
    for i in range(m):
        tmp[i] = -phit[i] - gb * phi[i]
    for e in range(vr.shape[0]):
        tmp[vr[e]] -= phiq_at(w, zptr, zidx, ve[e]) * zd[vj[e]]
    f_solve(fa, fb, tmp)
    for k in range(m):
        qd[cols[k]] = tmp[k]
    for k in range(f):
        qd[cols[m + k]] = zd[k]


@njit(cache=True)
def _p_zd(cols, qd, zd):
    m = cols.shape[0] - zd.shape[0]
    for k in range(zd.shape[0]):
        zd[k] = qd[cols[m + k]]


@njit(cache=True)
def _p_lambda(fa, fb, cols, x, tmp, lam, h):
    m = tmp.shape[0]
    for k in range(m):
        tmp[k] = x[cols[k]]
    f_solve_t(fa, fb, tmp)
    for i in range(m):
        lam[i] = tmp[i] / h


@njit(cache=True)
def _p_project_T(fa, fb, phi, cols, tmp, dq):
    m = phi.shape[0]
    for i in range(m):
        tmp[i] = -phi[i]
    f_solve(fa, fb, tmp)
    for k in range(m):
        dq[cols[k]] += tmp[k]


# -- the interface: overloads on the basis tuple -------------------------------------------------
def _qr(basis) -> bool:
    return isinstance(basis, types.BaseTuple) and len(basis) == _QR_ARGS


def b_factor(basis, phiq):
    """Factorise T⁻¹ = [Φq; B] (qr) or Φu (partition): (pivot ratio, LU pivot ratio, growth).
    ``phiq``: the dense (m, n) array (qr) or ``(w, idx)`` (partition: ``_pidx_parts``)."""
    raise NotImplementedError("numba only")


def b_R_Sc(basis, phiq, gamma, Rn, Sc):
    """R (n, f) and S c at the factorised configuration (eqs. 24-25)."""
    raise NotImplementedError("numba only")


def b_velocity(basis, phiq, phit, phi, gb, zd, qd):
    """q̇ = S b + R ż, b = −Φt − γ_B Φ (eq. 24)."""
    raise NotImplementedError("numba only")


def b_zd(basis, qd, zd):
    """ż = B q̇."""
    raise NotImplementedError("numba only")


def b_lambda(basis, x, lam, h):
    """λ = Sᵀx / h (x = hΦqᵀλ, eq. 18; x is overwritten for qr)."""
    raise NotImplementedError("numba only")


def b_project_T(basis, phi, dq):
    """Δq += S(−Φ) (projection with the factors of T⁻¹ or Φu)."""
    raise NotImplementedError("numba only")


@overload(b_factor)
def _ov_factor(basis, phiq):
    if _qr(basis):
        def impl(basis, phiq):
            K, piv, B, xn = basis
            r = _qr_factor(phiq, B, K, piv)
            return r, r, 0.0
        return impl

    def impl_p(basis, phiq):
        fa, fb, pidx, cols, X, W, tmp = basis
        return _p_factor(fa, fb, pidx, phiq[0], phiq[1], tmp.shape[0])
    return impl_p


@overload(b_R_Sc)
def _ov_R_Sc(basis, phiq, gamma, Rn, Sc):
    if _qr(basis):
        def impl(basis, phiq, gamma, Rn, Sc):
            K, piv, B, xn = basis
            _qr_R_Sc(K, piv, gamma, Rn, Sc, xn)
        return impl

    def impl_p(basis, phiq, gamma, Rn, Sc):
        fa, fb, pidx, cols, X, W, tmp = basis
        _p_R_Sc(fa, fb, pidx, phiq[0], phiq[1], cols, gamma, Rn, Sc, X, W)
    return impl_p


@overload(b_velocity)
def _ov_velocity(basis, phiq, phit, phi, gb, zd, qd):
    if _qr(basis):
        def impl(basis, phiq, phit, phi, gb, zd, qd):
            K, piv, B, xn = basis
            _qr_velocity(K, piv, phit, phi, gb, zd, qd)
        return impl

    def impl_p(basis, phiq, phit, phi, gb, zd, qd):
        fa, fb, pidx, cols, X, W, tmp = basis
        _p_velocity(fa, fb, pidx, phiq[0], phiq[1], cols, phit, phi, gb, zd, qd, tmp)
    return impl_p


@overload(b_zd)
def _ov_zd(basis, qd, zd):
    if _qr(basis):
        return lambda basis, qd, zd: _qr_zd(basis[2], qd, zd)
    return lambda basis, qd, zd: _p_zd(basis[3], qd, zd)


@overload(b_lambda)
def _ov_lambda(basis, x, lam, h):
    if _qr(basis):
        return lambda basis, x, lam, h: _qr_lambda(basis[0], basis[1], x, lam, h)
    return lambda basis, x, lam, h: _p_lambda(basis[0], basis[1], basis[3], x, basis[6], lam, h)


@overload(b_project_T)
def _ov_project_T(basis, phi, dq):
    if _qr(basis):
        return lambda basis, phi, dq: _qr_project_T(basis[0], basis[1], phi, basis[3], dq)
    return lambda basis, phi, dq: _p_project_T(basis[0], basis[1], phi, basis[3], basis[6], dq)


# entry points from Python (one compiled call each)
@njit(cache=True)
def factor_T(basis, phiq):
    return b_factor(basis, phiq)


@njit(cache=True)
def velocity(basis, phiq, phit, phi, gb, zd, qd):
    b_velocity(basis, phiq, phit, phi, gb, zd, qd)


@njit(cache=True)
def zd_of(basis, qd, zd):
    b_zd(basis, qd, zd)


@njit(cache=True)
def project_T(basis, phi, dq):
    b_project_T(basis, phi, dq)


@njit(cache=True)
def R_Sc(basis, phiq, gamma, Rn, Sc):
    """R and S c alone (the solver computes them inside its one-call step; for tests and tools)."""
    b_R_Sc(basis, phiq, gamma, Rn, Sc)


@njit(cache=True)
def lambda_of(basis, x, lam, h):
    b_lambda(basis, x, lam, h)


# -- the Python objects --------------------------------------------------------------------------
class QRBasis:
    """B from the QR decomposition of Φqᵀ (seed 003 eqs. 4.11-4.12); dense [Φq; B] factors."""

    mode = "qr"
    sparse = False

    def __init__(self, n: int, m: int):
        f = n - m
        self.B = np.zeros((f, n))
        self.K = np.zeros((n, n))
        self.piv = np.zeros(n, np.int64)
        self.work = (np.zeros((n, m)), np.zeros((m, n)), np.zeros(m))
        self.args = (self.K, self.piv, self.B, np.zeros(n))

    def choose(self, phiq, independent=None) -> float:
        return null_basis_qr(phiq, *self.work, self.B)

    def prepare(self, phiq) -> None:
        pass

    def factors(self) -> tuple:
        return ()

    def reader(self, phiq):
        """The kernels' Φq argument: the dense (m, n) array itself."""
        return phiq


class PartitionBasis:
    """B = rows of the identity at independent coordinates (coordinate partitioning); Φu dense or,
    with ``phiq_pattern``, on its fixed pattern (``sparse``).

    ``cols``: dependent coordinates first (``cols[:m]``), then the independent ones; ``lu``: the
    SparseLU of Φu (None when dense); ``nretired``: fallbacks of the Φu factors replaced at a
    rebase (so that the solver's ``nfallback`` keeps them)."""

    mode = "partition"

    def __init__(self, n: int, m: int, phiq_pattern=None):
        f = n - m
        self.n, self.m, self.f = n, m, f
        self.sparse = phiq_pattern is not None
        pattern = np.ones((m, n), bool) if phiq_pattern is None else np.asarray(phiq_pattern, bool)
        self._nz = [a.astype(np.int64) for a in np.nonzero(pattern)]  # the entries e of Φq
        self.cols = np.arange(n, dtype=np.int64)
        self.X = np.zeros((m, f + 1))
        self.W = np.zeros((m, f + 1))
        self.tmp = np.zeros(m)
        self.fac = None if self.sparse else make_square(m, None, None, sparse=False)
        self.nretired = 0
        self.args = None
        self.keep_same = True  # (False: every rebase re-analyses Φu, as before issue 11's reuse)
        self.nsame = 0
        self.nrows = 0  # (rebases to the same partition whose row pivots changed: analysed)

    @property
    def pattern(self) -> np.ndarray:
        """The entries of Φq the kernels read (m, n) bool (made on request, not kept)."""
        out = np.zeros((self.m, self.n), bool)
        out[self._nz[0], self._nz[1]] = True
        return out

    @property
    def lu(self):
        return self.fac.lu if self.fac is not None else None

    def choose(self, phiq, independent=None) -> float:
        """The partition at the dense (m, n) ``phiq`` (``independent``: those coordinates, else
        rook pivoting); returns the pivot ratio of Φu (given) or of the elimination (automatic).
        Its work arrays are made here (at ``reset`` and at a rebase, not kept)."""
        m, n = self.m, self.n
        if independent is None:
            return select_partition(phiq, np.zeros((m, n)), self.cols)
        ind = sorted(int(i) for i in independent)
        self.cols[:] = [i for i in range(self.n) if i not in ind] + ind
        return _p_factor_dense(np.zeros((m, m)), np.zeros(m, np.int64), phiq, self.cols, m)[0]

    def prepare(self, phiq) -> None:
        """Index of Φu and Φv for ``cols`` (the kernels then read Φq as ``(w, idx)``, entries
        in the order of the pattern); the sparse Φu analysed at the dense ``phiq`` (allocates).
        At a rebase that re-chooses the dependent coordinates of the last analysis (unless
        ``keep_same`` is False) with the same row pivots (:meth:`_rereference`) the analysis is
        kept: its ordering and pivot sequence, the reference pivots reset at ``phiq``
        (``sparse.lu_rereference``); counted in ``nsame``."""
        m, f = self.m, self.f
        if self.args is not None and self.keep_same and np.array_equal(self.cols[:m],
                                                                        self._cols_dep):
            if not self.sparse or self._rereference(phiq):
                self.nsame += 1
                return
        r, c = self._nz
        pidx, ur, uc, uk = _partition_index(r, c, self.cols, m, f)
        if self.sparse:
            old = self.fac
            columns = None
            if old is not None:  # a rebase: keep the fill-reducing column order of the last one
                self.nretired += old.lu.nfallback
                columns = _carry_column_order(self._cols_dep, self.cols[:m], old.lu.column_order)
            fac = make_square(m, ur, uk, sparse=True)
            fac.analyse(phiq[ur, uc], columns)
            if old is None:  # load the rebase's compiled code now, not in the first rebase step
                lu = fac.lu
                pcol = lu.column_order
                threshold_rows(ur, uk, lu.ax, pcol, 0.01)
                _index_given_columns(m, ur, uk, lu.ax.copy(), pcol, 0.01, lu.rows, lu.cols,
                                     lu.cdst, lu.csrc)
                _carry_column_order(self.cols[:m].copy(), self.cols[:m], pcol)
                lu_rereference(lu.ib, lu.fb.copy())
            else:
                fac.lu.nanalyse += old.lu.nanalyse
            self.fac = fac
            self._u = (ur, uc, uk)
        self._cols_dep = self.cols[:m].copy()
        self.args = (*self.fac.args, pidx, self.cols, self.X, self.W, self.tmp)

    def _rereference(self, phiq) -> bool:
        """The sparse Φu at ``phiq`` with the last analysis kept (:meth:`prepare`) when the
        threshold pivoting of a new analysis (``threshold_rows`` in the column order of the last
        one, as :meth:`SparseLU.analyse` with ``columns``) picks the rows of the last one: the
        factors are then those of a new analysis, bit for bit. False otherwise, or when a pivot
        is zero (then Φu is analysed afresh)."""
        lu = self.fac.lu
        ur, uc, uk = self._u
        lu.ax[:] = phiq[ur, uc]
        prow = threshold_rows(ur, uk, lu.ax, lu.column_order, lu.pivot_thresh)
        if not np.array_equal(prow, lu.row_order):
            self.nrows += 1
            return False
        self.nretired += lu.nfallback  # (the statistics are cleared)
        return lu_rereference(lu.ib, lu.fb)

    def factors(self) -> tuple:
        return self.fac.factors() if self.fac is not None else ()

    def reader(self, phiq):
        """The kernels' Φq argument for a dense (m, n) ``phiq``: ``(w, idx)`` over the entries of
        ``pattern`` (``storage.phiq_reader``; the solver reads its workspace buffer instead)."""
        return phiq_reader(phiq, self.pattern)


@njit(cache=True)
def _partition_index(r, c, cols, m, f):
    """Entries e = (r[e], c[e]) of Φq split by the partition ``cols`` (dependent first): the
    packed index ``pidx`` of the partition kernels (entry numbers; Φv entries sorted by
    independent column), and ur, uc, uk of Φu."""
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
    ue = np.empty(nu, np.int64)
    vcount = np.zeros(f + 1, np.int64)
    a = 0
    for e in range(r.shape[0]):
        k = pos[c[e]]
        if k < m:
            ur[a] = r[e]
            uc[a] = c[e]
            uk[a] = k
            ue[a] = e
            a += 1
        else:
            vcount[k - m + 1] += 1
    vptr = np.cumsum(vcount)
    fill = vptr[:f].copy()
    vr = np.empty(nv, np.int64)
    vj = np.empty(nv, np.int64)
    ve = np.empty(nv, np.int64)
    for e in range(r.shape[0]):  # stable by independent column
        k = pos[c[e]]
        if k >= m:
            b = fill[k - m]
            vr[b] = r[e]
            vj[b] = k - m
            ve[b] = e
            fill[k - m] += 1
    pidx = np.empty(3 + 3 * nu + 3 * nv + f + 1, np.uint32)
    pidx[0] = nu
    pidx[1] = nv
    pidx[2] = f
    o = 3
    for arr in (ur, uk, ue, vr, vj, ve, vptr):
        for i in range(arr.shape[0]):
            pidx[o + i] = arr[i]
        o += arr.shape[0]
    return pidx, ur, uc, uk


@njit(cache=True)
def _carry_column_order(old_dep, new_dep, pcol_old):
    """Column order for Φu after a rebase: the dependent coordinates in the order the last
    analysis eliminated them, each one that left the set replaced in place by one that came in
    (a rebase swaps one or two; those coming in taken in ascending position)."""
    n = 0
    for c in old_dep:
        n = max(n, c + 1)
    for c in new_dep:
        n = max(n, c + 1)
    local = np.full(n, -1, np.int64)
    before = np.zeros(n, np.bool_)
    for k in range(new_dep.shape[0]):
        local[new_dep[k]] = k
    for c in old_dep:
        before[c] = True
    order = np.empty(pcol_old.shape[0], np.int64)
    nxt = 0  # the next coordinate that came in (position in new_dep)
    for t in range(pcol_old.shape[0]):
        k = local[old_dep[pcol_old[t]]]
        if k < 0:
            while before[new_dep[nxt]]:
                nxt += 1
            k = nxt
            nxt += 1
        order[t] = k
    return order


def make_basis(mode: str, n: int, m: int, phiq_pattern=None):
    """The basis ``mode`` ("qr" | "partition") for an (n, m) system; ``phiq_pattern``: a sparse
    Φu (partition only)."""
    return QRBasis(n, m) if mode == "qr" else PartitionBasis(n, m, phiq_pattern)
