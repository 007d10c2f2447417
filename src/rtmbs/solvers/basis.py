"""Algorithm 2's ways of choosing B (Carpinelli 2016 eq. 24: T = [S R] = [Φq; B]⁻¹), behind one interface.

A basis object offers, in Python (at ``reset`` and at a rebase; may allocate):

* ``choose(phiq, independent=None)``: choose B at the configuration of ``phiq``; returns the pivot
  ratio of that choice (near 0: Φq rank deficient);
* ``prepare(phiq)``: set up the factorisation for that B (the sparse Φu is analysed here; raises
  ``numpy.linalg.LinAlgError`` when it is singular);

and the operations of a step on its factors (numpy and the engine's LU):

* ``factor(pq)`` (T⁻¹ or Φu; returns (pivot ratio, the LU's pivot ratio, its largest
  multiplier)), ``R_Sc`` (R as an (n, f) array and S c, eqs. 24-25), ``velocity``
  (q̇ = S b + R ż), ``zd`` (ż = B q̇), ``lam`` (λ from a transposed solve, eq. 18) and
  ``project_T`` (Δq += S(−Φ)).

Ways:

* "qr" (:class:`QRBasis`, Carpinelli 2015 eqs. 4.11-4.12): B = the right n × f block of C1 in
  Φqᵀ(q0) = C1 C2, transposed; [Φq; B] (n × n) is factorised densely every step.
* "partition" (:class:`PartitionBasis`): B = rows of the identity at f independent coordinates v
  chosen by Gaussian elimination with rook pivoting of Φq (coordinate partitioning,
  ``linalg.select_partition``); then R = [−Φu⁻¹Φv; I], S = [Φu⁻¹; 0], and only Φu (m × m) is
  factorised: densely (its step driven from Python, Φq as a dense (m, n) array) or on its fixed
  pattern (``sparse``; the step in the C engine, partition.c, with ``args``; the operations here
  serve the rebase between two steps, Φq read as ``(w, idx)``: a packed workspace and the
  ``PackedKKTMap`` index of Φq's pattern, ``rtmbs.solvers.storage``). A rebase re-analyses the
  sparse Φu, keeping the column order of the last analysis where the coordinates stay, or keeps
  the analysis when the partition and the threshold-pivoting rows are unchanged.
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from .dense import lu_factor, lu_solve, lu_solve_t, pivot_range
from .linalg import null_basis_qr, select_partition
from .sparse import SparseLU, lu_rereference, threshold_rows
from .storage import phiq_reader, phiq_values


class QRBasis:
    """B from the QR decomposition of Φqᵀ (Carpinelli 2015 eqs. 4.11-4.12); dense [Φq; B] factors."""

    mode = "qr"
    sparse = False

    def __init__(self, n: int, m: int):
        f = n - m
        self.n, self.m = n, m
        self.B = np.zeros((f, n))
        self.K = np.zeros((n, n))
        self.piv = np.zeros(n, np.int64)
        self.work = (np.zeros((n, m)), np.zeros((m, n)), np.zeros(m))
        self.xn = np.zeros(n)
        self.args = (self.K, self.piv, self.B, self.xn)

    def choose(self, phiq, independent=None) -> float:
        return null_basis_qr(phiq, *self.work, self.B)

    def prepare(self, phiq) -> None:
        pass

    def factors(self) -> tuple:
        return ()

    def reader(self, phiq):
        """The operations' Φq argument: the dense (m, n) array itself."""
        return phiq

    def factor(self, phiq) -> tuple:
        """Factorise T⁻¹ = [Φq; B]."""
        m = self.m
        self.K[:m] = phiq
        self.K[m:] = self.B
        r = lu_factor(self.K, self.piv)
        return r, r, 0.0

    def R_Sc(self, phiq, gamma, Rn, Sc) -> None:
        """Columns of R = T[0; I]; Sc = T[c; 0]."""
        m = self.m
        for j in range(Rn.shape[1]):
            self.xn[:] = 0.0
            self.xn[m + j] = 1.0
            lu_solve(self.K, self.piv, self.xn)
            Rn[:, j] = self.xn
        Sc[:m] = gamma
        Sc[m:] = 0.0
        lu_solve(self.K, self.piv, Sc)

    def velocity(self, phiq, phit, phi, gb, zd, qd) -> None:
        """q̇ = T[b; ż], b = −Φt − γ_B Φ (eq. 24)."""
        m = self.m
        qd[:m] = -phit - gb * phi
        qd[m:] = zd
        lu_solve(self.K, self.piv, qd)

    def zd(self, qd, zd) -> None:
        np.dot(self.B, qd, out=zd)

    def lam(self, x, lam, h) -> None:
        """λ = (Tᵀx)[:m] / h (x = hΦqᵀλ, eq. 18; x is overwritten)."""
        lu_solve_t(self.K, self.piv, x)
        lam[:] = x[:self.m] / h

    def project_T(self, phi, dq) -> None:
        """Δq += T[−Φ; 0]."""
        x = self.xn
        x[:self.m] = -phi
        x[self.m:] = 0.0
        lu_solve(self.K, self.piv, x)
        dq += x


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
        self._lu = None  # the sparse Φu's SparseLU
        self.U = None if self.sparse else np.zeros((m, m))  # the dense Φu's factors, pivots
        self.upiv = None if self.sparse else np.zeros(m, np.int64)
        self.nretired = 0
        self.args = None
        self.keep_same = True  # (False: every rebase re-analyses Φu)
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
        return self._lu

    def choose(self, phiq, independent=None) -> float:
        """The partition at the dense (m, n) ``phiq`` (``independent``: those coordinates, else
        rook pivoting); returns the pivot ratio of Φu (given) or of the elimination (automatic).
        Its work arrays are made here (at ``reset`` and at a rebase, not kept)."""
        m, n = self.m, self.n
        if independent is None:
            return select_partition(phiq, np.zeros((m, n)), self.cols)
        ind = sorted(int(i) for i in independent)
        self.cols[:] = [i for i in range(self.n) if i not in ind] + ind
        a, piv = np.ascontiguousarray(phiq[:, self.cols[:m]]), np.zeros(m, np.int64)
        big = float(np.abs(phiq).max(initial=0.0))
        ratio = lu_factor(a, piv)
        return _ratio(ratio, *pivot_range(a), big, m)

    def prepare(self, phiq) -> None:
        """Index of Φu and Φv for ``cols`` (the operations then read Φq as ``(w, idx)``, entries
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
        self._parts = _pidx_parts(pidx)
        self._cols_dep = self.cols[:m].copy()
        if not self.sparse:
            self.args = (self.U, self.upiv, pidx, self.cols, self.X, self.W, self.tmp)
            return
        old = self._lu
        columns = None
        if old is not None:  # a rebase: keep the fill-reducing column order of the last one
            self.nretired += old.nfallback
            columns = _carry_column_order(self._cols_dep_old, self.cols[:m], old.column_order)
        lu = SparseLU(m, ur, uk)
        lu.ax[:] = phiq[ur, uc]
        lu.analyse(columns=columns)
        if old is not None:
            lu.nanalyse += old.nanalyse
        self._lu = lu
        self._u = (ur, uc, uk)
        self._cols_dep_old = self._cols_dep
        self.args = (lu.ib, lu.fb, pidx, self.cols, self.X, self.W, self.tmp)

    def _rereference(self, phiq) -> bool:
        """The sparse Φu at ``phiq`` with the last analysis kept (:meth:`prepare`) when the
        threshold pivoting of a new analysis (``threshold_rows`` in the column order of the last
        one, as :meth:`SparseLU.analyse` with ``columns``) picks the rows of the last one: the
        factors are then those of a new analysis, bit for bit. False otherwise, or when a pivot
        is zero (then Φu is analysed afresh)."""
        lu = self._lu
        ur, uc, uk = self._u
        lu.ax[:] = phiq[ur, uc]
        prow = threshold_rows(ur, uk, lu.ax, lu.column_order, lu.pivot_thresh)
        if not np.array_equal(prow, lu.row_order):
            self.nrows += 1
            return False
        self.nretired += lu.nfallback  # (the statistics are cleared)
        return lu_rereference(lu.ib, lu.fb)

    def factors(self) -> tuple:
        return (self._lu,) if self._lu is not None else ()

    def reader(self, phiq):
        """The operations' Φq argument for a dense (m, n) ``phiq``: ``(w, idx)`` over the entries
        of ``pattern`` (sparse; ``storage.phiq_reader``), or ``phiq`` itself (dense)."""
        return phiq_reader(phiq, self.pattern) if self.sparse else phiq

    # -- the operations (dense Φu: Φq a dense (m, n) array; sparse: ``(w, idx)``) --------------
    def _entries(self, pq):
        """(the Φq values of Φu's entries, those of Φv's) at ``pq``."""
        ur, uk, ue, vr, vj, ve, vptr = self._parts
        if self.sparse:
            v = phiq_values(*pq)
            return v[ue], v[ve]
        r, c = self._nz
        return pq[r[ue], c[ue]], pq[r[ve], c[ve]]

    def factor(self, pq) -> tuple:
        """Gather Φu and factorise. Returns (min|u_kk| / max(|u_kk|, |Φq_ij|): the pivot ratio
        measured against the whole Φq, so that it also detects a singular Φu of size 1; the
        pivot ratio of the LU; its largest multiplier)."""
        ur, uk = self._parts[:2]
        u, v = self._entries(pq)
        big = float(max(np.abs(u).max(initial=0.0), np.abs(v).max(initial=0.0)))
        if self.sparse:
            lu = self._lu
            lu.fb[:u.size] = u
            ratio, growth = _engine.lu_refactor(lu.ib, lu.fb)
            if ratio == 0.0:
                return 0.0, 0.0, growth
            return _ratio(ratio, *_engine.lu_pivot_range(lu.ib, lu.fb), big, self.m), ratio, growth
        self.U[:, :] = 0.0
        self.U[ur, uk] = u
        ratio = lu_factor(self.U, self.upiv)
        if ratio == 0.0:
            return 0.0, 0.0, 0.0
        return _ratio(ratio, *pivot_range(self.U), big, self.m), ratio, 0.0

    def _solve(self, b) -> None:
        if self.sparse:
            _engine.lu_solve(self._lu.ib, self._lu.fb, b)
        else:
            lu_solve(self.U, self.upiv, b)

    def R_Sc(self, pq, gamma, Rn, Sc) -> None:
        """R = [−Φu⁻¹Φv; I] as Rn (n, f), Sc = [Φu⁻¹c; 0]: one solve with the f + 1 right-hand
        sides [Φv c] (dense Φu)."""
        vr, vj = self._parts[3:5]
        m, f = self.m, self.f
        X = np.zeros((m, f + 1))
        X[:, f] = gamma
        X[vr, vj] = self._entries(pq)[1]
        for j in range(f + 1):
            col = np.ascontiguousarray(X[:, j])
            self._solve(col)
            X[:, j] = col
        dep, ind = self.cols[:m], self.cols[m:]
        Rn[dep] = -X[:, :f]
        Sc[dep] = X[:, f]
        Rn[ind] = np.eye(f)
        Sc[ind] = 0.0

    def velocity(self, pq, phit, phi, gb, zd, qd) -> None:
        """q̇_v = ż, Φu q̇_u = b − Φv ż, b = −Φt − γ_B Φ."""
        vr, vj = self._parts[3:5]
        tmp = self.tmp
        tmp[:] = -phit - gb * phi
        np.subtract.at(tmp, vr, self._entries(pq)[1] * zd[vj])
        self._solve(tmp)
        qd[self.cols[:self.m]] = tmp
        qd[self.cols[self.m:]] = zd

    def zd(self, qd, zd) -> None:
        zd[:] = qd[self.cols[self.m:]]

    def lam(self, x, lam, h) -> None:
        """λ = Φu⁻ᵀ x_u / h (x = hΦqᵀλ, eq. 18)."""
        tmp = self.tmp
        tmp[:] = x[self.cols[:self.m]]
        if self.sparse:
            _engine.lu_solve_t(self._lu.ib, self._lu.fb, tmp)
        else:
            lu_solve_t(self.U, self.upiv, tmp)
        lam[:] = tmp / h

    def project_T(self, phi, dq) -> None:
        """Δq_u += Φu⁻¹(−Φ)."""
        tmp = self.tmp
        np.negative(phi, out=tmp)
        self._solve(tmp)
        dq[self.cols[:self.m]] += tmp


def _ratio(ratio, umin, umax, big, m) -> float:
    """Φu's pivot ratio against the whole Φq (:meth:`PartitionBasis.factor`)."""
    if ratio == 0.0:
        return 0.0
    if m == 0:
        return 1.0
    return umin / max(big, umax)


def _pidx_parts(pidx) -> tuple:
    """(ur, uk, ue, vr, vj, ve, vptr) of a partition index (:func:`_partition_index`), int64."""
    nu, nv, f = (int(v) for v in pidx[:3])
    o, out = 3, []
    for size in (nu, nu, nu, nv, nv, nv, f + 1):
        out.append(pidx[o:o + size].astype(np.int64))
        o += size
    return tuple(out)


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
