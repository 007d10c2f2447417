"""``rtmbs info`` of a car: the vehicle section against hand calculations from the sedan's files
(data/vehicles/sedan): wheelbase and track from the hard points, the front wheel rate from the
spring rate and the lower arm's lever ratio, the ride frequency from that rate and the corner's
sprung mass (axle load from the centre of mass)."""
import json
import math
import subprocess
import sys

import numpy as np
import pytest

from rtmbs.analysis.statics import vehicle_info
from rtmbs.vehicle.build import sedan_model


FRONT_UNSPRUNG = 23.2 + 9.0 + 0.5 * (1.032 + 1.611 + 1.5 + 1.5 + 4.0)   # kg


@pytest.fixture(scope="module")
def info():
    return vehicle_info(sedan_model())


def test_geometry_from_the_vehicle_files(info):
    assert info["wheelbase_m"] == pytest.approx(2.776, abs=1e-9)  # front_suspension at x 2.776, rear at 0
    assert info["axles"]["front"]["track_m"] == pytest.approx(2 * 0.7979, abs=1e-9)
    assert info["mass_kg"] == pytest.approx(sum(b.mass for b in sedan_model().bodies))


def test_front_unsprung_mass_by_hand(info):
    # wheel 23.2 + upright 9.0 in full; upper arm 1.032, lower arm 1.611, bar half 1.5 and the
    # half shaft (outshaft 1.5, halfshaft 4.0) half
    assert info["unsprung_mass_kg"]["fl"] == pytest.approx(FRONT_UNSPRUNG)


def _front_wheel_rate_by_hand():
    """k_s (lever ratio · cos of the spring's inclination)²: the lower arm pivots about the
    line of its two chassis points; the spring sits 0.175 m, the wheel 0.325 m out from it."""
    pivot_y = 0.5 * (0.420 + 0.470)
    mr = (0.620 - pivot_y) / (0.770 - pivot_y)
    d = np.subtract([-0.040, 0.520, 0.230], [0.000, 0.620, -0.270])
    return 93000.0 * (mr * d[2] / np.linalg.norm(d)) ** 2


def test_front_wheel_rate_from_spring_rate_and_motion_ratio(info):
    # the hand calculation leaves out the upper arm's effect on the wheel's path: 1.2 % here
    assert info["axles"]["front"]["wheel_rate_N_per_m"] == pytest.approx(_front_wheel_rate_by_hand(), rel=0.03)


def test_front_ride_frequency_by_hand(info):
    m = sedan_model()
    mass = np.array([b.mass for b in m.bodies])
    x_cm = float(mass @ np.array([b.position[0] for b in m.bodies]) / mass.sum())
    front_mass = mass.sum() * x_cm / 2.776  # rear axle at x = 0
    ms = 0.5 * front_mass - FRONT_UNSPRUNG
    f = math.sqrt(_front_wheel_rate_by_hand() / ms) / (2 * math.pi)
    assert info["axles"]["front"]["ride_frequency_Hz"] == pytest.approx(f, rel=0.03)
    assert 1.0 < info["axles"]["front"]["ride_frequency_Hz"] < 1.6  # passenger cars


def test_info_cli_has_a_vehicle_section_with_units():
    r = subprocess.run([sys.executable, "-m", "rtmbs.cli", "info", "sedan"], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    assert "| wheelbase | 2.776 m |" in r.stdout
    assert "ride frequency [Hz]" in r.stdout
    r = subprocess.run([sys.executable, "-m", "rtmbs.cli", "info", "sedan", "--json"],
                       capture_output=True, text=True)
    v = json.loads(r.stdout)["vehicle"]
    assert v["steering_ratio"] == pytest.approx(18.0, abs=0.5)  # docs/models/sedan.md: 18.0


def test_front_roll_centre_by_the_instant_centre_construction(info):
    """Front view at x = 0 (front_suspension frame; road at z = -0.4482): the upper arm's pivot
    axis crosses it at (0.4433, 0.1017), its ball joint at (0.695, 0.105); the lower arm's at
    (0.445, -0.2675) and (0.770, -0.320). The two arm lines meet at the instant centre
    (-1.667, 0.0737); the line from the contact point (0.7979, -0.4482) through it crosses the
    centre line 0.169 m above the road."""
    def at_x0(a, b):
        a, b = np.asarray(a), np.asarray(b)
        lam = -a[0] / (b[0] - a[0])
        return (a + lam * (b - a))[1:]

    up_in = at_x0([-0.100, 0.470, 0.105], [-0.250, 0.510, 0.110])
    lo_in = at_x0([0.200, 0.420, -0.270], [-0.200, 0.470, -0.265])
    up_out, lo_out = np.array([0.695, 0.105]), np.array([0.770, -0.320])
    # intersection of the two arm lines (y, z)
    A = np.column_stack([up_out - up_in, -(lo_out - lo_in)])
    u = np.linalg.solve(A, lo_in - up_in)[0]
    ic = up_in + u * (up_out - up_in)
    contact = np.array([0.7979, -0.4482])
    rch = contact[1] + (ic[1] - contact[1]) / (ic[0] - contact[0]) * (0.0 - contact[0]) + 0.4482
    assert rch == pytest.approx(0.169, abs=1e-3)
    assert info["axles"]["front"]["roll_centre_height_m"] == pytest.approx(rch, rel=0.02)
