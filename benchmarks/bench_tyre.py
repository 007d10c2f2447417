"""Cost of one steady-state Magic Formula evaluation (the engine's tyre/magic_formula.c, looped in
C by mf_steady_state_batch, and called from Python), and of the contact building blocks.

Run: OPENBLAS_NUM_THREADS=1 python benchmarks/bench_tyre.py
Reports medians of repeats (best in brackets); results go to docs/benchmarks/tyre.md.
"""
import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
import platform

import numpy as np

from rtmbs.solvers.timing import median_cpu_s
from rtmbs.vehicle.tyre import contact, data_path, load_tir
from rtmbs.vehicle.tyre import magic_formula as mfk


def _loop_contact(hf, hr, z, vx, vy, h):
    """The contact building blocks called from Python (one engine call each)."""
    acc = 0.0
    u = 0.0
    v = 0.0
    for i in range(hf.shape[0]):
        beta, he, rho = contact.two_point_follower(hf[i], hr[i], z[i], 0.39, 0.08)
        k, a = contact.slip_quantities(vx[i], vy[i], vx[i] / 0.38, 0.38, 0.1)
        u, v = contact.transient_step(u, v, -k * vx[i], vy[i], vx[i], 0.3, 0.5, h)
        acc += beta + he + rho + u + v + k + a
    return acc


def operating_points(rng, Fz_nominal: float, n: int):
    """``n`` random operating points of a tyre (Fz from 0.3 to 1.8 times nominal, κ and α within
    ±0.3, γ within ±0.05 rad, Vx from 5 to 40 m/s), drawn from ``rng`` in that order."""
    Fz = rng.uniform(0.3, 1.8, n) * Fz_nominal
    kappa = rng.uniform(-0.3, 0.3, n)
    alpha = rng.uniform(-0.3, 0.3, n)
    gamma = rng.uniform(-0.05, 0.05, n)
    Vx = rng.uniform(5.0, 40.0, n)
    return Fz, kappa, alpha, gamma, Vx


def main():
    print(f"machine: {platform.machine()}, {os.cpu_count()} cores, python {platform.python_version()}, "
          f"load average {os.getloadavg()[0]:.1f}")
    rng = np.random.default_rng(0)
    n = 200_000
    for fname in ("chrono_MagicFormula61_Parameters.tir", "chrono_Sedan_Pac02Tire.tir"):
        props = load_tir(data_path(fname))
        Fz0 = props["FNOMIN"]
        Fz, kappa, alpha, gamma, Vx = operating_points(rng, Fz0, n)
        out = np.empty(mfk.N_OUT)
        outs = np.empty((n, mfk.N_OUT))
        m, b = median_cpu_s(lambda: mfk.mf_steady_state_batch(props.params, Fz, kappa, alpha, gamma,
                                                              Vx, outs))
        print(f"{fname} ({props.family}): mf_steady_state in a C loop: "
              f"{m / n * 1e6:.3f} us/eval ({b / n * 1e6:.3f})")
        # one call from Python (what a Python-level caller pays, dispatch included)
        f = mfk.mf_steady_state
        p = props.params
        reps = 20_000

        def py_loop():
            for i in range(reps):
                f(p, Fz[i], kappa[i], alpha[i], gamma[i], Vx[i], out)

        py_loop()
        m, b = median_cpu_s(py_loop, repeats=7)
        print(f"  one call from Python: {m / reps * 1e6:.3f} us/eval ({b / reps * 1e6:.3f})")

    hf = rng.uniform(0, 0.02, n)
    hr = rng.uniform(0, 0.02, n)
    z = rng.uniform(0.35, 0.38, n)
    vx = rng.uniform(5, 40, n)
    vy = rng.uniform(-1, 1, n)
    nc = 20_000
    m, b = median_cpu_s(lambda: _loop_contact(hf[:nc], hr[:nc], z[:nc], vx[:nc], vy[:nc], 1e-3), repeats=7)
    print(f"two_point_follower + slip_quantities + transient_step from Python: "
          f"{m / nc * 1e9:.1f} ns ({b / nc * 1e9:.1f})")


if __name__ == "__main__":
    main()
