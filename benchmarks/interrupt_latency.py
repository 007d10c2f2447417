"""Exit latency of an interrupted ``rtmbs run`` (docs/benchmarks.md,
"Interrupts and result size").

    python benchmarks/interrupt_latency.py [--at 1,3,5,8] [--signal INT] [--rounds 1]
        [--model spatial-chain-10] [--t-end 30] [--h 1e-4] [--extra "--format h5,csv"]

For each delay: a fresh process ``python -m rtmbs.cli run MODEL --t-end T --h H --out DIR``
gets the signal DELAY s after it was started; the script waits for it to exit (killed after
``--timeout`` s) and reports the exit code, the wall time from the signal to the exit, the
phase the process was in (from its stderr: before the first progress line = setting up), the
last time in its result.h5 and the sizes of the files written. Delays are interleaved over
``--rounds`` rounds. A run to the end (``--full``) reports the size of the default results.
"""
from __future__ import annotations

import argparse
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def _default_sigint() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)  # as in a terminal, also under `nohup ... &`


def one(model, t_end, h, delay, sig, timeout, extra, keep=None):
    """Start a run, signal it ``delay`` s later (None: let it finish); returns a dict."""
    out = Path(keep or tempfile.mkdtemp(prefix="rtmbs-int-")) / "out"
    out.parent.mkdir(parents=True, exist_ok=True)
    cmd = [sys.executable, "-m", "rtmbs.cli", "run", model, "--t-end", str(t_end), "--h", str(h),
           "--out", str(out), "--no-progress", *extra]
    err = Path(str(out) + ".stderr")
    with open(err, "wb") as fh:
        t_start = time.monotonic()
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=fh,
                                preexec_fn=_default_sigint)
        t_sig = None
        if delay is not None:
            while time.monotonic() - t_start < delay and proc.poll() is None:
                time.sleep(0.005)
            if proc.poll() is None:
                t_sig = time.monotonic()
                proc.send_signal(sig)
        try:
            rc = proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            rc = "killed"
            proc.wait()
        t_exit = time.monotonic()
    text = err.read_text(errors="replace")
    t_file = None
    try:
        import h5py

        with h5py.File(out / "result.h5", "r") as f:
            t_file = float(f["t"][-1]) if len(f["t"]) else None
    except Exception as exc:  # noqa: BLE001 (reported, not hidden)
        t_file = f"unreadable ({type(exc).__name__})"
    sizes = {p.name: p.stat().st_size for p in sorted(out.glob("*"))} if out.is_dir() else {}
    return {"delay_s": delay, "exit": rc, "latency_s": (t_exit - t_sig) if t_sig else None,
            "wall_s": t_exit - t_start, "t_in_file": t_file, "sizes": sizes,
            "last_line": text.strip().splitlines()[-1] if text.strip() else "",
            "writing_said": "writing results" in text}


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="spatial-chain-10")
    ap.add_argument("--t-end", default="30")
    ap.add_argument("--h", default="1e-4")
    ap.add_argument("--at", default="1,3,5,8", help="delays [s] after the start")
    ap.add_argument("--signal", default="INT", choices=("INT", "TERM"))
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--timeout", type=float, default=300.0)
    ap.add_argument("--extra", default="", help="more options of rtmbs run")
    ap.add_argument("--full", action="store_true", help="also one run to the end (sizes)")
    args = ap.parse_args(argv)
    sig = getattr(signal, "SIG" + args.signal)
    delays = [float(x) for x in args.at.split(",") if x]
    extra = args.extra.split()
    print(f"{args.model}, --t-end {args.t_end} --h {args.h} {args.extra}; SIG{args.signal}; "
          f"machine: {os.uname().machine}, {os.cpu_count()} CPU", flush=True)
    for r in range(args.rounds):
        for d in delays:
            res = one(args.model, args.t_end, args.h, d, sig, args.timeout, extra)
            lat = f"{res['latency_s']:.2f}" if res["latency_s"] is not None else "-"
            print(f"round {r + 1} at {d:g} s: exit {res['exit']}, signal->exit {lat} s, "
                  f"t in result.h5 {res['t_in_file']}, files {res['sizes']}, "
                  f"'writing results' said: {res['writing_said']}; last line: "
                  f"{res['last_line'][:160]}", flush=True)
    if args.full:
        res = one(args.model, args.t_end, args.h, None, sig, 3600.0, extra)
        print(f"to the end: exit {res['exit']} in {res['wall_s']:.1f} s, t in result.h5 "
              f"{res['t_in_file']}, files {res['sizes']} "
              f"(total {sum(res['sizes'].values()) / 1e6:.1f} MB)", flush=True)


if __name__ == "__main__":
    main()
