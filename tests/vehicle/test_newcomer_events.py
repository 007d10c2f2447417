"""Acceptance of the events from the command line (a newcomer's car): a car that is not the
sedan, built from vehicle files in a temporary folder (the sedan's files copied, then a shorter
wheelbase, a heavier body with its centre of mass further forward), run through ``rtmbs event
step-steer`` and ``rtmbs event constant-radius`` as a user runs them, and the reports' numbers
checked against hand calculations:

* understeer gradient: the slope of the road-wheel angle against a_y on the constant radius
  (ISO 4138: on a constant radius the Ackermann angle L/R does not change), straight from the
  circle's CSV, against the report's value;
* steady-state yaw-rate gain of the step steer against the single-track formula
  r/δ = v / (L + K v²) (Gillespie 1992, eq. 6-17), with L from the vehicle files and K the
  understeer gradient measured on the circle: within 10 % (the car is linear at 4 m/s² but
  K is measured at lower speed, and the step's yaw rate includes roll steer at its own a_y);
* the car started at the event's speed from the same files (no file per speed): the speed
  before the step within 0.25 km/h of the request (the sedan, built at rest and pushed to
  speed, lost 0.75 km/h in its first 40 ms)."""
import csv
import json
import math
import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import yaml

from rtmbs.vehicle.build.vehicle import SEDAN

WHEELBASE = 2.60   # m (sedan 2.776)
MASS = 1450.0      # kg chassis (sedan 1250)
CG_X = 0.56 * WHEELBASE  # 56 % of the wheelbase ahead of the rear axle: a nose-heavy car


@pytest.fixture(scope="module")
def car(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("crossover")
    for f in SEDAN.glob("*.yaml"):
        shutil.copy(f, folder / f.name)
    data = yaml.safe_load((folder / "vehicle.yaml").read_text())
    data["name"] = "crossover"
    data["chassis"]["mass"] = MASS
    data["chassis"]["centre_of_mass"] = [CG_X, 0.0, 0.60]
    for role in ("front_suspension", "steering", "front_antiroll"):
        data["subsystems"][role]["position"][0] = WHEELBASE
    (folder / "vehicle.yaml").write_text(yaml.safe_dump(data, sort_keys=False))
    return folder


def rtmbs(*args) -> dict:
    """``rtmbs ARGS --json`` in a new process, as a user runs it; its JSON summary."""
    env = {**os.environ, "MPLBACKEND": "Agg"}
    proc = subprocess.run([sys.executable, "-m", "rtmbs.cli", *args, "--json", "--no-progress"],
                          capture_output=True, text=True, env=env, timeout=1800)
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


def read_csv(path) -> tuple[dict, dict]:
    with open(path, newline="") as fh:
        rows = list(csv.reader(fh))
    names, units = rows[0], rows[1]
    data = np.array(rows[2:], float)
    return {n: data[:, i] for i, n in enumerate(names)}, dict(zip(names, units))


@pytest.fixture(scope="module")
def circle(car, tmp_path_factory):
    out = tmp_path_factory.mktemp("circle")
    s = rtmbs("event", "constant-radius", str(car), "--radius", "40", "--speed", "30",
              "--speed-end", "50", "--accel", "1", "--h", "2e-3", "--out", str(out))
    return s, out


@pytest.fixture(scope="module")
def step(car, tmp_path_factory):
    out = tmp_path_factory.mktemp("step")
    s = rtmbs("event", "step-steer", str(car), "--speed", "80", "--h", "2e-3", "--out", str(out))
    return s, out


def wheelbase_from_files(folder: Path) -> float:
    """Front minus rear wheel-centre x: subsystem position plus the wheel_centre hard point."""
    v = yaml.safe_load((folder / "vehicle.yaml").read_text())["subsystems"]

    def x(role):
        hp = yaml.safe_load((folder / v[role]["file"]).read_text())["hard_points"]
        return v[role]["position"][0] + hp["wheel_centre"][0]

    return x("front_suspension") - x("rear_suspension")


def test_the_reports_name_the_car_and_carry_units(circle, step):
    for s, out in (circle, step):
        assert s["car"] == "crossover"
        course = {"course.json"} if out == circle[1] else set()  # the circle, for rtmbs view
        assert {Path(f).name for f in s["files"]} == {"event.csv", "event.png", "event.md",
                                                      "result.h5", "result.csv", "summary.json",
                                                      *course}
        _, units = read_csv(out / "event.csv")
        assert units["speed"] == "km/h" and units["yaw_rate"] == "deg/s" and units["ay"] == "m/s^2"
        assert s["settings"]["steering_ratio_source"] == "the car's K&C rig, on centre"
    md = (circle[1] / "event.md").read_text()
    K = circle[0]["metrics"]["understeer_gradient_deg_per_g"]
    assert f"| understeer gradient | {K:.4g} | deg/g |" in md
    # the tyre file without combined-slip coefficients is named once
    tyre = [w for w in step[0]["warnings"] if "combined-slip" in w]
    assert len(tyre) == 1 and tyre[0].startswith("chrono_Sedan_Pac02Tire.tir: no combined-slip")


def test_understeer_gradient_is_the_slope_of_steer_against_ay_on_the_circle(circle):
    s, out = circle
    m = s["metrics"]
    sig, _ = read_csv(out / "event.csv")
    sel = ((sig["t"] > 3.0) & (sig["ay"] >= m["ay_fit_from_m_s2"])
           & (sig["ay"] <= m["ay_fit_to_m_s2"]))
    assert sel.sum() > 100
    slope = np.polyfit(sig["ay"][sel], sig["road_wheel"][sel], 1)[0]   # deg per m/s²
    K_hand = slope * 9.81                                               # deg/g
    assert m["understeer_gradient_deg_per_g"] == pytest.approx(K_hand, abs=0.05)
    # the handwheel gradient is the road-wheel slope times the car's steering ratio
    assert m["handwheel_gradient_deg_per_m_s2"] == pytest.approx(
        slope * s["settings"]["steering_ratio"], rel=1e-6)


def test_step_steer_yaw_rate_gain_matches_the_single_track_formula(car, circle, step):
    s, out = step
    m = s["metrics"]
    L = wheelbase_from_files(car)
    assert L == pytest.approx(WHEELBASE, abs=1e-9) and m["wheelbase_m"] == pytest.approx(L, abs=1e-6)
    K = circle[0]["metrics"]["understeer_gradient_rad_per_m_s2"]
    v = m["speed_kmh"] / 3.6
    gain_hand = v / (L + K * v * v)                                     # 1/s
    assert m["yaw_rate_gain_road_wheel_1_s"] == pytest.approx(gain_hand, rel=0.10)
    # ISO 7401: a response time of a passenger car, and the steer set for 4 m/s²
    assert 0.05 < m["response_time_s"] < 0.4
    assert m["ay_ss_m_s2"] == pytest.approx(4.0, rel=0.15)


def test_the_car_starts_at_the_events_speed_from_its_own_file(car, step):
    sig, _ = read_csv(step[1] / "event.csv")
    before = sig["t"] < 0.5
    assert np.abs(sig["speed"][before] - 80.0).max() < 0.25   # rolling resistance, PI lag
    assert yaml.safe_load((car / "vehicle.yaml").read_text())["speed"] == 0.0


def test_axle_loads_of_the_report_balance_the_weight_about_the_axles(car, step):
    """Static axle loads by hand: the weight of every body (vehicle files, as built) taken
    about the rear and front wheel centres, F_front = g Σ m_i (x_i − x_rear) / L; the report's
    loads come from the static equilibrium on four tyres (the car settles and pitches a
    little, the contact points sit under the wheel centres within a few mm): within 0.5 %."""
    import warnings

    from rtmbs.vehicle.build.vehicle import load_vehicle_file

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = load_vehicle_file(car)
    x_r = model.body("rl_wheel").position[0]
    L = model.body("fl_wheel").position[0] - x_r
    g = 9.81
    W = g * sum(b.mass for b in model.bodies)
    front = g * sum(b.mass * (b.position[0] - x_r) for b in model.bodies) / L
    m = step[0]["metrics"]
    assert m["front_axle_load_N"] == pytest.approx(front, rel=5e-3)
    assert m["rear_axle_load_N"] == pytest.approx(W - front, rel=5e-3)
    assert m["front_axle_load_N"] / W > 0.53   # the nose-heavy car of the fixture
