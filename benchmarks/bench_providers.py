"""CPU µs per step of the hand-written providers, before (numba kernels) and after (the C
providers of engine/providers/), interleaved: the planar truck under li-euler and the ODE
integrators it uses, and both subsystem-synthesis formulations per frame (one ab3 step = one
evaluation, h = 1 ms).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_providers.py --before /path/to/old/src \\
        [--after src] [--rounds 7] [--scale 1.0]

Two worker processes, one importing rtmbs from --before and one from --after, run each
configuration in turn, round after round (so a disturbance of the shared machine hits both);
each run times ``steps`` steps after a warm-up in process CPU time (time.process_time). Prints
the median over rounds and the best run, per configuration and side. Not a test.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys

CONFIGS = [
    # (label, builder, solver, h, options, steps)
    ("truck-ode li-euler", "truck:ode", "li-euler", 1e-3, {}, 4000),
    ("truck-ode li-euler jacobian=all", "truck:ode", "li-euler", 1e-3, {"jacobian": "all"}, 4000),
    ("truck-ode rosenbrock-grk4t", "truck:ode", "rosenbrock-grk4t", 1e-3, {}, 2000),
    ("truck-ode ab3 (h = 0.25 ms)", "truck:ode", "ab3", 2.5e-4, {}, 4000),
    ("truck-ode explicit-euler (h = 0.1 ms)", "truck:ode", "explicit-euler", 1e-4, {}, 4000),
    ("truck-dae li-euler projection", "truck:dae", "li-euler", 1e-3, {"stabilize": "projection"}, 4000),
    ("truck-dae li-euler ggl", "truck:dae", "li-euler", 1e-3, {"stabilize": "ggl"}, 4000),
    ("truck-linear li-euler", "truck:linear", "li-euler", 1e-3, {}, 4000),
    ("truck-linear rosenbrock-grk4t", "truck:linear", "rosenbrock-grk4t", 1e-3, {}, 2000),
    ("synthesis A ab3 (sla-quarter-car)", "syn:relative-cartesian:sla-quarter-car", "ab3", 1e-3, {}, 3000),
    ("synthesis B ab3 (sla-quarter-car)", "syn:relative-joint:sla-quarter-car", "ab3", 1e-3, {}, 3000),
    ("synthesis B ab3 (sla-car, 4 corners)", "syn:relative-joint:sla-car", "ab3", 1e-3, {}, 1500),
    ("synthesis A li-euler (sla-quarter-car)", "syn:relative-cartesian:sla-quarter-car", "li-euler", 1e-3, {}, 600),
    ("synthesis B li-euler (sla-quarter-car)", "syn:relative-joint:sla-quarter-car", "li-euler", 1e-3, {}, 600),
]


def _build(spec):
    kind, *rest = spec.split(":")
    if kind == "truck":
        from rtmbs.models.truck import truck

        return truck(rest[0])
    from rtmbs.synthesis.numpy_provider import build

    return build(rest[1], "chassis", dof=1, formulation=rest[0], compiled=True)


def worker():
    """Read 'index steps' lines; answer with the CPU µs per step of that configuration."""
    import time

    import numpy as np

    from rtmbs.solvers.base import get_solver

    cache = {}
    print(json.dumps({"rtmbs": __import__("rtmbs").__file__}), flush=True)
    for line in sys.stdin:
        i, steps = map(int, line.split())
        label, spec, solver, h, opts, _ = CONFIGS[i]
        if i not in cache:
            system = _build(spec)
            slv = get_solver(solver)(system, **opts)
            st = system.initial_state()
            slv.reset(st)
            for _ in range(200):                  # warm-up (and the numba compile, if any)
                slv.step(st, h)
            cache[i] = (slv, st)
        slv, st = cache[i]
        c0 = time.process_time()
        for _ in range(steps):
            slv.step(st, h)
        cpu = time.process_time() - c0
        ok = bool(np.all(np.isfinite(st.q)))
        print(json.dumps({"us": 1e6 * cpu / steps, "ok": ok}), flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--before", required=True, help="src folder of the tree with the numba kernels")
    ap.add_argument("--after", default=os.path.join(os.path.dirname(__file__), "..", "src"))
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--scale", type=float, default=1.0, help="multiply the steps per run")
    a = ap.parse_args(argv)
    procs = {}
    for side, path in (("before", a.before), ("after", a.after)):
        env = {**os.environ, "PYTHONPATH": os.path.abspath(path), "OPENBLAS_NUM_THREADS": "1",
               "OMP_NUM_THREADS": "1"}
        p = subprocess.Popen([sys.executable, __file__, "--worker"], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env=env)
        print(f"{side}: {json.loads(p.stdout.readline())['rtmbs']}", file=sys.stderr)
        procs[side] = p
    res = {c[0]: {"before": [], "after": []} for c in CONFIGS}
    for r in range(a.rounds):
        for i, c in enumerate(CONFIGS):
            for side in (("before", "after") if r % 2 == 0 else ("after", "before")):
                p = procs[side]
                p.stdin.write(f"{i} {max(1, int(c[5] * a.scale))}\n")
                p.stdin.flush()
                out = json.loads(p.stdout.readline())
                res[c[0]][side].append(out["us"] if out["ok"] else float("nan"))
        print(f"round {r + 1}/{a.rounds} done", file=sys.stderr)
    for p in procs.values():
        p.stdin.close()
        p.wait()
    import numpy as np

    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} vCPU, shared; "
          f"Python {platform.python_version()}; {a.rounds} interleaved rounds; process CPU time")
    print("\n| configuration | before (numba) µs/step median [best] | after (C provider) µs/step median [best] | ratio |")
    print("| --- | --- | --- | --- |")
    for label, d in res.items():
        b, f = np.array(d["before"]), np.array(d["after"])
        print(f"| {label} | {np.median(b):.1f} [{b.min():.1f}] | {np.median(f):.1f} [{f.min():.1f}] | "
              f"{np.median(b) / np.median(f):.2f} |")


if __name__ == "__main__":
    if "--worker" in sys.argv:
        worker()
    else:
        main()
