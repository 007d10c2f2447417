"""Subsystem description for subsystem synthesis (Kim & Wang 2005 §2), read from an ordinary model.

The same bodies, markers, joints and forces that compile as a Cartesian model: one body is the
base (the chassis, body 0 of eq. 1), joined to the ground by a joint that fixes its orientation
(``prismatic``: one translation; ``orientation-lock``: three) or by none (a free base, 6 DOF:
formulation B); every other body belongs to a
subsystem, a set of bodies connected to each other and to the base by ``spherical``,
``revolute`` and ``distance`` joints. Force elements: gravity, linear ``spring-damper`` and
``force`` (global direction, constant or expression magnitude) between any bodies, the base or
the ground. Anything else is refused with a :class:`~rtmbs.errors.ModelError` naming the key.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from ..errors import ModelError
from ..model.description import Model, inertia_matrix

BASE, GROUND = -1, -2          # body indices of the base and the ground in a subsystem

#: joint type -> number of equations it contributes (Carpinelli 2015 §4.2.2)
JOINT_ROWS = {"spherical": 3, "revolute": 5, "distance": 1}


@dataclass
class Prim:
    """One constraint primitive between bodies i and j (subsystem index, BASE): ``kind`` is
    'sph' (3 rows, points si, sj coincide), 'perp' (1 row, axis ai ⊥ axis aj) or 'dist'
    (1 row, ½(|P_j − P_i|² − L²) = 0); vectors in body frames (base: base frame)."""

    kind: str
    joint: str
    bi: int
    bj: int
    si: np.ndarray = field(default_factory=lambda: np.zeros(3))
    sj: np.ndarray = field(default_factory=lambda: np.zeros(3))
    length: float = 0.0


@dataclass
class ForceElem:
    """A force element: 'spring' (k, c, L0, F0 tension between points) or 'force' (f(t)·e)."""

    kind: str
    name: str
    bi: int
    bj: int
    si: np.ndarray
    sj: np.ndarray
    k: float = 0.0
    c: float = 0.0
    L0: float = 0.0
    F0: float = 0.0
    direction: np.ndarray = field(default_factory=lambda: np.zeros(3))
    fun: tuple | None = None       # (ops, args) of an expression, or None for a constant
    value: float = 0.0


@dataclass
class Subsystem:
    """The bodies of one subsystem, its constraint primitives and its introduced coordinate θ
    (Kim & Wang 2005 eq. 14): the rotation angle of the body on ``theta_joint`` (a revolute to the base)
    about the joint axis ``theta_axis`` (base frame), measured from the initial configuration:
    x axis ``theta_x`` (body frame of that body) starts along ``theta_e1`` (base frame)."""

    bodies: list[str]
    mass: np.ndarray                   # (nb,)
    inertia: np.ndarray                # (nb, 3, 3) body frame
    r0: np.ndarray                     # (nb, 3) initial relative positions r*_i0 (base frame)
    A0: np.ndarray                     # (nb, 3, 3) initial relative orientations A_i0
    prims: list[Prim]
    ndof: int
    theta_joint: str
    theta_body: int
    theta_axis: np.ndarray
    theta_e1: np.ndarray
    theta_x: np.ndarray
    joints: list = field(default_factory=list)   # (name, type, bi, bj, si, sj, Ci, Cj, length)


@dataclass
class SynthesisModel:
    """Base body + subsystems + force elements, from a :class:`~rtmbs.model.Model`."""

    name: str
    gravity: np.ndarray
    base: str
    base_mass: float
    base_inertia: np.ndarray
    base_r0: np.ndarray                # initial position of the base CG (global)
    base_A: np.ndarray                 # base orientation (constant: locked by its joint)
    base_S: np.ndarray                 # (6, nbase): allowed base motions in Ŷ0 = [ṙ0; ω0] (free: I)
    base_coordinate_names: list[str]
    subsystems: list[Subsystem]
    forces: list[ForceElem]
    body_of: dict                      # body name -> (subsystem index, body index) or BASE/GROUND
    base_v0: np.ndarray = field(default_factory=lambda: np.zeros(3))   # initial base velocity
    theta_rate0: list = field(default_factory=list)                    # initial θ̇ per subsystem
    base_free: bool = False            # no joint to the ground: 6 DOF, orientation by Bryant angles


def _markers(model: Model, A0, r0):
    """Every marker as (body name, position in body frame, axes in body frame)."""
    out = {}
    for b in list(model.bodies) + [model.ground]:
        bname = getattr(b, "name", "ground")
        Ab = A0.get(bname, np.eye(3))
        rb = r0.get(bname, np.zeros(3))
        out[f"{bname}.cm"] = (bname, np.zeros(3), np.eye(3))
        for mk in b.markers:
            C = mk.orientation.as_matrix() if mk.orientation else np.eye(3)
            s = np.asarray(mk.position, float)
            if mk.frame == "global":
                s, C = Ab.T @ (s - rb), Ab.T @ C
            out[f"{bname}.{mk.name}"] = (bname, s, C)
    return out


def subsystem_model(model: Model, base: str, dof: dict | int | None = None) -> SynthesisModel:
    """Read ``model`` as base body ``base`` plus subsystems (Kim & Wang 2005 Fig. 1).

    ``dof``: the declared degrees of freedom of each subsystem (an int for one subsystem, or a
    mapping from the name of its first body): checked against 6·bodies − equations."""
    names = [b.name for b in model.bodies]
    if base not in names:
        raise ModelError("synthesis.base", f"unknown body '{base}' (bodies: {', '.join(names)})")
    A0 = {b.name: (b.orientation.as_matrix() if b.orientation else np.eye(3)) for b in model.bodies}
    r0 = {b.name: np.asarray(b.position, float) for b in model.bodies}
    mk = _markers(model, A0, r0)

    def marker(ref, path):
        if ref not in mk:
            raise ModelError(path, f"unknown marker '{ref}'")
        return mk[ref]

    # the base's joint to the ground fixes its orientation
    base_joints = [j for j in model.joints if {marker(j.marker_i, f"joints.{j.name}.marker_i")[0],
                                               marker(j.marker_j, f"joints.{j.name}.marker_j")[0]}
                   == {base, "ground"}]
    if len(base_joints) > 1 or (base_joints and base_joints[0].type not in ("prismatic", "orientation-lock")):
        raise ModelError(f"synthesis.base.{base}", "the base body needs at most one joint to the ground, "
                         "prismatic (vertical slide) or orientation-lock, or none (a free base, 6 DOF) "
                         f"(found: {', '.join(j.name + ' ' + j.type for j in base_joints)})")
    bj = base_joints[0] if base_joints else None
    Ab = A0[base]
    free = bj is None
    if free:                                   # x, y, z and the Bryant angles of the base (system.py)
        S = np.eye(6)
        base_names = [f"{base}.{c}" for c in ("x", "y", "z", "rx", "ry", "rz")]
    elif bj.type == "prismatic":
        bi_name, _, C = marker(bj.marker_i, f"joints.{bj.name}.marker_i")
        u = (A0.get(bi_name, np.eye(3)) @ C)[:, 2]
        S = np.zeros((6, 1))
        S[:3, 0] = u
        base_names = [f"{base}.s"]
    else:
        S = np.zeros((6, 3))
        S[:3, :3] = np.eye(3)
        base_names = [f"{base}.{c}" for c in "xyz"]
    bbase = model.body(base)

    # subsystems: connected components of the non-base bodies through subsystem joints
    others = [n for n in names if n != base]
    sub_joints = [j for j in model.joints if j is not bj]
    parent = {n: n for n in others}

    def find(a):
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    attached = set()
    for j in sub_joints:
        path = f"joints.{j.name}"
        bi_name = marker(j.marker_i, path + ".marker_i")[0]
        bj_name = marker(j.marker_j, path + ".marker_j")[0]
        if "ground" in (bi_name, bj_name):
            raise ModelError(path, f"a subsystem body may not be joined to the ground (only the base "
                             f"'{base}' is); joint '{j.name}' joins '{bi_name}' and '{bj_name}'")
        if j.type not in JOINT_ROWS:
            raise ModelError(path + ".type", f"joint type '{j.type}' is not supported in a subsystem "
                             f"(supported: {', '.join(JOINT_ROWS)})")
        if base in (bi_name, bj_name):
            attached.add(bj_name if bi_name == base else bi_name)
        else:
            parent[find(bi_name)] = find(bj_name)
    groups: dict[str, list[str]] = {}
    for n in others:
        groups.setdefault(find(n), []).append(n)
    subsystems = []
    body_of = {base: BASE, "ground": GROUND}
    for members in groups.values():
        if not any(m in attached for m in members):
            raise ModelError(f"bodies.{members[0]}", f"not attached to the base '{base}': bodies "
                             f"{', '.join(members)} form a subsystem with no joint to the base")
        subsystems.append(members)
    out_subs = []
    for si, members in enumerate(subsystems):
        idx = {m: k for k, m in enumerate(members)}
        for m in members:
            body_of[m] = (si, idx[m])

        def local(ref, path):
            bname, s, C = marker(ref, path)
            return (BASE if bname == base else idx[bname]), s, C

        prims, nrows, theta, joints = [], 0, None, []
        for j in sub_joints:
            path = f"joints.{j.name}"
            if marker(j.marker_i, path)[0] not in idx and marker(j.marker_j, path)[0] not in idx:
                continue
            bi, si_, Ci = local(j.marker_i, path + ".marker_i")
            bjj, sj_, Cj = local(j.marker_j, path + ".marker_j")
            nrows += JOINT_ROWS[j.type]
            jrow = [j.name, j.type, bi, bjj, si_, sj_, Ci, Cj, 0.0]
            joints.append(jrow)
            if j.type in ("spherical", "revolute"):
                prims.append(Prim("sph", j.name, bi, bjj, si_, sj_))
            if j.type == "revolute":
                prims.append(Prim("perp", j.name, bi, bjj, Ci[:, 2], Cj[:, 0]))
                prims.append(Prim("perp", j.name, bi, bjj, Ci[:, 2], Cj[:, 1]))
                if theta is None and BASE in (bi, bjj):
                    theta = (j.name, bjj if bi == BASE else bi, Ci if bi == BASE else Cj,
                             Cj if bi == BASE else Ci)
            if j.type == "distance":
                if j.distance is not None:
                    L = float(j.distance)
                else:
                    pi = r0.get(marker(j.marker_i, path)[0], np.zeros(3)) + A0.get(marker(j.marker_i, path)[0], np.eye(3)) @ si_
                    pj = r0.get(marker(j.marker_j, path)[0], np.zeros(3)) + A0.get(marker(j.marker_j, path)[0], np.eye(3)) @ sj_
                    L = float(np.linalg.norm(pj - pi))
                prims.append(Prim("dist", j.name, bi, bjj, si_, sj_, L))
                jrow[8] = L
        ndof = 6 * len(members) - nrows
        key = members[0]
        want = dof.get(key) if isinstance(dof, dict) else dof
        if want is not None and want != ndof:
            raise ModelError(f"synthesis.dof.{key}", f"declared {want} degrees of freedom, but the "
                             f"subsystem {', '.join(members)} has 6×{len(members)} − {nrows} = {ndof}")
        if ndof != 1 or theta is None:
            raise ModelError(f"synthesis.dof.{key}", f"the subsystem {', '.join(members)} has {ndof} "
                             "degrees of freedom; only 1-DOF subsystems with a revolute joint to the base "
                             "(the introduced coordinate θ is its angle) are built")
        jname, tb, Cbase, Cbody = theta
        mass = np.array([model.body(m).mass for m in members])
        J = np.array([inertia_matrix(model.body(m).inertia) for m in members])
        rr = np.array([Ab.T @ (r0[m] - r0[base]) for m in members])
        AA = np.array([Ab.T @ A0[m] for m in members])
        out_subs.append(Subsystem(members, mass, J, rr, AA, prims, ndof, jname, tb, Cbase[:, 2],
                                  AA[tb] @ Cbody[:, 0], Cbody[:, 0], joints))

    forces = []
    for f in model.forces:
        path = f"forces.{f.name}"
        if f.type == "spring-damper":
            if f.force_table or f.damping_table or getattr(f, "function", None) is not None:
                raise ModelError(path, "only linear spring-dampers (stiffness, damping, free_length, "
                                 "preload) are supported by subsystem synthesis")
            (ni, si_, _), (nj, sj_, _) = marker(f.marker_i, path + ".marker_i"), marker(f.marker_j, path + ".marker_j")
            L0 = f.free_length
            if L0 is None:
                L0 = float(np.linalg.norm(r0.get(nj, np.zeros(3)) + A0.get(nj, np.eye(3)) @ sj_
                                          - r0.get(ni, np.zeros(3)) - A0.get(ni, np.eye(3)) @ si_))
            forces.append(ForceElem("spring", f.name, body_of.get(ni), body_of.get(nj), si_, sj_,
                                    f.stiffness, f.damping, L0, f.preload))
        elif f.type == "force":
            if f.frame != "global":
                raise ModelError(path + ".frame", "subsystem synthesis supports global force directions only")
            nj, sj_, _ = marker(f.marker_j, path + ".marker_j")
            d = np.asarray(f.direction, float)
            forces.append(ForceElem("force", f.name, GROUND, body_of.get(nj), np.zeros(3), sj_,
                                    direction=d / np.linalg.norm(d), **_function(model, f.function, path)))
        else:
            raise ModelError(path + ".type", f"force type '{f.type}' is not supported by subsystem "
                             "synthesis (supported: spring-damper, force)")
    rates = [float(sb.theta_axis @ (Ab.T @ (np.asarray(model.body(sb.bodies[sb.theta_body]).angular_velocity,
                                                         float) - np.asarray(bbase.angular_velocity))))
             for sb in out_subs]
    return SynthesisModel(model.name, np.asarray(model.gravity, float), base, bbase.mass,
                          inertia_matrix(bbase.inertia), r0[base], Ab, S, base_names, out_subs, forces,
                          body_of, np.asarray(bbase.velocity, float), rates, free)


def _function(model: Model, spec, path) -> dict:
    """A force magnitude: a number, or an ``expr`` input (by name or inline)."""
    from ..model.expression import compile_expression

    if isinstance(spec, (int, float)):
        return {"value": float(spec)}
    inp = spec
    if isinstance(spec, str):
        found = [i for i in model.inputs if i.name == spec]
        if not found:
            raise ModelError(path + ".function", f"unknown input '{spec}'")
        inp = found[0]
    if inp is None:
        return {"value": 1.0}
    if inp.type == "constant":
        return {"value": float(inp.value)}
    if inp.type != "expr":
        raise ModelError(path + ".function", f"input type '{inp.type}' is not supported by subsystem "
                         "synthesis (constant or expr)")
    return {"fun": compile_expression(inp.expr)}
