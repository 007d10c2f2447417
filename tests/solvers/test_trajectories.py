"""Algorithm 1 against Algorithm 2 on a closed loop, energy of a conservative pendulum, and the
independent-coordinate rebase through a configuration the initial B cannot describe."""
import numpy as np
import pytest

from rtmbs.solvers.base import get_solver
from rtmbs.solvers.simulate import simulate
from _models.linkages import G, PointPendulum, pendulum, slider_crank
from _models.kkt import reference


def _slope(hs, errs):
    return np.polyfit(np.log(hs), np.log(errs), 1)[0]


@pytest.mark.parametrize("B", ["qr", "partition"])
def test_algorithms_1_and_2_converge_to_the_same_slider_crank_trajectory(B):
    """Both are first-order discretisations of the same DAE, so their difference over the run
    falls like h (slope 1 ± 0.2); at h = 0.25 ms it is a few % of each coordinate's travel."""
    sysm = slider_crank()
    t_end = 0.5
    hs = [1e-3, 5e-4, 2.5e-4]
    diffs = []
    for h in hs:
        every = int(round(0.05 / h))
        r1 = simulate(sysm, "li-euler", t_end=t_end, h=h, save_every=every, stabilize="projection")
        r2 = simulate(sysm, "li-euler-indep", t_end=t_end, h=h, save_every=every,
                      stabilize="projection", B=B)
        np.testing.assert_allclose(r1.t, r2.t)
        diffs.append(np.abs(r1.q - r2.q).max())
        # each coordinate's difference against that coordinate's range of motion
        rel = np.abs(r1.q - r2.q).max(0)[:7] / np.ptp(r1.q, 0)[:7]  # (slider y, θ are locked)
    # the real check: the difference vanishes at order 1, so both tend to one trajectory
    assert 0.8 < _slope(hs, diffs) < 1.2, diffs
    assert rel.max() < 0.05, rel


def test_energy_of_conservative_pendulum_drifts_like_h():
    """First-order method: energy error ΔE/E_swing ≲ h ω² T (explicit Euler's per-step growth
    factor 1 + h²ω² on the linearised pendulum, ω² = m g l / (J + m l²) = 14.7 s⁻²); the bound
    is twice that, and halving h halves the drift (order 1 ± 0.25)."""
    sysm = pendulum(L=1.0, theta0=1.0)
    l, J = 0.5, 1.0 / 12
    w2 = G * l / (J + l ** 2)
    t_end = 1.0
    E_swing = G * l * (1 - np.cos(1.0))  # energy above the rest position
    drifts = []
    for h in (2e-4, 1e-4):
        res = simulate(sysm, "li-euler", t_end=t_end, h=h, save_every=100, stabilize="projection")
        E = np.array([sysm.energy(q, qd) for q, qd in zip(res.q, res.qd)])
        drift = np.abs(E - E[0]).max() / E_swing
        assert drift < 2 * h * w2 * t_end, (h, drift)
        drifts.append(drift)
    assert drifts[0] / drifts[1] == pytest.approx(2.0, rel=0.25)


def _point_pendulum_run(h, rebase, t_end=1.2, **opts):
    sysm = PointPendulum()
    slv = get_solver("li-euler-indep")(sysm, stabilize="projection", rebase=rebase, **opts)
    st = sysm.initial_state()
    slv.reset(st)
    ratios, rebase_x = [], []
    for i in range(int(round(t_end / h))):
        before = slv.nrebase
        slv.step(st, h)
        ratios.append(slv.ratio / slv.ratio_ref)
        if slv.nrebase > before:
            rebase_x.append(st.q[0])
    return sysm, slv, st, np.array(ratios), rebase_x


@pytest.mark.parametrize("B", ["qr", "partition"])
def test_rebase_through_the_singular_configuration_of_the_initial_b(B):
    """Point pendulum from the horizontal: at q0 the independent velocity is ẏ (B = [0 1]), which
    cannot describe the motion at the bottom (x = 0): [Φq; B] = [[2x, 2y], [0, 1]] is singular
    there. Every step moves x by at most v h (v ≤ sqrt(2 g L) = 4.43 m/s), so some step comes
    within v h / 2 of x = 0 and the pivot ratio (2|x| for QR) falls below v h / ratio_ref."""
    h = 1e-3
    vmax = np.sqrt(2 * G * 1.0)
    _, slv, _, ratios, _ = _point_pendulum_run(h, rebase=False, B=B)
    assert slv.nrebase == 0
    assert ratios.min() < 1.05 * vmax * h / 0.5 * (1 if B == "qr" else 0.5)
    # with the monitor: B is chosen again before the ratio falls under rebase_tol
    sysm, slv, st, ratios, xs = _point_pendulum_run(h, rebase=True, B=B)
    assert slv.nrebase >= 1
    assert ratios.min() >= slv.rebase_tol
    assert abs(xs[0]) < 0.3  # the first rebase happens on the way into the bottom
    if B == "qr":
        # the new independent direction is the tangent at that configuration
        tangent = np.array([-st.q[1], st.q[0]]) / np.linalg.norm(st.q)
        assert abs(slv.B[0] @ tangent) > 0.99 or slv.nrebase > 1
    # and the run stays first-order accurate through the singular passage
    t_end = 1.2
    q_ref, _ = reference(sysm, sysm.initial_state(), [t_end])
    hs = [1e-3, 5e-4, 2.5e-4]
    errs = [np.abs(_point_pendulum_run(hh, True, t_end, B=B)[2].q - q_ref[-1]).max() for hh in hs]
    assert 0.8 < _slope(hs, errs) < 1.2, errs
    # velocities stay consistent with the constraints at the new positions
    assert abs(2 * st.q @ st.qd) < 1e-12


def test_rebase_of_a_user_partition_that_becomes_singular_at_dead_centre():
    """Slider-crank with the slider x as the independent coordinate: ẋ_slider = 0 at the dead
    centres while the crank turns, so Φu = ∂Φ/∂(the other 8) becomes singular there."""
    sysm = slider_crank()
    slv = get_solver("li-euler-indep")(sysm, B="partition", independent=[6],
                                       stabilize="projection")
    st = sysm.initial_state()
    slv.reset(st)
    assert list(slv.cols[-1:]) == [6]
    h = 1e-3
    for _ in range(300):  # the crank passes the first dead centre (θ = π/2) near t = 0.16 s
        assert slv.step(st, h)
    assert slv.nrebase >= 1
    assert 6 not in slv.cols[sysm.m:]
    assert np.linalg.norm(sysm.constraints(st.q)) < 1e-6
