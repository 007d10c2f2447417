"""Design checks when a vehicle file is loaded: each bad input gives one ModelError naming the
file, the key and the cause (the exact messages)."""
import pytest

from rtmbs.errors import ModelError
from rtmbs.vehicle.build import load_vehicle_file
from rtmbs.vehicle.build.vehicle import SEDAN


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new))


def _error(car) -> str:
    with pytest.raises(ModelError) as exc:
        load_vehicle_file(car)
    return str(exc.value)


FRONT, VEHICLE = "front_suspension.yaml", "vehicle.yaml"


@pytest.mark.parametrize("edited, old, new, named, message", [
    (FRONT, "wheel_centre: [0.000, 0.7979, -0.1199]", "wheel_centre: [0.000, 797.9, -119.9]", FRONT,
     "front_suspension.hard_points.wheel_centre: [0.0, 797.9, -119.9] is more than 10 m from the "
     "origin: looks like millimetres (hard points are in metres)"),
    (VEHICLE, "front_suspension: {file: front_suspension.yaml, position: [2.776, 0.0, 0.4482]}",
     "front_suspension: {file: front_suspension.yaml, position: [2776, 0.0, 448.2]}", FRONT,
     "front_suspension.position: [2776.0, 0.0, 448.2] is more than 10 m from the origin: looks "
     "like millimetres (hard points are in metres)"),
    (FRONT, "lower_arm_back: [-0.200, 0.470, -0.265]", "lower_arm_back: [0.200, 0.420, -0.270]", FRONT,
     "front_suspension.hard_points.lower_arm_back: [0.2, 0.42, -0.27] coincides with "
     "lower_arm_front: a body or joint between two points needs them apart"),
    # the ball joint half way between the two pivots: on the arm's axis
    (FRONT, "upper_arm_upright: [-0.040, 0.695, 0.105]", "upper_arm_upright: [-0.175, 0.490, 0.1075]",
     FRONT, "front_suspension.hard_points.upper_arm_upright: [-0.175, 0.49, 0.1075] is 0.0 mm from "
     "the pivot axis upper_arm_front-upper_arm_back: the three points of an arm must not lie on one "
     "line"),
    (VEHICLE, "speed: 0.0", "sped: 0.0", VEHICLE,
     "sped: unknown key 'sped' (did you mean 'speed'? known: chassis, description, gravity, joints, "
     "name, road, speed, subsystems)"),
], ids=["hard-points-in-millimetres", "subsystem-position-in-millimetres",
        "identical-hard-points", "arm-on-its-pivot-axis", "misspelled-key"])
def test_bad_design_is_named_with_its_file_and_key(car, edited, old, new, named, message):
    _edit(car / edited, old, new)
    assert _error(car) == f"{car / named}: {message}"


def test_coinciding_marker_axis_points_are_named(car):
    """Points that are apart but set one marker axis through the same two points (the
    template's axes) still give a named error, not a ValidationError."""
    from rtmbs.model.description import Model
    from rtmbs.vehicle.build.corner import Side

    side = Side(Model(), "f", "left", (0.0, 0.0, 0.0), "front_suspension.yaml: front_suspension")
    side.model.add_body("chassis", 1.0, inertia=[1.0, 1.0, 1.0])
    with pytest.raises(ModelError) as exc:
        side.marker("chassis", "pivot", (0.0, 0.5, 0.0), z=(0.0, 0.0, 0.0))
    assert str(exc.value) == ("front_suspension.yaml: front_suspension.hard_points: the points "
                              "that set the z axis of chassis.pivot coincide (a body or joint "
                              "needs two distinct points)")


def test_misspelled_nested_key_gets_did_you_mean(car):
    f = car / "front_suspension.yaml"
    _edit(f, "spring: {stiffness: 93000.0, preload: 7857.0}", "spring: {stifness: 93000.0, preload: 7857.0}")
    msg = _error(car)
    assert msg.startswith(f"{f}: front_suspension.spring.stifness: unknown key 'stifness' (did you "
                          "mean 'stiffness'?")


def test_road_file_resolves_against_the_vehicle_folder(car, tmp_path, monkeypatch):
    f = car / "vehicle.yaml"
    _edit(f, "road: {type: flat}", "road: {type: csv, file: road.csv}")
    monkeypatch.chdir(tmp_path)  # not the vehicle's folder
    assert _error(car) == f"{f}: road.file: road file not found: looked for {car / 'road.csv'}"
    (car / "road.csv").write_text("x,z\n0,0\n100,0\n")
    try:
        load_vehicle_file(car)
    except ModelError as exc:  # the csv reader may want more columns: not a path error any more
        assert "not found" not in str(exc)


def _warnings(car) -> list[str]:
    import warnings

    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        load_vehicle_file(car)
    return [str(w.message) for w in rec]


def test_sedan_loads_without_design_warnings():
    assert _warnings(SEDAN) == []


def test_rack_off_the_tie_rod_line_is_warned(car):
    f = car / "steering.yaml"
    _edit(f, "rack_centre: [-0.200, 0.000, -0.097]", "rack_centre: [-0.200, 0.000, -0.047]")
    assert _warnings(car) == [f"{car / 'front_suspension.yaml'}: front_suspension.hard_points."
                              "tie_rod_inner: 50 mm off the rack's axis ("
                              f"{f}: steering.hard_points.rack_centre, along y)"]


@pytest.mark.parametrize("edited, old, new, part, warning", [
    # a digit typo: the upper ball joint 0.495 m from the centre line instead of 0.695 m:
    # atan(0.275 / 0.425) = 32.9 deg (the sedan: atan(0.075 / 0.425) = 10.0 deg)
    (FRONT, "upper_arm_upright: [-0.040, 0.695, 0.105]", "upper_arm_upright: [-0.040, 0.495, 0.105]",
     ": kingpin inclination", "{d}/front_suspension.yaml: front_suspension.hard_points."
     "upper_arm_upright: kingpin inclination 32.9 deg from lower_arm_upright to upper_arm_upright "
     "(plausible 0-20 deg, top inboard)"),
    # the front suspension 0.1 m higher: wheel centre 0.428 m, PAC2002 unloaded radius 0.344 m
    (VEHICLE, "front_suspension: {file: front_suspension.yaml, position: [2.776, 0.0, 0.4482]}",
     "front_suspension: {file: front_suspension.yaml, position: [2.776, 0.0, 0.5482]}",
     "tyre (unloaded", "{d}/front_suspension.yaml: front_suspension.hard_points.wheel_centre: the "
     "fl tyre (unloaded radius 0.344 m) is 84 mm above the road at design (wheel centre 0.428 m "
     "above it)"),
    (VEHICLE, "front_antiroll: {file: front_antiroll.yaml, position: [2.776, 0.0, 0.4482]}",
     "front_antiroll: {file: front_antiroll.yaml, position: [2.776, 0.0, 0.4582]}",
     "differs from", "{d}/front_antiroll.yaml: front_antiroll.position: [2.776, 0.0, 0.4582] "
     "differs from {d}/front_suspension.yaml: front_suspension.position [2.776, 0.0, 0.4482] "
     "(subsystems of one axle are placed at its suspension's position)"),
    # a digit typo: y 0.395 instead of 0.695 puts the ball joint inboard of the pivots
    (FRONT, "upper_arm_upright: [-0.040, 0.695, 0.105]", "upper_arm_upright: [-0.040, 0.395, 0.105]",
     "the arm points inboard", "{d}/front_suspension.yaml: front_suspension.hard_points."
     "upper_arm_upright: [-0.04, 0.395, 0.105] is not outboard of upper_arm_front and "
     "upper_arm_back (y 0.47, 0.51): the arm points inboard (hard points are the left side, y to "
     "the left)"),
], ids=["implausible-kingpin-inclination", "tyre-above-the-road-at-design",
        "subsystem-of-an-axle-elsewhere", "arm-pointing-inboard"])
def test_implausible_design_is_warned(car, edited, old, new, part, warning):
    """The warning about the edit (``part`` of its text), with the file and key it names."""
    _edit(car / edited, old, new)
    assert [m for m in _warnings(car) if part in m] == [warning.format(d=car)]


def test_missing_preload_is_warned(car):
    f = car / "rear_suspension.yaml"
    _edit(f, "spring: {stiffness: 40000.0, preload: 3466.0}", "spring: {stiffness: 40000.0}")
    assert _warnings(car) == [f"{f}: rear_suspension.spring.preload: 0 N: the car will sag "
                              "under its weight from the design position (rtmbs statics CAR "
                              "--ride-height front=design,rear=design gives the preloads)"]


