"""Turnaround and lateness statistics of a paced run, and their reports (PNG, JSON, Markdown).

The *turnaround time* of a step is the time needed to complete its operations (Carpinelli 2015 §3.1:
read the inputs, integrate, publish the outputs); it must stay below the communication step
``h`` (1 ms in the papers). The *lateness* of a step is how long after its tick it started. Its
*CPU time* is the process CPU time spent during the turnaround (the step's own compute).

An overrun (lateness + turnaround > h) is split by :func:`split_overruns`:

* a **step overrun** when the step's CPU time alone exceeds ``h``: it would have missed its
  deadline even started on its tick and never preempted;
* an **OS overrun** otherwise (the operating system's: a late wake-up or the process taken off
  the CPU inside the step), itself a **late start** when lateness + CPU time > h (the late
  start alone made it miss) or else a **preemption** (wall turnaround − CPU time off the CPU).
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ..model import strict_json

#: Percentiles reported for each timing series (label -> percentile).
PERCENTILES = {"p50": 50.0, "p99": 99.0, "p999": 99.9}


def timing_summary(ns: np.ndarray, prefix: str) -> dict[str, float]:
    """``{prefix_p50, prefix_p99, prefix_p999, prefix_max, prefix_mean}`` in µs of a series in ns."""
    out: dict[str, float] = {}
    if len(ns) == 0:
        for k in (*PERCENTILES, "max", "mean"):
            out[f"{prefix}_{k}"] = float("nan")
        return out
    us = np.asarray(ns, dtype=float) * 1e-3
    for label, p in PERCENTILES.items():
        out[f"{prefix}_{label}"] = float(np.percentile(us, p))
    out[f"{prefix}_max"] = float(us.max())
    out[f"{prefix}_mean"] = float(us.mean())
    return out


def split_overruns(turnaround_ns, lateness_ns, cpu_ns, h: float) -> dict[str, int]:
    """Overruns of a timing record split by their cause (module doc): ``overruns`` (lateness +
    turnaround > h), ``step_overruns`` (CPU time > h), ``os_overruns`` (the rest),
    ``os_overruns_late_start`` (lateness + CPU time > h) and ``os_overruns_preempted``. Catch-up
    steps (lateness >= h under ``catch-up``) are the caller's to leave out."""
    turn, late, cpu = (np.asarray(a, dtype=np.int64) for a in (turnaround_ns, lateness_ns, cpu_ns))
    if not (turn.shape == late.shape == cpu.shape):
        raise ValueError("split_overruns: turnaround_ns, lateness_ns and cpu_ns must have one "
                         "entry per step")
    h_ns = int(round(h * 1e9))
    over = late + turn > h_ns
    step = over & (cpu > h_ns)
    os_ = over & ~step
    late_start = os_ & (late + cpu > h_ns)
    return {"overruns": int(over.sum()), "step_overruns": int(step.sum()),
            "os_overruns": int(os_.sum()), "os_overruns_late_start": int(late_start.sum()),
            "os_overruns_preempted": int((os_ & ~late_start).sum())}


def summary_markdown(summary: dict, title: str = "Real-time run") -> str:
    """A Markdown page of a run's summary (the dict of :meth:`RealtimeReport.summary`)."""
    h_us = summary["h"] * 1e6
    lines = [
        f"# {title}",
        "",
        f"model `{summary.get('model')}`, solver `{summary.get('solver')}`, h = {h_us:g} µs, "
        f"policy `{summary.get('policy')}`, {summary['steps']} steps "
        f"({summary['steps'] * summary['h']:g} s simulated)",
        "",
        "| series | p50 | p99 | p99.9 | max | mean |",
        "| --- | --- | --- | --- | --- | --- |",
    ]
    for key, label in (("turnaround_us", "turnaround (µs)"), ("step_cpu_us", "step CPU time (µs)"),
                       ("lateness_us", "start lateness (µs)")):
        if f"{key}_p50" not in summary:
            continue
        row = [f"{summary[f'{key}_{s}']:.1f}" for s in ("p50", "p99", "p999", "max", "mean")]
        lines.append(f"| {label} | " + " | ".join(row) + " |")
    lines += [
        "",
        "| counter | value |",
        "| --- | --- |",
    ]
    for k in ("overruns", "step_overruns", "os_overruns", "os_overruns_late_start",
              "os_overruns_preempted", "catchup_steps", "degrade_entries", "degraded_steps",
              "stopped_early", "slip_us", "realtime_factor", "budget_used_p50", "status", "sched",
              "outputs_at", "prewarm_steps", "prewarm_skipped"):
        if k in summary:
            v = summary[k]
            lines.append(f"| {k} | {v:.4g} |" if isinstance(v, float) else f"| {k} | {v} |")
    if summary.get("io"):
        lines += ["", "I/O counters: " + ", ".join(f"{k} = {v}" for k, v in summary["io"].items())]
    if summary.get("message"):
        lines += ["", summary["message"]]
    return "\n".join(lines) + "\n"


def save_histogram(turnaround_ns, h: float, path, flags=None, title: str = "",
                   lateness_ns=None) -> Path:
    """Task-execution-time view: histogram of the turnaround times (log counts) with the
    percentiles and the budget ``h`` marked, and every step's turnaround over the run (with its
    completion after the tick, lateness + turnaround, which is what a deadline checks)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    us = np.asarray(turnaround_ns, dtype=float) * 1e-3
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(11, 4))
    if len(us):
        hi = max(us.max(), h * 1e6) * 1.05
        ax1.hist(us, bins=np.linspace(0.0, hi, 120), color="tab:blue")
        ax1.set_yscale("log")
        s = timing_summary(turnaround_ns, "t")
        for key, col in (("t_p50", "tab:green"), ("t_p99", "tab:orange"), ("t_p999", "tab:red"),
                         ("t_max", "black")):
            ax1.axvline(s[key], color=col, ls="--", lw=1,
                        label=f"{key[2:]} = {s[key]:.1f} µs")
        ax1.axvline(h * 1e6, color="grey", lw=2, label=f"budget h = {h * 1e6:g} µs")
        ax1.legend(fontsize=8)
        steps = np.arange(len(us))
        done = us
        if lateness_ns is not None and len(lateness_ns) == len(us):
            done = us + np.asarray(lateness_ns, dtype=float) * 1e-3
            ax2.plot(steps, done, ".", ms=1.5, color="tab:orange", label="lateness + turnaround")
        ax2.plot(steps, us, ".", ms=1.5, color="tab:blue", label="turnaround")
        if flags is not None and len(flags):
            bad = (np.asarray(flags) & 1).astype(bool)
            if bad.any():
                ax2.plot(steps[bad], done[bad], "x", color="tab:red", label="overrun")
        ax2.legend(fontsize=8)
        ax2.axhline(h * 1e6, color="grey", lw=2)
        ax2.set_yscale("log")
    ax1.set_xlabel("turnaround time per step (µs)")
    ax1.set_ylabel("steps")
    ax2.set_xlabel("step")
    ax2.set_ylabel("µs after the tick")
    fig.suptitle(title or "task execution time")
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def save_summary(summary: dict, out_dir, title: str = "Real-time run") -> dict[str, Path]:
    """Write ``summary.json`` and ``summary.md`` into ``out_dir``."""
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    pj = out_dir / "summary.json"
    pj.write_text(strict_json.dumps(summary, indent=2, default=str) + "\n")
    pm = out_dir / "summary.md"
    pm.write_text(summary_markdown(summary, title))
    return {"json": pj, "markdown": pm}
