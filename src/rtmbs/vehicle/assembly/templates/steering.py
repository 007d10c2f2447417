"""Rack-and-pinion steering: the rack slides along the vehicle's y axis in the chassis
(prismatic) and the tie rods of the steered axle hang on it.

``drive: rack-travel``: a motion driver (joint ``rack_travel``) holds the rack's travel (m, + to
the left) to the input. ``drive: pinion-angle``: a pinion body (pinion and column; the handwheel
angle is driven, so its inertia only carries a reaction) turns in the chassis on the revolute ``pinion_pivot`` about the column axis (−x: + is a
left turn, counter-clockwise as the driver sees it); the coupler ``steering`` holds rack travel
= ``ratio`` · pinion angle (m/rad; negative for a rack behind the axle: a left turn moves that
rack to the right), and the motion driver ``pinion_angle`` holds the pinion (handwheel) angle
to the input (rad)."""
from __future__ import annotations

import numpy as np

from ....errors import ModelError
from ..corner import tup

HARD_POINTS = ("rack_centre",)
EY, EX, EZ = (0.0, 1.0, 0.0), (1.0, 0.0, 0.0), (0.0, 0.0, 1.0)
COLUMN = (-1.0, 0.0, 0.0)  # pinion axis: + rotation about it turns the handwheel's top to the left


def build(model, spec, path: str) -> str:
    """Adds the rack body, its prismatic joint and driver (and, for ``pinion-angle``, the
    pinion, its revolute, the coupler and the pinion's driver); returns the rack's body name."""
    pinion = spec.drive == "pinion-angle"
    if pinion and (spec.ratio is None or not np.isfinite(spec.ratio) or spec.ratio == 0.0):
        raise ModelError(f"{path}.ratio", "'pinion-angle' needs the rack travel per pinion "
                         f"radian (m/rad, non-zero), got {spec.ratio}")
    if pinion and spec.pinion is None:
        raise ModelError(f"{path}.pinion", "'pinion-angle' needs the pinion body "
                         "{mass, inertia} (pinion and column)")
    c = np.asarray(spec.position) + np.asarray(spec.hard_points["rack_centre"])
    model.add_body("rack", spec.rack.mass, inertia=spec.rack.inertia, position=tup(c))
    ori = {"z_axis": EY, "x_axis": EX}
    model.add_marker("chassis", "rack", tup(c), frame="global", orientation=ori)
    model.add_marker("rack", "rack", tup(c), frame="global", orientation=ori)
    model.add_joint("rack_slide", "prismatic", "chassis.rack", "rack.rack")
    name = spec.input or ("handwheel_angle" if pinion else "rack_travel")
    if name not in {i.name for i in model.inputs}:
        model.add_input(name, "channel", value=0.0)
    if not pinion:
        model.add_joint("rack_travel", "motion", "chassis.rack", "rack.rack", dof="translation",
                        function=name)
        return "rack"
    # the pinion's body axes along the column (x) with its principal inertia about the column first
    model.add_body("pinion", spec.pinion.mass, inertia=spec.pinion.inertia, position=tup(c))
    po = {"z_axis": COLUMN, "x_axis": EZ}
    model.add_marker("chassis", "pinion", tup(c), frame="global", orientation=po)
    model.add_marker("pinion", "pinion", tup(c), frame="global", orientation=po)
    model.add_joint("pinion_pivot", "revolute", "chassis.pinion", "pinion.pinion")
    model.add_coupler("steering", ["rack_slide", "pinion_pivot"], ratio=float(spec.ratio))
    model.add_joint("pinion_angle", "motion", "chassis.pinion", "pinion.pinion", dof="rotation",
                    function=name)
    return "rack"
