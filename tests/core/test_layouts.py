"""The packed buffers are declared once by name (rtmbs.kernels.layouts): the packer checks every
field, the Python views are the buffer, the model buffers are read-only."""
import numpy as np
import pytest

from rtmbs.kernels.layouts import DATA, LAYOUTS, MODEL_INTS
from rtmbs.models import load_model


def test_field_names_are_unique():
    for lay in LAYOUTS:
        assert len(set(lay.names)) == len(lay.names), lay.name


def test_pack_names_the_missing_and_the_wrong_field():
    arrays = {name: np.zeros((1,) * ndim, np.int64) for name, ndim, _ in MODEL_INTS.fields}
    del arrays["frc_blk"]
    with pytest.raises(ValueError, match=r"ModelInts: missing fields \['frc_blk'\], unknown fields \[\]"):
        MODEL_INTS.pack(arrays)
    arrays["frc_blk"] = np.zeros(3, np.int64)
    with pytest.raises(ValueError, match=r"ModelInts.frc_blk: expected 2 dimensions, got shape \(3,\)"):
        MODEL_INTS.pack(arrays)


def test_python_views_are_the_buffer():
    """Writing a named Python view writes the packed buffer the kernels read."""
    s = load_model("double-pendulum").new_data()
    s.data.kin_r[0, 1] = 7.5
    k = DATA.names.index("kin_r")
    off = s._slay[k, 0]
    assert s._sbuf[off + 1] == 7.5


def test_model_buffers_are_read_only():
    s = load_model("double-pendulum")
    with pytest.raises(ValueError, match="read-only"):
        s.arrays.body_mass[0] = 2.0
