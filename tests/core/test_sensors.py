"""rtmbs.analysis.sensors against a body in known motion: a translation r(t) and a rotation by θ(t) about a
fixed axis u, so that R s has derivatives θ̇ ũ R s and θ̈ ũ R s + θ̇² ũ² R s."""
import numpy as np
import pytest

from rtmbs.analysis import sensors
from rtmbs.errors import SolverError
from rtmbs.result import Result

U = np.array([1.0, 2.0, 2.0]) / 3.0
S = np.array([0.4, -0.3, 0.2])  # the sensor point in the body frame
W0, BETA = 1.3, 0.7             # θ = W0 t + BETA t²/2


def _skew(v):
    return np.array([[0, -v[2], v[1]], [v[2], 0, -v[0]], [-v[1], v[0], 0]])


def _rot(theta):
    K = _skew(U)
    return np.eye(3) + np.sin(theta) * K + (1 - np.cos(theta)) * K @ K


def _motion(t):
    r = np.stack([0.5 * np.sin(2 * t), 0.2 * t ** 2, 1.0 + 0.1 * t], 1)
    rd = np.stack([np.cos(2 * t), 0.4 * t, 0.1 + 0 * t], 1)
    rdd = np.stack([-2 * np.sin(2 * t), 0.4 + 0 * t, 0 * t], 1)
    th, thd, thdd = W0 * t + 0.5 * BETA * t ** 2, W0 + BETA * t, BETA + 0 * t
    return r, rd, rdd, th, thd, thdd


def _result(t, fixed_body=True):
    r, rd, _, th, thd, _ = _motion(t)
    p = np.concatenate([np.cos(th / 2)[:, None], np.sin(th / 2)[:, None] * U], 1)
    pd = 0.5 * thd[:, None] * np.concatenate([-np.sin(th / 2)[:, None], np.cos(th / 2)[:, None] * U], 1)
    q, qd = np.concatenate([r, p], 1), np.concatenate([rd, pd], 1)
    names = [f"b.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
    if fixed_body:  # a second body at rest at (2, 0, 0), rotated 90° about x
        c = np.cos(np.pi / 4)
        q = np.concatenate([q, np.tile([2.0, 0, 0, c, c, 0, 0], (t.size, 1))], 1)
        qd = np.concatenate([qd, np.zeros((t.size, 7))], 1)
        names += [f"g.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
    n = t.size
    return Result(t=t, q=q, qd=qd, lam=np.zeros((n, 0)), phi_norm=np.zeros(n), phid_norm=np.zeros(n),
                  coordinate_names=names, meta={"model": "known-motion"})


def test_position_velocity_exact_and_acceleration_second_order():
    t = np.linspace(0.0, 2.0, 2001)
    res = _result(t)
    r, rd, rdd, th, thd, thdd = _motion(t)
    R = np.stack([_rot(x) for x in th])
    K = _skew(U)
    pt = sensors.Point("b", S)
    Rs = R @ S
    assert np.abs(sensors.marker_position(res, pt) - (r + Rs)).max() < 1e-12
    assert np.abs(sensors.marker_velocity(res, pt) - (rd + thd[:, None] * Rs @ K.T)).max() < 1e-12
    acc = rdd + thdd[:, None] * Rs @ K.T + (thd ** 2)[:, None] * Rs @ (K @ K).T
    a = sensors.marker_acceleration(res, pt)
    err = np.abs(a - acc).max()
    assert err < 2e-5 * np.abs(acc).max()
    # second order: halving the sample interval divides the error by about 4
    t2 = t[::2]
    e_coarse = np.abs(sensors.marker_acceleration(_result(t2), pt)[1:-1] - acc[::2][1:-1]).max()
    e_fine = np.abs(a[2:-2:2] - acc[2:-2:2]).max()
    assert 3.5 < e_coarse / e_fine < 4.5


def test_gravity_and_body_frame():
    t = np.linspace(0.0, 1.0, 101)
    res = _result(t)
    g = (0.0, 0.0, -9.81)
    fixed = sensors.Point("g", (0.1, 0.2, 0.3))
    # at rest: the accelerometer senses +9.81 up in the world ...
    assert np.allclose(sensors.marker_acceleration(res, fixed, gravity=g), [0, 0, 9.81], atol=1e-12)
    assert np.allclose(sensors.marker_acceleration(res, fixed), 0.0, atol=1e-12)
    # ... and along its body's -y axis after a +90° rotation about x (body y is world z)
    assert np.allclose(sensors.marker_acceleration(res, fixed, gravity=g, frame="body"),
                       [0, 9.81, 0], atol=1e-12)
    with pytest.raises(SolverError, match="frame must be 'world' or 'body', got 'chassis'"):
        sensors.marker_acceleration(res, fixed, frame="chassis")


def test_distance_and_angles():
    t = np.linspace(0.0, 2.0, 51)
    res = _result(t)
    r, _, _, th, _, _ = _motion(t)
    a, b = sensors.Point("b", S), sensors.Point("g", (0.0, 0.0, 0.5))
    # g's local z is world -y after the 90° rotation about x
    pb = np.array([2.0, -0.5, 0.0])
    want = np.linalg.norm(r + np.stack([_rot(x) for x in th]) @ S - pb, axis=1)
    assert np.abs(sensors.marker_distance(res, a, b) - want).max() < 1e-12
    ang = sensors.body_angles(res, "g")
    assert np.allclose(ang["roll"], np.pi / 2) and np.allclose(ang["pitch"], 0) and np.allclose(ang["yaw"], 0)


def test_angles_of_a_composed_rotation():
    roll, pitch, yaw = 0.1, -0.2, 0.3
    c, s = np.cos, np.sin
    Rz = np.array([[c(yaw), -s(yaw), 0], [s(yaw), c(yaw), 0], [0, 0, 1]])
    Ry = np.array([[c(pitch), 0, s(pitch)], [0, 1, 0], [-s(pitch), 0, c(pitch)]])
    Rx = np.array([[1, 0, 0], [0, c(roll), -s(roll)], [0, s(roll), c(roll)]])
    A = Rz @ Ry @ Rx
    e0 = 0.5 * np.sqrt(1 + np.trace(A))
    p = np.array([e0, (A[2, 1] - A[1, 2]) / (4 * e0), (A[0, 2] - A[2, 0]) / (4 * e0),
                  (A[1, 0] - A[0, 1]) / (4 * e0)])
    assert np.abs(sensors.rotation(p[None])[0] - A).max() < 1e-14
    res = Result(t=np.array([0.0, 1.0]), q=np.tile(np.r_[0, 0, 0, p], (2, 1)), qd=np.zeros((2, 7)),
                 lam=np.zeros((2, 0)), phi_norm=np.zeros(2), phid_norm=np.zeros(2),
                 coordinate_names=[f"c.{k}" for k in ("x", "y", "z", "e0", "e1", "e2", "e3")])
    ang = sensors.body_angles(res, "c")
    assert np.allclose([ang["roll"][0], ang["pitch"][0], ang["yaw"][0]], [roll, pitch, yaw], atol=1e-14)


def test_named_errors():
    res = _result(np.linspace(0, 1, 5))
    with pytest.raises(SolverError, match=r"unknown body 'bb' in 'known-motion' \(did you mean 'b'"):
        sensors.marker_position(res, sensors.Point("bb"))
    with pytest.raises(SolverError, match="local position must be 3 finite numbers"):
        sensors.Point("b", (0.0, 1.0))
    short = _result(np.array([0.0, 1.0]))
    with pytest.raises(SolverError, match="needs >= 3 samples"):
        sensors.marker_acceleration(short, sensors.Point("b"))


def test_model_markers_on_the_sedan():
    """point() reads a compiled model's marker: at the initial state the spring's two markers
    are as far apart as their global design positions in the description."""
    from rtmbs.manoeuvres.events import sedan_system

    system, model = sedan_system(0.0)
    st = system.initial_state()
    n = 3
    res = Result(t=np.arange(n) * 1e-3, q=np.tile(st.q, (n, 1)), qd=np.tile(st.qd, (n, 1)),
                 lam=np.zeros((n, 0)), phi_norm=np.zeros(n), phid_norm=np.zeros(n),
                 coordinate_names=list(system.coordinate_names), meta={"model": "sedan"})
    fs = next(f for f in model.forces if f.name == "fl_spring")

    def design(ref):
        body, name = ref.split(".")
        mk = next(m for m in model.body(body).markers if m.name == name)
        assert mk.frame == "global"
        return np.asarray(mk.position)

    a, b = sensors.point(system, fs.marker_i), sensors.point(system, fs.marker_j)
    d = sensors.marker_distance(res, a, b)
    assert d == pytest.approx(np.linalg.norm(design(fs.marker_j) - design(fs.marker_i)), abs=1e-9)
    assert np.abs(sensors.marker_position(res, a) - design(fs.marker_i)).max() < 1e-9
    g = sensors.point_at(system, "fl_upright", design(fs.marker_i))
    assert np.abs(sensors.marker_position(res, g)[0] - design(fs.marker_i)).max() < 1e-12
    with pytest.raises(SolverError, match="unknown marker 'chassis.fl_sprin' in model 'sedan'"):
        sensors.point(system, "chassis.fl_sprin")
