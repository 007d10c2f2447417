"""Adaptive index-1 integration (Pękal & Frączek 2016 §2.1, §4.1): motion against an analytical 1-DOF reference,
the three stabilisations, and the coordinate-partitioning details (Newton tolerance, condition)."""
import numpy as np
import pytest
import _models.redundant as tm
from scipy.integrate import solve_ivp

from rtmbs import simulate
from rtmbs.errors import SolverError
from rtmbs.protocol import State
from rtmbs.solvers.index1 import integrate_index1
from rtmbs.solvers.partitioning import NEWTON_TOL_FACTOR

T_EVAL = np.linspace(0.0, 3.0, 31)


def _theta_reference(system, t_eval):
    """θ(t) of the one-DOF equation θ̈ = −g c cos θ / I_eff (see test_formulations)."""
    a, g = system.a, system.g
    (m0, _), (m1, _), (m2, _), (m3, _) = system.bars
    I_eff = sum(mk * a**2 / 3 for mk in (m0, m1, m3)) + m2 * a**2
    c = (m0 + m1 + m3) * a / 2 + m2 * a
    sol = solve_ivp(lambda t, y: [y[1], -g * c * np.cos(y[0]) / I_eff], (0, t_eval[-1]),
                    [system.theta0, system.thetad0], rtol=1e-12, atol=1e-12, t_eval=t_eval)
    return sol.y[0]


@pytest.mark.parametrize("stab", ["baumgarte", "partitioning"])
def test_overconstrained_and_non_redundant_have_the_same_motion(stab):
    """The fifth bar adds no mobility: both versions follow the same θ(t) over 3 s (1e-6 rad),
    and the same as the one-DOF analytical equation."""
    res = {}
    for red in (True, False):
        s = tm.ParallelogramLinkage(red)
        res[red] = integrate_index1(s, "least-squares-2", stab, rtol=1e-9, atol=1e-9, t_end=3.0,
                                    t_eval=T_EVAL)
        assert res[red].success
    ref = _theta_reference(tm.ParallelogramLinkage(True), T_EVAL)
    assert np.ptp(ref) > 1.0  # a real swing, not a rest position
    for red in (True, False):
        assert np.abs(res[red].q[:, 2] - ref).max() < 1e-6
    assert np.abs(res[True].q - res[False].q).max() < 1e-6


@pytest.mark.parametrize("name", ["pseudoinverse", "udwadia-kalaba", "least-squares-1",
                                  "least-squares-2", "udwadia-phohomsiri"])
def test_every_formulation_integrates_the_redundant_mechanism(name):
    s = tm.ParallelogramLinkage(True)
    t_eval = T_EVAL[:11]
    r = integrate_index1(s, name, "partitioning", rtol=1e-8, atol=1e-8, t_end=1.0, t_eval=t_eval)
    assert np.abs(r.q[:, 2] - _theta_reference(s, t_eval)).max() < 1e-6
    # the recorded λ are the minimum-norm ones: orthogonal to null(Φqᵀ)
    for q, lam in zip(r.q, r.lam):
        U, sv, _ = np.linalg.svd(s.constraint_jacobian(q))
        assert abs(U[:, -1] @ lam) < 1e-9 * np.linalg.norm(lam)


def _run10(system, stab):
    return integrate_index1(system, "udwadia-kalaba", stab, rtol=1e-6, atol=1e-6, t_end=10.0,
                            t_eval=np.linspace(0.0, 10.0, 101))


@pytest.mark.parametrize("redundant", [True, False])
def test_stabilised_constraint_norms_stay_bounded_over_10_s(redundant):
    """rtol = atol = 1e-6, α̂ = β̂ = 10: Baumgarte keeps ‖Φ‖ < 1e-6 and ‖Φ̇‖ < 2e-5 without
    growth (last 2 s no more than 3× the first 5 s); partitioning keeps ‖Φ‖ below its Newton
    tolerance (1e-9) and ‖Φ̇‖ < 1e-12."""
    s = tm.ParallelogramLinkage(redundant)
    bg = _run10(s, "baumgarte")
    assert bg.phi_norm.max() < 1e-6 and bg.phid_norm.max() < 2e-5
    late, early = bg.t >= 8.0, bg.t <= 5.0
    assert bg.phi_norm[late].max() < 3 * bg.phi_norm[early].max()
    assert bg.phid_norm[late].max() < 3 * bg.phid_norm[early].max()
    cp = _run10(s, "partitioning")
    assert cp.meta["newton_tol"] == pytest.approx(1e-9)
    assert cp.phi_norm.max() <= 1e-9 and cp.phid_norm.max() < 1e-12


def test_unstabilised_constraint_norms_grow():
    """Without stabilisation (rtol = atol = 1e-6, non-redundant version; see the next test) the
    drift grows: max ‖Φ‖ over the last 2 s ≥ 10× that over the first 2 s (measured 24×), max ‖Φ̇‖
    ≥ 2× (measured 3.8×); and they end ≥ 100× (‖Φ‖, measured 850×) and ≥ 5× (‖Φ̇‖, measured 12×)
    above the Baumgarte maxima of the same settings."""
    s = tm.ParallelogramLinkage(False)
    none, bg = _run10(s, "none"), _run10(s, "baumgarte")
    early, late = none.t <= 2.0, none.t >= 8.0
    assert none.phi_norm[late].max() > 10 * none.phi_norm[early].max()
    assert none.phid_norm[late].max() > 2 * none.phid_norm[early].max()
    assert none.phi_norm[late].max() > 100 * bg.phi_norm.max()
    assert none.phid_norm[late].max() > 5 * bg.phid_norm.max()


def test_unstabilised_redundant_mechanism_loses_its_redundancy():
    """Documented finding (docs/redundant.md): unstabilised, the drift breaks the parallelism
    that makes the fifth bar redundant; σmin/σmax of Φq grows from round-off by ≥ 1e6 in 6 s."""
    s = tm.ParallelogramLinkage(True)
    r = integrate_index1(s, "udwadia-kalaba", "none", rtol=1e-6, atol=1e-6, t_end=6.0,
                         t_eval=[0.0, 6.0])
    ratio = [(lambda sv: sv[-1] / sv[0])(np.linalg.svd(s.constraint_jacobian(q), compute_uv=False))
             for q in r.q]
    assert ratio[0] < 1e-15 and ratio[1] > 1e6 * ratio[0]


def test_baumgarte_constraint_error_follows_the_analytical_damped_law():
    """With Φq of full row rank, eq. 9 gives Φ̈ + 2α̂Φ̇ + β̂²Φ = 0; for α̂ = β̂ the error from a
    perturbed start is Φ(t) = (Φ0 + (Φ̇0 + β̂Φ0) t) e^(−β̂t), to 1e-9 of its size."""
    s = tm.ParallelogramLinkage(False)
    st = s.initial_state()
    rng = np.random.default_rng(0)
    q0, qd0 = st.q + 1e-3 * rng.normal(size=12), st.qd + 1e-2 * rng.normal(size=12)
    b, t_eval = 5.0, np.linspace(0.0, 1.0, 6)
    r = integrate_index1(s, "least-squares-2", "baumgarte", rtol=1e-10, atol=1e-10, t_end=1.0,
                         state=State(0.0, q0, qd0), alpha=b, beta=b, t_eval=t_eval)
    P0, Pd0 = s.constraints(q0), s.constraint_jacobian(q0) @ qd0
    for k, t in enumerate(t_eval):
        ana = (P0 + (Pd0 + b * P0) * t) * np.exp(-b * t)
        assert np.linalg.norm(s.constraints(r.q[k]) - ana) < 1e-8 * np.linalg.norm(P0)


@pytest.mark.parametrize("rtol, atol, expected", [(1e-6, 1e-6, 1e-9), (1e-5, 1e-8, 1e-11)])
def test_partitioning_newton_tolerance_is_1000_times_smaller(rtol, atol, expected):
    s = tm.ParallelogramLinkage(True)
    r = integrate_index1(s, "udwadia-kalaba", "partitioning", rtol=rtol, atol=atol, t_end=0.5,
                         t_eval=np.linspace(0, 0.5, 6))
    assert NEWTON_TOL_FACTOR == 1e-3
    assert r.meta["newton_tol"] == pytest.approx(expected, rel=1e-12)
    assert r.phi_norm.max() <= expected  # the tolerance is the one actually used
    assert 1 <= r.meta["newton_max_iterations"] <= 6  # the seed reports 3-4


def test_partitioning_choice_and_condition_monitor():
    s = tm.ParallelogramLinkage(True)
    r = integrate_index1(s, "least-squares-2", "partitioning", rtol=1e-6, atol=1e-6, t_end=2.0,
                         t_eval=np.linspace(0, 2, 21))
    dep, ind = r.meta["dependent"], r.meta["independent"]
    assert r.meta["rank"] == 11 and len(ind) == 1 and sorted(dep + ind) == list(range(12))
    cond = [np.linalg.cond(s.constraint_jacobian(q)[:, dep]) for q in r.q]
    np.testing.assert_allclose(r.outputs["cond_dep"], cond, rtol=1e-8)
    assert r.meta["cond_dep_max"] >= max(cond) and np.isfinite(r.meta["cond_dep_max"])


def test_user_partition_and_bad_partition():
    s = tm.ParallelogramLinkage(True)
    r = integrate_index1(s, "least-squares-2", "partitioning", rtol=1e-8, atol=1e-8, t_end=1.0,
                         t_eval=T_EVAL[:11], independent=[11])  # fifth bar angle
    assert r.meta["independent"] == [11]
    assert np.abs(r.q[:, 2] - _theta_reference(s, T_EVAL[:11])).max() < 1e-6
    with pytest.raises(SolverError, match=r"the dependent sub-Jacobian has rank 10 < rank\(Φq\) = 11"):
        integrate_index1(s, "least-squares-2", "partitioning", t_end=0.1, independent=[8])  # coupler θ


def test_counts_methods_and_simulate_front():
    s = tm.ParallelogramLinkage(False)
    r1 = integrate_index1(s, "direct", "baumgarte", method="RK45", rtol=1e-8, atol=1e-8, t_end=1.0,
                          t_eval=T_EVAL[:11])
    r2 = integrate_index1(s, "direct", "baumgarte", method="DOP853", rtol=1e-8, atol=1e-8,
                          t_end=1.0, t_eval=T_EVAL[:11])
    assert r1.meta["nfev"] == r1.meta["rhs_calls"] > 0 and r1.meta["wall_s"] > 0
    assert np.abs(r1.q - r2.q).max() < 1e-6
    r3 = simulate(s, "index1", t_end=1.0, h=0.1, formulation="direct", stabilization="baumgarte",
                  method="RK45", rtol=1e-8, atol=1e-8)
    np.testing.assert_allclose(r3.t, T_EVAL[:11], atol=1e-12)
    assert np.abs(r3.q - r1.q).max() < 1e-12
    with pytest.raises(SolverError, match="unknown stabilization 'baumgarten'"):
        integrate_index1(s, stabilization="baumgarten")
