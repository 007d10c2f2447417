"""The transient tyre from standstill: low-speed damping of the carcass deflections,
the Magic Formula without its own slip reduction for the transient slips, and the deflections'
stiff coupling in the velocity Jacobian (``contact.transient_slips_lowspeed``, docs/tyre.md)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.model import Model
from rtmbs.model.description import Input
from rtmbs.models.multilink import multilink_model
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model
from rtmbs.vehicle.tyre.contact import (lag_coefficients, lowspeed_weight, slip_quantities,
                                        transient_slips, transient_slips_lowspeed, transient_step)

R0 = 0.3943          # UNLOADED_RADIUS of the shipped MF 6.1 file
KZ = 314931.2969     # its VERTICAL_STIFFNESS
VXLOW = 1.0          # its VXLOW
Y = {"z_axis": [0, 1, 0]}
RHO = 400.0 * 9.81 / KZ  # static deflection under the carrier's and the rim's weight


# -- the building block ----------------------------------------------------------------------------
def test_lowspeed_slips_reduce_to_eq_4_24_above_vxlow_and_to_a_damped_spring_at_standstill():
    u, v, Vsx, Vsy, sk, sa = 0.004, -0.003, -0.3, 0.2, 0.25, 0.4
    for Vx in (1.0, 1.7, -2.5, 20.0):  # w = 0 at and above VXLOW, h = 0: eq. 4.24 exactly
        r = transient_slips_lowspeed(u, v, Vsx, Vsy, Vx, sk, sa, VXLOW, 0.0)
        assert r[:2] == pytest.approx(transient_slips(u, v, sk, sa, Vx), rel=1e-15)
    # standstill: spring u/σ plus the damper Vs/VXLOW (the steady-state MF's low-speed slip)
    k, a = transient_slips_lowspeed(u, v, Vsx, Vsy, 0.0, sk, sa, VXLOW, 0.0)[:2]
    assert k == pytest.approx(u / sk - Vsx / VXLOW, rel=1e-14)
    assert a == pytest.approx(v / sa - Vsy / VXLOW, rel=1e-14)
    assert lowspeed_weight(0.0, VXLOW) == (1.0, 0.0)
    assert lowspeed_weight(0.5, VXLOW)[0] == pytest.approx(0.5, rel=1e-14)


@pytest.mark.parametrize("Vx", [0.05, 0.4, 0.9, -0.6, 3.0])
def test_the_damping_leaves_the_steady_state_slips_unchanged(Vx):
    """With u̇ = v̇ = 0 (u = −σ Vsx/|Vx|, eq. 4.23) the damped slips equal eqs. 4.15-4.16 below
    VXLOW too: the damper acts on the deflection rate only."""
    sk, sa, Re, kappa, Vy = 0.25, 0.4, 0.3, 0.03, 0.01 * abs(Vx)
    w = Vx * (1 + kappa) / Re
    Vsx = Vx - w * Re
    u, v = -sk * Vsx / abs(Vx), -sa * Vy / abs(Vx)
    k, a = transient_slips_lowspeed(u, v, Vsx, Vy, Vx, sk, sa, VXLOW, 0.0)[:2]
    ks, as_ = slip_quantities(Vx, Vy, w, Re, 1e-3)
    assert k == pytest.approx(ks, rel=1e-12)
    assert a == pytest.approx(math.tan(as_), rel=1e-12)


def test_the_end_of_step_deflections_are_the_exact_step():
    u, v, Vsx, Vsy, sk, sa, h = 0.004, -0.003, -0.3, 0.2, 0.25, 0.4, 2e-3
    for Vx in (0.0, 0.3, 5.0, -7.0):
        ue, ve = transient_step(u, v, Vsx, Vsy, Vx, sk, sa, h)
        w = lowspeed_weight(Vx, VXLOW)[0]
        c = 1.0 - w * abs(Vx) / VXLOW
        sg = 1.0 if Vx >= 0 else -1.0
        k, a = transient_slips_lowspeed(u, v, Vsx, Vsy, Vx, sk, sa, VXLOW, h)[:2]
        assert k == pytest.approx(sg * (c * ue - w * sk / VXLOW * Vsx) / sk, rel=1e-12)
        assert a == pytest.approx((c * ve - w * sa / VXLOW * Vsy) / sa, rel=1e-12)
    e, phi, _, _ = lag_coefficients(0.0, 0.3, h)
    assert (e, phi) == (1.0, h)


def test_partials_of_the_lowspeed_slips_against_finite_differences_in_every_direction():
    rng = np.random.default_rng(7)
    names = ("Vsx", "Vx", "sigma_kappa", "Vsy", "Vx", "sigma_alpha")
    for _ in range(200):
        u, v = rng.normal(0.0, 0.01, 2)
        Vsx, Vsy = rng.normal(0.0, 0.5, 2)
        Vx = rng.choice([-1.0, 1.0]) * rng.uniform(0.02, 2.5)
        sk, sa = rng.uniform(0.1, 0.6, 2)
        h = rng.choice([0.0, 5e-4, 2e-3, 0.05])
        x0 = np.array([u, v, Vsx, Vsy, Vx, sk, sa])

        def f(x):
            return np.array(transient_slips_lowspeed(*x, VXLOW, h)[:2])

        got = transient_slips_lowspeed(*x0, VXLOW, h)
        for out, idx, col in ((0, 2, 2), (0, 3, 4), (0, 4, 5), (1, 5, 3), (1, 6, 4), (1, 7, 6)):
            e = 1e-6 * max(1.0, abs(x0[col]))
            xp, xm = x0.copy(), x0.copy()
            xp[col] += e
            xm[col] -= e
            fd = (f(xp)[out] - f(xm)[out]) / (2 * e)
            assert got[idx] == pytest.approx(fd, rel=1e-6, abs=1e-7), (names[idx - 2], x0, h)


# -- a wheel driven from standstill at constant slip ---------------------------------------------
A, KAPPA0 = 4.0, 0.02  # carrier acceleration (m/s²) and slip: V = A t, ω = (1 + κ0) V / Re


def _ramp_wheel(transient: bool, re: float):
    """Carrier (only translating) moved along x by x = ½ A t² from rest, the rim's spin
    prescribed as ½ (1 + κ0) A t²/re: constant slip κ0 from standstill, static load."""
    m = Model(name="ramp", gravity=(0, 0, -9.81))
    z0 = R0 - RHO
    m.add_marker("ground", "rail", (0, 0, z0), orientation={"z_axis": [1, 0, 0]})
    m.add_body("carrier", 380.0, inertia=[10, 10, 10], position=(0, 0, z0),
               markers={"hub": {"orientation": Y}, "c": {"orientation": {"z_axis": [1, 0, 0]}}})
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, z0),
               markers={"hub": {"orientation": Y}})
    m.add_joint("lock", "orientation-lock", "ground.cm", "carrier.cm")
    m.add_joint("push", "motion", "ground.rail", "carrier.c", dof="translation",
                function={"expr": f"{0.5 * A}*t**2"})
    m.add_joint("axle", "revolute", "carrier.hub", "rim.hub")
    m.add_joint("spin", "motion", "carrier.hub", "rim.hub", dof="rotation",
                function={"expr": f"{0.5 * (1 + KAPPA0) * A / re}*t**2"})
    m.add_force("tyre", "tyre", marker_j="rim.hub", tyre="MF61", transient=transient)
    return compile_model(m)


@pytest.fixture(scope="module")
def ramp_runs():
    h, t_end = 1e-3, 1.3
    steady_sys = _ramp_wheel(False, R0 - RHO / 3)
    steady = simulate(steady_sys, "li-euler", t_end=t_end, h=h, stabilize="projection")
    re = R0 - RHO / 3
    # the rolling radius the Magic Formula uses: slip κ0 exactly with the second model
    late = steady.t > 0.5
    k_meas = np.mean(steady.outputs["tyre.kappa"][late])
    re *= (1 + k_meas) / (1 + KAPPA0)
    steady = simulate(_ramp_wheel(False, re), "li-euler", t_end=t_end, h=h, stabilize="projection")
    trans_sys = _ramp_wheel(True, re)
    trans = simulate(trans_sys, "li-euler", t_end=t_end, h=h, stabilize="projection")
    sk = trans_sys.force_out_all[trans_sys.force_names.index("tyre"), 1 + 7 + 3]
    return steady, trans, sk


def test_ramp_wheel_runs_at_the_intended_slip(ramp_runs):
    steady, _, _ = ramp_runs
    late = steady.t > 0.3  # above VXLOW: the Magic Formula's slip is the kinematic one
    np.testing.assert_allclose(steady.outputs["tyre.kappa"][late], KAPPA0, rtol=2e-3)


def test_force_builds_up_from_standstill_to_the_steady_state_limit(ramp_runs):
    """Eq. 4.23 with Vsx = −κ0 V: u = κ0 σκ (1 − exp(−s/σκ)) over the travelled distance
    s = ½ A t², i.e. the time constant σκ/V at speed; with the low-speed damping the slip is
    κ' = ((1 − w V/VXLOW) u + w σκ κ0 V/VXLOW)/σκ. The recorded slip follows it from standstill
    and the force reaches the steady-state tyre's force at the same slip."""
    steady, trans, sk = ramp_runs
    assert 0.1 < sk < 0.5
    t = trans.t
    V, s = A * t, 0.5 * A * t * t
    w = np.where(V < VXLOW, 0.5 * (1 + np.cos(np.pi * V / VXLOW)), 0.0)
    u = KAPPA0 * sk * (1 - np.exp(-s / sk))
    kappa_exact = ((1 - w * V / VXLOW) * u + w * sk * KAPPA0 * V / VXLOW) / sk
    err = np.abs(trans.outputs["tyre.kappa"] - kappa_exact)
    assert err.max() < 0.03 * KAPPA0  # first-order (exact-exponential) update, h = 1 ms
    # at speed the lag is the first-order one of time constant σκ/V (w = 0 above VXLOW)
    fast = (V > 1.5) & (s < 4 * sk)
    assert fast.sum() > 50
    lag = 1 - trans.outputs["tyre.kappa"][fast] / KAPPA0
    np.testing.assert_allclose(lag, np.exp(-s[fast] / sk), atol=0.01)
    # the steady-state limit: the steady tyre's force at the same slip
    Fs, Ft = steady.outputs["tyre.Fx"], trans.outputs["tyre.Fx"]
    assert Fs[-1] > 500.0
    end = s > 6 * sk
    assert end.sum() > 50
    np.testing.assert_allclose(Ft[end], Fs[end], rtol=0.01)
    # no overshoot; above VXLOW a monotonic approach (below it the damper's share w κ0 V/VXLOW
    # first grows and then fades out, faster than u builds up: κ' dips, as the formula above)
    assert Ft.max() < Fs[-1] * 1.005
    assert np.all(np.diff(Ft[V > VXLOW]) > 0.0)


def test_force_jacobian_against_finite_differences_in_every_velocity_direction():
    """The velocity Jacobian the linearly implicit solvers see: the tyre forces through the
    low-speed damper and the end-of-step deflections (set_extra_step), at standstill, below and
    above VXLOW, with deflections."""
    sysm = _ramp_wheel(True, R0 - RHO / 3)
    st = sysm.initial_state()
    rim = sysm.body_qadr[sysm.body_index["rim"]]
    car = sysm.body_qadr[sysm.body_index["carrier"]]
    # the force rows, and the moment about the spin axis (the rim's Euler-parameter rows
    # projected on the spin: Q_p·½Gᵀs = τ·s); Mx and My are not differentiated by the element
    # (non-stiff), so the other moment directions are not compared
    rows = list(range(car, car + 3)) + list(range(rim, rim + 3))
    rot = slice(rim + 3, rim + 7)
    checked = 0
    for V, slip, vy, x, h in ((0.002, 0.0, 0.02, (0.003, -0.002), 1e-3), (0.4, 0.05, 0.01, (0.002, 0.001), 1e-3),
                              (3.0, -0.03, -0.05, (-0.004, 0.003), 2e-3), (0.7, 0.1, 0.0, (0.0, 0.0), 0.0)):
        q, qd = st.q.copy(), st.qd.copy()
        qd[car], qd[rim] = V, V
        qd[car + 1], qd[rim + 1] = vy, vy
        omega = (1 + slip) * max(V, 0.05) / (R0 - RHO / 3)
        e = q[rim + 3:rim + 7]  # spin about y: ṗ = ½ G(p)ᵀ ω, G = [−e1 e0 −e3 e2; ...]
        G = np.array([[-e[1], e[0], -e[3], e[2]], [-e[2], e[3], e[0], -e[1]], [-e[3], -e[2], e[1], e[0]]])
        qd[rim + 3:rim + 7] = 0.5 * G.T @ np.array([0.0, omega, 0.0])
        gs = 0.5 * G.T @ np.array([0.0, 1.0, 0.0])  # ṗ per unit spin rate (rim spin axis y)
        sysm.set_extra(np.array(x))
        sysm.set_extra_step(h)
        Jq, Jqd = sysm.force_jacobians(q, qd)
        scale = np.abs(Jqd[rows]).max()
        spin_scale = np.abs(gs @ Jqd[rot]).max()
        assert spin_scale > (1e3 if V < VXLOW else 20.0)
        assert scale > 100.0  # ≥ ≈ h Cx (the end-of-step deflection) above VXLOW
        for col in range(sysm.n):
            d = np.zeros(sysm.n)
            d[col] = 1e-6
            fd = (sysm.forces(q, qd + d) - sysm.forces(q, qd - d)) / 2e-6
            # (the Magic Formula's own Vx-dependence, the shift reduction below VXLOW, is not
            # differentiated: ∂SVx/∂Vx ≈ 100 N s/m at 0.4 m/s against ≈ 6e4 of the slip terms)
            np.testing.assert_allclose(Jqd[rows, col], fd[rows], rtol=1e-4, atol=2e-3 * scale,
                                       err_msg=f"V={V} h={h} column {col}")
            # (nor is My: its low-speed blend gives ∂My/∂Vx ≈ My π/(2 VXLOW) ≈ 25 N m s/m, its
            # load dependence ∂My/∂ż ≈ 2 N m s/m; allowed: 40 N m s/m or 2e-3 of the largest)
            tol = max(40.0, 2e-3 * spin_scale)
            assert gs @ Jqd[rot, col] == pytest.approx(gs @ fd[rot], rel=1e-4, abs=tol), \
                (V, h, col)
            checked += 1
        # the load path (rim height): the radial force and, through Fz, the relaxation lengths
        for col in (car + 2, rim + 2):
            d = np.zeros(sysm.n)
            d[col] = 1e-7
            fd = (sysm.forces(q + d, qd) - sysm.forces(q - d, qd)) / 2e-7
            for r in (rim, rim + 1, rim + 2):
                assert Jq[r, col] == pytest.approx(fd[r], rel=2e-3, abs=1e-6 * np.abs(Jq).max())
    assert checked == 4 * sysm.n
    sysm.set_extra(np.zeros(2))


# -- the manoeuvre: multilink-ideal, 300 N m from rest -----------------------------------
T_STEP, TORQUE = 0.05, 300.0


def _multilink(transient: bool):
    m = multilink_model("ideal", transient=transient)
    m.inputs = [Input(name="drive_torque", type="step", t0=T_STEP, t1=T_STEP + 0.001,
                      **{"from": 0.0, "to": TORQUE}),
                Input(name="brake_torque", type="constant", value=0.0)]
    return compile_model(m)


@pytest.fixture(scope="module")
def multilink_runs():
    steady = simulate(_multilink(False), "li-euler", t_end=0.4, h=1e-3, accelerations=False)
    sysm = _multilink(True)
    trans = {h: simulate(sysm, "li-euler", t_end=0.4, h=h, accelerations=False)
             for h in (0.5e-3, 1e-3, 2e-3)}
    return steady, trans


def test_multilink_drive_from_rest_does_not_oscillate(multilink_runs):
    """Before the low-speed slip damping, Fx swung ±5-6 kN around a 0.6-0.8 kN mean at every h. Now, after the
    build-up (0.15 s after the step), Fx stays within 5 % of its mean, the mean agrees with the
    steady-state tyre's within 5 % and between h = 0.5, 1, 2 ms within 2 %."""
    steady, trans = multilink_runs
    after = steady.t >= T_STEP + 0.15
    Fs = steady.outputs["tyre.Fx"][after].mean()
    assert 500.0 < Fs < 1000.0
    means = []
    for h, r in trans.items():
        w = r.t >= T_STEP + 0.15
        Fx = r.outputs["tyre.Fx"][w]
        mean = Fx.mean()
        assert np.abs(Fx - mean).max() < 0.05 * mean, h
        assert mean == pytest.approx(Fs, rel=0.05), h
        means.append(mean)
    assert max(means) - min(means) < 0.02 * np.mean(means)
