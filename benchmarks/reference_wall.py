"""Wall time of the offline ``reference`` solver (docs/benchmarks.md, "Reference").

    python benchmarks/reference_wall.py [--quick]

Point-mass pendulum (1 body, n 7, m 2), default reference (Radau, rtol 1e-10, model Jacobian)
over 10 s; the multilink study's manoeuvre (both variants, n 77) with ``method="ida"`` at
rtol 1e-8, atol 1e-10 over 10 s (``--quick``: 1 s), and the dense Radau over 0.1 s for scale.
One run each (minutes), after a short warm-up run.
"""
from __future__ import annotations

import argparse
import sys
import time
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "reference"))


def _run(system, state, t_end, h, **opts):
    from rtmbs.solvers.reference import ReferenceSolver

    tic = time.perf_counter()
    res = ReferenceSolver(system, **opts).solve(state, t_end, h=h)
    wall = time.perf_counter() - tic
    m = res.meta
    assert m["status"] == 1, m["message"]
    return wall, m


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true")
    args = ap.parse_args()
    warnings.simplefilter("ignore")
    from test_reference_ida import point_mass_pendulum

    from rtmbs.studies.multilink import FULL, build_system, dropped_state

    rows = []
    s = point_mass_pendulum()
    _run(s, s.initial_state(), 0.01, 0.01)
    T = 10.0
    wall, m = _run(s, s.initial_state(), T, 0.05)
    rows.append(("point-mass pendulum", "Radau (default), rtol 1e-10", T, wall, m))
    for variant in ("ideal", "bushings"):
        sy = build_system(variant, FULL)
        st = dropped_state(sy, FULL["drop"])
        _run(sy, st, 0.002, 1e-3, method="ida")
        T = 1.0 if args.quick else FULL["t_end"]
        wall, m = _run(sy, st, T, 1e-3, method="ida", rtol=1e-8, atol=1e-10)
        rows.append((f"multilink-{variant}", "ida, rtol 1e-8", T, wall, m))
        wall, m = _run(sy, st, 0.1, 1e-3, method="Radau", rtol=1e-8, atol=1e-10)
        rows.append((f"multilink-{variant}", "Radau (dense), rtol 1e-8", 0.1, wall, m))
    print("| model | method | simulated (s) | wall (s) | wall / simulated | nfev | njev | "
          "max ‖Φ‖∞ before projection |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for name, meth, T, wall, m in rows:
        raw = m.get("phi_raw_max")
        print(f"| {name} | {meth} | {T:g} | {wall:.1f} | {wall / T:.2f} | {m['nfev']} | "
              f"{m['njev']} | {'—' if raw is None else f'{raw:.1e}'} |")


if __name__ == "__main__":
    main()
