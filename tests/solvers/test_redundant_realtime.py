"""Redundant joint sets in the fixed-step solvers (part 5; rtmbs.solvers.redundancy).

Planar loops drawn with revolutes only (four parallel axes) run with every constrained fixed-step
solver and match the built-in spatial versions (spherical + universal, no redundant equation);
the overconstrained McPherson strut matches the simplified one.
"""
import warnings

import numpy as np
import pytest

import rtmbs
from rtmbs.errors import RedundantConstraintError, RedundantConstraintWarning, SolverError
from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.redundancy import LEFT_OUT_ATOL, LEFT_OUT_FACTOR, ReducedSystem
from _models.redundant import planar_four_bar, planar_slider_crank, stationary_distance

T_END, H = 1.0, 1e-3

#: (solver, options, tolerance on max |q_planar - q_spatial| over 1 s). The kept rows of the
#: planar loop span the same row space as the spatial loop's rows on the constraint manifold, so
#: Algorithm 1 and explicit Euler take the same steps (round-off apart). Algorithm 2 integrates
#: other independent velocities z (B from other rows), a different first-order discretisation of
#: the same motion: the two runs differ by O(h). (The planar loop's ReducedSystem steps on the
#: dense path, the spatial loop in the engine: their pivot checks of Φu, by partial and by static
#: pivoting, re-choose B at other steps; measured 1.6e-3 on the slider-crank, where the spatial
#: loop's own dense and engine runs differ by as much, and by 1e-15 with rebase=False.)
CASES = [
    ("explicit-euler", {}, 1e-10),
    ("explicit-euler", {"stabilize": "projection"}, 1e-10),
    ("li-euler", {}, 1e-10),
    ("li-euler", {"stabilize": "projection"}, 1e-10),
    ("li-euler", {"stabilize": "ggl"}, 1e-10),
    ("li-euler-indep", {"B": "qr"}, 1e-3),
    ("li-euler-indep", {"B": "partition"}, 2e-3),
]


@pytest.fixture(scope="module")
def loops():
    return {"four-bar": (planar_four_bar(), load_model("four-bar")),
            "slider-crank": (planar_slider_crank(), load_model("slider-crank"))}


def _build(system, solver, **opts):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        slv = get_solver(solver)(system, **opts)
    return slv, [str(x.message) for x in w if issubclass(x.category, RedundantConstraintWarning)]


def test_planar_loops_are_redundant_and_the_notice_names_the_joint(loops):
    expect = {"four-bar": "joint 'rocker_bearing' equations 1, 3, 4 (dot-1, spherical-y rows)",
              "slider-crank": "joint 'slide' equations 0, 2, 4 (dot-1, dot-2 rows)"}
    for name, (planar, spatial) in loops.items():
        assert (planar.n, planar.m, planar.rank()) == (21, 23, 20)
        assert (spatial.n, spatial.m, spatial.rank()) == (21, 20, 20)
        slv, notes = _build(planar, "li-euler")
        assert notes == [f"'{name}-planar': rank(Φq) = 20 < m = 23; redundant and left out of the "
                         f"solver's equations: {expect[name]}"]
        assert isinstance(slv.system, ReducedSystem) and slv.system.m == 20
        assert slv.full_system is planar
        # the left-out rows are the ones the system itself reports as dependent
        (joint, count), = planar.redundant_joints()
        start, _ = planar.joint_rows[joint]
        assert joint in expect[name] and count == 3 and slv.system.left_out.min() >= start
        # no notice and no wrapper for the spatial version
        slv, notes = _build(spatial, "li-euler")
        assert notes == [] and slv.system is spatial


@pytest.mark.parametrize("solver,opts,tol", CASES)
@pytest.mark.parametrize("loop", ["four-bar", "slider-crank"])
def test_planar_loop_matches_the_spatial_loop(loops, loop, solver, opts, tol):
    planar, spatial = loops[loop]
    slv, _ = _build(planar, solver, **opts)
    a = rtmbs.simulate(planar, slv, t_end=T_END, h=H)
    b = rtmbs.simulate(spatial, solver, t_end=T_END, h=H, **opts)
    assert np.ptp(a.q[:, 3:7]) > 0.5  # the crank turns
    assert np.abs(a.q - b.q).max() < tol
    assert slv.nredundant_violations == 0
    # all rows, left-out ones included, as satisfied as the kept ones
    ws = planar.workspace()
    kept, left = slv.system.kept, slv.system.left_out
    worst_left = worst_kept = 0.0
    for q in a.q:
        planar.evaluate(0.0, q, np.zeros(planar.n), ws, EVAL_PHI)
        worst_left = max(worst_left, np.abs(ws.phi[left]).max())
        worst_kept = max(worst_kept, np.abs(ws.phi[kept]).max())
    assert worst_left <= LEFT_OUT_ATOL + LEFT_OUT_FACTOR * worst_kept
    if opts.get("stabilize") in ("projection", "ggl"):
        assert a.phi_norm.max() < 1e-4 and worst_left < 1e-5
    # multipliers over the full rows: 0 on the left-out ones, reactions Φqᵀλ as the solver's
    assert a.lam.shape == (a.t.size, 23) and np.all(a.lam[:, left] == 0.0)


def test_overconstrained_mcpherson_matches_the_simplified_strut():
    from rtmbs.models.mcpherson import build

    simp, over = build(False), build(True)
    for opts in ({}, {"stabilize": "projection"}):
        slv, notes = _build(over, "li-euler", **opts)
        assert notes == ["'mcpherson-overconstrained': rank(Φq) = 26 < m = 31; redundant and left "
                         "out of the solver's equations: joint 'arm_hinge_P1B' equations 0, 1, 2, 3, "
                         "4 (dot-1, spherical-x, spherical-y, spherical-z rows)"]
        a = rtmbs.simulate(over, slv, t_end=T_END, h=H)
        b = rtmbs.simulate(simp, "li-euler", t_end=T_END, h=H, **opts)
        assert np.ptp(a.q[:, 1]) > 5e-3  # the arm swings
        # the kept rows are the simplified strut's rows: the same steps
        assert np.abs(a.q - b.q).max() < 1e-12
        assert slv.nredundant_violations == 0
        assert a.phi_norm.max() < 2 * b.phi_norm.max() + 1e-12


def test_inconsistent_redundancy_is_counted_not_raised():
    s = stationary_distance()
    slv, notes = _build(s, "li-euler", stabilize="projection")
    assert notes == ["'stationary-distance': rank(Φq) = 6 < m = 7; redundant and left out of the "
                     "solver's equations: joint 'tie' equation 0 (distance rows)"]
    res = rtmbs.simulate(s, slv, t_end=0.3, h=H)  # no exception mid-run
    theta = np.arctan2(-res.q[:, 2], res.q[:, 0])  # the bar swings down about y
    assert theta[-1] > 0.3
    row = s.joint_rows["tie"][0]
    assert slv.nredundant_violations > 0
    assert slv.system.violation_row == row
    # the tie is violated by dᵀd − L² = 3(1 − cos θ) (distance 1.5 − cos θ + ...) at the end
    ws = s.workspace()
    s.evaluate(res.t[-1], res.q[-1], res.qd[-1], ws, EVAL_PHI)
    assert abs(ws.phi[row] - 3 * (1 - np.cos(theta[-1]))) < 1e-3
    assert slv.system.max_violation == pytest.approx(abs(ws.phi[row]), rel=0.05)
    # reset clears the counter
    slv.reset(s.initial_state())
    assert slv.nredundant_violations == 0


def test_redundant_error_option_raises_at_reset(loops):
    planar, _ = loops["four-bar"]
    slv, notes = _build(planar, "li-euler", redundant="error")
    assert notes == [] and slv.system is planar
    with pytest.raises(RedundantConstraintError) as info:
        slv.reset(planar.initial_state())
    assert info.value.joints == ["rocker_bearing"]
    assert ("solver 'li-euler': the constraint Jacobian of 'four-bar-planar' has rank 20 < m = 23 "
            "at t = 0: redundant joints: rocker_bearing (3 dependent equations)") in str(info.value)


def test_bad_redundant_option_is_named(loops):
    planar, _ = loops["four-bar"]
    with pytest.raises(SolverError, match=r"solver 'li-euler-indep': option redundant='drop' is "
                                          r"not one of 'remove', 'error'"):
        get_solver("li-euler-indep")(planar, redundant="drop")
    with pytest.raises(SolverError, match=r"solver 'index1': option redundant= is for the "
                                          r"fixed-step solvers"):
        get_solver("index1")(planar, redundant="remove")


def test_offline_solvers_see_the_full_system(loops):
    planar, _ = loops["four-bar"]
    for name in ("reference", "index1"):
        slv = get_solver(name)(planar)
        assert slv.system is planar and slv.system.m == 23


def test_the_reduced_system_takes_the_compiled_step(loops):
    """li-euler, generalized-alpha and explicit-euler on the reduced system of a compiled loop
    step in the C engine with the row map ("auto" and "sparse"); "dense" keeps the
    Python-driven dense path."""
    planar, _ = loops["four-bar"]
    for solver in ("li-euler", "generalized-alpha", "explicit-euler"):
        for opts in ({}, {"linear_solver": "sparse"}):
            slv, _ = _build(planar, solver, **opts)
            assert isinstance(slv.system, ReducedSystem) and slv.sparse and slv.fused
            slv.reset(planar.initial_state())
            assert slv.rows_args[0].tolist() == [20, 3, *slv.system.kept, *slv.system.left_out]
        slv, _ = _build(planar, solver, linear_solver="dense")
        assert not slv.sparse and not slv.fused
