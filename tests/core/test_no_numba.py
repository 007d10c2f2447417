"""rtmbs runs without numba: in a fresh interpreter, importing the CLI and simulating a model with
every solver (the Cartesian models, the hand-written truck, subsystem synthesis in C, a tyre model
with transient states) leaves ``numba`` out of ``sys.modules``."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import rtmbs

SCRIPT = r"""
import json, sys, warnings
warnings.simplefilter("ignore")
import rtmbs, rtmbs.cli
from rtmbs.model import load_model_file
from rtmbs.models import load_model, model_file
from rtmbs.synthesis import SynthesisSystem, subsystem_model

T_END, H = 0.01, 1e-3
runs = [("double-pendulum", s, {}) for s in ("li-euler", "explicit-euler", "li-euler-indep",
                                            "generalized-alpha", "reference")]
runs += [("double-pendulum", "index1", {"formulation": "least-squares-2"})]
runs += [("truck-ode", s, {}) for s in ("rosenbrock-grk4t", "ab3")]
runs += [("truck-dae", "li-euler", {}), ("sedan-transient", "li-euler", {})]
reached = {}
for name, solver, options in runs:
    r = rtmbs.simulate(load_model(name), solver, t_end=T_END, h=H, **options)
    reached[f"{name} {solver}"] = float(r.t[-1])
sm = subsystem_model(load_model_file(model_file("sla-quarter-car")), "chassis", dof=1)
for form in ("relative-cartesian", "relative-joint"):
    r = rtmbs.simulate(SynthesisSystem(sm, formulation=form, compiled=True), "ab3", t_end=T_END,
                       h=H, accelerations=False)
    reached[f"synthesis {form} ab3"] = float(r.t[-1])
print(json.dumps({"numba": "numba" in sys.modules, "reached": reached}))
"""


def test_the_cli_and_every_solver_family_run_without_importing_numba():
    env = dict(os.environ, PYTHONPATH=str(Path(rtmbs.__file__).parents[1]))
    out = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True, env=env,
                         timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    res = json.loads(out.stdout.strip().splitlines()[-1])
    assert len(res["reached"]) == 12
    for run, t in res["reached"].items():
        assert abs(t - 0.01) < 1e-12, (run, t)
    assert res["numba"] is False
