"""2-point follower enveloping (§4.3.1), slips (eqs. 4.15-4.16), transient model (eqs. 4.22-4.24)."""
import math

import numpy as np
import pytest

from rtmbs.vehicle.tyre import data_path, evaluate, load_tir
from rtmbs.vehicle.tyre.contact import (slip_quantities, transient_rates, transient_slips,
                                        transient_step, two_point_follower)

R0 = 0.3943
LF = 0.08


def test_flat_road():
    for h_road, z in ((0.0, 0.37), (0.25, 0.61), (-1.0, -0.7)):
        beta, h_eff, rho = two_point_follower(h_road, h_road, z, R0, LF)
        assert beta == 0.0
        assert h_eff == h_road
        assert rho == pytest.approx(R0 - (z - h_road), abs=1e-15)  # rho = r0 - h


def test_step_under_the_front_follower_only():
    H = 0.02
    beta, h_eff, rho = two_point_follower(H, 0.0, 0.37, R0, LF)
    assert beta == pytest.approx(math.atan(H / (2 * LF)), rel=1e-15)
    assert h_eff == pytest.approx(H / 2)
    # distance from the centre (0, 0.37) to the line through (-LF, 0) and (LF, H)
    p1, p2, c = np.array([-LF, 0.0]), np.array([LF, H]), np.array([0.0, 0.37])
    e, w = p2 - p1, c - p1
    d = abs(e[0] * w[1] - e[1] * w[0]) / np.linalg.norm(e)
    assert rho == pytest.approx(R0 - d, abs=1e-15)
    # once both followers are on the step the plane is flat again, lifted by H
    beta, h_eff, rho = two_point_follower(H, H, 0.37, R0, LF)
    assert (beta, h_eff) == (0.0, H) and rho == pytest.approx(R0 - (0.37 - H))


@pytest.mark.parametrize("theta", [0.03, -0.1, 0.25])
def test_ramp_angle_is_recovered_when_both_followers_are_on_it(theta):
    x_centre, z = 3.0, 2.0
    road = lambda x: 0.1 + math.tan(theta) * (x - 1.0)  # noqa: E731
    beta, h_eff, rho = two_point_follower(road(x_centre + LF), road(x_centre - LF), z, R0, LF)
    assert beta == pytest.approx(theta, rel=1e-12)
    assert h_eff == pytest.approx(road(x_centre), rel=1e-14)
    # loaded radius = perpendicular distance from the centre to the ramp
    assert rho == pytest.approx(R0 - (z - road(x_centre)) * math.cos(theta), rel=1e-12)


def test_slip_definitions_and_low_speed_bound():
    # eq. 4.15: driving wheel (omega r > Vx) has positive slip; locked wheel has kappa = -1
    k, a = slip_quantities(20.0, 0.0, 22.0 / 0.3, 0.3, 0.1)
    assert k == pytest.approx(0.1) and a == 0.0
    assert slip_quantities(20.0, 1.0, 0.0, 0.3, 0.1)[0] == -1.0
    assert slip_quantities(-20.0, 0.0, 0.0, 0.3, 0.1)[0] == -1.0  # locked, rolling backwards
    # eq. 4.16 with |Vx|: tan(alpha) = -Vy/|Vx|, same alpha forwards and backwards
    assert slip_quantities(10.0, 1.0, 0.0, 0.3, 0.1)[1] == pytest.approx(math.atan(-0.1))
    assert slip_quantities(-10.0, 1.0, 0.0, 0.3, 0.1)[1] == pytest.approx(math.atan(-0.1))
    # below v_min the denominators are v_min: finite at standstill
    k0, a0 = slip_quantities(0.0, 0.05, 1.0, 0.3, 0.1)
    assert k0 == pytest.approx(0.3 / 0.1) and a0 == pytest.approx(math.atan(-0.5))


def test_wheel_sliding_left_is_pushed_right_through_the_documented_sign():
    """rtmbs axes: y left. alpha of eq. 4.16 goes to the Magic Formula as -alpha (ISO-W data)."""
    props = load_tir(data_path("chrono_MagicFormula61_Parameters.tir"))
    for vy in (0.5, -0.5):
        k, a = slip_quantities(15.0, vy, 15.0 / 0.38, 0.38, 0.1)
        fy = float(evaluate(props, props["FNOMIN"], k, -a)["Fy"])
        assert np.sign(fy) == -np.sign(vy) and abs(fy) > 1000.0


@pytest.mark.parametrize("vx", [5.0, 25.0, -12.0])
def test_step_in_slip_is_a_first_order_lag_with_time_constant_sigma_over_speed(vx):
    sk, sa = 0.25, 0.55
    kappa, vy = 0.05, 0.6
    vsx = -kappa * vx  # Vsx = Vx - omega r = -kappa Vx (eq. 4.15)
    # integrate du/dt, dv/dt (eq. 4.23) from rest with RK4 and compare with the exponential
    h, n = 1e-4, 4000
    u = v = 0.0
    t = np.arange(1, n + 1) * h
    us, vs = np.empty(n), np.empty(n)
    for i in range(n):
        k1 = transient_rates(u, v, vsx, vy, vx, sk, sa)
        k2 = transient_rates(u + h / 2 * k1[0], v + h / 2 * k1[1], vsx, vy, vx, sk, sa)
        k3 = transient_rates(u + h / 2 * k2[0], v + h / 2 * k2[1], vsx, vy, vx, sk, sa)
        k4 = transient_rates(u + h * k3[0], v + h * k3[1], vsx, vy, vx, sk, sa)
        u += h / 6 * (k1[0] + 2 * k2[0] + 2 * k3[0] + k4[0])
        v += h / 6 * (k1[1] + 2 * k2[1] + 2 * k3[1] + k4[1])
        us[i], vs[i] = u, v
    tau_k, tau_a = sk / abs(vx), sa / abs(vx)
    u_exact = -vsx * tau_k * (1 - np.exp(-t / tau_k))
    v_exact = -vy * tau_a * (1 - np.exp(-t / tau_a))
    np.testing.assert_allclose(us, u_exact, rtol=1e-9, atol=1e-14)
    np.testing.assert_allclose(vs, v_exact, rtol=1e-9, atol=1e-14)
    # eq. 4.24: after one time constant kappa' is at 63.2 % of the step
    kap_tau = transient_slips(-vsx * tau_k * (1 - math.exp(-1)), 0.0, sk, sa, vx)[0]
    assert kap_tau == pytest.approx(kappa * (1 - math.exp(-1)), rel=1e-12)
    # and the final values of kappa', alpha' are the steady slips of eqs. 4.15-4.16
    k_inf, a_inf = transient_slips(-vsx * tau_k, -vy * tau_a, sk, sa, vx)
    k_ss, a_ss = slip_quantities(vx, vy, vx * (1 + kappa) / 0.3, 0.3, 0.1)
    assert k_ss == pytest.approx(kappa, rel=1e-12)
    assert k_inf == pytest.approx(k_ss, rel=1e-12)
    assert math.atan(a_inf) == pytest.approx(a_ss, rel=1e-12)  # alpha' ~ tan(alpha)


def test_exact_step_matches_the_exponential_for_any_step_size():
    sk, sa, vx, vsx, vsy = 0.3, 0.5, 10.0, -0.4, 0.2
    for h in (1e-3, 0.05, 10.0):
        u, v = transient_step(0.01, -0.02, vsx, vsy, vx, sk, sa, h)
        lam_k, lam_a = vx / sk, vx / sa
        assert u == pytest.approx(0.01 * math.exp(-lam_k * h) - vsx / lam_k * (1 - math.exp(-lam_k * h)),
                                  rel=1e-12)
        assert v == pytest.approx(-0.02 * math.exp(-lam_a * h) - vsy / lam_a * (1 - math.exp(-lam_a * h)),
                                  rel=1e-12)
    # at standstill the deflection integrates the slip velocity (no decay)
    u, v = transient_step(0.01, 0.0, vsx, vsy, 0.0, sk, sa, 0.1)
    assert u == pytest.approx(0.01 - vsx * 0.1) and v == pytest.approx(-vsy * 0.1)
