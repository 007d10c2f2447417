"""Runs per second of a parameter sweep: one core in process against a 2-worker Dask LocalCluster
(results in docs/benchmarks.md, "Many runs on Dask").

    python benchmarks/bench_runs.py [--model double-pendulum] [--runs 48] [--t-end 0.2,1,5]

For each run length: ``--runs`` runs of ``rtmbs.runs.sweep.run_one`` (compile the description
with one parameter changed, ``simulate`` with li-euler at h = 1 ms, the table row), after one
warm-up run per process: in process one after the other, then ``run_many`` on a 2-worker
LocalCluster kept open (one run per Dask task, then ``--batch`` runs per task), interleaved over
``--rounds`` rounds. The cluster's start, the workers' first task (importing rtmbs), the
cost of a task that does nothing and the CPU time of a run in process and on a worker are
reported too.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402


def timed_run(task):
    """``run_one`` with the wall and CPU (thread) time of the whole task."""
    from rtmbs.runs.sweep import run_one

    w, c = time.perf_counter(), time.thread_time()
    run_one(task)
    return time.perf_counter() - w, time.thread_time() - c


def _tasks(spec, n, path, base):
    return [(spec, {path: base * (1.0 + 0.01 * i)}) for i in range(n)]


def _rate(fn):
    t0 = time.perf_counter()
    rows = fn()
    return time.perf_counter() - t0, rows


def main(argv=None):
    import sys

    import cloudpickle

    from rtmbs.runs.engine import local_cluster, run_many
    from rtmbs.runs.parameters import build_system
    from rtmbs.runs.sweep import prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="double-pendulum")
    ap.add_argument("--param", default="bodies.link2.mass")
    ap.add_argument("--runs", type=int, default=32)
    ap.add_argument("--t-end", default="0.2,1,5", help="run lengths [s], comma separated")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--batch", type=int, default=8, help="runs per Dask task of the batched timing")
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians reported)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = {"model": args.model, "runs": args.runs, "workers": args.workers, "cpus": os.cpu_count(),
           "loadavg_start": os.getloadavg()[0], "lengths": []}
    specs = {}
    for t_end in (float(x) for x in args.t_end.split(",")):
        spec, _ = prepare(args.model, {args.param: [1.0]}, signals=None, t_end=t_end, h=1e-3)
        specs[t_end] = spec
        timed_run((spec, {args.param: 1.0}))  # warm-up: first-call costs out of the timing
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # timed_run to the workers
    t0 = time.perf_counter()
    with local_cluster(args.workers) as client:
        up = time.perf_counter() - t0
        spec0 = next(iter(specs.values()))
        warm, _ = _rate(lambda: run_many(timed_run, _tasks(spec0, args.workers, args.param, 1.0),
                                         scheduler=client, progress=False))
        empty, _ = _rate(lambda: run_many(abs, list(range(200)), scheduler=client, progress=False))
        out["task_overhead_ms"] = empty / 200 * 1e3
        for t_end, spec in specs.items():
            tasks = _tasks(spec, args.runs, args.param, 1.0)
            rec = {"here": [], "cluster": [], "batched": [], "cpu_here": [], "cpu_worker": [],
                   "wall_here": [], "wall_worker": []}
            for _ in range(args.rounds):  # interleaved: the load changes during the minutes
                w, rows = _rate(lambda: run_many(timed_run, tasks, progress=False))
                rec["here"].append(args.runs / w)
                rec["cpu_here"] += [r[1] for r in rows]
                rec["wall_here"] += [r[0] for r in rows]
                w, rows = _rate(lambda: run_many(timed_run, tasks, scheduler=client, progress=False))
                rec["cluster"].append(args.runs / w)
                rec["cpu_worker"] += [r[1] for r in rows]
                rec["wall_worker"] += [r[0] for r in rows]
                w, _ = _rate(lambda: run_many(timed_run, tasks, scheduler=client, progress=False,
                                              batch=args.batch))
                rec["batched"].append(args.runs / w)
            b0 = time.perf_counter()
            for i in range(10):
                build_system(spec.model, {args.param: 1.0 + 0.01 * i}, spec.inputs)
            med = {k: statistics.median(v) for k, v in rec.items()}
            out["lengths"].append({"t_end": t_end, "build_s": (time.perf_counter() - b0) / 10,
                                   **{k: med[k] for k in med},
                                   "here_range": [min(rec["here"]), max(rec["here"])],
                                   "cluster_range": [min(rec["cluster"]), max(rec["cluster"])],
                                   "batched_range": [min(rec["batched"]), max(rec["batched"])]})
    out["cluster_start_s"] = up
    out["worker_warmup_s"] = warm
    out["loadavg_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.model}, {args.runs} runs per length and mode, li-euler h = 1 ms, {os.cpu_count()} "
          f"CPUs, {args.rounds} interleaved rounds (median [min-max]), load average "
          f"{out['loadavg_start']:.2f} -> {out['loadavg_end']:.2f}")
    print(f"LocalCluster({args.workers} workers) up in {up:.2f} s, first task per worker (imports)"
          f" {warm:.2f} s, empty task {out['task_overhead_ms']:.2f} ms")
    print("| run length (s) | build model (ms) | CPU per run in process / on a worker (ms) | wall per "
          "run in process / on a worker (ms) | in process (runs/s) | LocalCluster (runs/s) | speed-up "
          f"| LocalCluster, {args.batch} runs per task (runs/s) | speed-up |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")

    def rng(r, k):
        return f"{r[k]:.3g} [{r[k + '_range'][0]:.3g}-{r[k + '_range'][1]:.3g}]"

    for r in out["lengths"]:
        print(f"| {r['t_end']:g} | {r['build_s'] * 1e3:.1f} | {r['cpu_here'] * 1e3:.3g} / "
              f"{r['cpu_worker'] * 1e3:.3g} | {r['wall_here'] * 1e3:.3g} / {r['wall_worker'] * 1e3:.3g} | "
              f"{rng(r, 'here')} | {rng(r, 'cluster')} | {r['cluster'] / r['here']:.2f} | "
              f"{rng(r, 'batched')} | {r['batched'] / r['here']:.2f} |")


if __name__ == "__main__":
    main()
