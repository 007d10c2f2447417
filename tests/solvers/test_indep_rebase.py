"""Algorithm 2's rebase made cheaper: a rebase that re-chooses the partition and the
row pivots of the last analysis of Φu keeps that analysis (``PartitionBasis.prepare``,
``sparse.lu_rereference``), the analysis's bookkeeping (``paired_rows``, ``column_runs``,
``threshold_rows``, numpy) gives the rows, pairs and runs of their definitions and the
coordinate partitioning searches less
(``linalg.select_partition``): the same partitions, pivots and trajectories bit for bit."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.basis import _carry_column_order
from rtmbs.solvers.linalg import select_partition
from rtmbs.solvers.sparse import (
    SparseLU, _H_COL, _H_DIAG, _H_NNZ, _H_PTR, _symbolic, column_runs, lu_rereference, paired_rows, threshold_rows,
)

H = 1e-3


def _run(name, steps, keep_same):
    """q, q̇ after every step of li-euler-indep (B = partition), the solver, and the number of
    steps after which the partition changed."""
    system = load_model(name)
    slv = get_solver("li-euler-indep")(system, B="partition")
    st = system.initial_state()
    slv.reset(st)
    slv.basis.keep_same = keep_same
    m = system.m
    rows, changes = [], 0
    for _ in range(steps):
        dep = slv.cols[:m].copy()
        assert slv.step(st, H)
        changes += not np.array_equal(dep, slv.cols[:m])
        rows.append(np.concatenate([st.q, st.qd]))
    return np.array(rows), slv, changes


def test_a_rebase_to_the_same_partition_keeps_the_analysis_bit_for_bit():
    """Quarter car, 2.2 s: 9 rebases, one of which changes the partition. A rebase keeps the
    analysis of Φu only when a new one would have the same column and row orders (then its
    factors are the new analysis's, bit for bit): the trajectory and the rebases are those of
    re-analysing at every rebase exactly, with fewer analyses."""
    ref, slv0, changes0 = _run("peer-quarter-car", 2200, keep_same=False)
    out, slv, changes = _run("peer-quarter-car", 2200, keep_same=True)
    np.testing.assert_array_equal(out, ref)
    assert slv.nrebase == slv0.nrebase > changes == changes0 >= 1
    assert slv0.nrebase_same == 0 and slv0.splu.nanalyse == 1 + slv0.nrebase
    # every rebase either changed the partition, or kept it and its rows (kept the analysis),
    # or kept the partition with other row pivots (analysed)
    assert slv.nrebase_same >= 1
    assert slv.nrebase == changes + slv.nrebase_same + slv.basis.nrows
    assert slv.splu.nanalyse == 1 + slv.nrebase - slv.nrebase_same
    assert slv.nfallback == slv0.nfallback == 0


def test_rereference_equals_a_new_analysis_with_the_same_pivots():
    """``lu_rereference`` on the factors analysed at other values gives the index, factors and
    reference pivots of an analysis at the new values (same orders), bit for bit; and False for
    a singular matrix."""
    rng = np.random.default_rng(4)
    N = 30
    mask = rng.random((N, N)) < 0.12
    np.fill_diagonal(mask, True)
    r, c = np.nonzero(mask)
    a = rng.standard_normal(r.size) + 3.0 * (r == c)
    b = a * (1.0 + 1e-3 * rng.standard_normal(r.size))
    old = SparseLU(N, r, c)
    old.ax[:] = a
    old.analyse(columns=rng.permutation(N))  # (rows by threshold pivoting, as at a rebase)
    new = SparseLU(N, r, c)
    new.ax[:] = b
    new.analyse(columns=old.column_order)
    assert np.array_equal(new.row_order, old.row_order)  # (small change: the same pivots)
    old.ax[:] = b
    assert lu_rereference(old.ib, old.fb)
    np.testing.assert_array_equal(old.ib, new.ib)
    nnz = int(new.ib[_H_NNZ])
    np.testing.assert_array_equal(old.fb[:new.ne + nnz], new.fb[:new.ne + nnz])
    np.testing.assert_array_equal(old.pref, new.pref)
    assert old.nfallback == 0 and old.refactor() == new.refactor()
    old.ax[r == 0] = 0.0  # a zero row
    assert not lu_rereference(old.ib, old.fb)


def _select_partition_reference(phiq):
    """The partitioning as first written (every column of w eliminated and
    the whole remaining block searched for a small rook pivot), in Python."""
    m, n = phiq.shape
    w = phiq.copy()
    cols = list(range(n))
    colmax = np.abs(phiq).max(axis=0) if m else np.zeros(n)
    pmax, pmin = 0.0, np.inf
    for k in range(m):
        bj = k
        for jj in range(k + 1, n):
            if colmax[cols[jj]] > colmax[cols[bj]]:
                bj = jj
        bi, best = k, 0.0
        for i in range(k, m):
            if abs(w[i, cols[bj]]) > best:
                best, bi = abs(w[i, cols[bj]]), i
        moved = best > 0.0
        while moved:
            moved = False
            for jj in range(k, n):
                if abs(w[bi, cols[jj]]) > best:
                    best, bj, moved = abs(w[bi, cols[jj]]), jj, True
            for i in range(k, m):
                if abs(w[i, cols[bj]]) > best:
                    best, bi, moved = abs(w[i, cols[bj]]), i, True
        if best < 1e-2 * colmax[cols[bj]]:
            for i in range(k, m):
                for jj in range(k, n):
                    if abs(w[i, cols[jj]]) > best:
                        best, bi, bj = abs(w[i, cols[jj]]), i, jj
        w[[k, bi]] = w[[bi, k]]
        cols[k], cols[bj] = cols[bj], cols[k]
        pmax, pmin = max(pmax, best), min(pmin, best)
        if best == 0.0:
            continue
        c = cols[k]
        for i in range(k + 1, m):
            lik = w[i, c] / w[k, c]
            if lik != 0.0:
                w[i] -= lik * w[k]
    cols = sorted(cols[:m]) + sorted(cols[m:])
    return cols, (0.0 if pmax == 0.0 else pmin / pmax)


def _partition_cases():
    rng = np.random.default_rng(7)
    cases = []
    for _ in range(60):  # sparse, badly scaled rows, and small integers (ties everywhere)
        m, n = int(rng.integers(2, 9)), int(rng.integers(9, 14))
        a = rng.standard_normal((m, n)) * (rng.random((m, n)) < 0.35)
        cases.append(a * 10.0 ** rng.integers(-4, 3, size=(m, 1)))
        cases.append(rng.integers(-2, 3, size=(m, n)).astype(float))
    system = load_model("multilink-ideal")
    slv = get_solver("li-euler-indep")(system, B="partition")
    st = system.initial_state()
    slv.reset(st)
    for k in range(60):
        assert slv.step(st, H)
        if k % 20 == 19:
            cases.append(slv.st.phiq_dense(slv.idx))
    return cases


def test_select_partition_chooses_as_the_whole_block_elimination():
    """The partitioning that updates and searches less chooses the same coordinates and returns
    the same pivot ratio as the elimination of every column with the whole-block search, on
    random sparse, badly scaled and tied matrices and on the multilink's Φq; the test of the
    whole block is exercised (the multilink's Φq takes it at most steps)."""
    for phiq in _partition_cases():
        m, n = phiq.shape
        cols = np.zeros(n, np.int64)
        ratio = select_partition(phiq, np.zeros((m, n)), cols)
        ref_cols, ref_ratio = _select_partition_reference(phiq)
        assert cols.tolist() == ref_cols
        assert ratio == pytest.approx(ref_ratio, rel=1e-12, abs=0.0)


def _threshold_rows_reference(rows, cols, vals, pcol, thresh):
    """``threshold_rows`` as first written, in Python."""
    N = pcol.size
    icol = np.empty(N, np.int64)
    icol[pcol] = np.arange(N)
    A = np.zeros((N, N))
    nz = np.zeros((N, N), bool)
    for e in range(rows.size):
        A[rows[e], icol[cols[e]]] += vals[e]
        nz[rows[e], icol[cols[e]]] = True
    count = nz.sum(axis=1)
    used = np.zeros(N, bool)
    prow = np.full(N, -1, np.int64)
    for k in range(N):
        big = max((abs(A[i, k]) for i in range(N) if not used[i]), default=0.0)
        if big == 0.0:
            return prow
        best = -1
        for i in range(N):
            if not used[i] and abs(A[i, k]) >= thresh * big and (best < 0
                                                                   or count[i] < count[best]):
                best = i
        used[best] = True
        prow[k] = best
        for i in range(N):
            if not used[i] and A[i, k] != 0.0:
                lik = A[i, k] * (1.0 / A[best, k])
                for j in range(k + 1, N):
                    if nz[best, j]:
                        A[i, j] -= lik * A[best, j]
                        if not nz[i, j]:
                            nz[i, j] = True
                            count[i] += 1
    return prow


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_threshold_rows_and_the_analysis_bookkeeping_as_before(seed):
    """The bookkeeping of an analysis (``threshold_rows`` over the pivot row's entries,
    ``paired_rows`` and ``column_runs``) gives the rows, pairs and runs of their definitions."""
    rng = np.random.default_rng(seed)
    N = 40
    mask = rng.random((N, N)) < 0.1
    np.fill_diagonal(mask, True)
    r, c = (a.astype(np.int64) for a in np.nonzero(mask))
    vals = rng.standard_normal(r.size)
    pcol = rng.permutation(N).astype(np.int64)
    got = threshold_rows(r, c, vals, pcol, 0.01)
    np.testing.assert_array_equal(got, _threshold_rows_reference(r, c, vals, pcol, 0.01))
    assert sorted(got.tolist()) == list(range(N))
    lu = SparseLU(N, r, c)
    lu.ax[:] = vals
    lu.analyse()
    ib = lu.ib.astype(np.int64)
    ptr = ib[ib[_H_PTR]:ib[_H_PTR] + N + 1]
    diag = ib[ib[_H_DIAG]:ib[_H_DIAG] + N]
    col = ib[ib[_H_COL]:ib[_H_COL] + int(ib[_H_NNZ])]
    upper = [col[diag[k] + 1:ptr[k + 1]] for k in range(N)]
    pairs = [int(upper[k].size == upper[k + 1].size + 1 and upper[k][0] == k + 1
                 and np.array_equal(upper[k][1:], upper[k + 1])) for k in range(N - 1)] + [0]
    np.testing.assert_array_equal(paired_rows(ptr, diag, col), pairs)
    assert sum(pairs) > 0
    urptr, rc0, rlen = column_runs(ptr, diag, col)
    for k in range(N):
        runs = list(zip(rc0[urptr[k]:urptr[k + 1]], rlen[urptr[k]:urptr[k + 1]]))
        assert [c0 + j for c0, ln in runs for j in range(ln)] == upper[k].tolist()
        assert all(c0 + ln < c1 for (c0, ln), (c1, _) in zip(runs, runs[1:]))  # maximal runs


@pytest.mark.parametrize("N, density", [(30, 0.08), (66, 0.05), (90, 0.03)])
def test_symbolic_fill_row_by_row_is_the_column_elimination_fill(N, density):
    """The fill computed row by row over the entries is that of eliminating column by
    column without pivoting."""
    rng = np.random.default_rng(N)
    for _ in range(10):
        pat = rng.random((N, N)) < density
        np.fill_diagonal(pat, True)
        ref = pat.copy()
        for k in range(N):
            rows = np.nonzero(ref[k + 1:, k])[0] + k + 1
            ref[np.ix_(rows, np.nonzero(ref[k, k + 1:])[0] + k + 1)] = True
        got = _symbolic(pat.copy())
        np.testing.assert_array_equal(got, ref)
        assert got.sum() > pat.sum()  # (there is fill)


def test_the_index_of_a_rebase_analysis_is_that_of_the_other_analyses():
    """``SparseLU.analyse(columns=...)`` (a rebase) builds its index in one function
    (``_index_given_columns``): the same index and multiply-adds as the rows, storage, runs and
    pairs packed in Python (``_candidates`` and ``_pack``, the other analyses' path); a zero
    column is a LinAlgError."""
    rng = np.random.default_rng(11)
    N = 40
    mask = rng.random((N, N)) < 0.1
    np.fill_diagonal(mask, True)
    r, c = np.nonzero(mask)
    lu = SparseLU(N, r, c)
    lu.ax[:] = rng.standard_normal(r.size)
    vals = lu.ax.copy()
    pcol = rng.permutation(N)
    lu.analyse(columns=pcol)
    fl, prow, pc, (ptr, col, diag, amap), spec = min(lu._candidates(vals, None, pcol),
                                                      key=lambda x: x[0])
    np.testing.assert_array_equal(lu.ib, lu._pack(ptr, diag, col, amap, prow, pc))
    assert lu.flops == fl and lu.spec == spec == "given columns"
    assert lu.refactor() > 0.0
    lu.ax[c == 3] = 0.0
    with pytest.raises(np.linalg.LinAlgError, match="zero column in the threshold elimination"):
        lu.analyse(columns=pcol)


def test_carried_column_order_replaces_the_coordinates_that_left_in_place():
    """The column order after a rebase: the old elimination order of the
    dependent coordinates, each one that left replaced in place by one that came in, in
    ascending position; the definition written out in Python."""
    rng = np.random.default_rng(5)
    for _ in range(200):
        n, m = 30, 20
        old = np.sort(rng.choice(n, m, replace=False))
        swap = int(rng.integers(0, 4))
        keep = rng.choice(old, m - swap, replace=False)
        new = np.sort(np.concatenate([keep, rng.choice(np.setdiff1d(np.arange(n), old), swap,
                                                        replace=False)]))
        pcol = rng.permutation(m)
        local = {c: k for k, c in enumerate(new.tolist())}
        incoming = [k for k, c in enumerate(new.tolist()) if c not in set(old.tolist())]
        ref = [local[old[j]] if old[j] in local else incoming.pop(0) for j in pcol]
        got = _carry_column_order(old.astype(np.int64), new.astype(np.int64), pcol)
        assert got.tolist() == ref and sorted(ref) == list(range(m))
