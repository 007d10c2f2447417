"""Where a car's understeer gradient comes from: the ISO 4138 constant-radius gradient K split
into the contributions listed by Gillespie (1992, *Fundamentals of Vehicle Dynamics*, ch. 6:
tyres, lateral load transfer, camber, roll steer, lateral-force compliance steer, aligning
torque) and Milliken & Milliken (1995, *Race Car Vehicle Dynamics*, ch. 5).

The split is read from one constant-radius run, not from runs that switch parts off. With the
road-wheel steer angles of the front and rear axle relative to the chassis δ_f, δ_r (+ left,
measured from the wheels' spin axes) and the axles' slip angles α_f, α_r (the magnitudes a left
turn needs), the single-track kinematics give (Gillespie 1992, eq. 6-4 with rear steer)

    δ_cmd − L r/v = (δ_cmd − δ_f) + δ_r + (α_f − α_r)    (small angles),

δ_cmd = handwheel / steering ratio. Each term's slope against a_y = v r is one part of K:

* ``tyres``: W_f/C_f − W_r/C_r, the axles' cornering compliances at the loads of the straight
  run before the circle (Gillespie 1992, eq. 6-13: :class:`.single_track.SingleTrack`);
* ``load transfer, camber, tyre nonlinearity``: the slope of α_f − α_r less the tyre term;
* ``steering compliance``: δ_cmd less the steer the rack's travel relative to the chassis gives
  (column torsion bar, rack mounts), split into the part of the front aligning torques
  (Σ M_z,f times the steering compliance at the road wheels, from the column's and mounts' rates)
  and the rest (lateral forces acting on the mechanical trail);
* ``front roll and compliance steer, geometry``: the rack's steer less δ_f (bump/roll steer,
  Ackermann; with bushings also their lateral-force compliance steer); ``rear roll and
  compliance steer``: δ_r (the same for the rear axle).

The parts add up to K up to the small-angle error of the identity (reported as ``closure``).
"""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError

G = 9.81
#: the order of the parts in a breakdown
PARTS = ("tyres", "load transfer, camber, tyre nonlinearity", "aligning-torque compliance",
         "lateral-force steering compliance", "front roll and compliance steer, geometry", "rear roll and compliance steer")


def _rot(q, a):
    e0, e1, e2, e3 = q[..., a + 3], q[..., a + 4], q[..., a + 5], q[..., a + 6]
    return 2.0 * np.stack([
        np.stack([e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2], -1),
        np.stack([e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1], -1),
        np.stack([e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5], -1)], -2)


def _local(system, res, body):
    """Rotation matrices of ``body`` relative to the chassis at every saved time."""
    names = list(system.body_names)
    ac, ab = system.body_qadr[names.index("chassis")], system.body_qadr[names.index(body)]
    Ac, Ab = _rot(res.q, ac), _rot(res.q, ab)
    return np.einsum("kji,kjl->kil", Ac, Ab), Ac


def _steer(system, model, res, wheel):
    """Steer angle (rad, + left) of ``wheel`` relative to the chassis: the heading of its spin
    axis (pointing left) in chassis axes."""
    R, _ = _local(system, res, wheel)
    b = model.body(wheel)
    # the spin axis in wheel axes: the wheel's design spin axis (vehicle frame) rotated back
    A0 = b.orientation.as_matrix() if b.orientation else np.eye(3)
    s0 = A0.T @ _spin_left(model, wheel)
    a = R @ s0
    return np.arctan2(-a[:, 0], a[:, 1])


def _spin_left(model, wheel):
    j = next(j for j in model.joints if j.name == wheel.replace("_wheel", "_wheel_bearing"))
    body, mk = j.marker_j.split(".")
    m = next(k for k in model.body(body).markers if k.name == mk)
    z = np.asarray(m.orientation.z_axis if m.orientation else (0.0, 0.0, 1.0), float)
    if m.frame != "global":
        b = model.body(body)
        z = (b.orientation.as_matrix() if b.orientation else np.eye(3)) @ z
    return z / np.linalg.norm(z)


def lateral_travel(system, model, res, body: str = "rack"):
    """The travel of ``body`` (the rack, the rack housing) relative to the chassis along the
    chassis' y axis from its design position (m, + left), at every saved time."""
    names = list(system.body_names)
    ac, ar = system.body_qadr[names.index("chassis")], system.body_qadr[names.index(body)]
    _, Ac = _local(system, res, body)
    d = res.q[:, ar:ar + 3] - res.q[:, ac:ac + 3]
    d0 = np.asarray(model.body(body).position) - np.asarray(model.body("chassis").position)
    return np.einsum("kji,kj->ki", Ac, d)[:, 1] - d0[1]


def steering_compliance_at_wheels(model, ratio: float, steering_ratio: float) -> float:
    """Steer of the front road wheels (rad) per N m of steer-axis torque on the axle, the
    handwheel held: the column (torsion bar k_t (1 + G), seen through the steering ratio) in
    series with the rack mounts (seen through the rack's travel per road-wheel radian,
    ``ratio`` · ``steering_ratio``); 0 for rigid steering."""
    c = 0.0
    for f in model.forces:
        if f.name == "steering_column":
            c += 1.0 / (f.stiffness * steering_ratio ** 2)
        elif f.name == "rack_mount":
            c += 1.0 / (f.stiffness[2] * (ratio * steering_ratio) ** 2)
    return c


def _slope(x, y):
    return float(np.polyfit(x, y, 1)[0])


def breakdown(res, system, model, ay_range=(1.0, 4.0)) -> dict:
    """The parts of the understeer gradient (deg/g) of a constant-radius run ``res``
    (:func:`rtmbs.manoeuvres.events.steady_state_circular` of ``system`` built from ``model``)
    over ``ay_range`` (m/s²): ``total`` (as :func:`.events.understeer_gradient`), each of
    :data:`PARTS`, ``closure`` (total − Σ parts) and the roll gradient (deg/g)."""
    from ..analysis.kc import pinion_ratio
    from .car import _tyre_props
    from .single_track import SingleTrack, cornering_stiffness

    o, meta = res.outputs, res.meta
    v, r = o["chassis.speed"], o["chassis.yaw_rate"]
    ay = v * r
    m = (res.t > meta["settle"]) & (ay >= ay_range[0]) & (ay <= ay_range[1])
    if m.sum() < 10:
        raise SolverError(f"breakdown: fewer than 10 points with a_y in {ay_range} m/s²")
    sr, L = meta["steering_ratio"], meta["wheelbase"]
    d_cmd = o["driver.handwheel"] / sr
    deg = math.degrees(1.0) * G

    def k(y):
        return _slope(ay[m], y[m]) * deg

    total = k(d_cmd - L * r / v)
    sign = 1.0 if np.mean(o["fl_tyre.alpha"][m]) > 0 else -1.0  # the left turn's slip is > 0
    a_f = sign * 0.5 * (o["fl_tyre.alpha"] + o["fr_tyre.alpha"])
    a_r = sign * 0.5 * (o["rl_tyre.alpha"] + o["rr_tyre.alpha"])
    d_f = 0.5 * (_steer(system, model, res, "fl_wheel") + _steer(system, model, res, "fr_wheel"))
    d_r = 0.5 * (_steer(system, model, res, "rl_wheel") + _steer(system, model, res, "rr_wheel"))
    ratio = pinion_ratio(model)
    d_rack = lateral_travel(system, model, res) / (ratio * sr) if ratio else d_cmd
    # tyres at the axle loads of the first second (the car still on the 20 m lead-in, straight)
    props = _tyre_props(model)
    s0 = res.t < 1.0
    fz = {c: float(np.mean(o[f"{c}_tyre.Fz"][s0])) for c in ("fl", "fr", "rl", "rr")}
    Wf, Wr = fz["fl"] + fz["fr"], fz["rl"] + fz["rr"]
    vx = float(np.mean(v[m]))
    Cf = sum(cornering_stiffness(props, fz[c], vx) for c in ("fl", "fr"))
    Cr = sum(cornering_stiffness(props, fz[c], vx) for c in ("rl", "rr"))
    tyres = SingleTrack(Wf / G, Wr / G, Cf, Cr, L).K_deg_per_g
    steer_c = k(d_cmd - d_rack)
    mz = props.evaluate(np.concatenate([o["fl_tyre.Fz"], o["fr_tyre.Fz"]]),
                        np.concatenate([o["fl_tyre.kappa"], o["fr_tyre.kappa"]]),
                        np.concatenate([o["fl_tyre.alpha"], o["fr_tyre.alpha"]]),
                        np.concatenate([o["fl_tyre.gamma"], o["fr_tyre.gamma"]]))["Mz"]
    mz_f = mz[:len(v)] + mz[len(v):]
    c_w = steering_compliance_at_wheels(model, ratio or 0.0, sr)
    at = abs(k(mz_f)) * c_w
    parts = {"tyres": tyres, "load transfer, camber, tyre nonlinearity": k(a_f - a_r) - tyres,
             "aligning-torque compliance": at, "lateral-force steering compliance": steer_c - at,
             "front roll and compliance steer, geometry": k(d_rack - d_f),
             "rear roll and compliance steer": k(d_r)}
    roll = _roll(system, res)
    return {"total": total, **parts, "closure": total - sum(parts.values()),
            "roll_gradient_deg_per_g": k(roll), "front_aligning_torque_N_m_per_g": abs(k(mz_f))
            / math.degrees(1.0), "steering_compliance_deg_per_kN_m": math.degrees(c_w) * 1e3,
            "axle_loads_N": (Wf, Wr), "ay_range_m_s2": tuple(ay_range)}


def _roll(system, res):
    """The chassis' roll angle (rad, ISO 8855: + about x, the right side down, as in a left
    turn): asin of the vertical component of its y axis."""
    names = list(system.body_names)
    A = _rot(res.q, system.body_qadr[names.index("chassis")])
    return np.arcsin(np.clip(A[:, 2, 1], -1.0, 1.0))


def table(parts: dict) -> str:
    """A Markdown table of :func:`breakdown`'s parts (deg/g)."""
    rows = ["| part | deg/g |", "| --- | --- |"]
    rows += [f"| {p} | {parts[p]:+.2f} |" for p in PARTS]
    rows += [f"| sum of the parts | {sum(parts[p] for p in PARTS):+.2f} |",
             f"| **understeer gradient (ISO 4138)** | **{parts['total']:+.2f}** |"]
    return "\n".join(rows)
