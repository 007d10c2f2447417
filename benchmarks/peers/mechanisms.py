"""The three peer mechanisms as plain data taken from the rtmbs models (so MuJoCo and Exudyn get
exactly the same numbers), and tool-independent measures of a state: points, energy, closure.

A state of any tool is a *snapshot*: per body its centre of mass c, rotation R from its t = 0
orientation (every body frame is aligned with the world axes at t = 0), centre velocity v and
angular velocity ω (world axes).
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from rtmbs.models import load_model
from rtmbs.models import peers

GRAVITY = np.array([0.0, 0.0, -9.81])
POINT_JOINTS = ("spherical", "revolute", "universal", "fixed")


@dataclass
class Body:
    name: str
    mass: float
    com: np.ndarray       # (3,) at t = 0
    inertia: np.ndarray   # (3, 3) about the centre of mass, world axes at t = 0
    v0: np.ndarray
    w0: np.ndarray


@dataclass
class Mechanism:
    name: str
    system: object                        # the compiled rtmbs model
    bodies: dict[str, Body]
    points: dict[str, tuple[str, np.ndarray]] = field(default_factory=dict)  # "body.marker" -> (body, world pos at t = 0)
    axes: dict[str, np.ndarray] = field(default_factory=dict)                # "body.marker" -> marker z axis, world
    joints: list[tuple[str, str, str, str]] = field(default_factory=list)    # (name, type, marker_i, marker_j)
    springs: list[tuple[str, str, float, float, float]] = field(default_factory=list)  # (i, j, k, c, free length)


def mechanism(model_name: str) -> Mechanism:
    """The rtmbs model ``model_name`` (one of ``peers.PEER_MODELS``) as plain data."""
    s = load_model(model_name)
    md = s.model
    bodies = {}
    for b in md.bodies:
        if b.orientation is not None:
            raise ValueError(f"{model_name}: body {b.name} is not aligned with the world axes at t = 0")
        bodies[b.name] = Body(b.name, float(b.mass), np.array(b.position, float), np.array(b.inertia, float),
                              np.array(b.velocity, float), np.array(b.angular_velocity, float))
    mech = Mechanism(model_name, s, bodies)
    q0 = s.initial_state().q
    for ref, mk in s.markers.items():
        body = ref.split(".")[0]
        mech.points[ref] = (body, peers.marker_position(s, q0, ref))
        mech.axes[ref] = mk.C[:, 2].copy()  # body axes = world axes at t = 0
    mech.joints = [(j.name, j.type, j.marker_i, j.marker_j) for j in md.joints]
    for f in md.forces:
        if f.type != "spring-damper":
            raise ValueError(f"{model_name}: force {f.name} of type {f.type} is not supported here")
        mech.springs.append((f.marker_i, f.marker_j, float(f.stiffness), float(f.damping), float(f.free_length)))
    return mech


def point(mech: Mechanism, snap: dict, ref: str) -> np.ndarray:
    """World position of marker ``ref`` in a snapshot."""
    body, p0 = mech.points[ref]
    if body == "ground":
        return p0
    c, R, _, _ = snap[body]
    return c + R @ (p0 - mech.bodies[body].com)


def energy(mech: Mechanism, snap: dict) -> float:
    """½ m v² + ½ ωᵀ R I Rᵀ ω + m g z over the bodies, plus ½ k (L − L0)² of the springs."""
    E = 0.0
    for name, b in mech.bodies.items():
        c, R, v, w = snap[name]
        E += 0.5 * b.mass * v @ v + 0.5 * w @ (R @ b.inertia @ R.T) @ w - b.mass * GRAVITY @ c
    for i, j, k, _c, L0 in mech.springs:
        L = np.linalg.norm(point(mech, snap, j) - point(mech, snap, i))
        E += 0.5 * k * (L - L0) ** 2
    return float(E)


def closure(mech: Mechanism, snap: dict) -> float:
    """Largest distance between the two points of any point joint (m), as peers.closure_error."""
    return max(float(np.linalg.norm(point(mech, snap, a) - point(mech, snap, b)))
               for _n, t, a, b in mech.joints if t in POINT_JOINTS)


def accuracy_quantity(mech: Mechanism, snap: dict) -> np.ndarray:
    """Four-bar: crank angle (deg, in (−180, 180]); chain: tip position; quarter car: chassis height."""
    if mech.name == "peer-four-bar":
        B = point(mech, snap, "crank.B")
        return np.array([np.degrees(np.arctan2(B[2], B[0]))])
    if mech.name == "peer-chain":
        return point(mech, snap, "rod9.bottom")
    return np.array([snap["chassis"][0][2]])


def accuracy_error(mech: Mechanism, value: np.ndarray, ref: np.ndarray) -> float:
    d = np.asarray(value) - np.asarray(ref)
    if mech.name == "peer-four-bar":
        d = (d + 180.0) % 360.0 - 180.0  # angles: the difference modulo 360°
    return float(np.linalg.norm(d))


def rtmbs_snapshot(mech: Mechanism, q, qd) -> dict:
    """Snapshot of rtmbs coordinates (Euler parameters): ω = 2 E(p) ṗ."""
    from rtmbs.models.peers import rotation_matrix

    s = mech.system
    snap = {}
    for k, name in enumerate(s.body_names):
        a = s.body_qadr[k]
        p, pd = q[a + 3:a + 7], qd[a + 3:a + 7]
        e0, e1, e2, e3 = p
        E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
        R = rotation_matrix(s.body_rtype[k], np.asarray(p, float))
        snap[name] = (np.array(q[a:a + 3]), R, np.array(qd[a:a + 3]), 2.0 * E @ pd)
    return snap
