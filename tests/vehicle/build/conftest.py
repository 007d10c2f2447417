"""``car``: a copy of the sedan's vehicle files in a temporary folder, for tests that edit them."""
import shutil

import pytest

from rtmbs.vehicle.build.vehicle import SEDAN


@pytest.fixture
def car(tmp_path):
    d = tmp_path / "car"
    shutil.copytree(SEDAN, d)
    return d
