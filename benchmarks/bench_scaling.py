"""Scaling of the full vehicle: µs per step against n (one corner, one axle, the full car) and Algorithm 1
vs 2 on the sedan, plus the memory the solver holds against the non-zeros of M, Φq, Jq.

Usage:  python benchmarks/bench_scaling.py [--steps 2000] [--rounds 3] [--warmup 200] [--json F]
        python benchmarks/bench_scaling.py --memory-only

Cases (h = 1 ms, projection onto the constraints, the built-in models as `rtmbs bench` loads them;
the sedans and the axle start at rest (their files' speed 0) and drive straight with 100 N m on
each half shaft):
``multilink-ideal`` (one corner, n 77) li-euler; ``sedan-rear-axle`` (the sedan's rear axle:
two five-link corners, anti-roll bar, half shafts, brakes, under half a chassis whose pitch an
axle rig holds, ``pitch_held``; n 147) li-euler; ``sedan`` li-euler, li-euler-indep
B=partition, li-euler-indep B=qr; ``sedan-bushings`` li-euler.

Each round runs every case once (``steps`` steps after ``warmup``), so the cases are interleaved
in time and share the machine's load. Every step is timed in process CPU time
(``time.process_time_ns``) and wall time; per case the samples of all rounds are pooled and the
median, p99.9 and max are printed, with the median of each round to show the spread.

Memory: bytes of the numpy arrays the solver object owns (walked through its attributes, each
buffer counted once, views counted through their base), and of the largest of them, against
nnz(M) + nnz(Φq) + nnz(Jq) evaluated at the initial state (non-zero values there, not the
structural pattern), and the packed workspace that the compiled li-euler step evaluates into
(M, Φq, Jq, Jq̇ in their fixed blocks, ``CartesianSystem.packed_layout``). The re-analyses / fallbacks / rebases counted during the timed steps
(rtmbs.solvers.timing.factorisation_events) explain the tails. Not a test: numbers go to
docs/benchmarks.md and docs/models/sedan.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.solvers.timing import factorisation_events  # noqa: E402
from rtmbs.models import load_model  # noqa: E402
from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402

H = 1e-3
CASES = [  # (label, model, solver, options)
    ("corner li-euler", "multilink-ideal", "li-euler", {}),
    ("rear axle li-euler", "sedan-rear-axle", "li-euler", {}),
    ("sedan li-euler (Alg. 1)", "sedan", "li-euler", {}),
    ("sedan li-euler-indep B=partition (Alg. 2)", "sedan", "li-euler-indep", {"B": "partition"}),
    ("sedan li-euler-indep B=qr (Alg. 2)", "sedan", "li-euler-indep", {"B": "qr"}),
    ("sedan-bushings li-euler", "sedan-bushings", "li-euler", {}),
]


def _system(name):
    if name == "sedan-rear-axle":
        from rtmbs.system import compile_model
        from rtmbs.vehicle.build.vehicle import SEDAN_REAR_AXLE, load_vehicle_file, pitch_held

        s = compile_model(pitch_held(load_vehicle_file(SEDAN_REAR_AXLE)))
    else:
        s = load_model(name)
    if "drive_torque" in s.input_names:
        s.set_input("drive_torque", 100.0)
    return s


def _owned_arrays(obj, seen_obj, arrays, depth=0):
    """Collect the owning buffers of every ndarray reachable from ``obj``'s attributes."""
    if depth > 4 or id(obj) in seen_obj:
        return
    seen_obj.add(id(obj))
    if isinstance(obj, np.ndarray):
        base = obj
        while isinstance(base.base, np.ndarray):
            base = base.base
        arrays[id(base)] = base
        return
    if isinstance(obj, dict):
        items = obj.values()
    elif isinstance(obj, (list, tuple)):
        items = obj
    elif hasattr(obj, "__dict__") and type(obj).__module__.startswith("rtmbs") \
            and not type(obj).__name__.endswith("System"):
        items = vars(obj).values()
    else:
        return
    for v in items:
        _owned_arrays(v, seen_obj, arrays, depth + 1)


def memory(slv, system):
    arrays: dict = {}
    _owned_arrays(slv, set(), arrays)
    total = sum(a.nbytes for a in arrays.values())
    big = max(arrays.values(), key=lambda a: a.nbytes)
    ws, st = system.workspace(), system.initial_state()
    system.evaluate(0.0, st.q, st.qd, ws, EVAL_M | EVAL_Q | EVAL_JAC | EVAL_PHIQ)
    nnz = {k: int(np.count_nonzero(getattr(ws, k))) for k in ("M", "phiq", "Jq")}
    return {"solver_bytes": int(total), "largest_shape": list(big.shape),
            "largest_bytes": int(big.nbytes), "workspace_bytes": int(ws.buf.nbytes),
            "packed_bytes": int(8 * system.packed_layout.size), **nnz,
            "nnz_total": sum(nnz.values()),
            "dense_bytes": int(8 * (2 * system.n ** 2 + system.m * system.n)),
            "nnz_bytes": int(12 * sum(nnz.values()))}


def run(slv, state, steps, warmup):
    for _ in range(warmup):
        slv.step(state, H)
    cpu = np.empty(steps, np.int64)
    wall = np.empty(steps, np.int64)
    pc, wc, step = time.process_time_ns, time.perf_counter_ns, slv.step
    for i in range(steps):
        c, w = pc(), wc()
        step(state, H)
        wall[i] = wc() - w
        cpu[i] = pc() - c
    if not (np.isfinite(state.q).all() and np.isfinite(state.qd).all()):
        raise RuntimeError("diverged")
    return cpu / 1e3, wall / 1e3


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--warmup", type=int, default=200)
    ap.add_argument("--json", default=None)
    ap.add_argument("--memory-only", action="store_true", help="the memory table only (no timing)")
    a = ap.parse_args(argv)
    systems = {name: _system(name) for name in {c[1] for c in CASES}}
    setup = []
    for label, model, solver, opts in CASES:
        s = systems[model]
        slv = get_solver(solver)(s, stabilize="projection", **opts)
        st = s.initial_state()
        slv.reset(st)
        slv.step(st.copy(), H)  # warm-up
        slv.reset(st)
        setup.append((label, s, slv, st))
    cpu = {c[0]: [] for c in setup}
    wall = {c[0]: [] for c in setup}
    load = [os.getloadavg()[0]]
    events0 = {c[0]: factorisation_events(c[2]) for c in setup}
    if a.memory_only:
        return _memory_table(setup, [{} for _ in setup])
    for r in range(a.rounds):
        for label, s, slv, st in setup:
            c, w = run(slv, st, a.steps, a.warmup if r == 0 else 0)
            cpu[label].append(c)
            wall[label].append(w)
        load.append(os.getloadavg()[0])
    print(f"{os.cpu_count()} cores, load {min(load):.1f}-{max(load):.1f}, steps={a.steps} × "
          f"rounds={a.rounds} (interleaved), h = 1 ms, projection")
    print("| case | n | m | f | CPU µs/step median | p99.9 | max | round medians | wall median | "
          "wall p99.9 | wall max | t_end s | re-analyses / fallbacks / rebases |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    out = []
    for label, s, slv, st in setup:
        c, w = np.concatenate(cpu[label]), np.concatenate(wall[label])
        ev = {k: v - events0[label][k] for k, v in factorisation_events(slv).items()}
        rm = " / ".join(f"{np.median(x):.0f}" for x in cpu[label])
        row = {"case": label, "model": s.name, "n": s.n, "m": s.m, "f": s.n - s.m,
               "cpu_median": float(np.median(c)), "cpu_p999": float(np.percentile(c, 99.9)),
               "cpu_max": float(c.max()),
               "round_medians": [float(np.median(x)) for x in cpu[label]],
               "wall_median": float(np.median(w)), "wall_p999": float(np.percentile(w, 99.9)),
               "wall_max": float(w.max()), "t_end": float(st.t), **ev}
        out.append(row)
        print(f"| {label} | {s.n} | {s.m} | {s.n - s.m} | {row['cpu_median']:.0f} | "
              f"{row['cpu_p999']:.0f} | {row['cpu_max']:.0f} | {rm} | {row['wall_median']:.0f} | "
              f"{row['wall_p999']:.0f} | {row['wall_max']:.0f} | {st.t:.2f} | "
              f"{ev['nanalyse']} / {ev['nfallback']} / {ev['nrebase']} |")
    print()
    _memory_table(setup, out)
    if a.json:
        with open(a.json, "w") as fh:
            json.dump({"load": load, "steps": a.steps, "rounds": a.rounds, "cases": out}, fh,
                      indent=1)


def _memory_table(setup, out):
    print("| case | solver arrays (bytes) | largest array | dense workspace bytes | packed workspace "
          "bytes | nnz M / Φq / Jq (total) | M, Φq, Jq stored dense: 8(2n² + mn) bytes | as CSR: "
          "12 nnz bytes |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for (label, s, slv, st), row in zip(setup, out):
        mem = memory(slv, s)
        row["memory"] = mem
        print(f"| {label} | {mem['solver_bytes']:,} | {mem['largest_shape']} "
              f"{mem['largest_bytes']:,} | {mem['workspace_bytes']:,} | {mem['packed_bytes']:,} | "
              f"{mem['M']} / {mem['phiq']} / "
              f"{mem['Jq']} ({mem['nnz_total']}) | {mem['dense_bytes']:,} | {mem['nnz_bytes']:,} |")


if __name__ == "__main__":
    main()
