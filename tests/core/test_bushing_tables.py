"""Tabulated bushing characteristics per axis (force_tables, damping_tables, torque_tables,
rotational_damping_tables): Jacobians against central differences in every direction, a linear
table reproduces the linear bushing, the force at sampled deflections is the table's, named errors."""
from __future__ import annotations

import numpy as np
import pytest
from _models.sphere import on_sphere, tangent_basis

from rtmbs.errors import ModelError
from rtmbs.model import Model, model_from_dict
from rtmbs.system import compile_model

# restoring characteristics: increasing, non-linear (progressive), knots at irregular places
DEFL = [-3.0, -0.41, -0.13, 0.0, 0.07, 0.33, 2.9]
FORCE = [-9e4, -6e3, -1.1e3, 0.0, 8e2, 5e3, 7e4]
VEL = [-20.0, -1.3, 0.0, 0.9, 20.0]
DAMP = [-4e3, -2e2, 0.0, 5e2, 9e3]
ANG = [-1.5, -0.23, 0.0, 0.17, 1.5]
TORQUE = [-2e3, -90.0, 0.0, 60.0, 3e3]
AVEL = [-30.0, -2.1, 0.0, 1.7, 30.0]
ADAMP = [-300.0, -15.0, 0.0, 20.0, 500.0]


def _tables(scale=(1.0, 1.3, 0.8)):
    def per_axis(x, y, xn, yn):
        return {a: {xn: x, yn: (np.asarray(y) * s).tolist()} for a, s in zip("xyz", scale)}
    return dict(force_tables=per_axis(DEFL, FORCE, "deflection", "force"),
                damping_tables=per_axis(VEL, DAMP, "velocity", "force"),
                torque_tables=per_axis(ANG, TORQUE, "angle", "torque"),
                rotational_damping_tables=per_axis(AVEL, ADAMP, "angular_velocity", "torque"))


def _two_bodies(**bushing):
    rng = np.random.default_rng(4)
    m = Model(name="bush", gravity=(0.0, 0.0, 0.0))
    for b, coords in (("a", "euler-parameters"), ("b", "euler-angles-zxz")):
        m.add_body(b, 2.0, inertia=[0.3, 0.4, 0.5], position=rng.uniform(-0.3, 0.3, 3).tolist(),
                   orientation={"euler_zxz": [0.3, 1.1, -0.4] if b == "b" else [0.9, 0.8, 0.2]},
                   orientation_coordinates=coords)
    m.add_marker("a", "m", [0.1, 0.2, -0.1], orientation={"euler_zxz": [0.2, 0.7, 0.1]})
    m.add_marker("b", "m", [-0.2, 0.1, 0.3], frame="global", orientation={"euler_zxz": [0.25, 0.65, 0.15]})
    m.add_force("bush", "bushing", marker_i="a.m", marker_j="b.m", preload_force=[3.0, -1.0, 2.0],
                preload_torque=[0.5, 0.2, -0.3], **bushing)
    return compile_model(m)


def _state(system, seed, spread=0.1):
    rng = np.random.default_rng(seed)
    q = on_sphere(system, system._q0 + spread * rng.standard_normal(system.n))
    return q, rng.standard_normal(system.n)


def _local(system, q, qd):
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, q, qd, out)
    return np.array([out[system.output_names.index(f"bush.{c}")] for c in ("Fx", "Fy", "Fz", "Tx", "Ty", "Tz")])


@pytest.mark.parametrize("seed", [1, 2])
def test_tabulated_bushing_jacobians_match_central_differences_in_every_direction(seed):
    system = _two_bodies(**_tables())
    bare = compile_model(system.model.model_copy(update={"forces": []}))
    q, qd = _state(system, seed)

    def Q(q_, qd_):
        return system.forces(q_, qd_) - bare.forces(q_, qd_)

    # deflections and rates lie inside the tables, between knots, and off the linear parts
    assert np.abs(_local(system, q, qd)).max() > 100.0
    Jq, Jqd = system.force_jacobians(q, qd, stiff_only=True)
    eps = 1e-7
    scale = np.abs(Q(q, qd)).max()
    for d in tangent_basis(system, q):
        fd = (Q(q + eps * d, qd) - Q(q - eps * d, qd)) / (2 * eps)
        np.testing.assert_allclose(Jq @ d, fd, rtol=1e-6, atol=1e-8 * scale)
    for d in np.eye(system.n):
        fd = (Q(q, qd + eps * d) - Q(q, qd - eps * d)) / (2 * eps)
        np.testing.assert_allclose(Jqd @ d, fd, rtol=1e-6, atol=1e-8 * scale)


def test_linear_tables_reproduce_the_linear_bushing():
    k, c, kr, cr = [2e4, 3e4, 5e4], [300.0, 200.0, 100.0], [400.0, 700.0, 900.0], [3.0, 5.0, 7.0]
    lin = _two_bodies(stiffness=k, damping=c, rotational_stiffness=kr, rotational_damping=cr)
    span = 50.0

    def tab(slopes, xn, yn):
        return {a: {xn: [-span, span], yn: [-s * span, s * span]} for a, s in zip("xyz", slopes)}
    tabbed = _two_bodies(force_tables=tab(k, "deflection", "force"), damping_tables=tab(c, "velocity", "force"),
                         torque_tables=tab(kr, "angle", "torque"),
                         rotational_damping_tables=tab(cr, "angular_velocity", "torque"))
    for seed in (1, 2, 3):
        q, qd = _state(lin, seed)
        F = lin.forces(q, qd)
        assert np.abs(_local(lin, q, qd)).max() > 100.0
        np.testing.assert_allclose(tabbed.forces(q, qd), F, rtol=1e-12, atol=1e-10 * np.abs(F).max())
        for A, B in zip(tabbed.force_jacobians(q, qd, stiff_only=True), lin.force_jacobians(q, qd, stiff_only=True)):
            np.testing.assert_allclose(A, B, rtol=1e-12, atol=1e-10 * np.abs(B).max())


def _slider(tables, axis):
    """A body on a bushing to the ground, displaced along marker_i's ``axis`` (the marker turned
    away from the global axes) at a given speed."""
    m = Model(name="slider", gravity=(0.0, 0.0, 0.0))
    ori = {"euler_zxz": [0.5, 0.4, -0.3]}
    m.add_marker("ground", "o", (0.1, 0.2, 0.3), orientation=ori)
    m.add_body("b", 1.0, inertia=[1.0, 1.0, 1.0], position=(0.1, 0.2, 0.3))
    m.add_marker("b", "o", frame="global", position=(0.1, 0.2, 0.3), orientation=ori)
    m.add_force("bush", "bushing", marker_i="ground.o", marker_j="b.o", **tables)
    system = compile_model(m)
    e = system.markers["ground.o"].C[:, "xyz".index(axis)]  # the axis in global coordinates
    return system, e


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_tabulated_force_and_damping_at_sampled_deflections_and_speeds(axis):
    tables = {"force_tables": {axis: {"deflection": DEFL, "force": FORCE}},
              "damping_tables": {axis: {"velocity": VEL, "force": DAMP}}}
    system, e = _slider(tables, axis)
    a = "xyz".index(axis)
    for u in (-3.5, -0.2, -0.13, 0.01, 0.2, 1.7, 4.0):  # inside, at a knot and outside (clamped)
        for v in (-2.0, 0.0, 0.5, 7.0):
            q, qd = system._q0.copy(), np.zeros(system.n)
            q[0:3] += u * e
            qd[0:3] = v * e
            out = _local(system, q, qd)
            expected = -np.interp(u, DEFL, FORCE) - np.interp(v, VEL, DAMP)
            assert out[a] == pytest.approx(expected, rel=1e-12, abs=1e-9)
            assert np.abs(np.delete(out, a)).max() < 1e-9


@pytest.mark.parametrize("axis", ["x", "y", "z"])
def test_tabulated_torque_at_sampled_angles(axis):
    """A small rotation θ about marker_i's axis: the torque is −table(sin θ) (the bushing's small
    rotation measure vee(skew R) is sin θ for a rotation about one axis)."""
    system, e = _slider({"torque_tables": {axis: {"angle": ANG, "torque": TORQUE}},
                         "rotational_damping_tables": {axis: {"angular_velocity": AVEL, "torque": ADAMP}}}, axis)
    a = "xyz".index(axis)
    for th in (-0.5, -0.1, 0.05, 0.17, 0.3):
        for w in (-3.0, 0.0, 1.0):
            q, qd = system._q0.copy(), np.zeros(system.n)
            p = q[3:7]
            rot = np.concatenate([[np.cos(th / 2)], np.sin(th / 2) * e])  # about the global axis e
            q[3:7] = [rot[0] * p[0] - rot[1:] @ p[1:], *(rot[0] * p[1:] + p[0] * rot[1:] + np.cross(rot[1:], p[1:]))]
            G = 2 * np.array([[-q[4], q[3], -q[6], q[5]], [-q[5], q[6], q[3], -q[4]], [-q[6], -q[5], q[4], q[3]]])
            qd[3:7] = 0.25 * G.T @ (w * e)  # ω = G ṗ with G Gᵀ = 4 I
            out = _local(system, q, qd)
            # θ̇ = Θ Ω_l = cos θ · w about the axis (Θ = ½(tr R·I − R))
            expected = -np.interp(np.sin(th), ANG, TORQUE) - np.interp(np.cos(th) * w, AVEL, ADAMP)
            assert out[3 + a] == pytest.approx(expected, rel=1e-10, abs=1e-9)


# -- bad input --------------------------------------------------------------------------------------
def _model(**bushing):
    return {"bodies": [{"name": "b", "mass": 1, "inertia": [1, 1, 1], "markers": {"o": [0, 0, 0]}}],
            "ground": {"markers": {"o": [0, 0, 0]}},
            "forces": [{"name": "bush", "type": "bushing", "marker_i": "ground.o", "marker_j": "b.o", **bushing}]}


@pytest.mark.parametrize("bushing, message", [
    ({"force_tables": {"x": {"deflection": [0, -1, 1], "force": [0, 1, 2]}}},
     r"^forces\.bush\.force_tables\.x: deflection must be strictly increasing$"),
    ({"force_tables": {"y": {"deflection": [-1, 0, 1], "force": [0, 2, 1]}}},
     r"^forces\.bush\.force_tables\.y: force must not decrease with deflection \(non-monotonic table\)$"),
    ({"damping_tables": {"z": {"velocity": [-1, 1], "force": [0]}}},
     r"^forces\.bush\.damping_tables\.z: velocity and force must be lists of the same length \(at least 2\)$"),
    ({"torque_tables": {"w": {"angle": [-1, 1], "torque": [-1, 1]}}},
     r"^forces\.bush\.torque_tables: unknown axis 'w' \(expected x, y or z of marker_i\)$"),
    ({"torque_tables": {"x": {"angle": [-1, 1], "force": [-1, 1]}}},
     r"^forces\.bush\.torque_tables\.x: expected the lists angle and torque$"),
    ({"stiffness": [1e3, 0, 0], "force_tables": {"x": {"deflection": [-1, 1], "force": [-1, 1]}}},
     r"^forces\.bush\.force_tables\.x: axis x has both a table and stiffness 1000: give one$"),
])
def test_bad_bushing_tables_are_named_errors(bushing, message):
    with pytest.raises(ModelError, match=message):
        compile_model(model_from_dict(_model(**bushing)))


def test_bushing_tables_on_another_element_are_refused():
    d = _model()
    d["forces"][0].update(type="spring-damper", stiffness=1.0,
                          force_tables={"x": {"deflection": [-1, 1], "force": [-1, 1]}})
    with pytest.raises(ModelError, match=r"^forces\.bush: 'force_tables' is only read by bushings, not spring-damper$"):
        compile_model(model_from_dict(d))
