"""Set-up of a large model: a 2000-link spatial chain (n 14 000, m 8000) to its first steps with
li-euler, in process CPU time and wall time, and the peak memory (docs/solvers.md "Set-up of
large models"). Run: PYTHONPATH=src python benchmarks/bench_large_setup.py [links]"""
import resource
import sys
import time

from rtmbs.models.classic import spatial_chain
from rtmbs.solvers.simulate import simulate
from rtmbs.system import compile_model


def main(links: int = 2000) -> None:
    wall0, cpu0 = time.time(), time.process_time()
    system = compile_model(spatial_chain(links))
    print(f"compile: cpu {time.process_time() - cpu0:.1f} s", flush=True)
    system.initial_state()
    print(f"initial state: cpu {time.process_time() - cpu0:.1f} s", flush=True)
    simulate(system, "li-euler", t_end=0.002, h=1e-3)
    print(f"first steps: cpu {time.process_time() - cpu0:.1f} s, wall {time.time() - wall0:.1f} s, "
          f"peak RSS {resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:.0f} MB")


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 2000)
