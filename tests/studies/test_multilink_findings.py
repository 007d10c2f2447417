"""Carpinelli 2016 §6.2 findings of the multilink study: each verdict flips when its numbers
cross its criterion (made-up numbers); the projection option names and passes what it runs."""
import pytest

from rtmbs.errors import SolverError
from rtmbs.solvers.base import get_solver
from rtmbs.studies import multilink as M
from rtmbs.studies.verdicts import FAILS, HOLDS, NOT_COMPARABLE


def test_kkt_and_growth():
    assert M.finding_kkt_dominates({"b": 60.0, "i": 70.0}, {"b": True, "i": True}).verdict == HOLDS
    assert M.finding_kkt_dominates({"b": 30.0, "i": 70.0}, {"b": False, "i": True}).verdict == FAILS
    assert M.finding_alg1_grows(101.0, 100.0, "dense").verdict == HOLDS
    assert M.finding_alg1_grows(100.0, 100.0, "dense").verdict == FAILS


def test_same_cost_and_shrinking_system():
    assert M.finding_T_same_cost(10.0, 15.0).verdict == HOLDS
    assert M.finding_T_same_cost(10.0, 15.1).verdict == FAILS
    assert M.finding_T_same_cost(10.0, 6.6).verdict == FAILS
    assert M.finding_reduced_shrinks(46, 11).verdict == HOLDS
    assert M.finding_reduced_shrinks(11, 46).verdict == FAILS


def test_alg2_against_alg1_needs_both_sides():
    seed = {"ideal": 0.74, "bushings": 1.25}
    assert M.finding_alg2_vs_alg1(0.9, 1.1, "x", seed).verdict == HOLDS
    assert M.finding_alg2_vs_alg1(1.1, 1.1, "x", seed).verdict == FAILS
    f = M.finding_alg2_vs_alg1(0.9, 0.95, "x", seed)
    assert f.verdict == FAILS and f.seed == "Alg. 2 / Alg. 1 = 0.74 ideal, 1.25 bushings"


def test_projection_bounds_and_accuracy():
    proj, drift = {"a1": 9e-7, "a2": 5e-7}, {"a1": 1e-3, "a2": 2e-4}
    assert M.finding_projection_bounds("ideal", proj, drift).verdict == HOLDS
    assert M.finding_projection_bounds("ideal", proj, {"a1": 1e-3, "a2": 8e-5}).verdict == FAILS
    assert M.finding_projection_bounds("ideal", {"a1": 2e-6, "a2": 0.0}, drift).verdict == FAILS
    assert M.finding_cg_accuracy("ideal", 0.01, 0.02, 1.2).verdict == HOLDS
    assert M.finding_cg_accuracy("ideal", 0.01, 0.06, 1.2).verdict == FAILS
    assert M.finding_cg_accuracy("ideal", 0.01, 0.02, 1.6).verdict == FAILS
    assert M.finding_mount_forces("ideal", 0.2, 0.3, 0.05).verdict == HOLDS
    assert M.finding_mount_forces("ideal", 0.2, 0.3, 0.07).verdict == FAILS   # 0.2 < 3 × 0.07
    assert M.finding_mount_forces("ideal", 0.09, 0.3, 0.01).verdict == FAILS
    assert M.finding_tyre().verdict == NOT_COMPARABLE


def test_projection_options_are_what_the_solver_runs():
    assert M.solver_options("li-euler") == {"projection": "step", "projection_solves": 2}
    assert M.solver_options("li-euler", "eq30") == {"projection": "mass"}
    assert M.solver_options("li-euler-indep", "eq30") == {"B": "qr", "projection_solve": "kkt"}
    # li-euler's own defaults are the "step" projection with two corrections; "mass" makes one
    from rtmbs.models import load_model
    system = load_model("slider-crank")
    slv = get_solver("li-euler")(system)
    assert (slv.projection, slv.projection_solves) == ("step", 2)
    slv = get_solver("li-euler")(system, **M.solver_options("li-euler", "eq30"))
    assert (slv.projection, slv.projection_solves) == ("mass", 1)
    with pytest.raises(SolverError, match="multilink study: projection 'eq. 30': expected one of "
                                          "step, eq30"):
        M.solver_options("li-euler", "eq. 30")


def test_projection_option_is_for_the_multilink_study_only(tmp_path, capsys):
    from rtmbs.cli import main

    assert main(["study", "truck", "--out", str(tmp_path), "--projection", "eq30"]) == 1
    assert capsys.readouterr().err == ("rtmbs: error: --projection: only for study 'multilink', "
                                       "not 'truck'\n")
    assert not any(tmp_path.iterdir())
