"""A vehicle of one axle (the scaling table's middle point): the sedan's rear axle
alone under half a chassis, on an axle rig holding its pitch (``pitch_held``). Its sizes by
counting, its static equilibrium (the two tyres carry the whole weight: the pitch driver only
applies a moment), and the named errors of a vehicle without suspensions or with a subsystem on
the missing axle."""
from pathlib import Path

import numpy as np
import pytest
import yaml

from rtmbs.analysis.sizes import sizes
from rtmbs.assembly import static_equilibrium
from rtmbs.errors import ModelError
from rtmbs.system import compile_model
from rtmbs.vehicle.build import load_vehicle_file, vehicle_from_dict
from rtmbs.vehicle.build.vehicle import SEDAN_REAR_AXLE, held_for_statics, pitch_held


def _data() -> dict:
    return yaml.safe_load((SEDAN_REAR_AXLE / "vehicle.yaml").read_text())


def test_rear_axle_sizes_and_statics():
    model = load_vehicle_file(SEDAN_REAR_AXLE)
    names = [b.name for b in model.bodies]
    assert not any(n.startswith("f") and n[2] == "_" for n in names)   # no front corner
    assert {"rl_wheel", "rr_wheel", "rl_arb", "rr_halfshaft"} <= set(names)
    s = compile_model(pitch_held(model))
    # 21 bodies; f = 6 (chassis) − 1 (pitch held) + 2 × 2 (travel, spin of each corner)
    assert sizes(s) == {"n": 7 * 21, "m": 7 * 21 - 9, "rank": 7 * 21 - 9, "f": 9}
    held = compile_model(held_for_statics(pitch_held(model)))
    q, _ = static_equilibrium(held)
    out = np.zeros(len(s.output_names))
    s.outputs(0.0, q, np.zeros(s.n), out)
    o = list(s.output_names)
    Fz = [out[o.index(f"{c}_tyre.Fz")] for c in ("rl", "rr")]
    weight = sum(b.mass for b in model.bodies) * 9.81
    assert sum(Fz) == pytest.approx(weight, rel=1e-9)
    assert Fz[0] == pytest.approx(Fz[1], rel=1e-9)
    ch = s.body_qadr[s.body_index["chassis"]]
    assert abs(q[ch + 2] - s.initial_state().q[ch + 2]) < 0.01   # the preloads fit half a chassis


def _fails(change, message):
    data = _data()
    change(data)
    with pytest.raises(ModelError, match=message):
        vehicle_from_dict(data, SEDAN_REAR_AXLE, "axle.yaml")


def test_one_axle_errors_are_named():
    _fails(lambda d: d["subsystems"].pop("rear_suspension"),
           r"^axle.yaml: subsystems: needs front_suspension, rear_suspension or both$")
    _fails(lambda d: d["subsystems"].update(steering={"file": "../sedan/steering.yaml"}),
           r"steering.yaml: steering.axle: the vehicle has no front_suspension: the steering "
           r"cannot be on the front axle$")
    _fails(lambda d: d["subsystems"]["brakes"].update(front={"input": "b"}),
           r"^axle.yaml: subsystems.brakes.front: the vehicle has no front_suspension: the brakes "
           r"cannot be on the front axle$")
    _fails(lambda d: d["subsystems"].update(front_antiroll={"file": "../sedan/front_antiroll.yaml",
                                                            "position": [2.776, 0.0, 0.4519]}),
           r"front_antiroll.yaml: front_antiroll.axle: the vehicle has no front_suspension")
