"""``rtmbs event``: bad input named in one line, and the events without a hand calculation of
their own checked against what the standard or the physics fixes (the sedan, short runs at
h = 2 ms). The acceptance test of step steer and constant radius on a new car:
test_newcomer_events.py."""
import json
import math

import pytest

from rtmbs.cli import main


def run(capsys, *argv):
    code = main(["event", *argv, "--no-progress"])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, message", [
    (("step-stear", "sedan"), "rtmbs: error: EVENT: unknown event 'step-stear' (did you mean "
     "'step-steer'? known: brake-in-turn, constant-radius, lane-change, sine-dwell, step-steer)"),
    (("step-steer", "sedan", "--speed", "-5"), "rtmbs: error: --speed: -5 is outside [1, 250]"),
    (("step-steer", "sedan", "--speed", "nan"), "rtmbs: error: --speed: nan is outside [1, 250]"),
    (("constant-radius", "sedan", "--speed", "60", "--speed-end", "40"),
     "rtmbs: error: --speed-end: 40 km/h is below the start speed 60 km/h"),
    (("constant-radius", "sedan", "--speed", "30", "--speed-end", "33"),
     "rtmbs: error: --speed-end: the circle's lateral acceleration 1.74-2.10 m/s² leaves no range "
     "of 0.5 m/s² inside 1-4 m/s² for the understeer gradient; raise --speed-end or lower --speed"),
    (("step-steer", "no_such_car"), "rtmbs: error: CAR: 'no_such_car' is neither a built-in car "
     "(sedan, sedan-bushings) nor a vehicle file or folder (looked for "),
])
def test_bad_input_is_one_line_naming_the_option(capsys, tmp_path, argv, message):
    code, out, err = run(capsys, *argv, "--out", str(tmp_path / "o"))
    assert code == 1
    assert err.startswith(message) and err.count("\n") == 1, err


def test_help_has_an_example_and_says_kmh(capsys):
    with pytest.raises(SystemExit):
        main(["event", "--help"])
    text = capsys.readouterr().out
    assert "rtmbs event step-steer sedan --speed 80" in text
    assert "Speeds are in km/h" in text


def test_lane_change_uses_the_cars_width_and_clears_the_cones(capsys, tmp_path):
    """ISO 3888-1 at 60 km/h: lanes for the sedan's own width (1.600 m track + 0.245 m tyre:
    section 1 is 1.1 b + 0.25 m wide) and every clearance positive."""
    code, out, _ = run(capsys, "lane-change", "sedan", "--speed", "60", "--h", "2e-3",
                       "--out", str(tmp_path), "--json")
    assert code == 0
    s = json.loads(out)
    assert s["settings"]["width_m"] == pytest.approx(1.845, abs=1e-9)
    assert s["metrics"]["pass"] is True and s["metrics"]["clearance_min_m"] > 0.0
    md = (tmp_path / "event.md").read_text()
    assert "| clearance section 1 |" in md and "| width | 1.845 | m |" in md
    course = json.loads((tmp_path / "course.json").read_text())  # the cones, for rtmbs view
    # gated sections 1, 3, 5, 6 (15, 25, 15, 15 m), cones 5 m apart from end to end, two lines
    assert [ln["section"] for ln in course["lanes"]] == [1, 3, 5, 6]
    assert len(course["cones"]) == 2 * (4 + 6 + 4 + 4)


def test_brake_in_turn_decelerates_as_demanded(capsys, tmp_path):
    """ISO 7975 on a 100 m circle at 80 km/h (a_y ≈ v²/R = 4.9 m/s²): brake torques of m·a·r
    for 3 m/s² give a mean deceleration within 20 % of it over the first second (rolling
    resistance adds, load transfer and the brake ramp of 0.2 s take away); braking in the
    turn makes the car turn in or run wide by less than a metre in that second. Without
    --no-progress a bar of simulated seconds shows on stderr."""
    code = main(["event", "brake-in-turn", "sedan", "--speed", "80", "--decel", "3", "--h",
                 "2e-3", "--out", str(tmp_path)])
    out, err = capsys.readouterr()
    assert code == 0
    assert "brake-in-turn sedan: 0.0/5.5 s simulated" in err     # the progress bar
    assert out.startswith("ISO 7975 braking in a turn, sedan at 80 km/h: deceleration mean ")
    m = json.loads((tmp_path / "summary.json").read_text())["metrics"]
    assert m["speed_at_brake_kmh"] == pytest.approx(80.0, abs=1.0)
    assert m["ay_at_brake_m_s2"] == pytest.approx((80 / 3.6) ** 2 / 100.0, rel=0.05)
    assert m["deceleration_mean_m_s2"] == pytest.approx(3.0, rel=0.2)
    assert abs(m["path_deviation_m"]) < 1.0
    assert math.isfinite(m["yaw_rate_ratio"]) and math.isfinite(m["sideslip_change_deg"])


def _handwheel_angle(path):
    """Rotation (rad) of the handwheel relative to the chassis at t = 0, from their Euler
    parameters: q_rel = conj(q_chassis) q_pinion, angle 2 atan2(|v|, w), signed by v_x (the
    column axis is −x: a left turn is a negative rotation about +x)."""
    import csv

    import numpy as np

    rows = list(csv.reader(open(path / "result.csv")))
    head, first = rows[0], [float(x) for x in rows[2]]

    def quat(body):
        return np.array([first[head.index(f"q:{body}.e{i}")] for i in range(4)])

    (a0, *av), (b0, *bv) = quat("chassis"), quat("handwheel")
    av, bv = np.array(av), np.array(bv)
    w = a0 * b0 + av @ bv
    v = a0 * bv - b0 * av - np.cross(av, bv)
    return -np.sign(v[0]) * 2.0 * np.arctan2(np.linalg.norm(v), w)


def test_run_drives_a_vehicle_input_channel_from_the_command_line(capsys, tmp_path):
    """``rtmbs run sedan --input handwheel_angle=0.2``: the car is assembled with the handwheel
    at 0.2 rad (turned 0.2 rad in the chassis: the driver holds it exactly; the pinion follows
    through the column's torsion bar); a CSV of t and the channel drives it the same way;
    without --input the handwheel stays at 0."""
    code = main(["run", "sedan", "--t-end", "0.002", "--format", "h5,csv", "--input", "handwheel_angle=0.2",
                 "--out", str(tmp_path / "a"), "--no-progress"])
    assert code == 0
    (tmp_path / "hw.csv").write_text("t,handwheel_angle\n0,0.2\n1,0.2\n")
    code = main(["run", "sedan", "--t-end", "0.002", "--format", "h5,csv", "--input",
                 f"handwheel_angle={tmp_path / 'hw.csv'}", "--out", str(tmp_path / "b"),
                 "--no-progress"])
    assert code == 0
    code = main(["run", "sedan", "--t-end", "0.002", "--format", "h5,csv", "--out", str(tmp_path / "c"),
                 "--no-progress"])
    assert code == 0
    capsys.readouterr()
    assert _handwheel_angle(tmp_path / "a") == pytest.approx(0.2, abs=1e-6)
    assert _handwheel_angle(tmp_path / "b") == pytest.approx(0.2, abs=1e-6)
    assert _handwheel_angle(tmp_path / "c") == pytest.approx(0.0, abs=1e-9)


@pytest.mark.parametrize("spec, message", [
    ("handwheel=0.1", "rtmbs: error: --input handwheel=0.1: 'handwheel' is not an input channel "
     "of the model (did you mean 'handwheel_angle'? known: brake_torque_front, "
     "brake_torque_rear, drive_torque, handwheel_angle)"),
    ("handwheel_angle", "rtmbs: error: --input handwheel_angle: expected NAME=VALUE or "
     "NAME=FILE.csv (e.g. handwheel_angle=0.1)"),
    ("drive_torque=nope.csv", "rtmbs: error: --input drive_torque=nope.csv: 'nope.csv' is "
     "neither a number nor a CSV file (looked for "),
])
def test_run_input_errors_name_the_option(capsys, spec, message):
    code = main(["run", "sedan", "--t-end", "0.002", "--input", spec, "--no-progress"])
    err = capsys.readouterr().err.splitlines()[-1]
    assert code == 1 and err.startswith(message), err
