"""Bad input gets a clear rtmbs.errors exception naming the item."""
from __future__ import annotations

import re

import numpy as np
import pytest

from rtmbs.errors import AssemblyError, ModelError, RedundantConstraintError
from rtmbs.model import Model, load_model_file, model_from_dict
from rtmbs.system import compile_model


def base():
    return {
        "name": "m",
        "bodies": [{"name": "arm", "mass": 1.0, "inertia": [0.1, 0.1, 0.1],
                    "markers": {"pin": [0, 0, 0.5]}}],
        "ground": {"markers": {"o": [0, 0, 0.5]}},
        "joints": [{"name": "ball", "type": "spherical", "marker_i": "ground.o", "marker_j": "arm.pin"}],
    }


def test_malformed_yaml_names_file_and_line(tmp_path):
    p = tmp_path / "bad.yaml"
    p.write_text("name: x\nbodies:\n  - name: a\n    mass: [1, 2\n")
    with pytest.raises(ModelError, match=re.escape(str(p)) + r": malformed YAML at line \d+, column \d+"):
        load_model_file(p)


def test_missing_file():
    with pytest.raises(ModelError, match="nowhere.yaml: model file not found"):
        load_model_file("nowhere.yaml")


def _set(d, path, value):
    """``d[path[0]][path[1]]... = value``."""
    for k in path[:-1]:
        d = d[k]
    d[path[-1]] = value


#: case: (where in :func:`base` the bad value goes, the value, the message's pattern, and whether
#: loading (model_from_dict) or compiling (compile_model) names it)
BAD = {
    "unknown-joint-type-suggests-the-right-one": (
        ("joints", 0, "type"), "spherocal",
        r"^joints\.ball\.type: unknown joint type 'spherocal' \(did you mean 'spherical'\?", "load"),
    "unknown-force-type": (
        ("forces",), [{"name": "s", "type": "sprung-damper", "marker_i": "ground.o",
                       "marker_j": "arm.pin"}],
        r"^forces\.s\.type: unknown force type 'sprung-damper' \(did you mean 'spring-damper'\?",
        "load"),
    "unknown-body-in-marker-reference": (
        ("joints", 0, "marker_j"), "amr.pin",
        r"^joints\.ball\.marker_j: unknown body 'amr' \(did you mean 'arm'\?", "compile"),
    "unknown-marker-on-a-body": (
        ("joints", 0, "marker_j"), "arm.pn",
        r"^joints\.ball\.marker_j: unknown marker 'pn' on body 'arm' \(did you mean 'pin'\?",
        "compile"),
    "unknown-key": (
        ("bodies", 0, "colour"), "red", r"^bodies\.arm\.colour: unknown key 'colour'$", "load"),
    "negative-mass": (
        ("bodies", 0, "mass"), -2.0,
        r"^bodies\.arm\.mass: mass must be positive and finite, got -2.0$", "load"),
    "inertia-not-positive-definite": (
        ("bodies", 0, "inertia"), [0.1, -0.1, 0.1],
        r"^bodies\.arm\.inertia: inertia tensor is not positive definite", "load"),
    "inertia-violating-the-triangle-inequality": (
        ("bodies", 0, "inertia"), [0.1, 0.1, 0.3],
        r"^bodies\.arm\.inertia: principal moments .* violate the triangle inequality", "load"),
    "zero-length-axis": (
        ("bodies", 0, "markers"),
        {"pin": {"position": [0, 0, 0.5], "orientation": {"z_axis": [0, 0, 0]}}},
        r"^bodies\.arm\.markers\.pin\.orientation: .*z_axis has zero length", "load"),
    "zero-length-force-direction": (
        ("forces",), [{"name": "push", "type": "force", "marker_j": "arm.pin",
                       "direction": [0, 0, 0]}],
        r"^forces\.push: direction has zero length$", "load"),
}


@pytest.mark.parametrize("case", list(BAD))
def test_bad_value_is_named(case):
    path, value, pattern, stage = BAD[case]
    d = base()
    _set(d, path, value)
    with pytest.raises(ModelError, match=pattern):
        m = model_from_dict(d)
        if stage == "compile":
            compile_model(m)


def test_inconsistent_configuration_names_the_joint():
    m = model_from_dict(base())
    m.add_marker("ground", "far", (5.0, 0, 0))
    # arm.pin is held at the ground's o, 5 m from 'far': a 1 m rod cannot close
    m.add_joint("rod", "distance", "ground.far", "arm.pin", distance=1.0)
    with pytest.raises(AssemblyError, match=r"cannot assemble 'm'.*largest violations in: .*rod"):
        compile_model(m).initial_state()


def test_redundant_joints_are_named():
    from rtmbs.errors import RedundantConstraintWarning
    from rtmbs.solvers.base import get_solver

    m = model_from_dict(base())
    m.add_joint("ball_again", "spherical", "ground.o", "arm.pin")
    s = compile_model(m)
    st = s.initial_state()  # assembles: the fixed-step solvers leave redundant rows out
    with pytest.warns(RedundantConstraintWarning, match=r"rank\(Φq\) = 4 < m = 7; redundant and "
                      r"left out of the solver's equations: joint 'ball_again' equations 0, 1, 2 "
                      r"\(spherical-x, spherical-y, spherical-z rows\)"):
        get_solver("li-euler")(s)
    slv = get_solver("li-euler")(s, redundant="error")
    with pytest.raises(RedundantConstraintError, match=r"rank 4 < m = 7 at t = 0: redundant joints: ball_again \(3 dependent equations\)") as exc:
        slv.reset(st)
    assert exc.value.joints == ["ball_again"]


def test_yaml_round_trip(tmp_path):
    from rtmbs.model import save_model_file

    m = model_from_dict(base())
    p = save_model_file(m, tmp_path / "m.yaml")
    m2 = load_model_file(p)
    s1, s2 = compile_model(m), compile_model(m2)
    np.testing.assert_array_equal(s1.initial_state().q, s2.initial_state().q)
    assert m2.model_dump() == m.model_dump()


def test_published_json_schema_is_current():
    from pathlib import Path

    from rtmbs.model.schema import schema_text

    doc = Path(__file__).resolve().parents[2] / "docs" / "model-schema.json"
    assert doc.read_text() == schema_text(), "run: rtmbs schema --out docs/model-schema.json"
