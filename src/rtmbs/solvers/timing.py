"""Timing the steps of a fixed-step solver (``rtmbs bench``, the studies and the demo).

Wall µs per step measured step by step after a warm-up, process CPU µs over the timed steps, and
the counters of the rare events that break the fixed cost (docs/solvers.md "fixed cost").
"""
from __future__ import annotations

import time

import numpy as np

from ..analysis.sizes import sizes
from ..errors import SolverError
from .base import get_solver


def cpu_model(fallback: str | None = None) -> str:
    """The processor's model name, as the benchmarks and studies report the machine: the "model
    name" of /proc/cpuinfo (Linux); without it ``fallback``, by default ``platform.processor()``
    or "?"."""
    import platform

    try:
        with open("/proc/cpuinfo") as fh:
            for line in fh:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return (platform.processor() or "?") if fallback is None else fallback


def median_cpu_s(fn, repeats: int = 15) -> tuple[float, float]:
    """(median, least) process CPU seconds of ``repeats`` calls of ``fn()``."""
    ts = []
    for _ in range(repeats):
        t0 = time.process_time()
        fn()
        ts.append(time.process_time() - t0)
    return float(np.median(ts)), min(ts)


def factorisation_events(slv) -> dict:
    """Counters of the rare, non-fixed-cost events (docs/solvers.md "fixed cost")."""
    return {k: int(getattr(slv, k, 0)) for k in ("nanalyse", "nfallback", "nrebase")}


def step_cpu_us(slv, state, h: float, steps: int) -> np.ndarray:
    """Process CPU µs of each of ``steps`` calls of ``slv.step(state, h)`` (the benchmarks'
    per-step times: CPU time leaves out the time a shared machine descheduled the process).
    Raises ``SolverError`` if a step fails."""
    out = np.empty(steps)
    clock = time.process_time_ns
    step = slv.step
    for k in range(steps):
        t0 = clock()
        ok = step(state, h)
        out[k] = clock() - t0
        if not ok:
            raise SolverError(f"{slv.name}: step {k + 1} of the timed steps failed at t = "
                              f"{state.t:.6g} s")
    return out / 1e3


def bench_steps(system, solver_name: str, h: float, steps: int, warmup: int = 200,
                options: dict | None = None, **more) -> dict:
    """Time ``steps`` steps of a solver after ``warmup`` steps (options: ``options`` and
    ``more``). Wall µs per step: median, p99, p99.9, max, mean; process CPU µs per step (mean over
    the timed steps); the re-analyses, fallbacks and rebases during the timed steps; ``status``
    "ok", "failed" (a step returned False; ``failed_step`` the first, counted from the first
    warm-up step) or "diverged" (non-finite state at the end)."""
    options = {**(options or {}), **more}
    slv = get_solver(solver_name)(system, **options)
    if slv.offline:
        raise SolverError(f"solver '{slv.name}' is an offline adaptive solver; rtmbs bench times "
                          "fixed-step solvers")
    if steps < 1 or warmup < 0:
        raise SolverError(f"bench: steps must be >= 1 and warmup >= 0, got {steps} and {warmup}")
    state = system.initial_state()
    slv.reset(state)
    step = slv.step
    failed = -1
    for i in range(warmup):
        if not step(state, h) and failed < 0:  # the solver advances state.t
            failed = i + 1
    before = factorisation_events(slv)
    dt = np.empty(steps, np.int64)
    clock = time.perf_counter_ns
    cpu0, wall0 = time.process_time_ns(), clock()
    for i in range(steps):
        a = clock()
        ok = step(state, h)
        dt[i] = clock() - a
        if not ok and failed < 0:
            failed = warmup + i + 1
    wall, cpu = clock() - wall0, time.process_time_ns() - cpu0
    events = {k: v - before[k] for k, v in factorisation_events(slv).items()}
    status = ("failed" if failed > 0 else "ok" if np.isfinite(state.q).all()
              and np.isfinite(state.qd).all() else "diverged")
    us = dt / 1e3
    p99, p999 = np.percentile(us, [99.0, 99.9])
    return {**sizes(system), "model": system.name, "solver": slv.name, "h": h, "steps": steps,
            "warmup": warmup, "t_end": float(state.t),
            "status": status, "failed_step": failed if failed > 0 else None,
            "us_per_step_median": float(np.median(us)), "us_per_step_p99": float(p99),
            "us_per_step_p999": float(p999), "us_per_step_max": float(us.max()),
            "us_per_step_mean": wall / 1e3 / steps, "cpu_us_per_step": cpu / 1e3 / steps,
            **events, "options": options}
