"""Carpinelli 2015 §5.2.3 findings of the full-car study: each verdict flips when its numbers
cross its criterion (made-up numbers; no study run)."""
from rtmbs.studies import fullcar as F
from rtmbs.studies.verdicts import FAILS, HOLDS


def test_road_speed_and_deceleration():
    assert F.finding_road_class(["B", "B"], [6e-5, 7e-5], [2.0, 2.1]).verdict == HOLDS
    assert F.finding_road_class(["B", "C"], [6e-5, 3e-4], [2.0, 2.1]).verdict == FAILS
    assert F.finding_top_speed(82.3, 80.0, 5.0, 700.0).verdict == HOLDS      # +2.9 %
    assert F.finding_top_speed(82.5, 80.0, 5.0, 700.0).verdict == FAILS      # +3.1 %
    assert F.finding_neutral_decel(0.012).verdict == HOLDS
    assert F.finding_neutral_decel(0.021).verdict == FAILS
    assert F.finding_neutral_decel(0.004).verdict == FAILS


def test_load_transfer_signs():
    assert F.finding_accel_strokes(6.0, -4.0, 0.0, 0.0).verdict == HOLDS
    assert F.finding_accel_strokes(6.0, 0.5, 0.0, 0.0).verdict == FAILS
    assert F.finding_brake_strokes(-6.0, 3.0, 1.0, 1.0).verdict == HOLDS
    assert F.finding_brake_strokes(-6.0, 0.9, 1.0, 1.0).verdict == FAILS
    assert F.finding_step2_bias(-1.0, 1.0, 1.0, -1.0).verdict == HOLDS
    assert F.finding_step2_bias(-1.0, 1.0, 1.0, 0.1).verdict == FAILS
    assert F.finding_tyre_radius(-0.2, 0.3, "").verdict == HOLDS
    assert F.finding_tyre_radius(0.1, 0.3, "").verdict == FAILS


def test_reconstruction_steps():
    assert F.finding_step1_loses_slow_motion(4.1, 2.0, "").verdict == HOLDS
    assert F.finding_step1_loses_slow_motion(3.9, 2.0, "").verdict == FAILS
    assert F.finding_step2_recovers(4.0, 2.0).verdict == HOLDS
    assert F.finding_step2_recovers(2.0, 2.0).verdict == FAILS
    assert F.finding_eq511_improves(1.0, 0.5, 2.0, 1.8).verdict == HOLDS
    assert F.finding_eq511_improves(1.0, 1.2, 2.0, 1.8).verdict == FAILS
    assert F.finding_wheel_centres({"fl": 0.1, "rr": 0.2}, "", "x").verdict == HOLDS
    assert F.finding_wheel_centres({"fl": 0.1, "rr": 0.21}, "", "x").verdict == FAILS


def test_algorithm_2_on_the_full_car():
    assert F.finding_alg2_faster(90.0, 100.0, "B = partition", "").verdict == HOLDS
    f = F.finding_alg2_faster(110.0, 100.0, "B = partition", "")
    assert f.verdict == FAILS and f.criterion == "Alg. 2 < Alg. 1 (median µs per step)"
    assert F.finding_fixed_cost(0, 0, "").verdict == HOLDS
    assert F.finding_fixed_cost(29, 0, "").verdict == FAILS
