"""Rack-and-pinion steering: the rack slides along the vehicle's y axis in the chassis
(prismatic) and the tie rods of the steered axle hang on it. ``drive: rack-travel``: a motion
driver holds the rack's travel (m, + to the left) to the input. Hook: ``drive: pinion-angle``
(rack travel = ``ratio`` · pinion angle, a pinion body revolute to the chassis and a coupler
constraint) is refused until the coupler constraint exists."""
from __future__ import annotations

import numpy as np

from ....errors import ModelError
from ..corner import tup

HARD_POINTS = ("rack_centre",)
EY, EX = (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)


def build(model, spec, path: str) -> str:
    """Adds the rack body, its prismatic joint and driver; returns the rack's body name."""
    if spec.drive == "pinion-angle":
        raise ModelError(f"{path}.drive", "'pinion-angle' needs the rack-pinion coupler "
                         "constraint, which rtmbs does not have yet; use 'rack-travel'")
    c = np.asarray(spec.position) + np.asarray(spec.hard_points["rack_centre"])
    model.add_body("rack", spec.rack.mass, inertia=spec.rack.inertia, position=tup(c))
    ori = {"z_axis": EY, "x_axis": EX}
    model.add_marker("chassis", "rack", tup(c), frame="global", orientation=ori)
    model.add_marker("rack", "rack", tup(c), frame="global", orientation=ori)
    model.add_joint("rack_slide", "prismatic", "chassis.rack", "rack.rack")
    if spec.input not in {i.name for i in model.inputs}:
        model.add_input(spec.input, "channel", value=0.0)
    model.add_joint("rack_travel", "motion", "chassis.rack", "rack.rack", dof="translation",
                    function=spec.input)
    return "rack"
