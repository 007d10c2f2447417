"""The C tyre's parameter table (src/rtmbs/engine/tyre/magic_formula.c) has the Python reader's
names in order. The Magic Formula, the contact functions, the roads and the tyre element are tested
against MFeval, finite differences and analytic values in tests/vehicle/test_tyre_*.py,
tests/vehicle/test_road.py, tests/core/test_tyre_element.py and tests/core/test_tyre_jacobian.py.
"""
from __future__ import annotations

from rtmbs.engine import _engine as E
from rtmbs.vehicle.tyre import magic_formula as mfk


def test_parameter_table_matches_the_python_indices():
    assert E.mf_param_names() == mfk.PARAM_NAMES
    assert len(E.mf_param_names()) == mfk.N_PARAM
