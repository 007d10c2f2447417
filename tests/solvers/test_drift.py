"""Drift off the constraint manifold over 10⁴ steps (pendulum: bar L = 1 m pinned at one end,
l = 0.5 m to the centre, started at 1 rad; h = 1 ms). Bounds from the step's Taylor expansion:
with the index-2 velocity constraint met at q_n, one step adds δ_n = Φ(q_n + h q̇_n) − Φ(q_n)
= ½ h² l θ̇_n² u(θ_n) (u = (sin θ, −cos θ)), so without stabilisation Φ is the sum of the δ_n."""
import warnings

import numpy as np
import pytest

from rtmbs.errors import ConstraintDriftWarning
from rtmbs.solvers.simulate import DRIFT_WARNING, simulate
from _models.linkages import pendulum

H = 1e-3
N = 10_000
L = 1.0
ELL = L / 2


def _run(solver="li-euler", **opts):
    """The seeds' explicit position update Δq = h q̇, whose drift the bounds below describe."""
    if solver.startswith("li-euler"):
        opts.setdefault("position_update", "explicit")
    sysm = pendulum(L=L, theta0=1.0)
    res = simulate(sysm, solver, t_end=N * H, h=H, **opts)
    assert len(res.t) == N + 1
    return sysm, res


def _delta_max(res):
    return 0.5 * H ** 2 * ELL * np.max(res.qd[:, 2] ** 2)


def test_without_stabilisation_phi_is_the_sum_of_the_step_defects():
    sysm, res = _run(stabilize="none")
    th, thd = res.q[:-1, 2], res.qd[:-1, 2]
    pred = 0.5 * H ** 2 * ELL * np.stack([np.sin(th) * thd ** 2, -np.cos(th) * thd ** 2], 1)
    pred = np.cumsum(pred, 0)
    phi_end = sysm.constraints(res.q[-1])
    # leading term of the expansion: agreement to O(h) relative
    np.testing.assert_allclose(phi_end, pred[-1], rtol=0.05, atol=0.0)
    # it grows (linearly: half the run gives about half the drift)
    half = res.phi_norm[N // 2]
    assert res.phi_norm[-1] / half == pytest.approx(np.linalg.norm(pred[-1]) /
                                                    np.linalg.norm(pred[N // 2 - 1]), rel=0.05)
    assert res.phi_norm[-1] > 1e3 * _delta_max(res)


def test_projection_keeps_phi_at_the_newton_residual():
    """Algorithms 1 and 2 project with Φq at the predicted point (a Newton step): the quadratic
    remainder ½ ‖δ‖² / l of the circle is left, as with GGL. explicit-euler reuses the factors
    at q_n (a simplified Newton step): ‖Φ‖ ≲ ‖Φq(q + hq̇) − Φq(q)‖ ‖δ‖ ≈ (l h θ̇) δ. Factor 10."""
    for solver in ("li-euler", "li-euler-indep"):
        _, res = _run(solver, stabilize="projection")
        bound = 10 * 0.5 * _delta_max(res) ** 2 / ELL + 1e-14
        assert res.phi_norm.max() < bound, (solver, res.phi_norm.max(), bound)
    _, res = _run("explicit-euler", stabilize="projection")
    thd = np.abs(res.qd[:, 2]).max()
    bound = 10 * (ELL * H * thd) * _delta_max(res) + 1e-14
    assert res.phi_norm.max() < bound, (res.phi_norm.max(), bound)
    assert res.phi_norm.max() < 1e-7


def test_implicit_position_update_meets_the_constraints_without_projection():
    """q ← q + h(q̇ + Δq̇) with the bottom row Φq(q_p)Δq̇ = −Φ(q_p)/h: the new positions meet
    Φ = 0 up to the linearisation remainder ½ h² ‖Δq̇‖² / l per step, removed again by the next
    step (no accumulation)."""
    sysm = pendulum(L=L, theta0=1.0)
    res = simulate(sysm, "li-euler", t_end=N * H, h=H, stabilize="none",
                   position_update="implicit")
    dqd = np.abs(np.diff(res.qd[:, :2], axis=0)).max()
    assert res.phi_norm.max() < 10 * 0.5 * (H * dqd) ** 2 / ELL + 1e-14


def test_ggl_keeps_phi_at_the_newton_residual():
    """Newton's first step from the predictor (GGL, Truck benchmark eq. 11) leaves the quadratic
    remainder ½ ‖δ‖² / l of the circle; bound with a factor 10."""
    for k in (1, 2):
        _, res = _run(stabilize="ggl", ggl_iterations=k)
        bound = 10 * 0.5 * _delta_max(res) ** 2 / ELL + 1e-14
        assert res.phi_norm.max() < bound, (k, res.phi_norm.max(), bound)
        # the velocity constraint holds at the corrected positions (to round-off)
        assert res.phid_norm.max() < 1e-12


def test_baumgarte_index2_bounded_by_one_step_defect():
    """With γ_B = 1/h the previous violation is cancelled each step (eq. 5), leaving one defect:
    ‖Φ‖ ≤ δ_max (+10 % for the O(h³) terms)."""
    _, res = _run(stabilize="baumgarte")
    assert res.phi_norm.max() < 1.1 * _delta_max(res)
    # a smaller γ_B: Φ_{n+1} = (1 − hγ_B) Φ_n + δ → ‖Φ‖ ≤ δ_max / (h γ_B)
    _, res = _run(stabilize="baumgarte", baumgarte_gamma=100.0)
    assert res.phi_norm.max() < 1.1 * _delta_max(res) / (H * 100.0)


def test_explicit_euler_baumgarte_bounded_and_unstabilised_grows():
    _, free = _run("explicit-euler", stabilize="none")
    _, baum = _run("explicit-euler", stabilize="baumgarte", alpha=20.0, beta=20.0)
    assert free.phi_norm[-1] > 1e-3
    # Baumgarte damps Φ with rates of order α, β: bounded, far below the free drift
    assert baum.phi_norm.max() < 0.05 * free.phi_norm[-1]
    assert baum.phi_norm[N // 2:].max() <= 1.5 * baum.phi_norm[: N // 2].max()


def test_unstabilised_drift_warns_once_with_where_and_how_much():
    sysm = pendulum(L=L, theta0=1.0)
    with pytest.warns(ConstraintDriftWarning) as rec:
        res = simulate(sysm, "li-euler", t_end=2.0, h=H, stabilize="none",
                       position_update="explicit")
    drift = [w for w in rec if issubclass(w.category, ConstraintDriftWarning)]
    assert len(drift) == 1
    k = int(np.argmax(res.phi_norm))
    first = res.t[np.flatnonzero(res.phi_norm > DRIFT_WARNING)[0]]
    assert str(drift[0].message) == (
        f"‖Φ‖ reached {res.phi_norm[k]:.2e} at t = {res.t[k]:.2f} s without stabilisation "
        f"(above {DRIFT_WARNING:g} from t = {first:.2f} s); use stabilize='projection' "
        "(rtmbs: --stabilize projection)")
    assert res.meta["warnings"] == [str(drift[0].message)]
    assert 0.1 < first < 2.0 and res.phi_norm[k] > DRIFT_WARNING


@pytest.mark.parametrize("opts", [{"stabilize": "projection"}, {"stabilize": "none", "t_end": 0.05}],
                         ids=str)
def test_no_drift_warning_when_projected_or_below_the_bound(opts):
    opts = dict({"t_end": 2.0}, **opts)
    with warnings.catch_warnings():
        warnings.simplefilter("error", ConstraintDriftWarning)
        res = simulate(pendulum(L=L, theta0=1.0), "li-euler", h=H, **opts)
    assert "warnings" not in res.meta
    if opts["stabilize"] == "none":
        assert 0 < res.phi_norm.max() < DRIFT_WARNING
