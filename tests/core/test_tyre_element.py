"""The tyre force element on a wheel carried by a body that may only translate."""
from __future__ import annotations

import numpy as np
import pytest

from _models.bodies import R0, Y, wheel
from rtmbs.assembly import static_equilibrium
from rtmbs.model import Model
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model

KZ = 314931.2969     # VERTICAL_STIFFNESS of the shipped MF 6.1 file


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


def _spinning_wheel(transient, slip=0.02, V=10.0):
    """A heavy carrier (its weight mostly carried by an upward force, so the tyre load stays
    ≈ 4 kN) rolling at V with the rim's spin prescribed: the slip stays nearly constant."""
    m = Model(name="spin", gravity=(0, 0, -9.81))
    heavy = 40000.0
    z0 = R0 - 0.012
    omega = (1.0 + slip) * V / (R0 - 0.012 / 3)
    m.add_body("carrier", heavy, inertia=[1e3, 1e3, 1e3], position=(0, 0, z0), velocity=(V, 0, 0),
               markers={"hub": {"orientation": Y}})
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, z0), velocity=(V, 0, 0),
               angular_velocity=(0, omega, 0), markers={"hub": {"orientation": Y}})
    m.add_joint("lock", "orientation-lock", "ground.cm", "carrier.cm")
    m.add_joint("axle", "revolute", "carrier.hub", "rim.hub")
    m.add_joint("spin", "motion", "carrier.hub", "rim.hub", dof="rotation",
                function={"type": "ramp", "t0": 0.0, "slope": omega})
    m.add_force("lift", "force", marker_j="carrier.cm", direction=(0, 0, 1),
                function=(heavy - 380.0) * 9.81)
    m.add_force("tyre", "tyre", marker_j="rim.hub", tyre="MF61", transient=transient)
    return compile_model(m)


def test_transient_tyre_lags_the_slip_by_its_relaxation_length():
    """At (nearly) constant slip the steady-state tyre pushes at once; the transient one builds
    its force as a first-order lag of time constant σκ/V (Carpinelli 2015 eqs. 4.22-4.24)."""
    h, V = 1e-3, 10.0
    steady = simulate(_spinning_wheel(False), "li-euler", t_end=0.15, h=h, stabilize="projection")
    sysm = _spinning_wheel(True)
    assert sysm.nx == 2 and sysm.initial_state().x.shape == (2,)
    trans = simulate(sysm, "li-euler", t_end=0.15, h=h, stabilize="projection")
    sigma = sysm.force_out_all[sysm.force_names.index("tyre"), 1 + 7 + 3]  # sigma_kappa
    i_tau = int(round(sigma / V / h))
    assert 5 <= i_tau <= 60
    Fs, Ft = steady.outputs["tyre.Fx"], trans.outputs["tyre.Fx"]
    assert Fs[1] > 500.0 and np.ptp(Fs[1:]) < 0.05 * Fs[1]  # steady: the full force at once
    F0 = Ft[0]                                               # transient: zero deflection, κ' = 0
    assert abs(F0) < 0.1 * Fs[1]                             # (only the shift S_Hx: rolling resistance)
    lag = (Ft - F0) / (Fs - F0)
    assert lag[i_tau] == pytest.approx(1 - np.exp(-1), abs=0.06)
    assert lag[3 * i_tau] == pytest.approx(1 - np.exp(-3), abs=0.03)
    # the reference solver integrates the same extra states
    ref = simulate(sysm, "reference", t_end=0.05, h=h, method="DOP853", rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(ref.outputs["tyre.Fx"][10:50:10], Ft[10:50:10], rtol=0.05)


def test_results_keep_the_extra_states(tmp_path):
    from rtmbs.result import Result

    sysm = _spinning_wheel(True)
    res = simulate(sysm, "li-euler", t_end=0.02, h=1e-3, stabilize="projection")
    assert res.x.shape == (21, 2) and res.x[0, 0] == 0.0 and abs(res.x[-1, 0]) > 0
    back = Result.load_hdf5(res.save_hdf5(tmp_path / "r.h5"))
    np.testing.assert_array_equal(back.x, res.x)
    assert "x0" in (res.save_csv(tmp_path / "r.csv")).read_text().splitlines()[0].split(",")
