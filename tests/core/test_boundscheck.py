"""The model evaluation, the outputs, a few steps of every fixed-step solver configuration and a
rollout, compiled from scratch with ``NUMBA_BOUNDSCHECK=1`` (issue 11): an offset or size mistake
in the packed buffers raises IndexError instead of silently reading or writing out of bounds.

The cases are in ``boundscheck_cases.py`` (run as a script in a subprocess with a fresh numba cache:
a cache compiled without bounds checks must not be reused). Takes a few minutes: it compiles every
kernel with bounds checks, so it runs only with ``RTMBS_BOUNDSCHECK=1``; ``.ci/run`` runs it in
a second process beside the README's ``pytest`` (two cores: the wall time is the longer of the two).
"""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from rtmbs.solvers import base

from .boundscheck_cases import MODELS, cases, solver_configs

HERE = Path(__file__).parent
SRC = HERE.parents[1] / "src"


def test_every_fixed_step_solver_has_a_case():
    base._load_all()
    fixed = {name for name, cls in base.SOLVERS.items()
             if not cls.offline and cls.__module__.startswith("rtmbs.")}
    assert fixed <= {name for name, _, _ in solver_configs()}
    lines = cases()
    for model, spec in MODELS.items():
        assert f"eval {model}" in lines
        if spec is not None:
            assert any(ln.startswith(f"rollout {model} ") for ln in lines), model


@pytest.mark.skipif(not os.environ.get("RTMBS_BOUNDSCHECK"),
                    reason="compiles every kernel again with bounds checks (about 10 min): set "
                           "RTMBS_BOUNDSCHECK=1 (.ci/run runs it beside the main test run)")
def test_evaluation_steps_and_rollouts_stay_in_bounds(tmp_path):
    env = dict(os.environ)
    for k in ("RTMBS_NO_CACHE_VERSIONING", "NUMBA_DISABLE_JIT", "NUMBA_CACHE_DIR"):
        env.pop(k, None)
    # NUMBA_OPT=0: the bounds checks are emitted when numba lowers the indexing, before LLVM's
    # optimisation, which is most of the compile time here (measured: 11.1 -> 6.9 min for the
    # model evaluation, 5.8 -> 4.7 min for the compiled li-euler step, loaded 2-core machine)
    env.update(NUMBA_BOUNDSCHECK="1", NUMBA_OPT="0", OPENBLAS_NUM_THREADS="1", PYTHONPATH=str(SRC),
               RTMBS_NUMBA_CACHE=str(tmp_path / "numba-cache"))
    p = subprocess.run([sys.executable, str(HERE / "boundscheck_cases.py")], env=env, cwd=tmp_path,
                       capture_output=True, text=True, timeout=1800)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout[-2000:]}\n{p.stderr[-6000:]}"
    printed = p.stdout.splitlines()
    missing = [c for c in cases() if c not in printed]
    assert not missing, f"{len(missing)} cases did not run, first: {missing[:5]}"
    assert (tmp_path / "numba-cache").is_dir()  # the kernels were compiled into the fresh cache
