"""Cold compile cost: process CPU seconds to compile (fresh numba cache) what a first run of a
model needs — the evaluation kernel and one solver's compiled step — and then the same with the
cache warm. Run: python benchmarks/bench_compile.py [model] [solver]  (each in a fresh process)."""
import os
import subprocess
import sys
import tempfile
import time

CHILD = """
import time, resource
t0 = time.process_time()
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import rollout
system = load_model({model!r})
solver = get_solver({solver!r})(system)
state = system.initial_state()
solver.reset(state)
rollout(solver, state, n_steps=3, h=1e-3)
print(time.process_time() - t0)
"""


def cpu_seconds(model: str, solver: str, cache: str) -> float:
    env = dict(os.environ, RTMBS_NUMBA_CACHE=cache)
    out = subprocess.run([sys.executable, "-c", CHILD.format(model=model, solver=solver)], env=env,
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def main(argv):
    model = argv[1] if len(argv) > 1 else "four-bar"
    solver = argv[2] if len(argv) > 2 else "li-euler"
    with tempfile.TemporaryDirectory() as cache:
        t = time.perf_counter()
        cold = cpu_seconds(model, solver, cache)
        wall = time.perf_counter() - t
        warm = cpu_seconds(model, solver, cache)
    print(f"{model} {solver}: cold compile {cold:.1f} s CPU ({wall:.1f} s wall), warm start {warm:.1f} s CPU")


if __name__ == "__main__":
    main(sys.argv)
