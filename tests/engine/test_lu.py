"""The C sparse LU (src/rtmbs/engine/sparse_lu.c): its constants, the index checks, the work
counts against the analysis's plan, the fallback (static pivots, growth, NaN: flagged, counted,
the refined solves accurate against the true matrix) and the branches of the refactor the models
exercise, on the factors li-euler builds at reset (SparseKKT analysed at q0, PackedKKTMap over
the packed workspaces). (Its bit-for-bit comparisons with the numba kernels it replaced went with
them; the whole step against the dense numpy step: tests/core/test_packed_storage.py.)
"""
import numpy as np
import pytest
from _models.lu_groups import group_sizes

from rtmbs.engine import _engine as E
from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI, EVAL_PHIQ
from rtmbs.solvers import sparse as sp
from rtmbs.solvers.base import get_solver


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
def test_fallback_flag_count_row_and_refined_solves(model, how):
    """The fallback: a pivot below PIVOT_REL times its reference (the first pivot's entries set to
    1e-30 of their value: raised to the bound, flagged, counted, its row recorded), a multiplier
    above a growth limit (set to 1 on the copies: flagged without a static pivot), a NaN entry
    (ratio 0): the statistics; the refinement makes the solves accurate against the true
    matrix."""
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
    fb2 = fb0.copy()
    for _ in range(2):  # twice: the count goes up by one each time
        r2 = E.lu_refactor(ib, fb2)
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
    # the same refined solve on the matrix without couplings: residual against K itself
    if int(ib[sp._H_NC]) == 0 and how == "growth":
        b = rng.standard_normal(c.N)
        x = b.copy()
        E.lu_solve(ib, fb2, x)
        assert np.abs(K @ x - b).max() <= 1e-8 * np.abs(K).max() * np.abs(x).max()


def test_the_models_exercise_every_branch_of_the_refactor():
    """The models' factors cover every path of lu_refactor: rows taken one at a time and in
    groups of two, three and four supernode rows (sparse.py paired_rows)."""
    sizes = set()
    for model in MODELS:
        ib = case(model).lu.ib
        N = int(ib[sp._H_N])
        part = lambda slot, n: ib[ib[slot]:ib[slot] + n].astype(np.int64)  # noqa: E731
        ptr, diag = part(sp._H_PTR, N + 1), part(sp._H_DIAG, N)
        col, paired = part(sp._H_COL, int(ib[sp._H_NNZ])), part(sp._H_PAIRED, N)
        sizes |= group_sizes(ptr, diag, col, paired)
    assert sizes == {1, 2, 3, 4}
