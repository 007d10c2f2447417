"""``simulate`` with a solver whose step is one call of the C engine goes through the engine's
rollout (a Python step would raise) and saves what a loop of the engine's steps gives, bit for
bit (li-euler-indep: rebases included)."""
import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import compiled
from rtmbs.solvers.simulate import simulate

H = 1e-3
#: (method, the options of the loop's solver: those simulate takes by default, steps)
CASES = [
    ("generalized-alpha", {"linear_solver": "sparse"}, 200),
    ("explicit-euler", {"linear_solver": "sparse", "stabilize": "projection",
                        "position_update": "explicit"}, 300),
    ("li-euler-indep", {}, 300),
]


@pytest.mark.parametrize("method, options, steps", CASES, ids=[c[0] for c in CASES])
def test_simulate_runs_the_compiled_rollout_and_gives_the_loop_of_steps(monkeypatch, method,
                                                                         options, steps):
    sysm = load_model("peer-quarter-car")
    slv = get_solver(method)(sysm.new_data(), **options)
    st = slv.system.initial_state()
    slv.reset(st)
    assert compiled(slv)
    qs = []
    for k in range(steps):
        assert slv.step(st, H)
        if k % 2 == 1:
            qs.append(st.q.copy())

    def refuse(*args, **kwargs):
        raise AssertionError("a Python step")

    monkeypatch.setattr(type(slv), "step", refuse)
    res = simulate(load_model("peer-quarter-car"), method, t_end=steps * H, h=H, save_every=2)
    assert res.meta["status"] == 1 and len(res.t) == steps // 2 + 1
    assert np.array_equal(res.q[1:], np.array(qs))
    assert res.meta["steps"] == steps
