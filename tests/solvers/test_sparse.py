"""The fixed-pattern sparse LU (rtmbs.solvers.sparse) against numpy, its fixed-cost fallback
(static pivots, refined solves) when the pivots go bad, the unpivoted KKT ordering, and the sparse
solver paths against the dense ones on the library models."""
import numpy as np
import pytest
from _models.lu_groups import group_sizes

from rtmbs.errors import SolverError
from rtmbs.models import BUILTIN, load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.sparse import (
    _H_AMAP, _H_COL, _H_DIAG, _H_NNZ, _H_PTR, SparseKKT, SparseLU, column_runs, kkt_hubs,
    lu_refactor, _structure, lu_solve_multi_sp, lu_solve_sp, lu_solve_t_sp, min_degree_order,
    paired_rows, row_entries, substructure_order,
)
from _models.linkages import slider_crank


def _random_system(seed, N=40, density=0.08):
    rng = np.random.default_rng(seed)
    pat = rng.random((N, N)) < density
    pat |= np.eye(N, dtype=bool)
    r, c = np.nonzero(pat)
    # a random permutation of the rows: the diagonal is not where the pivots are
    perm = rng.permutation(N)
    r = perm[r]
    return rng, r, c


def _dense(N, r, c, v):
    A = np.zeros((N, N))
    A[r, c] = v
    return A


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("ordering", ["best", "COLAMD", "NATURAL"])
def test_sparse_lu_solves_like_numpy_and_after_value_changes(seed, ordering):
    N = 40
    rng, r, c = _random_system(seed, N)
    lu = SparseLU(N, r, c, ordering=ordering)
    v0 = rng.standard_normal(r.size)
    lu.ax[:] = v0
    lu.analyse()
    for v in (v0, v0 * (1 + 0.2 * rng.standard_normal(r.size))):  # same pattern, new values
        A = _dense(N, r, c, v)
        lu.ax[:] = v
        assert lu.refactor() > 0.0
        b = rng.standard_normal(N)
        x = b.copy()
        lu.solve(x)
        np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-9, atol=1e-9)
        x = b.copy()
        lu.solve_t(x)
        np.testing.assert_allclose(x, np.linalg.solve(A.T, b), rtol=1e-9, atol=1e-9)
        X = rng.standard_normal((N, 3))
        Y = X.copy()
        lu_solve_multi_sp(lu.ib, lu.fb, Y, np.zeros_like(Y))
        np.testing.assert_allclose(Y, np.linalg.solve(A, X), rtol=1e-9, atol=1e-9)
        x = b.copy()
        lu.solve(x)
        assert lu.residual(x, b) < 1e-14
    assert lu.nanalyse == 1


def test_entries_at_shared_positions_are_summed_in_the_factors():
    """Two entries at one position (row, col): the factors are those of their sum (each row of the
    factors loads its zeros, its single entries and then its shared ones: row_entries)."""
    N = 30
    rng, r, c = _random_system(5, N, 0.12)
    dup = rng.choice(r.size, 12, replace=False)
    r2, c2 = np.concatenate([r, r[dup]]), np.concatenate([c, c[dup]])
    v = rng.standard_normal(r2.size)
    lu = SparseLU(N, r2, c2, ordering="COLAMD")
    lu.ax[:] = v
    lu.analyse()
    assert lu.refactor() > 0.0
    A = np.zeros((N, N))
    np.add.at(A, (r2, c2), v)
    b = rng.standard_normal(N)
    x = b.copy()
    lu.solve(x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-9, atol=1e-9)
    ptr, diag, col = _storage(lu)
    amap = lu.ib[lu.ib[_H_AMAP]:lu.ib[_H_AMAP] + lu.ne].astype(np.int64)
    fptr, fcol, eptr, ecol, eidx = row_entries(ptr, col, amap)
    # every position of the storage is zeroed or assigned once; the 12 shared ones zeroed, then
    # their 24 entries added
    assert fcol.size + np.count_nonzero(np.bincount(amap) == 1) == lu.nnz
    assert sorted(eidx.tolist()) == list(range(lu.ne))
    assert int(sum(eptr[2 * i + 2] - eptr[2 * i + 1] for i in range(N))) == 24
    np.testing.assert_array_equal(ecol, col[amap[eidx]])


def _storage(lu):
    ib = lu.ib.astype(np.int64)
    N = lu.N
    ptr = ib[ib[_H_PTR]:ib[_H_PTR] + N + 1]
    diag = ib[ib[_H_DIAG]:ib[_H_DIAG] + N]
    col = ib[ib[_H_COL]:ib[_H_COL] + ib[_H_NNZ]]
    return ptr, diag, col


def _entrywise_factors(lu):
    """The factors by the plain entry-by-entry elimination (no static pivots), in Python; each
    multiplier is w_k times the reciprocal of its pivot, as lu_refactor forms it."""
    ptr, diag, col = _storage(lu)
    amap = lu.ib[lu.ib[_H_AMAP]:lu.ib[_H_AMAP] + lu.ne].astype(np.int64)
    f = np.zeros(lu.nnz)
    np.add.at(f, amap, lu.ax)
    w = np.zeros(lu.N)
    for i in range(lu.N):
        w[col[ptr[i]:ptr[i + 1]]] = f[ptr[i]:ptr[i + 1]]
        for p in range(ptr[i], diag[i]):
            k = col[p]
            w[k] = w[k] * (1.0 / f[diag[k]])
            for rr in range(diag[k] + 1, ptr[k + 1]):
                w[col[rr]] -= w[k] * f[rr]
        f[ptr[i]:ptr[i + 1]] = w[col[ptr[i]:ptr[i + 1]]]
    return f


@pytest.mark.parametrize("seed", [0, 1])
def test_column_runs_cover_every_upper_entry_once(seed):
    rng, r, c = _random_system(seed, 60, 0.15)
    lu = SparseLU(60, r, c)
    lu.ax[:] = rng.standard_normal(r.size)
    lu.analyse()
    ptr, diag, col = _storage(lu)
    urptr, rc0, rlen = column_runs(ptr, diag, col)
    assert rlen.min() >= 1 and rlen.max() > 1  # fill makes runs longer than one column
    for k in range(lu.N):
        cols = [c0 + j for c0, n in zip(rc0[urptr[k]:urptr[k + 1]], rlen[urptr[k]:urptr[k + 1]])
                for j in range(n)]
        assert cols == col[diag[k] + 1:ptr[k + 1]].tolist()
        assert np.all(rc0[urptr[k] + 1:urptr[k + 1]] > (rc0 + rlen)[urptr[k]:urptr[k + 1] - 1])


def test_run_by_run_factors_equal_the_entrywise_elimination_bit_for_bit():
    """lu_refactor updates a row run by run (vectorised), up to four rows of a supernode in one
    pass: the same multiply-adds in the same order as entry by entry, so the factors are
    identical, on a random matrix and on the KKT matrix of eq. 22 of a vehicle model."""
    rng, r, c = _random_system(3, 60, 0.15)
    lu = SparseLU(60, r, c)
    lu.ax[:] = rng.standard_normal(r.size)
    lu.analyse()
    sysm = load_model("peer-quarter-car")
    slv = get_solver("li-euler")(sysm)
    st = sysm.initial_state()
    slv.reset(st)
    for _ in range(20):
        assert slv.step(st, 1e-3)
    for f in (lu, slv.skkt.lu):
        assert f.refactor() > 0.0
        np.testing.assert_array_equal(f.fb[f.ne:f.ne + f.nnz], _entrywise_factors(f))
    # the KKT matrix's rows are eliminated in groups of four, three, two and one rows
    assert _group_sizes(slv.skkt.lu) == {1, 2, 3, 4}


def _group_sizes(lu):
    """The groups of lu_refactor's rows (:func:`group_sizes`), ``paired_rows`` from Python."""
    ptr, diag, col = _storage(lu)
    return group_sizes(ptr, diag, col, paired_rows(ptr, diag, col))


def test_pivot_ratio_is_that_of_the_factors():
    N = 30
    rng, r, c = _random_system(3, N, 0.1)
    lu = SparseLU(N, r, c)
    lu.ax[:] = rng.standard_normal(r.size)
    lu.analyse()
    ratio = lu.refactor()
    # the U diagonal of P A Q = L U: |det A| = prod |u_kk|
    A = _dense(N, r, c, lu.ax)
    assert np.isclose(np.sum(np.log(np.abs(_udiag(lu)))), np.linalg.slogdet(A)[1], rtol=1e-10)
    u = np.abs(_udiag(lu))
    assert ratio == pytest.approx(u.min() / u.max(), rel=1e-14)


def _udiag(lu):
    head = lu.ib[:10].astype(np.int64)
    N, ne = head[0], head[1]
    diag = lu.ib[head[4]:head[4] + N].astype(np.int64)
    return lu.fb[ne + diag]


@pytest.mark.parametrize("bad", [1e-13, 0.0])
def test_degraded_static_pivot_falls_back_at_fixed_cost(bad):
    """Analysed where a11 is a good pivot, then a11 becomes tiny (or zero): the fixed pivot sequence
    would divide by it. The factorisation raises that pivot to PIVOT_REL times its value at the
    analysis (static pivoting), counts a fallback naming row 0, never re-analyses, and its solves
    (refined against the true matrix) are accurate."""
    r = np.array([0, 0, 1, 1, 2, 2])
    c = np.array([0, 1, 0, 1, 1, 2])
    lu = SparseLU(3, r, c, ordering="NATURAL")
    lu.ax[:] = [2.0, 1.0, 1.0, 1.0, 1.0, 1.0]
    lu.analyse()
    assert lu.refactor() > 0.0 and lu.nfallback == 0 and not lu.flagged
    lu.ax[:] = [bad, 1.0, 1.0, 1.0, 1.0, 1.0]
    A = _dense(3, r, c, lu.ax)
    b = np.array([1.0, 2.0, 3.0])
    assert lu.refactor() > 0.0
    assert lu.nanalyse == 1 and lu.nfallback == 1 and lu.last_fallback == 0 and lu.flagged
    x = b.copy()
    lu.solve(x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-12)
    x = b.copy()
    lu.solve_t(x)
    np.testing.assert_allclose(x, np.linalg.solve(A.T, b), rtol=1e-12)
    lu.ax[:] = [2.0, 1.0, 1.0, 1.0, 1.0, 1.0]  # healthy again: no flag, the count stays
    assert lu.refactor() > 0.0 and not lu.flagged and lu.nfallback == 1 and lu.nanalyse == 1


def test_min_degree_order_keeps_the_groups_and_avoids_fill():
    # an arrow matrix: eliminating the hub first fills everything, last fills nothing
    N = 6
    pat = np.eye(N, dtype=bool)
    pat[0, :] = pat[:, 0] = True
    order = min_degree_order(pat, [range(N)])
    assert list(order).index(0) >= N - 2  # the hub goes when no fill is left to make
    order = min_degree_order(pat, [range(3), range(3, N)])
    assert set(order[:3]) == {0, 1, 2} and set(order[3:]) == {3, 4, 5}


def _kkt_of(model, hubs=None):
    """The li-euler KKT (eq. 22) of ``model`` after reset; with ``hubs`` given, analysed again
    on the same values with those hubs (``()``: the plain ordering)."""
    sysm = load_model(model)
    slv = get_solver("li-euler")(sysm)
    slv.reset(sysm.initial_state())
    kkt = slv.skkt
    if hubs is not None:  # (the values of the reset's factorisation are still in lu.ax)
        kkt.hubs = list(hubs)
        kkt._analyse()
    return sysm, kkt


def _positions(lu, N):
    pos = np.empty(N, np.int64)
    pos[lu.column_order] = np.arange(N)
    return pos


def _solves_like_numpy(km, lu):
    assert lu.refactor() > 0.0 and not lu.flagged
    K = _dense(km.n + km.m, km.rows, km.cols, lu.ax)
    b = np.random.default_rng(5).standard_normal(km.n + km.m)
    x = b.copy()
    lu.solve(x)
    y = b.copy()
    np.add.at(y, km.couplings[0], lu.cval * b[km.couplings[1]])  # the augmented top rows
    np.testing.assert_allclose(K @ x, y, rtol=0, atol=1e-9 * np.abs(y).max())


def test_kkt_order_releases_each_multiplier_after_the_coordinates_of_its_row():
    """eq. 22 of the multilink, plain ordering (no hub): every multiplier is eliminated after all
    the coordinates of its row of Φq (the pivots stay those of definite blocks), some before
    other coordinates, which saves multiply-adds over eliminating all coordinates first; the
    solve agrees with numpy on the full matrix."""
    sysm, kkt = _kkt_of("multilink-ideal", hubs=())
    km, lu = kkt.map, kkt.lu
    n, m = km.n, km.m
    pat = km.pattern()
    pos = _positions(lu, n + m)
    for r in range(m):
        assert pos[n + r] > pos[np.nonzero(pat[n + r, :n])[0]].max()
    assert pos[n:].min() < pos[:n].max()
    first = min_degree_order(pat, (range(n), range(n, n + m)))
    r64, c64 = km.rows.astype(np.int64), km.cols.astype(np.int64)
    assert lu.flops == _structure(n + m, r64, c64, lu.column_order, lu.column_order)[4]
    assert lu.flops < 0.95 * _structure(n + m, r64, c64, first, first)[4]
    assert lu.spec == "KKT minimum degree"
    _solves_like_numpy(km, lu)


@pytest.mark.parametrize("model,at_most", [("sedan", 0.2), ("multilink-ideal", 0.75),
                                           ("peer-quarter-car", 0.8)])
def test_kkt_condensed_onto_the_chassis(model, at_most):
    """With the chassis as hub (``kkt_hubs``) the ordering condenses the rest onto it: every
    multiplier after the coordinates of its row but the hub's, the hub's coordinates after all
    others; fewer multiply-adds than the plain ordering, about its pivot ratio, and the solve
    agrees with numpy."""
    sysm, kkt = _kkt_of(model)
    km, lu = kkt.map, kkt.lu
    n, m = km.n, km.m
    hubs = kkt_hubs(sysm)
    assert lu.spec == "KKT condensed onto a hub"
    pos = _positions(lu, n + m)
    pat = km.pattern()
    used = [h for h in hubs if pos[h].min() > pos[np.setdiff1d(np.arange(n), h)].max()]
    assert len(used) == 1, "one hub's coordinates come after every other coordinate"
    hub = used[0]
    for r in range(m):
        cols = np.setdiff1d(np.nonzero(pat[n + r, :n])[0], hub)
        if cols.size:
            assert pos[n + r] > pos[cols].max()
        else:  # a row in the hub alone: after the hub
            assert pos[n + r] > pos[hub].max()
    _, plain = _kkt_of(model, hubs=())
    assert lu.flops <= at_most * plain.lu.flops
    ratio = lu.pref.min() / lu.pref.max()
    assert ratio >= 0.9 * plain.lu.pref.min() / plain.lu.pref.max()  # (quarter car: 0.99 of it)
    _solves_like_numpy(km, lu)


def test_kkt_condensed_ordering_is_refused_when_its_pivots_collapse():
    """Both hub candidates of the multilink at once: the rest is over-constrained with both
    held, the condensed ordering's pivots collapse (ratio ~1e-38), and the plain one is kept."""
    sysm = load_model("multilink-ideal")
    both = np.concatenate(kkt_hubs(sysm))
    _, kkt = _kkt_of("multilink-ideal")
    n0 = kkt.lu.nanalyse
    kkt.hubs = [both]
    kkt._analyse()
    _, plain = _kkt_of("multilink-ideal", hubs=())
    assert kkt.lu.spec == "KKT minimum degree" and kkt.lu.flops == plain.lu.flops
    assert kkt.lu.nanalyse == n0 + 1  # (counted as one analysis, the orderings tried inside)
    order = substructure_order(kkt.map.pattern(), kkt.map.n, both)
    assert sorted(order) == list(range(kkt.map.n + kkt.map.m))


def test_condensed_and_plain_orderings_give_the_same_sedan_run(monkeypatch):
    """One second of the sedan with a drive torque: the condensed ordering (the default) and the
    plain one agree to round-off (the same matrix, another elimination order)."""
    import rtmbs.solvers.li_euler as li

    runs = []
    for plain in (False, True):
        if plain:
            monkeypatch.setattr(li, "kkt_hubs", lambda system: [])
        s = load_model("sedan")
        s.set_input("drive_torque", 150.0)
        slv = get_solver("li-euler")(s)
        st = s.initial_state()
        slv.reset(st)
        for _ in range(1000):
            assert slv.step(st, 1e-3)
        runs.append((slv.skkt.lu.spec, st.q.copy(), st.qd.copy(), slv.nfallback))
    (sa, qa, va, fa), (sb, qb, vb, fb) = runs
    assert sa == "KKT condensed onto a hub" and sb == "KKT minimum degree"
    assert fa == fb == 0
    assert np.abs(qa - qb).max() < 1e-10 and np.abs(va - vb).max() < 1e-8
    assert np.abs(qa - load_model("sedan").initial_state().q).max() > 0.1  # (it drove off, m)


def test_kkt_with_singular_mass_block_is_factored_without_pivoting():
    """A body with Euler parameters: the 4×4 rotation block of M is singular along p; with the
    normalisation row added to it (augmentation) the unpivoted KKT factorisation solves exactly
    like numpy on the full matrix, for both the top scaling s and another bottom Φq."""
    rng = np.random.default_rng(4)
    p = rng.standard_normal(4)
    p /= np.linalg.norm(p)
    E = np.array([[-p[1], p[0], -p[3], p[2]], [-p[2], p[3], p[0], -p[1]],
                  [-p[3], -p[2], p[1], p[0]]])
    J = np.diag([0.3, 0.5, 0.7])
    M = np.zeros((7, 7))
    M[:3, :3] = 2.0 * np.eye(3)
    M[3:, 3:] = 4.0 * E.T @ J @ E  # rank 3
    phiq = np.zeros((2, 7))
    phiq[0, 3:] = 2.0 * p                       # normalisation row (one block of A)
    phiq[1, :3] = [0.0, 0.0, 1.0]               # a row of the translation block
    phiq[1, 3:] = 0.1 * rng.standard_normal(4)  # ... coupled to the rotation: no augmentation
    bottom = phiq + 1e-3 * rng.standard_normal(phiq.shape) * (phiq != 0)
    kkt = SparseKKT(M != 0, phiq != 0)
    assert kkt.map.naug == 1
    h = 1e-3
    assert kkt.factor(M, M, M, 0.0, 0.0, phiq, h, bottom) > 0.0
    K = np.block([[M, h * phiq.T], [bottom, np.zeros((2, 2))]])
    rhs = rng.standard_normal(9)
    x = rhs.copy()
    kkt.solve(x)
    np.testing.assert_allclose(x, np.linalg.solve(K, rhs), rtol=1e-10, atol=1e-12)
    assert kkt.nfallback == 0


def test_bad_entries_are_refused_with_the_limit():
    with pytest.raises(ValueError, match=r"expected < N = 2"):
        SparseLU(2, [0, 2], [0, 1])
    with pytest.raises(ValueError, match="ordering='AMD'"):
        SparseLU(2, [0, 1], [0, 1], ordering="AMD")


# -- the solvers ----------------------------------------------------------------------------------
MODELS = ["four-bar", "slider-crank", "spatial-chain-10"] + [
    m for m in ("multilink-ideal", "multilink-bushings") if m in BUILTIN]

CONFIGS = [
    ("li-euler", {"stabilize": "none"}),
    ("li-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "ggl", "ggl_iterations": 2}),
    ("li-euler", {"stabilize": "baumgarte", "jacobian": "all"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "none"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection", "projection_solve": "T",
                        "jacobian": "all"}),
]


def _run(sysm, solver, opts, nsteps, h=1e-3):
    slv = get_solver(solver)(sysm, **opts)
    st = sysm.initial_state()
    slv.reset(st)
    counts = set()
    lam = []
    for _ in range(nsteps):
        before = (slv.neval, slv.nfactor, slv.nsolve)
        assert slv.step(st, h)
        counts.add(tuple(a - b for a, b in zip((slv.neval, slv.nfactor, slv.nsolve), before)))
        lam.append(slv.lam.copy())
    return slv, st, counts, np.array(lam)


@pytest.mark.parametrize("solver,opts", CONFIGS, ids=lambda v: str(v))
@pytest.mark.parametrize("model", MODELS)
def test_sparse_and_dense_give_the_same_trajectory_and_cost(model, solver, opts):
    sysm = load_model(model)
    nsteps = 60
    sp, st_sp, c_sp, lam_sp = _run(sysm, solver, dict(opts, linear_solver="sparse"), nsteps)
    de, st_de, c_de, lam_de = _run(sysm, solver, dict(opts, linear_solver="dense"), nsteps)
    assert sp.sparse and not de.sparse
    scale_q = 1.0 + np.abs(st_de.q).max()
    np.testing.assert_allclose(st_sp.q, st_de.q, rtol=0, atol=1e-11 * scale_q)
    np.testing.assert_allclose(st_sp.qd, st_de.qd, rtol=0, atol=1e-9 * (1 + np.abs(st_de.qd).max()))
    np.testing.assert_allclose(lam_sp, lam_de, rtol=0, atol=1e-8 * (1 + np.abs(lam_de).max()))
    # fixed cost: one count per step, equal to the dense path's; no re-analysis, no rebase
    assert len(c_sp) == 1 and c_sp == c_de
    assert sp.nanalyse == 0
    assert getattr(sp, "nrebase", 0) == getattr(de, "nrebase", 0) == 0


@pytest.mark.parametrize("opts", [{"stabilize": "none"}, {"stabilize": "projection"},
                                  {"stabilize": "baumgarte"}], ids=str)
@pytest.mark.parametrize("model", ["four-bar", "spatial-chain-10"])
def test_explicit_euler_sparse_equals_dense(model, opts):
    sysm = load_model(model)
    sp, st_sp, c_sp, lam_sp = _run(sysm, "explicit-euler", dict(opts, linear_solver="sparse"), 40)
    de, st_de, c_de, lam_de = _run(sysm, "explicit-euler", dict(opts, linear_solver="dense"), 40)
    assert sp.sparse and not de.sparse
    np.testing.assert_allclose(st_sp.q, st_de.q, rtol=0, atol=1e-11 * (1 + np.abs(st_de.q).max()))
    np.testing.assert_allclose(lam_sp, lam_de, rtol=0, atol=1e-8 * (1 + np.abs(lam_de).max()))
    assert len(c_sp) == 1 and c_sp == c_de and sp.nanalyse == 0


@pytest.mark.parametrize("solver,opts", [CONFIGS[1], CONFIGS[5]], ids=lambda v: str(v))
def test_sparse_counts_do_not_depend_on_the_state(solver, opts):
    sysm = load_model("four-bar")
    rows = []
    for scale in (1.0, -2.3):
        slv = get_solver(solver)(sysm, linear_solver="sparse", **opts)
        st = sysm.initial_state()
        st.qd *= scale  # another state on the velocity manifold (linear in q̇)
        slv.reset(st)
        seen = set()
        for _ in range(40):
            before = (slv.neval, slv.nfactor, slv.nsolve)
            slv.step(st, 1e-3)
            seen.add(tuple(a - b for a, b in zip((slv.neval, slv.nfactor, slv.nsolve), before)))
        assert len(seen) == 1 and slv.nanalyse == 0
        rows.append(seen.pop())
    assert rows[0] == rows[1]


def test_auto_choice_and_refusals():
    chain = load_model("spatial-chain-10")
    assert get_solver("li-euler")(chain).sparse
    assert get_solver("li-euler-indep")(chain).sparse  # B="partition" by default
    assert not get_solver("li-euler-indep")(chain, B="qr").sparse  # B="qr" stays dense
    assert not get_solver("li-euler")(chain, linear_solver="dense").sparse
    linkage = slider_crank()  # hand-written model: no patterns
    assert not get_solver("li-euler")(linkage).sparse
    with pytest.raises(SolverError) as info:
        get_solver("li-euler")(linkage, linear_solver="sparse")
    assert "linear_solver='sparse' needs a system with fixed sparsity patterns" in str(info.value)
    assert "'slider-crank'" in str(info.value) or linkage.name in str(info.value)
    with pytest.raises(SolverError) as info:
        get_solver("li-euler-indep")(chain, B="qr", linear_solver="sparse")
    assert "needs B='partition'" in str(info.value)
    with pytest.raises(SolverError) as info:
        get_solver("li-euler")(chain, linear_solver="superlu")
    assert "option linear_solver='superlu' is not one of 'auto', 'dense', 'sparse'" in str(info.value)


def test_sparse_rebase_path_matches_dense():
    """rebase_tol above 1 makes every step re-choose the partition (dense full pivoting in both
    paths) and, on the sparse path, re-analyse Φu: the trajectories still agree."""
    sysm = load_model("four-bar")
    out = {}
    for ls in ("sparse", "dense"):
        slv = get_solver("li-euler-indep")(sysm, B="partition", rebase_tol=1e3, linear_solver=ls,
                                           stabilize="none")
        st = sysm.initial_state()
        slv.reset(st)
        for _ in range(15):
            assert slv.step(st, 1e-3)
        out[ls] = (st, slv.nrebase)
    assert out["sparse"][1] == out["dense"][1] == 15
    np.testing.assert_allclose(out["sparse"][0].q, out["dense"][0].q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out["sparse"][0].qd, out["dense"][0].qd, rtol=0, atol=1e-10)


@pytest.mark.parametrize("solver,opts", [("li-euler", {"stabilize": "none"}),
                                         ("li-euler-indep", {"B": "partition", "stabilize": "none"})])
def test_solver_fallback_is_counted_and_keeps_the_trajectory(solver, opts):
    """With the growth limit at 0 every factorisation looks degraded: each one falls back to
    refined solves (counted in nfallback, one per factorisation of that matrix, never a
    re-analysis) and the result is unchanged."""
    sysm = load_model("four-bar")
    res = {}
    for ls in ("sparse", "dense"):
        slv = get_solver(solver)(sysm, linear_solver=ls, **opts)
        st = sysm.initial_state()
        slv.reset(st)
        if ls == "sparse":
            lu = slv.skkt.lu if solver == "li-euler" else slv.splu
            lu.growth_limit = 0.0
        for _ in range(10):
            assert slv.step(st, 1e-3)
        res[ls] = (st, slv.nfallback, slv.nanalyse)
    assert res["sparse"][1] == 10 and res["dense"][1] == 0
    assert res["sparse"][2] == 0
    np.testing.assert_allclose(res["sparse"][0].q, res["dense"][0].q, rtol=0, atol=1e-12)
    np.testing.assert_allclose(res["sparse"][0].qd, res["dense"][0].qd, rtol=0, atol=1e-10)
