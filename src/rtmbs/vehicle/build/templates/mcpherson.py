"""McPherson strut corner, after Chrono's ``MacPhersonStrut`` topology: lower arm revolute to
the chassis (or on two bushings), spherical to the upright; strut rod cylindrical to the upright
along the strut axis and universal to the chassis at the top mount (or on a bushing); tie rod
as a distance constraint; wheel revolute to the upright; coil spring and damper along the strut
(chassis top mount → upright). Ideal: 4 bodies, 22 joint equations, 2 degrees of freedom.
"""
from __future__ import annotations

from ..corner import unit
from .common import (Context, Corner, arm_to_chassis, bushing, cross_axes, joint, part_body,
                     spring_damper, tie_rod, wheel)

HARD_POINTS = ("lower_arm_front", "lower_arm_back", "lower_arm_upright", "tie_rod_inner",
               "tie_rod_outer", "strut_top", "strut_lower", "wheel_centre")
BODIES = ("upright", "lower_arm", "strut")
BUSHINGS = ("arm", "top_mount")


def build(side, spec, ctx: Context) -> Corner:
    P = {k: side.point(v) for k, v in spec.hard_points.items()}
    upright = part_body(side, spec.bodies["upright"], "upright", f"{ctx.path}.bodies.upright")
    arm = part_body(side, spec.bodies["lower_arm"], "lower_arm", f"{ctx.path}.bodies.lower_arm")
    strut = part_body(side, spec.bodies["strut"], "strut", f"{ctx.path}.bodies.strut", ends=(P["strut_top"], P["strut_lower"]))
    arm_to_chassis(side, spec, ctx, arm, P["lower_arm_front"], P["lower_arm_back"])
    joint(side, "lower_arm_ball", "spherical", arm, upright, P["lower_arm_upright"])
    u = unit(P["strut_top"] - P["strut_lower"])
    joint(side, "strut_slide", "cylindrical", upright, strut, P["strut_lower"], u)
    if ctx.joints == "ideal":
        zi, zj = cross_axes(u)
        joint(side, "top_mount", "universal", "chassis", strut, P["strut_top"], zi, zj=zj)
    else:
        bushing(side, "top_mount", spec, ctx, "top_mount", "chassis", strut, P["strut_top"], u)
    tie_rod(side, ctx, upright, P["tie_rod_inner"], P["tie_rod_outer"])
    spring_damper(side, spec, "chassis", upright, P["strut_top"], P["strut_lower"])
    w, wc, s = wheel(side, spec, ctx, upright)
    return Corner(side, {"upright": upright, "wheel": w, "lower_arm": arm, "strut": strut}, wc, s)
