"""The packed buffers are declared once by name (rtmbs.kernels.layouts): the compiled accessors
are generated from the declaration, the packer checks every field, the workspace views of the
kernels agree with protocol.WORKSPACE_FIELDS."""
import numpy as np
import pytest

from rtmbs.kernels.evaluate import workspace_views
from rtmbs.kernels.layouts import DATA, GENERATED, LAYOUTS, MODEL_INTS, generate_views
from rtmbs.models import load_model
from rtmbs.protocol import WORKSPACE_FIELDS, Workspace


def test_generated_views_are_up_to_date():
    assert GENERATED.read_text() == generate_views(), (
        "kernels/layout_views.py is out of date: run `python -m rtmbs.kernels.layouts`")


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


def test_compiled_workspace_views_match_the_declaration():
    n, m = 5, 3
    ws = Workspace(n, m)
    ws.buf[:] = np.arange(ws.buf.size)
    views = workspace_views(ws.buf, n, m)
    assert len(views) == len(WORKSPACE_FIELDS)
    for (name, _), v in zip(WORKSPACE_FIELDS, views):
        np.testing.assert_array_equal(v, getattr(ws, name), err_msg=name)


def test_model_buffers_are_read_only():
    s = load_model("double-pendulum")
    with pytest.raises(ValueError, match="read-only"):
        s.arrays.body_mass[0] = 2.0
