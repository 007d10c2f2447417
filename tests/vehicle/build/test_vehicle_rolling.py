"""A vehicle file with ``speed:`` starts free rolling: each wheel at v / R_e (R_e the tyre's
effective rolling radius, not the wheel-centre height) and the driven wheels' half shafts
turning with them, so every tyre starts at zero longitudinal slip. With the half shafts at rest
the projection of the initial velocities onto the joints stopped the rear wheels (slip -0.67)."""
import numpy as np
import pytest
import yaml

from rtmbs.system import compile_model
from rtmbs.vehicle.build.vehicle import SEDAN, vehicle_from_dict

CORNERS = ("fl", "fr", "rl", "rr")


def test_sedan_file_with_speed_starts_at_zero_slip_with_its_half_shafts_turning():
    data = yaml.safe_load((SEDAN / "vehicle.yaml").read_text())
    data["speed"] = 20.0
    system = compile_model(vehicle_from_dict(data, SEDAN, "vehicle.yaml"))
    state = system.initial_state()
    out = np.zeros(len(system.output_names))
    system.outputs(state.t, state.q, state.qd, out)
    sig = dict(zip(system.output_names, out))
    for c in CORNERS:
        assert abs(sig[f"{c}_tyre.kappa"]) < 2e-3, c   # half shafts at rest: rear -0.67
    # the driven wheel's spin (about the axle, rad/s) is v / R_e: R_e between the loaded radius
    # and the unloaded radius (0.344 m), i.e. v / R_e below v / (wheel-centre height 0.332 m)
    for c in ("rl", "rr"):
        assert 20.0 / 0.344 < abs(sig[f"{c}_wheel.wy"]) < 20.0 / 0.332, c
