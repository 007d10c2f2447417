"""Model values are checked at load: finite, and in physical sense where the sign matters; the
error names the file and the key (NaN gravity, NaN stiffness, infinite velocity and a
stop with min > max surfaced only as "simulation diverged at t = 0.001 s")."""
import copy

import pytest
import yaml

from rtmbs.errors import ModelError
from rtmbs.model.files import model_from_dict
from rtmbs.models import model_file

BASE = yaml.safe_load(model_file("double-pendulum").read_text())
SPRING = {"name": "spring", "type": "spring-damper", "marker_i": "ground.pivot",
          "marker_j": "link2.top", "stiffness": 100.0, "damping": 1.0}
STOP = {"name": "stop", "type": "stop", "marker_i": "ground.pivot", "marker_j": "link2.top",
        "min_length": 0.5, "max_length": 2.0, "stiffness": 1e5}


def _with(change):
    d = copy.deepcopy(BASE)
    d["forces"] = [dict(SPRING), dict(STOP)]
    change(d)
    return d


@pytest.mark.parametrize("change,message", [
    (lambda d: d.__setitem__("gravity", [0, 0, float("nan")]),
     "dp.yaml: gravity.[2]: Input should be a finite number"),
    (lambda d: d["bodies"][1].__setitem__("velocity", [float("inf"), 0, 0]),
     "dp.yaml: bodies.link2.velocity.[0]: Input should be a finite number"),
    (lambda d: d["forces"][0].__setitem__("stiffness", float("nan")),
     "dp.yaml: forces.spring: stiffness must be finite, got nan"),
    (lambda d: d["forces"][0].__setitem__("damping", -3.0),
     "dp.yaml: forces.spring: damping must be >= 0, got -3.0"),
    (lambda d: d["forces"][1].update(min_length=2.5),
     "dp.yaml: forces.stop: min_length 2.5 is greater than max_length 2"),
])
def test_bad_values_are_refused_with_the_key(change, message):
    with pytest.raises(ModelError) as info:
        model_from_dict(_with(change), "dp.yaml")
    assert str(info.value) == message


def test_the_same_model_with_good_values_loads():
    model = model_from_dict(_with(lambda d: None), "dp.yaml")
    assert [f.name for f in model.forces] == ["spring", "stop"]
