"""Anti-roll bar: two bar halves, each revolute to the chassis about the vehicle's y axis at
its bearing, joined at the bar's centre by a ``torsion-spring`` element (the bar's torsion rate);
a drop link (distance constraint) from each arm end to a body of the suspension. The halves add
no degree of freedom: the drop links fix them to the wheel travel."""
from __future__ import annotations

import numpy as np

from ....errors import ModelError, did_you_mean
from ..corner import Side
from .common import mk, part_body

HARD_POINTS = ("bar_bearing", "arm_end", "drop_link_lower")
EY, EX = np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 0.0])


def build(model, spec, corners: dict, path: str, prefix: str) -> None:
    """``corners``: side -> Corner of the suspension on the bar's axle."""
    halves = {}
    for sd, corner in corners.items():
        side = Side(model, prefix, sd, spec.position, path)
        if spec.attach not in corner.bodies:
            raise ModelError(f"{path}.attach", f"unknown body '{spec.attach}' of the {spec.axle} "
                             "suspension" + did_you_mean(spec.attach, corner.bodies))
        P = {k: side.point(v) for k, v in spec.hard_points.items()}

        half = part_body(side, spec.half, "arb", f"{path}.half", ends=(P["bar_bearing"], P["arm_end"]))
        y = side.vector(EY)
        model.add_joint(side.name("arb_bearing"), "revolute", mk(side, "chassis", "arb_bearing", P["bar_bearing"], y, EX),
                        mk(side, half, "bearing", P["bar_bearing"], y, EX))
        model.add_joint(side.name("drop_link"), "distance", mk(side, half, "drop_link", P["arm_end"]),
                        mk(side, corner.bodies[spec.attach], "drop_link", P["drop_link_lower"]))
        halves[sd] = (side, half, P["bar_bearing"])
    (sl, left, bl), (sr, right, _) = halves["left"], halves["right"]
    centre = np.array([bl[0], 0.0, bl[2]])
    model.add_force(f"{prefix}_arb", "torsion-spring",
                    marker_i=mk(sl, left, "torsion", centre, EY, EX),
                    marker_j=mk(sr, right, "torsion", centre, EY, EX),
                    stiffness=spec.stiffness, damping=spec.damping)

