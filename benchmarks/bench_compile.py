"""Cold compile cost: process CPU seconds to compile, with an empty numba cache, what a first run
of a model needs — the evaluation kernel with assembly, then one solver's compiled step and
rollout — and the same start with the cache warm.
Run: python benchmarks/bench_compile.py [model] [solver]   (each measurement in a fresh process)."""
import os
import subprocess
import sys
import tempfile

CHILD = """
import time
t0 = time.process_time()
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import rollout
system = load_model({model!r})
state = system.initial_state()
t1 = time.process_time()
solver = get_solver({solver!r})(system)
solver.reset(state)
rollout(solver, state, n_steps=3, h=1e-3)
t2 = time.process_time()
print(t1 - t0, t2 - t1)
"""


def cpu_seconds(model: str, solver: str, cache: str) -> tuple[float, float]:
    env = dict(os.environ, RTMBS_NUMBA_CACHE=cache)
    out = subprocess.run([sys.executable, "-c", CHILD.format(model=model, solver=solver)], env=env,
                         capture_output=True, text=True, check=True)
    a, b = out.stdout.strip().splitlines()[-1].split()
    return float(a), float(b)


def main(argv):
    model = argv[1] if len(argv) > 1 else "four-bar"
    solver = argv[2] if len(argv) > 2 else "li-euler"
    with tempfile.TemporaryDirectory() as cache:
        cold = cpu_seconds(model, solver, cache)
        warm = cpu_seconds(model, solver, cache)
    print(f"{model} {solver}: cold: evaluation + assembly {cold[0]:.1f} s CPU, step + rollout "
          f"{cold[1]:.1f} s CPU; warm: {warm[0]:.1f} + {warm[1]:.1f} s CPU (load {os.getloadavg()[0]:.1f})")


if __name__ == "__main__":
    main(sys.argv)
