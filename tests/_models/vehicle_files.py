"""Edits of a copy of the sedan's vehicle files (``rtmbs.vehicle.build.vehicle.SEDAN``) and
the exact error each bad file gives."""
from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml

from rtmbs.errors import ModelError
from rtmbs.vehicle.build import load_vehicle_file
from rtmbs.vehicle.build.vehicle import SEDAN


def edit_yaml(path: Path, change) -> None:
    """Apply ``change`` (a function that edits the loaded data in place) to the YAML file."""
    data = yaml.safe_load(path.read_text())
    change(data)
    path.write_text(yaml.safe_dump(data))


def assert_load_fails(car: Path, fname: str, change, message: str, joints=None) -> None:
    """``fname`` of the copy ``car`` edited by ``change`` makes loading ``car``/vehicle.yaml raise
    ModelError with ``message`` ({d}: the folder ``car``); then the file is the sedan's again."""
    edit_yaml(car / fname, change)
    with pytest.raises(ModelError) as exc:
        load_vehicle_file(car / "vehicle.yaml", joints=joints)
    assert str(exc.value) == message.format(d=car)
    shutil.copy(SEDAN / fname, car / fname)
