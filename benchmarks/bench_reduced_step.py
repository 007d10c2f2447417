"""li-euler, generalized-alpha and explicit-euler on a model with redundant joints: the
Python-driven dense step against the C engine's step with a row map, called from Python and
rolled out (docs/benchmarks/redundant.md).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_reduced_step.py [--rounds 5]
        [--solvers li-euler,generalized-alpha,explicit-euler] [--base /path/to/other/src]

Each measurement runs in its own process (one after the other, the kinds interleaved round by
round): per-step CPU time (thread_time_ns around each ``solver.step``, garbage collector off) over
``--steps`` steps after 200 warm-up steps from the model's initial state at h = 1 ms; a rollout
gives its CPU time per step (one call keeping a row every 100 steps; no per-step times).
``--base`` runs each solver with its default options on another source tree too (e.g. the
version before the compiled reduced step), for the reduced model and for models without
redundancy (mcpherson-simplified, sedan: their step should not change).
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import gc  # noqa: E402
import json  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

H = 1e-3
WARMUP = 200
#: the rollout keeps a row every this many steps (as simulate's save_every; every step's row
#: would time the result arrays' first writes as well)
ROLLOUT_EVERY = 100
#: models without redundant joints, measured with --base too: their step should not change
OTHERS = (("mcpherson-simplified", 1), ("sedan", 5))
HERE = Path(__file__).resolve().parent.parent / "src"


def worker(solver: str, kind: str, model: str, steps: int) -> dict:
    """One measurement of ``solver`` in this process: ``kind`` = "dense" (linear_solver="dense":
    the step driven from Python), "step" (the default options: the C step called from Python) or
    "rollout" (the default options, one rollout of ``steps`` steps)."""
    import warnings

    from rtmbs.models import load_model
    from rtmbs.solvers.base import get_solver
    from rtmbs.solvers.rollout import rollout

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        system = load_model(model)
        slv = get_solver(solver)(system, **({"linear_solver": "dense"} if kind == "dense"
                                             else {}))
    state = system.initial_state()
    slv.reset(state)
    for _ in range(WARMUP):
        slv.step(state, H)
    gc.collect()
    gc.disable()
    clock = time.thread_time_ns
    if kind == "rollout":
        c0 = clock()
        r = rollout(slv, state, steps, H, outputs=False, every=ROLLOUT_EVERY)
        per = (clock() - c0) / 1e3 / steps
        gc.enable()
        return dict(median=per, p999=None, max=None, ok=r.status == 1, fused=slv.fused)
    cpu = np.empty(steps, np.int64)
    step, ok = slv.step, True
    for i in range(steps):
        c0 = clock()
        ok &= step(state, H)
        cpu[i] = clock() - c0
    gc.enable()
    us = cpu / 1e3
    return dict(median=float(np.median(us)), p999=float(np.percentile(us, 99.9)),
                max=float(us.max()), ok=bool(ok), fused=bool(getattr(slv, "fused", False)))


def _run(src: Path, solver: str, kind: str, model: str, steps: int) -> dict:
    env = dict(os.environ, PYTHONPATH=str(src), OPENBLAS_NUM_THREADS="1")
    out = subprocess.run([sys.executable, __file__, "--worker", solver, kind, model, str(steps)],
                         env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def _machine() -> str:
    model = ""
    try:
        for line in subprocess.run(["lscpu"], capture_output=True, text=True).stdout.splitlines():
            if line.startswith("Model name:"):
                model = line.split(":", 1)[1].strip()
    except OSError:
        pass
    return f"{model or 'unknown CPU'}, {os.cpu_count()} cores"


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20_000, help="steps per C measurement")
    ap.add_argument("--dense-steps", type=int, default=5_000, help="steps per dense measurement")
    ap.add_argument("--solvers", default="li-euler,generalized-alpha,explicit-euler",
                    help="comma-separated solvers to measure")
    ap.add_argument("--base", default=None, help="another source tree to measure (its default)")
    ap.add_argument("--worker", nargs=4, default=None, help=argparse.SUPPRESS)
    a = ap.parse_args(argv)
    if a.worker:
        solver, kind, model, steps = a.worker
        print(json.dumps(worker(solver, kind, model, int(steps))))
        return 0
    over = "mcpherson-overconstrained"
    cases = []
    for s in a.solvers.split(","):
        cases += [(f"{s}: dense path from Python", HERE, s, "dense", over, a.dense_steps),
                  (f"{s}: C step from Python", HERE, s, "step", over, a.steps),
                  (f"{s}: C step, rollout", HERE, s, "rollout", over, a.steps)]
        if a.base:
            base = Path(a.base)
            cases += [(f"{s}: base: default options", base, s, "step", over, a.dense_steps)]
            for model, slower in OTHERS:
                cases += [(f"{s}: {model}: C step from Python", HERE, s, "step", model,
                           a.steps // slower),
                          (f"{s}: base: {model}: C step from Python", base, s, "step", model,
                           a.steps // slower)]
    load0 = os.getloadavg()
    res = {c[0]: [] for c in cases}
    for r in range(a.rounds):
        for label, src, solver, kind, model, steps in cases:
            res[label].append(_run(src, solver, kind, model, steps))
            print(f"round {r + 1} {label}: {res[label][-1]}", file=sys.stderr, flush=True)
    load1 = os.getloadavg()
    print(f"Machine: {_machine()}; load average {load0[0]:.2f} before, {load1[0]:.2f} after; "
          f"{a.rounds} rounds, kinds interleaved; CPU µs per step: median over rounds of each "
          "round's median (p99.9 and max: the largest over rounds).\n")
    print("| case | compiled step | median | p99.9 | max | rounds' medians |")
    print("| --- | --- | --- | --- | --- | --- |")
    for label, *_ in cases:
        rs = res[label]
        med = float(np.median([x["median"] for x in rs]))
        p9 = [x["p999"] for x in rs if x["p999"] is not None]
        mx = [x["max"] for x in rs if x["max"] is not None]
        ok = all(x["ok"] for x in rs)
        print(f"| {label} | {'yes' if rs[0]['fused'] else 'no'} | {med:.1f} | "
              f"{max(p9):.1f} | {max(mx):.0f} | " if p9 else
              f"| {label} | {'yes' if rs[0]['fused'] else 'no'} | {med:.1f} | - | - | ",
              end="")
        print(", ".join(f"{x['median']:.1f}" for x in rs) + ("" if ok else " (FAILED)") + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
