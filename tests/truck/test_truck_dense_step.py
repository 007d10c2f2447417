"""li-euler and generalized-alpha on the planar truck as one call of the C engine
(engine/li_euler_dense.c, alpha_dense.c): against the numpy dense paths of rtmbs.solvers.li_euler
and generalized_alpha (independent implementations of the same arithmetic) for every option, the
rollout (dense_rollout.c) against the step loop, the outputs against the Python formulas, the
operation counts against the dense LU's and the solver's counters, a failed step."""
import numpy as np
import pytest

from rtmbs.engine import counters, warnings
from rtmbs.models import load_model
from rtmbs.models.truck import OUTPUT_NAMES, road_profile, truck
from rtmbs.protocol import State
from rtmbs.solvers.base import get_solver, time_after
from rtmbs.solvers.rollout import compiled, rollout

H = 1e-3
STEPS = 500  # 0.5 s

_MODEL_OPTIONS = [dict(position_update=p, jacobian=j) for p in ("implicit", "explicit")
                  for j in ("stiff", "all")]
_DAE_OPTIONS = []
for _j in ("stiff", "all"):
    for _p in ("implicit", "explicit"):
        _DAE_OPTIONS += [dict(stabilize="none", position_update=_p, jacobian=_j),
                         dict(stabilize="projection", projection_solves=1, position_update=_p,
                              jacobian=_j),
                         dict(stabilize="projection", projection_solves=3, position_update=_p,
                              jacobian=_j),
                         dict(stabilize="projection", projection="mass", position_update=_p,
                              jacobian=_j)]
    _DAE_OPTIONS += [dict(stabilize="baumgarte", jacobian=_j),
                     dict(stabilize="baumgarte", baumgarte_gamma=50.0, jacobian=_j),
                     dict(stabilize="ggl", jacobian=_j), dict(stabilize="ggl", ggl_iterations=3,
                                                                jacobian=_j)]
CASES = ([("ode", o) for o in _MODEL_OPTIONS] + [("linear", o) for o in _MODEL_OPTIONS]
         + [("dae", o) for o in _DAE_OPTIONS])
ALPHA = "generalized-alpha"
_ALPHA_ODE = [dict(jacobian=j, newton_iterations=k) for j in ("all", "stiff") for k in (1, 3)]
ALPHA_CASES = ([("ode", o) for o in _ALPHA_ODE] + [("linear", o) for o in _ALPHA_ODE]
               + [("dae", dict(stabilize=s, jacobian=j, newton_iterations=k))
                  for s in ("velocity", "projection", "none") for j in ("all", "stiff")
                  for k in (1, 3)])


def _pair(variant, options, method="li-euler"):
    """Two solvers on two copies of the truck (a sine road: the road terms move every step), the
    first on the C step, the second kept on the numpy path; and a moving start state."""
    solvers, states = [], []
    for in_engine in (True, False):
        system = truck(variant, road="sine")
        solver = get_solver(method)(system, **options)
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


STEP_CASES = [("li-euler", v, o) for v, o in CASES] + [(ALPHA, v, o) for v, o in ALPHA_CASES]


@pytest.mark.parametrize("method, variant, options", STEP_CASES,
                         ids=[f"{mt}-{v}-{o}" for mt, v, o in STEP_CASES])
def test_each_step_is_the_numpy_dense_step(method, variant, options):
    """From the numpy path's state at every step of 0.5 s (generalized-alpha's includes its a,
    q̈, λ), the C step gives the numpy step's result with the same evaluations, factorisations,
    solves and pivot ratio. li-euler: q, q̇ to 1e-14 and λ to 1e-12 relative (measured: q ≤
    2e-18, q̇ ≤ 3e-16, λ ≤ 3e-13: the matrix-vector products are loops in C, BLAS in numpy; λ
    carries Φq q̇, which cancels). generalized-alpha: q, q̇, λ, a, q̈ to 1e-13 (measured: 0 on the
    ODE trucks, whose products happen to sum in the same order; q ≤ 4e-19, q̇ ≤ 4e-16, λ ≤ 5e-16
    on truck-dae)."""
    alpha = method == ALPHA
    tol, tol_lam = (1e-13, 1e-13) if alpha else (1e-14, 1e-12)
    (c, py), (sc, sp) = _pair(variant, options, method)
    for _ in range(STEPS):
        sc.t, sc.q[:], sc.qd[:] = sp.t, sp.q, sp.qd
        if alpha:
            c.vec[:] = py.vec  # (a, q̈, λ: the method's state between steps)
        assert c.step(sc, H) and py.step(sp, H)
        assert _rel(sc.q, sp.q) <= tol and _rel(sc.qd, sp.qd) <= tol
        if alpha:
            assert _rel(c.a, py.a) <= tol and _rel(c.qdd, py.qdd) <= tol
        if py.lam.size:
            assert _rel(c.lam, py.lam) <= tol_lam
        assert sc.t == sp.t
    assert (c.nstep, c.neval, c.nfactor, c.nsolve) == (py.nstep, py.neval, py.nfactor, py.nsolve)
    assert c.ratio == pytest.approx(py.ratio, rel=1e-12)


@pytest.mark.parametrize("method, variant, options, tol", [
    ("li-euler", "ode", {}, (1e-12, 1e-10, None)), ("li-euler", "linear", {}, (1e-12, 1e-10, None)),
    ("li-euler", "dae", {}, (1e-12, 1e-10, None)),
    ("li-euler", "dae", dict(stabilize="ggl"), (1e-12, 1e-10, None)),
    (ALPHA, "ode", {}, (0.0, 0.0, None)), (ALPHA, "linear", {}, (0.0, 0.0, None)),
    (ALPHA, "dae", {}, (1e-13, 1e-11, 1e-6)),
    (ALPHA, "dae", dict(stabilize="none"), (1e-13, 1e-11, 1e-6)),
    (ALPHA, "dae", dict(stabilize="projection"), (1e-13, 1e-11, 1e-6))])
def test_free_runs_of_half_a_second_agree(method, variant, options, tol):
    """Each path on its own for 0.5 s: round-off apart. li-euler: grown by the stiff hinge
    springs (1e9 N/m in truck-ode) to at most 6e-12 of the largest velocity (measured).
    generalized-alpha: the ODE trucks bit for bit (the same sums); truck-dae q to 1e-13 and q̇
    to 1e-11 (measured 2e-15, 5e-13); λ₁ answers a position difference δq with β'M δq (the
    iteration matrix's M/(βh²) scale: β' = 4e6 s⁻² at h = 1 ms, M up to 3.5e4), so the 5e-15 m
    gap in q is up to 2e-3 N of 4.3e4 N: λ to 1e-6 relative (measured 4e-8 without
    stabilisation)."""
    (c, py), (sc, sp) = _pair(variant, options, method)
    for _ in range(STEPS):
        assert c.step(sc, H) and py.step(sp, H)
    tq, tv, tl = tol
    assert _rel(sc.q, sp.q) <= tq and _rel(sc.qd, sp.qd) <= tv
    if tl is not None:
        assert _rel(c.lam, py.lam) <= tl
    assert np.abs(sc.qd).max() > 1e-3  # (still moving)


@pytest.mark.parametrize("method, name, options", [
    ("li-euler", "truck-ode", {}), ("li-euler", "truck-dae", {}), ("li-euler", "truck-linear", {}),
    (ALPHA, "truck-ode", {}), (ALPHA, "truck-dae", {}),
    (ALPHA, "truck-dae", dict(stabilize="projection")), (ALPHA, "truck-linear", {})])
def test_the_rollout_is_the_step_loop(method, name, options):
    """rollout runs in C (compiled) and gives the step loop's q, q̇, λ and outputs bit for bit,
    its times as t0 + k h, the step's vectors (generalized-alpha's a, q̈) and counts."""
    systems = [load_model(name) for _ in range(2)]
    solvers = [get_solver(method)(s, **options) for s in systems]
    states = [s.initial_state() for s in systems]
    for solver, state in zip(solvers, states):
        state.qd[2] = 0.3
        solver.reset(state)
    assert compiled(solvers[0])
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
    assert np.array_equal(solvers[0].vec, s1.vec)
    assert (solvers[0].nstep, solvers[0].neval, solvers[0].nfactor, solvers[0].nsolve) == (
        s1.nstep, s1.neval, s1.nfactor, s1.nsolve)


@pytest.mark.parametrize("method", ["li-euler", ALPHA])
@pytest.mark.parametrize("instrument", [False, True])
def test_step_outputs_and_the_instrumented_step_are_the_step(method, instrument):
    """step_outputs (one call of the bound step) gives the step's state and the outputs at its
    end, or at its start with at_start; the instrumented step (timed whole) the same state.
    (Both take 4 evaluations a step: li-euler at q, q_p and twice after the update,
    generalized-alpha 3 Newton corrections and Φq at q₁.)"""
    systems = [truck("dae", road="sine") for _ in range(2)]
    solvers = [get_solver(method)(s, instrument=instrument) for s in systems]
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
    assert solvers[0].neval == solvers[1].neval == 200
    if instrument:
        assert solvers[0].timers["other"] > 0.0


@pytest.mark.parametrize("variant", ["dae", "linear"])
def test_outputs_are_the_python_formulas(variant):
    """The engine's outputs (rtmbs_truck_outputs) against the hinge gap written in Python
    (``hinge_gap``) and the road profile, on a bumpy road mid-bump."""
    system = truck(variant, bump_times=(0.1,))
    q = system.q_eq + 0.01 * np.arange(9)
    out = np.zeros(len(OUTPUT_NAMES))
    t = 0.3
    system.outputs(t, q, np.zeros(9), out)
    g1, g2 = truck("dae").hinge_gap(q)
    road = road_profile(system.params, [t])[0]
    assert out[:4].tolist() == [q[2], q[3], q[4], q[8]]
    assert out[4:6] == pytest.approx([g1, g2], abs=1e-15)
    assert out[6:] == pytest.approx(road, abs=1e-15) and road.max() > 0.01


# multiply-adds of the dense LU on N = n + m: (N^3 - N) / 3 a factorisation, N^2 a solve
_FLOPS = {9: (240, 81), 11: (440, 121)}


@pytest.mark.parametrize("method, name, options, per_step", [
    ("li-euler", "truck-ode", {}, (1, 1, 1)),
    ("li-euler", "truck-dae", {}, (4, 1, 3)),     # Φ after the update, a second projection solve
    ("li-euler", "truck-dae", dict(projection="mass"), (3, 2, 2)),
    ("li-euler", "truck-dae", dict(stabilize="ggl", ggl_iterations=2), (4, 2, 3)),
    ("li-euler", "truck-dae", dict(stabilize="baumgarte"), (2, 1, 1)),
    (ALPHA, "truck-ode", {}, (3, 1, 3)),                               # (m = 0: no stabilisation)
    (ALPHA, "truck-linear", dict(jacobian="stiff", newton_iterations=2), (2, 1, 2)),
    (ALPHA, "truck-dae", {}, (4, 1, 5)),                     # Φq at q₁, two velocity solves
    (ALPHA, "truck-dae", dict(stabilize="projection"), (4, 2, 5)),  # [M Φqᵀ; Φq 0] at q₁
    (ALPHA, "truck-dae", dict(stabilize="none", newton_iterations=1), (1, 1, 1)),
])
def test_every_step_counts_the_same_work(method, name, options, per_step):
    """10^4 steps from solver.step: the engine's counts of every step the same (cost_changes
    0), and those of the algorithm: evaluations, factorisations, solves as the solver counts
    them, multiply-adds of the dense LU of the (n + m)² KKT matrices."""
    system = load_model(name)
    solver = get_solver(method)(system, **options)
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


@pytest.mark.parametrize("method", ["li-euler", ALPHA])
def test_a_state_outside_the_model_fails_the_step_and_is_counted(method):
    """A wheel above the chassis leaves a pneumatic spring no volume (the provider's
    RTMBS_ERR_NONFINITE): the step fails, q, q̇ and λ are as they were (generalized-alpha's a
    and q̈ too), a non-finite warning is counted; the rollout stops there with the state of the
    last good step."""
    system = truck("dae")
    solver = get_solver(method)(system)
    state = system.initial_state()
    solver.reset(state)
    state.q[0] = 2.0
    q0, qd0, lam0 = state.q.copy(), state.qd.copy(), solver.lam.copy()
    vec0 = getattr(solver, "vec", np.zeros(0)).copy()
    assert not solver.step(state, H)
    assert solver.status == -1 and solver.ratio == 0.0
    assert np.array_equal(state.q, q0) and np.array_equal(state.qd, qd0)
    assert np.array_equal(solver.lam, lam0)
    if method == ALPHA:
        assert np.array_equal(solver.vec[4 * 9:6 * 9], vec0[4 * 9:6 * 9])  # a, q̈
    assert warnings(system.data)["nonfinite"][0] == 1
    solver.reset(state)
    r = rollout(solver, state, 10, H)
    assert r.status == -1 and r.nsteps == 0 and np.array_equal(state.q, q0)
    assert warnings(system.data)["nonfinite"][0] == 2


@pytest.mark.filterwarnings("ignore::rtmbs.errors.RedundantConstraintWarning")
def test_systems_without_a_compiled_evaluation_keep_the_numpy_path():
    """A wrapper that forwards attributes to the truck (as the reduced system does) is not the
    provider: its solver steps with numpy."""

    class Wrapped:
        def __init__(self, inner):
            self._inner = inner

        def __getattr__(self, name):
            return getattr(self._inner, name)

    from rtmbs.solvers.li_euler import compiled_provider

    inner = truck("dae")
    assert compiled_provider(inner)[0] == 0 and compiled_provider(truck("linear"))[0] == 1
    assert compiled_provider(Wrapped(inner)) is None
    reduced = get_solver("li-euler")(load_model("mcpherson-overconstrained"))
    assert not reduced.dense_in_engine
    # generalized-alpha: the same, and a compiled model keeps its sparse step (or numpy with
    # linear_solver="dense")
    assert not get_solver(ALPHA)(Wrapped(inner)).dense_in_engine
    assert not get_solver(ALPHA)(load_model("mcpherson-overconstrained")).dense_in_engine
    sparse = get_solver(ALPHA)(load_model("double-pendulum"))
    assert sparse.fused and not sparse.dense_in_engine
    assert not get_solver(ALPHA)(load_model("double-pendulum"),
                                 linear_solver="dense").dense_in_engine


def test_the_binding_refuses_bad_options():
    """The bound step checks its options once: an unknown stabilisation code, an m that is not
    the truck's."""
    from rtmbs.engine import _engine

    system = truck("dae")
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    rest = (state.q, state.qd)

    def bind(m, stab):
        args = solver.kernel_args + rest + (m, 0.0, H, 64, True, stab, 1, 0.0)
        _engine.BoundStep("truck-li-euler", args, np.zeros(0, np.int64), np.zeros(4),
                          np.zeros(4, np.int64), (1, 1, 1))

    bind(2, 1)
    with pytest.raises(ValueError, match="stab in 0 .. 4"):
        bind(2, 7)
    with pytest.raises(ValueError, match="m = 0, the truck's par has m = 2"):
        bind(0, 1)


def test_the_generalized_alpha_binding_refuses_bad_options():
    """The same for generalized-alpha's: an unknown stabilisation code, no Newton iteration."""
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
