"""The straight-line generated LU (rtmbs.codegen, issue 11 experiment) against lu_refactor /
lu_solve_sp on the KKT matrix of eq. 22 of li-euler on two cheap models: the same factors,
statistics and solutions to round-off (the operations are the same, in the same order), also
when a pivot is raised (static pivoting), the multipliers exceed the growth limit (refined
solves) or an entry is NaN."""
import numpy as np
import pytest

from rtmbs.codegen import build_c, build_numba, compiler
from rtmbs.models import load_model
from rtmbs.solvers import sparse as sp
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.sparse import lu_refactor, lu_solve_sp

NO_CC = "no C compiler (cc, gcc or clang; or $CC) on PATH: the C back-end cannot be built"
MODELS = ("peer-four-bar", "peer-quarter-car")
BACKENDS = ("c", "numba")


@pytest.fixture(scope="module", params=MODELS)
def kkt(request):
    """The SparseLU of li-euler's eq. 22 after 20 steps of its model (default options)."""
    sysm = load_model(request.param)
    slv = get_solver("li-euler")(sysm)
    st = sysm.initial_state()
    slv.reset(st)
    for _ in range(20):
        slv.step(st, 1e-3)
    return slv.skkt.lu


def _build(lu, backend):
    if backend == "c":
        if compiler() is None:
            pytest.skip(NO_CC)
        return build_c(lu)
    return build_numba(lu)


def _run_reference(lu, fb, b):
    lu.fb[:] = fb
    ratio, growth = lu_refactor(lu.ib, lu.fb)
    x = b.copy()
    lu_solve_sp(lu.ib, lu.fb, x)
    return ratio, growth, lu.fb.copy(), x


def _run_generated(g, lu, fb, b):
    lu.fb[:] = fb
    ratio = g.refactor()
    x = b.copy()
    g.solve(x)
    return ratio, lu.growth, lu.fb.copy(), x


def _compare(lu, ref, gen):
    """Factors (ax | lu), statistics, pivot ratio, largest multiplier and solution agree."""
    (r0, g0, f0, x0), (r1, g1, f1, x1) = ref, gen
    n = lu.ne + lu.nnz
    stats = slice(lu.o_stats, lu.o_stats + sp._S_LEN)
    scale = np.abs(f0[:n][np.isfinite(f0[:n])]).max()
    np.testing.assert_allclose(f1[:n], f0[:n], rtol=0, atol=1e-13 * scale, equal_nan=True)
    np.testing.assert_array_equal(f1[stats], f0[stats])
    assert r1 == pytest.approx(r0, rel=1e-12, abs=0.0)
    assert g1 == pytest.approx(g0, rel=1e-12, abs=0.0)
    if np.all(np.isfinite(x0)):
        np.testing.assert_allclose(x1, x0, rtol=0, atol=1e-12 * np.abs(x0).max())
    else:
        np.testing.assert_array_equal(np.isfinite(x1), np.isfinite(x0))


def _diag_entries(lu, row):
    """Entries e scattered onto the diagonal of the ``row``-th row of the elimination."""
    ib = lu.ib
    diag = ib[ib[sp._H_DIAG] + row]
    amap = ib[ib[sp._H_AMAP]:ib[sp._H_AMAP] + lu.ne]
    return np.nonzero(amap == diag)[0]


@pytest.mark.parametrize("backend", BACKENDS)
def test_generated_lu_equals_lu_refactor(kkt, backend):
    lu = kkt
    g = _build(lu, backend)
    fb0 = lu.fb.copy()
    b = np.random.default_rng(3).standard_normal(lu.N)
    try:
        ref = _run_reference(lu, fb0, b)
        assert ref[0] > 0.0 and ref[2][lu.o_stats + sp._S_FLAG] == 0.0  # healthy, unflagged
        _compare(lu, ref, _run_generated(g, lu, fb0, b))
        # a raised (static) pivot: row 5's pivot (a_55 minus terms free of a_55) cancelled
        fb = fb0.copy()
        fb[_diag_entries(lu, 5)[0]] -= ref[2][lu.ne + lu.ib[lu.ib[sp._H_DIAG] + 5]]
        ref = _run_reference(lu, fb, b)
        assert ref[2][lu.o_stats + sp._S_FLAG] == 1.0  # flagged: the solves are refined
        assert ref[2][lu.o_stats + sp._S_ROW] == lu.ib[lu.ib[sp._H_PROW] + 5]
        _compare(lu, ref, _run_generated(g, lu, fb, b))
        # multipliers over the growth limit: flagged without a raised pivot
        fb = fb0.copy()
        fb[lu.o_stats + sp._S_GROWTH_LIMIT] = 1e-3
        ref = _run_reference(lu, fb, b)
        assert ref[2][lu.o_stats + sp._S_FLAG] == 1.0
        _compare(lu, ref, _run_generated(g, lu, fb, b))
        # a NaN entry: pivot ratio 0 (no factors)
        fb = fb0.copy()
        fb[_diag_entries(lu, 0)[0]] = np.nan
        ref = _run_reference(lu, fb, b)
        assert ref[0] == 0.0
        _compare(lu, ref, _run_generated(g, lu, fb, b))
    finally:
        lu.fb[:] = fb0


def test_solve_rejects_wrong_rhs(kkt):
    g = _build(kkt, "numba")
    with pytest.raises(ValueError, match=f"contiguous float64 array of length {kkt.N}"):
        g.solve(np.zeros(kkt.N + 1))


def test_codegen_is_not_in_the_kernel_cache_key():
    """The generator mentions numba only in generated text: editing it must not recompile every
    kernel (rtmbs._compiled_sources; a docstring line starting "from numba" once did)."""
    from pathlib import Path

    import rtmbs

    root = Path(rtmbs.__file__).parent
    keyed = {p.relative_to(root).as_posix() for p in rtmbs._compiled_sources(root)}
    mods = {p.relative_to(root).as_posix() for p in (root / "codegen").glob("*.py")}
    assert len(mods) >= 5 and not mods & keyed
