"""Carpinelli 2015 §5.1.3-5.1.4 findings of the concept study: each verdict flips when its
numbers cross its criterion (made-up numbers; no study run)."""
import math

from rtmbs.studies import concept as C
from rtmbs.studies.verdicts import FAILS, HOLDS, NOT_COMPARABLE


def test_convergence_is_scipy_status():
    ok = C.finding_converged({"status": 2, "stop": "converged: ..."})
    capped = C.finding_converged({"status": 0, "stop": "NOT converged: ..."})
    assert (ok.verdict, capped.verdict) == (HOLDS, FAILS)
    assert capped.numbers == "NOT converged: ..."


def test_errors_must_fall_for_every_signal():
    before = {"z": 0.237, "vz": 0.1145, "az": 0.5191}
    assert C.finding_errors_fall(before, {"z": 0.026, "vz": 0.0425, "az": 0.2583}).verdict == HOLDS
    f = C.finding_errors_fall(before, {"z": 0.026, "vz": 0.0425, "az": 0.5191})   # a_z equal
    assert f.verdict == FAILS and "az 0.5191 → 0.5191" in f.numbers


def test_anti_lift_reproduced_to_63_percent_does_not_hold():
    f = C.finding_anti("anti-lift", 0.063, 0.100)
    assert f.verdict == FAILS and "63%" in f.numbers
    assert C.finding_anti("anti-lift", 0.0801, 0.100).verdict == HOLDS    # 80 %: the bound
    assert C.finding_anti("anti-lift", 0.0799, 0.100).verdict == FAILS
    assert C.finding_anti("anti-squat", 0.121, 0.100).verdict == FAILS
    assert C.finding_anti("anti-squat", 0.1, 0.0).verdict == NOT_COMPARABLE


def test_validations_within_half_the_target_spread():
    std = {"V1": {"z": 0.01, "vz": 0.1, "az": 1.0}, "V2": {"z": 0.02, "vz": 0.2, "az": 2.0}}
    val = {"V1": {"z": 0.005, "vz": 0.01, "az": 0.1}, "V2": {"z": 0.002, "vz": 0.02, "az": 1.0}}
    assert C.finding_validations(val, std).verdict == HOLDS
    val["V2"]["az"] = 1.01
    f = C.finding_validations(val, std)
    assert f.verdict == FAILS and "V2 az 0.51" in f.numbers
    nc = C.finding_validations(val, None)
    assert nc.verdict == NOT_COMPARABLE and nc.numbers.endswith("(the targets' spread was not "
                                                                "recorded)")


def test_explicit_euler_diverging_at_1_ms_does_not_hold():
    assert C.finding_explicit_stable({"0.001": None, "0.0005": None}, "steady-state").verdict == HOLDS
    f = C.finding_explicit_stable({"0.001": 4.61, "0.0005": None}, "transient")
    assert f.verdict == FAILS
    assert f.numbers == "h = 0.001 s: diverged at 4.61 s; h = 0.0005 s: finished"
    assert "failed" in C.finding_explicit_stable({"0.001": math.nan}, "transient").numbers
    assert C.finding_explicit_stable({}, "transient").verdict == NOT_COMPARABLE


def _cost(explicit, li=0.31):
    return {"concept explicit-euler 0.5 ms": {"ratio_to_detailed": explicit},
            "concept li-euler 1 ms": {"ratio_to_detailed": li}}


def test_cost_claim_is_judged_on_explicit_euler_not_li_euler():
    f = C.finding_cost(_cost(0.62), True)
    assert f.verdict == FAILS       # li-euler's 0.31 does not rescue it
    assert f.numbers == "explicit Euler (0.5 ms) 0.62; for context li-euler on the concept (1 ms) 0.31"
    assert C.finding_cost(_cost(0.40), True).verdict == HOLDS
    assert C.finding_cost(_cost(0.41), True).verdict == FAILS
    assert C.finding_cost(_cost(0.30), False).verdict == FAILS        # cheap but unstable
    assert C.finding_cost({}, True).verdict == NOT_COMPARABLE


def test_seed_findings_from_a_result_dict():
    sig = {"z": 0.02, "vz": 0.04, "az": 0.2}
    res = {"identification": {"stacked": {
        "status": 0, "stop": "NOT converged", "anti": {"anti_squat": 0.30, "anti_lift": 0.063},
        "table_5_1": {"before": {"z": 0.2, "vz": 0.1, "az": 0.5}, "after": sig},
        "table_5_2": {"V1": sig, "V2": sig}}},
        "detailed_ic": {"anti_squat": 0.31, "anti_lift": 0.10},
        "explicit_euler": {"0.001": {"status": -1, "diverged_at_s": 4.6},
                           "0.0005": {"status": 1, "diverged_at_s": None},
                           "0.001 transient": {"status": -1, "diverged_at_s": 2.0},
                           "0.0005 transient": {"status": -1, "diverged_at_s": 9.0}},
        "cost": _cost(0.62),
        "target_std": {v: {"z": 0.1, "vz": 0.1, "az": 1.0} for v in ("test", "V1", "V2")}}
    fs = C.seed_findings(res)
    assert [f.verdict for f in fs] == [FAILS, HOLDS, HOLDS, FAILS, HOLDS, FAILS, FAILS, FAILS]
    del res["target_std"]
    assert C.seed_findings(res)[4].verdict == NOT_COMPARABLE


# -- the full car (Table 5.3) and the optimiser's report -------------------------------------------
def test_full_car_accuracy_flips_at_half_the_signal_spread():
    from rtmbs.studies import concept_fullcar as F

    std = {"cg_z": 0.01, "cg_vz": 0.1, "pitch": 0.02, "roll": 0.004}
    rms = {"cg_z": 0.005, "cg_vz": 0.01, "pitch": 0.002, "roll": 0.001}
    assert F.finding_car_accurate("I", rms, std).verdict == HOLDS
    f = F.finding_car_accurate("II", dict(rms, roll=0.0022), std)
    assert f.verdict == FAILS and "roll 0.55" in f.numbers
    assert F.finding_car_accurate("III", rms, dict(std, roll=0.0)).verdict == NOT_COMPARABLE
    capped = {"status": 0, "stop": "NOT converged"}
    assert F.finding_car_converged(capped).verdict == FAILS
    assert F.finding_car_converged(dict(capped, status=1)).verdict == HOLDS


def test_bounds_reached_and_stop_summary():
    from rtmbs.concept.calibrate import bounds_reached, stop_summary

    names = ("d_f", "d_r", "K")
    lo, hi = [-5.0, -5.0, 1e4], [-0.2, -0.2, 8e4]
    # d_f 0.0048 m inside its upper bound = 0.1 % of the 4.8 m span: at the bound
    at = bounds_reached(names, [-0.2048, -0.2049, 4e4], lo, hi)
    assert at == {"d_f": "upper"}
    assert bounds_reached(names, [-4.996, -1.0, 4e4], lo, hi, active_mask=[0, 0, 1]) == \
        {"d_f": "lower", "K": "upper"}
    s = stop_summary(0, "The maximum number of function evaluations is exceeded.", 26, 26,
                     {"d_f": "upper", "d_r": "upper"}, note=" (25 Jacobians)")
    assert s == ("NOT converged: scipy least_squares status 0, \"The maximum number of function "
                 "evaluations is exceeded.\", after 26 of at most 26 evaluations (25 Jacobians), "
                 "stopped by the evaluation cap; parameters at a bound: d_f (upper), d_r (upper)")
    assert stop_summary(2, "`ftol` ...", 12, 41, {}).startswith("converged: scipy least_squares "
                                                               "status 2")
    assert stop_summary(2, "`ftol` ...", 12, 41, {}).endswith("after 12 of at most 41 "
                                                              "evaluations; parameters at a "
                                                              "bound: none")


def test_identify_reports_the_cap_and_the_bound_it_hit():
    """A one-parameter fit whose optimum lies beyond the upper bound: TRF ends at the bound,
    converged; with one iteration allowed it stops at the cap."""
    import numpy as np

    from rtmbs.concept.calibrate import identify

    t = np.linspace(0.0, 1.0, 21)
    target = {"t": t, "z": 3.0 * t}

    def sim(p):
        return {"t": t, "z": p["a"] * t}

    r = identify(sim, target, ("a",), [0.5], ([0.0], [2.0]), signals=("z",), max_iterations=40)
    assert r.converged and r.at_bounds == {"a": "upper"} and r.max_iterations == 40
    assert abs(r.params["a"] - 2.0) < 2e-3
    r1 = identify(sim, target, ("a",), [0.5], ([0.0], [2.0]), signals=("z",), max_iterations=1)
    assert r1.status == 0 and not r1.converged
    assert r1.stop_summary().startswith("NOT converged")
    assert f"after {r1.nfev} of at most 2 evaluations ({r1.iterations} Jacobians), stopped by" \
        in r1.stop_summary() and r1.nfev == 2
