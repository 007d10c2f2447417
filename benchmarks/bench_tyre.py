"""Cost of one steady-state Magic Formula evaluation (numba), and of the contact building blocks.

Run: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_tyre.py
Reports medians of repeats (best in brackets); results go to docs/benchmarks/tyre.md.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import platform
import time

import numba
import numpy as np
from numba import njit

from rtmbs.vehicle.tyre import contact, data_path, load_tir
from rtmbs.vehicle.tyre import magic_formula as mfk


@njit(cache=True)
def _loop_mf(p, Fz, kappa, alpha, gamma, Vx, out):
    acc = 0.0
    for i in range(Fz.shape[0]):
        mfk.mf_steady_state(p, Fz[i], kappa[i], alpha[i], gamma[i], Vx[i], out)
        acc += out[0] + out[1] + out[4]
    return acc


@njit(cache=True)
def _loop_contact(hf, hr, z, vx, vy, h):
    acc = 0.0
    u = 0.0
    v = 0.0
    for i in range(hf.shape[0]):
        beta, he, rho = contact.two_point_follower(hf[i], hr[i], z[i], 0.39, 0.08)
        k, a = contact.slip_quantities(vx[i], vy[i], vx[i] / 0.38, 0.38, 0.1)
        u, v = contact.transient_step(u, v, -k * vx[i], vy[i], vx[i], 0.3, 0.5, h)
        acc += beta + he + rho + u + v + k + a
    return acc


def _median(fn, repeats=15):
    ts = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        ts.append(time.perf_counter() - t0)
    return float(np.median(ts)), min(ts)


def main():
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
          f"numba {numba.__version__}, load average {os.getloadavg()[0]:.1f}")
    rng = np.random.default_rng(0)
    n = 200_000
    for fname in ("chrono_MagicFormula61_Parameters.tir", "chrono_Sedan_Pac02Tire.tir"):
        props = load_tir(data_path(fname))
        Fz0 = props["FNOMIN"]
        Fz = rng.uniform(0.3, 1.8, n) * Fz0
        kappa = rng.uniform(-0.3, 0.3, n)
        alpha = rng.uniform(-0.3, 0.3, n)
        gamma = rng.uniform(-0.05, 0.05, n)
        Vx = rng.uniform(5.0, 40.0, n)
        out = np.empty(mfk.N_OUT)
        _loop_mf(props.params, Fz[:10], kappa[:10], alpha[:10], gamma[:10], Vx[:10], out)
        m, b = _median(lambda: _loop_mf(props.params, Fz, kappa, alpha, gamma, Vx, out))
        print(f"{fname} ({props.family}): mf_steady_state in a compiled loop: "
              f"{m / n * 1e6:.3f} us/eval ({b / n * 1e6:.3f})")
        # one call from Python (what a Python-level caller pays, dispatch included)
        f = mfk.mf_steady_state
        p = props.params
        reps = 20_000

        def py_loop():
            for i in range(reps):
                f(p, Fz[i], kappa[i], alpha[i], gamma[i], Vx[i], out)

        py_loop()
        m, b = _median(py_loop, repeats=7)
        print(f"  one call from Python: {m / reps * 1e6:.3f} us/eval ({b / reps * 1e6:.3f})")

    hf = rng.uniform(0, 0.02, n)
    hr = rng.uniform(0, 0.02, n)
    z = rng.uniform(0.35, 0.38, n)
    vx = rng.uniform(5, 40, n)
    vy = rng.uniform(-1, 1, n)
    _loop_contact(hf[:10], hr[:10], z[:10], vx[:10], vy[:10], 1e-3)
    m, b = _median(lambda: _loop_contact(hf, hr, z, vx, vy, 1e-3))
    print(f"two_point_follower + slip_quantities + transient_step: {m / n * 1e9:.1f} ns ({b / n * 1e9:.1f})")


if __name__ == "__main__":
    main()
