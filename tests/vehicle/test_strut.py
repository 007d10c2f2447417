"""The strut of docs/model-format.md (spring, tabulated damper, bump and rebound stops on the same
markers): forces at sampled lengths and speeds against the formulas, a drop onto the bump stop,
the static length."""
from __future__ import annotations

import re
from pathlib import Path

import numpy as np
import pytest
import yaml

import rtmbs
from rtmbs.model.files import model_from_dict
from rtmbs.system import compile_model

DOC = Path(__file__).parents[2] / "docs" / "model-format.md"
M, G, K, L0 = 400.0, 9.81, 40000.0, 0.6
VEL, DAMP = [-1.0, -0.1, 0, 0.1, 1.0], [-1500, -400, 0, 900, 3500]
LMIN, LMAX, KS, CS = 0.42, 0.60, 2.0e7, 500.0


def _strut():
    text = DOC.read_text()
    section = text[text.index("## A strut with bump and rebound stops"):]
    return compile_model(model_from_dict(yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))))


def _tension(L, Ld):
    """Spring + damper table + stop, tension positive."""
    F = K * (L - L0) + np.interp(Ld, VEL, DAMP)
    if L < LMIN:
        F += -KS * (LMIN - L) ** 2 + CS * Ld
    elif L > LMAX:
        F += KS * (L - LMAX) ** 2 + CS * Ld
    return F


@pytest.mark.parametrize("L", [0.38, 0.45, 0.502, 0.59, 0.63])
@pytest.mark.parametrize("Ld", [-1.4, -0.05, 0.0, 0.3])
def test_strut_tension_at_sampled_lengths_and_speeds(L, Ld):
    system = _strut()
    q, qd = system._q0.copy(), np.zeros(system.n)
    q[2], qd[2] = L, Ld
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, q, qd, out)
    total = sum(out[system.output_names.index(f"{e}.force")] for e in ("spring", "damper", "stops"))
    assert total == pytest.approx(_tension(L, Ld), rel=1e-12, abs=1e-9)


def test_dropped_body_hits_the_bump_stop_and_settles_at_the_static_length():
    system = _strut()
    res = rtmbs.simulate(system, "li-euler", t_end=3.0, h=1e-3)
    z = res.signal("body.z")
    stop = res.signal("stops.force")
    assert z.min() < LMIN and stop.min() < -5e3        # the bump stop engages ...
    assert z.min() > LMIN - 0.05                       # ... and holds: 1.5 m/s stopped within 5 cm
    assert np.all(stop[z > LMIN + 1e-9] == 0.0)         # no force off the stops
    np.testing.assert_allclose(z[-1], L0 - M * G / K, atol=1e-4)
