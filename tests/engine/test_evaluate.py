"""The C evaluation's argument checks (rtmbs.engine._engine.evaluate): a workspace one entry too
short is refused with an error, the exact size accepted, dense and packed. (Its values against
finite differences, kinetic energy and analytic values: tests/core/test_kernels.py; its
trajectories: tests/engine/test_golden.py.)"""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.kernels.codes import _GAMMA, _JAC, _M, _PACKED, _PHI, _PHIQ, _Q
from rtmbs.models import load_model

ALL = _M | _Q | _PHI | _PHIQ | _GAMMA | _JAC


def test_workspace_too_short():
    s = load_model("double-pendulum")
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    q = s.initial_state().q
    for what, size in ((ALL, 3 * s.n ** 2 + s.n + 3 * s.m + s.m * s.n),
                       (ALL | _PACKED, s.packed_layout.size)):
        with pytest.raises(RuntimeError, match="too short"):
            _engine.evaluate(what, 0.0, q, q, ib, il, fb, fl, sb.copy(), sl, np.zeros(size - 1),
                             s.n, s.m)
        _engine.evaluate(what, 0.0, q, q, ib, il, fb, fl, sb.copy(), sl, np.zeros(size), s.n, s.m)
