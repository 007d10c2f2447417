"""Physics of the Cartesian body models against conservation laws and analytical results,
integrated with the offline reference solver."""
from __future__ import annotations

import numpy as np
import pytest

from _models.bodies import free_body
from rtmbs.model import Model
from rtmbs.models import load_model
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model

Y = {"z_axis": [0, 1, 0]}


def _angular_momentum(system, q, qd, about=np.zeros(3)):
    """Σ (r − o) × m ṙ + A J' Aᵀ ω, from the kinematics the kernel computes."""
    system.evaluate(0.0, q, qd, system.workspace(), 0)
    L = np.zeros(3)
    kin_r, kin_rd, kin_A, kin_w = system.data.kin_r, system.data.kin_rd, system.data.kin_A, system.data.kin_w
    for b in range(system.nbody):
        m = system.arrays.body_mass[b]
        J = kin_A[b] @ system.arrays.body_inertia[b] @ kin_A[b].T
        L += np.cross(kin_r[b] - about, m * kin_rd[b]) + J @ kin_w[b]
    return L


@pytest.mark.parametrize("coords", ["euler-parameters", "euler-angles-zxz"])
def test_torque_free_asymmetric_body_conserves_energy_and_momentum(coords):
    s = compile_model(free_body(coords))
    res = simulate(s, "reference", t_end=1.5, h=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
    E = np.array([s.kinetic_energy(q, qd) for q, qd in zip(res.q, res.qd)])
    L = np.array([_angular_momentum(s, q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.ptp(E) < 1e-8 * E[0]
    assert np.abs(L - L[0]).max() < 1e-8 * np.linalg.norm(L[0])
    # spinning about the intermediate axis is unstable: the motion is not trivial
    assert np.ptp(res.qd[:, 3:6]) > 1.0


def heavy_top() -> Model:
    m = Model(name="top", gravity=(0, 0, -9.81))
    tilt = 0.4
    axis = np.array([np.sin(tilt), 0.0, np.cos(tilt)])
    spin = 40.0
    m.add_body("top", 1.0, inertia=[0.02, 0.02, 0.03], position=tuple(0.2 * axis),
               orientation={"z_axis": tuple(axis)}, angular_velocity=tuple(spin * axis),
               markers={"tip": [0, 0, -0.2]})
    m.add_marker("ground", "pivot", (0, 0, 0))
    m.add_joint("pivot", "spherical", "ground.pivot", "top.tip")
    return m


def test_heavy_top_conserves_energy_vertical_momentum_and_spin():
    s = compile_model(heavy_top())
    res = simulate(s, "reference", t_end=1.0, h=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
    E = np.array([s.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    Lz = np.array([_angular_momentum(s, q, qd)[2] for q, qd in zip(res.q, res.qd)])
    spin = []
    for q, qd in zip(res.q, res.qd):
        s.evaluate(0.0, q, qd, s.workspace(), 0)
        spin.append(s.data.kin_A[0][:, 2] @ s.data.kin_w[0])  # ω · body z (symmetric top: constant)
    assert np.ptp(E) < 1e-8 * abs(s.kinetic_energy(res.q[0], res.qd[0]))
    assert np.ptp(Lz) < 1e-8 * abs(Lz[0])
    assert np.ptp(spin) < 1e-7 * abs(spin[0])
    # the top precesses: its axis turns about z
    a = s.coordinate_names.index("top.x")
    assert np.ptp(np.arctan2(res.q[:, a + 1], res.q[:, a])) > 0.1


def test_double_pendulum_conserves_energy():
    s = load_model("double-pendulum")
    res = simulate(s, "reference", t_end=1.5, h=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
    E = np.array([s.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.ptp(E) < 1e-7 * 10.0  # potential energy scale m g L ≈ 10 J
    assert res.phi_norm.max() < 1e-10


def test_small_angle_pendulum_period():
    m = Model(name="pendulum", gravity=(0, 0, -9.81))
    L, theta0 = 0.8, 0.01
    c = np.array([np.sin(theta0), 0, -np.cos(theta0)]) * L / 2
    # the rod's top marker is given in global coordinates: at the pivot, z along the hinge (y)
    m.add_body("rod", 1.5, inertia=[1.5 * L ** 2 / 12, 1.5 * L ** 2 / 12, 1e-4], position=tuple(c),
               orientation={"z_axis": tuple(-c / np.linalg.norm(c))},
               markers={"top": {"position": [0, 0, 0], "orientation": Y, "frame": "global"}})
    m.add_marker("ground", "pin", (0, 0, 0), orientation=Y)
    m.add_joint("pin", "revolute", "ground.pin", "rod.top")
    s = compile_model(m)
    res = simulate(s, "reference", t_end=4.0, h=1e-3, method="DOP853", rtol=1e-11, atol=1e-12)
    x = res.q[:, s.coordinate_names.index("rod.x")]
    crossings = res.t[1:][(x[:-1] > 0) & (x[1:] <= 0)]
    T = np.diff(crossings).mean()
    I_pivot = 1.5 * L ** 2 / 3
    T0 = 2 * np.pi * np.sqrt(I_pivot / (1.5 * 9.81 * L / 2))
    assert T == pytest.approx(T0 * (1 + theta0 ** 2 / 16), rel=2e-4)


def pendulum_pair(coords) -> Model:
    """A double pendulum whose body frames have z along the hinge axis (y), so zxz angles stay
    at θ = π/2, far from their singularity."""
    m = Model(name=f"dp-{coords}", gravity=(0, 0, -9.81), orientation_coordinates=coords)
    tilt = 0.7
    d = np.array([np.cos(tilt), 0, -np.sin(tilt)])
    m.add_marker("ground", "pin", (0, 0, 0), orientation=Y)
    for k, name in enumerate(("a", "b")):
        c = (k + 0.5) * d
        m.add_body(name, 1.0 + k, inertia=[0.01, 0.1, 0.1], position=tuple(c),
                   orientation={"z_axis": (0, 1, 0), "x_axis": tuple(d)},
                   markers={"top": [-0.5, 0, 0], "tip": [0.5, 0, 0]})
    m.add_joint("j1", "revolute", "ground.pin", "a.top")
    m.add_joint("j2", "revolute", "a.tip", "b.top")
    return m


def test_euler_parameters_and_euler_angles_give_the_same_motion():
    outs = {}
    for coords in ("euler-parameters", "euler-angles-zxz"):
        s = compile_model(pendulum_pair(coords))
        res = simulate(s, "reference", t_end=1.0, h=0.01, method="DOP853", rtol=1e-11, atol=1e-12)
        outs[coords] = np.column_stack([res.outputs[f"{b}.{c}"] for b in "ab" for c in "xyz"])
    np.testing.assert_allclose(outs["euler-parameters"], outs["euler-angles-zxz"], atol=1e-8)
    assert np.ptp(outs["euler-parameters"][:, 2]) > 0.1  # it really swung


def test_joint_reactions_hold_a_hanging_body():
    m = Model(name="hang", gravity=(0, 0, -9.81))
    m.add_body("bob", 3.0, inertia=[0.1, 0.1, 0.1], position=(0, 0, -1.0), markers={"top": [0, 0, 1.0]})
    m.add_marker("ground", "pin", (0, 0, 0))
    m.add_joint("pin", "spherical", "ground.pin", "bob.top")
    s = compile_model(m)
    st = s.initial_state()
    ws = s.workspace()
    from rtmbs.protocol import EVAL_ALL

    s.evaluate(0.0, st.q, st.qd, ws, EVAL_ALL)
    n, mm = s.n, s.m
    K = np.block([[ws.M, ws.phiq.T], [ws.phiq, np.zeros((mm, mm))]])
    sol = np.linalg.solve(K, np.concatenate([ws.Q, ws.gamma]))
    assert np.abs(sol[:n]).max() < 1e-12  # at rest
    R = s.joint_reactions(st.q, st.qd, 0.0, sol[n:])["pin"]
    np.testing.assert_allclose(R, [0, 0, 3.0 * 9.81, 0, 0, 0], atol=1e-10)


def test_reference_with_the_model_jacobian_matches_finite_differences():
    s = load_model("slider-crank")
    a = simulate(s, "reference", t_end=0.3, h=0.01, rtol=1e-9, atol=1e-11, jacobian="model")
    b = simulate(s, "reference", t_end=0.3, h=0.01, rtol=1e-9, atol=1e-11, jacobian="fd")
    np.testing.assert_allclose(a.q, b.q, atol=1e-7)  # the approximate Jacobian only steers Newton
