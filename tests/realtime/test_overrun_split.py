"""Overruns split by cause: a step overrun when the step's own CPU time exceeds h,
else an OS overrun, a late start when lateness + CPU time > h, else a preemption
(rtmbs.realtime.stats.split_overruns, docs/realtime.md). A synthetic timing record with every
kind and the boundaries, then a paced run in which each kind is caused on purpose."""
import json

import numpy as np
import pytest

import _models.realtime as tm
from rtmbs.realtime import FLAG_OVERRUN, run_realtime
from rtmbs.realtime.stats import split_overruns, summary_markdown

US = 1000  # ns


def test_split_of_a_synthetic_record():
    """h = 1 ms; per step (lateness, turnaround, CPU) in µs and the kind it is."""
    rows = [
        (10, 500, 490, None),            # on time
        (0, 1000, 1000, None),           # finishes exactly on the next tick: not an overrun
        (50, 1200, 1150, "step"),        # the step's compute alone exceeds h
        (5, 1002, 1001, "step"),         # 1 µs of CPU over h
        (600, 500, 500, "late"),         # a late start: 600 + 500 > 1000 with the step on CPU
        (300, 800, 750, "late"),         # 300 + 750 > 1000
        (20, 1500, 400, "preempted"),    # started on time, off the CPU 1.1 ms inside the step
        (100, 950, 900, "preempted"),    # 100 + 900 = 1000: the late start alone did not miss
        (0, 2500, 1000, "preempted"),    # CPU exactly h is not a step overrun
    ]
    late, turn, cpu = (np.array([r[i] * US for r in rows], np.int64) for i in range(3))
    kinds = [r[3] for r in rows]
    s = split_overruns(turn, late, cpu, 1e-3)
    assert s == {"overruns": 7, "step_overruns": kinds.count("step"),
                 "os_overruns": kinds.count("late") + kinds.count("preempted"),
                 "os_overruns_late_start": kinds.count("late"),
                 "os_overruns_preempted": kinds.count("preempted")}
    assert s["step_overruns"] + s["os_overruns"] == s["overruns"]
    with pytest.raises(ValueError, match="one entry per step"):
        split_overruns(turn, late, cpu[:-1], 1e-3)


def test_summary_reports_the_split():
    series = ("turnaround_us", "lateness_us", "step_cpu_us")
    md = summary_markdown({"h": 1e-3, "steps": 3, "model": "m", "solver": "s", "policy": "warn",
                           **{f"{k}_{p}": 1.0 for k in series
                              for p in ("p50", "p99", "p999", "max", "mean")},
                           "overruns": 3, "step_overruns": 1, "os_overruns": 2})
    assert "| step CPU time (µs) |" in md
    assert "| step_overruns | 1 |" in md and "| os_overruns | 2 |" in md


def test_paced_run_splits_each_cause(tmp_path):
    """h = 20 ms, 30 steps on a simulated clock: step 5 computes 30 ms of CPU time, step 12 is
    off the CPU for 50 ms inside the step, step 19 is off it for 50 ms after the step, so that
    step 20 starts 30 ms late."""
    h, ms = 0.02, 1e-3
    system = tm.MassSpringDamper()
    clock = tm.OffCpuClock()
    slv = tm.CausedStallEuler(system, clock, computes={5: 30 * ms}, sleeps={12: 50 * ms},
                              sleeps_after={19: 50 * ms})
    rep = run_realtime(system, slv, h=h, duration=0.6, policy="warn", out=tmp_path, clock=clock)
    assert rep.steps == 30
    assert [int(k) for k in np.flatnonzero(rep.flags & FLAG_OVERRUN)] == [5, 12, 20]
    assert 30_000_000 <= rep.cpu_ns[5] < 31_000_000
    assert rep.turnaround_ns[12] >= 50_000_000 and rep.cpu_ns[12] < 1_000_000
    assert 30_000_000 <= rep.lateness_ns[20] < 31_000_000 and rep.cpu_ns[20] < 1_000_000
    s = rep.summary()
    assert (s["overruns"], s["step_overruns"], s["os_overruns"]) == (3, 1, 2)
    assert (s["os_overruns_late_start"], s["os_overruns_preempted"]) == (1, 1)
    saved = json.loads((tmp_path / "summary.json").read_text())
    assert (saved["step_overruns"], saved["os_overruns"]) == (1, 2)
    assert saved["step_cpu_us_max"] >= 30_000
    t = np.load(tmp_path / "timings.npz")
    assert np.array_equal(t["cpu_ns"], rep.cpu_ns)
