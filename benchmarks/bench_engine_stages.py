"""Where li-euler's step (projection, the default) spends its time in the C engine, stage by stage,
timed from C.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_engine_stages.py [--models ...] [--rounds 5]
        [--calls 2000] [--warmup 200] [--cc gcc]

For each model a step plan is written (rtmbs.engine.dump.write_plan: li-euler with its defaults,
h = 1 ms) and the C program src/rtmbs/engine/harness/stages/stages.c, built here with the
extension's flags (-std=c99 -O3 -ffp-contract=off), takes ``--warmup`` steps and then calls each
named stage ``--calls`` times in a row on the state reached, in 15 batches each timed by the
process CPU clock, and keeps the median batch (the clock is read by the program, never by the
engine; a batch that lost the processor to another job does not move the median). Stages: the evaluation at q
(M, Q, Jq, Jq̇, Φq) and its parts (kinematics, mass blocks, force elements, tyres, the mapping
of the virtual blocks to q, the constraint rows and their scatter), the evaluation at the
predictor q + h q̇ (Φq, Φ), the projection's evaluations of Φ, the KKT assembly (the gather of
eq. 22's matrix with the products of its right-hand side), the LU refactorisation, one
substitution (forward and back), the named outputs (called by the real-time loop, not by the
step); then the whole step. The rounds interleave the models, each round a new process; printed:
the median over rounds of each stage's µs per step (µs per call × calls per step), their sum, the
whole step and the difference (the right-hand sides, updates and checks, and the caches: a stage
called alone on one state runs hot).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import shutil  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import tempfile  # noqa: E402
import warnings  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.engine import SOURCE_DIR  # noqa: E402
from rtmbs.engine.dump import write_plan  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402

MODELS = "peer-four-bar,peer-quarter-car,multilink-ideal,sedan"
#: the evaluation at q's parts, indented under it in the table
PARTS = ("kinematics", "mass", "force elements", "tyres", "virtual blocks to q", "constraints")
#: the stages a step is made of (their sum against the step)
STEP_STAGES = ("evaluation at q", "evaluation at q_p", "evaluation of Phi", "KKT assembly",
               "LU refactorisation", "substitution")
LABELS = {
    "kinematics": "  kinematics (A, G, ω, ṙ of every body)",
    "mass": "  mass blocks and inertia terms",
    "force elements": "  force elements (springs, dampers, bushings, stops, drive, brakes)",
    "tyres": "  tyres (Magic Formula, contact, road)",
    "virtual blocks to q": "  virtual blocks mapped to Q, Jq, Jq̇",
    "constraints": "  constraints: rows Φ, D and their scatter into Φq",
    "evaluation at q": "evaluation at q: M, Q, Jq, Jq̇, Φq",
    "evaluation at q_p": "evaluation at q + h q̇: Φq, Φ",
    "evaluation of Phi": "projection: evaluations of Φ",
    "KKT assembly": "KKT assembly (gather + right-hand-side products)",
    "LU refactorisation": "LU refactorisation",
    "substitution": "substitutions (eq. 22 + projection)",
    "outputs": "outputs after the step (one call; the real-time loop's, not the step's)",
    "step": "**the step**",
}


def build(cc: str, out: Path) -> Path:
    """The stage timer, compiled with the extension's flags."""
    sources = sorted(p for p in SOURCE_DIR.rglob("*.c")
                     if not {"binding", "fmu", "harness"} & set(p.parts))
    sources += [SOURCE_DIR / "harness" / "plan.c", SOURCE_DIR / "harness" / "stages" / "stages.c"]
    cmd = [cc, "-std=c99", "-O3", "-ffp-contract=off", f"-I{SOURCE_DIR}", *map(str, sources),
           "-lm", "-o", str(out)]
    subprocess.run(cmd, check=True)
    return out


def plan(name: str, folder: Path, h: float) -> Path:
    system = load_model(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    return write_plan(folder / f"{name}.plan", solver, state, h, 1)


def run(exe: Path, path: Path, calls: int, warmup: int) -> tuple[str, dict]:
    out = subprocess.run([str(exe), str(path), str(calls), str(warmup)], check=True,
                         capture_output=True, text=True).stdout.splitlines()
    stages = {}
    for line in out[1:]:
        name, per, ns = line.split("\t")
        stages[name] = (int(per), float(ns) * 1e-3)
    return out[0], stages


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default=MODELS)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--cc", default=os.environ.get("CC", "gcc"))
    a = ap.parse_args(argv)
    if shutil.which(a.cc) is None:
        sys.exit(f"bench_engine_stages: no C compiler {a.cc!r} (--cc)")
    models = a.models.split(",")
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        exe = build(a.cc, folder / "stages")
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # (tyre files' filled-in coefficients)
            plans = {name: plan(name, folder, a.h) for name in models}
        sizes, runs = {}, {name: [] for name in models}
        load0 = os.getloadavg()[0]
        for _ in range(a.rounds):
            for name in models:
                sizes[name], stages = run(exe, plans[name], a.calls, a.warmup)
                runs[name].append(stages)
        load1 = os.getloadavg()[0]
    print(f"{platform.processor() or platform.machine()}, {os.cpu_count()} CPUs, {a.cc}, load "
          f"{load0:.1f} → {load1:.1f}; {a.rounds} rounds × {a.calls} calls after {a.warmup} "
          f"steps; µs per step (µs per call × calls per step), median over rounds\n")
    for name in models:
        print(f"{name}: {sizes[name].replace(chr(9), ', ')}")
    print()
    print("| stage (calls per step) | " + " | ".join(models) + " |")
    print("| --- |" + " --- |" * len(models))
    keys = list(runs[models[0]][0])

    def per_step(name, key):
        per = runs[name][0][key][0]
        return per, float(np.median([r[key][1] for r in runs[name]])) * max(per, 1)

    for key in keys:
        cells = []
        for name in models:
            per, us = per_step(name, key)
            cells.append(f"{us:.1f}" + ("" if per <= 1 or key == "step" else f" ({per})"))
        print(f"| {LABELS.get(key, key)} | " + " | ".join(cells) + " |")
    sums = [sum(per_step(n, k)[1] for k in STEP_STAGES if per_step(n, k)[0]) for n in models]
    steps = [per_step(n, "step")[1] for n in models]
    print("| sum of the step's stages | " + " | ".join(f"{s:.1f}" for s in sums) + " |")
    print("| step − sum (right-hand sides, updates, checks; caches) | "
          + " | ".join(f"{t - s:+.1f}" for s, t in zip(sums, steps)) + " |")


if __name__ == "__main__":
    main()
