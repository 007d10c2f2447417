"""What a saved run keeps of its model: the unit of every signal and a geometry summary (bodies,
markers, joints, force elements, road) from which ``rtmbs view`` draws the motion without the
model file. :func:`attach` puts both into ``result.meta`` (``units``, ``geometry``);
``Result.save_hdf5`` writes them."""
from __future__ import annotations

import numpy as np

from ..units import MULTIPLIER, unit_of

#: least box side, as a fraction of the body's longest side (slender links stay visible)
MIN_SIDE = 0.08
#: tyre width drawn, as a fraction of the unloaded radius (a 205/55 R16 tyre: 0.66)
TYRE_WIDTH = 0.66


def multiplier_units(system) -> list[str]:
    """Unit of each multiplier λ_i of a body model: from the primitives of each joint
    (``system.joint_rows``, model/registry.py JOINTS) and the Euler-parameter rows;
    ``""`` for rows of a hand-written system."""
    from ..model.registry import PRIMITIVE_ROWS, joint_primitives

    units = [""] * int(getattr(system, "m", 0))
    model = getattr(system, "model", None)
    rows = getattr(system, "joint_rows", None)
    if model is None or rows is None:
        return units
    joints = {j.name: j for j in model.joints}
    for name, (start, count) in rows.items():
        if name.endswith(".euler-parameters"):
            units[start] = MULTIPLIER["euler-parameters"]
            continue
        j = joints.get(name)
        if j is None:
            continue
        kinds = [p.split()[0] for p in joint_primitives(j.type, j.dof)]
        per_row = [MULTIPLIER[k] for k in kinds for _ in range(PRIMITIVE_ROWS[k])]
        units[start:start + count] = per_row[:count]
    return units


def system_units(system) -> dict[str, str]:
    """``{signal name: unit}`` for every coordinate (``q:``/``qd:``), multiplier (``lam:<i>``),
    named output and acceleration output of ``system``, named as ``Result.columns`` names them."""
    model = getattr(system, "model", None)
    etypes = {f.name: f.type for f in model.forces} if model is not None else {}
    units = {"t": "s"}
    for c in getattr(system, "coordinate_names", ()):
        units[f"q:{c}"] = unit_of(f"q:{c}")
        units[f"qd:{c}"] = unit_of(f"qd:{c}")
    for i, u in enumerate(multiplier_units(system)):
        units[f"lam:{i}"] = u
    for name in (*getattr(system, "output_names", ()), *getattr(system, "acceleration_names", ())):
        units[name] = unit_of(name, etypes)
    units.update(getattr(system, "sensor_units", {}))  # computed outputs carry their own unit
    return units


def equivalent_box(mass: float, inertia) -> tuple[list[float], list[list[float]]]:
    """Side lengths (a, b, c) and axes (columns, in body axes) of the uniform box with the body's
    mass and inertia: I₁ = m(b² + c²)/12 … about its principal axes, so a² = 6(I₂ + I₃ − I₁)/m;
    sides below ``MIN_SIDE`` of the longest are raised to it."""
    J = np.asarray(inertia, float)
    w, V = np.linalg.eigh(J)
    tot = w.sum()
    sides = np.sqrt(np.maximum(6.0 * (tot - 2.0 * w) / mass, 0.0))
    sides = np.maximum(sides, MIN_SIDE * sides.max())
    return sides.tolist(), V.tolist()


def geometry(system) -> dict | None:
    """A JSON-able summary of a body model's geometry, or None for a system without one (the
    planar truck): bodies (coordinate address, rotation type, shape: the equivalent box, or a
    cylinder for a rim with a tyre), markers used by joints and forces (body, origin in body
    axes; body -1 is the ground, whose axes are the global ones), joints, force elements and the
    distinct roads of the tyres (sampled heights of both tracks; ``road``: the first)."""
    model = getattr(system, "model", None)
    markers = getattr(system, "markers", None)
    if model is None or markers is None:
        return None
    nb = len(model.bodies)
    bodies = [{"name": b.name, "qadr": int(system.body_qadr[i]), "rtype": int(system.body_rtype[i]),
               **_shape(b)} for i, b in enumerate(model.bodies)]
    used = {}

    def point(ref):
        if ref is None:
            return None
        if ref not in used and ref in markers:
            mk = markers[ref]
            used[ref] = {"body": -1 if mk.body >= nb else int(mk.body),
                         "s": np.asarray(mk.s, float).tolist()}
        return ref if ref in used else None

    joints = [{"name": j.name, "type": j.type, "i": point(j.marker_i), "j": point(j.marker_j)}
              for j in model.joints]
    forces = [{"name": f.name, "type": f.type, "i": point(f.marker_i), "j": point(f.marker_j)}
              for f in model.forces]
    roads, specs = [], []
    for k, f in enumerate(model.forces):
        if f.type != "tyre" or f.marker_j not in markers:
            continue
        from ..kernels.codes import TP_RFREE

        mk = markers[f.marker_j]
        radius = float(system.arrays.frc_par[k, TP_RFREE])
        if mk.body < nb and model.bodies[mk.body].shape is None:  # a declared shape wins
            bodies[mk.body].update(shape="cylinder", radius=radius, width=TYRE_WIDTH * radius,
                                   centre=np.asarray(mk.s, float).tolist(),
                                   axis=np.asarray(mk.C, float)[:, 2].tolist())
        spec = f.road or {"type": "flat"}
        if spec not in specs:  # each distinct road once (four tyres on one road: one)
            specs.append(spec)
            roads.append(_road(spec))
    return {"model": system.name, "bodies": bodies, "points": used, "joints": joints,
            "forces": forces, "road": roads[0] if roads else None, "roads": roads}


def _shape(body) -> dict:
    """The drawn shape of a body: its declared ``shape``, else the box of its mass and inertia."""
    sh = body.shape
    if sh is None:
        return {"shape": "box", **dict(zip(("size", "axes"), equivalent_box(body.mass, body.inertia)))}
    if sh.type == "box":
        return {"shape": "box", "size": list(sh.size), "axes": np.eye(3).tolist(),
                "centre": list(sh.centre)}
    return {"shape": "cylinder", "radius": sh.radius, "width": sh.length, "centre": list(sh.centre),
            "axis": (np.asarray(sh.axis, float) / np.linalg.norm(sh.axis)).tolist()}


def _road(spec: dict, max_samples: int = 4000) -> dict:
    from ..vehicle.road import from_spec

    r = from_spec(spec, where="road")
    step = max(1, int(np.ceil(r.n / max_samples)))
    return {"kind": r.kind, "x0": r.x0, "dx": r.dx * step, "y_left": float(r.y_left),
            "y_right": float(r.y_right), "z": np.round(r.z[:, ::step], 6).tolist()}


def attach(result, system):
    """Put the units of ``system``'s signals and its geometry into ``result.meta`` (the keys
    ``units`` and ``geometry``), to be saved with the result; returns ``result``."""
    result.meta["units"] = {**system_units(system), **(result.meta.get("units") or {})}
    geo = geometry(system)
    if geo is not None:
        result.meta["geometry"] = geo
    return result
