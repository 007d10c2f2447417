"""Cost of the road evaluator inside compiled code, and of ISO 8608 synthesis.

Run: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_road.py
Reports medians of repeats (best in brackets); results go to docs/benchmarks/roads.md.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import platform
import time

import numpy as np
from numba import njit

from rtmbs.vehicle import road as R


@njit(cache=True)
def _loop_packed(table, xs, y):
    acc = 0.0
    for x in xs:
        z, s = R.road_height_packed(table, x, y)
        acc += z + s
    return acc


@njit(cache=True)
def _loop(x0, dx, yl, yr, z, xs, y):
    acc = 0.0
    for x in xs:
        zz, s = R.road_height(x0, dx, yl, yr, z, x, y)
        acc += zz + s
    return acc


def _median(fn, repeats=15):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return np.median(ts), min(ts)


def main():
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}")
    road = R.iso8608("C", 1000.0, 0.01, seed=1, correlation=0.5)  # 100,001 samples per track
    rng = np.random.default_rng(0)
    xs = rng.uniform(-5, 1005, 1_000_000)
    table = road.packed()
    _loop_packed(table, xs[:10], 0.1)
    _loop(*road.table(), xs[:10], 0.1)
    m, b = _median(lambda: _loop(*road.table(), xs, 0.1))
    print(f"road_height (table args), random x over 100k samples: {m / xs.size * 1e9:.1f} ns/call ({b / xs.size * 1e9:.1f})")
    m, b = _median(lambda: _loop_packed(table, xs, 0.1))
    print(f"road_height_packed, same: {m / xs.size * 1e9:.1f} ns/call ({b / xs.size * 1e9:.1f})")
    xs_seq = np.sort(xs)
    m, b = _median(lambda: _loop_packed(table, xs_seq, 0.1))
    print(f"road_height_packed, increasing x (a wheel rolling): {m / xs.size * 1e9:.1f} ns/call ({b / xs.size * 1e9:.1f})")
    for L, dx in ((200.0, 0.05), (1000.0, 0.01)):
        m, b = _median(lambda: R.iso8608("B", L, dx, seed=3, correlation=0.5), repeats=7)
        print(f"iso8608 synthesis, length {L:g} m, dx {dx:g} m ({int(L / dx) + 1} samples x 2 tracks): "
              f"{m * 1e3:.1f} ms ({b * 1e3:.1f})")


if __name__ == "__main__":
    main()
