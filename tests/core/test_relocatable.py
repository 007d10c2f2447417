"""A model file's tyre and road files resolve against the model file's folder, so a model and its
files can move together and run from any current folder."""
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from _models.bodies import wheel
from rtmbs.model.files import file_references, load_model_file, save_model_file
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model
from rtmbs.vehicle.road import half_sine_bump
from rtmbs.vehicle.tyre.tir import data_path


def write_model(folder: Path) -> Path:
    """The rolling wheel with its tyre in tyres/front.tir and its road in roads/bump.csv."""
    (folder / "tyres").mkdir(parents=True)
    (folder / "roads").mkdir()
    shutil.copy(data_path("chrono_MagicFormula61_Parameters.tir"), folder / "tyres" / "front.tir")
    half_sine_bump(height=0.02, length=0.3, start=0.5).to_csv(folder / "roads" / "bump.csv")
    m = wheel(road={"type": "csv", "file": "roads/bump.csv"})
    m.forces[0].tyre = "tyres/front.tir"
    return save_model_file(m, folder / "wheel.yaml")


def test_references_resolve_against_the_model_folder(tmp_path, monkeypatch):
    path = write_model(tmp_path / "project")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    model = load_model_file(Path("..") / "project" / "wheel.yaml")
    refs = {key: Path(text) for _, key, text in file_references(model)}
    assert refs == {"tyre": (tmp_path / "project" / "tyres" / "front.tir").resolve(),
                    "file": (tmp_path / "project" / "roads" / "bump.csv").resolve()}
    moved = shutil.copytree(tmp_path / "project", tmp_path / "moved")
    shutil.rmtree(tmp_path / "project")
    a = simulate(compile_model(load_model_file(moved / "wheel.yaml")), "li-euler", t_end=0.1, h=1e-3)
    os.chdir(moved / "roads")
    b = simulate(compile_model(load_model_file("../wheel.yaml")), "li-euler", t_end=0.1, h=1e-3)
    np.testing.assert_array_equal(a.q, b.q)
    assert a.q[-1, 0] > 0.5  # the wheel rolled onto the bump
    assert not np.array_equal(path, moved / "wheel.yaml")


def test_a_missing_relative_file_names_the_resolved_path(tmp_path):
    path = write_model(tmp_path / "p")
    (tmp_path / "p" / "roads" / "bump.csv").unlink()
    with pytest.raises(Exception) as err:
        compile_model(load_model_file(path))
    assert str((tmp_path / "p" / "roads" / "bump.csv").resolve()) in str(err.value)
