"""Golden trajectories: every built-in model with its solvers and main options, as recorded with
the numba engine before the C engine replaced it (tests/engine/make_golden.py), reproduced over
0.5 s on every model and over the whole run on the non-chaotic ones: the states (q, q̇, extra
states) to 1e-9 relative (per signal, relative to its largest magnitude, at least 1), the named
outputs to 1e-7. The engines differ by round-off (numba contracted multiply-adds into FMA, the C
does not); the forces of stiff elements magnify the states' round-off by their stiffness (worst
measured: 2.5e-9 on a bushing of sedan-bushings, 1.7e-8 on the transient tyre's Fx)."""
from __future__ import annotations

import ast
from pathlib import Path

import numpy as np
import pytest

from rtmbs import simulate
from rtmbs.models import load_model

GOLDEN = Path(__file__).parent / "golden"
CASES = sorted(p.stem for p in GOLDEN.glob("*.npz"))
#: chaotic over a second: round-off grows by orders of magnitude (compared over 0.5 s only)
CHAOTIC = ("double-pendulum", "spatial-chain-10", "peer-chain", "four-bar_explicit-euler")
RTOL = 1e-9
RTOL_OUTPUTS = 1e-7


def _close(name: str, got: np.ndarray, want: np.ndarray, rtol: float = RTOL) -> None:
    want = np.asarray(want, float)
    got = np.asarray(got, float)
    assert got.shape == want.shape, f"{name}: shape {got.shape} against {want.shape}"
    if want.size == 0:
        return
    scale = np.maximum(np.abs(want).max(axis=0), 1.0)
    err = np.abs(got - want) / scale
    worst = np.unravel_index(np.argmax(err), err.shape)
    assert err.max() <= rtol, f"{name}: relative error {err.max():.2e} at row/column {worst}"


@pytest.mark.parametrize("case", CASES)
def test_golden_trajectory(case):
    g = np.load(GOLDEN / f"{case}.npz")
    system = load_model(str(g["model"]))
    options = ast.literal_eval(str(g["options"]))
    t = g["t"]
    every = int(round((t[1] - t[0]) / float(g["h"])))
    res = simulate(system, str(g["solver"]), t_end=float(t[-1]), h=float(g["h"]), save_every=every,
                   accelerations=False, **options)
    keep = t <= 0.5 + 1e-12 if case.startswith(CHAOTIC) else np.ones(len(t), bool)
    np.testing.assert_allclose(res.t, t, rtol=0, atol=1e-12)
    _close(f"{case}: q", res.q[keep], g["q"][keep])
    _close(f"{case}: qd", res.qd[keep], g["qd"][keep])
    _close(f"{case}: x", res.x[keep], g["x"][keep])
    for key in g.files:
        if key.startswith("out:"):
            _close(f"{case}: {key[4:]}", res.outputs[key[4:]][keep], g[key][keep], RTOL_OUTPUTS)
