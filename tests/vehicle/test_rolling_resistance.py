"""Rolling resistance of the sedan's tyres (QSY1, our addition to Chrono's PAC2002 file): the
built-in sedan coasting on a flat road decelerates at about QSY1·g.

By hand: each tyre's moment My = −R0 Fz QSY1 (MF 5.2, QSY2-4 = 0) brakes its wheel; with the
wheel rolling at radius r (the wheel-centre height on flat ground) the contact force that
balances it is R0 Fz QSY1 / r, so the car decelerates at a = Σ R0 Fz_i QSY1 / r_i / m_eff,
m_eff = m + Σ J_spin / r_i² (the wheels' spin slows with the car)."""
import numpy as np
import pytest
import yaml

from rtmbs.manoeuvres.driver import Driver, drive
from rtmbs.manoeuvres.events import sedan_system
from rtmbs.vehicle.build.vehicle import SEDAN
from rtmbs.vehicle.tyre.tir import data_path, load_tir

CORNERS = ("fl", "fr", "rl", "rr")


def test_sedan_coasts_at_the_rolling_resistance_deceleration():
    tyre = load_tir(data_path("chrono_Sedan_Pac02Tire.tir"))
    qsy1, r0 = tyre["QSY1"], tyre["UNLOADED_RADIUS"]
    assert qsy1 == 0.01
    j_spin = yaml.safe_load((SEDAN / "wheels.yaml").read_text())["spin_inertia"]
    system, model = sedan_system(20.0)
    res = drive(system, Driver(system), t_end=3.0, h=1e-3, save_every=10)  # no drive, no brake
    t, v = res.t, res.signal("chassis.speed")
    k = t >= 1.0                              # after the car has settled on its tyres
    a = -np.polyfit(t[k], v[k], 1)[0]
    fz = np.array([res.signal(f"{c}_tyre.Fz")[k].mean() for c in CORNERS])
    r = np.array([res.signal(f"{c}_wheel.z")[k].mean() for c in CORNERS])
    mass = sum(b.mass for b in model.bodies)
    assert fz.sum() == pytest.approx(mass * 9.81, rel=1e-3)  # flat road: the tyres carry the weight
    by_hand = np.sum(r0 * fz * qsy1 / r) / (mass + np.sum(j_spin / r ** 2))
    assert a == pytest.approx(by_hand, rel=0.02)   # measured 0.3 %
    assert a / 9.81 == pytest.approx(qsy1, rel=0.05)   # about QSY1·g (without: 0.0005 g)
    assert v[-1] > 19.0 and np.all(np.diff(v[k]) < 0)
