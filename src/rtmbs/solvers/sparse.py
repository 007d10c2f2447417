"""Sparse LU with a fixed pattern, ordering and pivot sequence (PERFORMANCE.md; docs/solvers.md).

The real-time matrices (the KKT matrix of seed 000 eq. 22, the projection matrix of eq. 30, Φu of
the coordinate partitioning) keep one sparsity pattern for the whole run. So:

* :meth:`SparseLU.analyse` (once, at ``reset``; Python + SciPy, allocates): SuperLU
  (``scipy.sparse.linalg.splu``) is run on the initial numeric matrix for a fill-reducing column
  ordering and a threshold-pivoting row order; of several orderings the one with the fewest
  multiply-adds is kept. The symbolic fill of the permuted matrix is then computed without
  further pivoting, and everything is packed into one uint32 array ``ib`` and one float array
  ``fb``.
* :func:`lu_refactor` (every step; numba, allocates nothing): scatter the entry values ``ax``
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
from numba import njit

from ..kernels.arena import borrowed
from ..tolerances import ORDER_PIVOT_RATIO, PIVOT_REL

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
 _H_CDST, _H_CSRC, _H_NRUN, _H_URPTR, _H_RC0, _H_RLEN, _H_PAIRED, _H_LEN) = range(20)
# ``fb`` = [ax (ne) | lu (nnz) | w (N) | pivot references (N) | b0 (N) | r (N) | couplings (nc) |
#           statistics (_S_LEN) | reciprocal pivots 1/u_kk (N)]
_S_FLAG, _S_COUNT, _S_ROW, _S_GROWTH_LIMIT, _S_LEN = range(5)


# -- numba kernels ------------------------------------------------------------------------------
@njit(cache=True, error_model="numpy")
def _views(ib, fb):
    N = np.intp(ib[_H_N])
    ne = np.intp(ib[_H_NE])
    nnz = np.intp(ib[_H_NNZ])
    ptr = ib[ib[_H_PTR]:ib[_H_PTR] + N + 1]
    diag = ib[ib[_H_DIAG]:ib[_H_DIAG] + N]
    col = ib[ib[_H_COL]:ib[_H_COL] + nnz]
    amap = ib[ib[_H_AMAP]:ib[_H_AMAP] + ne]
    prow = ib[ib[_H_PROW]:ib[_H_PROW] + N]
    pcol = ib[ib[_H_PCOL]:ib[_H_PCOL] + N]
    ax = fb[0:ne]
    lu = fb[ne:ne + nnz]
    w = fb[ne + nnz:ne + nnz + N]
    return N, ptr, diag, col, amap, prow, pcol, ax, lu, w


@njit(cache=True, error_model="numpy")
def _extras(ib, fb):
    """Entry rows/cols, couplings (dst, src, values), pivot references, b0, r, statistics."""
    N = np.intp(ib[_H_N])
    ne = np.intp(ib[_H_NE])
    nnz = np.intp(ib[_H_NNZ])
    nc = np.intp(ib[_H_NC])
    rows = ib[ib[_H_ROWS]:ib[_H_ROWS] + ne]
    cols = ib[ib[_H_COLS]:ib[_H_COLS] + ne]
    cdst = ib[ib[_H_CDST]:ib[_H_CDST] + nc]
    csrc = ib[ib[_H_CSRC]:ib[_H_CSRC] + nc]
    o = ne + nnz + N
    pref = fb[o:o + N]
    b0 = fb[o + N:o + 2 * N]
    r = fb[o + 2 * N:o + 3 * N]
    cval = fb[o + 3 * N:o + 3 * N + nc]
    stats = fb[o + 3 * N + nc:o + 3 * N + nc + _S_LEN]
    return rows, cols, cdst, csrc, cval, pref, b0, r, stats


@njit(cache=True, error_model="numpy")
def _uinv(ib, fb):
    """The reciprocal pivots 1/u_kk of the last :func:`lu_refactor`: the eliminations and the
    substitutions multiply by them instead of dividing (a division's latency sits on the chain
    from one pivot row to the next)."""
    N = np.intp(ib[_H_N])
    o = fb.shape[0] - N
    return fb[o:o + N]


@njit(cache=True, error_model="numpy")
def _runs(ib):
    """The U part of every row of the factors as runs of consecutive columns: row k's runs are
    urptr[k]..urptr[k+1], run r starts at column rc0[r] and has rlen[r] entries (stored in
    order right after the diagonal)."""
    N = np.intp(ib[_H_N])
    nrun = np.intp(ib[_H_NRUN])
    urptr = ib[ib[_H_URPTR]:ib[_H_URPTR] + N + 1]
    rc0 = ib[ib[_H_RC0]:ib[_H_RC0] + nrun]
    rlen = ib[ib[_H_RLEN]:ib[_H_RLEN] + nrun]
    return urptr, rc0, rlen


@njit(cache=True, error_model="numpy")
def _paired(ib):
    """paired[k] = 1 when row k's U part is column k + 1 followed by row k + 1's U part
    (:func:`paired_rows`)."""
    N = np.intp(ib[_H_N])
    return ib[ib[_H_PAIRED]:ib[_H_PAIRED] + N]


def paired_rows(ptr, diag, col):
    """For every row k of the row storage (ptr, diag, col): 1 when the U part of row k is
    column k + 1 followed by the U part of row k + 1 (consecutive rows of a supernode: a body's
    coordinates, a joint's multipliers), else 0. A row i whose L part holds k .. k + g − 1 of
    such rows (g = 2, 3, 4) takes those eliminations in one pass over the runs of row k + g − 1
    (:func:`lu_refactor`)."""
    return _paired_rows_nb(*(np.asarray(a, np.int64) for a in (ptr, diag, col)))


def column_runs(ptr, diag, col):
    """(urptr, rc0, rlen) of :func:`_runs` for the row storage (ptr, diag, col)."""
    return _column_runs_nb(*(np.asarray(a, np.int64) for a in (ptr, diag, col)))


@njit(cache=True, error_model="numpy", inline="always")
def _lead_pair(w, lu, uinv, lik, k, dk, d1):
    """The multipliers l_i,k+1 and l_i,k+2 of a group of supernode rows k, k + 1, k + 2, ...
    (:func:`lu_refactor`): columns k + 1 and k + 2 of the row take the updates of the group's
    rows before them in turn (row k's U part starts at dk + 1 with column k + 1, row k + 1's at
    d1 + 1 with column k + 2)."""
    one = np.uint32(1)
    k1 = k + one
    k2 = k1 + one
    w[k1] -= lik * lu[dk + one]
    l1 = w[k1] * uinv[k1]
    w[k1] = l1
    w[k2] = (w[k2] - lik * lu[dk + one + one]) - l1 * lu[d1 + one]
    l2 = w[k2] * uinv[k2]
    w[k2] = l2
    return l1, l2


@njit(cache=True, error_model="numpy")
def lu_refactor(ib, fb):
    """Numeric LU of the values ``ax`` (in ``fb``) with the fixed pattern and pivots of ``ib``;
    static pivoting of pivots below ``PIVOT_REL`` times their reference (module docstring).
    Returns (pivot ratio min|u_kk|/max|u_kk| or 0.0, max |l_ik|)."""
    ib = borrowed(ib); fb = borrowed(fb)
    N, ptr, diag, col, amap, prow, pcol, ax, lu, w = _views(ib, fb)
    rows, cols, cdst, csrc, cval, pref, b0, r, stats = _extras(ib, fb)
    for p in range(lu.shape[0]):
        lu[p] = 0.0
    for e in range(ax.shape[0]):
        lu[amap[e]] += ax[e]
    umax = 0.0
    umin = np.inf
    lmax = 0.0
    nperturbed = 0
    bad = False
    urptr, rc0, rlen = _runs(ib)
    paired = _paired(ib)
    uinv = _uinv(ib, fb)
    one = np.uint32(1)  # unsigned loop indices: numba drops the negative-index checks
    two, three, four = np.uint32(2), np.uint32(3), np.uint32(4)
    for i in range(N):
        p0 = ptr[i]
        p1 = ptr[i + one]
        d = diag[i]
        for p in range(p0, p1):
            w[col[p]] = lu[p]
        p = p0
        while p < d:
            k = col[p]
            dk = diag[k]
            lik = w[k] * uinv[k]
            w[k] = lik
            a = abs(lik)
            if a > lmax:
                lmax = a
            if (p + three < d and paired[k] != 0 and paired[k + one] != 0 and paired[k + two] != 0
                    and col[p + three] == k + three):
                # four rows of a supernode in one pass (as the pair below): the columns k + 1 ..
                # k + 3 take the updates of the rows before them in turn, then every column of
                # row k + 3's runs takes the four updates in the order of k
                k3 = k + three
                d1, d2, d3 = diag[k + one], diag[k + two], diag[k3]
                l1, l2 = _lead_pair(w, lu, uinv, lik, k, dk, d1)
                w[k3] = ((w[k3] - lik * lu[dk + three]) - l1 * lu[d1 + two]) - l2 * lu[d2 + one]
                l3 = w[k3] * uinv[k3]
                w[k3] = l3
                a = max(abs(l1), abs(l2), abs(l3))
                if a > lmax:
                    lmax = a
                r0 = dk + four
                r1 = d1 + three
                r2 = d2 + two
                r3 = d3 + one
                for r in range(urptr[k3], urptr[k3 + one]):
                    c0 = rc0[r]
                    ln = rlen[r]
                    for j in range(ln):
                        w[c0 + j] = (((w[c0 + j] - lik * lu[r0 + j]) - l1 * lu[r1 + j])
                                     - l2 * lu[r2 + j]) - l3 * lu[r3 + j]
                    r0 += ln
                    r1 += ln
                    r2 += ln
                    r3 += ln
                p += four
                continue
            if (p + two < d and paired[k] != 0 and paired[k + one] != 0
                    and col[p + two] == k + two):
                # three rows (as four)
                k2 = k + two
                d1, d2 = diag[k + one], diag[k2]
                l1, l2 = _lead_pair(w, lu, uinv, lik, k, dk, d1)
                a = max(abs(l1), abs(l2))
                if a > lmax:
                    lmax = a
                r0 = dk + three
                r1 = d1 + two
                r2 = d2 + one
                for r in range(urptr[k2], urptr[k2 + one]):
                    c0 = rc0[r]
                    ln = rlen[r]
                    for j in range(ln):
                        w[c0 + j] = ((w[c0 + j] - lik * lu[r0 + j]) - l1 * lu[r1 + j]) - l2 * lu[r2 + j]
                    r0 += ln
                    r1 += ln
                    r2 += ln
                p += three
                continue
            if p + one < d and paired[k] != 0 and col[p + one] == k + one:
                # rows k and k + 1 of a supernode in one pass: w_{k+1} takes row k's update,
                # gives l_i,k+1, then every column of row k + 1's runs takes both updates in
                # the order of k (the same operations in the same order as row by row, half the
                # loads and stores of w and half the loop set-ups)
                k1 = k + one
                d1 = diag[k1]
                w[k1] -= lik * lu[dk + one]
                l1 = w[k1] * uinv[k1]
                w[k1] = l1
                a = abs(l1)
                if a > lmax:
                    lmax = a
                rr = dk + one + one
                r1 = d1 + one
                for r in range(urptr[k1], urptr[k1 + one]):
                    c0 = rc0[r]
                    ln = rlen[r]
                    for j in range(ln):
                        w[c0 + j] = (w[c0 + j] - lik * lu[rr + j]) - l1 * lu[r1 + j]
                    rr += ln
                    r1 += ln
                p += one + one
                continue
            # row k's U part run by run: contiguous columns, no index loads, vectorised
            # (the same multiply-adds in the same order as entry by entry)
            rr = dk + one
            for r in range(urptr[k], urptr[k + one]):
                c0 = rc0[r]
                ln = rlen[r]
                for j in range(ln):
                    w[c0 + j] -= lik * lu[rr + j]
                rr += ln
            p += one
        for p in range(p0, p1):
            lu[p] = w[col[p]]
        u = abs(lu[d])
        if not (u < np.inf):  # NaN or infinite pivot: no factors
            bad = True
        bound = PIVOT_REL * pref[i]
        if u < bound:  # static pivot: keep the sign, raise the magnitude (NaN passes through)
            lu[d] = -bound if lu[d] < 0.0 else bound
            u = bound
            nperturbed += 1
            stats[_S_ROW] = prow[i]
        uinv[i] = 1.0 / lu[d]
        if u > umax:
            umax = u
        if u < umin:
            umin = u
    flagged = nperturbed > 0 or lmax > stats[_S_GROWTH_LIMIT]
    stats[_S_FLAG] = 1.0 if flagged else 0.0
    if flagged:
        stats[_S_COUNT] += 1.0
    if N == 0:
        return 1.0, 0.0
    if bad or not (umin > 0.0) or not (umax < np.inf) or not (lmax < np.inf):
        return 0.0, lmax
    return umin / umax, lmax


@njit(cache=True, error_model="numpy")
def lu_pivot_range_sp(ib, fb):
    """(min, max) of |u_kk| of the last :func:`lu_refactor` (after any static pivoting)."""
    N, ptr, diag, col, amap, prow, pcol, ax, lu, w = _views(ib, fb)
    lo = np.inf
    hi = 0.0
    for k in range(N):
        u = abs(lu[diag[k]])
        if u < lo:
            lo = u
        if u > hi:
            hi = u
    return lo, hi


@njit(cache=True, error_model="numpy")
def _substitute(N, ptr, diag, col, prow, pcol, lu, uinv, w, b):
    """b ← U⁻¹L⁻¹ b with the row and column permutations of the factors."""
    for i in range(N):
        w[i] = b[prow[i]] - _dot4(lu, w, col, ptr[i], diag[i])
    for i in range(N - 1, -1, -1):
        w[i] = (w[i] - _dot4(lu, w, col, diag[i] + 1, ptr[i + 1])) * uinv[i]
    for j in range(N):
        b[pcol[j]] = w[j]


@njit(cache=True, error_model="numpy", inline="always")
def _dot4(lu, w, col, p0, p1):
    """Σ lu[p] w[col[p]] over p0 <= p < p1 in four interleaved partial sums (four independent
    chains of additions instead of one: the triangular solves are bound by the latency of the
    additions)."""
    s0 = s1 = s2 = s3 = 0.0
    p = p0
    while p + 4 <= p1:
        s0 += lu[p] * w[col[p]]
        s1 += lu[p + 1] * w[col[p + 1]]
        s2 += lu[p + 2] * w[col[p + 2]]
        s3 += lu[p + 3] * w[col[p + 3]]
        p += 4
    while p < p1:
        s0 += lu[p] * w[col[p]]
        p += 1
    return (s0 + s1) + (s2 + s3)


@njit(cache=True, error_model="numpy")
def _sub(N, ptr, diag, col, prow, pcol, lu, uinv, w, b, transpose):
    if transpose:
        _substitute_t(N, ptr, diag, col, prow, pcol, lu, uinv, w, b)
    else:
        _substitute(N, ptr, diag, col, prow, pcol, lu, uinv, w, b)


@njit(cache=True, error_model="numpy")
def _solve_refined(ib, fb, b, transpose):
    """Solve A x = b (or Aᵀ x = b) in place with the factors; when they are flagged, ``NREFINE``
    steps of iterative refinement against the entry values ``ax``."""
    ib = borrowed(ib); fb = borrowed(fb); b = borrowed(b)
    N, ptr, diag, col, amap, prow, pcol, ax, lu, w = _views(ib, fb)
    rows, cols, cdst, csrc, cval, pref, b0, r, stats = _extras(ib, fb)
    uinv = _uinv(ib, fb)
    if stats[_S_FLAG] == 0.0:
        _sub(N, ptr, diag, col, prow, pcol, lu, uinv, w, b, transpose)
        return
    for i in range(N):
        b0[i] = b[i]
    _sub(N, ptr, diag, col, prow, pcol, lu, uinv, w, b, transpose)
    for _ in range(NREFINE):
        for i in range(N):
            r[i] = b0[i]
        if transpose:
            for e in range(ax.shape[0]):
                r[cols[e]] -= ax[e] * b[rows[e]]
        else:
            for e in range(ax.shape[0]):
                r[rows[e]] -= ax[e] * b[cols[e]]
        _sub(N, ptr, diag, col, prow, pcol, lu, uinv, w, r, transpose)
        for i in range(N):
            b[i] += r[i]


@njit(cache=True, error_model="numpy")
def lu_solve_sp(ib, fb, b):
    """Solve A x = b in place in ``b`` with the factors of :func:`lu_refactor` (with the
    couplings b[dst] += c b[src] of an augmented KKT matrix first, and ``NREFINE`` refinement
    steps when the factors are flagged)."""
    ib = borrowed(ib); fb = borrowed(fb); b = borrowed(b)
    rows, cols, cdst, csrc, cval, pref, b0, r, stats = _extras(ib, fb)
    for c in range(cdst.shape[0]):
        b[cdst[c]] += cval[c] * b[csrc[c]]
    _solve_refined(ib, fb, b, False)


@njit(cache=True, error_model="numpy")
def lu_solve_multi_sp(ib, fb, X, W):
    """Solve A Y = X in place in ``X (N, k)`` (k right-hand sides as columns; the inner loops run
    over the k columns, contiguous). ``W (N, k)`` is work space."""
    N, ptr, diag, col, amap, prow, pcol, ax, lu, w = _views(ib, fb)
    uinv = _uinv(ib, fb)
    k = X.shape[1]
    if _extras(ib, fb)[8][_S_FLAG] != 0.0:  # flagged factors: refined solves, one column each
        for c in range(k):
            lu_solve_sp(ib, fb, X[:, c])
        return
    for i in range(N):
        r = prow[i]
        for c in range(k):
            W[i, c] = X[r, c]
        for p in range(ptr[i], diag[i]):
            l = lu[p]
            j = col[p]
            for c in range(k):
                W[i, c] -= l * W[j, c]
    for i in range(N - 1, -1, -1):
        d = diag[i]
        for p in range(d + 1, ptr[i + 1]):
            u = lu[p]
            j = col[p]
            for c in range(k):
                W[i, c] -= u * W[j, c]
        inv = uinv[i]
        for c in range(k):
            W[i, c] *= inv
    for j in range(N):
        r = pcol[j]
        for c in range(k):
            X[r, c] = W[j, c]


@njit(cache=True, error_model="numpy")
def _substitute_t(N, ptr, diag, col, prow, pcol, lu, uinv, w, b):
    """b ← (LU)⁻ᵀ b with the permutations of the factors."""
    for j in range(N):
        w[j] = b[pcol[j]]
    # Uᵀ v = w (column sweep over the rows of U)
    for i in range(N):
        d = diag[i]
        v = w[i] * uinv[i]
        w[i] = v
        for p in range(d + 1, ptr[i + 1]):
            w[col[p]] -= lu[p] * v
    # Lᵀ z = v
    for i in range(N - 1, -1, -1):
        z = w[i]
        for p in range(ptr[i], diag[i]):
            w[col[p]] -= lu[p] * z
    for i in range(N):
        b[prow[i]] = w[i]


@njit(cache=True, error_model="numpy")
def lu_solve_t_sp(ib, fb, b):
    """Solve Aᵀ x = b in place in ``b`` with the factors of :func:`lu_refactor` (refined when
    flagged; the couplings of an augmented KKT matrix applied as their transpose, after)."""
    ib = borrowed(ib); fb = borrowed(fb); b = borrowed(b)
    rows, cols, cdst, csrc, cval, pref, b0, r, stats = _extras(ib, fb)
    _solve_refined(ib, fb, b, True)
    for c in range(cdst.shape[0]):
        b[csrc[c]] += cval[c] * b[cdst[c]]


@njit(cache=True, error_model="numpy")
def lu_matvec_sp(ib, fb, rows, cols, x, y):
    """y = A x with the entry values ``ax`` (for residual checks; ``rows``/``cols`` of the entries)."""
    ne = np.intp(ib[_H_NE])
    for i in range(y.shape[0]):
        y[i] = 0.0
    for e in range(ne):
        y[rows[e]] += fb[e] * x[cols[e]]


@njit(cache=True)
def _symbolic(pat):
    """Fill of the LU without pivoting of the square bool pattern ``pat`` (in place), row by row:
    row i takes the U part of each row k < i of its pattern, k ascending (the fill of the
    elimination column by column, over the entries only: ~2× faster at a rebase, issue 11)."""
    N = pat.shape[0]
    ucnt = np.zeros(N, np.int64)
    ucol = np.empty((N, N), np.int64)
    for i in range(N):
        for k in range(i):
            if pat[i, k]:
                for t in range(ucnt[k]):
                    pat[i, ucol[k, t]] = True
        c = 0
        for j in range(i + 1, N):
            if pat[i, j]:
                ucol[i, c] = j
                c += 1
        ucnt[i] = c
    return pat


@njit(cache=True)
def _flops(pat) -> int:
    """Multiply-adds of the elimination on the filled pattern."""
    N = pat.shape[0]
    nu = np.zeros(N, np.int64)
    for k in range(N):
        for j in range(k + 1, N):
            if pat[k, j]:
                nu[k] += 1
    tot = 0
    for i in range(N):
        for k in range(i):
            if pat[i, k]:
                tot += nu[k] + 1
    return tot


@njit(cache=True)
def _pack(pat, rows, cols, irow, icol):
    """Row pointers, column indices and diagonal positions of the filled pattern ``pat``, and the
    position of each entry (rows[e], cols[e]) of the matrix in that storage."""
    N = pat.shape[0]
    ptr = np.zeros(N + 1, np.int64)
    for i in range(N):
        c = 0
        for j in range(N):
            if pat[i, j]:
                c += 1
        ptr[i + 1] = ptr[i] + c
    col = np.empty(ptr[N], np.int64)
    diag = np.empty(N, np.int64)
    for i in range(N):
        p = ptr[i]
        for j in range(N):
            if pat[i, j]:
                col[p] = j
                if j == i:
                    diag[i] = p
                p += 1
    amap = np.empty(rows.shape[0], np.int64)
    for e in range(rows.shape[0]):
        i = irow[rows[e]]
        j = icol[cols[e]]
        lo = ptr[i]
        hi = ptr[i + 1]
        while lo < hi:  # binary search of j in the sorted columns of row i
            mid = (lo + hi) // 2
            if col[mid] < j:
                lo = mid + 1
            else:
                hi = mid
        amap[e] = lo
    return ptr, col, diag, amap


@njit(cache=True)
def _structure(N, rows, cols, prow, pcol):
    """The LU storage of the matrix with entries (rows, cols) eliminated in the order
    (prow, pcol) without further pivoting: (ptr, col, diag, amap, multiply-adds)."""
    irow = np.empty(N, np.int64)
    icol = np.empty(N, np.int64)
    for k in range(N):
        irow[prow[k]] = k
        icol[pcol[k]] = k
    pat = np.zeros((N, N), np.bool_)
    for k in range(N):
        pat[k, k] = True
    for e in range(rows.shape[0]):
        pat[irow[rows[e]], icol[cols[e]]] = True
    _symbolic(pat)
    ptr, col, diag, amap = _pack(pat, rows, cols, irow, icol)
    return ptr, col, diag, amap, _flops(pat)


@njit(cache=True)
def threshold_rows(rows, cols, vals, pcol, thresh):
    """Row order for the column order ``pcol`` of the N × N matrix with entries (rows, cols, vals):
    dense Gaussian elimination with threshold partial pivoting, choosing among the rows whose
    entry is at least ``thresh`` times the column's largest the one with the fewest non-zeros
    (Markowitz-like, as SuperLU's threshold pivoting). Returns prow (the matrix row at each
    position); a row of -1 means a zero column (singular)."""
    N = pcol.shape[0]
    icol = np.empty(N, np.int64)
    for j in range(N):
        icol[pcol[j]] = j
    A = np.zeros((N, N))
    nz = np.zeros((N, N), np.bool_)
    for e in range(rows.shape[0]):
        A[rows[e], icol[cols[e]]] += vals[e]
        nz[rows[e], icol[cols[e]]] = True
    count = np.zeros(N, np.int64)
    for i in range(N):
        for j in range(N):
            if nz[i, j]:
                count[i] += 1
    used = np.zeros(N, np.bool_)
    prow = np.full(N, -1, np.int64)
    jlist = np.empty(N, np.uint64)
    for k in range(N):
        big = 0.0
        for i in range(N):
            if not used[i] and abs(A[i, k]) > big:
                big = abs(A[i, k])
        if big == 0.0:
            return prow
        best = -1
        for i in range(N):
            if not used[i] and abs(A[i, k]) >= thresh * big:
                if best < 0 or count[i] < count[best]:
                    best = i
        used[best] = True
        prow[k] = best
        inv = 1.0 / A[best, k]
        nj = 0
        for j in range(k + 1, N):  # the pivot row's entries, in column order
            if nz[best, j]:
                jlist[nj] = j
                nj += 1
        bu = np.uint64(best)
        for i in range(N):
            if not used[i] and A[i, k] != 0.0:
                lik = A[i, k] * inv
                iu = np.uint64(i)  # (unsigned indices: no negative-index checks)
                for t in range(nj):
                    j = jlist[t]
                    A[iu, j] -= lik * A[bu, j]
                    if not nz[iu, j]:
                        nz[iu, j] = True
                        count[i] += 1
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
    from ..kernels.rotations import NROT

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
    ib, fb : packed index (uint32) and float arrays passed to the numba kernels
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
        column order ``columns`` given with rows by :func:`threshold_rows` (numba, no SciPy);
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
        self.nanalyse += 1

    def _pack(self, ptr, diag, col, amap, prow, pcol) -> np.ndarray:
        """The index ``ib`` (uint32: the header, then the parts) of the factors with the storage
        (ptr, diag, col, amap) and the orders (prow, pcol)."""
        N = self.N
        urptr, rc0, rlen = column_runs(ptr, diag, col)
        parts = [ptr, diag, col, amap, prow, pcol, self.rows, self.cols, self.cdst, self.csrc,
                 urptr, rc0, rlen, paired_rows(ptr, diag, col)]
        head = np.zeros(_H_LEN, np.int64)
        head[_H_N], head[_H_NE], head[_H_NNZ], head[_H_NC] = N, self.ne, ptr[-1], self.cdst.size
        head[_H_NRUN] = rc0.size
        off = _H_LEN
        for slot, a in zip((_H_PTR, _H_DIAG, _H_COL, _H_AMAP, _H_PROW, _H_PCOL, _H_ROWS, _H_COLS,
                            _H_CDST, _H_CSRC, _H_URPTR, _H_RC0, _H_RLEN, _H_PAIRED), parts):
            head[slot] = off
            off += a.size
        ib = np.concatenate([head] + [np.asarray(a, np.int64) for a in parts])
        if ib.size and ib.max() >= 2 ** 32:
            raise ValueError("SparseLU: pattern too large for uint32 indices")
        return ib.astype(np.uint32)

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


@njit(cache=True, error_model="numpy")
def _kkt_parts(idx):
    na = np.intp(idx[0])
    nz = np.intp(idx[1])
    ai = idx[2:2 + na]
    aj = idx[2 + na:2 + 2 * na]
    zr = idx[2 + 2 * na:2 + 2 * na + nz]
    zc = idx[2 + 2 * na + nz:2 + 2 * na + 2 * nz]
    return ai, aj, zr, zc


@njit(cache=True, error_model="numpy")
def _kkt_augmentation(idx):
    na = np.intp(idx[0])
    nz = np.intp(idx[1])
    return _augmentation_at(idx, 2 + 2 * na + 2 * nz)


@njit(cache=True, error_model="numpy", inline="always")
def _augmentation_at(idx, o):
    ng = np.intp(idx[o])
    ne = np.intp(idx[o + 1])
    npair = np.intp(idx[o + 2])
    o += 3
    gptr = idx[o:o + ng + 1]
    o += ng + 1
    pptr = idx[o:o + ng + 1]
    o += ng + 1
    eb = idx[o:o + ne]
    o += ne
    pa = idx[o:o + npair]
    return gptr, pptr, eb, pa


@njit(cache=True, error_model="numpy", inline="always")
def _augment_group(g, sm, aug, bottom, ax, cval):
    """The augmentation of the single-block rows of group ``g`` (:class:`KKTMap`): α = sm / Σ φ²
    over its entries φ of the bottom Φq (sm: the sum of the mass diagonals of their columns),
    α Φqᵀ Φq added to its A entries and the couplings α φ into ``cval``."""
    gptr, pptr, eb, pa = aug
    e0, e1 = gptr[g], gptr[g + 1]
    sb = 0.0
    for k in range(e0, e1):
        sb += bottom[eb[k]] * bottom[eb[k]]
    alpha = sm / sb if sb > 0.0 else 0.0
    p = pptr[g]  # the pairs (k1, k2) of the row's entries, row-major
    for k1 in range(e0, e1):
        a1 = alpha * bottom[eb[k1]]
        cval[k1] = a1
        for k2 in range(e0, e1):
            ax[pa[p]] += a1 * bottom[eb[k2]]
            p += 1


@njit(cache=True, error_model="numpy")
def kkt_gather(idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, ax, cval):
    """ax = entries of [M − cd Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] (c = cd = 0: M only), plus the
    augmentation of the single-block rows (:class:`KKTMap`) and its couplings ``cval``."""
    idx = borrowed(idx); ax = borrowed(ax); cval = borrowed(cval)
    ai, aj, zr, zc = _kkt_parts(idx)
    na = ai.shape[0]
    nz = zr.shape[0]
    if c == 0.0 and cd == 0.0:
        for e in range(na):
            ax[e] = M[ai[e], aj[e]]
    else:
        for e in range(na):
            i = ai[e]
            j = aj[e]
            ax[e] = M[i, j] - cd * Jqd[i, j] - c * Jq[i, j]
    for e in range(nz):
        ax[na + e] = s * phiq_top[zr[e], zc[e]]
        ax[na + nz + e] = phiq_bottom[zr[e], zc[e]]
    aug = _kkt_augmentation(idx)
    gptr, eb = aug[0], aug[2]
    for g in range(gptr.shape[0] - 1):
        sm = 0.0
        for k in range(gptr[g], gptr[g + 1]):
            sm += M[zc[eb[k]], zc[eb[k]]]
        _augment_group(g, sm, aug, ax[na + nz:na + 2 * nz], ax, cval)


@njit(cache=True, error_model="numpy")
def phiq_times(idx, phiq, x, y):
    """y = Φq x over the Φq entries of a :class:`KKTMap` ``idx``."""
    idx = borrowed(idx)
    ai, aj, zr, zc = _kkt_parts(idx)
    for i in range(y.shape[0]):
        y[i] = 0.0
    for e in range(zr.shape[0]):
        y[zr[e]] += phiq[zr[e], zc[e]] * x[zc[e]]


@njit(cache=True, error_model="numpy")
def a_times(idx, J, x, y):
    """y = J x over the A entries of a :class:`KKTMap` ``idx`` (J zero outside them)."""
    idx = borrowed(idx)
    ai, aj, zr, zc = _kkt_parts(idx)
    for i in range(y.shape[0]):
        y[i] = 0.0
    for e in range(ai.shape[0]):
        y[ai[e]] += J[ai[e], aj[e]] * x[aj[e]]


@njit(cache=True, error_model="numpy")
def kkt_values(ib, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    """:func:`kkt_gather` into the entry values of the :class:`SparseLU` (ib, fb), then factor."""
    ib = borrowed(ib); fb = borrowed(fb); idx = borrowed(idx)
    ne = np.intp(ib[_H_NE])
    cval = _extras(ib, fb)[4]
    kkt_gather(idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, fb[:ne], cval)
    return lu_refactor(ib, fb)


# -- the same gather from the packed workspace (rtmbs.kernels.evaluate.packed_views) ----------------
class PackedKKTMap:
    """:class:`KKTMap` ``km`` (same entries, same order, same augmentation) reading the packed
    workspace of a Cartesian system: a flat value index per A entry (into M and into Jq; Jq̇ at a
    fixed distance from Jq) and per Φq entry (a list: the terms of a coupler row are summed in
    order), from ``layout`` = :meth:`rtmbs.system.CartesianSystem.packed_layout`. ``idx`` packs
    [nA, nz, nzi, dJ, a_i, a_j, a_M, a_J, z_r, z_c, z_ptr, z_idx, z_Mdiag, augmentation]."""

    def __init__(self, km: KKTMap, layout):
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
        for r, c in zip(zr.tolist(), zc.tolist()):
            zidx.extend(pq.get((r, c), [zero]))
            zptr.append(len(zidx))
        zmd = np.array([mi.get((c, c), zero) for c in zc.tolist()], np.int64)
        if max([layout.size] + zidx) >= 2 ** 32 or n + km.m >= 2 ** 32:
            raise ValueError("packed KKT map: indices beyond uint32")
        self.idx = np.concatenate([[na, nz, len(zidx), layout.offsets["Jqd"] - layout.offsets["Jq"]],
                                   ai, aj, am, aq, zr, zc, zptr, zidx, zmd,
                                   km.idx[2 + 2 * na + 2 * nz:]]).astype(np.uint32)


@njit(cache=True, error_model="numpy", inline="always")
def _packed_parts(idx):
    na = np.intp(idx[0])
    nz = np.intp(idx[1])
    nzi = np.intp(idx[2])
    dj = np.intp(idx[3])
    o = 4
    ai = idx[o:o + na]; o += na
    aj = idx[o:o + na]; o += na
    am = idx[o:o + na]; o += na
    aq = idx[o:o + na]; o += na
    zr = idx[o:o + nz]; o += nz
    zc = idx[o:o + nz]; o += nz
    zptr = idx[o:o + nz + 1]; o += nz + 1
    zidx = idx[o:o + nzi]; o += nzi
    zmd = idx[o:o + nz]; o += nz
    return dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o


@njit(cache=True, error_model="numpy", inline="always")
def _phiq_value(w, zptr, zidx, e):
    v = w[zidx[zptr[e]]]
    for k in range(zptr[e] + 1, zptr[e + 1]):
        v += w[zidx[k]]
    return v


@njit(cache=True, error_model="numpy")
def kkt_gather_packed(idx, w0, c, cd, s, w1, ax, cval):
    """:func:`kkt_gather` from packed workspaces (:class:`PackedKKTMap`): M, Jq, Jq̇ and the top
    Φq from ``w0``, the bottom Φq from ``w1``; the same values in the same order."""
    _gather_packed(idx, w0, c, cd, s, w1, ax, cval, ax[:0], ax[:0], ax[:0])


@njit(cache=True, error_model="numpy", inline="always")
def _gather_packed(idx, w0, c, cd, s, w1, ax, cval, x, jx, phix):
    """:func:`kkt_gather_packed`; with ``jx`` not empty also jx = Jq x over the A entries and
    with ``phix`` not empty phix = Φq(w1) x, in the same passes (each sum in the order of the
    entries, as :func:`a_times` and :func:`phiq_times` on dense arrays)."""
    idx = borrowed(idx); w0 = borrowed(w0); w1 = borrowed(w1); ax = borrowed(ax); cval = borrowed(cval)
    dj, ai, aj, am, aq, zr, zc, zptr, zidx, zmd, o = _packed_parts(idx)
    na = ai.shape[0]
    nz = zr.shape[0]
    plain = c == 0.0 and cd == 0.0
    products = jx.shape[0] > 0
    for i in range(jx.shape[0]):
        jx[i] = 0.0
    for e in range(na):
        k = aq[e]
        if plain:
            ax[e] = w0[am[e]]
        else:
            ax[e] = w0[am[e]] - cd * w0[k + dj] - c * w0[k]
        if products:
            jx[ai[e]] += w0[k] * x[aj[e]]
    with_phix = phix.shape[0] > 0
    for i in range(phix.shape[0]):
        phix[i] = 0.0
    for e in range(nz):
        ax[na + e] = s * _phiq_value(w0, zptr, zidx, e)
        v = _phiq_value(w1, zptr, zidx, e)
        ax[na + nz + e] = v
        if with_phix:
            phix[zr[e]] += v * x[zc[e]]
    aug = _augmentation_at(idx, o)
    gptr, eb = aug[0], aug[2]
    for g in range(gptr.shape[0] - 1):
        sm = 0.0
        for k in range(gptr[g], gptr[g + 1]):
            sm += w0[zmd[eb[k]]]
        _augment_group(g, sm, aug, ax[na + nz:na + 2 * nz], ax, cval)


@njit(cache=True, error_model="numpy")
def kkt_values_packed(ib, fb, idx, w0, c, cd, s, w1):
    """:func:`kkt_gather_packed` into the entry values of the :class:`SparseLU` (ib, fb), then
    factor."""
    ib = borrowed(ib); fb = borrowed(fb); idx = borrowed(idx)
    ne = np.intp(ib[_H_NE])
    cval = _extras(ib, fb)[4]
    kkt_gather_packed(idx, w0, c, cd, s, w1, fb[:ne], cval)
    return lu_refactor(ib, fb)


@njit(cache=True, error_model="numpy")
def kkt_values_products_packed(ib, fb, idx, w0, c, cd, s, w1, x, jx, phix):
    """:func:`kkt_values_packed` with the products of eq. 22's right-hand side taken in the
    gather's passes (:func:`_gather_packed`): jx = Jq x and, unless ``phix`` is empty,
    phix = Φq(w1) x; then factor."""
    ib = borrowed(ib); fb = borrowed(fb); idx = borrowed(idx)
    ne = np.intp(ib[_H_NE])
    cval = _extras(ib, fb)[4]
    _gather_packed(idx, w0, c, cd, s, w1, fb[:ne], cval, x, jx, phix)
    return lu_refactor(ib, fb)


def _pivot_ratio(pivots) -> float:
    return float(np.min(pivots) / np.max(pivots)) if len(pivots) else 1.0


def make_kkt_lu(a_pattern, phiq_pattern, pivot_thresh=0.01, augment_pattern=None):
    """(KKTMap, SparseLU) of a KKT matrix; :meth:`SparseKKT.factor` analyses at its first call."""
    km = KKTMap(a_pattern, phiq_pattern, augment_pattern)
    return km, SparseLU(km.n + km.m, km.rows, km.cols, pivot_thresh=pivot_thresh,
                        couplings=km.couplings)


class SparseKKT:
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

    @property
    def nanalyse(self) -> int:
        return self.lu.nanalyse

    @property
    def nfallback(self) -> int:
        return self.lu.nfallback


# -- the analysis's bookkeeping and a re-reference (Algorithm 2's rebase, issue 11) ----------------
@njit(cache=True)
def _paired_rows_nb(ptr, diag, col):
    """:func:`paired_rows` (one compiled loop: the analysis of a rebase is on the step's path)."""
    N = diag.shape[0]
    out = np.zeros(N, np.int64)
    for k in range(N - 1):
        a0, a1 = diag[k] + 1, ptr[k + 1]
        b0, b1 = diag[k + 1] + 1, ptr[k + 2]
        if a1 - a0 != b1 - b0 + 1 or col[a0] != k + 1:
            continue
        same = 1
        for t in range(b1 - b0):
            if col[a0 + 1 + t] != col[b0 + t]:
                same = 0
                break
        out[k] = same
    return out


@njit(cache=True)
def _column_runs_nb(ptr, diag, col):
    """:func:`column_runs` (one compiled loop)."""
    N = diag.shape[0]
    urptr = np.zeros(N + 1, np.int64)
    nrun = 0
    for k in range(N):
        for p in range(diag[k] + 1, ptr[k + 1]):
            if p == diag[k] + 1 or col[p] != col[p - 1] + 1:
                nrun += 1
        urptr[k + 1] = nrun
    rc0 = np.empty(nrun, np.int64)
    rlen = np.zeros(nrun, np.int64)
    r = -1
    for k in range(N):
        for p in range(diag[k] + 1, ptr[k + 1]):
            if p == diag[k] + 1 or col[p] != col[p - 1] + 1:
                r += 1
                rc0[r] = col[p]
            rlen[r] += 1
    return urptr, rc0, rlen


@njit(cache=True, error_model="numpy")
def lu_rereference(ib, fb):
    """The reference pivots of the static pivoting set to the pivots of the current values ``ax``
    factorised without it, and the statistics cleared, as :meth:`SparseLU.analyse` ends: a new
    analysis that keeps the ordering and the pivot sequence (Algorithm 2's rebase that re-chooses
    the same partition). Returns False when a pivot is zero or not finite (the caller then
    analyses afresh)."""
    ib = borrowed(ib); fb = borrowed(fb)
    N, ptr, diag, col, amap, prow, pcol, ax, lu, w = _views(ib, fb)
    rows, cols, cdst, csrc, cval, pref, b0, r, stats = _extras(ib, fb)
    limit = stats[_S_GROWTH_LIMIT]
    for i in range(N):
        pref[i] = 0.0
    stats[_S_GROWTH_LIMIT] = np.inf
    lu_refactor(ib, fb)
    ok = True
    for i in range(N):
        u = abs(lu[diag[i]])
        if not (u > 0.0 and u < np.inf):
            ok = False
        pref[i] = u
    for s in range(_S_LEN):
        stats[s] = 0.0
    stats[_S_GROWTH_LIMIT] = limit
    return ok


@njit(cache=True)
def _put(ib, slot, o, a):
    """Copy ``a`` into ``ib`` from ``o`` and put ``o`` in the header ``slot``; returns (the next
    offset, a value too large for uint32)."""
    ib[slot] = o
    big = False
    for i in range(a.shape[0]):
        v = np.int64(a[i])
        if v >= 2 ** 32:
            big = True
        ib[o + i] = np.uint32(v)
    return o + a.shape[0], big


@njit(cache=True)
def _index_given_columns(N, r64, c64, vals, pcol, thresh, rows, cols, cdst, csrc):
    """:meth:`SparseLU.analyse` with ``columns`` (a rebase of Algorithm 2's Φu) up to its index,
    in one compiled call: rows by :func:`threshold_rows`, the fill and storage
    (:func:`_structure`), the runs and supernode rows, packed into ``ib`` as ``_pack`` does.
    Returns (ib, multiply-adds or −1 for a zero column or −2 for an index beyond uint32,
    prow)."""
    prow = threshold_rows(r64, c64, vals, pcol, thresh)
    for k in range(N):
        if prow[k] < 0:
            return np.zeros(0, np.uint32), -1, prow
    ptr, col, diag, amap, fl = _structure(N, r64, c64, prow, pcol)
    urptr, rc0, rlen = _column_runs_nb(ptr, diag, col)
    paired = _paired_rows_nb(ptr, diag, col)
    size = (ptr.size + diag.size + col.size + amap.size + prow.size + pcol.size + rows.size
            + cols.size + cdst.size + csrc.size + urptr.size + rc0.size + rlen.size + paired.size)
    ib = np.zeros(_H_LEN + size, np.uint32)
    ib[_H_N] = N
    ib[_H_NE] = rows.size
    ib[_H_NNZ] = ptr[N]
    ib[_H_NC] = cdst.size
    ib[_H_NRUN] = rc0.size
    o = _H_LEN
    o, b0 = _put(ib, _H_PTR, o, ptr)
    o, b1 = _put(ib, _H_DIAG, o, diag)
    o, b2 = _put(ib, _H_COL, o, col)
    o, b3 = _put(ib, _H_AMAP, o, amap)
    o, b4 = _put(ib, _H_PROW, o, prow)
    o, b5 = _put(ib, _H_PCOL, o, pcol)
    o, _ = _put(ib, _H_ROWS, o, rows)
    o, _ = _put(ib, _H_COLS, o, cols)
    o, _ = _put(ib, _H_CDST, o, cdst)
    o, _ = _put(ib, _H_CSRC, o, csrc)
    o, b6 = _put(ib, _H_URPTR, o, urptr)
    o, b7 = _put(ib, _H_RC0, o, rc0)
    o, b8 = _put(ib, _H_RLEN, o, rlen)
    o, _ = _put(ib, _H_PAIRED, o, paired)
    big = b0 or b1 or b2 or b3 or b4 or b5 or b6 or b7 or b8
    if big or o >= 2 ** 32:
        return ib, -2, prow
    return ib, fl, prow
