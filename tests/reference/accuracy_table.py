"""Accuracy and cost of the ``reference`` solver vs rtol on problems with known solutions.

Not a test (timings): prints the markdown tables of docs/reference-solver.md.

    OPENBLAS_NUM_THREADS=1 python tests/reference/accuracy_table.py [--repeats 3] [--methods ida]

atol = rtol / 100 throughout. Wall time is the median of ``--repeats`` runs.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import math  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).parents[1]))  # tests/: the test models
from _models.exact import PhysicalPendulum, SpringMassDamper, double_pendulum  # noqa: E402

from rtmbs.solvers.reference import ReferenceSolver  # noqa: E402


def run(sysm, t_end, h, repeats, **opts):
    walls, res = [], None
    for _ in range(repeats):
        res = ReferenceSolver(sysm, **opts).solve(sysm.initial_state(), t_end, h=h)
        walls.append(res.meta["wall_s"])
    return res, statistics.median(walls)


def _rows(sysm, t_end, h, methods, rtols, repeats, measure):
    """One row per method and rtol: (method, rtol, *measure(res), steps, nfev, wall)."""
    rows = []
    for method in methods:
        for rtol in rtols:
            res, wall = run(sysm, t_end, h, repeats, method=method, rtol=rtol, atol=rtol / 100)
            rows.append((method, rtol, *measure(res), res.meta["steps"], res.meta["nfev"], wall))
    return rows


def pendulum_rows(methods, rtols, repeats):
    p = PhysicalPendulum(2.0)
    T = p.period()
    N = 100

    def measure(res):
        err = np.abs(res.q[:, 2] - p.theta_exact(res.t)).max()
        k = 3 * N
        T_meas = (res.t[k] - res.qd[k, 2] / (-p.omega0 ** 2 * math.sin(res.q[k, 2]))) / 3
        return err, abs(T_meas - T) / T, res.phi_norm.max()
    return _rows(p, 3 * T, T / N, methods, rtols, repeats, measure)


def smd_rows(methods, rtols, repeats):
    s = SpringMassDamper()

    def measure(res):
        x, v = s.exact(res.t)
        return (max(np.abs(res.q[:, 0] - x).max(), np.abs(res.qd[:, 0] - v).max()),)
    return _rows(s, 4.0, 0.01, methods, rtols, repeats, measure)


def dp_rows(methods, rtols, repeats):
    d = double_pendulum()

    def measure(res):
        E = np.array([d.energy(q, qd) for q, qd in zip(res.q, res.qd)])
        return np.abs(E - E[0]).max() / abs(E[0]), res.phi_norm.max(), res.phid_norm.max()
    return _rows(d, 2.0, 0.01, methods, rtols, repeats, measure)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--methods", default="Radau,DOP853",
                    help="comma-separated methods (e.g. ida); the m = 0 table adds LSODA, BDF")
    args = ap.parse_args()
    methods = tuple(args.methods.split(","))
    rtols = (1e-6, 1e-8, 1e-10, 1e-12)
    print(f"machine: {platform.machine()}, {platform.processor() or platform.system()}, "
          f"python {platform.python_version()}, {os.cpu_count()} cores; "
          f"median of {args.repeats}\n")
    print("Physical pendulum, θ0 = 2 rad, 3 periods (T = 4K(k)/ω0 = "
          f"{PhysicalPendulum(2.0).period():.6f} s), outputs every T/100\n")
    print("| method | rtol | max abs θ error (rad) | rel. period error | max ‖Φ‖ | steps | nfev | wall (s) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in pendulum_rows(methods, rtols, args.repeats):
        print(f"| {r[0]} | {r[1]:.0e} | {r[2]:.1e} | {r[3]:.1e} | {r[4]:.1e} | {r[5]} | {r[6]} | {r[7]:.2f} |")
    print("\nSpring-mass-damper (m = 0), 4 s, outputs every 10 ms\n")
    print("| method | rtol | max abs error x, ẋ | steps | nfev | wall (s) |")
    print("| --- | --- | --- | --- | --- | --- |")
    extra = ("LSODA", "BDF") if "Radau" in methods else ()
    for r in smd_rows(methods + extra, rtols[:3], args.repeats):
        print(f"| {r[0]} | {r[1]:.0e} | {r[2]:.1e} | {r[3]} | {r[4]} | {r[5]:.3f} |")
    print("\nDouble pendulum (Cartesian, n = 6, m = 4), 2 s, outputs every 10 ms\n")
    print("| method | rtol | max rel. energy error | max ‖Φ‖ | max ‖Φq q̇‖ | steps | nfev | wall (s) |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in dp_rows(methods, rtols[:3], args.repeats):
        print(f"| {r[0]} | {r[1]:.0e} | {r[2]:.1e} | {r[3]:.1e} | {r[4]:.1e} | {r[5]} | {r[6]} | {r[7]:.2f} |")


if __name__ == "__main__":
    main()
