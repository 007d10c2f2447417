"""The understeer-gradient breakdown (rtmbs.manoeuvres.understeer): the steering compliance at
the road wheels from the column's and the rack mounts' rates (a hand case), and on one
constant-radius run of the sedan: the parts add up to the ISO 4138 gradient, the tyre part is
the single-track model's, and the compliant steering is in static balance (torsion bar against
rack mounts)."""
import math
from types import SimpleNamespace

import numpy as np
import pytest

from rtmbs.manoeuvres import understeer


def test_steering_compliance_at_the_wheels_by_hand():
    # column: k_t (1 + G) = 100 * (1 + 1) = 200 N m/rad at the pinion, seen through a steering
    # ratio of 10: 200 * 10^2 = 2e4 N m/rad at the road wheels -> 5e-5 rad/N m; mounts:
    # 1e6 N/m through the rack's travel per road-wheel radian 0.01 m/rad * 10 = 0.1 m/rad:
    # 1e6 * 0.1^2 = 1e4 N m/rad -> 1e-4 rad/N m; in series: 1.5e-4 rad/N m
    model = SimpleNamespace(forces=[
        SimpleNamespace(name="steering_column", stiffness=200.0),
        SimpleNamespace(name="rack_mount", stiffness=(0.0, 0.0, 1.0e6)),
        SimpleNamespace(name="fl_spring", stiffness=5.0e4)])
    assert understeer.steering_compliance_at_wheels(model, -0.01, 10.0) == pytest.approx(1.5e-4)
    rigid = SimpleNamespace(forces=[SimpleNamespace(name="fl_spring", stiffness=5.0e4)])
    assert understeer.steering_compliance_at_wheels(rigid, -0.01, 10.0) == 0.0


@pytest.mark.slow
def test_sedan_breakdown_adds_up_and_its_steering_is_in_balance():
    from rtmbs.analysis.kc import steering_ratio_on_centre
    from rtmbs.manoeuvres.car import load_car
    from rtmbs.manoeuvres.events import steady_state_circular, understeer_gradient
    from rtmbs.manoeuvres.single_track import single_track_from_car

    car = load_car("sedan", 30 / 3.6)
    sr = steering_ratio_on_centre(car.model)
    res = steady_state_circular(40.0, 30.0, 60.0, accel=0.5, settle=3.0, steering_ratio=sr,
                                save_every=5, system=car.system, model=car.model)
    ay_range = (2.236, 4.0)
    b = understeer.breakdown(res, car.system, car.model, ay_range)
    assert b["total"] == pytest.approx(understeer_gradient(res, ay_range)["K_deg_per_g"], rel=1e-9)
    # the single-track identity closes to the small-angle error (measured 0.005 deg/g)
    assert abs(b["closure"]) < 0.03
    # the tyre part is the single-track model's K at the static loads
    st, _ = single_track_from_car(car.model, speed=10.0)
    assert b["tyres"] == pytest.approx(st.K_deg_per_g, abs=0.02)
    # the steering compliance understeers, and by the aligning torque mostly (0.17 of 0.20 deg/g)
    assert 0.05 < b["aligning-torque compliance"] < 0.3
    assert b["total"] == pytest.approx(1.29, abs=0.1)   # documented in docs/models/sedan.md
    # static balance of the compliant steering in the steady turn: the rack mounts carry the
    # torsion bar's torque over the rack's travel per pinion radian less what accelerates the
    # rack, its housing and the pinion with the car (m a_y)
    col = next(f for f in car.model.forces if f.name == "steering_column")
    mount = next(f for f in car.model.forces if f.name == "rack_mount")
    ratio = -0.0075
    yh = understeer.lateral_travel(car.system, car.model, res, "rack_housing")
    yr = understeer.lateral_travel(car.system, car.model, res, "rack")
    twist = res.outputs["driver.handwheel"] - (yr - yh) / ratio
    o = res.outputs
    ay = o["chassis.speed"] * o["chassis.yaw_rate"]
    m = sum(car.model.body(n).mass for n in ("rack", "rack_housing", "pinion"))
    k = (ay > ay_range[0]) & (ay < ay_range[1]) & (res.t > 3.0)
    mount_force = mount.stiffness[2] * yh[k]
    through_column = col.stiffness * twist[k] / abs(ratio) - m * ay[k]
    assert np.mean(mount_force) == pytest.approx(np.mean(through_column), rel=0.02)  # 0.6 %
    assert np.mean(mount_force) > 300.0   # N: the mounts do carry the rack force
    assert math.isfinite(b["roll_gradient_deg_per_g"]) and 3.0 < b["roll_gradient_deg_per_g"] < 7.0  # 4.1; Gillespie 1992, ch. 6: 3-7
