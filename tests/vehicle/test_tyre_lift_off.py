"""A transient tyre that leaves the road and lands again (Carpinelli 2015 eqs. 4.22-4.24 at zero load).

Unloaded, the Magic Formula's relaxation lengths σκ, σα vanish with the load; the slips u/σ and
the deflections' rate |Vx|/σ were then 0/0 (the sedan with transient tyres failed 31 ms into a
run when its rear wheels unloaded). ``contact.SIGMA_MIN`` keeps them finite, and an unloaded
tyre (σ = 0) springs back to no deflection."""
from __future__ import annotations

import numpy as np
import pytest

from _models.bodies import wheel
from rtmbs.solvers.base import get_solver
from rtmbs.system import compile_model
from rtmbs.vehicle.tyre.contact import (SIGMA_MIN, transient_rates, transient_slips_lowspeed,
                                        transient_step)

V = 15.0


def _wheel(transient: bool):
    """A 380 kg carrier on a driven wheel at V, free to move vertically; the input ``lift``
    pushes the carrier up."""
    m = wheel(V, drive=100.0, name="hop", damping=4000.0, transient=transient)
    m.add_input("lift", "channel", value=0.0)
    m.add_force("lift", "force", marker_j="carrier.cm", direction=(0, 0, 1), function="lift")
    return compile_model(m)


@pytest.mark.parametrize("instrument", [False, True])
def test_transient_tyre_leaves_the_road_and_lands(instrument):
    """Thrown up by twice its weight for 40 ms, the wheel flies, lands and drives on: every step
    finite, no force and (after a few steps) no deflection in the air, the drive force back
    near the steady-state tyre's 0.5 s after landing. (On landing the transient tyre's carcass
    and the rim's spin inertia swing: ±4 kN for ~0.3 s, the steady-state tyre has no such mode.)"""
    h, n = 1e-3, 800
    runs = {}
    for transient in (False, True):
        s = _wheel(transient)
        slv = get_solver("li-euler")(s, stabilize="projection", instrument=instrument)
        st = s.initial_state()
        slv.reset(st)
        out = np.zeros(len(s.output_names))
        fz, fx, x = np.zeros(n), np.zeros(n), np.zeros((n, s.nx))
        for k in range(n):
            s.set_input("lift", 2 * 400 * 9.81 if 100 <= k < 140 else 0.0)
            assert slv.step_outputs(st, h, out), f"step {k + 1} failed"
            fz[k], fx[k], x[k] = out[s.output_names.index("tyre.Fz")], out[s.output_names.index("tyre.Fx")], st.x
        runs[transient] = fz, fx, x
    fz, fx, x = runs[True]
    air = np.flatnonzero(fz == 0.0)
    assert len(air) > 30 and air[0] > 100  # it flew for more than 30 ms
    assert np.all(fx[air] == 0.0)
    assert np.abs(x[air[5:]]).max() < 1e-9  # the unloaded carcass keeps no deflection (m)
    assert air[-1] < 300  # and landed
    # driving again as the steady-state tyre after the same flight (the same vertical motion)
    fz_s, fx_s, _ = runs[False]
    np.testing.assert_array_equal(fz, fz_s)
    assert np.all(fz[-200:] > 1000.0)
    assert np.mean(fx_s[-200:]) == pytest.approx(100.0 / 0.38, rel=0.1)  # drive torque / radius
    assert np.mean(fx[-200:]) == pytest.approx(np.mean(fx_s[-200:]), rel=0.3)


def test_zero_relaxation_length_gives_finite_slips_and_no_deflection():
    """σ = 0 (no load): slips and rates finite, the deflections after a step 0; below the floor
    SIGMA_MIN the step is the floor's (a first-order lag of time constant SIGMA_MIN/|Vx|)."""
    for Vx in (0.0, 12.0):
        out = transient_slips_lowspeed(0.01, -0.002, 0.3, 0.1, Vx, 0.0, 0.0, 1.0, 1e-3)
        assert np.all(np.isfinite(out))
        assert transient_step(0.01, -0.002, 0.3, 0.1, Vx, 0.0, 0.0, 1e-3) == (0.0, 0.0)
        assert np.all(np.isfinite(transient_rates(0.01, -0.002, 0.3, 0.1, Vx, 0.0, 0.0)))
    h, Vx, Vsx = 1e-5, 12.0, 0.3
    lam = Vx / SIGMA_MIN
    u, _ = transient_step(0.01, 0.0, Vsx, 0.0, Vx, 0.2 * SIGMA_MIN, 0.2 * SIGMA_MIN, h)
    expected = 0.01 * np.exp(-lam * h) - Vsx * (1 - np.exp(-lam * h)) / lam
    assert u == pytest.approx(expected, rel=1e-12)
