"""The complete rolling-vehicle example of docs/model-format.md loads and does what it says."""
import re
from pathlib import Path

import numpy as np
import yaml

from rtmbs.model.files import model_from_dict
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model

R_FREE = 0.3943  # UNLOADED_RADIUS of the shipped MF 6.1 file
DOC = Path(__file__).parents[2] / "docs" / "model-format.md"


def _example() -> dict:
    text = DOC.read_text()
    section = text[text.index("## A complete rolling vehicle"):]
    block = re.search(r"```yaml\n(.*?)```", section, re.S).group(1)
    return yaml.safe_load(block)


def test_the_documented_rolling_wheel_runs_at_the_imposed_speed_and_rolls():
    system = compile_model(model_from_dict(_example()))
    res = simulate(system, "li-euler", t_end=0.7, h=1e-3)
    t, x = res.t, res.outputs["carrier.x"]
    np.testing.assert_allclose(x, 10.0 * t, atol=1e-9)          # the imposed speed
    rolling = (t > 0.15) & (t < 0.45)                           # before the bump at x = 5 m
    r_loaded = res.outputs["rim.z"][rolling]
    omega = res.outputs["rim.wy"][rolling]
    assert np.all(omega > 0)                                     # forward rolling: +ω_y
    # free rolling: v / ω, the effective rolling radius, lies between the loaded and free radius
    assert np.all(10.0 / omega > r_loaded) and np.all(10.0 / omega < R_FREE)
    fz = res.outputs["tyre.Fz"][rolling]
    np.testing.assert_allclose(fz.mean(), 400 * 9.81, rtol=0.02)  # carries the corner's weight
    bump = t > 0.5
    assert res.outputs["rim.z"][bump].max() - r_loaded.mean() > 0.005  # and rides over the bump
