"""Cost of the Magic Formula partial derivatives for the tyre element's Jacobian: one forward-mode
``mf_force_partials`` call against the three forces-only ``mf_evaluate`` calls (plus the
``effective_rolling_radius`` call) of finite differences it replaces, measured in the same run
(the engine's tyre/magic_formula.c, each call from Python: the ratio, not the absolute cost, is
what the tyre element sees).

Run: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_mf_partials.py
Reports medians of repeats (best in brackets) per operating point; results go to
docs/benchmarks/tyre.md.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import platform

import numpy as np
from bench_tyre import operating_points  # benchmarks/ is the script's directory

from rtmbs.solvers.timing import median_cpu_s
from rtmbs.vehicle.tyre import data_path, load_tir
from rtmbs.vehicle.tyre import magic_formula as mfk


def _loop_differences(p, Fz, kappa, alpha, gamma, Vx, out):
    """What tyre_force did: three one-sided differences of the forces-only evaluation + dRe/dFz."""
    acc = 0.0
    for i in range(Fz.shape[0]):
        dF = max(1.0, 1e-4 * Fz[i])
        mfk.mf_evaluate(p, Fz[i] + dF, kappa[i], alpha[i], gamma[i], Vx[i], out, False)
        acc += out[0] + out[1] + out[4]
        re2, _ = mfk.effective_rolling_radius(p, Fz[i] + dF, 0.0, Vx[i], 0.0)
        acc += re2
        mfk.mf_evaluate(p, Fz[i], kappa[i] + 1e-6, alpha[i], gamma[i], Vx[i], out, False)
        acc += out[0] + out[1] + out[4]
        mfk.mf_evaluate(p, Fz[i], kappa[i], alpha[i] - 1e-6, gamma[i], Vx[i], out, False)
        acc += out[0] + out[1] + out[4]
    return acc


def _loop_forces_only(p, Fz, kappa, alpha, gamma, Vx, out):
    acc = 0.0
    for i in range(Fz.shape[0]):
        mfk.mf_evaluate(p, Fz[i], kappa[i], alpha[i], gamma[i], Vx[i], out, False)
        acc += out[0] + out[1] + out[4]
    return acc


def _loop_partials(p, Fz, kappa, alpha, gamma, Vx, out):
    acc = 0.0
    for i in range(Fz.shape[0]):
        mfk.mf_force_partials(p, Fz[i], kappa[i], alpha[i], gamma[i], Vx[i], out)
        acc += out[3] + out[7] + out[11]
        acc += mfk.effective_rolling_radius_dfz(p, Fz[i], 0.0, Vx[i], 0.0)[2]
    return acc


def main():
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    rng = np.random.default_rng(0)
    n = 5_000
    for fname in ("chrono_MagicFormula61_Parameters.tir", "chrono_MagicFormula52_Parameters.tir",
                  "chrono_Sedan_Pac02Tire.tir"):
        props = load_tir(data_path(fname))
        Fz, kappa, alpha, gamma, Vx = operating_points(rng, props["FNOMIN"], n)
        out = np.empty(mfk.N_OUT)
        args = (props.params, Fz, kappa, alpha, gamma, Vx, out)
        print(f"{fname} ({props.family}), us per operating point, median (best):")
        for name, fn in (("mf_evaluate forces only, 1 call", _loop_forces_only),
                         ("finite differences: 3 forces-only calls + Re", _loop_differences),
                         ("mf_force_partials + effective_rolling_radius_dfz", _loop_partials)):
            fn(*(a[:10] if hasattr(a, "shape") and a.shape[0] == n else a for a in args))
            m, b = median_cpu_s(lambda: fn(*args), repeats=5)
            print(f"  {name:50s} {m / n * 1e6:7.3f} ({b / n * 1e6:.3f})")


if __name__ == "__main__":
    main()
