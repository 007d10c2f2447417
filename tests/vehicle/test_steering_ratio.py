"""The sedan's on-centre steering ratio: the K&C rig's value (wheel travel held) against
a hand computation from the front hard points, the single-track model taking the same value, and
the named error for a car without a pinion.

By hand: with the arms held (wheel travel fixed) the upright turns about the kingpin axis k
through the lower and upper ball joints; the tie rod (inner point I on the rack, outer point T
on the upright) keeps its length, so (ω k × (T − L)) · (T − I) = ẏ_rack (T − I)_y; the road-wheel
steer rate of a spin axis along y is ω k_z. Handwheel rate = ẏ_rack / ratio (steering.yaml). The
rig holds the wheel-centre height instead of the arms (the wheel centre is off the kingpin axis),
and the wheel carries its toe and camber: a difference of 0.3 % on the sedan, within 0.5 %."""
import numpy as np
import pytest
import yaml

from rtmbs.analysis.kc import steering_ratio_on_centre
from rtmbs.errors import ModelError
from rtmbs.manoeuvres.single_track import steering_ratio
from rtmbs.vehicle.build.vehicle import SEDAN, sedan_model


def hand_ratio() -> float:
    hp = yaml.safe_load((SEDAN / "front_suspension.yaml").read_text())["hard_points"]
    pin = yaml.safe_load((SEDAN / "steering.yaml").read_text())["ratio"]
    L, U, T, Inner = (np.array(hp[k], float) for k in ("lower_arm_upright", "upper_arm_upright",
                                                         "tie_rod_outer", "tie_rod_inner"))
    k = (U - L) / np.linalg.norm(U - L)
    d = T - Inner
    omega_per_rack = d[1] / np.dot(np.cross(k, T - L), d)     # rad of upright per m of rack
    steer_per_rack = omega_per_rack * k[2]                     # road-wheel angle per m of rack
    return abs(1.0 / (pin * steer_per_rack))                   # handwheel / road wheel


def test_rig_ratio_matches_the_hand_computation():
    model = sedan_model()
    by_hand = hand_ratio()
    rig = steering_ratio_on_centre(model)
    assert rig == pytest.approx(by_hand, rel=5e-3), (rig, by_hand)
    # both front corners give the same (the axle's mean), and the central difference is
    # converged: ±0.1 and ±1 mm of rack agree to 1e-5
    assert steering_ratio_on_centre(model, corner="front-right") == pytest.approx(rig, rel=1e-9)
    assert steering_ratio_on_centre(model, rack=1e-3) == pytest.approx(
        steering_ratio_on_centre(model, rack=1e-4), rel=1e-5)
    # the single-track model uses the same ratio
    assert steering_ratio(model) == pytest.approx(rig, rel=1e-12)


def test_car_without_pinion_is_named():
    model = sedan_model()
    model.couplers = [c for c in model.couplers if c.name != "steering"]
    with pytest.raises(ModelError, match=r"steering: the model 'sedan' has no pinion-driven rack"):
        steering_ratio_on_centre(model)
