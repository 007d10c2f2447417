"""Five-link (multilink) corner, the topology of rtmbs.models.multilink (Carpinelli 2015 §4.1-4.2):
five links from the chassis to the knuckle, universal at the chassis and spherical at the
knuckle (ideal) or a bushing at each end with z along the link (bushings); wheel revolute to the
knuckle; coil spring and damper chassis → lower arm. The subframe of the single-corner model is
merged into the chassis here (docs/models/sedan.md). Ideal: 7 bodies, 40 joint equations, 2
degrees of freedom.
"""
from __future__ import annotations

from .common import Context, Corner, bushing, cross_axes, joint, part_body, spring_damper, wheel
from ..corner import unit

LINKS = ("upper_arm", "leading_arm", "control_arm", "trailing_arm", "lower_arm")
HARD_POINTS = tuple(f"{ln}_{end}" for ln in LINKS for end in ("inner", "outer")) + (
    "damper_upper", "damper_lower", "wheel_centre")
BODIES = LINKS + ("knuckle",)
BUSHINGS = ("link",)


def build(side, spec, ctx: Context) -> Corner:
    P = {k: side.point(v) for k, v in spec.hard_points.items()}
    bodies = {}
    for ln in LINKS:
        bodies[ln] = part_body(side, spec.bodies[ln], ln, f"{ctx.path}.bodies.{ln}", ends=(P[f"{ln}_inner"], P[f"{ln}_outer"]))
    knuckle = part_body(side, spec.bodies["knuckle"], "knuckle", f"{ctx.path}.bodies.knuckle")
    for ln in LINKS:
        a, b = P[f"{ln}_inner"], P[f"{ln}_outer"]
        u = unit(b - a)
        if ctx.joints == "ideal":
            zi, zj = cross_axes(u)
            joint(side, f"{ln}_inner", "universal", "chassis", bodies[ln], a, zi, zj=zj)
            joint(side, f"{ln}_outer", "spherical", bodies[ln], knuckle, b)
        else:
            bushing(side, f"{ln}_inner", spec, ctx, "link", "chassis", bodies[ln], a, u)
            bushing(side, f"{ln}_outer", spec, ctx, "link", bodies[ln], knuckle, b, u)
    spring_damper(side, spec, "chassis", bodies["lower_arm"], P["damper_upper"], P["damper_lower"])
    w, wc, s = wheel(side, spec, ctx, knuckle)
    return Corner(side, {"upright": knuckle, "knuckle": knuckle, "wheel": w, **bodies}, wc, s)
