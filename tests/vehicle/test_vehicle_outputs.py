"""Vehicle outputs of every car (vehicle/build/outputs.py, engine/sensors.c) against values
set by hand: attitude from a rotation built as Rz Ry Rx, centre-of-mass velocity in heading
axes, sideslip, rates, steer angle and wheel spin; the acceleration from Newton's law in the air
(only the weight: a = g) and at rest on the ground after statics (a = 0)."""
import math

import numpy as np
import pytest

from rtmbs.model.rotation import quaternion_from_matrix
from rtmbs.system import compile_model
from rtmbs.units import unit_of
from rtmbs.io.meta import system_units
from rtmbs.vehicle.build import sedan_model


def _rx(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[1, 0, 0], [0, c, -s], [0, s, c]])


def _ry(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, 0, s], [0, 1, 0], [-s, 0, c]])


def _rz(a):
    c, s = math.cos(a), math.sin(a)
    return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1]])


@pytest.fixture(scope="module")
def sedan():
    return compile_model(sedan_model())


def _outputs(system, q, qd):
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, q, qd, out)
    return dict(zip(system.output_names, out))


def _pose(system, q, body, A):
    i = list(system.coordinate_names).index(f"{body}.e0")
    q[i:i + 4] = quaternion_from_matrix(A)


def test_attitude_velocity_sideslip_rates_against_a_set_state(sedan):
    roll, pitch, yaw = 0.05, -0.03, 2.5  # yaw beyond pi/2: heading axes differ from global
    st = sedan.initial_state()
    q, qd = st.q.copy(), np.zeros(sedan.n)
    _pose(sedan, q, "chassis", _rz(yaw) @ _ry(pitch) @ _rx(roll))
    v = np.array([-18.0, 12.0, 0.4])  # every body translates at v: the centre of mass too
    w = np.array([0.1, -0.2, 0.35])   # chassis angular velocity (global)
    names = list(sedan.coordinate_names)
    for b in sedan.body_names:
        i = names.index(f"{b}.x")
        qd[i:i + 3] = v
    i = names.index("chassis.e0")
    p = q[i:i + 4]
    # pdot = 1/2 G(p)^T omega' ... with global omega: pdot = 1/2 E(p)^T omega (E: omega = 2 E pdot)
    e0, e = p[0], p[1:]
    E = np.column_stack([-e, e0 * np.eye(3) + np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])])
    qd[i:i + 4] = 0.5 * E.T @ w
    o = _outputs(sedan, q, qd)
    assert o["vehicle.roll"] == pytest.approx(roll, abs=1e-12)
    assert o["vehicle.pitch"] == pytest.approx(pitch, abs=1e-12)
    assert o["vehicle.yaw"] == pytest.approx(yaw, abs=1e-12)
    c, s = math.cos(yaw), math.sin(yaw)
    vx, vy = c * v[0] + s * v[1], -s * v[0] + c * v[1]
    assert o["vehicle.vx"] == pytest.approx(vx, abs=1e-9)
    assert o["vehicle.vy"] == pytest.approx(vy, abs=1e-9)
    assert o["vehicle.vz"] == pytest.approx(0.4, abs=1e-9)
    assert o["vehicle.sideslip"] == pytest.approx(math.atan2(vy, vx), abs=1e-12)
    assert o["vehicle.yaw_rate"] == pytest.approx(0.35, abs=1e-12)
    assert o["vehicle.roll_rate"] == pytest.approx(c * w[0] + s * w[1], abs=1e-12)
    assert o["vehicle.pitch_rate"] == pytest.approx(-s * w[0] + c * w[1], abs=1e-12)
    # chassis.vx stays the world-frame velocity of the chassis' centre of mass
    assert o["chassis.vx"] == pytest.approx(-18.0)


def test_steer_angle_and_wheel_spin(sedan):
    st = sedan.initial_state()
    q, qd = st.q.copy(), np.zeros(sedan.n)
    names = list(sedan.coordinate_names)
    _pose(sedan, q, "chassis", _rz(0.7))
    _pose(sedan, q, "fl_wheel", _rz(0.7 + 0.1))  # wheel turned 0.1 rad left of the chassis
    i = names.index("fr_wheel.e0")
    omega = 40.0  # about +y (rolling forward); the wheel has identity orientation
    qd[i:i + 4] = 0.5 * np.array([[0, 0, 0], [1, 0, 0], [0, 1, 0], [0, 0, 1]]) @ np.array([0.0, omega, 0.0])
    o = _outputs(sedan, q, qd)
    design = _outputs(sedan, st.q, np.zeros(sedan.n))
    toe_fl = design["fl_wheel.steer"]
    assert toe_fl == pytest.approx(-math.radians(0.1), abs=1e-9)  # the sedan's 0.1 deg toe-in
    assert o["fl_wheel.steer"] == pytest.approx(0.1 + toe_fl, abs=1e-9)
    # omega about y: the spin is omega times the y component of the spin axis (0.5 deg camber,
    # 0.1 deg toe: cos(toe) cos(camber))
    assert o["fr_wheel.spin"] == pytest.approx(omega * math.cos(math.radians(0.1))
                                               * math.cos(math.radians(0.5)), rel=1e-12)


def test_acceleration_is_gravity_in_the_air(sedan):
    st = sedan.initial_state()
    q = st.q.copy()
    names = list(sedan.coordinate_names)
    for b in sedan.body_names:  # the whole car 1 m up: tyres off the road, springs still loaded
        q[names.index(f"{b}.z")] += 1.0
    o = _outputs(sedan, q, np.zeros(sedan.n))
    assert o["vehicle.az"] == pytest.approx(-9.81, abs=1e-9)
    assert o["vehicle.ax"] == pytest.approx(0.0, abs=1e-9)
    assert o["vehicle.ay"] == pytest.approx(0.0, abs=1e-9)


def test_units_of_the_vehicle_outputs(sedan):
    u = system_units(sedan)
    assert (u["vehicle.roll"], u["vehicle.yaw_rate"], u["vehicle.ay"], u["vehicle.vx"]) == \
        ("rad", "rad/s", "m/s²", "m/s")
    assert (u["vehicle.handwheel_angle"], u["fl_wheel.steer"], u["fl_wheel.spin"]) == \
        ("rad", "rad", "rad/s")
    assert unit_of("driver.handwheel") == "rad" and unit_of("chassis.yaw_rate") == "rad/s"


def test_outputs_of_a_turning_car_against_finite_differences():
    """A sedan at 20 m/s steered into a turn (handwheel 0.6 rad): the accelerations in heading
    axes against central differences of the velocities in the turning heading frame,
    a_x = v̇_x − ψ̇ v_y, a_y = v̇_y + ψ̇ v_x (ψ̇ the difference of the yaw), and the yaw rate
    against ψ̇ (small roll and pitch). The outputs are exact at each state; the states of the
    fixed step carry an O(h) error in the wheel spins, hence in the slip ratios and Fx (at
    h = 1 ms a_x is off by 0.19 m/s², at 0.25 ms by 0.012): h = 0.25 ms here."""
    from rtmbs.manoeuvres.events import sedan_system
    from rtmbs.solvers.simulate import simulate

    system, _ = sedan_system(20.0)
    system.set_input("handwheel_angle", 0.6)
    res = simulate(system, "li-euler", t_end=0.6, h=2.5e-4, accelerations=False)
    t = np.asarray(res.t)
    s = {k: np.asarray(res.signal(f"vehicle.{k}")) for k in ("vx", "vy", "ax", "ay", "az", "vz", "yaw",
                                                              "yaw_rate", "handwheel_angle")}
    psi = np.unwrap(s["yaw"])
    dpsi = np.gradient(psi, t)
    ax = np.gradient(s["vx"], t) - dpsi * s["vy"]
    ay = np.gradient(s["vy"], t) + dpsi * s["vx"]
    k = slice(200, -20)  # after the first 50 ms (the step in the handwheel) and away from the end
    peak = np.abs(s["ay"]).max()
    assert peak > 3.0  # a real turn
    assert np.abs(s["ay"][k] - ay[k]).max() < 0.02 * peak
    assert np.abs(s["ax"][k] - ax[k]).max() < 0.02 * peak
    assert np.abs(s["az"][k] - np.gradient(s["vz"], t)[k]).max() < 0.02 * peak
    assert np.abs(s["yaw_rate"][k] - dpsi[k]).max() < 0.01 * np.abs(s["yaw_rate"]).max()
    assert s["handwheel_angle"][-1] == pytest.approx(0.6)


def _box_model(sensors):
    from rtmbs.model.files import model_from_dict

    return model_from_dict({
        "name": "box", "gravity": [0, 0, -9.81],
        "bodies": [{"name": "box", "mass": 2.0, "inertia": [1.0, 1.0, 1.0], "position": [0, 0, 1],
                    "velocity": [3.0, 4.0, 0.0], "angular_velocity": [0.0, 0.0, 0.5]}],
        "inputs": {"steer": {"type": "channel", "value": 0.25}},
        "sensors": sensors}, "box.yaml")


def test_sensors_in_a_model_file():
    """A free box thrown at (3, 4, 0) m/s spinning at 0.5 rad/s about z: in its heading axes
    (yaw 0 at the start) vx = 3, vy = 4, sideslip atan2(4, 3), a = g; an input sensor scales."""
    s = compile_model(_box_model([
        {"name": "box.vx", "kind": "vx", "body": "box"}, {"name": "box.vy", "kind": "vy", "body": "box"},
        {"name": "box.beta", "kind": "sideslip", "body": "box"}, {"name": "box.az", "kind": "az", "body": "box"},
        {"name": "box.r", "kind": "yaw_rate", "body": "box"},
        {"name": "hw", "kind": "input", "input": "steer", "scale": 16.0, "unit": "rad"}]))
    st = s.initial_state()
    o = _outputs(s, st.q, st.qd)
    assert (o["box.vx"], o["box.vy"], o["box.az"], o["box.r"], o["hw"]) == \
        pytest.approx((3.0, 4.0, -9.81, 0.5, 4.0), abs=1e-12)
    assert o["box.beta"] == pytest.approx(math.atan2(4.0, 3.0), abs=1e-12)
    assert system_units(s)["hw"] == "rad" and system_units(s)["box.beta"] == "rad"


def test_sensor_errors_name_the_key():
    from rtmbs.errors import ModelError

    with pytest.raises(ModelError) as exc:
        compile_model(_box_model([{"name": "car.roll", "kind": "roll", "body": "bx"}]))
    assert str(exc.value) == "sensors.car.roll.body: unknown body 'bx' (did you mean 'box'? known: box)"
    with pytest.raises(ModelError) as exc:
        compile_model(_box_model([{"name": "hw", "kind": "input", "input": "steering"}]))
    assert str(exc.value) == ("sensors.hw.input: unknown input 'steering' (did you mean 'steer'? "
                              "known: steer)")
    with pytest.raises(ModelError) as exc:
        _box_model([{"name": "d", "kind": "steer", "body": "box"}])
    assert "a 'steer' sensor needs reference" in str(exc.value)
