"""Cost of the paced loop itself and the jitter of its step starts (not a test).

1. Loop overhead per step: an empty model and an empty solver step, run with h = 1 µs so the loop
   never sleeps (every step is late, policy ``warn``): wall time / steps is the whole cost of one
   iteration (tick check, input read, step call, outputs, bookkeeping). Median of repeats.
2. The turnaround of the empty step (the timed part: read, step, publish) from the same runs.
3. Start jitter at 1 kHz: a paced run of the empty model for ``--duration`` s, lateness
   percentiles (p50, p99, p99.9, max) and overruns; the same with the mass-spring-damper model
   and its semi-implicit Euler step over UDP loopback is left to ``rtmbs realtime``.

    OPENBLAS_NUM_THREADS=1 python benchmarks/bench_realtime.py --duration 15
"""
from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import numpy as np  # noqa: E402

from rtmbs.protocol import MechanicalSystem, State  # noqa: E402
from rtmbs.realtime import run_realtime  # noqa: E402
from rtmbs.solvers.base import Solver  # noqa: E402
from rtmbs.solvers.timing import cpu_model  # noqa: E402


class EmptySystem(MechanicalSystem):
    n = 1
    m = 0
    name = "empty"
    output_names = ("x",)

    def evaluate(self, t, q, qd, ws, what):
        pass

    def initial_state(self):
        return State(0.0, np.zeros(1), np.zeros(1))

    def outputs(self, t, q, qd, out):
        out[0] = q[0]


class EmptyStep(Solver):
    name = "empty"

    def _step_impl(self, state, h):
        return True


def machine() -> str:
    cpu = cpu_model(fallback="?")
    load = os.getloadavg() if hasattr(os, "getloadavg") else ("?",) * 3
    return (f"{cpu}, {os.cpu_count()} cores, Linux {platform.release()}, Python "
            f"{platform.python_version()}, numpy {np.__version__}; load average at start "
            f"{load[0]:.2f} (shared machine)")


def overhead(repeats: int, steps: int):
    per_iter, turn50 = [], []
    for _ in range(repeats):
        system = EmptySystem()
        rep = run_realtime(system, EmptyStep(system), h=1e-6, duration=steps * 1e-6,
                           policy="warn", record=False)
        per_iter.append(rep.wall_ns / rep.steps)
        turn50.append(float(np.median(rep.turnaround_ns)))
    return statistics.median(per_iter), min(per_iter), statistics.median(turn50)


def jitter(duration: float, h: float = 1e-3, priority=None):
    system = EmptySystem()
    return run_realtime(system, EmptyStep(system), h=h, duration=duration, policy="warn",
                        record=False, priority=priority).summary()


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--duration", type=float, default=15.0, help="paced run at 1 kHz [s]")
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--steps", type=int, default=20000, help="steps per overhead repeat")
    ap.add_argument("--priority", type=int, default=50, help="SCHED_FIFO priority of the second run")
    args = ap.parse_args(argv)
    print(f"machine: {machine()}\n")
    med, best, t50 = overhead(args.repeats, args.steps)
    print("| loop cost, empty model | ns per step |")
    print("| --- | --- |")
    print(f"| whole iteration (unpaced, h = 1 µs), median of {args.repeats} × {args.steps} steps "
          f"(best) | {med:.0f} ({best:.0f}) |")
    print(f"| timed part: read inputs + step call + outputs (median turnaround) | {t50:.0f} |")
    for prio in (None, args.priority):
        s = jitter(args.duration, priority=prio)
        print(f"\n1 kHz paced run of the empty model, {s['steps']} steps ({args.duration:g} s), "
              f"scheduler {s['sched']}, load average {os.getloadavg()[0]:.2f} after:\n")
        print("| series | p50 | p99 | p99.9 | max |")
        print("| --- | --- | --- | --- | --- |")
        for key, label in (("lateness_us", "start lateness (µs)"), ("turnaround_us", "turnaround (µs)")):
            print(f"| {label} | " + " | ".join(f"{s[f'{key}_{p}']:.1f}" for p in ("p50", "p99", "p999", "max")) + " |")
        print(f"\noverruns: {s['overruns']} of {s['steps']}, slip {s['slip_us']:.0f} µs, "
              f"real-time factor {s['realtime_factor']:.5f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
