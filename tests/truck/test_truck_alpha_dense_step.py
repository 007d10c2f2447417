"""generalized-alpha on the planar truck as one call of the C engine (engine/alpha_dense.c):
against the numpy dense path of rtmbs.solvers.generalized_alpha (an independent implementation of
the same arithmetic) for every option, its rollout against its step loop, its outputs, its
operation counts against the dense LU's and the solver's counters, a failed step."""
import numpy as np
import pytest

from rtmbs.engine import counters, warnings
from rtmbs.models import load_model
from rtmbs.models.truck import OUTPUT_NAMES, truck
from rtmbs.solvers.base import get_solver, time_after
from rtmbs.solvers.rollout import compiled, rollout

H = 1e-3
STEPS = 500  # 0.5 s
ALPHA = "generalized-alpha"

_ODE_OPTIONS = [dict(jacobian=j, newton_iterations=k) for j in ("all", "stiff") for k in (1, 3)]
_DAE_OPTIONS = [dict(stabilize=s, jacobian=j, newton_iterations=k)
                for s in ("velocity", "projection", "none") for j in ("all", "stiff")
                for k in (1, 3)]
CASES = ([("ode", o) for o in _ODE_OPTIONS] + [("linear", o) for o in _ODE_OPTIONS]
         + [("dae", o) for o in _DAE_OPTIONS])


def _pair(variant, options):
    """Two solvers on two copies of the truck (a sine road: the road terms move every step), the
    first on the C step, the second kept on the numpy path; and a moving start state."""
    solvers, states = [], []
    for in_engine in (True, False):
        system = truck(variant, road="sine")
        solver = get_solver(ALPHA)(system, **options)
        solver.dense_in_engine = in_engine
        state = system.initial_state()
        state.qd[:] = 0.05 * np.arange(1, 10)
        solver.reset(state)
        assert solver.dense_c is in_engine and (solver.bound is not None) is in_engine
        solvers.append(solver)
        states.append(state)
    return solvers, states


def _rel(a, b):
    return np.abs(a - b).max() / np.abs(b).max()


@pytest.mark.parametrize("variant, options", CASES, ids=[f"{v}-{o}" for v, o in CASES])
def test_each_step_is_the_numpy_dense_step(variant, options):
    """From the numpy path's state (q, q̇ and the method's a, q̈, λ) at every step of 0.5 s, the
    C step gives its q, q̇, λ, a, q̈ to 1e-13 relative (measured: 0 on the ODE trucks, whose
    products happen to sum in the same order; q ≤ 4e-19, q̇ ≤ 4e-16, λ ≤ 5e-16 on truck-dae),
    with the same evaluations, factorisations, solves and pivot ratio."""
    (c, py), (sc, sp) = _pair(variant, options)
    for _ in range(STEPS):
        sc.t, sc.q[:], sc.qd[:] = sp.t, sp.q, sp.qd
        c.vec[:] = py.vec  # (a, q̈, λ: the method's state between steps)
        assert c.step(sc, H) and py.step(sp, H)
        assert _rel(sc.q, sp.q) <= 1e-13 and _rel(sc.qd, sp.qd) <= 1e-13
        assert _rel(c.a, py.a) <= 1e-13 and _rel(c.qdd, py.qdd) <= 1e-13
        if py.lam.size:
            assert _rel(c.lam, py.lam) <= 1e-13
        assert sc.t == sp.t
    assert (c.nstep, c.neval, c.nfactor, c.nsolve) == (py.nstep, py.neval, py.nfactor, py.nsolve)
    assert c.ratio == pytest.approx(py.ratio, rel=1e-12)


@pytest.mark.parametrize("variant, options", [
    ("ode", {}), ("linear", {}), ("dae", {}), ("dae", dict(stabilize="none")),
    ("dae", dict(stabilize="projection"))])
def test_free_runs_of_half_a_second_agree(variant, options):
    """Each path on its own for 0.5 s: the ODE trucks bit for bit (the same sums); truck-dae
    round-off apart, q to 1e-13 and q̇ to 1e-11 (measured 2e-15, 5e-13). λ₁ answers a position
    difference δq with β'M δq (the iteration matrix's M/(βh²) scale: β' = 4e6 s⁻² at h = 1 ms,
    M up to 3.5e4): the 5e-15 m gap in q is up to 2e-3 N of 4.3e4 N, so λ to 1e-6 relative
    (measured 4e-8 without stabilisation)."""
    (c, py), (sc, sp) = _pair(variant, options)
    for _ in range(STEPS):
        assert c.step(sc, H) and py.step(sp, H)
    assert np.abs(sc.qd).max() > 0.5  # (still moving)
    if variant != "dae":
        assert np.array_equal(sc.q, sp.q) and np.array_equal(sc.qd, sp.qd)
        return
    assert _rel(sc.q, sp.q) <= 1e-13 and _rel(sc.qd, sp.qd) <= 1e-11
    assert _rel(c.lam, py.lam) <= 1e-6


@pytest.mark.parametrize("name, options", [("truck-ode", {}), ("truck-dae", {}),
                                           ("truck-dae", dict(stabilize="projection")),
                                           ("truck-linear", {})])
def test_the_rollout_is_the_step_loop(name, options):
    """rollout runs in C (compiled) and gives the step loop's q, q̇, λ and outputs bit for bit,
    its times as t0 + k h."""
    systems = [load_model(name) for _ in range(2)]
    solvers = [get_solver(ALPHA)(s, **options) for s in systems]
    states = [s.initial_state() for s in systems]
    for solver, state in zip(solvers, states):
        state.qd[2] = 0.3
        solver.reset(state)
    assert compiled(solvers[0]) and solvers[1].dense_c
    r = rollout(solvers[0], states[0], STEPS, H, every=5)
    assert r.status == 1 and r.nsteps == STEPS and r.q.shape == (STEPS // 5, 9)
    out = np.zeros(len(OUTPUT_NAMES))
    s1, st1, row = solvers[1], states[1], 0
    for k in range(1, STEPS + 1):
        qd_prev = st1.qd.copy()
        assert s1.step(st1, H)
        if k % 5 == 0:
            systems[1].outputs(st1.t, st1.q, st1.qd, out)
            assert np.array_equal(r.q[row], st1.q) and np.array_equal(r.qd[row], st1.qd)
            assert np.array_equal(r.qd_prev[row], qd_prev)
            assert np.array_equal(r.lam[row], s1.lam)
            assert np.array_equal([r.outputs[nm][row] for nm in OUTPUT_NAMES], out)
            assert r.t[row] == time_after(0.0, H, k)
            row += 1
    assert np.array_equal(states[0].q, st1.q) and states[0].t == time_after(0.0, H, STEPS)
    assert np.array_equal(solvers[0].vec, s1.vec)  # (a, q̈, λ too)
    assert (solvers[0].nstep, solvers[0].neval, solvers[0].nfactor, solvers[0].nsolve) == (
        s1.nstep, s1.neval, s1.nfactor, s1.nsolve)


@pytest.mark.parametrize("instrument", [False, True])
def test_step_outputs_and_the_instrumented_step_are_the_step(instrument):
    """step_outputs (one call of the bound step) gives the step's state and the outputs at its
    end, or at its start with at_start; the instrumented step (timed whole) the same state."""
    systems = [truck("dae", road="sine") for _ in range(2)]
    solvers = [get_solver(ALPHA)(s, instrument=instrument) for s in systems]
    states = [s.initial_state() for s in systems]
    for solver, state in zip(solvers, states):
        state.qd[2] = 0.3
        solver.reset(state)
    out, ref = np.zeros(len(OUTPUT_NAMES)), np.zeros(len(OUTPUT_NAMES))
    for k in range(50):
        at_start = k % 2 == 1
        if at_start:
            systems[1].outputs(states[1].t, states[1].q, states[1].qd, ref)
        assert solvers[0].step_outputs(states[0], H, out, at_start=at_start)
        assert solvers[1].step(states[1], H)
        if not at_start:
            systems[1].outputs(states[1].t, states[1].q, states[1].qd, ref)
        assert np.array_equal(states[0].q, states[1].q) and states[0].t == states[1].t
        assert np.array_equal(out, ref)
    assert solvers[0].nstep == solvers[1].nstep == 50
    assert solvers[0].neval == solvers[1].neval == 200  # (3 Newton evaluations + Φq at q₁)
    if instrument:
        assert solvers[0].timers["other"] > 0.0


# multiply-adds of the dense LU on N = n + m: (N^3 - N) / 3 a factorisation, N^2 a solve
_FLOPS = {9: (240, 81), 11: (440, 121)}


@pytest.mark.parametrize("name, options, per_step", [
    ("truck-ode", {}, (3, 1, 3)),                               # (m = 0: no stabilisation)
    ("truck-linear", dict(jacobian="stiff", newton_iterations=2), (2, 1, 2)),
    ("truck-dae", {}, (4, 1, 5)),                               # Φq at q₁, two velocity solves
    ("truck-dae", dict(stabilize="projection"), (4, 2, 5)),     # [M Φqᵀ; Φq 0] at q₁, two solves
    ("truck-dae", dict(stabilize="none", newton_iterations=1), (1, 1, 1)),
])
def test_every_step_counts_the_same_work(name, options, per_step):
    """10^4 steps from solver.step: the engine's counts of every step the same (cost_changes
    0), and those of the algorithm: evaluations, factorisations, solves as the solver counts
    them, multiply-adds of the dense LU of the (n + m)² matrices."""
    system = load_model(name)
    solver = get_solver(ALPHA)(system, **options)
    state = system.initial_state()
    state.qd[2] = 0.3
    solver.reset(state)
    assert solver.dense_c
    before = counters(system.data)
    for _ in range(10_000):
        assert solver.step(state, H)
    c = counters(system.data)
    assert c["steps"] - before["steps"] == 10_000 and c["cost_changes"] == 0
    ne, nf, ns = per_step
    factor, solve = _FLOPS[system.n + system.m]
    assert c["last_step"] == dict(evaluations=ne, element_kernels=0, factorisations=nf,
                                  solves=ns, multiply_adds=nf * factor + ns * solve)
    assert (solver.neval, solver.nfactor, solver.nsolve) == (10_000 * ne, 10_000 * nf,
                                                             10_000 * ns)
    assert c["evaluations"] - before["evaluations"] == 10_000 * ne


def test_a_state_outside_the_model_fails_the_step_and_is_counted():
    """A wheel above the chassis leaves a pneumatic spring no volume (the provider's
    RTMBS_ERR_NONFINITE): the step fails, q, q̇ and the method's a, q̈, λ are as they were, a
    non-finite warning is counted; the rollout stops there with the state of the last good
    step."""
    system = truck("dae")
    solver = get_solver(ALPHA)(system)
    state = system.initial_state()
    solver.reset(state)
    state.q[0] = 2.0
    q0, qd0, vec0 = state.q.copy(), state.qd.copy(), solver.vec.copy()
    assert not solver.step(state, H)
    assert solver.status == -1 and solver.ratio == 0.0
    assert np.array_equal(state.q, q0) and np.array_equal(state.qd, qd0)
    assert np.array_equal(solver.vec[4 * 9:6 * 9], vec0[4 * 9:6 * 9])  # a, q̈
    assert np.array_equal(solver.lam, vec0[-2:])
    assert warnings(system.data)["nonfinite"][0] == 1
    solver.reset(state)
    r = rollout(solver, state, 10, H)
    assert r.status == -1 and r.nsteps == 0 and np.array_equal(state.q, q0)
    assert warnings(system.data)["nonfinite"][0] == 2


@pytest.mark.filterwarnings("ignore::rtmbs.errors.RedundantConstraintWarning")
def test_systems_without_a_compiled_evaluation_keep_their_paths():
    """A wrapper that forwards attributes to the truck (as the reduced system does) and the
    reduced system itself step with numpy; a compiled model keeps its sparse step, or numpy with
    linear_solver="dense"."""

    class Wrapped:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

    assert not get_solver(ALPHA)(Wrapped(truck("dae"))).dense_in_engine
    assert not get_solver(ALPHA)(load_model("mcpherson-overconstrained")).dense_in_engine
    sparse = get_solver(ALPHA)(load_model("double-pendulum"))
    assert sparse.fused and not sparse.dense_in_engine
    assert not get_solver(ALPHA)(load_model("double-pendulum"),
                                 linear_solver="dense").dense_in_engine


def test_the_binding_refuses_bad_options():
    """The bound step checks its options once: an unknown stabilisation code, no Newton
    iteration, an m that is not the truck's."""
    from rtmbs.engine import _engine

    system = truck("dae")
    solver = get_solver(ALPHA)(system)
    state = system.initial_state()
    solver.reset(state)
    am, af, g, b, jac, _, _ = solver.options_args

    def bind(m, k, stab):
        args = solver.kernel_args + (state.q, state.qd, m, 0.0, H, am, af, g, b, jac, k, stab)
        _engine.BoundStep("truck-generalized-alpha", args, np.zeros(0, np.int64), np.zeros(4),
                          np.zeros(4, np.int64), (1, 1, 1))

    bind(2, 3, 2)
    with pytest.raises(ValueError, match=r"stab in 0 \.\. 2 and niter >= 1"):
        bind(2, 3, 3)
    with pytest.raises(ValueError, match=r"stab in 0 \.\. 2 and niter >= 1"):
        bind(2, 0, 1)
    with pytest.raises(ValueError, match="m = 0, the truck's par has m = 2"):
        bind(0, 3, 1)
