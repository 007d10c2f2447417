"""The coupler constraint (rtmbs.model.Coupler, kernels.cartesian PRIM_CPL): Φq, Φt and γ against
finite differences in every direction; rack and pinion and an open differential against their
exact kinematics and dynamics, through more than a half turn; named errors for bad input."""
from __future__ import annotations

import math

import numpy as np
import pytest
from scipy.spatial.transform import Rotation
from _models.sphere import on_sphere as _on_sphere

import rtmbs
from _models.bodies import differential
from rtmbs.errors import ModelError
from rtmbs.kernels.codes import ROT_EP
from rtmbs.model import Model, model_from_dict
from rtmbs.system import compile_model


def _rot(rng):
    return {"matrix": Rotation.random(random_state=rng.integers(1 << 30)).as_matrix().tolist()}


def _coupled(seed=0):
    """Three bodies (Euler parameters and zxz angles) and the ground; a revolute, a prismatic, a
    cylindrical and a second revolute joint; a three-term coupler (one rotation) and a gear pair
    (two rotations, ratio 2.5) sharing bodies. Nothing is assembled: Φ ≠ 0 is fine here."""
    rng = np.random.default_rng(seed)
    m = Model(name="coupled", gravity=(0.0, 0.0, -9.81))
    for b, coords in (("a", "euler-parameters"), ("b", "euler-angles-zxz"), ("c", "euler-parameters")):
        ori = ({"euler_zxz": [0.4, 1.2, -0.7]} if coords == "euler-angles-zxz" else _rot(rng))
        m.add_body(b, 1.5, inertia=[0.3, 0.4, 0.5], position=rng.uniform(-1, 1, 3).tolist(), orientation=ori,
                   orientation_coordinates=coords,
                   markers={f"m{k}": {"position": rng.uniform(-0.5, 0.5, 3).tolist(), "orientation": _rot(rng)}
                            for k in range(3)})
    m.add_marker("ground", "g0", rng.uniform(-1, 1, 3).tolist(), orientation=_rot(rng))
    m.add_marker("ground", "g1", rng.uniform(-1, 1, 3).tolist(), orientation=_rot(rng))
    m.add_joint("rev", "revolute", "a.m0", "b.m0")
    m.add_joint("slide", "prismatic", "ground.g0", "c.m0")
    m.add_joint("cyl", "cylindrical", "b.m1", "c.m1")
    m.add_joint("rev2", "revolute", "ground.g1", "a.m2")
    m.add_coupler("three", ["rev", "slide", "cyl"], coefficients=[1.0, -0.3, 2.0], offset=0.05)
    m.add_coupler("gear", ["rev2", "rev"], ratio=2.5)
    return compile_model(m)


def test_coupler_rows_and_their_initial_value():
    system = _coupled()
    assert system.m == 5 + 5 + 4 + 5 + 2 + 2  # joints, couplers, two normalisation rows
    start, count = system.joint_rows["three"]
    assert count == 1 and system.joint_rows["gear"] == (start + 1, 1)
    phi = system.constraints(system._q0)
    assert phi[start] == pytest.approx(-0.05, abs=1e-14)  # at the initial positions: −offset
    assert phi[start + 1] == pytest.approx(0.0, abs=1e-14)
    # Φq touches the coordinates of the bodies of its joints only (pattern)
    pat = system.phiq_pattern[start]
    for b in range(system.nbody):
        a, w = system.body_qadr[b], 7 if system.body_rtype[b] == ROT_EP else 6
        assert pat[a:a + w].all()


@pytest.mark.parametrize("scale", [1.0, 1.08])
def test_coupler_jacobian_is_exact_in_every_direction(scale):
    system = _coupled()
    rng = np.random.default_rng(3)
    q = _on_sphere(system, system._q0 + 0.2 * rng.standard_normal(system.n))
    for b in range(system.nbody):  # Euler parameters off the unit sphere too
        if system.body_rtype[b] == ROT_EP:
            q[system.body_qadr[b] + 3:system.body_qadr[b] + 7] *= scale
    J = system.constraint_jacobian(q)
    r = system.joint_rows["three"][0]
    rows = slice(r, r + 2)  # the two coupler rows
    assert np.abs(J[rows]).max() > 0.1
    eps = 1e-6
    for dq in list(np.eye(system.n)) + [rng.standard_normal(system.n) for _ in range(4)]:
        fd = (system.constraints(q + eps * dq) - system.constraints(q - eps * dq)) / (2 * eps)
        np.testing.assert_allclose(J @ dq, fd, rtol=1e-6, atol=1e-7)
    np.testing.assert_array_equal(system.constraint_time_derivative(q)[rows], 0.0)


@pytest.mark.parametrize("seed", [1, 2])
def test_coupler_gamma_is_the_second_time_derivative(seed):
    system = _coupled()
    rng = np.random.default_rng(seed)
    q0 = _on_sphere(system, system._q0 + 0.2 * rng.standard_normal(system.n))
    qd0, qdd0 = rng.standard_normal(system.n), rng.standard_normal(system.n)
    e = 1e-4
    qs = [_on_sphere(system, q0 + s * e * qd0 + 0.5 * (s * e) ** 2 * qdd0) for s in (-2, -1, 0, 1, 2)]
    qd = (-qs[4] + 8 * qs[3] - 8 * qs[1] + qs[0]) / (12 * e)
    qdd = (-qs[4] + 16 * qs[3] - 30 * qs[2] + 16 * qs[1] - qs[0]) / (12 * e * e)
    ph = [system.constraints(x) for x in qs]
    phidd = (-ph[4] + 16 * ph[3] - 30 * ph[2] + 16 * ph[1] - ph[0]) / (12 * e * e)
    gamma = system.gamma(q0, qd)
    r = system.joint_rows["three"][0]
    assert np.abs(gamma[r:r + 2]).max() > 0.1
    np.testing.assert_allclose((system.constraint_jacobian(q0) @ qdd - phidd)[r:r + 2], gamma[r:r + 2],
                               rtol=2e-4, atol=2e-5 * max(1.0, np.abs(gamma).max()))


# -- rack and pinion ------------------------------------------------------------------------------
RATIO = 0.008  # rack travel per pinion radian [m/rad]


def _rack_pinion(drive=None, torque=None, J=2e-4, m_rack=3.0):
    """Pinion revolute about global z, rack prismatic along global x; rack x = RATIO·pinion angle.
    The pinion is driven by a motion joint (``drive``: its angle) or a torque (``torque``)."""
    m = Model(name="rack", gravity=(0.0, 0.0, -9.81))
    m.add_body("pinion", 0.5, inertia=[1e-3, 1e-3, J])
    m.add_body("rack", m_rack, inertia=[1e-3, 0.05, 0.05], position=(0.0, -0.02, 0.0))
    m.add_marker("ground", "o")
    m.add_marker("ground", "rail", (0.0, -0.02, 0.0), orientation={"z_axis": [1, 0, 0], "x_axis": [0, 1, 0]})
    m.add_marker("pinion", "o")
    m.add_marker("rack", "o", frame="global", position=(0.0, -0.02, 0.0),
                 orientation={"z_axis": [1, 0, 0], "x_axis": [0, 1, 0]})
    m.add_joint("pin", "revolute", "ground.o", "pinion.o")
    m.add_joint("slide", "prismatic", "ground.rail", "rack.o")
    m.add_coupler("steer", ["slide", "pin"], ratio=RATIO)
    if drive is not None:
        m.add_joint("drive", "motion", "ground.o", "pinion.o", dof="rotation", function=drive)
    if torque is not None:
        m.add_force("motor", "joint-torque", marker_i="ground.o", marker_j="pinion.o", function=torque)
    return compile_model(m)


@pytest.mark.parametrize("solver, options", [("li-euler", {}), ("li-euler", {"linear_solver": "sparse"}),
                                             ("li-euler-indep", {}), ("reference", {})])
def test_driven_pinion_moves_the_rack_by_ratio_times_its_angle_over_several_turns(solver, options):
    # 2.5 turns and back: the pinion angle crosses ±π five times
    drive = {"type": "sine", "amplitude": 5 * math.pi, "frequency_hz": 0.5}
    system = _rack_pinion(drive=drive)
    res = rtmbs.simulate(system, solver, t_end=1.0, h=1e-3, **options)
    angle = 5 * math.pi * np.sin(math.pi * res.t)
    assert np.abs(angle).max() > 2 * math.pi
    np.testing.assert_allclose(res.signal("rack.x"), RATIO * angle, atol=1e-9)


def test_pinion_torque_accelerates_pinion_and_rack_as_one_inertia():
    """θ̈ = T / (J + m r²): the rack's mass reflected through the ratio."""
    T, J, mr = 0.05, 2e-4, 3.0
    system = _rack_pinion(torque=T, J=J, m_rack=mr)
    res = rtmbs.simulate(system, "reference", t_end=1.0, h=1e-2)
    th = 0.5 * T / (J + mr * RATIO ** 2) * res.t ** 2
    assert th[-1] > 2 * math.pi  # more than a turn
    np.testing.assert_allclose(res.signal("rack.x"), RATIO * th, atol=1e-8)
    wz = res.signal("pinion.wz")
    np.testing.assert_allclose(wz, T / (J + mr * RATIO ** 2) * res.t, rtol=1e-7, atol=1e-7)


# -- the open differential: ω_L + ω_R = 2 ω_carrier -----------------------------------------------
@pytest.mark.parametrize("solver", ["li-euler", "reference"])
def test_open_differential_splits_the_speed_and_the_torque(solver):
    """J_L θ̈_L = T − λ, J_R θ̈_R = −λ, θ̈_L + θ̈_R = 0: θ̈_L = T/(J_L + J_R) = −θ̈_R."""
    T, JL, JR, wc = 0.7, 0.02, 0.05, 6.0
    system = differential(T, JL, JR, wc)
    res = rtmbs.simulate(system, solver, t_end=1.0, h=1e-3)
    a = T / (JL + JR)
    # li-euler: first order; its velocities miss the velocity constraints by O(h²) (Φq q̇ of the
    # coupler row 1.5e-4 after 1 s at h = 1 ms, 4e-5 at 0.5 ms), the positions are projected
    tol = 1e-7 if solver == "reference" else 3e-4
    np.testing.assert_allclose(res.signal("left.wy"), wc + a * res.t, atol=tol)
    np.testing.assert_allclose(res.signal("right.wy"), wc - a * res.t, atol=tol)
    np.testing.assert_allclose(res.signal("left.wy") + res.signal("right.wy"), 2 * wc, atol=tol)
    r = system.joint_rows["diff"][0]
    phi = np.array([system.constraints(q, t)[r] for q, t in zip(res.q, res.t)])
    np.testing.assert_allclose(phi, 0.0, atol=1e-9)


# -- bad input --------------------------------------------------------------------------------------
def _base(**coupler):
    d = {"bodies": [{"name": "p", "mass": 1, "inertia": [1, 1, 1], "markers": {"o": [0, 0, 0]}},
                    {"name": "r", "mass": 1, "inertia": [1, 1, 1], "markers": {"o": [0, 0, 0]}}],
         "ground": {"markers": {"o": [0, 0, 0]}},
         "joints": [{"name": "pin", "type": "revolute", "marker_i": "ground.o", "marker_j": "p.o"},
                    {"name": "slide", "type": "prismatic", "marker_i": "ground.o", "marker_j": "r.o"},
                    {"name": "ball", "type": "spherical", "marker_i": "p.o", "marker_j": "r.o"}],
         "couplers": [{"name": "c", **coupler}]}
    return d


@pytest.mark.parametrize("coupler, message", [
    ({"joints": ["slide", "pinn"], "ratio": 0.01}, r"^couplers\.c\.joints: unknown joint 'pinn' "
     r"\(did you mean 'pin'\? known: ball, pin, slide\)$"),
    ({"joints": ["slide", "ball"], "ratio": 0.01},
     r"^couplers\.c\.joints: joint 'ball' is a spherical joint: a coupler needs a revolute \(rotation about "
     r"marker_i z\), prismatic or cylindrical \(translation along marker_i z\) joint$"),
    ({"joints": ["pin", "slide"], "coefficients": [1, 0.5, 2]}, r"^couplers\.c: 3 coefficients for 2 joints$"),
    ({"joints": ["pin", "slide"]}, r"^couplers\.c: give one of ratio \(two joints\) or coefficients \(one per joint\)$"),
    ({"joints": ["pin"], "ratio": 2}, r"^couplers\.c: a coupler needs at least two joints, got 1$"),
    ({"joints": ["pin", "slide"], "ratio": 0}, r"^couplers\.c: ratio must not be 0$"),
    ({"joints": ["pin", "slide"], "ratio": 1, "gain": 2}, r"^couplers\.c\.gain: unknown key 'gain'$"),
])
def test_bad_couplers_are_named_errors(coupler, message):
    with pytest.raises(ModelError, match=message):
        compile_model(model_from_dict(_base(**coupler)))


def test_incommensurate_rotation_coefficients_are_refused():
    d = _base(joints=["pin", "pin2"], coefficients=[1.0, -math.pi])
    d["bodies"].append({"name": "q", "mass": 1, "inertia": [1, 1, 1], "markers": {"o": [0, 0, 0]}})
    d["joints"].append({"name": "pin2", "type": "revolute", "marker_i": "ground.o", "marker_j": "q.o"})
    with pytest.raises(ModelError, match=r"^couplers\.c: the coefficients of its rotation terms \[1\.0, "
                                         r"-3\.14159\d+\] are not integer multiples of one value"):
        compile_model(model_from_dict(d))


def test_coupler_name_may_not_repeat_a_joint_name():
    d = _base(joints=["pin", "slide"], ratio=0.01)
    d["couplers"][0]["name"] = "pin"
    with pytest.raises(ModelError, match=r"^couplers\.pin: duplicate name \(joints and couplers share their names\)$"):
        compile_model(model_from_dict(d))
