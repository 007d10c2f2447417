"""The kernels of the fixed-step ODE integrators in C (src/rtmbs/engine/dense_lu.c, rosenbrock.c,
adams.c) against the numba kernels they replace, with the same positional arguments, on random
well-conditioned matrices and vectors (n = 1, 5, 9, 23; with and without row swaps): the dense
LU (rtmbs.solvers.linalg lu_factor, lu_solve), GRK4T's factorisation, its four stages from any
argument and the mass scaling (rtmbs.solvers.rosenbrock _grk_factor, _grk_stage, _mass_scale),
AB3's M^-1 Q, update and RK4 stage arguments (rtmbs.solvers.adams _accel, _ab3_update,
_rk4_point). Neither side contracts multiply-adds (the numba kernels are compiled without
fastmath, the C with -ffp-contract=off) and the operations are the same in the same order, so
every result is compared bit for bit."""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.solvers import adams, linalg, rosenbrock

SIZES = [1, 5, 9, 23]


def _matrix(rng, n, swaps):
    a = rng.standard_normal((n, n)) + (0.0 if swaps else 4.0 * n) * np.eye(n)
    return a


def _same(what, got, want):
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape and np.array_equal(got, want), (
        f"{what}: max difference {np.abs(got - want).max():.2e}")


@pytest.mark.parametrize("swaps", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_dense_lu(n, swaps):
    rng = np.random.default_rng(100 * n + swaps)
    a = _matrix(rng, n, swaps)
    la, lc = a.copy(), a.copy()
    pa, pc = np.zeros(n, np.int64), np.full(n, -1, np.int64)
    ra = linalg.lu_factor(la, pa)
    rc = _engine.dense_lu_factor(lc, pc)
    assert ra == rc and 0.0 < rc <= 1.0
    _same("LU", lc, la)
    _same("piv", pc, pa)
    if swaps and n > 1:
        assert np.any(pa != np.arange(n))  # (rows were swapped)
    b = rng.standard_normal(n)
    ba, bc = b.copy(), b.copy()
    linalg.lu_solve(la, pa, ba)
    _engine.dense_lu_solve(lc, pc, bc)
    _same("x", bc, ba)
    np.testing.assert_allclose(a @ bc, b, rtol=1e-9, atol=1e-9)


def test_dense_lu_singular_and_empty():
    a = np.ones((3, 3))
    assert _engine.dense_lu_factor(a.copy(), np.zeros(3, np.int64)) == linalg.lu_factor(
        a.copy(), np.zeros(3, np.int64)) == 0.0
    assert _engine.dense_lu_factor(np.zeros((0, 0)), np.zeros(0, np.int64)) == 1.0


def _grk_inputs(rng, n):
    M = _matrix(rng, n, False) + _matrix(rng, n, False).T
    Jq = -rng.standard_normal((n, n)) * 50.0
    Jqd = -rng.standard_normal((n, n)) * 5.0
    return M, Jq, Jqd


@pytest.mark.parametrize("n", SIZES)
def test_grk4t_factor_stages_and_mass_scale(n):
    rng = np.random.default_rng(7 + n)
    h = 2e-3
    M, Jq, Jqd = _grk_inputs(rng, n)
    LUa, LUc = np.zeros((n, n)), np.zeros((n, n))
    pa, pc = np.zeros(n, np.int64), np.zeros(n, np.int64)
    assert rosenbrock._grk_factor(h, M, Jq, Jqd, LUa, pa) is True
    assert _engine.grk_factor(h, M, Jq, Jqd, LUc, pc) is True
    _same("LU", LUc, LUa)
    _same("piv", pc, pa)
    q0, v0 = rng.standard_normal(n), rng.standard_normal(n)
    Qt = rng.standard_normal(n)
    side = {}
    for name, stage in (("numba", rosenbrock._grk_stage), ("C", _engine.grk_stage)):
        q, v = q0.copy(), v0.copy()
        U = np.zeros((4, 2, n))
        qs, vs, rq, rv = (np.zeros(n) for _ in range(4))
        r2 = np.random.default_rng(99)  # (the same stage forces on both sides)
        for i in range(4):
            Qs = r2.standard_normal(n)
            vin = v if i == 0 else vs
            stage(i, h, M, LUa, pa, Jq, Qs, Qt, U, q, v, vin, qs, vs, rq, rv)
        side[name] = (q, v, U, qs, vs, rq, rv)
    for what, c, a in zip(("q", "v", "U", "qs", "vs", "rq", "rv"), side["C"], side["numba"]):
        _same(what, c, a)
    assert np.abs(side["C"][0] - q0).max() > 0.0
    Ms = M + 0.1 * np.eye(n)
    Qs = rng.standard_normal(n)
    out = {}
    for name, scale in (("numba", rosenbrock._mass_scale), ("C", _engine.grk_mass_scale)):
        LUm, pivm, Q, tmp = np.zeros((n, n)), np.zeros(n, np.int64), Qs.copy(), np.zeros(n)
        assert scale(M, Ms, LUm, pivm, Q, tmp) is True
        out[name] = (Q, LUm, pivm)
    for what, c, a in zip(("Qs", "LUm", "pivm"), out["C"], out["numba"]):
        _same(what, c, a)


def test_grk4t_singular_factor():
    n = 3
    z = np.zeros((n, n))
    for f in (rosenbrock._grk_factor, _engine.grk_factor):
        assert f(1e-3, z, z, z, np.zeros((n, n)), np.zeros(n, np.int64)) is False


@pytest.mark.parametrize("n", SIZES)
def test_ab3_kernels(n):
    rng = np.random.default_rng(31 + n)
    M = _matrix(rng, n, True)
    Q = rng.standard_normal(n)
    res = {}
    for name, accel in (("numba", adams._accel), ("C", _engine.ab3_accel)):
        LU, piv, out = np.zeros((n, n)), np.zeros(n, np.int64), np.zeros(n)
        ok = accel(M, LU, piv, True, Q, out)
        out2 = np.zeros(n)
        ok2 = accel(M, LU, piv, False, 2.0 * Q, out2)  # (with the factors of the first call)
        res[name] = (float(ok), float(ok2), out, out2, LU, piv)
    for what, c, a in zip(("ratio", "ratio2", "out", "out2", "LU", "piv"), res["C"], res["numba"]):
        _same(what, c, a)
    assert res["C"][0] > 0.0 and res["C"][1] == 1.0
    F = rng.standard_normal((3, 2, n))
    q0, v0 = rng.standard_normal(n), rng.standard_normal(n)
    for k in range(2, 8):
        qa, va, qc, vc = q0.copy(), v0.copy(), q0.copy(), v0.copy()
        adams._ab3_update(1e-3, F, k, qa, va)
        _engine.ab3_update(1e-3, F, k, qc, vc)
        _same(f"q (k = {k})", qc, qa)
        _same(f"v (k = {k})", vc, va)
    K = rng.standard_normal((4, 2, n))
    for c in (0.5e-3, 1e-3):
        a = (np.zeros(n), np.zeros(n))
        b = (np.zeros(n), np.zeros(n))
        adams._rk4_point(c, q0, v0, K[1, 0], K[1, 1], *a)
        _engine.rk4_point(c, q0, v0, K[1, 0], K[1, 1], *b)
        _same("qs", b[0], a[0])
        _same("vs", b[1], a[1])
