"""Sparse LU with a fixed pattern, ordering and pivot sequence (docs/solvers.md).

The real-time matrices (the KKT matrix of Carpinelli 2016 eq. 22, the projection matrix of eq. 30, Φu of
the coordinate partitioning) keep one sparsity pattern for the whole run. So:

* :meth:`SparseLU.analyse` (once, at ``reset``; Python + SciPy, allocates): SuperLU
  (``scipy.sparse.linalg.splu``) is run on the initial numeric matrix for a fill-reducing column
  ordering and a threshold-pivoting row order; of several orderings the one with the fewest
  multiply-adds is kept. The symbolic fill of the permuted matrix is then computed without
  further pivoting, and everything is packed into one uint32 array ``ib`` and one float array
  ``fb``.
* :func:`lu_refactor` (every step; the engine's sparse_lu.c, allocates nothing): scatter the entry values ``ax``
  into the factor storage and eliminate row by row (IKJ order, dense accumulator of length N)
  with the pivot sequence of the analysis: a fixed list of indexed multiply-adds, each row's
  updates over runs of contiguous columns, two to four consecutive rows of a supernode
  (:func:`paired_rows`) in one pass over the runs, the multipliers formed with the reciprocal
  pivots.
* :func:`lu_solve_sp` / :func:`lu_solve_t_sp`: triangular solves with A and Aᵀ.

Fixed cost, no re-analysis. After the analysis nothing is re-planned: a pivot whose magnitude
falls below ``PIVOT_REL`` times its value at the analysis is replaced by that bound with its sign
(static pivoting, as SuperLU_DIST), and when that happens, or a multiplier exceeds ``GROWTH_FACTOR``
times its bound, the factorisation is flagged and every solve with it adds ``NREFINE`` steps of
iterative refinement against the unperturbed matrix: a fallback of known cost, counted in
``nfallback`` with the offending row (``last_fallback``). The factor returns the pivot ratio
min|u_kk| / max|u_kk| (0 for a non-finite pivot, as :func:`rtmbs.solvers.linalg.lu_factor`) and
the largest multiplier |l_ik|.

KKT matrices (:class:`SparseKKT`) are not pivoted at all: their ordering (minimum degree,
computed once) eliminates every multiplier after all the coordinates of its row of Φq, so the
pivots are those of the iteration-matrix block A = M − c_d Jq̇ − c Jq (positive definite for a
stable model) and of Schur complements −s Φq_R,S A_SS⁻¹ Φq_R,Sᵀ, S the coordinates and R the
multipliers eliminated so far: A_SS is a principal block of A (definite), and the rows R lie
wholly in S (full rank while Φq has), so every pivot is that of a non-singular saddle block.
With a *hub* (the coordinates of the body in the most rows: a vehicle's chassis,
:func:`kkt_hubs`) the ordering may instead condense each substructure onto it
(:func:`substructure_order`: a multiplier right after the coordinates of its row but the hub's,
the hub's coordinates last), as a vehicle's corners are condensed onto its chassis; the rows R
then need only be independent on the non-hub coordinates (each substructure not over-constrained
with the hub held). The analysis checks that by the pivots and keeps the plain ordering unless
the condensed one saves ``ORDER_MIN_SAVING`` of the multiply-adds with a pivot ratio within
``ORDER_PIVOT_RATIO`` of the plain one's (sedan: 529 784 → 88 650 multiply-adds, the same pivot
ratio, the step 263 → 135 µs).
Euler-parameter bodies make M singular along p; rows of Φq that touch a single block of A (the
normalisation rows) are added to A as α Φqᵣᵀ Φqᵣ (and α Φqᵣᵀ times their right-hand side to the
top rows), which leaves the solution unchanged and makes A definite (augmented Lagrangian).

The entries are given by the caller as parallel lists ``rows``, ``cols`` in any order; the caller
fills the value array ``ax`` (a view into ``fb``) in that order and calls the factor. The
protocol's workspace is one flat array, so gathers from it take flat indices (see
:func:`workspace_offsets`, :class:`KKTMap`).
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..tolerances import ORDER_PIVOT_RATIO, PIVOT_REL  # noqa: F401  (PIVOT_REL: the engine's, tests)

#: Flag the factors (refine every solve) when max |l_ik| exceeds this times 1/pivot_thresh.
GROWTH_FACTOR = 100.0
#: Refinement steps of a solve with flagged factors.
NREFINE = 2
#: Step size at which the solvers analyse their KKT matrices in ``reset`` (h scales blocks of
#: them; a step with a very different h that upsets the pivots triggers a re-analysis).
H_ANALYSIS = 1e-3
#: A KKT ordering condensed onto a hub replaces the plain one only if it saves at least this
#: share of the multiply-adds: another ordering changes the run structure of the elimination
#: too, and below this the step time did not follow the count (four-bar: 4.5 % fewer, 4 % slower;
#: quarter car 24 % fewer, 6 % faster; sedan 83 % fewer, 49 % faster; docs/benchmarks.md).
ORDER_MIN_SAVING = 0.1
#: Orderings tried by ``ordering="best"`` (SuperLU ``permc_spec``).
ORDERINGS = ("MMD_ATA", "COLAMD", "MMD_AT_PLUS_A")

# layout of the header of ``ib`` (uint32)
(_H_N, _H_NE, _H_NNZ, _H_PTR, _H_DIAG, _H_COL, _H_AMAP, _H_PROW, _H_PCOL, _H_ROWS, _H_COLS, _H_NC,
 _H_CDST, _H_CSRC, _H_NRUN, _H_URPTR, _H_RC0, _H_RLEN, _H_PAIRED, _H_NFILL, _H_FPTR, _H_FCOL,
 _H_EPTR, _H_ECOL, _H_EIDX, _H_LEN) = range(26)
# ``fb`` = [ax (ne) | lu (nnz) | w (N) | pivot references (N) | b0 (N) | r (N) | couplings (nc) |
#           statistics (_S_LEN) | reciprocal pivots 1/u_kk (N)]
_S_FLAG, _S_COUNT, _S_ROW, _S_GROWTH_LIMIT, _S_OPS, _S_LEN = range(6)


# -- the per-step kernels: the engine's (src/rtmbs/engine/sparse_lu.c, kkt.c) --------------------
#: lu_refactor(ib, fb) -> (pivot ratio, largest multiplier): scatter ``ax`` into the factor
#: storage and eliminate with the analysis's pivot sequence (static pivoting, module docstring)
lu_refactor = _engine.lu_refactor
#: lu_pivot_range_sp(ib, fb) -> (min, max) of |u_kk| of the last factorisation
lu_pivot_range_sp = _engine.lu_pivot_range
#: lu_solve_sp(ib, fb, b): A x = b in place (refined when the factors are flagged)
lu_solve_sp = _engine.lu_solve
#: lu_solve_t_sp(ib, fb, b): Aᵀ x = b in place
lu_solve_t_sp = _engine.lu_solve_t
#: lu_solve_multi_sp(ib, fb, X, W): A Y = X in place for the columns of X (N, k), W work (N, k)
lu_solve_multi_sp = _engine.lu_solve_multi
#: lu_rereference(ib, fb) -> bool: the reference pivots of the static pivoting set to the pivots
#: of the current values factorised without it, the statistics cleared (a new analysis keeping
#: the ordering and pivot sequence: Algorithm 2's rebase to the same partition); False when a
#: pivot is zero or not finite
lu_rereference = _engine.lu_rereference


def lu_matvec_sp(ib, fb, rows, cols, x, y) -> None:
    """y = A x with the entry values ``ax`` (for residual checks; ``rows``/``cols`` of the
    entries)."""
    ne = int(ib[_H_NE])
    y[:] = 0.0
    np.add.at(y, np.asarray(rows[:ne], np.int64), fb[:ne] * x[np.asarray(cols[:ne], np.int64)])


def paired_rows(ptr, diag, col):
    """For every row k of the row storage (ptr, diag, col): 1 when the U part of row k is
    column k + 1 followed by the U part of row k + 1 (consecutive rows of a supernode: a body's
    coordinates, a joint's multipliers), else 0. A row i whose L part holds k .. k + g − 1 of
    such rows (g = 2, 3, 4) takes those eliminations in one pass over the runs of row k + g − 1
    (the engine's ``rtmbs_lu_refactor``)."""
    ptr, diag, col = (np.asarray(a, np.int64) for a in (ptr, diag, col))
    N = diag.shape[0]
    out = np.zeros(N, np.int64)
    for k in range(N - 1):
        a0, a1 = diag[k] + 1, ptr[k + 1]
        b0, b1 = diag[k + 1] + 1, ptr[k + 2]
        if a1 - a0 == b1 - b0 + 1 and col[a0] == k + 1:
            out[k] = int(np.array_equal(col[a0 + 1:a1], col[b0:b1]))
    return out


def column_runs(ptr, diag, col):
    """(urptr, rc0, rlen): the U part of every row of the factors as runs of consecutive
    columns: row k's runs are urptr[k]..urptr[k+1], run r starts at column rc0[r] and has
    rlen[r] entries (stored in order right after the diagonal)."""
    ptr, diag, col = (np.asarray(a, np.int64) for a in (ptr, diag, col))
    N = diag.shape[0]
    urptr = np.zeros(N + 1, np.int64)
    rc0, rlen = [], []
    for k in range(N):
        u = col[diag[k] + 1:ptr[k + 1]]
        if u.size:
            starts = np.flatnonzero(np.diff(u, prepend=u[0] - 2) != 1)
            rc0.extend(u[starts].tolist())
            rlen.extend(np.diff(np.append(starts, u.size)).tolist())
        urptr[k + 1] = len(rc0)
    return urptr, np.array(rc0, np.int64), np.array(rlen, np.int64)


def row_entries(ptr, col, amap):
    """Where each row of the factors takes its values from, row by row (the engine's
    ``rtmbs_lu_refactor`` loads row i into its dense accumulator from these, with no pass over
    the whole storage): (fptr, fcol, eptr, ecol, eidx). Row i's zeros go to the columns
    fcol[fptr[i]:fptr[i+1]] (the fill, and the positions that take several entries); its entries
    eidx[eptr[2i]:eptr[2i+1]] are assigned to the columns ecol of the same range (one entry per
    position, in column order), then those of eptr[2i+1]:eptr[2i+2] added (the entries of shared
    positions, in entry order: the sums of the entry-by-entry scatter, term for term)."""
    ptr, col, amap = (np.asarray(a, np.int64) for a in (ptr, col, amap))
    N = ptr.size - 1
    nnz = int(ptr[-1])
    row_of = np.repeat(np.arange(N, dtype=np.int64), np.diff(ptr))
    hits = np.bincount(amap, minlength=nnz) if nnz else np.zeros(0, np.int64)
    fpos = np.flatnonzero(hits != 1)
    fptr = np.searchsorted(fpos, ptr, "left")
    e = np.arange(amap.size, dtype=np.int64)
    erow = row_of[amap] if amap.size else e
    shared = (hits[amap] != 1).astype(np.int64) if amap.size else e
    order = np.lexsort((np.where(shared == 1, e, amap), shared, erow))
    counts = np.zeros(2 * N, np.int64)
    np.add.at(counts, 2 * erow + shared, 1)
    eptr = np.concatenate([[0], np.cumsum(counts)])
    return fptr, col[fpos], eptr, col[amap[order]], order


# -- the analysis (offline: at reset and at a rebase of Algorithm 2) --------------------------------
def _symbolic(pat):
    """Fill of the LU without pivoting of the square bool pattern ``pat`` (in place), row by row:
    row i takes the U part of each row k < i of its pattern, k ascending (George & Liu 1981)."""
    N = pat.shape[0]
    upper = np.triu(np.ones((N, N), bool), 1)
    for i in range(N):
        row = pat[i]
        for k in range(i):
            if row[k]:
                row |= pat[k] & upper[k]
    return pat


def _flops(pat) -> int:
    """Multiply-adds of the elimination on the filled pattern."""
    nu = np.triu(pat, 1).sum(axis=1)
    return int(np.tril(pat, -1).astype(np.int64) @ (nu + 1).astype(np.int64) @ np.ones(len(nu),
                                                                                      np.int64))


def _pack(pat, rows, cols, irow, icol):
    """Row pointers, column indices and diagonal positions of the filled pattern ``pat``, and the
    position of each entry (rows[e], cols[e]) of the matrix in that storage."""
    N = pat.shape[0]
    ri, cj = np.nonzero(pat)  # row-major, columns ascending in each row
    ptr = np.zeros(N + 1, np.int64)
    ptr[1:] = np.cumsum(np.bincount(ri, minlength=N))
    key = ri.astype(np.int64) * N + cj
    diag = np.searchsorted(key, np.arange(N, dtype=np.int64) * (N + 1))
    amap = np.searchsorted(key, irow[rows] * N + icol[cols])
    return ptr, cj.astype(np.int64), diag.astype(np.int64), amap.astype(np.int64)


def _structure(N, rows, cols, prow, pcol):
    """The LU storage of the matrix with entries (rows, cols) eliminated in the order
    (prow, pcol) without further pivoting: (ptr, col, diag, amap, multiply-adds)."""
    irow = np.empty(N, np.int64)
    icol = np.empty(N, np.int64)
    irow[np.asarray(prow, np.int64)] = np.arange(N)
    icol[np.asarray(pcol, np.int64)] = np.arange(N)
    rows, cols = np.asarray(rows, np.int64), np.asarray(cols, np.int64)
    pat = np.eye(N, dtype=bool)
    pat[irow[rows], icol[cols]] = True
    _symbolic(pat)
    ptr, col, diag, amap = _pack(pat, rows, cols, irow, icol)
    return ptr, col, diag, amap, _flops(pat)


def threshold_rows(rows, cols, vals, pcol, thresh):
    """Row order for the column order ``pcol`` of the N × N matrix with entries (rows, cols, vals):
    dense Gaussian elimination with threshold partial pivoting, choosing among the rows whose
    entry is at least ``thresh`` times the column's largest the one with the fewest non-zeros
    (Markowitz-like, as SuperLU's threshold pivoting), in the engine (partition_choice.c).
    Returns prow (the matrix row at each position); a row of -1 means a zero column (singular)."""
    pcol = np.ascontiguousarray(pcol, np.int64)
    prow = np.full(pcol.shape[0], -1, np.int64)
    _engine.threshold_rows_into(np.ascontiguousarray(rows, np.int64),
                                np.ascontiguousarray(cols, np.int64),
                                np.ascontiguousarray(vals, float), pcol, float(thresh), prow)
    return prow


def min_degree_order(pattern: np.ndarray, groups, release: bool = False) -> np.ndarray:
    """Symmetric elimination order of the square bool ``pattern`` (structure of A + Aᵀ): minimum
    degree on the elimination graph, all of ``groups[0]`` before any of ``groups[1]`` and so on
    (a constrained ordering: for a KKT matrix, every coordinate before any multiplier). With
    ``release``, a vertex of a later group may go as soon as all its neighbours (in ``pattern``)
    of earlier groups are gone: for a KKT matrix, a multiplier right after the coordinates of its
    row (fewer operations when a body is shared by many rows, as a chassis)."""
    N = pattern.shape[0]
    adj = _adjacency(pattern)
    group_of = np.full(N, -1, np.int64)
    for g, group in enumerate(groups):
        for i in group:
            group_of[int(i)] = g
    if np.any(group_of < 0) or sum(len(g) for g in groups) != N:
        raise ValueError("min_degree_order: the groups must partition 0..N-1")
    # vertices waiting for their neighbours of earlier groups: number still to go
    waiting = [sum(1 for j in adj[i] if group_of[j] < group_of[i]) for i in range(N)]
    later = [[j for j in adj[i] if group_of[j] > group_of[i]] for i in range(N)]
    order = []
    done = np.zeros(N, bool)
    for g, group in enumerate(groups):
        left = set(int(i) for i in group) - set(order)
        free = set(i for i in range(N) if release and not done[i] and group_of[i] > g
                   and waiting[i] == 0)
        while left or free:
            v = min(left | free, key=lambda i: (len(adj[i]), i))
            _eliminate(adj, v)
            order.append(v)
            done[v] = True
            left.discard(v)
            free.discard(v)
            if release:
                for u in later[v]:
                    waiting[u] -= 1
                    if waiting[u] == 0 and not done[u] and group_of[u] > g:
                        free.add(u)
            if not left:
                break
    if len(order) != N or len(set(order)) != N:
        raise ValueError("min_degree_order: the groups must partition 0..N-1")
    return np.array(order, np.int64)


def _adjacency(pattern: np.ndarray) -> list:
    """Neighbour sets of the graph of A + Aᵀ (square bool ``pattern``)."""
    sym = pattern | pattern.T
    return [set(np.nonzero(sym[i])[0].tolist()) - {i} for i in range(pattern.shape[0])]


def _eliminate(adj: list, v: int) -> None:
    """Eliminate vertex v of the elimination graph ``adj``: its neighbours become a clique."""
    nb = adj[v]
    for u in nb:
        adj[u] |= nb
        adj[u].discard(u)
        adj[u].discard(v)
    adj[v] = set()


def substructure_order(pattern: np.ndarray, n: int, hub) -> np.ndarray:
    """Symmetric elimination order of a KKT ``pattern`` (coordinates 0..n-1, then multipliers)
    that condenses the substructures onto the ``hub`` coordinates: minimum degree over the
    coordinates not in ``hub`` and the multipliers whose row has no such coordinate left (a
    multiplier right after the coordinates of its row but the hub's); then the hub's coordinates;
    then the multipliers of rows in the hub alone (module docstring)."""
    N = pattern.shape[0]
    adj = _adjacency(pattern)
    hub = set(int(c) for c in hub)
    waiting = {i: sum(1 for j in adj[i] if j < n and j not in hub) for i in range(n, N)}
    rows = [[u for u in adj[v] if u >= n] if v < n else [] for v in range(N)]  # (before fill)
    order = []
    free = set(i for i in range(n) if i not in hub)
    while free:
        v = min(free, key=lambda i: (len(adj[i]), i))
        _eliminate(adj, v)
        order.append(v)
        free.discard(v)
        for u in rows[v]:
            waiting[u] -= 1
            if waiting[u] == 0:
                free.add(u)
    for group in (hub, range(n, N)):
        left = set(group) - set(order)
        while left:
            v = min(left, key=lambda i: (len(adj[i]), i))
            _eliminate(adj, v)
            order.append(v)
            left.discard(v)
    if len(order) != N or len(set(order)) != N:
        raise ValueError("substructure_order: not a permutation (hub outside 0..n-1?)")
    return np.array(order, np.int64)


def kkt_hubs(system) -> list:
    """Candidate hubs of :func:`substructure_order` for ``system``: the coordinates of each body
    in the most constraint rows (ties: each), when it is in more rows than half the bodies are
    (nothing for a system without bodies, ``body_qadr``, or without constraints)."""
    from ..kernels.codes import NROT

    qadr, rtype = getattr(system, "body_qadr", None), getattr(system, "body_rtype", None)
    if qadr is None or rtype is None or not system.m or not hasattr(system, "phiq_pattern"):
        return []
    pp = np.asarray(system.phiq_pattern, bool)
    bodies = [(int(a), int(a) + 3 + int(NROT[r])) for a, r in zip(qadr, rtype) if a >= 0]
    rows = [int(pp[:, a:e].any(axis=1).sum()) for a, e in bodies]
    if not rows or max(rows) <= np.median(rows):
        return []
    return [np.arange(a, e) for (a, e), r in zip(bodies, rows) if r == max(rows)]


class SparseLU:
    """LU of an N × N matrix whose entries are at fixed positions ``(rows[e], cols[e])``.

    ``couplings`` = (dst, src): the right-hand side of every solve first gets
    b[dst[c]] += cval[c]·b[src[c]], with the values ``cval`` written by the caller (the
    augmentation of :class:`SparseKKT`).

    Attributes
    ----------
    ib, fb : packed index (uint32) and float arrays passed to the engine's kernels
    ax : view of ``fb``: the entry values, written by the caller before each factorisation
    nanalyse : analyses since construction (1 after the first); ``flops``: multiply-adds per factor
    ratio, growth : pivot ratio and largest multiplier of the last factorisation
    nfallback, last_fallback : factorisations flagged since the analysis (static pivots or
        growth: refined solves) and the original row of the last perturbed pivot
    """

    def __init__(self, N: int, rows, cols, ordering: str = "best", pivot_thresh: float = 0.01,
                 couplings=None):
        self.N = int(N)
        self.rows = np.ascontiguousarray(rows, dtype=np.uint32)
        self.cols = np.ascontiguousarray(cols, dtype=np.uint32)
        if self.rows.shape != self.cols.shape:
            raise ValueError(f"SparseLU: rows ({self.rows.size}) and cols ({self.cols.size}) "
                             "must have the same length")
        if self.rows.size and (self.rows.max() >= N or self.cols.max() >= N):
            raise ValueError(f"SparseLU: entry index out of range, expected < N = {N}")
        if ordering != "best" and ordering not in ORDERINGS + ("NATURAL",):
            raise ValueError(f"SparseLU: ordering={ordering!r} is not one of 'best', "
                             + ", ".join(repr(o) for o in ORDERINGS + ("NATURAL",)))
        cdst, csrc = couplings if couplings is not None else ((), ())
        self.cdst = np.ascontiguousarray(cdst, dtype=np.uint32)
        self.csrc = np.ascontiguousarray(csrc, dtype=np.uint32)
        self.ordering = ordering
        self.pivot_thresh = float(pivot_thresh)
        self._growth_limit = GROWTH_FACTOR / self.pivot_thresh
        self.ne = self.rows.size
        self.nanalyse = 0
        self.ratio = 1.0
        self.growth = 0.0
        self.ib = None
        self.fb = np.zeros(self.ne + self.cdst.size)
        self.ax = self.fb[:self.ne]
        self.cval = self.fb[self.ne:]

    def _perms(self, values, spec):
        import scipy.sparse as sp
        from scipy.sparse.linalg import splu

        N = self.N
        # CSC built directly (entries sorted by column once): no COO conversion per analysis
        if getattr(self, "_csc", None) is None:
            order = np.lexsort((self.rows, self.cols))
            indptr = np.zeros(N + 1, np.int32)
            indptr[1:] = np.cumsum(np.bincount(self.cols, minlength=N))
            self._csc = (order, self.rows[order].astype(np.int32), indptr)
        order, indices, indptr = self._csc
        A = sp.csc_matrix((np.asarray(values, float)[order], indices, indptr), shape=(N, N))
        lu = splu(A, permc_spec=spec, diag_pivot_thresh=self.pivot_thresh,
                  options=dict(SymmetricMode=False))
        # Pr A Pc = L U (SciPy's convention): row i of A goes to row perm_r[i], column j of A to
        # column perm_c[j]; prow/pcol give the row/column of A at each permuted position
        prow = np.empty(N, np.int64)
        prow[lu.perm_r] = np.arange(N)
        pcol = np.empty(N, np.int64)
        pcol[lu.perm_c] = np.arange(N)
        return prow, pcol

    def _candidates(self, vals, order, columns):
        """(flops, prow, pcol, filled pattern, name) of each ordering to consider."""
        N = self.N
        if order is not None:
            perms = [(np.asarray(order, np.int64), np.asarray(order, np.int64), "static")]
        elif columns is not None:
            pcol = np.asarray(columns, np.int64)
            prow = threshold_rows(self.rows.astype(np.int64), self.cols.astype(np.int64), vals,
                                  pcol, self.pivot_thresh)
            if prow.size and prow.min() < 0:
                raise np.linalg.LinAlgError("SparseLU.analyse: matrix is singular (zero column "
                                            "in the threshold elimination)")
            perms = [(prow, pcol, "given columns")]
        else:
            perms, last_exc = [], None
            for spec in (ORDERINGS if self.ordering == "best" else (self.ordering,)):
                try:
                    perms.append((*self._perms(vals, spec), spec))
                except RuntimeError as exc:  # exactly singular for SuperLU
                    last_exc = exc
            if not perms:
                raise np.linalg.LinAlgError(f"SparseLU.analyse: matrix is singular ({last_exc})")
        r64, c64 = self.rows.astype(np.int64), self.cols.astype(np.int64)
        for prow, pcol, spec in perms:
            ptr, col, diag, amap, fl = _structure(N, r64, c64, prow, pcol)
            yield fl, prow, pcol, (ptr, col, diag, amap), spec

    def analyse(self, values=None, order=None, columns=None) -> None:
        """Ordering, pivot sequence and fill at the current values ``ax`` (or ``values``): from
        SuperLU, or with the symmetric elimination ``order`` given (no pivoting), or for the
        column order ``columns`` given with rows by :func:`threshold_rows` (no SciPy);
        then the reference magnitude of every pivot for the static pivoting of
        :func:`lu_refactor`."""
        N = self.N
        vals = np.array(self.ax if values is None else values, float)
        cvals = self.cval.copy()
        if vals.shape != (self.ne,):
            raise ValueError(f"SparseLU.analyse: expected {self.ne} values, got {vals.shape}")
        if columns is not None and order is None:  # (a rebase's analysis: one compiled call)
            ib, fl, prow = _index_given_columns(
                N, self.rows.astype(np.int64), self.cols.astype(np.int64), vals,
                np.asarray(columns, np.int64), self.pivot_thresh, self.rows, self.cols,
                self.cdst, self.csrc)
            if fl == -1:
                raise np.linalg.LinAlgError("SparseLU.analyse: matrix is singular (zero column "
                                            "in the threshold elimination)")
            spec = "given columns"
        else:
            fl, prow, pcol, (ptr, col, diag, amap), spec = min(
                self._candidates(vals, order, columns), key=lambda c: c[0])
            ib = self._pack(ptr, diag, col, amap, prow, pcol)
        if fl == -2:
            raise ValueError("SparseLU: pattern too large for uint32 indices")
        self.ib = ib
        self.flops, self.spec = int(fl), spec
        nnz = int(ib[_H_NNZ])
        diag = ib[ib[_H_DIAG]:ib[_H_DIAG] + N]
        nc = self.cdst.size
        fb = np.zeros(self.ne + nnz + 4 * N + nc + _S_LEN + N)
        fb[:self.ne] = vals
        self.fb = fb
        self.ax = fb[:self.ne]
        o = self.ne + nnz + N
        self.pref = fb[o:o + N]
        self.cval = fb[o + 3 * N:o + 3 * N + nc]
        self.cval[:] = cvals
        self.o_stats = o + 3 * N + nc  # (the statistics' offset in ``fb``)
        self.stats = fb[self.o_stats:self.o_stats + _S_LEN]
        self.stats[_S_GROWTH_LIMIT] = np.inf
        self.nnz = nnz
        # reference pivots: the pivots of this matrix, factorised without static pivoting
        lu_refactor(self.ib, self.fb)
        piv = np.abs(fb[self.ne:self.ne + nnz][diag])
        if not np.all(np.isfinite(piv)) or not np.all(piv > 0.0):
            k = int(np.argmin(np.where(np.isfinite(piv), piv, 0.0)))
            raise np.linalg.LinAlgError(
                f"SparseLU.analyse: zero or non-finite pivot in row {int(prow[k])} with the "
                f"{spec} ordering: the matrix is singular")
        self.pref[:] = piv
        fb[:self.ne] = vals
        self.stats[:] = 0.0
        self.stats[_S_GROWTH_LIMIT] = self.growth_limit
        self.stats[_S_OPS] = _engine.lu_flops(self.ib)[0]  # the refactorisation's multiply-adds
        self.nanalyse += 1

    def _pack(self, ptr, diag, col, amap, prow, pcol) -> np.ndarray:
        """The index ``ib`` of the factors with the storage (ptr, diag, col, amap) and the orders
        (prow, pcol) (:func:`_pack_index`)."""
        ib = _pack_index(self.N, ptr, diag, col, amap, prow, pcol, self.rows, self.cols,
                         self.cdst, self.csrc)
        if ib is None:
            raise ValueError("SparseLU: pattern too large for uint32 indices")
        return ib

    @property
    def column_order(self) -> np.ndarray:
        """The column of the matrix at each position of the elimination."""
        return self.ib[self.ib[_H_PCOL]:self.ib[_H_PCOL] + self.N].astype(np.int64)

    @property
    def row_order(self) -> np.ndarray:
        """The row of the matrix at each position of the elimination."""
        return self.ib[self.ib[_H_PROW]:self.ib[_H_PROW] + self.N].astype(np.int64)

    @property
    def growth_limit(self) -> float:
        """Largest multiplier before the factors are flagged (refined solves)."""
        return self._growth_limit

    @growth_limit.setter
    def growth_limit(self, value: float) -> None:
        self._growth_limit = float(value)
        if self.ib is not None:
            self.stats[_S_GROWTH_LIMIT] = self._growth_limit

    # -- per step (one compiled call each) ---------------------------------------------------------
    def refactor(self) -> float:
        """Factorise the values in ``ax`` (static pivots, never a re-analysis). Returns the pivot
        ratio (0.0: a non-finite pivot)."""
        if self.ib is None:
            self.analyse()
        ratio, growth = lu_refactor(self.ib, self.fb)
        self.ratio, self.growth = ratio, growth
        return ratio

    @property
    def nfallback(self) -> int:
        return int(self.stats[_S_COUNT]) if self.ib is not None else 0

    @property
    def last_fallback(self) -> int:
        """Row of the matrix (before permutation) whose pivot was last raised (-1: none)."""
        return int(self.stats[_S_ROW]) if self.nfallback else -1

    @property
    def flagged(self) -> bool:
        """The last factorisation used the fallback (its solves are refined)."""
        return self.ib is not None and self.stats[_S_FLAG] != 0.0

    def solve(self, b) -> None:
        lu_solve_sp(self.ib, self.fb, b)

    def solve_t(self, b) -> None:
        lu_solve_t_sp(self.ib, self.fb, b)

    def residual(self, x, b) -> float:
        """‖A x − b‖∞ / (‖A‖∞‖x‖∞ + ‖b‖∞) with the current values (a check, allocates)."""
        y = np.zeros(self.N)
        lu_matvec_sp(self.ib, self.fb, self.rows, self.cols, x, y)
        anorm = np.zeros(self.N)
        np.add.at(anorm, self.rows, np.abs(self.ax))
        den = anorm.max(initial=0.0) * np.abs(x).max(initial=0.0) + np.abs(b).max(initial=0.0)
        return float(np.abs(y - b).max(initial=0.0) / den) if den > 0 else 0.0


# -- the protocol's workspace ---------------------------------------------------------------------
def workspace_offsets(ws) -> dict:
    """Offsets (in float64 elements) of each array of a :class:`~rtmbs.protocol.Workspace` in
    ``ws.buf``."""
    base = ws.buf.ctypes.data
    return {k: (getattr(ws, k).ctypes.data - base) // 8
            for k in ("M", "Q", "phi", "phiq", "phit", "gamma", "Jq", "Jqd")}


def has_patterns(system) -> bool:
    return (hasattr(system, "phiq_pattern") and hasattr(system, "mass_pattern")
            and hasattr(system, "jacobian_pattern"))


def choose_linear_solver(solver_name, system, choice: str, compiled: bool = False) -> bool:
    """True for the sparse path: ``"sparse"`` (needs the patterns), ``"auto"`` (patterns, and
    n >= ``AUTO_MIN_N`` or ``compiled``: the solver runs its sparse step as one compiled call on
    this system, which beats the dense path driven from Python at every size), ``"dense"``."""
    from ..errors import SolverError

    if choice == "dense":
        return False
    ok = has_patterns(system)
    if choice == "sparse":
        if not ok:
            raise SolverError(
                f"solver '{solver_name}': option linear_solver='sparse' needs a system with fixed "
                f"sparsity patterns (phiq_pattern, mass_pattern, jacobian_pattern); "
                f"'{system.name}' has none (use 'dense' or 'auto')")
        return True
    return ok and (compiled or system.n >= AUTO_MIN_N)


#: ``linear_solver="auto"`` goes sparse from this many coordinates on (3 bodies) where the sparse
#: step is driven from Python (below it the dense LAPACK path costs less).
AUTO_MIN_N = 18


class KKTMap:
    """Entries of K = [A, s·Φqᵀ(top); Φq(bottom), 0] (size n + m) for :class:`SparseLU`, with
    A = M [− c_d Jq̇ − c Jq] on the pattern ``a_pattern`` and Φq on ``phiq_pattern``.

    Entry order: A entries, then the s·Φqᵀ block, then the Φq block. ``idx`` packs
    [nA, nz, a_i, a_j, z_r, z_c, augmentation] (uint32) for :func:`kkt_gather`. The augmentation
    (module docstring) takes the rows of Φq whose columns form a full block of
    ``augment_pattern`` (default ``a_pattern``; ``li-euler`` gives M's structure,
    ``mass_structure``, so only rows within one block of it: Euler-parameter normalisation rows,
    a lock of one coordinate; not a ground joint's rows, which hold a body's translations and
    rotation, nor the joint rows between two bodies): A += α_r Φqᵣᵀ Φqᵣ with
    α_r = Σ M_jj / Σ Φq_rj² over the row's columns, and the couplings b[j] += α_r Φq_rj b[n + r]
    (``couplings``, for :class:`SparseLU`).
    """

    def __init__(self, a_pattern: np.ndarray, phiq_pattern: np.ndarray, augment_pattern=None):
        n = a_pattern.shape[0]
        aug_pat = a_pattern if augment_pattern is None else np.asarray(augment_pattern, bool)
        m = phiq_pattern.shape[0]
        ai, aj = np.nonzero(a_pattern)
        zr, zc = np.nonzero(phiq_pattern) if m else (np.zeros(0, int), np.zeros(0, int))
        self.n, self.m = n, m
        self.rows = np.concatenate([ai, zc, n + zr]).astype(np.uint32)
        self.cols = np.concatenate([aj, n + zr, zc]).astype(np.uint32)
        aent = {(int(i), int(j)): e for e, (i, j) in enumerate(zip(ai, aj))}
        gptr, pptr, eb, pa = [0], [0], [], []
        for r in range(m):
            es = np.nonzero(zr == r)[0]
            cs = zc[es]
            if not all(aug_pat[j, k] and (int(j), int(k)) in aent for j in cs for k in cs):
                continue
            eb.extend(es.tolist())
            pa.extend(aent[(int(j), int(k))] for j in cs for k in cs)  # (row-major pairs)
            gptr.append(len(eb))
            pptr.append(len(pa))
        self.naug = len(gptr) - 1
        eb = np.array(eb, np.int64)
        self.couplings = (zc[eb] if eb.size else np.zeros(0, int),
                          n + zr[eb] if eb.size else np.zeros(0, int))
        self.idx = np.concatenate([[ai.size, zr.size], ai, aj, zr, zc,
                                   [self.naug, eb.size, len(pa)], gptr, pptr, eb, pa]
                                  ).astype(np.uint32)

    def pattern(self) -> np.ndarray:
        N = self.n + self.m
        pat = np.zeros((N, N), bool)
        pat[self.rows, self.cols] = True
        return pat


def _kkt_parts(idx):
    na, nz = int(idx[0]), int(idx[1])
    ai = idx[2:2 + na].astype(np.int64)
    aj = idx[2 + na:2 + 2 * na].astype(np.int64)
    zr = idx[2 + 2 * na:2 + 2 * na + nz].astype(np.int64)
    zc = idx[2 + 2 * na + nz:2 + 2 * na + 2 * nz].astype(np.int64)
    return ai, aj, zr, zc


def _augmentation_at(idx, o):
    ng, ne, npair = int(idx[o]), int(idx[o + 1]), int(idx[o + 2])
    o += 3
    parts = []
    for size in (ng + 1, ng + 1, ne, npair):
        parts.append(idx[o:o + size].astype(np.int64))
        o += size
    return tuple(parts)


def kkt_gather(idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, ax, cval):
    """ax = entries of [M − cd Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] (c = cd = 0: M only), plus the
    augmentation of the single-block rows (:class:`KKTMap`) and its couplings ``cval``, from
    dense arrays (the engine gathers from packed workspaces: :data:`kkt_gather_packed`)."""
    ai, aj, zr, zc = _kkt_parts(idx)
    na, nz = ai.size, zr.size
    if c == 0.0 and cd == 0.0:
        ax[:na] = M[ai, aj]
    else:
        ax[:na] = M[ai, aj] - cd * Jqd[ai, aj] - c * Jq[ai, aj]
    ax[na:na + nz] = s * phiq_top[zr, zc]
    bottom = phiq_bottom[zr, zc]
    ax[na + nz:na + 2 * nz] = bottom
    gptr, pptr, eb, pa = _augmentation_at(idx, 2 + 2 * na + 2 * nz)
    for g in range(gptr.size - 1):
        es = eb[gptr[g]:gptr[g + 1]]
        sm = float(M[zc[es], zc[es]].sum())
        sb = float(bottom[es] @ bottom[es])
        alpha = sm / sb if sb > 0.0 else 0.0
        a1 = alpha * bottom[es]
        cval[gptr[g]:gptr[g + 1]] = a1
        np.add.at(ax, pa[pptr[g]:pptr[g + 1]], np.outer(a1, bottom[es]).ravel())


#: phiq_times(idx, phiq, x, y): y = Φq x over the Φq entries of a :class:`KKTMap` ``idx``
phiq_times = _engine.phiq_times
#: a_times(idx, J, x, y): y = J x over the A entries of a :class:`KKTMap` ``idx``
a_times = _engine.a_times


def kkt_values(ib, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    """:func:`kkt_gather` into the entry values of the :class:`SparseLU` (ib, fb), then factor.
    Returns (pivot ratio, largest multiplier)."""
    N, ne, nnz, nc = int(ib[_H_N]), int(ib[_H_NE]), int(ib[_H_NNZ]), int(ib[_H_NC])
    o = ne + nnz + 4 * N
    kkt_gather(idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, fb[:ne], fb[o:o + nc])
    return lu_refactor(ib, fb)


# -- the same gather from the packed workspace (the engine's rtmbs_packed_workspace) -------------
class PackedKKTMap:
    """:class:`KKTMap` ``km`` (same entries, same order, same augmentation) reading the packed
    workspace of a Cartesian system: a flat value index per A entry (into M and into Jq; Jq̇ at a
    fixed distance from Jq) and per Φq entry (a list: the terms of a coupler row are summed in
    order), from ``layout`` = :meth:`rtmbs.system.CartesianSystem.packed_layout`. ``idx`` packs
    [nA, nz, nzi, dJ, a_i, a_j, a_M, a_J, z_r, z_c, z_ptr, z_idx, z_Mdiag, augmentation].
    ``rows``: the model's row of each row of the map's Φq (the kept rows of a model with
    redundant ones, ``rtmbs.solvers.redundancy``); default: the same rows."""

    def __init__(self, km: KKTMap, layout, rows=None):
        n = km.n
        na = int(km.idx[0])
        nz = int(km.idx[1])
        ai = km.idx[2:2 + na].astype(np.int64)
        aj = km.idx[2 + na:2 + 2 * na].astype(np.int64)
        zr = km.idx[2 + 2 * na:2 + 2 * na + nz].astype(np.int64)
        zc = km.idx[2 + 2 * na + nz:2 + 2 * na + 2 * nz].astype(np.int64)
        zero = layout.size - 1
        mi, ji, pq = layout.index_maps()
        am = np.array([mi.get((i, j), zero) for i, j in zip(ai.tolist(), aj.tolist())], np.int64)
        aq = np.array([ji.get((i, j), zero) for i, j in zip(ai.tolist(), aj.tolist())], np.int64)
        if np.any(aq == zero):  # Jq̇ is read at aq + dJ: that would be past the buffer's end
            raise ValueError("packed KKT map: an entry of A lies in no Jacobian block "
                             "(every body's own block should be one)")
        zptr, zidx = [0], []
        model_row = np.arange(km.m) if rows is None else np.asarray(rows, np.int64)
        for r, c in zip(model_row[zr].tolist(), zc.tolist()):
            zidx.extend(pq.get((r, c), [zero]))
            zptr.append(len(zidx))
        zmd = np.array([mi.get((c, c), zero) for c in zc.tolist()], np.int64)
        if max([layout.size] + zidx) >= 2 ** 32 or n + km.m >= 2 ** 32:
            raise ValueError("packed KKT map: indices beyond uint32")
        self.idx = np.concatenate([[na, nz, len(zidx), layout.offsets["Jqd"] - layout.offsets["Jq"]],
                                   ai, aj, am, aq, zr, zc, zptr, zidx, zmd,
                                   km.idx[2 + 2 * na + 2 * nz:]]).astype(np.uint32)


#: kkt_gather_packed(idx, w0, c, cd, s, w1, ax, cval): :func:`kkt_gather` from packed workspaces
#: (:class:`PackedKKTMap`): M, Jq, Jq̇ and the top Φq from ``w0``, the bottom Φq from ``w1``
kkt_gather_packed = _engine.kkt_gather_packed
#: kkt_values_packed(ib, fb, idx, w0, c, cd, s, w1) -> (ratio, growth): gather, then factor
kkt_values_packed = _engine.kkt_values_packed
#: kkt_values_products_packed(ib, fb, idx, w0, c, cd, s, w1, x, jx, phix) -> (ratio, growth): with
#: jx = Jq x and, unless ``phix`` is empty, phix = Φq(w1) x taken in the gather's passes
kkt_values_products_packed = _engine.kkt_values_products_packed


def _pivot_ratio(pivots) -> float:
    return float(np.min(pivots) / np.max(pivots)) if len(pivots) else 1.0


def make_kkt_lu(a_pattern, phiq_pattern, pivot_thresh=0.01, augment_pattern=None):
    """(KKTMap, SparseLU) of a KKT matrix; :meth:`SparseKKT.factor` analyses at its first call."""
    km = KKTMap(a_pattern, phiq_pattern, augment_pattern)
    return km, SparseLU(km.n + km.m, km.rows, km.cols, pivot_thresh=pivot_thresh,
                        couplings=km.couplings)


class LUStatistics:
    """The analysis and fallback counters of a factorisation held in ``self.lu`` (a
    :class:`SparseLU`), read through."""

    @property
    def nanalyse(self) -> int:
        return self.lu.nanalyse

    @property
    def nfallback(self) -> int:
        return self.lu.nfallback

    @property
    def last_fallback(self) -> int:
        return self.lu.last_fallback


class SparseKKT(LUStatistics):
    """A KKT matrix [M − cd Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] on fixed patterns: gather from
    dense workspace arrays, factor (analysing at the first call: every multiplier eliminated
    after the coordinates of its row, or condensed onto one of ``hubs``, no pivoting, module
    docstring), solve with ``lu_solve_sp``."""

    def __init__(self, a_pattern, phiq_pattern, pivot_thresh=0.01, hubs=(), augment_pattern=None):
        self.map, self.lu = make_kkt_lu(a_pattern, phiq_pattern, pivot_thresh, augment_pattern)
        self.idx = self.map.idx
        self.hubs = [np.asarray(h, np.int64) for h in hubs]
        # no growth check: unpivoted KKT multipliers Φq_ij / a_jj are large by units alone (kg vs
        # kg m²); stability comes from the definite blocks, the pivot check catches rank loss
        self.lu.growth_limit = np.inf

    def _analyse(self) -> None:
        """Ordering and pivots at the values gathered in ``lu.ax`` (one analysis): the plain
        ordering, or the condensed one onto a hub with the fewest multiply-adds if it saves
        ``ORDER_MIN_SAVING`` of them and its pivot ratio is within ``ORDER_PIVOT_RATIO`` of the
        plain one's (module docstring)."""
        km, lu = self.map, self.lu
        n0, vals, pattern = lu.nanalyse, lu.ax.copy(), km.pattern()
        plain = min_degree_order(pattern, (range(km.n), range(km.n, km.n + km.m)), release=True)
        lu.analyse(values=vals, order=plain)
        best, flops, ratio = plain, (1.0 - ORDER_MIN_SAVING) * lu.flops, _pivot_ratio(lu.pref)
        analysed = plain
        for hub in self.hubs:
            order = substructure_order(pattern, km.n, hub)
            analysed = None
            try:
                lu.analyse(values=vals, order=order)
            except np.linalg.LinAlgError:  # a zero pivot: a substructure over-constrained
                continue
            analysed = order
            if lu.flops < flops and _pivot_ratio(lu.pref) >= ORDER_PIVOT_RATIO * ratio:
                best, flops = order, lu.flops
        if analysed is not best:
            lu.analyse(values=vals, order=best)
        lu.spec = "KKT minimum degree" if best is plain else "KKT condensed onto a hub"
        lu.nanalyse = n0 + 1

    def factor(self, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom) -> float:
        lu = self.lu
        if lu.ib is None:
            kkt_gather(self.idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, lu.ax, lu.cval)
            self._analyse()
        ratio, growth = kkt_values(lu.ib, lu.fb, self.idx, M, Jq, Jqd, c, cd, phiq_top, s,
                                   phiq_bottom)
        lu.ratio, lu.growth = ratio, growth
        return ratio

    def factor_packed(self, pidx, w0, c, cd, s, w1) -> float:
        """:meth:`factor` from packed workspaces (``pidx``: a :class:`PackedKKTMap` of this
        map)."""
        lu = self.lu
        if lu.ib is None:
            kkt_gather_packed(pidx, w0, c, cd, s, w1, lu.ax, lu.cval)
            self._analyse()
        ratio, growth = kkt_values_packed(lu.ib, lu.fb, pidx, w0, c, cd, s, w1)
        lu.ratio, lu.growth = ratio, growth
        return ratio

    def solve(self, rhs) -> None:
        lu_solve_sp(self.lu.ib, self.lu.fb, rhs)


# -- the analysis's bookkeeping and a re-reference (Algorithm 2's rebase) ----------------
def _index_given_columns(N, r64, c64, vals, pcol, thresh, rows, cols, cdst, csrc):
    """:meth:`SparseLU.analyse` with ``columns`` (a rebase of Algorithm 2's Φu) up to its index:
    rows by :func:`threshold_rows`, the fill and storage (:func:`_structure`), the runs and
    supernode rows, packed into ``ib`` (:func:`_pack_index`). Returns (ib, multiply-adds or −1
    for a zero column or −2 for an index beyond uint32, prow)."""
    prow = threshold_rows(r64, c64, vals, pcol, thresh)
    if N and prow.min() < 0:
        return np.zeros(0, np.uint32), -1, prow
    ptr, col, diag, amap, fl = _structure(N, r64, c64, prow, pcol)
    ib = _pack_index(N, ptr, diag, col, amap, prow, pcol, rows, cols, cdst, csrc)
    return (ib, -2, prow) if ib is None else (ib, fl, prow)


def _pack_index(N, ptr, diag, col, amap, prow, pcol, rows, cols, cdst, csrc):
    """The index ``ib`` (uint32: the header, then the parts) of the factors with the storage
    (ptr, diag, col, amap) and the orders (prow, pcol); None when a value is beyond uint32."""
    urptr, rc0, rlen = column_runs(ptr, diag, col)
    fptr, fcol, eptr, ecol, eidx = row_entries(ptr, col, amap)
    parts = [ptr, diag, col, amap, prow, pcol, rows, cols, cdst, csrc, urptr, rc0, rlen,
             paired_rows(ptr, diag, col), fptr, fcol, eptr, ecol, eidx]
    head = np.zeros(_H_LEN, np.int64)
    head[_H_N], head[_H_NE], head[_H_NNZ], head[_H_NC] = N, len(rows), ptr[-1], len(cdst)
    head[_H_NRUN] = rc0.size
    head[_H_NFILL] = fcol.size
    off = _H_LEN
    for slot, a in zip((_H_PTR, _H_DIAG, _H_COL, _H_AMAP, _H_PROW, _H_PCOL, _H_ROWS, _H_COLS,
                        _H_CDST, _H_CSRC, _H_URPTR, _H_RC0, _H_RLEN, _H_PAIRED, _H_FPTR, _H_FCOL,
                        _H_EPTR, _H_ECOL, _H_EIDX), parts):
        head[slot] = off
        off += len(a)
    ib = np.concatenate([head] + [np.asarray(a, np.int64) for a in parts])
    if ib.size and ib.max() >= 2 ** 32:
        return None
    return ib.astype(np.uint32)
