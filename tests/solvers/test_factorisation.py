"""The factorisation interface (rtmbs.solvers.factorisation) and Algorithm 2's bases
(rtmbs.solvers.basis): dense and sparse factors against numpy on a model's matrices, and the
defining identities of T = [S R] = [Φq; B]⁻¹ (Carpinelli 2016 eq. 24) for every way of choosing B."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.protocol import EVAL_GAMMA, EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q
from rtmbs.solvers.basis import make_basis
from rtmbs.solvers.factorisation import kkt_correction, make_kkt
from rtmbs.solvers.stabilization import Projector


@pytest.fixture(scope="module")
def four_bar():
    """The spatial four-bar (Euler parameters: M singular along p) in a moving state, evaluated."""
    sysm = load_model("four-bar")
    st = sysm.initial_state()
    rng = np.random.default_rng(3)
    q = st.q + 1e-3 * rng.standard_normal(sysm.n)  # off the constraint manifold: Φ ≠ 0
    qd = st.qd + 0.1 * rng.standard_normal(sysm.n)
    ws = sysm.workspace()
    sysm.evaluate(0.0, q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA | EVAL_JAC)
    return sysm, ws


def _kkt_dense(ws, c, cd, s):
    n, m = ws.M.shape[0], ws.phiq.shape[0]
    K = np.zeros((n + m, n + m))
    K[:n, :n] = ws.M - cd * ws.Jqd - c * ws.Jq
    K[:n, n:] = s * ws.phiq.T
    K[n:, :n] = ws.phiq
    return K


@pytest.mark.parametrize("sparse", [False, True])
@pytest.mark.parametrize("c,cd,s", [(0.0, 0.0, 1.0), (1e-6, 1e-3, 1e-3)])
def test_kkt_factorisation_solves_like_numpy(four_bar, sparse, c, cd, s):
    """factor + solve and solve_t of [M − cd Jq̇ − c Jq, sΦqᵀ; Φq 0], dense and on the fixed
    patterns (the sparse one augmented on the Euler-parameter rows), against numpy."""
    sysm, ws = four_bar
    ap = np.asarray(sysm.mass_pattern) | np.asarray(sysm.jacobian_pattern(False))
    kkt = make_kkt(sysm, sparse, ap)
    assert kkt.sparse == sparse and (kkt.lu is not None) == sparse
    ratio = kkt.factor(ws.M, ws.Jq, ws.Jqd, c, cd, ws.phiq, s, ws.phiq)
    assert 0.0 < ratio <= 1.0
    K = _kkt_dense(ws, c, cd, s)
    b = np.random.default_rng(0).standard_normal(K.shape[0])
    for solve, A in ((kkt.solve, K), (kkt.solve_t, K.T)):
        x = b.copy()
        solve(x)
        ref = np.linalg.solve(A, b)
        assert np.abs(x - ref).max() <= 1e-9 * np.abs(ref).max()
    assert kkt.nanalyse == (1 if sparse else 0) and kkt.nfallback == 0


def test_projection_is_the_same_dense_and_sparse(four_bar):
    """Projector (factor and correct, eq. 30) on dense and sparse factors, and
    kkt_correction with the factors of either: the correction solves [M hΦqᵀ; Φq 0][x; μ] =
    [0; −Φ] (Φq x = −Φ), dense = sparse; a sparse KKT is analysed once, never again."""
    sysm, ws = four_bar
    h = 1e-3
    K = np.zeros((sysm.n + sysm.m,) * 2)
    K[:sysm.n, :sysm.n], K[:sysm.n, sysm.n:], K[sysm.n:, :sysm.n] = ws.M, h * ws.phiq.T, ws.phiq
    ref = np.linalg.solve(K, np.concatenate([np.zeros(sysm.n), -ws.phi]))[:sysm.n]
    out = {}
    for sparse in (False, True):
        proj = Projector(sysm.n, sysm.m, make_kkt(sysm, sparse))
        dq = np.zeros(sysm.n)
        for _ in range(3):
            assert proj.correct(ws.M, ws.phiq, ws.phi, h, dq)
        np.testing.assert_allclose(dq / 3, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
        dq2 = np.zeros(sysm.n)
        fa, fb = proj.kkt.args[:2]
        kkt_correction(fa, fb, ws.phi, np.zeros(sysm.n + sysm.m), dq2)
        np.testing.assert_allclose(dq2, ref, rtol=0, atol=1e-9 * np.abs(ref).max())
        assert proj.nanalyse == (1 if sparse else 0)
        out[sparse] = dq2
    np.testing.assert_allclose(ws.phiq @ out[True], -ws.phi, rtol=0, atol=1e-12)
    np.testing.assert_allclose(out[True], out[False], rtol=0, atol=1e-12)


@pytest.mark.parametrize("mode,sparse", [("qr", False), ("partition", False),
                                         ("partition", True)])
def test_basis_satisfies_the_identities_of_T(four_bar, mode, sparse):
    """For each way of choosing B (and the dense and sparse Φu of the partition): with
    T = [S R] = [Φq; B]⁻¹, Φq R = 0 and B R = I, Φq Sc = γ and B Sc = 0; q̇ = S b + R ż satisfies
    Φq q̇ = b and B q̇ = ż; λ = Sᵀx/h for x = hΦqᵀμ returns μ; the projection with T moves
    Φq Δq by −Φ along S (B Δq = 0)."""
    sysm, ws = four_bar
    n, m = sysm.n, sysm.m
    f = n - m
    basis = make_basis(mode, n, m, np.asarray(sysm.phiq_pattern) if sparse else None)
    assert basis.choose(ws.phiq) > 1e-8
    basis.prepare(ws.phiq)
    pq = basis.reader(ws.phiq)  # the kernels' Φq: (flat buffer, entry index) for the partition
    ratio, lu_ratio, _ = basis.factor(pq)
    assert 0.0 < ratio <= lu_ratio <= 1.0
    if mode == "qr":
        B = basis.B
    else:
        B = np.zeros((f, n))
        B[np.arange(f), basis.cols[m:]] = 1.0
    assert len(basis.factors()) == (1 if sparse else 0)
    Rn, Sc = np.zeros((n, f)), np.zeros(n)
    basis.R_Sc(pq, ws.gamma, Rn, Sc)
    tol = 1e-10
    np.testing.assert_allclose(ws.phiq @ Rn, 0.0, atol=tol)
    np.testing.assert_allclose(B @ Rn, np.eye(f), atol=tol)
    np.testing.assert_allclose(ws.phiq @ Sc, ws.gamma, atol=tol * max(1.0, np.abs(ws.gamma).max()))
    np.testing.assert_allclose(B @ Sc, 0.0, atol=tol)
    rng = np.random.default_rng(1)
    zd, qd, gb = rng.standard_normal(f), np.zeros(n), 7.0
    basis.velocity(pq, ws.phit, ws.phi, gb, zd, qd)
    np.testing.assert_allclose(ws.phiq @ qd, -ws.phit - gb * ws.phi, atol=tol)
    zd2 = np.zeros(f)
    basis.zd(qd, zd2)
    np.testing.assert_allclose(zd2, zd, atol=tol)
    np.testing.assert_allclose(B @ qd, zd, atol=tol)
    mu, h, lam = rng.standard_normal(m), 1e-3, np.zeros(m)
    basis.lam(h * ws.phiq.T @ mu, lam, h)
    np.testing.assert_allclose(lam, mu, atol=1e-8 * np.abs(mu).max())
    dq = np.zeros(n)
    basis.project_T(ws.phi, dq)
    np.testing.assert_allclose(ws.phiq @ dq, -ws.phi, atol=tol)
    np.testing.assert_allclose(B @ dq, 0.0, atol=tol)


def test_partition_with_given_independent_coordinates(four_bar):
    """``independent=``: those coordinates are v (last in ``cols``), and the ratio returned is that
    of the factorisation of their Φu (the same as the automatic choice's when they agree); a
    choice that leaves a singular Φu returns 0."""
    sysm, ws = four_bar
    n, m = sysm.n, sysm.m
    auto = make_basis("partition", n, m)
    assert auto.choose(ws.phiq) > 1e-8
    auto.prepare(ws.phiq)
    v = [int(i) for i in auto.cols[m:]]
    given = make_basis("partition", n, m)
    assert given.choose(ws.phiq, v) == auto.factor(auto.reader(ws.phiq))[0]
    assert list(given.cols[m:]) == v and sorted(given.cols) == list(range(n))
    phiq = np.array([[1.0, 0.0, 0.0], [0.0, 2.0, 2.0]])  # x0 cannot be independent
    assert make_basis("partition", 3, 2).choose(phiq, [0]) == 0.0
    assert make_basis("partition", 3, 2).choose(phiq, [2]) == 0.5  # min|u_kk| / max|Φq_ij|
