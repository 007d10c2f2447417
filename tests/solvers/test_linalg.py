"""The solvers' dense linear algebra (the engine's LU, numpy's QR and partitioning) against numpy
and the defining properties of B."""
import numpy as np
import pytest

from rtmbs.solvers.linalg import lu_factor, lu_solve, lu_solve_t, null_basis_qr, select_partition


@pytest.mark.parametrize("n", [1, 5, 12])
def test_lu_solve_matches_numpy(n):
    rng = np.random.default_rng(n)
    A = rng.standard_normal((n, n))
    b = rng.standard_normal(n)
    LU, piv = A.copy(), np.zeros(n, np.int64)
    ratio = lu_factor(LU, piv)
    assert 0 < ratio <= 1
    x = b.copy()
    lu_solve(LU, piv, x)
    np.testing.assert_allclose(x, np.linalg.solve(A, b), rtol=1e-10)
    xt = b.copy()
    lu_solve_t(LU, piv, xt)
    np.testing.assert_allclose(xt, np.linalg.solve(A.T, b), rtol=1e-10)


def test_kkt_needs_pivoting_and_singular_is_reported():
    # zero (2,2) block: fails without row exchanges
    K = np.array([[2.0, 0.0, 1.0], [0.0, 3.0, 1.0], [1.0, 1.0, 0.0]])
    b = np.array([1.0, 2.0, 3.0])
    LU, piv = K.copy(), np.zeros(3, np.int64)
    assert lu_factor(LU, piv) > 0
    x = b.copy()
    lu_solve(LU, piv, x)
    np.testing.assert_allclose(K @ x, b, atol=1e-14)
    S = np.array([[1.0, 2.0], [2.0, 4.0]])
    assert lu_factor(S.copy(), np.zeros(2, np.int64)) == 0.0


def test_null_basis_qr_is_orthonormal_null_space():
    rng = np.random.default_rng(1)
    m, n = 3, 7
    phiq = rng.standard_normal((m, n))
    B = np.zeros((n - m, n))
    ratio = null_basis_qr(phiq, np.zeros((n, m)), np.zeros((m, n)), np.zeros(m), B)
    assert ratio > 0
    np.testing.assert_allclose(phiq @ B.T, 0, atol=1e-13)
    np.testing.assert_allclose(B @ B.T, np.eye(n - m), atol=1e-13)
    # same subspace as numpy's complete QR (Carpinelli 2015 eq. 4.11)
    C1, _ = np.linalg.qr(phiq.T, mode="complete")
    P1 = C1[:, m:] @ C1[:, m:].T
    np.testing.assert_allclose(B.T @ B, P1, atol=1e-12)


def test_select_partition_picks_a_nonsingular_dependent_block():
    # the second coordinate does not appear: it must be independent
    phiq = np.array([[1.0, 0.0, 2.0, 0.0], [0.0, 0.0, 1.0, 1e-3]])
    cols = np.zeros(4, np.int64)
    ratio = select_partition(phiq, np.zeros_like(phiq), cols)
    dep, ind = cols[:2], cols[2:]
    assert 1 in ind
    assert abs(np.linalg.det(phiq[:, dep])) > 1e-6
    assert 0 < ratio <= 1
    rank_def = np.array([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    assert select_partition(rank_def, np.zeros_like(rank_def), np.zeros(3, np.int64)) < 1e-15


def test_the_engine_checks_the_partition_arguments():
    """The engine's partitioning and threshold rows refuse arrays that do not fit (instead of
    reading past them)."""
    from rtmbs.engine import _engine

    phiq = np.ones((2, 3))
    with pytest.raises(ValueError, match="w is shorter than phiq"):
        _engine.select_partition(phiq, np.zeros((1, 3)), np.zeros(3, np.int64))
    with pytest.raises(TypeError):
        _engine.select_partition(phiq, np.zeros((2, 3)), np.zeros(3, np.int32))
    r = np.array([0, 1], np.int64)
    with pytest.raises(ValueError, match="an entry out of 0..N-1"):
        _engine.threshold_rows_into(r, np.array([0, 2], np.int64), np.ones(2),
                                    np.array([0, 1], np.int64), 0.01, np.zeros(2, np.int64))
    prow = np.zeros(2, np.int64)
    assert _engine.threshold_rows_into(r, r, np.array([1.0, 0.0]), np.array([0, 1], np.int64),
                                       0.01, prow) == -1  # a zero column
    assert prow.tolist() == [0, -1]
