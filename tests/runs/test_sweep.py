"""Parameter paths, manoeuvres and sweep tables (in this process)."""
from __future__ import annotations

from pathlib import Path

import h5py
import numpy as np
import pytest

import rtmbs
from rtmbs.errors import ModelError, SolverError
from rtmbs.model import load_model_file
from rtmbs.runs.parameters import get_value, model_spec, parameter_paths, with_values
from rtmbs.runs.sweep import combinations, parse_values, sweep
from rtmbs.system import compile_model

HERE = Path(__file__).parent
SPRING = str(HERE / "spring-mass.yaml")


def test_rows_equal_runs_of_the_model_edited_by_hand():
    tab = sweep("double-pendulum", {"bodies.link2.mass": [0.5, 2.0],
                                    "bodies.link1.markers.tip.position.0": [0.5, 0.7]},
                signals=["link2.x"], t_end=0.05, progress=False)
    assert tab.parameters == ["bodies.link2.mass", "bodies.link1.markers.tip.position.0"]
    for i in range(4):
        model = load_model_file(Path(rtmbs.__file__).parent / "models" / "double-pendulum.yaml")
        model.body("link2").mass = tab.columns["bodies.link2.mass"][i]
        tip = next(mk for mk in model.body("link1").markers if mk.name == "tip")
        tip.position = (tab.columns["bodies.link1.markers.tip.position.0"][i], 0.0, 0.0)
        res = rtmbs.simulate(compile_model(model), "li-euler", t_end=0.05, h=1e-3, accelerations=False)
        x = res.signal("link2.x")
        assert tab.columns["link2.x.final"][i] == x[-1]
        assert tab.columns["link2.x.min"][i] == x.min() and tab.columns["link2.x.max"][i] == x.max()
    assert tab.units["bodies.link2.mass"] == "kg" and tab.units["link2.x.final"] == "m"


def test_manoeuvre_holding_the_block_in_equilibrium(tmp_path):
    """Spring tension k (L − L0) = 1000·0.05 = 50 N up, weight 2·9.81 N: a push of 19.62 − 50 N
    keeps the block at rest at z = −0.5 m; the model's own step input moves it."""
    man = tmp_path / "hold.yaml"
    man.write_text("inputs:\n  push: {type: constant, value: -30.38}\n")
    held = sweep(SPRING, {"bodies.block.mass": [2.0]}, manoeuvre=str(man), signals=["block.z"],
                 t_end=0.3, progress=False)
    own = sweep(SPRING, {"bodies.block.mass": [2.0]}, signals=["block.z"], t_end=0.3, progress=False)
    for stat in ("final", "min", "max"):
        assert abs(held.columns[f"block.z.{stat}"][0] + 0.5) < 1e-9
    assert own.columns["block.z.max"][0] > -0.5 + 1e-3  # net 30.38 N upward before the step
    # the same force as a CSV manoeuvre (a table input) gives the same rest
    csv = tmp_path / "hold.csv"
    csv.write_text("t,push\n0,-30.38\n1,-30.38\n")
    tab = sweep(SPRING, {"bodies.block.mass": [2.0]}, manoeuvre=str(csv), signals=["block.z"],
                t_end=0.3, progress=False)
    assert abs(tab.columns["block.z.final"][0] + 0.5) < 1e-9


def test_hdf5_table_has_units_and_trajectories(tmp_path):
    tab = sweep(SPRING, {"forces.spring.stiffness": [800.0, 1200.0]}, signals=["block.z", "spring.force"],
                t_end=0.02, trajectories=True, progress=False)
    path = tab.save_hdf5(tmp_path / "s.h5")
    with h5py.File(path) as f:
        np.testing.assert_array_equal(f["runs/forces.spring.stiffness"][()], [800.0, 1200.0])
        assert f["runs/forces.spring.stiffness"].attrs["unit"] == "N/m"
        assert f["runs/spring.force.final"].attrs["unit"] == "N"
        z = f["trajectories/block.z"][()]
        assert z.shape == (2, 21) and f["t"].attrs["unit"] == "s"
        np.testing.assert_array_equal(z[:, -1], f["runs/block.z.final"][()])
        assert f.attrs["model"] == SPRING and f.attrs["solver"] == "li-euler"
    # the spring force at the start is its tension k·(0.5 − 0.45)
    np.testing.assert_allclose(tab.columns["spring.force.max"], [40.0, 60.0], rtol=1e-9)


def test_parse_values_and_product():
    assert parse_values("forces.s.stiffness=1e3,2e3") == ("forces.s.stiffness", [1000.0, 2000.0])
    assert parse_values("bodies.a.mass=1:2:3") == ("bodies.a.mass", [1.0, 1.5, 2.0])
    assert combinations({"a": [1, 2], "b": [3, 4, 5]})[:4] == [
        {"a": 1, "b": 3}, {"a": 1, "b": 4}, {"a": 1, "b": 5}, {"a": 2, "b": 3}]
    with pytest.raises(SolverError,
                       match=r"^--param 'mass': expected PATH=v1,v2,\.\.\. or PATH=start:stop:count$"):
        parse_values("mass")
    with pytest.raises(SolverError, match=r"^--param 'a=1,x': expected numbers"):
        parse_values("a=1,x")


def test_unknown_parameter_path_is_named_with_close_names():
    with pytest.raises(ModelError) as info:
        sweep("double-pendulum", {"bodies.link3.mass": [1.0]}, progress=False)
    assert str(info.value) == ("bodies.link3.mass: unknown parameter of model 'double-pendulum' "
                               "(did you mean 'bodies.link2.mass', 'bodies.link1.mass' or "
                               "'bodies.link2.position.2'?)")
    with pytest.raises(ModelError) as info:
        sweep(SPRING, {"forces.sprung.stifness": [1.0]}, progress=False)
    assert str(info.value).startswith("forces.sprung.stifness: unknown parameter of model "
                                      f"'{SPRING}' (did you mean 'forces.spring.stiffness'")
    with pytest.raises(ModelError, match=r"^bodies\.link2: is not a number of model 'double-pendulum' "
                       r"\(it holds dict\): give a path down to a number$"):
        sweep("double-pendulum", {"bodies.link2": [1.0]}, progress=False)


def test_invalid_value_is_the_model_files_error():
    with pytest.raises(ModelError, match=r"^double-pendulum with bodies\.link2\.mass=-1: "
                       r"bodies\.link2\.mass: mass must be positive and finite, got -1\.0$"):
        sweep("double-pendulum", {"bodies.link2.mass": [1.0, -1.0]}, progress=False)


def test_manoeuvre_the_model_cannot_drive(tmp_path):
    man = tmp_path / "steer.yaml"
    man.write_text("inputs:\n  pus: {type: constant, value: 1}\n")
    with pytest.raises(ModelError) as info:
        sweep("double-pendulum", {"bodies.link2.mass": [1.0]}, manoeuvre=str(man), progress=False)
    assert str(info.value) == (f"{man}: inputs.pus: model 'double-pendulum' has no inputs: it "
                               "cannot be driven by a manoeuvre (use its own motion)")
    with pytest.raises(ModelError) as info:
        sweep(SPRING, {"bodies.block.mass": [1.0]}, manoeuvre=str(man), progress=False)
    assert str(info.value) == (f"{man}: inputs.pus: not an input of model '{SPRING}' "
                               "(did you mean 'push'? known: push)")


def test_unknown_signal_and_hand_written_model():
    with pytest.raises(ModelError, match=r"^outputs\.link3\.z: unknown signal of model 'double-pendulum' "
                       r"\(did you mean 'link2\.z'\?"):
        sweep("double-pendulum", {"bodies.link2.mass": [1.0]}, signals=["link3.z"], progress=False)
    with pytest.raises(ModelError, match=r"^MODEL: 'truck-dae' is a hand-written system without a "
                       r"model description"):
        model_spec("truck-dae")


def test_paths_cover_vectors_inputs_and_optional_keys():
    spec = model_spec(SPRING)
    paths = parameter_paths(spec.description)
    for p in ("gravity.2", "bodies.block.mass", "bodies.block.inertia.1.1", "forces.spring.free_length",
              "inputs.push.to", "forces.push.direction.2"):
        assert p in paths, p
    assert get_value(spec, "inputs.push.to") == 20.0
    m = with_values(spec, {"gravity.2": -1.62, "inputs.push.to": 5.0})
    assert m.gravity == (0.0, 0.0, -1.62) and m.inputs[0].to == 5.0
    assert spec.description.gravity[2] == -9.81  # the base description is left alone
