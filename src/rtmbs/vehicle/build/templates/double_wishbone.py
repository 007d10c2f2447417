"""Double wishbone (short-long arm) corner, after Chrono's ``DoubleWishbone`` topology: each arm
revolute to the chassis about the line through its two chassis points (or on two bushings),
spherical to the upright; tie rod as a distance constraint; wheel revolute to the upright;
coil spring and damper chassis → lower arm. Ideal: 4 bodies, 22 joint equations, 2 degrees of
freedom (wheel travel, wheel spin; the tie rod's inner end fixed or driven).
"""
from __future__ import annotations

from .common import Context, Corner, arm_to_chassis, joint, part_body, spring_damper, tie_rod, wheel

HARD_POINTS = ("upper_arm_front", "upper_arm_back", "upper_arm_upright", "lower_arm_front",
               "lower_arm_back", "lower_arm_upright", "tie_rod_inner", "tie_rod_outer",
               "spring_chassis", "spring_arm", "wheel_centre")
BODIES = ("upright", "upper_arm", "lower_arm")
BUSHINGS = ("arm",)


def build(side, spec, ctx: Context) -> Corner:
    P = {k: side.point(v) for k, v in spec.hard_points.items()}
    upright = part_body(side, spec.bodies["upright"], "upright", f"{ctx.path}.bodies.upright")
    arms = {}
    for arm in ("upper_arm", "lower_arm"):
        arms[arm] = part_body(side, spec.bodies[arm], arm, f"{ctx.path}.bodies.{arm}")
        arm_to_chassis(side, spec, ctx, arms[arm], P[f"{arm}_front"], P[f"{arm}_back"])
        joint(side, f"{arm}_ball", "spherical", arms[arm], upright, P[f"{arm}_upright"])
    tie_rod(side, ctx, upright, P["tie_rod_inner"], P["tie_rod_outer"])
    spring_damper(side, spec, "chassis", arms["lower_arm"], P["spring_chassis"], P["spring_arm"])
    w, wc, s = wheel(side, spec, ctx, upright)
    return Corner(side, {"upright": upright, "wheel": w, **arms}, wc, s)
