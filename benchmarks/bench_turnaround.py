"""The real-time loop's turnaround against the step's own time (the aim: a turnaround median
within 10 % of the step's own time). Not a test.

Per model and round, interleaved:

1. **hot step**: ``solver.step`` called back to back from Python, 2000 steps after 300 warm-up
   steps; each step timed alone in process CPU time; median.
2. **hot step + outputs**: the same with ``solver.step_outputs`` (the step and the named outputs
   at its end, one compiled call on the compiled ``li-euler``): what the loop times.
3. **paced**: ``run_realtime`` at h = 1 ms for ``--duration`` s, sleeping until 200 µs before
   each tick (the default); median turnaround (wall) and step CPU time.
4. **paced, busy-wait**: the same with ``busy_wait=True`` (no sleep: the core stays on the loop).
5. **paced, outputs at the start**: 3 and 4 with ``outputs_at="start"`` (each step publishes the
   outputs of the state it starts from, gathered from its own evaluation).
6. **paced, busy-wait + prewarm**: 4 and its outputs-at-start form with ``prewarm=True`` (a
   shadow step on a second data object just before each tick, the caches warm).

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_turnaround.py [--models multilink-ideal,...]
        [--rounds 3] [--duration 5] [--priority 50]

Prints one Markdown table: medians over rounds (µs), and each paced turnaround / hot step.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.models import load_model  # noqa: E402
from rtmbs.realtime import run_realtime  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402

H = 1e-3


def hot(name: str, with_outputs: bool, steps: int = 2000) -> float:
    """Median process-CPU µs of one step (with the outputs) called back to back."""
    s = load_model(name)
    st = s.initial_state()
    slv = get_solver("li-euler")(s)
    slv.reset(st)
    out = np.zeros(len(s.output_names))
    for _ in range(300):
        slv.step_outputs(st, H, out)
    cpu = time.process_time_ns
    ts = np.empty(steps, np.int64)
    if with_outputs:
        for k in range(steps):
            c0 = cpu()
            slv.step_outputs(st, H, out)
            ts[k] = cpu() - c0
    else:
        for k in range(steps):
            c0 = cpu()
            slv.step(st, H)
            ts[k] = cpu() - c0
    return float(np.median(ts)) * 1e-3


def paced(name: str, duration: float, busy: bool, priority, outputs_at="end",
          prewarm=False) -> tuple[float, float]:
    """(median turnaround µs, median step CPU µs) of a paced run."""
    s = load_model(name)
    rep = run_realtime(s, "li-euler", h=H, duration=duration, record=False, busy_wait=busy,
                       priority=priority, outputs_at=outputs_at, prewarm=prewarm)
    d = rep.summary()
    return d["turnaround_us_p50"], d["step_cpu_us_p50"]


def main(argv=None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--models", default="multilink-ideal,peer-quarter-car")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--duration", type=float, default=5.0)
    ap.add_argument("--priority", type=int, default=None)
    a = ap.parse_args(argv)
    print(f"{platform.processor() or platform.machine()}, Python {platform.python_version()}, "
          f"load average before {os.getloadavg()[0]:.2f}")
    rows = {}
    for r in range(a.rounds):
        for name in a.models.split(","):
            res = rows.setdefault(name, {k: [] for k in ("step", "step_out", "sleep", "sleep_cpu",
                                                         "busy", "busy_cpu", "sleep_start",
                                                         "busy_start", "warm", "warm_start")})
            res["step"].append(hot(name, False))
            res["step_out"].append(hot(name, True))
            t, c = paced(name, a.duration, False, a.priority)
            res["sleep"].append(t)
            res["sleep_cpu"].append(c)
            t, c = paced(name, a.duration, True, a.priority)
            res["busy"].append(t)
            res["busy_cpu"].append(c)
            res["sleep_start"].append(paced(name, a.duration, False, a.priority, "start")[0])
            res["busy_start"].append(paced(name, a.duration, True, a.priority, "start")[0])
            res["warm"].append(paced(name, a.duration, True, a.priority, "end", True)[0])
            res["warm_start"].append(paced(name, a.duration, True, a.priority, "start", True)[0])
            print(f"round {r + 1} {name}: " + ", ".join(f"{k} {v[-1]:.1f}" for k, v in res.items()),
                  flush=True)
    print(f"load average after {os.getloadavg()[0]:.2f}")
    print("\n| model | hot step | hot step + outputs | paced (sleep): turnaround / step CPU | "
          "ratio to hot step | paced (busy-wait): turnaround / step CPU | ratio to hot step | "
          "outputs at start, paced (sleep) · (busy-wait): turnaround | ratio to hot step | "
          "busy-wait + prewarm, outputs at end · at start | ratio to hot step |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, res in rows.items():
        med = {k: float(np.median(v)) for k, v in res.items()}
        print(f"| {name} | {med['step']:.1f} | {med['step_out']:.1f} | {med['sleep']:.1f} / "
              f"{med['sleep_cpu']:.1f} | {med['sleep'] / med['step']:.2f} | {med['busy']:.1f} / "
              f"{med['busy_cpu']:.1f} | {med['busy'] / med['step']:.2f} | "
              f"{med['sleep_start']:.1f} · {med['busy_start']:.1f} | "
              f"{med['sleep_start'] / med['step']:.2f} · {med['busy_start'] / med['step']:.2f} | "
              f"{med['warm']:.1f} · {med['warm_start']:.1f} | "
              f"{med['warm'] / med['step']:.2f} · {med['warm_start'] / med['step']:.2f} |")


if __name__ == "__main__":
    main()
