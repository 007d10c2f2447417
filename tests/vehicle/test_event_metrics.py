"""The event metrics (rtmbs.manoeuvres.metrics) on signals of known answer, and a car started at
speed from its own vehicle file (rtmbs.manoeuvres.car)."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from rtmbs.errors import SolverError
from rtmbs.manoeuvres.car import load_car, overall_width, tracks
from rtmbs.manoeuvres.metrics import step_steer_metrics


def second_order_step(zeta, wn, t_step=0.5, hw=math.radians(30.0), r_ss=0.2, t_end=4.0):
    """A handwheel step at t_step (rise 1 ms) and the yaw rate of a second-order system."""
    t = np.arange(0.0, t_end + 1e-12, 1e-3)
    u = np.clip(t - t_step, 0.0, None)
    wd = wn * math.sqrt(1.0 - zeta ** 2)
    r = r_ss * (1.0 - np.exp(-zeta * wn * u) * (np.cos(wd * u) + zeta / math.sqrt(1 - zeta ** 2)
                                                  * np.sin(wd * u)))
    hw_t = hw * np.clip((t - t_step) / 1e-3, 0.0, 1.0)
    v = np.full_like(t, 22.0)
    outputs = {"driver.handwheel_angle": hw_t, "chassis.yaw_rate": r, "chassis.ay": v * r,
               "chassis.speed": v}
    return SimpleNamespace(t=t, outputs=outputs, meta={"t_step": t_step, "rise": 1e-3})


def test_step_steer_metrics_of_a_second_order_response():
    """Overshoot exp(−πζ/√(1−ζ²)), peak at π/ω_d after the step; the 90 % time by bisection of
    the closed form; gains r_ss/δ_H and r_ss/(δ_H/ratio)."""
    zeta, wn = 0.5, 12.0
    res = second_order_step(zeta, wn)
    m = step_steer_metrics(res, steering_ratio=16.0)
    assert m["overshoot_pct"] == pytest.approx(100 * math.exp(-math.pi * zeta / math.sqrt(1 - zeta ** 2)),
                                               abs=0.05)
    wd = wn * math.sqrt(1 - zeta ** 2)
    assert m["peak_response_time_s"] == pytest.approx(math.pi / wd, abs=2e-3)

    def frac(u):
        return 1 - math.exp(-zeta * wn * u) * (math.cos(wd * u) + zeta / math.sqrt(1 - zeta ** 2)
                                               * math.sin(wd * u))
    lo, hi = 0.0, math.pi / wd
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if frac(mid) < 0.9 else (lo, mid)
    assert m["response_time_s"] == pytest.approx(lo, abs=2e-3)
    assert m["yaw_rate_gain_deg_s_per_deg"] == pytest.approx(0.2 / math.radians(30.0), rel=1e-3)
    assert m["yaw_rate_gain_road_wheel_1_s"] == pytest.approx(0.2 / (math.radians(30.0) / 16), rel=1e-3)
    assert m["ay_ss_m_s2"] == pytest.approx(22.0 * 0.2, rel=1e-3)


def test_step_steer_metrics_refuse_a_run_without_a_steady_state():
    res = second_order_step(0.5, 12.0, t_end=0.8)
    with pytest.raises(SolverError, match=r"too short for a steady state over the last 0.5 s"):
        step_steer_metrics(res, steering_ratio=16.0)


def test_a_car_starts_rolling_freely_at_the_requested_speed():
    """The sedan from its own file at 80 km/h: every tyre at (nearly) zero longitudinal slip,
    so the speed holds over the first 0.1 s (before, the driven wheels' half shafts started at
    rest, the projection slowed the rear wheels to a slip of −0.67 and the car lost 0.2 m/s in
    40 ms)."""
    import warnings

    from rtmbs.manoeuvres.events import step_steer

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        car = load_car("sedan", 80.0 / 3.6)
    res = step_steer(80.0, 1e-3, t_step=0.12, t_end=0.3, h=2e-3, save_every=1,
                     system=car.system, model=car.model)
    o = res.outputs
    for c in ("fl", "fr", "rl", "rr"):
        assert abs(o[f"{c}_tyre.kappa"][0]) < 0.005, c
    assert np.abs(o["chassis.speed"][res.t <= 0.1] - 80.0 / 3.6).max() < 0.02


def test_width_and_tracks_come_from_the_car():
    """Sedan: wheel centres at y = ±0.7979 m (front) and ±0.800 m (rear, vehicle files) and a
    245 mm tyre (the .tir's WIDTH): 1.600 + 0.245 m, not the former fixed 1.85 m."""
    import warnings

    from rtmbs.vehicle.build.vehicle import sedan_model

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        model = sedan_model()
        t = tracks(model)
        width, how = overall_width(model)
    assert t["front"] == pytest.approx(2 * 0.7979, abs=1e-9)
    assert t["rear"] == pytest.approx(2 * 0.800, abs=1e-9)
    assert width == pytest.approx(1.600 + 0.245, abs=1e-9)
    assert how == "track 1.600 m + tyre width 0.245 m (chrono_Sedan_Pac02Tire.tir)"
