"""The claim of Kim & Wang 2005 (§1): for a full vehicle with 4 independent suspension subsystems, subsystem
synthesis is "more than 4 times faster" than the conventional (Cartesian) method. Times the
four-corner SLA car (models/sla-car.yaml) by synthesis, formulation B in C (the engine's
provider, the four corners stacked in one kernel), under ab3 (the paper's integrator; explicit-euler and li-euler too),
for the chassis on its vertical slide (heave) and free (6 DOF, Bryant angles),
against the Cartesian model of the same file under li-euler and explicit-euler (ab3 takes ODEs
only: the Cartesian car is a DAE, m = 86) - interleaved rounds, process CPU time per step, h = 1 ms.

Run single-threaded:  OPENBLAS_NUM_THREADS=1 python benchmarks/bench_synthesis_car.py [--rounds 15 --steps 400]
Prints a markdown table (median over rounds, best in brackets) for docs/studies/subsystem.md.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse  # noqa: E402
import platform  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

from rtmbs.model import load_model_file  # noqa: E402
from rtmbs.models import model_file  # noqa: E402
from rtmbs.protocol import EVAL_M, EVAL_Q  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.synthesis import SynthesisSystem, subsystem_model  # noqa: E402
from rtmbs.system import compile_model  # noqa: E402

H = 1e-3


def _stepper(system, solver):
    slv = get_solver(solver)(system)
    state = system.initial_state()
    slv.reset(state)
    for _ in range(50):                        # warm-up (JIT / cache load, AB3 start-up)
        slv.step(state, H)

    def run(k):
        for _ in range(k):
            slv.step(state, H)
        if not (np.isfinite(state.q).all() and np.isfinite(state.qd).all()):
            raise RuntimeError(f"{system.name} {solver}: non-finite state at t = {state.t}")
    return run


def _caller(fn):
    def run(k):
        for _ in range(k):
            fn()
    return run


def _cases(model, tag):
    cart = compile_model(model)
    sm = subsystem_model(model, "chassis", dof=1)
    synB = SynthesisSystem(sm, formulation="relative-joint", compiled=True)
    ws = cart.workspace()
    st_c = cart.initial_state()
    st_s = synB.initial_state()
    info = (f"{tag}: Cartesian n={cart.n}, m={cart.m}; synthesis n={synB.n} ({len(sm.subsystems)} subsystems)")
    cases = {
        f"{tag}: synthesis B (C provider), ab3 step": _stepper(synB, "ab3"),
        f"{tag}: synthesis B (C provider), explicit-euler step": _stepper(synB, "explicit-euler"),
        f"{tag}: synthesis B (C provider), li-euler step (FD Jacobians, 2n+1 evaluations)": _stepper(synB, "li-euler"),
        f"{tag}: synthesis B, one kernel call (M, Q, q̈)": _caller(lambda: synB._compiled(0.6, st_s.q, st_s.qd)),
        f"{tag}: Cartesian, li-euler step": _stepper(cart, "li-euler"),
        f"{tag}: Cartesian, explicit-euler step": _stepper(cart, "explicit-euler"),
        f"{tag}: Cartesian, one evaluation (M, Q)": _caller(lambda: cart.evaluate(0.6, st_c.q, st_c.qd, ws,
                                                                                   EVAL_M | EVAL_Q)),
        f"{tag}: synthesis B (numpy), ab3 step": _stepper(SynthesisSystem(sm, formulation="relative-joint"), "ab3"),
    }
    return info, cases


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--model", default="sla-car")
    ap.add_argument("--rounds", type=int, default=15)
    ap.add_argument("--steps", type=int, default=400)
    a = ap.parse_args(argv)
    locked = load_model_file(model_file(a.model))
    free = load_model_file(model_file(a.model))
    free.joints = [j for j in free.joints if j.name != "chassis_slide"]      # the chassis with 6 DOF
    infos, cases = [], {}
    for model, tag in ((locked, "heave"), (free, "6 DOF")):
        i, c = _cases(model, tag)
        infos.append(i)
        cases.update(c)
    cpu = {k: [] for k in cases}
    for _ in range(a.rounds):                   # interleaved: machine load hits every case alike
        for k, run in cases.items():
            n = a.steps // 20 if "numpy" in k or "li-euler step (FD" in k else a.steps
            c0 = time.process_time_ns()
            run(n)
            cpu[k].append((time.process_time_ns() - c0) / 1e3 / n)
    med = {k: float(np.median(v)) for k, v in cpu.items()}
    best = {k: float(np.min(v)) for k, v in cpu.items()}
    print(f"model {a.model}; " + "; ".join(infos) + f"; h = {H * 1e3:g} ms; {a.rounds} interleaved rounds of "
          f"{a.steps} steps ({a.steps // 20} for numpy and synthesis li-euler); process CPU time; "
          f"{platform.machine()}, OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}\n")
    print("| case | CPU µs per step/call, median [best] | Cartesian li-euler / this | Cartesian explicit-euler / this |")
    print("| --- | --- | --- | --- |")
    for k in cases:
        tag = k.split(":")[0]
        print(f"| {k} | {med[k]:.1f} [{best[k]:.1f}] | {med[tag + ': Cartesian, li-euler step'] / med[k]:.2f} "
              f"| {med[tag + ': Cartesian, explicit-euler step'] / med[k]:.2f} |")
    for tag in ("heave", "6 DOF"):
        s = f"{tag}: synthesis B (C provider), ab3 step"
        print(f"\n{tag}: speed-up of synthesis (ab3 step) over Cartesian: li-euler "
              f"{med[tag + ': Cartesian, li-euler step'] / med[s]:.2f}, explicit-euler "
              f"{med[tag + ': Cartesian, explicit-euler step'] / med[s]:.2f} (seed: 'more than 4')")
    return med


if __name__ == "__main__":
    main()
