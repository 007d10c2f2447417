"""The force element and joint registries (rtmbs.model.registry, rtmbs.kernels.elements): codes, the
engine's element table, the joint table; the torsion spring and the planar joint added through them."""
from __future__ import annotations

import math

import numpy as np
import pytest
from _models.sphere import on_sphere, tangent_basis

import rtmbs
from rtmbs.kernels.elements import ELEMENTS
from rtmbs.engine import _engine
from rtmbs.errors import ModelError
from rtmbs.kernels import codes as kc
from rtmbs.kernels.codes import ROT_EP
from rtmbs.model import FORCE_TYPES, JOINT_EQUATIONS, Model
from rtmbs.model import registry
from rtmbs.system import compile_model

from _models.random_model import random_model


# -- registries ------------------------------------------------------------------------------------
def test_every_element_has_a_unique_code_and_its_registered_name():
    codes = {name: registry.force_code(name) for name in FORCE_TYPES}
    assert sorted(codes.values()) == list(range(len(FORCE_TYPES)))
    assert len(set(FORCE_TYPES)) == len(FORCE_TYPES)
    assert [el.name for el in ELEMENTS] == list(FORCE_TYPES)


def test_compiled_models_store_the_registry_codes():
    system = compile_model(random_model(seed=3))
    for k, fe in enumerate(system.model.forces):
        assert system.arrays_int.frc_type[k] == FORCE_TYPES.index(fe.type)


def test_the_engine_element_table_has_the_registry_codes_and_torque_only_flags():
    """The C element table (engine/elements/table.c) has a kernel for every registry code, none
    outside, and the torque_only flag of the Python element (rtmbs.kernels.elements)."""
    for code in range(-2, len(ELEMENTS) + 3):
        has, torque_only = _engine.element_type(code)
        assert has == (0 <= code < len(ELEMENTS)), code
        assert torque_only == (ELEMENTS[code].torque_only if has else False), code


def test_stiff_defaults_come_from_the_registry():
    for name, stiff in registry.FORCE_ELEMENTS:
        kw = {"tyre": "MF61"} if name == "tyre" else {}
        kw.update({"min_length": 0.1} if name == "stop" else {})
        from rtmbs.model import Force

        assert Force(name="e", type=name, marker_i="a.b", marker_j="c.d", **kw).stiff is stiff


def test_joint_equations_follow_from_the_joint_table():
    rows = dict(zip(("point", "perp", "offset", "distance", "angle"),
                    (kc.PRIM_ROWS[c] for c in (kc.PRIM_SPH, kc.PRIM_DOT1, kc.PRIM_DOT2, kc.PRIM_DIST,
                                               kc.PRIM_ROTDRV))))
    assert registry.PRIMITIVE_ROWS == rows
    assert JOINT_EQUATIONS == {"spherical": 3, "revolute": 5, "cylindrical": 4, "prismatic": 5,
                               "universal": 4, "fixed": 6, "distance": 1, "orientation-lock": 3,
                               "motion": 1, "planar": 3}
    nargs = {"point": 0, "perp": 2, "offset": 1, "distance": 0, "angle": 3}
    sides = {"perp": "ij", "offset": "i", "angle": "iji"}
    for name, spec in registry.JOINTS.items():
        for prims in (spec.values() if isinstance(spec, dict) else (spec,)):
            for p in prims:
                kind, *args = p.split()
                args = [a for a in args if a != "driven"]
                assert len(args) == nargs[kind], (name, p)
                assert all(a[0] in "xyz" and a[1] == s for a, s in zip(args, sides.get(kind, ""))), (name, p)


def test_unknown_variant_of_a_joint_with_variants_names_it():
    with pytest.raises(KeyError):
        registry.joint_primitives("motion", "sideways")


# -- the torsion spring -----------------------------------------------------------------------------
def _two_bodies(rotation="euler-parameters", damping=3.0, preload=0.0, function=None):
    rng = np.random.default_rng(4)
    m = Model(name="torsion", gravity=(0.0, 0.0, 0.0))
    for b, coords in (("a", rotation), ("b", "euler-angles-zxz")):
        m.add_body(b, 2.0, inertia=[0.3, 0.4, 0.5], position=rng.uniform(-1, 1, 3).tolist(),
                   orientation={"euler_zxz": [0.3, 1.1, -0.4] if b == "b" else [0.9, 0.8, 0.2]},
                   velocity=rng.uniform(-1, 1, 3).tolist(), angular_velocity=rng.uniform(-2, 2, 3).tolist(),
                   orientation_coordinates=coords)
    m.add_marker("a", "m", [0.1, 0.2, -0.1], orientation={"euler_zxz": [0.2, 0.7, 0.1]})
    m.add_marker("b", "m", [-0.2, 0.1, 0.3], orientation={"euler_zxz": [-0.5, 0.4, 1.3]})
    m.add_force("tors", "torsion-spring", marker_i="a.m", marker_j="b.m", stiffness=40.0, damping=damping,
                preload=preload, function=function)
    return compile_model(m)


@pytest.mark.parametrize("rotation", ["euler-parameters", "euler-angles-zxz"])
def test_torsion_spring_jacobians_match_central_differences_in_every_direction(rotation):
    system = _two_bodies(rotation, preload=1.5, function={"type": "sine", "amplitude": 2.0, "frequency_hz": 1.0})
    st = system.initial_state()
    rng = np.random.default_rng(2)
    q = on_sphere(system, st.q + 0.3 * rng.standard_normal(system.n))
    qd = rng.standard_normal(system.n)
    t = 0.3
    # the element alone: forces minus those of the same model without it (inertia terms)
    bare = compile_model(system.model.model_copy(update={"forces": []}))

    def Q(q_, qd_):
        return system.forces(q_, qd_, t) - bare.forces(q_, qd_, t)

    Jq, Jqd = system.force_jacobians(q, qd, t, stiff_only=True)  # stiff: the element's own
    assert np.abs(Q(q, qd)).max() > 1.0
    eps = 1e-6
    for d in tangent_basis(system, q):
        fd = (Q(q + eps * d, qd) - Q(q - eps * d, qd)) / (2 * eps)
        np.testing.assert_allclose(Jq @ d, fd, rtol=1e-6, atol=1e-6)
    for d in np.eye(system.n):
        fd = (Q(q, qd + eps * d) - Q(q, qd - eps * d)) / (2 * eps)
        np.testing.assert_allclose(Jqd @ d, fd, rtol=1e-6, atol=1e-6)


def _hinge(k=40.0, c=0.0, J=0.5, angle0=0.0, rotation="euler-parameters"):
    """A disc on a revolute joint about the global z axis, turned by ``angle0`` from the spring's
    free angle (the spring is built at angle 0, then the disc is turned)."""
    m = Model(name="hinge", gravity=(0.0, 0.0, -9.81), orientation_coordinates=rotation)
    m.add_body("disc", 1.0, inertia=[0.4, 0.4, J])
    m.add_marker("ground", "o")
    m.add_marker("disc", "o")
    m.add_joint("pin", "revolute", "ground.o", "disc.o")
    m.add_force("tors", "torsion-spring", marker_i="ground.o", marker_j="disc.o", stiffness=k, damping=c)
    system = compile_model(m)
    st = system.initial_state()
    a = system.body_qadr[0] + 3
    if system.body_rtype[0] == ROT_EP:
        st.q[a:a + 4] = [math.cos(angle0 / 2), 0.0, 0.0, math.sin(angle0 / 2)]
    else:  # zxz angles (φ, θ, ψ) with θ = 0 is singular: turn about z through φ + ψ
        st.q[a:a + 3] = [angle0, 0.0, 0.0]
    return system, st


@pytest.mark.parametrize("angle", [0.3, -1.2, 2.0, 3.0, -3.1])
def test_torsion_spring_torque_is_minus_k_times_the_angle(angle):
    system, st = _hinge(angle0=angle)
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, st.q, st.qd, out)
    assert out[system.output_names.index("tors.force")] == pytest.approx(-40.0 * angle, rel=1e-12)
    # the generalised force is −∂V/∂q of V = ½ k θ² (along the rotation about z)
    Q = system.forces(st.q, st.qd, 0.0) - compile_model(
        system.model.model_copy(update={"forces": []})).forces(st.q, st.qd, 0.0)
    a = system.body_qadr[0] + 3
    dp = 0.5 * np.array([-math.sin(angle / 2), 0.0, 0.0, math.cos(angle / 2)])  # ∂p/∂θ
    assert Q[a:a + 4] @ dp == pytest.approx(-40.0 * angle, rel=1e-9)


def test_torsion_spring_turns_a_disc_at_its_natural_frequency():
    k, J, th0 = 40.0, 0.5, 0.4
    system, st = _hinge(k=k, J=J, angle0=th0)
    res = rtmbs.simulate(system, "reference", t_end=1.0, h=1e-2, state=st)
    T = res.signal("tors.force")
    w = math.sqrt(k / J)
    np.testing.assert_allclose(T, -k * th0 * np.cos(w * res.t), atol=1e-5 * k * th0)


def test_torsion_spring_needs_an_angle_about_marker_i_z():
    m = Model(name="bad")
    m.add_body("disc", 1.0, inertia=(1.0, 1.0, 1.0))
    m.add_marker("ground", "o")
    m.add_marker("disc", "up", orientation={"z_axis": [1, 0, 0], "x_axis": [0, 0, 1]})
    m.add_force("tors", "torsion-spring", marker_i="ground.o", marker_j="disc.up", stiffness=1.0)
    with pytest.raises(ModelError, match=r"^forces\.tors: marker_j x is along marker_i z: no angle about marker_i z$"):
        compile_model(m)


# -- the planar joint --------------------------------------------------------------------------------
def test_planar_joint_keeps_a_body_in_its_plane_with_three_degrees_of_freedom():
    """A puck on a tilted frictionless plane, pushed sideways: it slides down with g sin β along the
    slope, keeps its velocity across it and its spin, and never leaves the plane."""
    beta = 0.3
    n = np.array([0.0, -math.sin(beta), math.cos(beta)])  # plane normal: marker_i z
    m = Model(name="puck")
    m.add_marker("ground", "plane", orientation={"z_axis": n.tolist(), "x_axis": [1, 0, 0]})
    m.add_body("puck", 2.0, inertia=[0.1, 0.1, 0.15], orientation={"z_axis": n.tolist(), "x_axis": [1, 0, 0]},
               velocity=(0.7, 0.0, 0.0), angular_velocity=(1.5 * n).tolist())
    m.add_marker("puck", "c")
    m.add_joint("slide", "planar", "ground.plane", "puck.c")
    system = compile_model(m)
    assert system.m == 3 + 1 and system.rank() == 4  # 7 − 4 = 3 degrees of freedom
    res = rtmbs.simulate(system, "reference", t_end=1.0, h=1e-2)
    r = np.column_stack([res.signal(f"puck.{c}") for c in "xyz"])
    w = np.column_stack([res.signal(f"puck.w{c}") for c in "xyz"])
    down = np.cross(n, [1.0, 0.0, 0.0])  # in the plane, downhill (y < 0)
    down *= -np.sign(down[1])
    g = 9.81 * math.sin(beta)
    np.testing.assert_allclose(r @ n, 0.0, atol=1e-9)
    np.testing.assert_allclose(r[:, 0], 0.7 * res.t, atol=1e-7)
    np.testing.assert_allclose(r @ down, 0.5 * g * res.t ** 2, atol=1e-6)
    np.testing.assert_allclose(w, np.tile(1.5 * n, (len(res.t), 1)), atol=1e-7)
