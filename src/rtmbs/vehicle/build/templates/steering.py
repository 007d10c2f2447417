"""Rack-and-pinion steering: the rack slides along the vehicle's y axis in the chassis
(prismatic) and the tie rods of the steered axle hang on it.

``drive: rack-travel``: a motion driver (joint ``rack_travel``) holds the rack's travel (m, + to
the left) to the input. ``drive: pinion-angle``: a pinion body (pinion and column; the handwheel
angle is driven, so its inertia only carries a reaction) turns in the chassis on the revolute ``pinion_pivot`` about the column axis (−x: + is a
left turn, counter-clockwise as the driver sees it); the coupler ``steering`` holds rack travel
= ``ratio`` · pinion angle (m/rad; negative for a rack behind the axle: a left turn moves that
rack to the right), and the motion driver ``pinion_angle`` holds the pinion (handwheel) angle
to the input (rad).

Compliance (optional keys): ``rack_mount`` puts the rack in a housing that slides along y in the
chassis on its mounts (a bushing of the given axial rate, joint ``rack_mount``); the rack slides
in the housing and the pinion turns in it. ``column`` puts a torsion bar between the handwheel
and the pinion: the driver ``pinion_angle`` then holds the handwheel body's angle, and a torsion
spring ``steering_column`` of rate k_t (1 + G) joins it to the pinion — k_t the torsion bar,
G the power assist's gain (assist torque on the pinion = G × torsion-bar torque; with the
handwheel's angle imposed, the pinion feels k_t (1 + G): Pfeffer and Harrer 2011, *Steering
Handbook*, the column-assist EPS model)."""
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
    carrier = "chassis"  # the body the rack slides in and the pinion turns in
    if spec.rack_mount is not None:
        rm = spec.rack_mount
        carrier = "rack_housing"
        model.add_body(carrier, rm.mass, inertia=(0.1 * rm.mass, 0.002 * rm.mass, 0.1 * rm.mass),
                       position=tup(c))
        model.add_marker(carrier, "rack", tup(c), frame="global", orientation=ori)
        model.add_joint("rack_mount", "prismatic", "chassis.rack", f"{carrier}.rack")
        model.add_force("rack_mount", "bushing", marker_i="chassis.rack", marker_j=f"{carrier}.rack",
                        stiffness=(0.0, 0.0, rm.stiffness), damping=(0.0, 0.0, rm.damping))
    model.add_joint("rack_slide", "prismatic", f"{carrier}.rack", "rack.rack")
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
    if carrier != "chassis":
        model.add_marker(carrier, "pinion", tup(c), frame="global", orientation=po)
    model.add_joint("pinion_pivot", "revolute", f"{carrier}.pinion", "pinion.pinion")
    model.add_coupler("steering", ["rack_slide", "pinion_pivot"], ratio=float(spec.ratio))
    driven = "pinion"
    if spec.column is not None:
        col, driven = spec.column, "handwheel"
        model.add_body(driven, 0.05, inertia=(0.002, 0.001, 0.001), position=tup(c))
        model.add_marker(driven, "column", tup(c), frame="global", orientation=po)
        model.add_marker("pinion", "column", tup(c), frame="global", orientation=po)
        model.add_joint("handwheel_pivot", "revolute", "chassis.pinion", f"{driven}.column")
        model.add_force("steering_column", "torsion-spring", marker_i=f"{driven}.column",
                        marker_j="pinion.column", stiffness=col.stiffness * (1.0 + col.assist_gain),
                        damping=col.damping * (1.0 + col.assist_gain))
    model.add_joint("pinion_angle", "motion", "chassis.pinion", f"{driven}.column"
                    if driven == "handwheel" else "pinion.pinion", dof="rotation", function=name)
    return "rack"
