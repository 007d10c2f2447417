"""The dense LU of the engine (src/rtmbs/engine/dense_lu.c, ``dense_lu_factor``/``dense_lu_solve``,
used by the fixed-step ODE integrators and every dense step driven from Python) on random
matrices (n = 1, 5, 9, 23; with and without row swaps): the solution against numpy's, the factors
reproducing the row-swapped matrix (P A = L U), the pivot ratio min|u_kk| / max|u_kk|, a singular
and an empty matrix. (The bit-for-bit comparisons of rosenbrock.c's and adams.c's kernels with the
numba kernels they replaced went with those kernels; their steps: test_ode_steps.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine

SIZES = [1, 5, 9, 23]


def _matrix(rng, n, swaps):
    return rng.standard_normal((n, n)) + (0.0 if swaps else 4.0 * n) * np.eye(n)


@pytest.mark.parametrize("swaps", [False, True])
@pytest.mark.parametrize("n", SIZES)
def test_dense_lu(n, swaps):
    rng = np.random.default_rng(100 * n + swaps)
    a = _matrix(rng, n, swaps)
    lu, piv = a.copy(), np.full(n, -1, np.int64)
    ratio = _engine.dense_lu_factor(lu, piv)
    L, U = np.tril(lu, -1) + np.eye(n), np.triu(lu)
    pa = a.copy()
    for k in range(n):  # the row swaps in order
        pa[[k, piv[k]]] = pa[[piv[k], k]]
    np.testing.assert_allclose(L @ U, pa, rtol=1e-12, atol=1e-12 * np.abs(a).max())
    d = np.abs(np.diag(U))
    assert ratio == pytest.approx(d.min() / d.max(), rel=1e-15)
    assert np.abs(np.tril(lu, -1)).max(initial=0.0) <= 1.0  # partial pivoting: |l_ik| <= 1
    if swaps and n > 1:
        assert np.any(piv != np.arange(n))  # (rows were swapped)
    b = rng.standard_normal(n)
    x = b.copy()
    _engine.dense_lu_solve(lu, piv, x)
    np.testing.assert_allclose(x, np.linalg.solve(a, b), rtol=1e-9, atol=1e-12)


def test_dense_lu_singular_and_empty():
    assert _engine.dense_lu_factor(np.ones((3, 3)), np.zeros(3, np.int64)) == 0.0
    assert _engine.dense_lu_factor(np.zeros((0, 0)), np.zeros(0, np.int64)) == 1.0
