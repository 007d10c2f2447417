"""Registration by name and option errors that name the option and the expected values."""
import pytest

from rtmbs.errors import RedundantConstraintError, RedundantConstraintWarning, SolverError
from rtmbs.solvers.base import SOLVERS, get_solver
from _models.linkages import PlanarLinkage, pendulum


def test_registered_names():
    for name in ("explicit-euler", "li-euler", "li-euler-indep"):
        assert get_solver(name).name == name
        assert name in SOLVERS


@pytest.mark.parametrize("solver,opts,fragment", [
    ("li-euler", {"stabilise": "ggl"}, "unknown option 'stabilise' (did you mean 'stabilize'?"),
    ("li-euler", {"stabilize": "gg"}, "option stabilize='gg' is not one of 'none', 'projection', "
                                      "'baumgarte', 'ggl'"),
    ("li-euler", {"ggl_iterations": 0}, "ggl_iterations=0, expected an integer >= 1"),
    ("li-euler", {"jacobian": "none"}, "option jacobian='none' is not one of 'stiff', 'all'"),
    ("li-euler-indep", {"B": "svd"}, "option B='svd' is not one of 'qr', 'partition'"),
    ("li-euler-indep", {"B": "qr", "independent": [0]}, "independent= needs B='partition'"),
    ("li-euler-indep", {"B": "partition", "independent": [0, 1]},
     "option independent=[0, 1], expected 1 distinct coordinate indices in 0..2"),
    ("explicit-euler", {"alpha": -1.0}, "option alpha=-1.0, expected a number >= 0"),
    ("li-euler", {"stabilize": "ggl", "position_update": "implicit"}, "stabilize='ggl'"),
])
def test_bad_options_raise_with_the_option_named(solver, opts, fragment):
    with pytest.raises(SolverError) as info:
        get_solver(solver)(pendulum(), **opts)
    assert fragment in str(info.value)
    assert f"solver '{solver}'" in str(info.value)


def test_more_constraints_than_coordinates_are_reduced_or_refused():
    sysm = PlanarLinkage("double-pin", [1.0], [1.0],
                         [(0, -0.5, -1, (0.0, 0.0)), (0, -0.5, -1, (0.0, 0.0))])
    with pytest.warns(RedundantConstraintWarning, match=r"'double-pin': rank\(Φq\) = 2 < m = 4; "
                      r"redundant and left out of the solver's equations: rows 2, 3$"):
        slv = get_solver("li-euler-indep")(sysm)
    slv.reset(sysm.initial_state())  # the doubled pin is left out (rtmbs.solvers.redundancy)
    assert slv.system.m == 2 and slv.f == 1
    slv = get_solver("li-euler-indep")(sysm, redundant="error")
    with pytest.raises(RedundantConstraintError) as info:
        slv.reset(sysm.initial_state())
    assert "has rank 2 < m = 4 at t = 0" in str(info.value)


def test_rank_deficient_jacobian_names_the_system():
    sysm = PlanarLinkage("two-pins", [1.0], [1.0],
                         [(0, -0.5, -1, (0.0, 0.0))], locks=((1, -0.5, 0.0),))
    sysm._q0[:] = [0.0, -0.5, 0.0]  # hanging: pin and lock both fix y, rank 2 of 3 rows
    slv = get_solver("li-euler-indep")(sysm, B="partition", redundant="error")
    with pytest.raises(RedundantConstraintError) as info:
        slv.reset(sysm.initial_state())
    assert "'two-pins'" in str(info.value) and "expected full row rank m = 3" in str(info.value)


# -- defaults: projection (and B = partition for Algorithm 2); m = 0 systems ignore it -----------
@pytest.mark.parametrize("solver,explicit", [
    ("li-euler", {"stabilize": "projection"}),
    ("explicit-euler", {"stabilize": "projection"}),
    ("li-euler-indep", {"stabilize": "projection", "B": "partition"}),
])
def test_default_is_the_projected_run(solver, explicit):
    import numpy as np

    from rtmbs.solvers.simulate import simulate

    sysm = pendulum(theta0=1.0)
    run = dict(t_end=0.3, h=1e-3)
    default = simulate(sysm, solver, **run)
    np.testing.assert_array_equal(default.q, simulate(sysm, solver, **run, **explicit).q)
    # the seeds' explicit positions drift without projection (the implicit ones barely do)
    seed = {"position_update": "explicit"} if solver.startswith("li-euler") else {}
    free = simulate(sysm, solver, **run, **dict(explicit, stabilize="none", **seed))
    assert default.phi_norm.max() < 1e-8 < 1e-3 * free.phi_norm.max()
    if solver == "li-euler-indep":  # another basis is another discretisation
        qr = simulate(sysm, solver, **run, **dict(explicit, B="qr"))
        assert np.abs(qr.q - default.q).max() > 1e-8


@pytest.mark.parametrize("solver", ["li-euler", "explicit-euler", "li-euler-indep"])
def test_default_projection_is_ignored_without_constraints(solver):
    import numpy as np

    from rtmbs.solvers.simulate import simulate
    from _models.linkages import LinearOscillator

    sysm = LinearOscillator()
    default = simulate(sysm, solver, t_end=0.2, h=1e-3)
    np.testing.assert_array_equal(default.q, simulate(sysm, solver, t_end=0.2, h=1e-3,
                                                       stabilize="none").q)
