"""Vehicle and subsystem files: the documented one-file example (McPherson front, double
wishbone rear) and named errors for bad files (exact messages)."""
import re
from pathlib import Path

import numpy as np
import pytest
import yaml
from _models.vehicle_files import assert_load_fails

from rtmbs.analysis.sizes import sizes
from rtmbs.assembly import static_equilibrium
from rtmbs.errors import ModelError
from rtmbs.model.rotation import matrix_from_quaternion
from rtmbs.system import compile_model
from rtmbs.vehicle.build import corner_bodies, load_vehicle_file, vehicle_from_dict
from rtmbs.vehicle.build.vehicle import SEDAN, held_for_statics

DOC = Path(__file__).parents[3] / "docs" / "vehicle.md"
S = np.diag([1.0, -1.0, 1.0])


def _example() -> dict:
    text = DOC.read_text()
    section = text[text.index("## A complete vehicle in one file"):]
    return yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))


@pytest.mark.parametrize("joints", ["ideal", "bushings"])
def test_documented_example_assembles_mirrors_and_stands_on_its_tyres(joints):
    data = _example()
    if joints == "bushings":
        bush = {"stiffness": [4.0e6, 4.0e6, 1.0e6], "damping": [500.0, 500.0, 500.0],
                "rotational_stiffness": [300.0, 300.0, 50.0]}
        data["subsystems"]["front_suspension"]["bushings"] = {"arm": bush, "top_mount": bush}
        data["subsystems"]["rear_suspension"]["bushings"] = {"arm": bush}
    model = vehicle_from_dict(data, joints=joints)
    s = compile_model(model)
    # 6 (chassis) + 4 × 2 (travel, spin); bushings free each A-arm's revolute (5 per arm:
    # 1 front + 2 rear per side) and the strut's top universal (4 per side)
    f = 14 if joints == "ideal" else 14 + 2 * (3 * 5 + 4)
    assert sizes(s) == {"n": 7 * 17, "m": 7 * 17 - f, "rank": 7 * 17 - f, "f": f}
    q0 = s.initial_state().q
    for left, right in corner_bodies(model).items():
        a, b = s.body_qadr[s.body_index[left]], s.body_qadr[s.body_index[right]]
        np.testing.assert_allclose(q0[b:b + 3], S @ q0[a:a + 3], rtol=0, atol=1e-12)
        np.testing.assert_allclose(matrix_from_quaternion(q0[b + 3:b + 7]),
                                   S @ matrix_from_quaternion(q0[a + 3:a + 7]) @ S, rtol=0, atol=1e-12)
    if joints == "bushings":
        return
    held = compile_model(held_for_statics(model))
    q, lam = static_equilibrium(held)
    out = np.zeros(len(s.output_names))
    s.outputs(0.0, q, np.zeros(s.n), out)
    names = list(s.output_names)
    Fz = {c: out[names.index(f"{c}_tyre.Fz")] for c in ("fl", "fr", "rl", "rr")}
    mass = sum(b.mass for b in model.bodies)
    assert sum(Fz.values()) == pytest.approx(mass * 9.81, rel=1e-9)
    x = {b.name: q[s.body_qadr[s.body_index[b.name]]] for b in model.bodies}
    x_cm = sum(b.mass * x[b.name] for b in model.bodies) / mass
    front = mass * 9.81 * (x_cm - x["rl_wheel"]) / (x["fl_wheel"] - x["rl_wheel"])
    assert Fz["fl"] + Fz["fr"] == pytest.approx(front, rel=1e-4)
    assert Fz["fl"] == pytest.approx(Fz["fr"], rel=1e-9)
    ch = s.body_qadr[s.body_index["chassis"]]
    assert abs(q[ch + 2] - q0[ch + 2]) < 2e-3            # preloads: design ≈ equilibrium


_fails = assert_load_fails


def _rename(key, new):
    def change(data):
        data["hard_points"][new] = data["hard_points"].pop(key)
    return change


def test_a_misspelt_hard_point_names_the_subsystem_and_the_key(car):
    _fails(car, "front_suspension.yaml", _rename("lower_arm_front", "lower_arm_frnt"),
           "{d}/front_suspension.yaml: front_suspension.hard_points.lower_arm_frnt: unknown hard "
           "point 'lower_arm_frnt' for this template (did you mean 'lower_arm_front'? known: "
           "lower_arm_back, lower_arm_front, lower_arm_upright, spring_arm, spring_chassis, "
           "tie_rod_inner, tie_rod_outer, upper_arm_back, upper_arm_front, upper_arm_upright, "
           "wheel_centre)")


def test_a_missing_or_malformed_hard_point(car):
    _fails(car, "rear_suspension.yaml", lambda d: d["hard_points"].pop("control_arm_outer"),
           "{d}/rear_suspension.yaml: rear_suspension.hard_points.control_arm_outer: required "
           "hard point is missing")


def test_a_hard_point_of_two_numbers(car):
    _fails(car, "front_suspension.yaml", lambda d: d["hard_points"].__setitem__("tie_rod_outer", [1, 2]),
           "{d}/front_suspension.yaml: front_suspension.hard_points: hard point 'tie_rod_outer': "
           "expected 3 finite numbers [x, y, z] (m), got [1, 2]")


def test_an_inline_subsystem_error_names_its_place_in_the_vehicle():
    data = _example()
    data["subsystems"]["rear_suspension"]["hard_points"].pop("spring_arm")
    with pytest.raises(ModelError) as exc:
        vehicle_from_dict(data, source="car.yaml")
    assert str(exc.value) == ("car.yaml: subsystems.rear_suspension.hard_points.spring_arm: "
                              "required hard point is missing")
    data["subsystems"]["rear_suspension"]["hard_points"]["spring_arm"] = [0, 0.62, "x"]
    with pytest.raises(ModelError) as exc:
        vehicle_from_dict(data)
    assert str(exc.value) == ("subsystems.rear_suspension.hard_points: hard point 'spring_arm': "
                              "expected 3 finite numbers [x, y, z] (m), got [0, 0.62, 'x']")


def test_unknown_template_subsystem_and_file(car, tmp_path):
    _fails(car, "front_suspension.yaml", lambda d: d.__setitem__("template", "macpherson"),
           "{d}/front_suspension.yaml: front_suspension.template: Input should be "
           "'double-wishbone', 'mcpherson' or 'multilink'")
    _fails(car, "vehicle.yaml",
           lambda d: d["subsystems"].__setitem__("front_antirol", d["subsystems"].pop("front_antiroll")),
           "{d}/vehicle.yaml: subsystems.front_antirol: unknown subsystem 'front_antirol' (did "
           "you mean 'front_antiroll'? known: brakes, driveline, front_antiroll, "
           "front_suspension, rear_antiroll, rear_suspension, steering, wheels)")
    _fails(car, "vehicle.yaml", lambda d: d["subsystems"]["steering"].__setitem__("file", "steer.yaml"),
           "{d}/vehicle.yaml: subsystems.steering.file: file not found: {d}/steer.yaml")
    _fails(car, "vehicle.yaml", lambda d: d["subsystems"].pop("wheels"),
           "{d}/vehicle.yaml: subsystems.wheels: required subsystem is missing")


def test_bad_values_and_references(car):
    _fails(car, "front_suspension.yaml", lambda d: d["bodies"]["upright"].__setitem__("mass", -1),
           "{d}/front_suspension.yaml: front_suspension.bodies.upright.mass: mass must be > 0, got -1.0")
    _fails(car, "front_antiroll.yaml", lambda d: d.__setitem__("attach", "lower_armm"),
           "{d}/front_antiroll.yaml: front_antiroll.attach: unknown body 'lower_armm' of the front "
           "suspension (did you mean 'lower_arm'? known: lower_arm, upper_arm, upright, wheel)")
    _fails(car, "steering.yaml", lambda d: d.pop("ratio"),
           "{d}/steering.yaml: steering.ratio: 'pinion-angle' needs the rack travel per pinion "
           "radian (m/rad, non-zero), got None")
    _fails(car, "steering.yaml", lambda d: d.pop("pinion"),
           "{d}/steering.yaml: steering.pinion: 'pinion-angle' needs the pinion body "
           "{{mass, inertia}} (pinion and column)")
    _fails(car, "front_suspension.yaml", lambda d: d.pop("bushings"),
           "{d}/front_suspension.yaml: front_suspension.bushings.arm: required bushing is missing",
           joints="bushings")
    _fails(car, "rear_antiroll.yaml", lambda d: d.__setitem__("axle", "front"),
           "{d}/rear_antiroll.yaml: rear_antiroll.axle: the rear_antiroll bar must be on the rear "
           "axle, got 'front'")
    with pytest.raises(ModelError, match=r"^joints: unknown variant 'bushing' \(did you mean "
                                         r"'bushings'\? known: bushings, ideal\)$"):
        load_vehicle_file(SEDAN / "vehicle.yaml", joints="bushing")


def test_a_vehicle_file_loads_like_a_model_file(tmp_path, capsys):
    """`load_model` and every command taking MODEL accept a vehicle file or its folder, giving
    the same system as the vehicle reader; an ordinary model file still loads as one."""
    from rtmbs.cli import main
    from rtmbs.models import load_model
    from rtmbs.vehicle.build import is_vehicle_file

    folder = tmp_path / "car"
    folder.mkdir()
    (folder / "vehicle.yaml").write_text(yaml.safe_dump(_example()))
    direct = compile_model(vehicle_from_dict(_example()))
    for spec in (folder / "vehicle.yaml", folder):
        assert is_vehicle_file(spec)
        s = load_model(str(spec))
        assert (s.n, s.m) == (direct.n, direct.m)
        np.testing.assert_allclose(s.initial_state().q, direct.initial_state().q, atol=1e-12)
    assert main(["info", str(folder)]) == 0
    assert f"| {direct.n} | {direct.m} | {direct.m} | {direct.n - direct.m} |" in capsys.readouterr().out
    plain = Path(__file__).parents[3] / "src" / "rtmbs" / "models" / "double-pendulum.yaml"
    assert not is_vehicle_file(plain) and load_model(str(plain)).n == 14
