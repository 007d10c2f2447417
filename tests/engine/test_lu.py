"""The C sparse LU and KKT gathers (src/rtmbs/engine/sparse_lu.c, kkt.c) against the numba kernels
they replace (rtmbs.solvers.sparse, rtmbs.solvers.storage.project_kkt).

The factors are those li-euler builds at reset (SparseKKT analysed at q0, PackedKKTMap over the
packed workspaces) on four built-in models; numba and C run on identical copies of ib/fb and of
the workspaces. The numba kernels are compiled with error_model="numpy" only (no fastmath, so no
contraction into FMA) and the engine with -ffp-contract=off, in the same order of operations:
every result is asserted bit for bit (np.array_equal, NaN equal to NaN).
"""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI, EVAL_PHIQ
from rtmbs.solvers import sparse as sp
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.storage import project_kkt

E = pytest.importorskip("rtmbs.engine._engine")

MODELS = ["four-bar", "peer-quarter-car", "multilink-bushings", "sedan"]


class Case:
    """li-euler reset on ``model`` (fused path: packed workspaces), its KKT of eq. 22 and, with
    ``projection="mass"``, the projector's KKT of eq. 30; workspaces at a few perturbed states."""

    def __init__(self, model, projection="step"):
        s = self.system = load_model(model)
        self.slv = slv = get_solver("li-euler")(s, projection=projection)
        self.state = st = s.initial_state()
        slv.reset(st)
        assert slv.fused, "the compiled Cartesian path (packed workspaces) is the one ported"
        self.lu = slv.skkt.lu
        self.n, self.m, self.N = s.n, s.m, s.n + s.m

    def workspaces(self, seed, scale=1e-3):
        """(w0, w1, qd): w0 evaluated at a perturbed (q, qd) with M, Q, Φq, Jq, Jq̇; w1 with Φq,
        Φ at q + 1e-3 qd (the step's two buffers)."""
        s, slv, st = self.system, self.slv, self.state
        rng = np.random.default_rng(seed)
        q = st.q + scale * rng.standard_normal(self.n)
        qd = st.qd + 0.1 * rng.standard_normal(self.n)
        w0 = np.zeros_like(slv.pw0)
        w1 = np.zeros_like(slv.pw1)
        s.evaluate_packed(st.t, q, qd, w0, slv.what0 | slv.jac_flag)
        s.evaluate_packed(st.t, q + 1e-3 * qd, qd, w1, EVAL_PHIQ | EVAL_PHI)
        return w0, w1, qd


_CASES = {}


def case(model, projection="step"):
    key = (model, projection)
    if key not in _CASES:
        _CASES[key] = Case(model, projection)
    return _CASES[key]


def same(a, b):
    return np.array_equal(np.asarray(a), np.asarray(b), equal_nan=True)


def assert_same(a, b, what):
    a, b = np.asarray(a, float), np.asarray(b, float)
    if not same(a, b):
        d = np.abs(a - b)
        k = int(np.nanargmax(d))
        pytest.fail(f"{what}: C and numba differ, max |diff| {d[k]:.3e} at {k} "
                    f"({a.ravel()[k]!r} vs {b.ravel()[k]!r})")


def test_constants_match_python():
    c = E.lu_constants()
    assert c == dict(PIVOT_REL=sp.PIVOT_REL, NREFINE=sp.NREFINE, H_LEN=sp._H_LEN, S_LEN=sp._S_LEN)


@pytest.mark.parametrize("model", MODELS)
def test_index_checks_pass_on_the_analysed_factors_and_fail_on_broken_ones(model):
    c = case(model)
    ib, fb = c.lu.ib, c.lu.fb
    E.lu_check(ib, fb)
    E.kkt_check(ib, fb, c.slv.pidx, c.slv.pw0)
    with pytest.raises(RuntimeError, match="buffer too short"):  # fb of another length
        E.lu_refactor(ib, fb[:-1].copy())
    bad = ib.copy()
    bad[bad[sp._H_COL] + 1] = c.N  # a column index out of range
    with pytest.raises(RuntimeError, match="argument out of range"):
        E.lu_check(bad, fb.copy())
    with pytest.raises(RuntimeError):  # a workspace too short for the index
        E.kkt_check(ib, fb, c.slv.pidx, c.slv.pw0[:10].copy())
    with pytest.raises(TypeError, match="uint32"):
        E.lu_refactor(ib.astype(np.int64), fb.copy())


@pytest.mark.parametrize("model", MODELS)
def test_work_counts_are_the_loop_trip_counts(model):
    """lu_flops: the refactorisation's multiply-adds equal the analysis's own count
    (SparseLU.flops, sparse.py _flops); a solve's are nnz + couplings, a flagged solve's
    (1 + NREFINE) nnz + NREFINE ne + couplings."""
    lu = case(model).lu
    nc = int(lu.ib[sp._H_NC])
    assert E.lu_flops(lu.ib) == (lu.flops, lu.nnz + nc,
                                 (1 + sp.NREFINE) * lu.nnz + sp.NREFINE * lu.ne + nc)
    idx = case(model).slv.pidx
    na, nz = int(idx[0]), int(idx[1])
    assert E.kkt_flops(idx, True, False, False) >= nz
    assert (E.kkt_flops(idx, False, True, True) - E.kkt_flops(idx, True, False, False)
            == 3 * na + nz)


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("with_phix", [True, False])
def test_kkt_values_products_packed_and_solves_bit_for_bit(model, with_phix):
    """The step's gather + factor (eq. 22: c = h², cd = h, s = h) with Jq q̇ and Φq q̇, then the
    solves with A and Aᵀ and the pivot range: C and numba give the same bits (fb entirely: ax,
    factors, work vectors, couplings, statistics, reciprocal pivots)."""
    c = case(model)
    ib, idx = c.lu.ib, c.slv.pidx
    for seed in range(3):
        w0, w1, qd = c.workspaces(seed)
        h = [1e-3, 2e-3, 5e-4][seed]
        out = []
        for f in (sp.kkt_values_products_packed, E.kkt_values_products_packed):
            fb = c.lu.fb.copy()
            jx = np.full(c.n, np.nan)
            phix = np.full(c.m if with_phix else 0, np.nan)
            r = f(ib, fb, idx, w0.copy(), h * h, h, h, w1.copy(), qd.copy(), jx, phix)
            out.append((r, fb, jx, phix))
        (r1, fb1, jx1, px1), (r2, fb2, jx2, px2) = out
        assert r1[0] > 0.0 and r1 == r2
        assert_same(fb2, fb1, "fb after the factor")
        assert_same(jx2, jx1, "Jq qd")
        assert_same(px2, px1, "Phi_q qd")
        rng = np.random.default_rng(10 + seed)
        for sol_nb, sol_c in ((sp.lu_solve_sp, E.lu_solve), (sp.lu_solve_t_sp, E.lu_solve_t)):
            b = rng.standard_normal(c.N)
            x1, x2 = b.copy(), b.copy()
            sol_nb(ib, fb1, x1)
            sol_c(ib, fb2, x2)
            assert_same(x2, x1, sol_c.__name__)
            assert_same(fb2, fb1, "fb after " + sol_c.__name__)
        assert sp.lu_pivot_range_sp(ib, fb1) == E.lu_pivot_range(ib, fb2)


@pytest.mark.parametrize("model", MODELS)
def test_kkt_values_packed_and_gather_bit_for_bit(model):
    """kkt_values_packed (plain: c = cd = 0, and eq. 22's) and kkt_gather_packed alone."""
    c = case(model)
    ib, idx = c.lu.ib, c.slv.pidx
    w0, w1, _ = c.workspaces(7)
    for args in ((0.0, 0.0, 1e-3), (1e-6, 1e-3, 1e-3), (0.0, 2e-3, 0.5)):
        fb1, fb2 = c.lu.fb.copy(), c.lu.fb.copy()
        r1 = sp.kkt_values_packed(ib, fb1, idx, w0, *args, w1)
        r2 = E.kkt_values_packed(ib, fb2, idx, w0, *args, w1)
        assert r1 == r2 and r1[0] > 0.0
        assert_same(fb2, fb1, f"fb, c, cd, s = {args}")
        ne, nc = c.lu.ne, int(ib[sp._H_NC])
        ax1, ax2 = np.zeros(ne), np.zeros(ne)
        cv1, cv2 = np.zeros(nc), np.zeros(nc)
        sp.kkt_gather_packed(idx, w0, *args, w1, ax1, cv1)
        E.kkt_gather_packed(idx, w0, *args, w1, ax2, cv2)
        assert_same(ax2, ax1, "ax")
        assert_same(cv2, cv1, "couplings")
        assert same(ax1, fb1[:ne])


@pytest.mark.parametrize("model", MODELS)
def test_project_kkt_bit_for_bit(model):
    """li-euler's projection="mass" (eq. 30 with its own KKT): copy M into w1, gather, factor,
    solve [0; -Φ], add to dq."""
    c = case(model, projection="mass")
    stab, niter, gamma, ib, fb, pidx = c.slv.stab_args
    assert c.slv._lu2 is not None and ib is c.slv._lu2.ib
    for seed in range(2):
        w0, w1, _ = c.workspaces(20 + seed)
        phi1 = np.random.default_rng(seed).standard_normal(c.m) * 1e-6
        dq0 = np.random.default_rng(30 + seed).standard_normal(c.n) * 1e-3
        out = []
        for f in (project_kkt, E.project_kkt):
            fbk, w1k, rhs, dq = fb.copy(), w1.copy(), np.full(c.N, np.nan), dq0.copy()
            r = f(ib, fbk, pidx, w0, w1k, phi1, 1e-3, rhs, dq)
            out.append((r, fbk, w1k, rhs, dq))
        assert out[0][0] == out[1][0] and out[0][0][0] > 0.0
        for what, a, b in zip(("fb", "w1", "rhs", "dq"), out[1][1:], out[0][1:]):
            assert_same(a, b, what)


def _first_pivot_entries(lu):
    """The entries of ax summed into the first pivot of the elimination (its row has no L part,
    so the pivot is their sum)."""
    ib = lu.ib
    diag = ib[ib[sp._H_DIAG]:ib[sp._H_DIAG] + lu.N]
    amap = ib[ib[sp._H_AMAP]:ib[sp._H_AMAP] + lu.ne]
    return np.nonzero(amap == diag[0])[0]


def _stats(lu, fb):
    o = lu.o_stats
    return fb[o:o + sp._S_LEN]


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("how", ["static pivot", "growth", "nan"])
def test_fallback_flag_count_row_and_refined_solves_bit_for_bit(model, how):
    """The fallback: a pivot below PIVOT_REL times its reference (the first pivot's entries set to
    1e-30 of their value: raised to the bound, flagged, counted, its row recorded), a multiplier
    above a growth limit (set to 1 on the copies: flagged without a static pivot), a NaN entry
    (ratio 0). The statistics, factors and the refined solves (A, Aᵀ, several right-hand sides)
    agree bit for bit; the refinement makes the solves accurate against the true matrix."""
    c = case(model)
    lu, ib, idx = c.lu, c.lu.ib, c.slv.pidx
    w0, w1, qd = c.workspaces(3)
    fb0 = lu.fb.copy()
    sp.kkt_values_packed(ib, fb0, idx, w0, 1e-6, 1e-3, 1e-3, w1)  # (ax of a step)
    if how == "static pivot":
        fb0[_first_pivot_entries(lu)] *= 1e-30
    elif how == "growth":
        _stats(lu, fb0)[sp._S_GROWTH_LIMIT] = 1.0
    else:
        fb0[lu.ne // 2] = np.nan
    _stats(lu, fb0)[sp._S_COUNT] = 3.0  # (the count accumulates from the value in fb)
    fb1, fb2 = fb0.copy(), fb0.copy()
    for _ in range(2):  # twice: the count goes up by one each time
        r1 = sp.lu_refactor(ib, fb1)
        r2 = E.lu_refactor(ib, fb2)
        assert same(r1, r2)
        assert_same(fb2, fb1, "fb after the flagged factor")
    st = _stats(lu, fb2)
    if how == "nan":  # no factors (ratio 0); a NaN passes the pivot and growth tests unflagged
        assert r2[0] == 0.0 and st[sp._S_FLAG] == 0.0 and st[sp._S_COUNT] == 3.0
        return
    assert st[sp._S_FLAG] == 1.0 and st[sp._S_COUNT] == 5.0
    if how == "static pivot":
        row = int(ib[ib[sp._H_PROW]])  # the original row of the first pivot
        assert st[sp._S_ROW] == row and r2[0] > 0.0
    else:
        assert st[sp._S_ROW] == 0.0
    assert r2[1] > 1.0
    rng = np.random.default_rng(4)
    K = np.zeros((c.N, c.N))
    np.add.at(K, (lu.rows, lu.cols), fb2[:lu.ne])
    for sol_nb, sol_c, T in ((sp.lu_solve_sp, E.lu_solve, False),
                             (sp.lu_solve_t_sp, E.lu_solve_t, True)):
        for _ in range(2):
            b = rng.standard_normal(c.N)
            x1, x2 = b.copy(), b.copy()
            sol_nb(ib, fb1, x1)
            sol_c(ib, fb2, x2)
            assert_same(x2, x1, f"refined {sol_c.__name__}")
            assert_same(fb2, fb1, f"fb after the refined {sol_c.__name__}")
    # the same refined solve on the matrix without couplings: residual against K itself
    if int(ib[sp._H_NC]) == 0 and how == "growth":
        b = rng.standard_normal(c.N)
        x = b.copy()
        E.lu_solve(ib, fb2, x)
        assert np.abs(K @ x - b).max() <= 1e-8 * np.abs(K).max() * np.abs(x).max()


@pytest.mark.parametrize("model", MODELS)
@pytest.mark.parametrize("flagged", [False, True])
def test_solve_multi_bit_for_bit(model, flagged):
    """lu_solve_multi (k right-hand sides as columns); flagged factors: one refined solve per
    column (the couplings too, as the numba kernel)."""
    c = case(model)
    ib = c.lu.ib
    fb0 = c.lu.fb.copy()
    if flagged:
        _stats(c.lu, fb0)[sp._S_FLAG] = 1.0
    X0 = np.random.default_rng(8).standard_normal((c.N, 3))
    fb1, fb2, X1, X2 = fb0.copy(), fb0.copy(), X0.copy(), X0.copy()
    sp.lu_solve_multi_sp(ib, fb1, X1, np.zeros((c.N, 3)))
    E.lu_solve_multi(ib, fb2, X2, np.zeros((c.N, 3)))
    assert_same(X2, X1, "X")
    assert_same(fb2, fb1, "fb")


@pytest.mark.parametrize("model", MODELS)
def test_rereference_bit_for_bit(model):
    c = case(model)
    ib = c.lu.ib
    w0, w1, _ = c.workspaces(11)
    fb0 = c.lu.fb.copy()
    sp.kkt_values_packed(ib, fb0, c.slv.pidx, w0, 1e-6, 1e-3, 1e-3, w1)
    fb1, fb2 = fb0.copy(), fb0.copy()
    assert sp.lu_rereference(ib, fb1) is E.lu_rereference(ib, fb2) is True
    assert_same(fb2, fb1, "fb")
    fb1[_first_pivot_entries(c.lu)] = 0.0
    fb2[_first_pivot_entries(c.lu)] = 0.0
    assert sp.lu_rereference(ib, fb1) is E.lu_rereference(ib, fb2) is False
    assert_same(fb2, fb1, "fb (zero pivot)")


@pytest.mark.parametrize("model", MODELS)
def test_phiq_times_and_a_times_bit_for_bit(model):
    """The dense-workspace products over a KKTMap's entries (li-euler's Python-driven path)."""
    c = case(model)
    s, st = c.system, c.state
    ws = s.workspace()
    s.evaluate(st.t, st.q, st.qd, ws, c.slv.what0 | c.slv.jac_flag)
    idx = c.slv.skkt.idx
    rng = np.random.default_rng(2)
    x = rng.standard_normal(c.n)
    J = ws.Jq + rng.standard_normal((c.n, c.n))  # (Jq is zero on models without stiff elements)
    for nb, cf, A, ny in ((sp.phiq_times, E.phiq_times, ws.phiq, c.m),
                          (sp.a_times, E.a_times, J, c.n)):
        y1, y2 = np.full(ny, np.nan), np.full(ny, np.nan)
        nb(idx, A, x, y1)
        cf(idx, np.ascontiguousarray(A), x, y2)
        assert_same(y2, y1, cf.__name__)
        assert np.abs(y1).max() > 0.0


def test_the_models_exercise_every_branch_of_the_refactor():
    """The bit-for-bit tests above cover every path of lu_refactor: rows taken one at a time and
    in groups of two, three and four supernode rows (sparse.py paired_rows), as the numba kernel
    chooses them."""
    sizes = set()
    for model in MODELS:
        ib = case(model).lu.ib
        N = int(ib[sp._H_N])
        part = lambda slot, n: ib[ib[slot]:ib[slot] + n].astype(np.int64)  # noqa: E731
        ptr, diag = part(sp._H_PTR, N + 1), part(sp._H_DIAG, N)
        col, paired = part(sp._H_COL, int(ib[sp._H_NNZ])), part(sp._H_PAIRED, N)
        for i in range(N):
            p, d = ptr[i], diag[i]
            while p < d:
                k = col[p]
                if (p + 3 < d and paired[k] and paired[k + 1] and paired[k + 2]
                        and col[p + 3] == k + 3):
                    g = 4
                elif p + 2 < d and paired[k] and paired[k + 1] and col[p + 2] == k + 2:
                    g = 3
                elif p + 1 < d and paired[k] and col[p + 1] == k + 1:
                    g = 2
                else:
                    g = 1
                sizes.add(g)
                p += g
    assert sizes == {1, 2, 3, 4}
