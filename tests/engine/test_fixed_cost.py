"""Fixed cost, shown by the engine's own counts: 10^5 li-euler steps of every built-in model
through ``simulate`` (the path users run: compiled rollouts in chunks), and not one step whose
operation counts (evaluations, element kernels, factorisations, solves, multiply-adds) differ from
the step before's (``cost_changes``, counted by rtmbs_step_end in src/rtmbs/engine/model.c). The
planar trucks run the dense step of li_euler_dense.c, whose counts their ``data`` holds."""
from __future__ import annotations

import pytest

from rtmbs import simulate
from rtmbs.engine import STEP_COUNTS, counters
from rtmbs.models import BUILTIN, load_model
from rtmbs.solvers.base import get_solver

STEPS = 100_000
H = 1e-3
#: every built-in model: the trucks on the dense step of their compiled evaluation
#: (li_euler_dense.c), mcpherson-overconstrained with its redundant rows left out
#: (solvers.redundancy; the engine's step solves with the kept rows and checks the others)
COMPILED = sorted(BUILTIN)


@pytest.mark.slow
@pytest.mark.parametrize("name", COMPILED)
def test_every_step_costs_the_same(name):
    system = load_model(name)
    solver = get_solver("li-euler")(system)
    data = solver.system.data  # (the system the solver integrates: redundant rows left out)
    before = counters(data)
    res = simulate(system, solver, t_end=STEPS * H, h=H, save_every=STEPS, accelerations=False)
    assert res.success
    after = counters(data)
    assert after["steps"] - before["steps"] == STEPS
    assert after["cost_changes"] == 0
    per_step = after["last_step"]
    assert per_step["factorisations"] >= 1 and per_step["solves"] >= 1
    for name_ in STEP_COUNTS:  # the totals are the per-step counts times the steps (+ set-up)
        run = after[name_] - before[name_]
        assert run >= STEPS * per_step[name_]
        assert run - STEPS * per_step[name_] <= 20 * max(per_step[name_], 1)


def test_a_changed_count_is_counted():
    """The counter is no constant: a step with a different number of projection solves (an
    option changed between steps) is counted once as a change."""
    system = load_model("four-bar")
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    for _ in range(3):
        assert solver.step(state, H)
    assert counters(system.data)["cost_changes"] == 0
    args = list(solver._options_args)
    args[3] += 1  # one more projection solve (niter)
    solver._options_args = tuple(args)
    solver.bind_step_options()
    for _ in range(3):
        assert solver.step(state, H)
    c = counters(system.data)
    assert c["cost_changes"] == 1
    assert c["last_step"]["solves"] == 4  # eq. 22's solve and three projection solves
