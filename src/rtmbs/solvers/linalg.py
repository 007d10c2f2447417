"""Dense linear algebra for the real-time solvers, in numba (PERFORMANCE.md: no BLAS in a step).

Every routine works in place on preallocated arrays and allocates nothing. Sizes are taken from
the array shapes, so each buffer is allocated at its exact size by the solver's ``_reset``.

* :func:`lu_factor` / :func:`lu_solve` / :func:`lu_solve_t`: LU with partial (row) pivoting;
  the factor returns a cheap conditioning estimate, the pivot ratio min|u_kk| / max|u_kk|
  (0 for an exactly singular matrix).
* :func:`null_basis_qr`: B as the transpose of the right n x f block of the orthogonal factor of
  the QR decomposition of Φqᵀ (seed 003 eqs. 4.11-4.12), by Householder reflections.
* :func:`select_partition`: independent coordinates by Gaussian elimination with rook pivoting of
  Φq (coordinate partitioning, García de Jalón & Bayo), full pivoting where a rook pivot is small.

The elimination loops skip a row update when the multiplier is exactly zero: the structural zeros
of a KKT matrix then cost nothing. The dense count is the worst case, so the cost per step stays
bounded by a number known in advance. A sparse path (fixed pattern, ordering and pivots from the
first step) can replace these functions behind the same calls (see docs/solvers.md).
"""
from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def lu_factor(a, piv):
    """LU with partial pivoting of the square ``a`` in place; ``piv[k]`` is the row swapped with
    row k. Returns the pivot ratio min|u_kk| / max|u_kk| (0.0 when a pivot is exactly zero)."""
    n = a.shape[0]
    umax = 0.0
    umin = np.inf
    for k in range(n):
        p = k
        amax = abs(a[k, k])
        for i in range(k + 1, n):
            v = abs(a[i, k])
            if v > amax:
                amax = v
                p = i
        piv[k] = p
        if p != k:
            for j in range(n):
                tmp = a[k, j]
                a[k, j] = a[p, j]
                a[p, j] = tmp
        if amax > umax:
            umax = amax
        if amax < umin:
            umin = amax
        if amax == 0.0:
            continue
        inv = 1.0 / a[k, k]
        for i in range(k + 1, n):
            lik = a[i, k]
            if lik != 0.0:
                lik *= inv
                a[i, k] = lik
                for j in range(k + 1, n):
                    a[i, j] -= lik * a[k, j]
    if n == 0:
        return 1.0
    if umax == 0.0:
        return 0.0
    return umin / umax


@njit(cache=True)
def lu_solve(lu, piv, b):
    """Solve ``A x = b`` in place in ``b`` with the factors of :func:`lu_factor`."""
    n = lu.shape[0]
    for k in range(n):
        p = piv[k]
        if p != k:
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= lu[i, j] * b[j]
        b[i] = s
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= lu[i, j] * b[j]
        b[i] = s / lu[i, i]


@njit(cache=True)
def lu_solve_rows(lu, piv, x):
    """Solve ``A x_r = x_r`` for every row ``x_r`` of ``x`` (k right-hand sides stored as rows)."""
    for r in range(x.shape[0]):
        lu_solve(lu, piv, x[r])


@njit(cache=True)
def lu_solve_t(lu, piv, b):
    """Solve ``Aᵀ x = b`` in place in ``b`` with the factors of :func:`lu_factor` (P A = L U)."""
    n = lu.shape[0]
    # Uᵀ y = b
    for i in range(n):
        s = b[i]
        for j in range(i):
            s -= lu[j, i] * b[j]
        b[i] = s / lu[i, i]
    # Lᵀ z = y
    for i in range(n - 1, -1, -1):
        s = b[i]
        for j in range(i + 1, n):
            s -= lu[j, i] * b[j]
        b[i] = s
    # x = Pᵀ z: undo the swaps in reverse order
    for k in range(n - 1, -1, -1):
        p = piv[k]
        if p != k:
            tmp = b[k]
            b[k] = b[p]
            b[p] = tmp


@njit(cache=True)
def null_basis_qr(phiq, w, v, beta, B):
    """Rows of ``B (f, n)``: an orthonormal basis of the null space of ``phiq (m, n)``, the last
    f columns of C1 in Φqᵀ = C1 C2 (seed 003 eqs. 4.11-4.12). Work arrays ``w (n, m)``,
    ``v (m, n)``, ``beta (m,)``. Returns min|r_kk| / max|r_kk| (0 when Φq is rank deficient)."""
    m, n = phiq.shape
    f = n - m
    for i in range(n):
        for j in range(m):
            w[i, j] = phiq[j, i]
    rmax = 0.0
    rmin = np.inf
    for k in range(m):
        # Householder vector of column k of w, rows k..n-1
        s = 0.0
        for i in range(k, n):
            s += w[i, k] * w[i, k]
        nrm = np.sqrt(s)
        for i in range(n):
            v[k, i] = 0.0
        if nrm == 0.0:
            beta[k] = 0.0
            rmin = 0.0
            continue
        alpha = -nrm if w[k, k] >= 0.0 else nrm
        for i in range(k, n):
            v[k, i] = w[i, k]
        v[k, k] -= alpha
        vv = 0.0
        for i in range(k, n):
            vv += v[k, i] * v[k, i]
        beta[k] = 2.0 / vv if vv > 0.0 else 0.0
        # apply H_k = I - beta v vᵀ to the remaining columns of w
        for j in range(k, m):
            d = 0.0
            for i in range(k, n):
                d += v[k, i] * w[i, j]
            d *= beta[k]
            for i in range(k, n):
                w[i, j] -= d * v[k, i]
        r = abs(w[k, k])
        if r > rmax:
            rmax = r
        if r < rmin:
            rmin = r
    # B[j] = C1 e_{m+j} = H_0 H_1 ... H_{m-1} e_{m+j}
    for j in range(f):
        for i in range(n):
            B[j, i] = 0.0
        B[j, m + j] = 1.0
        for k in range(m - 1, -1, -1):
            d = 0.0
            for i in range(k, n):
                d += v[k, i] * B[j, i]
            d *= beta[k]
            for i in range(k, n):
                B[j, i] -= d * v[k, i]
    if m == 0:
        return 1.0
    if rmax == 0.0:
        return 0.0
    return rmin / rmax


@njit(cache=True)
def select_partition(phiq, w, cols):
    """Coordinate partitioning: Gaussian elimination with rook pivoting of ``phiq (m, n)`` (copied
    into ``w``; each pivot the largest entry of its row and its column in the remaining block). On return ``cols[:m]`` are the dependent coordinates u (pivot columns) and
    ``cols[m:]`` the independent ones v. Returns the pivot ratio (0 when Φq is rank deficient).
    ``w`` keeps its columns in the order of ``cols`` and each elimination updates the remaining
    columns of the rows with a non-zero in the pivot column only; the largest |entry| of every
    remaining row (``rmax``, renewed for those rows when next needed) makes the whole-block
    search of a small rook pivot a search over m rows. The same operations on the remaining block as the elimination of
    every column, and the same first largest entry: the same choice at ~40 % less cost (issue 11,
    multilink ~57 → ~35 µs)."""
    m, n = phiq.shape
    for i in range(m):
        for j in range(n):
            w[i, j] = phiq[i, j]
    colmax = np.zeros(n)
    rmax = np.zeros(m)
    dirty = np.ones(m, np.bool_)  # rmax[i] to be renewed before it is read
    for j in range(n):
        cols[j] = j
        for i in range(m):
            colmax[j] = max(colmax[j], abs(phiq[i, j]))
    pmax = 0.0
    pmin = np.inf
    for k in range(m):
        # rook pivoting: an entry that is the largest of its row and of its column in the
        # remaining block (as reliable as full pivoting for choosing u, O(m + n) per search)
        bj = k  # start in the remaining column that was largest in Φq
        for jj in range(k + 1, n):
            if colmax[cols[jj]] > colmax[cols[bj]]:
                bj = jj
        bi = k
        best = 0.0
        for i in range(k, m):
            val = abs(w[i, bj])
            if val > best:
                best = val
                bi = i
        moved = best > 0.0
        while moved:
            moved = False
            for jj in range(k, n):  # the largest of row bi
                val = abs(w[bi, jj])
                if val > best:
                    best = val
                    bj = jj
                    moved = True
            for i in range(k, m):  # the largest of column bj
                val = abs(w[i, bj])
                if val > best:
                    best = val
                    bi = i
                    moved = True
        if best < 1e-2 * colmax[cols[bj]]:  # a small rook pivot: the block's first largest
            ri = -1
            mx = best
            for i in range(k, m):
                if dirty[i]:
                    _row_max(w, i, k, n, rmax)
                    dirty[i] = False
                if rmax[i] > mx:
                    mx = rmax[i]
                    ri = i
            if ri >= 0:
                for jj in range(k, n):
                    if abs(w[ri, jj]) == mx:
                        best = mx
                        bi = ri
                        bj = jj
                        break
        if bi != k:
            for j in range(k, n):
                tmp = w[k, j]
                w[k, j] = w[bi, j]
                w[bi, j] = tmp
            tmp = rmax[k]
            rmax[k] = rmax[bi]
            rmax[bi] = tmp
            flag = dirty[k]
            dirty[k] = dirty[bi]
            dirty[bi] = flag
        if bj != k:
            tmpc = cols[k]
            cols[k] = cols[bj]
            cols[bj] = tmpc
            for i in range(k, m):
                tmp = w[i, k]
                w[i, k] = w[i, bj]
                w[i, bj] = tmp
        if best > pmax:
            pmax = best
        if best < pmin:
            pmin = best
        inv = 1.0 / w[k, k] if best != 0.0 else 0.0
        # eliminate; the rows that took part renew rmax when it is next read (unsigned
        # indices: numba drops the negative-index checks, ~20 % of the partitioning)
        ku, nu, one = np.uint64(k), np.uint64(n), np.uint64(1)
        for i in range(k + 1, m):
            iu = np.uint64(i)
            if w[iu, ku] != 0.0:
                lik = w[iu, ku] * inv
                if best != 0.0 and lik != 0.0:
                    for j in range(ku + one, nu):
                        w[iu, j] -= lik * w[ku, j]
                dirty[i] = True
    # keep each group in ascending coordinate order (readable, same partition)
    _sort_range(cols, 0, m)
    _sort_range(cols, m, n)
    if m == 0:
        return 1.0
    if pmax == 0.0:
        return 0.0
    return pmin / pmax


@njit(cache=True)
def _row_max(w, i, k, n, rmax):
    """rmax[i] = max |w[i, k:n]| (:func:`select_partition`)."""
    iu = np.uint64(i)
    mx = 0.0
    for j in range(np.uint64(k), np.uint64(n)):
        v = abs(w[iu, j])
        if v > mx:
            mx = v
    rmax[i] = mx


@njit(cache=True)
def _sort_range(a, lo, hi):
    for i in range(lo + 1, hi):
        key = a[i]
        j = i - 1
        while j >= lo and a[j] > key:
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = key
