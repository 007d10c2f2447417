"""The driver and the standard events on the built-in sedan (rtmbs.manoeuvres): speed control,
the ISO 3888-1 double lane change under pure pursuit, the ISO 7401 step steer."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.errors import SolverError
from rtmbs.manoeuvres import (Driver, SpeedControl, double_lane_change, drive, iso3888_lanes,
                              steady_state_circular, step_steer, table_input, understeer_gradient)
from rtmbs.manoeuvres.events import _car, lane_margins, sedan_system


def test_iso3888_lanes_follow_the_published_widths_and_offset():
    b = 1.8
    lanes = iso3888_lanes(b, start=10.0)
    assert [ln["section"] for ln in lanes] == [1, 3, 5, 6]
    assert [ln["width"] for ln in lanes] == pytest.approx([1.1 * b + 0.25, 1.2 * b + 0.25,
                                                           1.3 * b + 0.25, 1.3 * b + 0.25])
    assert [(ln["x0"], ln["x1"]) for ln in lanes] == [(10, 25), (55, 80), (105, 120), (120, 135)]
    right = [ln["y"] - ln["width"] / 2 for ln in lanes]
    assert right[1] - right[0] == pytest.approx(3.5)       # the offset, between right cone lines
    assert right[2] == pytest.approx(right[0]) and right[3] == pytest.approx(right[0])


def test_speed_control_holds_the_target_and_brakes_to_a_lower_one():
    """20 m/s held for 1.5 s (within 0.25 m/s through the start transient: the car settles on its
    tyres), then a target of 18 m/s: the brakes act, and the speed settles within 0.3 m/s of it
    by 2.5 s (the default gains kp 2 s⁻¹, ki 0.4 s⁻²). From 1 s on the speed follows, within
    0.03 m/s (the settling on the tyres: 0.02 m/s at 1 s without rolling resistance), a point
    mass under the same PI (its own SpeedControl) with v̇ = a m/m_eff − a_r: the demand a on the
    mass m with the wheels' spin inertia (m_eff = m + 4 J/r²) and the tyres' rolling resistance
    a_r = QSY1 g R0/r · m/m_eff (tests/vehicle/test_rolling_resistance.py); the PI's slow pole
    (−0.225 s⁻¹) leaves a lag of 0.04 m/s at 1-1.5 s and an undershoot of 0.14-0.16 m/s at
    3.5-4 s (measured: the car within 0.018 m/s of the point mass)."""
    system, model = sedan_system(20.0)
    mass, radius, _, _ = _car(model)
    target = lambda t: 20.0 if t < 1.5 else 18.0  # noqa: E731
    res = drive(system, Driver(system, SpeedControl(target, mass, radius)), 4.0, save_every=10)
    t, v, T = res.t, res.outputs["chassis.speed"], res.outputs["driver.torque"]
    assert np.all(np.abs(v[t < 1.5] - 20.0) < 0.25)
    assert T[(t > 1.5) & (t < 2.0)].min() < -0.5 * mass * radius  # braking, > 0.5 m/s² demanded
    assert v[(t > 1.5) & (t < 2.5)].min() < 18.5                 # the brakes slowed the car
    assert np.all(np.abs(v[t >= 2.5] - 18.0) < 0.3)
    m_eff = mass + 4 * 1.2 / radius ** 2                          # wheels.yaml spin_inertia
    a_r = 0.01 * 9.81 * 0.344 / radius * mass / m_eff             # QSY1, UNLOADED_RADIUS
    pi, h, vp, tp = SpeedControl(target, mass, radius), 1e-3, [20.0], [0.0]
    for _ in range(4000):
        a = pi.torque(tp[-1], vp[-1], h) / (mass * radius)
        vp.append(vp[-1] + h * (a * mass / m_eff - a_r))
        tp.append(tp[-1] + h)
    later = t >= 1.0
    dev = np.abs(v[later] - np.interp(t[later], tp, vp)).max()
    assert dev < 0.03, dev


@pytest.mark.parametrize("kmh", [60.0, 80.0])
def test_double_lane_change_keeps_the_car_inside_the_cones(kmh):
    """Closed loop at 60 and 80 km/h: in every gated section the car's sides (chassis point ±
    width/2) stay inside the cone lines, the chassis point within 0.4 m of the path, the speed
    within 1 km/h; the handwheel turns both ways and the car ends back in the first lane."""
    res = double_lane_change(kmh)
    margins = lane_margins(res)
    assert min(margins.values()) > 0.0, margins
    o = res.outputs
    assert np.abs(o["driver.lateral_error"]).max() < 0.4
    assert np.abs(3.6 * o["chassis.speed"] - kmh).max() < 1.0
    assert o["driver.handwheel"].max() > 0.2 and o["driver.handwheel"].min() < -0.2  # rad
    lane3 = res.meta["lanes"][1]
    x, y = o["chassis.x"], o["chassis.y"]
    inside3 = (x > lane3["x0"]) & (x < lane3["x1"])
    assert np.all(np.abs(y[inside3] - lane3["y"]) < lane3["width"] / 2)
    assert res.phi_norm.max() < 1e-8


@pytest.fixture(scope="module")
def step_steers():
    return {hw: step_steer(80.0, hw, t_step=0.5, t_end=3.0) for hw in (20.0, -20.0)}


def _steady_K(res, hw):
    """Understeer gradient from the steady part of a step steer (bicycle model, δ = hw/18.1, the
    events' default ratio; the K&C's 18.0 would lower K by 0.02 deg/g)."""
    t, yr, v = res.t, res.outputs["chassis.yaw_rate"], res.outputs["chassis.speed"]
    delta, vs, r = math.radians(hw) / 18.1, v[t >= 2.5].mean(), yr[t >= 2.5].mean()
    return (vs * delta / r - 2.776) / vs ** 2              # rad per m/s²


def test_step_steer_reaches_a_steady_yaw_rate_whose_sign_follows_the_handwheel(step_steers):
    """ISO 7401 at 80 km/h, ±20° handwheel in 0.15 s: little yaw before the step, a peak then a
    steady yaw rate (spread < 1 % over the last 0.5 s) of the handwheel's sign, close to the
    bicycle model's v δ/(L + K v²) with δ = handwheel / steering ratio (18.1) and a moderate
    understeer gradient K, 0.5-2 deg/g: the tyres at the 60/40 loads (single-track 0.45 deg/g),
    the load transfer, the steering's compliance and the roll steer (1.3 deg/g on the constant
    radius, test_understeer.py; measured here 0.95-1.02 deg/g). Left and right within 5 % (ply
    steer)."""
    r = {}
    for hw, res in step_steers.items():
        t, yr = res.t, res.outputs["chassis.yaw_rate"]
        # straight but for ply steer: 3.0e-3 rad/s (1.3e-3 with rigid steering: the tyres'
        # residual aligning torque turns the wheels through the steering's compliance)
        assert np.abs(yr[t < 0.5]).max() < 0.004
        ss = yr[t >= 2.5]
        assert np.ptp(ss) < 0.01 * abs(ss.mean())
        assert np.sign(ss.mean()) == np.sign(hw)
        assert abs(yr).max() > abs(ss.mean())               # overshoot before settling
        assert math.radians(0.5) / 9.81 < _steady_K(res, hw) < math.radians(2.0) / 9.81
        r[hw] = ss.mean()
    assert r[20.0] == pytest.approx(-r[-20.0], rel=0.05)


def test_driver_reads_the_chassis_yaw_rate_and_speed_as_the_model_outputs_them(step_steers):
    """The driver's yaw rate (from the Euler-parameter rates) and forward speed (velocity along
    the heading) against the model's own chassis outputs at the same recorded states."""
    o = step_steers[20.0].outputs
    assert np.allclose(o["chassis.yaw_rate"], o["chassis.wz"], rtol=0, atol=1e-9)
    yaw = o["chassis.yaw"]
    v = o["chassis.vx"] * np.cos(yaw) + o["chassis.vy"] * np.sin(yaw)
    assert np.allclose(o["chassis.speed"], v, rtol=1e-6, atol=1e-6)     # yaw from Euler parameters
    assert np.abs(o["chassis.speed"] - 80 / 3.6).max() < 0.5


def _A(p):
    e0, e = p[0], np.asarray(p[1:])
    et = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    return (2 * e0 ** 2 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * et)


def test_open_loop_handwheel_reaches_the_pinion_and_the_rack(step_steers):
    """The handwheel channel (value and rate set before each step) drives the handwheel: at every
    recorded state the handwheel's angle about the column (−x of the chassis) is the input; the
    pinion follows through the column's torsion bar (a twist of a few tenths of a degree under
    the aligning torques) and the rack has moved in its housing by ratio × pinion angle
    (−0.0075 m/rad, the coupler)."""
    res = step_steers[20.0]
    names = res.coordinate_names
    ic, ih, ip, ir, ik = (names.index(f"{b}.x") for b in
                          ("chassis", "handwheel", "pinion", "rack", "rack_housing"))

    def about_column(q, i):
        R = _A(q[ic + 3:ic + 7]).T @ _A(q[i + 3:i + 7])
        return -math.atan2(R[2, 1], R[1, 1])             # rotation about −x

    wheel, pinion, travel = [], [], []
    for q in res.q:
        Ac = _A(q[ic + 3:ic + 7])
        wheel.append(about_column(q, ih))
        pinion.append(about_column(q, ip))
        travel.append((Ac.T @ (q[ir:ir + 3] - q[ik:ik + 3]))[1])
    hw = res.outputs["driver.handwheel_angle"]
    assert hw.max() == pytest.approx(math.radians(20.0))
    assert np.allclose(wheel, hw, atol=1e-8)
    twist = np.array(wheel) - np.array(pinion)
    assert 0.0 < np.abs(twist).max() < math.radians(2.0)
    assert np.allclose(np.array(travel) - travel[0], -0.0075 * np.array(pinion), atol=1e-9)


def test_constant_radius_understeer_gradient_matches_the_step_steer(step_steers):
    """ISO 4138 on a 40 m circle, 30 → 43 km/h at 0.5 m/s²: the car stays within 0.3 m of the
    circle; δ − L r/v is linear in ay over 1-3.5 m/s² (rms residual < 5 % of its range; measured
    1.1e-4 rad, 2.6 % of 4.2 mrad) and its slope, the understeer gradient, is within 7e-4 rad/(m/s²) (0.4 deg/g) of the
    one from the step steer's steady state. The two are different measurements: 30-43 km/h
    with the speed rising at 0.5 m/s² (the front axle driving) against 80 km/h at a held speed,
    the gradient over 1-3.5 m/s² against the secant at one a_y. Measured 2.15e-3 on the circle
    against 1.65e-3 from the step; the circle reads more understeer than the step steer, as it
    did on the near-neutral rear-drive sedan before (7.8e-4 against 4.5e-4)."""
    res = steady_state_circular(40.0, 30.0, 43.0, accel=0.5, settle=1.5)
    e = res.outputs["driver.lateral_error"][res.t > 1.5]
    assert np.abs(e).max() < 0.3
    ug = understeer_gradient(res, (1.0, 3.5))
    K_step = 0.5 * (_steady_K(step_steers[20.0], 20.0) + _steady_K(step_steers[-20.0], -20.0))
    assert ug["K_rad_per_m_s2"] == pytest.approx(K_step, abs=7e-4)
    o = res.outputs
    v, r = o["chassis.speed"], o["chassis.yaw_rate"]
    m = (res.t > 1.5) & (v * r >= 1.0) & (v * r <= 3.5)
    # the car's own steering ratio (the K&C rig's 18.02, in the run's meta), as the fit used
    y = o["driver.handwheel"][m] / res.meta["steering_ratio"] - 2.776 * r[m] / v[m]
    resid = y - (ug["K_rad_per_m_s2"] * v[m] * r[m] + ug["offset_rad"])
    assert np.sqrt(np.mean(resid ** 2)) < 0.05 * np.ptp(y), (np.sqrt(np.mean(resid ** 2)), np.ptp(y))


def test_bad_inputs_are_named():
    system, model = sedan_system(10.0)
    with pytest.raises(SolverError) as e:
        Driver(system, inputs={"handwheel": lambda t: 0.0})
    assert str(e.value).startswith("driver: unknown input channel 'handwheel'")
    f = table_input([0.0, 1.0, 3.0], [0.0, 0.5, -0.5], "handwheel table")
    assert [f(-1.0), f(0.5), f(2.0), f(9.0)] == pytest.approx([0.0, 0.25, 0.0, -0.5])
    with pytest.raises(SolverError) as e:
        table_input([0.0, 1.0, 1.0], [0.0, 1.0, 2.0], "handwheel table")
    assert str(e.value) == "handwheel table: times must be strictly increasing"
    with pytest.raises(SolverError) as e:
        table_input([0.0, 1.0], [0.0, float("nan")], "handwheel table")
    assert str(e.value) == "handwheel table: times and values must be finite"
    with pytest.raises(SolverError) as e:
        step_steer(-5.0)
    assert str(e.value) == "speed_kmh: expected 0 < speed <= 250 km/h, got -5.0"
    with pytest.raises(SolverError) as e:
        step_steer(80.0, t_end=0.5)
    assert "t_end > t_step + rise" in str(e.value)
