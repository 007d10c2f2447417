"""Compliance in the vehicle templates: the steering column's torsion bar and the rack housing's
mounts (steering), bump/rebound stops and tabulated dampers (suspensions); named errors for bad
values (exact messages)."""

import numpy as np
import pytest
import yaml
from _models.vehicle_files import assert_load_fails, edit_yaml as _edit

from rtmbs.analysis.kc import steering_ratio_on_centre
from rtmbs.vehicle.build import load_vehicle_file


_fails = assert_load_fails


def test_compliant_steering_keeps_the_kinematic_steering_ratio(car):
    """The K&C rig measures kinematics: with no load, the torsion bar and the rack mounts do not
    deflect, so the on-centre ratio is that of the rigid steering (18.02)."""
    compliant = load_vehicle_file(car / "vehicle.yaml")
    names = {b.name for b in compliant.bodies}
    assert {"handwheel", "rack_housing"} <= names
    _edit(car / "steering.yaml", lambda d: (d.pop("column"), d.pop("rack_mount")))
    rigid = load_vehicle_file(car / "vehicle.yaml")
    assert not {"handwheel", "rack_housing"} & {b.name for b in rigid.bodies}
    assert steering_ratio_on_centre(compliant) == pytest.approx(steering_ratio_on_centre(rigid),
                                                                rel=1e-6)
    assert steering_ratio_on_centre(rigid) == pytest.approx(18.02, abs=0.01)


def test_stops_sit_at_the_clearances_from_the_design_length_and_a_table_damper(car):
    data = yaml.safe_load((car / "front_suspension.yaml").read_text())
    hp = data["hard_points"]
    length = np.linalg.norm(np.subtract(hp["spring_chassis"], hp["spring_arm"]))  # by hand
    table = {"velocity": [-1.0, -0.1, 0.0, 0.1, 1.0], "force": [-1500.0, -400.0, 0.0, 900.0, 3500.0]}
    _edit(car / "front_suspension.yaml", lambda d: d.__setitem__("damper", {"table": table}))
    m = load_vehicle_file(car / "vehicle.yaml")
    stops = {f.name: f for f in m.forces if f.type == "stop"}
    assert set(stops) == {"fl_stops", "fr_stops", "rl_stops", "rr_stops"}
    assert stops["fl_stops"].min_length == pytest.approx(length - 0.035, abs=1e-9)
    assert stops["fr_stops"].max_length == pytest.approx(length + 0.045, abs=1e-9)
    assert (stops["fl_stops"].stiffness, stops["fl_stops"].exponent) == (5.0e6, 2.0)
    damper = next(f for f in m.forces if f.name == "fl_damper")
    assert damper.damping_table == table


def test_bad_compliance_values_are_named(car):
    _fails(car, "steering.yaml", lambda d: d["column"].__setitem__("stiffness", 0.0),
           "{d}/steering.yaml: steering.column.stiffness: stiffness must be > 0, got 0.0")
    _fails(car, "steering.yaml", lambda d: d["column"].__setitem__("assist_gain", -1.0),
           "{d}/steering.yaml: steering.column.assist_gain: must be >= 0, got -1.0")
    _fails(car, "front_suspension.yaml",
           lambda d: d.__setitem__("damper", {"damping": 100.0, "table": {"velocity": [0, 1],
                                                                          "force": [0, 1]}}),
           "{d}/front_suspension.yaml: front_suspension.damper: give either damping (N s/m) or "
           "table {{velocity, force}}")
    _fails(car, "front_suspension.yaml",
           lambda d: d.__setitem__("damper", {"table": {"velocity": [-1, 0, 1],
                                                        "force": [100, 0, 200]}}),
           "{d}/front_suspension.yaml: front_suspension.damper.table: force must not decrease "
           "with velocity (a damper dissipates)")
    _fails(car, "rear_suspension.yaml", lambda d: d["stops"].__setitem__("bump_clearance", 0.9),
           "{d}/rear_suspension.yaml: rear_suspension.stops.bump_clearance: 0.9 m is not less "
           "than the spring's design length 0.5324 m")
