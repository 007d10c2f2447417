"""Half shafts of the driven axle (the driveline of rtmbs.models.multilink, per side): an
outshaft cylindrical to the chassis along y at the differential output (it turns and plunges),
a halfshaft on two universal joints (Cardan crosses in phase), the outer joint on the wheel. The
drive torque ``input`` acts on each outshaft about +y (the equal split of an open differential;
a differential body comes later). Adds no degree of freedom: 2 bodies, 12 equations per side."""
from __future__ import annotations

import numpy as np

from ..corner import Side, unit
from .common import mk, part_body

HARD_POINTS = ("diff_output", "inner_joint")
BODIES = ("outshaft", "halfshaft")
EY, EX = np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])


def build(model, spec, corners: dict, path: str, prefix: str) -> None:
    if spec.input not in {i.name for i in model.inputs}:
        model.add_input(spec.input, "channel", value=0.0)
    for sd, corner in corners.items():
        side = Side(model, prefix, sd, spec.position, path)
        P = {k: side.point(v) for k, v in spec.hard_points.items()}
        s_out = side.sign * corner.spin_left
        uo = corner.wheel_centre - spec.outer_joint_offset * s_out
        u1 = P["inner_joint"]

        out = part_body(side, spec.bodies["outshaft"], "outshaft", f"{path}.bodies.outshaft", ends=(P["diff_output"], u1))
        half = part_body(side, spec.bodies["halfshaft"], "halfshaft", f"{path}.bodies.halfshaft", ends=(u1, uo))
        d = mk(side, "chassis", "diff", P["diff_output"], EY, EX)
        model.add_joint(side.name("diff_output"), "cylindrical", d,
                        mk(side, out, "diff", P["diff_output"], EY, EX))
        h = unit(uo - u1)
        yoke = unit(EX - h * (EX @ h))
        ey_side = side.vector(EY)
        model.add_joint(side.name("inner_joint"), "universal",
                        mk(side, out, "joint", u1, unit(np.cross(ey_side, yoke))),
                        mk(side, half, "inner", u1, yoke))
        model.add_joint(side.name("outer_joint"), "universal", mk(side, half, "outer", uo, yoke),
                        mk(side, corner.bodies["wheel"], "joint", uo, unit(np.cross(s_out, yoke))))
        model.add_force(side.name("drive"), "joint-torque", marker_i=d, marker_j=f"{out}.diff",
                        function=spec.input)

