"""The hand-written planar models: sizes, ranks, and derivatives against finite differences."""
import numpy as np
import pytest
import _models.redundant as tm


@pytest.mark.parametrize("redundant, m", [(True, 12), (False, 11)])
def test_sizes_and_rank(redundant, m):
    s = tm.ParallelogramLinkage(redundant)
    st = s.initial_state()
    assert (s.n, s.m) == (12, m)
    assert np.linalg.norm(s.constraints(st.q)) < 1e-15
    assert np.linalg.matrix_rank(s.constraint_jacobian(st.q)) == 11  # f = 1 in both
    assert np.linalg.norm(s.constraint_jacobian(st.q) @ st.qd) < 1e-15


@pytest.mark.parametrize("redundant", [True, False])
def test_jacobian_and_gamma_against_finite_differences(redundant):
    s = tm.ParallelogramLinkage(redundant)
    rng = np.random.default_rng(3)
    q = s.initial_state().q + 0.1 * rng.normal(size=s.n)  # off the manifold too
    qd = rng.normal(size=s.n)
    eps = 1e-6
    J_fd = np.column_stack([(s.constraints(q + eps * e) - s.constraints(q - eps * e)) / (2 * eps)
                            for e in np.eye(s.n)])
    np.testing.assert_allclose(s.constraint_jacobian(q), J_fd, atol=1e-9)
    # γ = −(Φq q̇)_q q̇
    g_fd = -(s.constraint_jacobian(q + eps * qd) @ qd - s.constraint_jacobian(q - eps * qd) @ qd) / (2 * eps)
    np.testing.assert_allclose(s.gamma(q, qd), g_fd, atol=1e-8)


def test_configuration_is_consistent_along_the_motion():
    s = tm.ParallelogramLinkage(True)
    for th in np.deg2rad([-150.0, -90.0, -30.0]):
        q, qd = s.configuration(th, 1.7)
        assert np.linalg.norm(s.constraints(q)) < 1e-15
        assert np.linalg.norm(s.constraint_jacobian(q) @ qd) < 1e-14
