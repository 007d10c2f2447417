"""li-euler, generalized-alpha and explicit-euler on a compiled model with redundant joints: the
C engine's steps with a row map.

The reduced system (rtmbs.solvers.redundancy) of a compiled model steps in the engine
(src/rtmbs/engine/li_euler.c, generalized_alpha.c, explicit_euler.c, ``rtmbs_rows``): the KKT
maps read the kept rows of the packed Φq, the right-hand sides the kept rows of Φ, Φt (and γ),
and every evaluation checks the left-out rows.
Its independent path is the dense step driven from Python on the same ReducedSystem
(``linear_solver="dense"``: numpy, the wrapper's row copies, the check in Python): the two
agree to 1e-9 (relative to the largest value) in q, q̇ and λ over the model's rows, with the same
operation counts and the same violation counts.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from _models.redundant import planar_four_bar, stationary_distance
from rtmbs.engine import STEP_COUNTS, _engine, counters
from rtmbs.engine import warnings as engine_warnings
from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI
from rtmbs.solvers import redundancy
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.redundancy import ReducedSystem
from rtmbs.solvers.rollout import compiled, rollout

H = 1e-3
RTOL = 1e-9
#: li-euler's configurations on the compiled step (li_euler.c: every one it has)
OPTIONS = [{}, {"projection": "mass"}, {"stabilize": "baumgarte"}, {"stabilize": "ggl"},
           {"position_update": "explicit"}, {"stabilize": "none"},
           {"stabilize": "projection", "position_update": "explicit", "projection": "mass"}]
#: the option sets of the other solvers with a compiled step (every stabilisation they have)
OTHER_OPTIONS = [("generalized-alpha", {}), ("generalized-alpha", {"stabilize": "projection"}),
                 ("generalized-alpha", {"jacobian": "stiff"}),
                 ("generalized-alpha", {"stabilize": "none"}),
                 ("explicit-euler", {}), ("explicit-euler", {"stabilize": "baumgarte"}),
                 ("explicit-euler", {"stabilize": "none"}),
                 ("explicit-euler", {"position_update": "semi-implicit"})]
MODELS = {"mcpherson-overconstrained": lambda: load_model("mcpherson-overconstrained"),
          "four-bar-planar": planar_four_bar}


def _solver(system, solver="li-euler", **opts):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", redundancy.RedundantConstraintWarning)
        return get_solver(solver)(system, **opts)


def _run(system, steps, solver="li-euler", **opts):
    """``steps`` steps of ``solver`` from the initial state: (solver, q, q̇, λ over the model's
    rows), one row per step."""
    slv = _solver(system, solver, **opts)
    state = system.initial_state()
    slv.reset(state)
    q, qd, lam = (np.zeros((steps, system.n)), np.zeros((steps, system.n)),
                  np.zeros((steps, system.m)))
    for k in range(steps):
        assert slv.step(state, H)
        q[k], qd[k] = state.q, state.qd
        slv.full_multipliers(lam[k])
    return slv, q, qd, lam


def _rel(a, b) -> float:
    return float(np.abs(a - b).max() / np.abs(b).max())


@pytest.mark.parametrize("opts", OPTIONS, ids=lambda o: ",".join(f"{k}={v}" for k, v in o.items())
                         or "default")
@pytest.mark.parametrize("name", sorted(MODELS))
def test_compiled_step_equals_the_dense_path(name, opts):
    steps = 500 if name == "mcpherson-overconstrained" else 1000
    c, q, qd, lam = _run(MODELS[name](), steps, **opts)
    d, q_ref, qd_ref, lam_ref = _run(MODELS[name](), steps, linear_solver="dense", **opts)
    assert isinstance(c.system, ReducedSystem) and c.fused and not d.fused
    assert np.ptp(q, axis=0).max() > 1e-3  # the mechanism moves
    assert _rel(q, q_ref) < RTOL and _rel(qd, qd_ref) < RTOL and _rel(lam, lam_ref) < RTOL
    left = c.system.left_out
    assert np.all(lam[:, left] == 0.0) and np.abs(lam[:, c.system.kept]).max() > 0.0
    assert (c.neval, c.nfactor, c.nsolve) == (d.neval, d.nfactor, d.nsolve)
    assert c.nredundant_violations == d.nredundant_violations == 0


def test_a_violated_left_out_row_is_counted_in_the_engine():
    """A distance joint stationary at q0 only (its row depends on the hinge's there and is left
    out): the engine's step counts the evaluations in which it exceeds the bound, with its row
    and the largest |Φ|, in the model's data; the dense path counts the same in Python."""
    system = stationary_distance()
    row = system.joint_rows["tie"][0]
    c, q, _, _ = _run(system, 300, stabilize="projection")
    # (a model of its own: the engine's counts are in the model's data, which a reset clears)
    d, q_ref, _, _ = _run(stationary_distance(), 300, stabilize="projection",
                          linear_solver="dense")
    assert c.fused and _rel(q, q_ref) < RTOL
    n = c.nredundant_violations
    assert n == d.nredundant_violations and n > 100
    assert c.system.stats[2] == 0.0  # (counted by the engine, not by the Python wrapper)
    count, index, when = engine_warnings(system.data)["redundant"]
    assert count == n and index == row and when == pytest.approx(0.3, abs=1e-12)  # (t + h)
    assert c.system.violation_row == d.system.violation_row == row
    assert c.system.max_violation == pytest.approx(d.system.max_violation, rel=RTOL)
    # the largest violation is the tie's Φ at the last evaluation: the distance² error at q+
    ws = system.workspace()
    system.evaluate(0.3, q[-1], np.zeros(system.n), ws, EVAL_PHI)
    assert c.system.max_violation == pytest.approx(abs(ws.phi[row]), rel=0.05)
    c.reset(system.initial_state())  # reset clears the solver's count (not the data's total)
    assert c.nredundant_violations == 0 and c.system.violation_row == -1
    assert engine_warnings(system.data)["redundant"][0] == count


@pytest.mark.parametrize("solver", ["li-euler", "generalized-alpha", "explicit-euler"])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_rollout_equals_the_step_loop(name, solver):
    """The engine's rollout with the row map (each solver's) takes the steps of step_outputs
    called one by one: the same q, q̇, λ over the model's rows (0 on the left-out ones) and
    outputs, bit for bit, and the same operation counts."""
    steps = 300
    system = MODELS[name]()
    a = _solver(system, solver)
    sa = system.initial_state()
    a.reset(sa)
    names = list(system.output_names)
    q, qd = np.zeros((steps, system.n)), np.zeros((steps, system.n))
    lam = np.zeros((steps, system.m))
    y, out = np.zeros((steps, len(names))), np.zeros(len(names))
    for k in range(steps):
        assert a.step_outputs(sa, H, out)
        q[k], qd[k], y[k] = sa.q, sa.qd, out
        a.full_multipliers(lam[k])
    b = _solver(system, solver)
    sb = system.initial_state()
    b.reset(sb)
    assert compiled(b)  # (the engine's rollout, not a loop over step in Python)
    r = rollout(b, sb, steps, H)
    assert r.status == 1 and r.nsteps == steps
    np.testing.assert_array_equal(r.q, q)
    np.testing.assert_array_equal(r.qd, qd)
    np.testing.assert_array_equal(r.lam, lam)
    assert np.all(r.lam[:, b.system.left_out] == 0.0) and np.abs(r.lam).max() > 0.0
    for j, nm in enumerate(names):
        np.testing.assert_array_equal(r.outputs[nm], y[:, j], err_msg=nm)
    assert (a.neval, a.nfactor, a.nsolve) == (b.neval, b.nfactor, b.nsolve)
    assert sb.t == pytest.approx(sa.t, abs=1e-12)


def test_rows_chosen_again_at_reset_are_the_rows_the_engine_solves_with(monkeypatch):
    """``reset`` chooses the kept rows again (redundancy.at_reset); the compiled step then solves
    with the new ones. Forced here by a selection in the reverse priority order (earlier joints
    lose rows): the engine's row map and KKT follow, and the step still equals the dense path with
    the same rows; λ is 0 on the new left-out rows."""
    system = planar_four_bar()
    first = _solver(system)
    kept0 = first.system.kept.copy()

    def reversed_rows(sysm, t, q, rtol=redundancy.SOLVER_RANK_RTOL):
        return redundancy.select_rows(redundancy._jacobian(sysm, t, q),
                                      redundancy.row_priority(sysm)[::-1], rtol)

    monkeypatch.setattr(redundancy, "independent_rows", reversed_rows)
    runs = []
    for opts in ({}, {"linear_solver": "dense"}):
        slv = _solver(system, **opts)  # (chosen at construction with the same order)
        slv.system._select(kept0, np.setdiff1d(np.arange(system.m), kept0))
        state = system.initial_state()
        with pytest.warns(redundancy.RedundantConstraintWarning):
            slv.reset(state)  # the rows at the reset state: another set
        assert not np.array_equal(slv.system.kept, kept0)
        lam = np.zeros((400, system.m))
        for k in range(400):
            assert slv.step(state, H)
            slv.full_multipliers(lam[k])
        runs.append((slv, state.q.copy(), state.qd.copy(), lam))
    (c, q, qd, lam), (d, q_ref, qd_ref, lam_ref) = runs
    assert c.fused and c.rows_args[0].tolist() == [c.system.m, system.m - c.system.m,
                                                   *c.system.kept, *c.system.left_out]
    np.testing.assert_array_equal(c.system.kept, d.system.kept)
    assert _rel(q, q_ref) < RTOL and _rel(qd, qd_ref) < RTOL and _rel(lam, lam_ref) < RTOL
    assert np.all(lam[:, c.system.left_out] == 0.0)
    assert c.nanalyse == 0


def test_the_binding_refuses_a_row_map_that_is_not_a_partition():
    system = planar_four_bar()
    slv = _solver(system)
    state = system.initial_state()
    slv.reset(state)
    n = system.n
    args = (slv.kernel_args + (np.zeros(n), np.zeros(n), system.m, 0.0, H) + slv._options_args
            + (np.zeros(0, np.int64), np.zeros(0)))
    ours = slv.rows_args[0]

    def bind(rows):
        return _engine.BoundStep("li-euler", args + (rows,), np.zeros(0, np.int64), np.zeros(4),
                                 np.zeros(4, np.int64), (0, 0, 0))

    bad = ours.copy()
    bad[2], bad[3] = bad[3], bad[2]  # two kept rows out of order
    with pytest.raises(ValueError) as info:
        bind(bad)
    assert str(info.value) == ("li-euler: rows: row 0 is not once in the kept or left-out rows "
                               "(both increasing)")
    with pytest.raises(ValueError) as info:
        bind(ours[:-1])
    assert str(info.value) == ("li-euler: rows has 24 values, expected 2 + m = 25 (nkept, nleft, "
                               "kept rows, left-out rows)")
    before = counters(system.data)["steps"]
    assert bind(ours).step(state.q, state.qd, state.x, state.t, H)
    assert counters(system.data)["steps"] == before + 1


def _opt_id(o) -> str:
    return o[0] + (":" + ",".join(f"{k}={v}" for k, v in o[1].items()) if o[1] else "")


@pytest.mark.parametrize("solver,opts", OTHER_OPTIONS, ids=[_opt_id(o) for o in OTHER_OPTIONS])
@pytest.mark.parametrize("name", sorted(MODELS))
def test_other_compiled_steps_equal_the_dense_path(name, solver, opts):
    """generalized-alpha and explicit-euler: the engine's step with the row map against the
    dense step from Python on the same ReducedSystem over 0.5 s. (generalized-alpha without
    stabilisation: λ to 1e-8; the index-3 scheme's λ takes the round-off of the two LUs
    amplified, 6.6e-9 on mcpherson-simplified too, which has no redundant rows.)"""
    c, q, qd, lam = _run(MODELS[name](), 500, solver, **opts)
    d, q_ref, qd_ref, lam_ref = _run(MODELS[name](), 500, solver, linear_solver="dense", **opts)
    assert isinstance(c.system, ReducedSystem) and c.fused and not d.fused
    assert c.rows_args[0] is c.system.row_map
    assert np.ptp(q, axis=0).max() > 1e-3  # the mechanism moves
    lam_tol = 1e-8 if opts.get("stabilize") == "none" and solver == "generalized-alpha" else RTOL
    assert _rel(q, q_ref) < RTOL and _rel(qd, qd_ref) < RTOL and _rel(lam, lam_ref) < lam_tol
    left = c.system.left_out
    assert np.all(lam[:, left] == 0.0) and np.abs(lam[:, c.system.kept]).max() > 0.0
    assert (c.neval, c.nfactor, c.nsolve) == (d.neval, d.nfactor, d.nsolve)
    assert c.nredundant_violations == d.nredundant_violations == 0


@pytest.mark.parametrize("solver,opts,count,when", [
    ("generalized-alpha", {}, 1160, 0.3),  # (every evaluation at t + h)
    ("explicit-euler", {}, 578, 0.3),  # (the projection's evaluation at t + h last)
    ("explicit-euler", {"stabilize": "baumgarte"}, 287, 0.299)])  # (one evaluation, at t)
def test_other_steps_count_a_violated_left_out_row_in_the_engine(solver, opts, count, when):
    """The distance joint stationary at q0 only: generalized-alpha's and explicit-euler's steps
    in the engine count the evaluations in which its left-out row exceeds the bound, as many as
    the dense path counts in Python, with its row and the largest |Φ|."""
    system = stationary_distance()
    row = system.joint_rows["tie"][0]
    c, q, _, _ = _run(system, 300, solver, **opts)
    d, q_ref, _, _ = _run(stationary_distance(), 300, solver, linear_solver="dense", **opts)
    assert c.fused and not d.fused and _rel(q, q_ref) < RTOL
    assert c.nredundant_violations == d.nredundant_violations == count
    assert c.system.stats[2] == 0.0 and d.system.stats[2] == count  # (engine / Python wrapper)
    assert engine_warnings(system.data)["redundant"][:2] == (count, row)
    assert engine_warnings(system.data)["redundant"][2] == pytest.approx(when, abs=1e-12)
    assert c.system.violation_row == d.system.violation_row == row
    assert c.system.max_violation == pytest.approx(d.system.max_violation, rel=RTOL)


@pytest.mark.parametrize("solver,opts", OTHER_OPTIONS, ids=[_opt_id(o) for o in OTHER_OPTIONS])
def test_other_steps_cost_the_same_every_step(solver, opts):
    """10^4 steps of mcpherson-overconstrained (rolled out in the engine, row map bound): not one
    step whose operation counts differ from the step before's (``cost_changes``, counted by
    rtmbs_step_end), the last step's evaluations, factorisations and solves those the solver
    counts per step, and the totals the per-step counts times the steps."""
    steps = 10_000
    system = load_model("mcpherson-overconstrained")
    slv = _solver(system, solver, **opts)
    state = system.initial_state()
    slv.reset(state)
    before = counters(system.data)
    r = rollout(slv, state, steps, H, every=steps, outputs=False)
    assert r.status == 1 and r.nsteps == steps
    after = counters(system.data)
    assert after["steps"] - before["steps"] == steps and after["cost_changes"] == 0
    last = after["last_step"]
    assert (last["evaluations"], last["factorisations"], last["solves"]) == slv._per_step
    for k in STEP_COUNTS:
        assert after[k] - before[k] == steps * last[k], k
    assert slv.nredundant_violations == 0


@pytest.mark.parametrize("solver", ["generalized-alpha", "explicit-euler"])
def test_other_bindings_refuse_a_row_map_that_is_not_a_partition(solver):
    system = planar_four_bar()
    slv = _solver(system, solver)
    state = system.initial_state()
    slv.reset(state)
    n = system.n
    args = slv.kernel_args + (np.zeros(n), np.zeros(n), system.m, 0.0, H)
    if solver == "generalized-alpha":
        args += slv.options_args
    else:
        args += slv.step_options + (np.zeros(0, np.int64), np.zeros(0))
    ours = slv.rows_args[0]

    def bind(rows):
        return _engine.BoundStep(solver, args + (rows,), np.zeros(0, np.int64), np.zeros(4),
                                 np.zeros(4, np.int64), (0, 0, 0))

    bad = ours.copy()
    bad[2], bad[3] = bad[3], bad[2]  # two kept rows out of order
    with pytest.raises(ValueError) as info:
        bind(bad)
    assert str(info.value) == (f"{solver}: rows: row 0 is not once in the kept or left-out rows "
                               "(both increasing)")
    with pytest.raises(ValueError) as info:
        bind(ours[:-1])
    assert str(info.value) == (f"{solver}: rows has 24 values, expected 2 + m = 25 (nkept, "
                               "nleft, kept rows, left-out rows)")
    before = counters(system.data)["steps"]
    assert bind(ours).step(state.q, state.qd, state.x, state.t, H)
    assert counters(system.data)["steps"] == before + 1


def test_exports_refuse_a_model_with_redundant_rows():
    """An FMU and a standalone program carry the step of a model whose Φq has full row rank: a
    reduced system is refused with the reason (not exported without its row map; the C
    harness's plans carry it: tests/engine/test_harness.py)."""
    from rtmbs.errors import SolverError
    from rtmbs.fmu.export import prepare

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", redundancy.RedundantConstraintWarning)
        with pytest.raises(SolverError) as info:
            prepare("mcpherson-overconstrained", 1e-3, "li-euler", None, "export-fmu")
    assert str(info.value) == (
        "export-fmu: model 'mcpherson-overconstrained' has redundant constraint rows (5 of "
        "m = 31 left out by the solver); an export carries the step of a model whose constraint "
        "Jacobian has full row rank (docs/redundant.md)")
