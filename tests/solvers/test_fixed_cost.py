"""Fixed cost: the number of evaluations, factorisations and solves per step is the same for
every step and every state, and equals the count each solver documents."""
import numpy as np
import pytest

from rtmbs.solvers.base import get_solver
from _models.linkages import LinearOscillator, StiffTwoMass, double_pendulum, slider_crank


def _counts(sysm, solver, state, nsteps=50, h=1e-3, **opts):
    slv = get_solver(solver)(sysm, **opts)
    slv.reset(state)
    rows = []
    for _ in range(nsteps):
        before = (slv.neval, slv.nfactor, slv.nsolve)
        assert slv.step(state, h)
        rows.append(tuple(a - b for a, b in zip((slv.neval, slv.nfactor, slv.nsolve), before)))
    return slv, set(rows)


def _two_states(sysm):
    s1 = sysm.initial_state()
    s2 = s1.copy()
    # a different state on the manifold: run the model a little with a different speed
    s2.qd *= -1.7
    return s1, s2


# (solver, options, (neval, nfactor, nsolve) per step as documented; f = n − m). Every option
# the count depends on is given (the defaults are stabilize="projection", B="partition").
CASES = [
    ("explicit-euler", {"stabilize": "none"}, lambda f: (1, 1, 1)),
    ("explicit-euler", {"stabilize": "projection"}, lambda f: (2, 1, 2)),
    ("explicit-euler", {"stabilize": "baumgarte"}, lambda f: (1, 1, 1)),
    # li-euler: M, Q, Φq and the Jacobians in one evaluation at t, Φq (Φ) at q + h q̇; projection
    # with the factors of eq. 22 (projection="step"): Φ at q + h(q̇ + Δq̇) and at the corrected
    # positions, one solve after each (projection_solves=2)
    ("li-euler", {"stabilize": "none"}, lambda f: (2, 1, 1)),
    ("li-euler", {"stabilize": "projection"}, lambda f: (4, 1, 3)),
    ("li-euler", {"stabilize": "projection", "projection_solves": 1}, lambda f: (3, 1, 2)),
    ("li-euler", {"stabilize": "projection", "projection": "mass"}, lambda f: (3, 2, 2)),
    ("li-euler", {"stabilize": "projection", "position_update": "explicit"}, lambda f: (3, 1, 3)),
    ("li-euler", {"stabilize": "baumgarte"}, lambda f: (2, 1, 1)),
    ("li-euler", {"stabilize": "ggl"}, lambda f: (3, 2, 2)),
    ("li-euler", {"stabilize": "ggl", "ggl_iterations": 3}, lambda f: (5, 2, 4)),
    ("li-euler-indep", {"B": "qr", "stabilize": "none"}, lambda f: (3, 2, f + 4)),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection"}, lambda f: (4, 3, f + 5)),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection", "projection_solve": "T"},
     lambda f: (4, 2, f + 5)),
    ("li-euler-indep", {"B": "partition", "stabilize": "none", "multipliers": False},
     lambda f: (3, 2, f + 3)),
    ("generalized-alpha", {}, lambda f: (4, 1, 5)),
    ("generalized-alpha", {"newton_iterations": 2}, lambda f: (3, 1, 4)),
    ("generalized-alpha", {"stabilize": "projection"}, lambda f: (4, 2, 5)),
    ("generalized-alpha", {"stabilize": "none", "newton_iterations": 1}, lambda f: (1, 1, 1)),
]


@pytest.mark.parametrize("solver,opts,expected", CASES, ids=lambda v: str(v) if not callable(v) else "")
@pytest.mark.parametrize("model", [slider_crank, double_pendulum])
def test_counts_per_step_do_not_depend_on_the_state(model, solver, opts, expected):
    sysm = model()
    per_state = []
    for st in _two_states(sysm):
        slv, rows = _counts(sysm, solver, st, **opts)
        assert len(rows) == 1, rows  # every step costs the same
        per_state.append(rows.pop())
        assert getattr(slv, "nrebase", 0) == 0
    assert per_state[0] == per_state[1] == expected(sysm.n - sysm.m)


def test_counts_for_ode_models():
    # default options: stabilize="projection" is ignored when m = 0 (no extra evaluation/solve);
    # li-euler evaluates M, Q and the Jacobians in one pass
    for sysm in (LinearOscillator(), StiffTwoMass()):
        for solver, exp in (("explicit-euler", (1, 1, 1)), ("li-euler", (1, 1, 1)),
                            ("generalized-alpha", (3, 1, 3))):
            st = sysm.initial_state()
            _, rows = _counts(sysm, solver, st)
            assert rows == {exp}


def test_alg2_rebase_is_counted_apart_and_costs_one_extra_factorisation():
    """A rebase (rare, see li_euler_indep) adds exactly one factorisation to that step."""
    from _models.linkages import PointPendulum

    sysm = PointPendulum()
    slv = get_solver("li-euler-indep")(sysm, B="qr", stabilize="none")
    st = sysm.initial_state()
    slv.reset(st)
    seen = {}
    for _ in range(700):
        before = (slv.neval, slv.nfactor, slv.nsolve, slv.nrebase)
        slv.step(st, 1e-3)
        d = tuple(a - b for a, b in zip((slv.neval, slv.nfactor, slv.nsolve, slv.nrebase), before))
        seen.setdefault(d[3], set()).add(d[:3])
    assert seen[0] == {(3, 2, 1 + 4)}
    assert seen[1] == {(3, 3, 1 + 4)}


def test_caller_changing_the_state_is_picked_up():
    """Algorithm 2 keeps ż inside; a caller that overwrites state.qd gets ż re-mapped from it:
    the next step equals that of a fresh solver (same B) started from the changed state."""
    sysm = slider_crank()
    opts = dict(B="partition", independent=[2], rebase=False)
    slv = get_solver("li-euler-indep")(sysm, **opts)
    st = sysm.initial_state()
    slv.reset(st)
    slv.step(st, 1e-3)
    st.qd *= 0.5  # still on the velocity manifold (linear in q̇)
    fresh_state = st.copy()
    slv.step(st, 1e-3)
    fresh = get_solver("li-euler-indep")(sysm, **opts)
    fresh.reset(fresh_state)
    fresh.step(fresh_state, 1e-3)
    np.testing.assert_allclose(st.q, fresh_state.q, rtol=0, atol=1e-14)
    np.testing.assert_allclose(st.qd, fresh_state.qd, rtol=0, atol=1e-12)
