"""Record the golden trajectories the C engine is checked against (tests/engine/test_golden.py).

Recorded once with the numba engine, before any stage was switched to C (the kernels of main at
1bd4731): ``python tests/engine/make_golden.py [CASE ...]``. Each case is a built-in model with a solver and its
options, run with h = 1 ms for ``T`` seconds; every ``EVERY``-th step is kept (q, q̇, the extra
states, every named output) in ``golden/<case>.npz``. The three sedan cases were recorded again
on the C engine when the sedan's design data changed (a front-drive 60/40 car): they check the
engine against its own earlier runs of the same model, not against numba.
"""
from __future__ import annotations

import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).parent / "golden"
EVERY = 20

# (case, model, solver, options, seconds)
CASES = [
    ("double-pendulum_li-euler", "double-pendulum", "li-euler", {}, 1.0),
    ("double-pendulum_li-euler_baumgarte", "double-pendulum", "li-euler", {"stabilize": "baumgarte"}, 1.0),
    ("double-pendulum_li-euler_ggl", "double-pendulum", "li-euler", {"stabilize": "ggl"}, 1.0),
    ("double-pendulum_li-euler_explicit-update", "double-pendulum", "li-euler", {"position_update": "explicit"}, 1.0),
    ("slider-crank_li-euler", "slider-crank", "li-euler", {}, 1.0),
    ("four-bar_li-euler", "four-bar", "li-euler", {}, 1.0),
    ("four-bar_li-euler_mass", "four-bar", "li-euler", {"projection": "mass"}, 1.0),
    ("four-bar_li-euler-indep", "four-bar", "li-euler-indep", {}, 1.0),
    ("four-bar_generalized-alpha", "four-bar", "generalized-alpha", {}, 1.0),
    ("four-bar_explicit-euler", "four-bar", "explicit-euler", {}, 1.0),
    ("spatial-chain-10_li-euler", "spatial-chain-10", "li-euler", {}, 0.5),
    ("mcpherson-simplified_li-euler", "mcpherson-simplified", "li-euler", {}, 1.0),
    ("peer-four-bar_li-euler", "peer-four-bar", "li-euler", {}, 1.0),
    ("peer-chain_li-euler", "peer-chain", "li-euler", {}, 0.5),
    ("peer-quarter-car_li-euler", "peer-quarter-car", "li-euler", {}, 1.0),
    ("peer-quarter-car_generalized-alpha", "peer-quarter-car", "generalized-alpha", {}, 1.0),
    ("peer-quarter-car_explicit-euler", "peer-quarter-car", "explicit-euler", {}, 1.0),
    ("sla-quarter-car_li-euler", "sla-quarter-car", "li-euler", {}, 1.0),
    ("multilink-bushings_li-euler", "multilink-bushings", "li-euler", {}, 1.0),
    ("multilink-ideal_li-euler", "multilink-ideal", "li-euler", {}, 1.0),
    ("multilink-ideal_li-euler-indep", "multilink-ideal", "li-euler-indep", {}, 1.0),
    ("concept-quarter-car_li-euler", "concept-quarter-car", "li-euler", {}, 1.0),
    ("concept-ride-7dof_li-euler", "concept-ride-7dof", "li-euler", {}, 1.0),
    ("sedan_li-euler", "sedan", "li-euler", {}, 1.0),
    ("sedan-transient_li-euler", "sedan-transient", "li-euler", {}, 1.0),
    ("sedan-bushings_li-euler", "sedan-bushings", "li-euler", {}, 0.5),
]


def record(case, model, solver, options, seconds) -> None:
    from rtmbs import simulate
    from rtmbs.models import load_model

    system = load_model(model)
    t0 = time.process_time()
    res = simulate(system, solver, t_end=seconds, h=1e-3, save_every=EVERY, accelerations=False,
                   **options)
    outs = {f"out:{k}": np.asarray(v) for k, v in res.outputs.items()}
    np.savez_compressed(HERE / f"{case}.npz", t=res.t, q=res.q, qd=res.qd, x=res.x, model=model,
                        solver=solver, options=repr(options), h=1e-3, **outs)
    print(f"{case}: {len(res.t)} rows, {time.process_time() - t0:.1f} s CPU", flush=True)


if __name__ == "__main__":
    HERE.mkdir(exist_ok=True)
    want = set(sys.argv[1:])
    for c in CASES:
        if not want or c[0] in want:
            record(*c)
