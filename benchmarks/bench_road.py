"""Cost of the road evaluator (the engine's road.c, looped in C), and of ISO 8608 synthesis.

Run: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_road.py
Reports medians of repeats (best in brackets); results go to docs/benchmarks/roads.md.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import platform

import numpy as np
from rtmbs.engine import _engine
from rtmbs.solvers.timing import median_cpu_s
from rtmbs.vehicle import road as R


def _loop_packed(table, xs, y):
    """The engine's road_height_packed over xs, the loop in C (road_heights)."""
    ys = np.full_like(xs, y)
    z, s = np.empty_like(xs), np.empty_like(xs)
    _engine.road_heights(table, xs, ys, z, s)
    return float(z.sum() + s.sum())


def main():
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    road = R.iso8608("C", 1000.0, 0.01, seed=1, correlation=0.5)  # 100,001 samples per track
    rng = np.random.default_rng(0)
    xs = rng.uniform(-5, 1005, 1_000_000)
    table = road.packed()
    _loop_packed(table, xs[:10], 0.1)
    m, b = median_cpu_s(lambda: _loop_packed(table, xs, 0.1))
    print(f"road_height_packed, random x over 100k samples: {m / xs.size * 1e9:.1f} ns/call ({b / xs.size * 1e9:.1f})")
    xs_seq = np.sort(xs)
    m, b = median_cpu_s(lambda: _loop_packed(table, xs_seq, 0.1))
    print(f"road_height_packed, increasing x (a wheel rolling): {m / xs.size * 1e9:.1f} ns/call ({b / xs.size * 1e9:.1f})")
    for L, dx in ((200.0, 0.05), (1000.0, 0.01)):
        m, b = median_cpu_s(lambda: R.iso8608("B", L, dx, seed=3, correlation=0.5), repeats=7)
        print(f"iso8608 synthesis, length {L:g} m, dx {dx:g} m ({int(L / dx) + 1} samples x 2 tracks): "
              f"{m * 1e3:.1f} ms ({b * 1e3:.1f})")


if __name__ == "__main__":
    main()
