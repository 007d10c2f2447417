"""Per-call cost of the acceleration formulations of Pękal & Frączek 2016 (eqs. 10-43), and the index-1
runs of its §4.1 on the McPherson struts (nfev, wall time per stabilisation).

Run single-threaded:  OPENBLAS_NUM_THREADS=1 python benchmarks/bench_formulations.py [--quick]
Prints markdown tables (median of repeats, best in brackets) for docs/benchmarks/redundant.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import importlib.util  # noqa: E402
import platform  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.errors import FormulationNotApplicable  # noqa: E402
from rtmbs.protocol import EVAL_GAMMA, EVAL_M, EVAL_PHIQ, EVAL_Q  # noqa: E402
from rtmbs.solvers.formulations import FORMULATIONS, get_formulation  # noqa: E402
from rtmbs.solvers.index1 import integrate_index1  # noqa: E402


def _test_models():
    path = Path(__file__).resolve().parents[1] / "tests" / "redundant" / "models.py"
    spec = importlib.util.spec_from_file_location("redundant_models_bench", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def _problem(system, fixed_mass: bool):
    st = system.initial_state()
    ws = system.workspace()
    system.evaluate(0.0, st.q, st.qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
    return ws.M.copy(), ws.phiq.copy(), ws.Q.copy(), ws.gamma.copy()


def per_call(M, phiq, Q, g, repeats, vary_mass):
    """µs per call (median, best). ``vary_mass`` perturbs M each call (no cache hit), as for
    Euler-angle coordinates where M(q) changes every step."""
    out = {}
    Ms = [M * (1.0 + 1e-9 * k) for k in range(8)] if vary_mass else [M]
    for name in FORMULATIONS:
        f = get_formulation(name)
        try:
            f(M, phiq, Q, g)
        except FormulationNotApplicable:
            out[name] = None
            continue
        ts = []
        for k in range(repeats):
            Mk = Ms[k % len(Ms)]
            t0 = time.perf_counter()
            f(Mk, phiq, Q, g)
            ts.append(time.perf_counter() - t0)
        out[name] = (1e6 * np.median(ts), 1e6 * np.min(ts))
    return out


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true", help="fewer repeats, skip the struts' runs")
    args = ap.parse_args(argv)
    reps = 200 if args.quick else 2000
    tm = _test_models()
    cases = [("parallelogram, slot (n 12, m 11, r 11)", tm.ParallelogramLinkage(False), False),
             ("parallelogram, 5th bar (n 12, m 12, r 11)", tm.ParallelogramLinkage(True), False)]
    struts = []
    try:
        from rtmbs.models.mcpherson import build

        struts = [("McPherson simplified (n 30, m 26, r 26)", build(False)),
                  ("McPherson overconstrained (n 30, m 31, r 26)", build(True))]
        cases += [(nm, s, True) for nm, s in struts]
    except ImportError as exc:  # the assembler is not there
        print(f"(struts skipped: {exc})")
    print(f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} cores, "
          f"python {platform.python_version()}, numpy {np.__version__}, OPENBLAS_NUM_THREADS="
          f"{os.environ.get('OPENBLAS_NUM_THREADS')}\n")
    names = list(FORMULATIONS)
    print("| model | M | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for label, s, vary in cases:
        res = per_call(*_problem(s, not vary), repeats=reps, vary_mass=vary)
        cells = ["n/a" if res[k] is None else f"{res[k][0]:.0f} ({res[k][1]:.0f})" for k in names]
        print(f"| {label} | {'changes' if vary else 'constant'} | " + " | ".join(cells) + " |")
    if args.quick or not struts:
        return 0
    print("\nindex-1 runs, 10 s, RK45, rtol = atol = 1e-6, α̂ = β̂ = 10 (wall s / nfev):\n")
    print("| model | stabilisation | " + " | ".join(names) + " |")
    print("|---" * (len(names) + 2) + "|")
    for label, s in struts:
        for stab in ("none", "baumgarte", "partitioning"):
            cells = []
            for name in names:
                try:
                    r = integrate_index1(s, name, stab, rtol=1e-6, atol=1e-6, t_end=10.0,
                                         t_eval=[0.0, 10.0])
                    cells.append(f"{r.meta['wall_s']:.2f} / {r.meta['nfev']}")
                except FormulationNotApplicable:
                    cells.append("n/a")
                except Exception as exc:  # report, do not stop the table
                    cells.append(type(exc).__name__)
            print(f"| {label} | {stab} | " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
