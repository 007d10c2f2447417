"""Per-step CPU time of ``li-euler`` in two source trees (before and after a change): the CLI's
``rtmbs bench MODEL --solver li-euler --steps 3000 --json`` (``cpu_us_per_step``: process CPU time
of the timed steps / steps) in a fresh process per run, the two source trees interleaved run by
run, ``REPEATS`` rounds.

    python benchmarks/bench_compare_trees.py BEFORE_SRC AFTER_SRC > results.jsonl

BEFORE_SRC / AFTER_SRC: the ``src`` directories of the two checkouts (each with its engine built).
One JSON line per run; a summary (median per model and tree) on stderr.
"""
from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys

MODELS = ("four-bar", "multilink-ideal", "sedan")
REPEATS = 3


def run(src: str, model: str) -> float:
    env = dict(os.environ, PYTHONPATH=src, OPENBLAS_NUM_THREADS="1", OMP_NUM_THREADS="1")
    out = subprocess.run(["rtmbs", "bench", model, "--solver", "li-euler", "--steps", "3000",
                          "--json"], env=env, capture_output=True, text=True, check=True).stdout
    return float(json.loads(out.strip().splitlines()[-1])["cpu_us_per_step"])


def main(before: str, after: str) -> None:
    res: dict = {}
    for r in range(REPEATS):
        for model in MODELS:
            for tree, src in (("before", before), ("after", after)):
                us = run(src, model)
                res.setdefault((model, tree), []).append(us)
                print(json.dumps(dict(model=model, tree=tree, round=r, cpu_us_per_step=us)),
                      flush=True)
    for model in MODELS:
        b, a = (statistics.median(res[(model, t)]) for t in ("before", "after"))
        print(f"{model:16s} before {b:7.2f} µs  after {a:7.2f} µs  ({a / b - 1:+.1%})",
              file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:3])
