"""Runs per second of the concept quarter car through the four-phase test: one core in process
against a 2-worker Dask LocalCluster (results in docs/benchmarks.md, "Concept model
runs on Dask").

    python benchmarks/bench_concept_runs.py [--runs 8] [--scales 1,0.25] [--rounds 3]

A run is what one Jacobian column of the concept identification costs:
``rtmbs.concept.calibrate.QuarterCarSimulator`` (build and compile the model description with a
changed K_r, li-euler at h = 1 ms through the test, z, v_z, a_z). For each test length (the 18 s
test scaled by ``--scales``): ``--runs`` runs in process one after the other, then the same runs
through ``run_many`` on a 2-worker LocalCluster kept open (one run per Dask task), then one
Jacobian of the study (5 columns) both ways; interleaved over ``--rounds`` rounds, medians.
Wall time and process CPU time of this process, and the CPU time of each run where it ran.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import json  # noqa: E402
import statistics  # noqa: E402
import time  # noqa: E402


def timed_run(task):
    """One concept run (``task`` = (simulator, params)) with its wall and CPU (thread) time."""
    sim, params = task
    w, c = time.perf_counter(), time.thread_time()
    out = sim(params)
    return time.perf_counter() - w, time.thread_time() - c, out["status"]


def _tasks(sim, n):
    return [(sim, {"K_r": 30000.0 * (1.0 + 0.01 * i)}) for i in range(n)]


def _timed(fn):
    w, c = time.perf_counter(), time.process_time()
    rows = fn()
    return time.perf_counter() - w, time.process_time() - c, rows


def main(argv=None):
    import sys

    import cloudpickle

    from rtmbs.concept import calibrate as idf
    from rtmbs.concept import drive_cycles as mv
    from rtmbs.runs.engine import local_cluster, run_many

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=8)
    ap.add_argument("--scales", default="1,0.25", help="test lengths as fractions of 18 s")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rounds", type=int, default=3, help="interleaved rounds (medians reported)")
    ap.add_argument("--json", action="store_true")
    args = ap.parse_args(argv)
    out = {"runs": args.runs, "workers": args.workers, "cpus": os.cpu_count(),
           "loadavg_start": list(os.getloadavg()), "lengths": []}
    sims = {}
    for s in (float(x) for x in args.scales.split(",")):
        sims[s] = idf.quarter_car_simulator(mv.TEST.scaled(s) if s != 1.0 else mv.TEST)
        timed_run((sims[s], {}))  # warm-up: first-call costs out of the timing
    cloudpickle.register_pickle_by_value(sys.modules[__name__])  # timed_run to the workers
    t0 = time.perf_counter()
    with local_cluster(args.workers) as client:
        out["cluster_start_s"] = time.perf_counter() - t0
        first = next(iter(sims.values()))
        out["worker_warmup_s"] = _timed(lambda: run_many(timed_run, _tasks(first, args.workers),
                                                         scheduler=client, progress=False))[0]
        for s, sim in sims.items():
            tasks = _tasks(sim, args.runs)
            jac = _tasks(sim, 5)
            rec = {k: [] for k in ("here", "cluster", "cpu_proc_here", "cpu_proc_cluster",
                                   "cpu_run_here", "cpu_run_worker", "wall_run_here",
                                   "wall_run_worker", "jac_here_s", "jac_cluster_s")}
            for _ in range(args.rounds):  # interleaved: the machine's load changes
                w, c, rows = _timed(lambda: run_many(timed_run, tasks, progress=False))
                assert all(r[2] == 1 for r in rows)
                rec["here"].append(args.runs / w)
                rec["cpu_proc_here"].append(c / args.runs)
                rec["cpu_run_here"] += [r[1] for r in rows]
                rec["wall_run_here"] += [r[0] for r in rows]
                w, c, rows = _timed(lambda: run_many(timed_run, tasks, scheduler=client,
                                                     progress=False))
                assert all(r[2] == 1 for r in rows)
                rec["cluster"].append(args.runs / w)
                rec["cpu_proc_cluster"].append(c / args.runs)
                rec["cpu_run_worker"] += [r[1] for r in rows]
                rec["wall_run_worker"] += [r[0] for r in rows]
                rec["jac_here_s"].append(_timed(lambda: run_many(timed_run, jac, progress=False))[0])
                rec["jac_cluster_s"].append(_timed(lambda: run_many(
                    timed_run, jac, scheduler=client, progress=False))[0])
            med = {k: statistics.median(v) for k, v in rec.items()}
            out["lengths"].append({"t_end": sim.manoeuvre.t_end, **med,
                                   "here_range": [min(rec["here"]), max(rec["here"])],
                                   "cluster_range": [min(rec["cluster"]), max(rec["cluster"])]})
    out["loadavg_end"] = list(os.getloadavg())
    if args.json:
        print(json.dumps(out))
        return
    la0, la1 = out["loadavg_start"], out["loadavg_end"]
    print(f"concept quarter car, four-phase test, li-euler h = 1 ms; {args.runs} runs per mode and "
          f"round, {args.rounds} interleaved rounds (median [min-max]); {os.cpu_count()} CPUs, load "
          f"average {la0[0]:.2f}/{la0[1]:.2f}/{la0[2]:.2f} -> {la1[0]:.2f}/{la1[1]:.2f}/{la1[2]:.2f}")
    print(f"LocalCluster({args.workers}) up in {out['cluster_start_s']:.2f} s, first task per "
          f"worker {out['worker_warmup_s']:.2f} s")
    print("| test length (s) | CPU per run in process / on a worker (s) | wall per run in process / "
          "on a worker (s) | in process (runs/s) | LocalCluster (runs/s) | speed-up | client CPU "
          "per run in process / with the cluster (s) | one Jacobian (5 runs) in process / "
          "LocalCluster (s) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in out["lengths"]:
        print(f"| {r['t_end']:g} | {r['cpu_run_here']:.3g} / {r['cpu_run_worker']:.3g} | "
              f"{r['wall_run_here']:.3g} / {r['wall_run_worker']:.3g} | {r['here']:.3g} "
              f"[{r['here_range'][0]:.3g}-{r['here_range'][1]:.3g}] | {r['cluster']:.3g} "
              f"[{r['cluster_range'][0]:.3g}-{r['cluster_range'][1]:.3g}] | "
              f"{r['cluster'] / r['here']:.2f} | {r['cpu_proc_here']:.3g} / "
              f"{r['cpu_proc_cluster']:.3g} | {r['jac_here_s']:.2f} / {r['jac_cluster_s']:.2f} |")


if __name__ == "__main__":
    main()
