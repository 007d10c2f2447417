"""The tyre force element on a wheel carried by a body that may only translate."""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.assembly import static_equilibrium
from rtmbs.model import Model
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model

R0 = 0.3943          # UNLOADED_RADIUS of the shipped MF 6.1 file
KZ = 314931.2969     # its VERTICAL_STIFFNESS
Y = {"z_axis": [0, 1, 0]}


def wheel(v=10.0, drive=None, road=None, height=R0 - 0.012) -> Model:
    m = Model(name="wheel", gravity=(0, 0, -9.81))
    m.add_body("carrier", 380.0, inertia=[10, 10, 10], position=(0, 0, height), velocity=(v, 0, 0),
               markers={"hub": {"orientation": Y}})
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, height), velocity=(v, 0, 0),
               angular_velocity=(0, v / (height + 0.004), 0), markers={"hub": {"orientation": Y}})
    m.add_joint("lock", "orientation-lock", "ground.cm", "carrier.cm")
    m.add_joint("axle", "revolute", "carrier.hub", "rim.hub")
    m.add_force("tyre", "tyre", marker_i="carrier.hub", marker_j="rim.hub", tyre="MF61",
                road=road or {"type": "flat"})
    if drive is not None:
        m.add_force("drive", "joint-torque", marker_i="carrier.hub", marker_j="rim.hub", function=drive)
    return m


@pytest.fixture(scope="module")
def system():
    return compile_model(wheel())


def _fd(system, q, qd, col, velocity):
    e = 1e-6
    d = np.zeros(system.n)
    d[col] = e
    if velocity:
        return (system.forces(q, qd + d) - system.forces(q, qd - d)) / (2 * e)
    return (system.forces(q + d, qd) - system.forces(q - d, qd)) / (2 * e)


def test_stiff_jacobians_of_the_radial_force_and_the_spin(system):
    st = system.initial_state()
    Jq, Jqd = system.force_jacobians(st.q, st.qd, stiff_only=True)
    rim = system.body_qadr[system.body_index["rim"]]
    z, x = rim + 2, rim
    # radial force: ∂Fz/∂z = −k (flat road, no camber) and ∂Fz/∂ż = −c
    assert Jq[z, z] == pytest.approx(-KZ, rel=1e-9)
    assert Jqd[z, z] == pytest.approx(-500.0, rel=1e-9)
    np.testing.assert_allclose(Jq[z, z], _fd(system, st.q, st.qd, z, False)[z], rtol=1e-6)
    # longitudinal force through the load (incl. the rolling radius) and through the slip velocities
    np.testing.assert_allclose(Jq[x, z], _fd(system, st.q, st.qd, z, False)[x], rtol=2e-3)
    np.testing.assert_allclose(Jqd[x, x], _fd(system, st.q, st.qd, x, True)[x], rtol=2e-3)
    for col in range(rim + 3, rim + 7):  # Euler-parameter rates of the rim: the spin
        np.testing.assert_allclose(Jqd[x, col], _fd(system, st.q, st.qd, col, True)[x], rtol=2e-3,
                                   atol=1e-3 * np.abs(Jqd[x]).max())


def test_static_load_and_deflection(system):
    q, lam = static_equilibrium(system)
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, q, np.zeros(system.n), out)
    names = list(system.output_names)
    Fz = out[names.index("tyre.Fz")]
    assert Fz == pytest.approx(400.0 * 9.81, rel=1e-6)
    assert out[names.index("tyre.rho")] == pytest.approx(Fz / KZ, rel=1e-6)


def test_drive_torque_pushes_the_wheel_forward():
    free = simulate(compile_model(wheel()), "li-euler", t_end=0.5, h=1e-3)
    driven = simulate(compile_model(wheel(drive=300.0)), "li-euler", t_end=0.5, h=1e-3)
    assert driven.outputs["tyre.Fx"][-1] > 500.0          # ≈ T / r_loaded − rolling resistance
    assert driven.qd[-1, 0] > free.qd[-1, 0] + 0.2        # the carrier accelerates forward
    assert driven.outputs["tyre.kappa"][-1] > 0.0


def test_square_bump_lifts_the_wheel_before_its_centre_is_over_it():
    road = {"type": "square-bump", "height": 0.02, "length": 2.0, "start": 3.0}
    res = simulate(compile_model(wheel(road=road)), "li-euler", t_end=0.5, h=1e-3)
    x = res.q[:, 0]
    rho = res.outputs["tyre.rho"]
    lf = 0.3 * R0  # the front follower reaches the bump lf before the wheel centre
    before = (x > 3.0 - lf - 0.3) & (x < 3.0 - lf - 0.02)
    early = (x > 3.0 - lf + 0.005) & (x < 3.0 - lf + 0.02)
    assert before.any() and early.any()
    # the 2-point follower sees half the bump height at once (effective road height +1 cm)
    assert np.min(rho[early]) > np.max(rho[before]) + 0.007
    z_rim = res.outputs["rim.z"]
    z_flat = simulate(compile_model(wheel()), "li-euler", t_end=0.5, h=1e-3).outputs["rim.z"]
    over = (x > 3.0 - lf + 0.02) & (x < 3.0)
    assert np.all(np.diff(z_rim[over] - z_flat[over]) > 0)  # and the wheel starts to climb
