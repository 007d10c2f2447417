"""Runs per second of a parameter sweep: one core in process against a 2-worker Dask LocalCluster
(issue 15; results in docs/benchmarks.md, "Many runs on Dask").

    python benchmarks/bench_runs.py [--model double-pendulum] [--runs 48] [--t-end 0.2,1,5]

For each run length: ``--runs`` runs of ``rtmbs.runs.sweep.run_one`` (compile the description
with one parameter changed, ``simulate`` with li-euler at h = 1 ms, the table row), after one
warm-up run per process. In process: one after the other. On the cluster: ``run_many`` on a
client kept open, after a warm-up batch of one task per worker (the workers load the numba cache
then: that start-up is timed separately). Also the cost of a task that does nothing (Dask's
per-task overhead) and, in process, the split of a run into building the model and integrating.
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


def main(argv=None):
    from rtmbs.runs.engine import local_cluster, run_many
    from rtmbs.runs.parameters import build_system
    from rtmbs.runs.sweep import prepare

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="double-pendulum")
    ap.add_argument("--param", default="bodies.link2.mass")
    ap.add_argument("--runs", type=int, default=48)
    ap.add_argument("--t-end", default="0.2,1,5", help="run lengths [s], comma separated")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = {"model": args.model, "runs": args.runs, "workers": args.workers, "cpus": os.cpu_count(),
           "loadavg_start": os.getloadavg()[0], "lengths": []}
    specs = {}
    for t_end in (float(x) for x in args.t_end.split(",")):
        spec, _ = prepare(args.model, {args.param: [1.0]}, signals=None, t_end=t_end, h=1e-3)
        specs[t_end] = spec
    # in process
    for t_end, spec in specs.items():
        timed_run((spec, {args.param: 1.0}))  # warm-up: numba cache loaded
        t0 = time.perf_counter()
        rows = run_many(timed_run, _tasks(spec, args.runs, args.param, 1.0), progress=False)
        wall = time.perf_counter() - t0
        t1 = time.perf_counter()
        for i in range(10):
            build_system(spec.model, {args.param: 1.0 + 0.01 * i}, spec.inputs)
        build = (time.perf_counter() - t1) / 10
        out["lengths"].append({"t_end": t_end, "in_process_runs_per_s": args.runs / wall,
                               "build_s": build, "run_s": wall / args.runs,
                               "in_process_task_wall_s": statistics.median(r[0] for r in rows),
                               "in_process_task_cpu_s": statistics.median(r[1] for r in rows)})
    # LocalCluster
    import sys

    import cloudpickle

    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # timed_run to the workers
    t0 = time.perf_counter()
    with local_cluster(args.workers) as client:
        up = time.perf_counter() - t0
        spec0 = next(iter(specs.values()))
        t1 = time.perf_counter()
        run_many(timed_run, _tasks(spec0, args.workers, args.param, 1.0), scheduler=client, progress=False)
        warm = time.perf_counter() - t1
        t1 = time.perf_counter()
        run_many(abs, list(range(200)), scheduler=client, progress=False)
        out["task_overhead_ms"] = (time.perf_counter() - t1) / 200 * 1e3
        for row, (t_end, spec) in zip(out["lengths"], specs.items()):
            t1 = time.perf_counter()
            rows = run_many(timed_run, _tasks(spec, args.runs, args.param, 1.0), scheduler=client,
                            progress=False)
            wall = time.perf_counter() - t1
            row["worker_task_wall_s"] = statistics.median(r[0] for r in rows)
            row["worker_task_cpu_s"] = statistics.median(r[1] for r in rows)
            row["cluster_runs_per_s"] = args.runs / wall
            row["speed_up"] = row["cluster_runs_per_s"] / row["in_process_runs_per_s"]
    out["cluster_start_s"] = up
    out["worker_warmup_s"] = warm
    out["loadavg_end"] = os.getloadavg()[0]
    if args.json:
        print(json.dumps(out))
        return
    print(f"{args.model}, {args.runs} runs per length, li-euler h = 1 ms, {os.cpu_count()} CPUs, "
          f"load average {out['loadavg_start']:.2f} -> {out['loadavg_end']:.2f}")
    print(f"LocalCluster({args.workers} workers) up in {up:.2f} s, first task per worker (numba cache "
          f"load) {warm:.2f} s, empty task {out['task_overhead_ms']:.2f} ms")
    print("| run length (s) | build model (ms) | CPU per run in process / on a worker (ms) | wall per "
          "run in process / on a worker (ms) | in process (runs/s) | LocalCluster (runs/s) | speed-up |")
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for r in out["lengths"]:
        print(f"| {r['t_end']:g} | {r['build_s'] * 1e3:.1f} | {r['in_process_task_cpu_s'] * 1e3:.3g} / "
              f"{r['worker_task_cpu_s'] * 1e3:.3g} | {r['in_process_task_wall_s'] * 1e3:.3g} / "
              f"{r['worker_task_wall_s'] * 1e3:.3g} | {r['in_process_runs_per_s']:.3g} | "
              f"{r['cluster_runs_per_s']:.3g} | {r['speed_up']:.2f} |")


if __name__ == "__main__":
    main()
