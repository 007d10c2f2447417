"""Kim & Wang (2003) findings of the subsystem study: each verdict flips when its numbers cross
its criterion (numbers made up on both sides; no study run)."""

from rtmbs.studies import subsystem as S
from rtmbs.studies.verdicts import FAILS, HOLDS, NOT_COMPARABLE, Finding, findings_table

RISE = 0.05   # m, largest chassis rise of the reference


def test_identical_results_flip_at_one_percent_of_the_rise():
    assert S.finding_identical(0.0005, RISE).verdict == HOLDS         # 1.0 %
    assert S.finding_identical(0.00051, RISE).verdict == FAILS
    assert S.finding_identical(None, RISE).verdict == NOT_COMPARABLE


def test_bump_at_the_seed_step():
    ok = S.finding_bump_at_seed_step({"A": None, "B": None}, {"A": 0.004, "B": 0.005}, RISE)
    assert ok.verdict == HOLDS and "10.0% of the rise" in ok.numbers
    far = S.finding_bump_at_seed_step({"A": None, "B": None}, {"A": 0.004, "B": 0.0051}, RISE)
    assert far.verdict == FAILS
    div = S.finding_bump_at_seed_step({"A": 0.61, "B": None}, {"B": 0.0}, RISE)
    assert div.verdict == FAILS and div.numbers == "A: diverged at t = 0.610 s"


def test_operation_counts_and_frame_times_flip_when_b_costs_more():
    assert S.finding_fewer_operations(8835, 5691, 4).verdict == HOLDS
    # the case: B five times as expensive, nine times as slow
    assert S.finding_fewer_operations(1000, 5000, 4).verdict == FAILS
    assert S.finding_faster_per_frame(1000.0, 306.0).verdict == HOLDS
    f = S.finding_faster_per_frame(100.0, 900.0)
    assert f.verdict == FAILS and "ratio 0.11" in f.numbers


def test_real_time_needs_cost_below_the_frame_and_a_stable_run():
    stable = {"A": None, "B": None}
    assert S.finding_real_time(1000.0, 306.0, stable).verdict == HOLDS
    assert S.finding_real_time(8300.0, 306.0, stable).verdict == HOLDS   # exactly one frame
    assert S.finding_real_time(8301.0, 306.0, stable).verdict == FAILS
    assert S.finding_real_time(1000.0, 306.0, {"A": 0.6, "B": None}).verdict == FAILS


def test_full_vehicle_speed_up():
    def car(syn, cart):
        return {"synthesis B ab3": {"cpu_us_per_step": syn},
                "cartesian li-euler": {"cpu_us_per_step": cart},
                "cartesian explicit-euler": {"cpu_us_per_step": cart},
                "sizes": {"cartesian": [77, 66], "synthesis": 10}}
    assert S.finding_full_vehicle(car(100.0, 401.0)).verdict == HOLDS
    assert S.finding_full_vehicle(car(100.0, 400.0)).verdict == FAILS
    nc = S.finding_full_vehicle(None)
    assert nc.verdict == NOT_COMPARABLE and nc.numbers == "measured in full runs only"


def test_seed_findings_read_the_study_numbers():
    info = {"runs": {"relative-cartesian/ab3/0.0083": {"diverged_at": 0.55},
                     "relative-joint/ab3/0.0083": {"diverged_at": None},
                     "errors": {"B relative joint, AB3 h=8.3 ms": 1e-3}},
            "max_chassis_rise_ref": RISE, "max_diff_A_B": 1e-14, "car": None}
    t2 = {"relative-cartesian compiled": {"cpu_us_per_step": 50.0},
          "relative-joint compiled": {"cpu_us_per_step": 450.0}}
    fs = S.seed_findings(info, {4: (2000, 10000)}, 4, t2)
    assert [f.verdict for f in fs] == [HOLDS, FAILS, FAILS, FAILS, FAILS, NOT_COMPARABLE]
    text = "\n".join(findings_table(Finding(**f.as_dict()) for f in fs))
    assert "qualitatively" not in text and "ops A / ops B (4 Newton it.) > 1" in text
