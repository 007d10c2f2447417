"""The one field table: C and Python read the same rows, and the codes both sides use agree."""
from __future__ import annotations

import re

import numpy as np
import pytest

from rtmbs import protocol
from rtmbs.engine import SOURCE_DIR, WARNINGS, _engine
from rtmbs.kernels import codes as kc
from rtmbs.model.registry import FORCE_TYPES
from rtmbs.kernels.layouts import DATA, MODEL_FLOATS, MODEL_INTS, read_field_table
from rtmbs.models import BUILTIN, load_model
from rtmbs.solvers import redundancy


def _defines(header: str) -> dict[str, int]:
    text = (SOURCE_DIR / header).read_text()
    return {k: int(v) for k, v in re.findall(r"#define (RTMBS_\w+) (-?\d+)\b", text)}


def test_python_layouts_are_the_c_field_table():
    ints, floats, data = _engine.field_table()
    assert [(f[0], f[1]) for f in ints] == [(f[0], f[1]) for f in MODEL_INTS.fields]
    assert [(f[0], f[1]) for f in floats] == [(f[0], f[1]) for f in MODEL_FLOATS.fields]
    assert [(f[0], f[1]) for f in data] == [(f[0], f[1]) for f in DATA.fields]
    assert [f[3] for f in data] == [f[2] for f in DATA.fields]  # the meanings, too


def test_field_table_reader_names_rows_and_dimensions():
    text = ('#define RTMBS_DATA(FIELD) \\\n'
            '    FIELD(kin_r, 2, (nbody + 1), 3, 1, 1, "m", "position") \\\n'
            '    FIELD(beta, 1, nrow1, 1, 1, 1, "", "bias") \\\n\n')
    table = read_field_table(text)
    assert table == {"RTMBS_DATA": (("kin_r", 2, "m", "position", ("(nbody + 1)", "3", "1", "1")),
                                    ("beta", 1, "", "bias", ("nrow1", "1", "1", "1")))}


def test_constants_agree():
    c = _engine.constants()
    assert (c["NFOUT"], c["NFPAR"], c["NFUNPAR"], c["SEG"]) == (kc.NFOUT, kc.NFPAR, kc.NPAR, kc.SEG)
    assert (c["EVAL_M"], c["EVAL_Q"], c["EVAL_PHI"], c["EVAL_PHIQ"], c["EVAL_GAMMA"], c["EVAL_JAC"],
            c["EVAL_JACS"], c["EVAL_PACKED"]) == (
        protocol.EVAL_M, protocol.EVAL_Q, protocol.EVAL_PHI, protocol.EVAL_PHIQ,
        protocol.EVAL_GAMMA, protocol.EVAL_JAC, protocol.EVAL_JAC_STIFF, kc._PACKED)
    assert c["NWARN"] <= c["WARNSLOTS"]
    assert c["NWARN"] == len(WARNINGS)


def test_left_out_row_bound_agrees():
    """The bound of the engine's check of left-out redundant rows is the Python wrapper's."""
    text = (SOURCE_DIR / "stages.h").read_text()
    atol = float(re.search(r"#define RTMBS_LEFT_OUT_ATOL (\S+)", text).group(1))
    factor = float(re.search(r"#define RTMBS_LEFT_OUT_FACTOR (\S+)", text).group(1))
    assert (atol, factor) == (redundancy.LEFT_OUT_ATOL, redundancy.LEFT_OUT_FACTOR)


def test_stage_codes_agree():
    d = _defines("stages.h")
    assert (d["RTMBS_ROT_EP"], d["RTMBS_ROT_ZXZ"]) == (kc.ROT_EP, kc.ROT_ZXZ)
    for name in ("SPH", "DOT1", "DOT2", "DIST", "ROTDRV", "CPL"):
        assert d[f"RTMBS_PRIM_{name}"] == getattr(kc, f"PRIM_{name}")
    codes = {"F_" + name.upper().replace("-", "_"): code for code, name in enumerate(FORCE_TYPES)}
    assert all(d[f"RTMBS_{k}"] == v for k, v in codes.items())


#: the planar truck's three variants are hand-written models (no packed buffers)
CARTESIAN = sorted(n for n in BUILTIN if not n.startswith("truck-"))


@pytest.mark.parametrize("name", CARTESIAN)
def test_data_layout_from_size_expressions(name):
    """The C data layout (size expressions of rtmbs_fields.h) is the one Python packs, and the
    engine binds every built-in model's buffers with the sizes Python reports."""
    s = load_model(name)
    ibuf, ilay, fbuf, flay, sbuf, slay = s.kernel_buffers()
    nb, m1, nf, nblk = s._data_sizes
    lay, total = _engine.data_layout(nb, m1, nf, nblk, s.arrays_int.fun_type.shape[0], s.nx)
    np.testing.assert_array_equal(lay, slay)
    assert total == sbuf.size
    sizes = _engine.bound_sizes(ibuf, ilay, fbuf, flay, sbuf, slay, s.n, s.m)
    assert (sizes["nq"], sizes["nc"], sizes["nbody"], sizes["nfrc"], sizes["nblk"], sizes["nrow1"],
            sizes["nx"]) == (s.n, s.m, nb, nf, nblk, m1, s.nx)


def test_bind_refuses_a_foreign_layout():
    s = load_model("double-pendulum")
    ibuf, ilay, fbuf, flay, sbuf, slay = s.kernel_buffers()
    bad = ilay.copy()
    bad[0, 1] = 2  # body_qadr declared 1-D
    with pytest.raises(RuntimeError, match="model buffers: layout mismatch"):
        _engine.bound_sizes(ibuf, bad, fbuf, flay, sbuf, slay, s.n, s.m)
    with pytest.raises(TypeError, match="sbuf: expected a C-contiguous aligned array of float64"):
        _engine.bound_sizes(ibuf, ilay, fbuf, flay, sbuf.astype(np.float32), slay, s.n, s.m)
