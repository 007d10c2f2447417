"""What every suspension corner shares: wheel on its bearing, tyre, spring and damper, body
creation from a subsystem's ``bodies`` entries, bushings."""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..corner import Side, axis_inertia, rod_inertia, spin_axis, unit
from ....errors import ModelError

EX = np.array([1.0, 0.0, 0.0])


@dataclass
class Context:
    """What a template needs from the vehicle: the variant, the wheels, the road, the body a
    tie rod's inner end hangs on (``chassis`` or the steering rack), the error path."""

    joints: str
    wheels: object
    road: dict
    tyre_path: str
    path: str
    tie_rod_body: str = "chassis"


@dataclass
class Corner:
    """Names a template hands to the other subsystems: bodies by role, wheel centre and the
    spin axis pointing to the vehicle's left (vehicle frame)."""

    side: Side
    bodies: dict
    wheel_centre: np.ndarray
    spin_left: np.ndarray
    extra: dict = field(default_factory=dict)


def part_body(side: Side, part, role: str, path: str, ends=None) -> str:
    """A body from its ``bodies`` entry (schema.Part): inertia given (left side, vehicle axes)
    or a thin rod of ``radius`` between ``ends`` (vehicle frame); centre given or the midpoint
    of ``ends``. ``path``: the entry's key path for errors."""
    if part.centre is not None:
        centre = side.point(part.centre)
    elif ends is not None:
        centre = 0.5 * (ends[0] + ends[1])
    else:
        raise ModelError(f"{path}.centre", "required key is missing")
    if part.inertia is not None:
        J = side.inertia(part.inertia)
    elif part.radius is not None and ends is not None:
        J = rod_inertia(part.mass, ends[0], ends[1], part.radius)
    else:
        raise ModelError(f"{path}.inertia", "required key is missing (or give "
                         "a link's radius)" if ends is not None else "required key is missing")
    return side.body(role, part.mass, J, centre)


def bushing(side: Side, name: str, spec, ctx: Context, kind: str, bi: str, bj: str, at, z):
    """A bushing between bodies bi and bj at ``at`` with its z axis along ``z``."""
    b = spec.bushings.get(kind)
    if b is None:
        raise ModelError(f"{ctx.path}.bushings.{kind}", "required by the bushing variant, missing")
    side.model.add_force(side.name(name), "bushing",
                         marker_i=side.marker(bi, _mk(side, bi, name + "_i"), at, z),
                         marker_j=side.marker(bj, _mk(side, bj, name + "_j"), at, z),
                         stiffness=b.stiffness, damping=b.damping,
                         rotational_stiffness=b.rotational_stiffness,
                         rotational_damping=b.rotational_damping)


def _mk(side: Side, body: str, name: str) -> str:
    """Marker names on bodies shared by both sides (chassis, rack) carry the side's tag."""
    return name if body.startswith(side.tag + "_") else f"{side.tag}_{name}"


def mk(side: Side, body: str, name: str, at, z=None, x=None) -> str:
    return side.marker(body, _mk(side, body, name), at, z, x)


def joint(side: Side, name: str, type_: str, bi: str, bj: str, at, z=None, x=None, zj=None, **kw):
    side.model.add_joint(side.name(name), type_, mk(side, bi, name, at, z, x),
                         mk(side, bj, name, at, zj if zj is not None else z, x), **kw)


def cross_axes(u):
    """Cross axes of a universal joint on a link of axis u: z_i horizontal ⊥ u, z_j = u × z_i
    (the link's spin about u is blocked)."""
    u = unit(u)
    zi = unit(np.cross(u, (0.0, 0.0, 1.0)))
    return zi, unit(np.cross(u, zi))


def wheel(side: Side, spec, ctx: Context, upright: str) -> tuple[str, np.ndarray, np.ndarray]:
    """Wheel (rim + tyre) on a revolute bearing to the upright, and its tyre element."""
    w = ctx.wheels
    wc = side.point(spec.hard_points["wheel_centre"])
    s_left = side.sign * side.vector(spin_axis(spec.alignment.camber_deg, spec.alignment.toe_in_deg))
    body = side.body("wheel", w.mass, axis_inertia(w.spin_inertia, w.diametral_inertia, s_left), wc)
    i = mk(side, upright, "spindle", wc, s_left, EX)
    j = mk(side, body, "hub", wc, s_left, EX)
    side.model.add_joint(side.name("wheel_bearing"), "revolute", i, j)
    side.model.add_force(side.name("tyre"), "tyre", marker_i=i, marker_j=j, tyre=ctx.tyre_path,
                         road=dict(ctx.road), transient=w.transient)
    return body, wc, s_left


def spring_damper(side: Side, spec, bi: str, bj: str, top, bottom) -> None:
    """Coil spring (free length from its preload at the design length), damper (linear or a
    force-speed table) and, if given, the bump and rebound stops (one ``stop`` element whose
    lengths are the design length less the bump clearance and plus the rebound clearance),
    all between ``top`` on body bi and ``bottom`` on body bj."""
    length = float(np.linalg.norm(top - bottom))
    i, j = mk(side, bi, "spring", top), mk(side, bj, "spring", bottom)
    k = spec.spring.stiffness
    side.model.add_force(side.name("spring"), "spring-damper", marker_i=i, marker_j=j, stiffness=k,
                         damping=0.0, free_length=round(length + spec.spring.preload / k, 12))
    d = spec.damper
    if d.table is None:
        side.model.add_force(side.name("damper"), "spring-damper", marker_i=i, marker_j=j,
                             stiffness=0.0, damping=d.damping)
    else:
        side.model.add_force(side.name("damper"), "spring-damper", marker_i=i, marker_j=j,
                             stiffness=0.0, damping_table={"velocity": list(d.table.velocity),
                                                           "force": list(d.table.force)})
    st = getattr(spec, "stops", None)
    if st is not None:
        if st.bump_clearance >= length:
            raise ModelError(f"{side.subsystem}.stops.bump_clearance", f"{st.bump_clearance} m is not "
                             f"less than the spring's design length {length:.4f} m")
        side.model.add_force(side.name("stops"), "stop", marker_i=i, marker_j=j,
                             min_length=round(length - st.bump_clearance, 12),
                             max_length=round(length + st.rebound_clearance, 12),
                             stiffness=st.stiffness, exponent=st.exponent, damping=st.damping)


def arm_to_chassis(side: Side, spec, ctx: Context, arm: str, front, back) -> None:
    """An A-arm on the chassis: revolute about the line through its two chassis points (ideal)
    or a bushing at each point with z along that line (bushings)."""
    axis = unit(front - back)
    role = arm.split("_", 1)[1]
    if ctx.joints == "ideal":
        joint(side, f"{role}_pivot", "revolute", "chassis", arm, 0.5 * (front + back), axis)
    else:
        bushing(side, f"{role}_front_bushing", spec, ctx, "arm", "chassis", arm, front, axis)
        bushing(side, f"{role}_back_bushing", spec, ctx, "arm", "chassis", arm, back, axis)


def tie_rod(side: Side, ctx: Context, upright: str, inner, outer) -> None:
    """Tie rod as a distance constraint between its inner point (chassis or steering rack) and
    the steering arm of the upright."""
    side.model.add_joint(side.name("tie_rod"), "distance", mk(side, ctx.tie_rod_body, "tie_rod", inner),
                         mk(side, upright, "tie_rod", outer))
