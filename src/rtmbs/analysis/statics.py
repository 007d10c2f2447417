"""Static equilibrium of a car on its four tyres on a flat road (as Adams Car's static
equilibrium): corner loads, ride heights, spring and tyre deflections, and the spring preloads
that give a target ride height.

The solve is :func:`rtmbs.assembly.static_equilibrium` (Newton on Q(q, 0) − Φqᵀλ = 0, Φ = 0) on
:func:`~rtmbs.vehicle.build.vehicle.held_for_statics` (chassis x, y, yaw and the wheel spins
held: a car at rest has no stiffness there; their multipliers vanish at the equilibrium).

Definitions (ISO 8855: x forward, y left, z up; SI units):

* corner load Fz: the tyre's vertical force (N); axle load: the sum of an axle's two;
* tyre deflection: the tyre element's radial deflection ``rho`` (m);
* spring deflection: compression from the free length, L0 − L (m); the change from design,
  L_design − L (m, + the spring shortened); spring force k (L0 − L) (N, + compressed);
* ride height of an axle: height above the road of the chassis point that sits at the axle's
  design wheel centre (x of the axle, y = 0, z of the wheel centre at design): the design hub
  height at design, lower by the car's sag.
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from ..assembly import assemble_positions, static_equilibrium
from ..errors import AssemblyError, ModelError
from ..model.description import Model
from ..protocol import EVAL_PHIQ, EVAL_Q
from ..system import compile_model
from ..tolerances import MODEL_RANK_RTOL
from ..vehicle.build.vehicle import DesignWarning, held_for_statics

CORNERS = ("fl", "fr", "rl", "rr")
#: an axle farther than this from its design ride height at rest is warned about (m)
MAX_SAG_M = 0.03
AXLE_CORNERS = {"front": ("fl", "fr"), "rear": ("rl", "rr")}


def _corners(model: Model) -> dict:
    """tag -> {wheel, tyre, spring (Force or None)} of the corners the model has."""
    forces = {f.name: f for f in model.forces}
    bodies = {b.name for b in model.bodies}
    out = {}
    for c in CORNERS:
        if f"{c}_wheel" in bodies and f"{c}_tyre" in forces:
            out[c] = {"wheel": f"{c}_wheel", "tyre": forces[f"{c}_tyre"],
                      "spring": forces.get(f"{c}_spring")}
    if not out:
        raise ModelError(model.name, "not a car: no corner has a wheel and a tyre "
                         "(fl_wheel, fl_tyre ...)")
    return out


def _marker_global(system, q, ref: str) -> np.ndarray:
    body = ref.split(".", 1)[0]
    s = np.asarray(system.markers[ref].s, float)
    if body == "ground":
        return s
    names = list(system.coordinate_names)
    i = names.index(f"{body}.x")
    p = q[i + 3:i + 7]
    e0, e = p[0], p[1:]
    ex = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
    A = (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * ex)
    return q[i:i + 3] + A @ s


def _chassis_point(system, q, q0, point0) -> np.ndarray:
    """Where the chassis point that was at ``point0`` (global, at q0) is at q."""
    names = list(system.coordinate_names)
    i = names.index("chassis.x")

    def pose(qq):
        p = qq[i + 3:i + 7]
        e0, e = p[0], p[1:]
        ex = np.array([[0, -e[2], e[1]], [e[2], 0, -e[0]], [-e[1], e[0], 0]])
        return qq[i:i + 3], (2 * e0 * e0 - 1) * np.eye(3) + 2 * (np.outer(e, e) + e0 * ex)

    r0, A0 = pose(q0)
    r, A = pose(q)
    return r + A @ (A0.T @ (np.asarray(point0, float) - r0))


def _reduced_statics(system, q, tol: float = 1e-9, max_iter: int = 40):
    """Static equilibrium by Newton on Nᵀ Q(q) = 0 over the null space N of Φq (the forces
    projected on the free directions vanish, so Q = Φqᵀλ), the reduced stiffness Nᵀ ∂Q/∂q N by
    central differences, the positions re-assembled after each step (as the K&C rig's statics,
    rtmbs.analysis.kc). For stiff bushings, where the full (q, λ) Newton stalls."""
    ws = system.workspace()
    zero = np.zeros(system.n)
    g = np.zeros(1)
    for _ in range(max_iter):
        q = assemble_positions(system, q)
        system.evaluate(0.0, q, zero, ws, EVAL_Q | EVAL_PHIQ)
        _, sv, vt = np.linalg.svd(ws.phiq)
        N = vt[int((sv > sv[0] * MODEL_RANK_RTOL).sum()):].T
        g = N.T @ ws.Q
        if np.abs(g).max() < tol * max(1.0, np.abs(ws.Q).max()):
            return q
        K = np.empty((system.n, N.shape[1]))
        for k in range(N.shape[1]):
            e = 1e-7
            system.evaluate(0.0, q + e * N[:, k], zero, ws, EVAL_Q)
            qp = ws.Q.copy()
            system.evaluate(0.0, q - e * N[:, k], zero, ws, EVAL_Q)
            K[:, k] = (qp - ws.Q) / (2 * e)
        q = q - N @ np.linalg.solve(N.T @ K, g)
    raise AssemblyError(f"static equilibrium of '{system.name}' not found: projected force "
                        f"{np.abs(g).max():.3g} N after {max_iter} Newton iterations")


def vehicle_statics(model: Model) -> dict:
    """The static equilibrium of the car ``model`` on a flat road: a dict of plain numbers
    (SI units; the keys name them), see the module's definitions."""
    corners = _corners(model)
    if len(corners) < 4:
        raise ModelError(model.name, "statics needs a car on four tyres (fl, fr, rl, rr); it has "
                         f"{', '.join(corners)}: a one-axle vehicle stands on an axle rig "
                         "(rtmbs kc)")
    held = compile_model(held_for_statics(model))
    q0 = held.initial_state().q
    try:
        q, _ = static_equilibrium(held, q0)
    except AssemblyError:  # stiff bushings: the full KKT Newton stalls; the reduced one does not
        q = _reduced_statics(held, q0)
    out = np.zeros(len(held.output_names))
    held.outputs(0.0, q, np.zeros(held.n), out)
    o = dict(zip(held.output_names, out))
    g = float(np.linalg.norm(model.gravity))
    mass = float(sum(b.mass for b in model.bodies))
    res = {"model": model.name, "mass_kg": mass, "weight_N": mass * g, "corners": {}, "axles": {}}
    for c, cn in corners.items():
        wc0 = np.asarray(model.body(cn["wheel"]).position, float)
        row = {"Fz_N": o[f"{c}_tyre.Fz"], "tyre_deflection_m": o[f"{c}_tyre.rho"],
               "wheel_centre_height_m": o[f"{cn['wheel']}.z"],
               "wheel_centre_change_m": o[f"{cn['wheel']}.z"] - wc0[2]}
        sp = cn["spring"]
        if sp is not None and sp.free_length is not None:
            k = float(np.asarray(sp.stiffness, float))
            L = float(np.linalg.norm(_marker_global(held, q, sp.marker_j) - _marker_global(held, q, sp.marker_i)))
            Ld = float(np.linalg.norm(_marker_global(held, q0, sp.marker_j) - _marker_global(held, q0, sp.marker_i)))
            row.update({"spring_rate_N_per_m": k, "spring_free_length_m": float(sp.free_length),
                        "spring_length_m": L, "spring_deflection_m": float(sp.free_length) - L,
                        "spring_change_from_design_m": Ld - L,
                        "spring_force_N": k * (float(sp.free_length) - L),
                        "spring_preload_at_design_N": k * (float(sp.free_length) - Ld)})
        res["corners"][c] = row
    ch0 = np.asarray(model.body("chassis").position, float)
    res["chassis"] = {"pitch_deg": math.degrees(o["vehicle.pitch"]),
                      "roll_deg": math.degrees(o["vehicle.roll"]),
                      "cm_height_m": o["chassis.z"], "cm_change_m": o["chassis.z"] - ch0[2]}
    total = sum(r["Fz_N"] for r in res["corners"].values())
    res["total_Fz_N"] = total
    for axle, tags in AXLE_CORNERS.items():
        if not all(t in corners for t in tags):
            continue
        load = sum(res["corners"][t]["Fz_N"] for t in tags)
        wcs = [np.asarray(model.body(corners[t]["wheel"]).position, float) for t in tags]
        hub = np.array([0.5 * (wcs[0][0] + wcs[1][0]), 0.0, 0.5 * (wcs[0][2] + wcs[1][2])])
        h = float(_chassis_point(held, q, q0, hub)[2])
        res["axles"][axle] = {"load_N": load, "load_share": load / total if total else math.nan,
                              "ride_height_m": h, "design_ride_height_m": float(hub[2]),
                              "sag_m": float(hub[2]) - h,
                              "track_m": abs(wcs[0][1] - wcs[1][1]), "x_m": float(hub[0])}
        sag = float(hub[2]) - h
        if abs(sag) > MAX_SAG_M:
            warnings.warn(f"{model.name}: the {axle} axle {'sags' if sag > 0 else 'rises'} "
                          f"{1e3 * abs(sag):.0f} mm from its design ride height at rest (more "
                          f"than {1e3 * MAX_SAG_M:.0f} mm): spring preload missing or wrong? "
                          f"(rtmbs statics --ride-height {axle}=design gives it)", DesignWarning,
                          stacklevel=2)
    return res


def preloads_for_ride_height(model: Model, target: dict, tol: float = 1e-4,
                             max_iter: int = 8) -> tuple[dict, dict]:
    """The spring preloads at design (N, one per axle, both sides alike) that put each axle of
    ``target`` (axle -> ride height, m; "design" for its design ride height) at that ride height:
    a quasi-Newton iteration on the preloads (the 2 × 2 Jacobian by finite differences once).
    Returns ({axle: preload N, free length m}, the statics of the adjusted car)."""
    corners = _corners(model)
    axles = [a for a in ("front", "rear") if a in target]
    for a in axles:
        for t in AXLE_CORNERS[a]:
            if t not in corners or corners[t]["spring"] is None:
                raise ModelError(f"--ride-height {a}", f"the car has no {t}_spring to preload")
    base = vehicle_statics(model)
    goal = {a: base["axles"][a]["design_ride_height_m"] if target[a] == "design" else float(target[a])
            for a in axles}
    for a, h in goal.items():
        if not (math.isfinite(h) and 0.0 < h < 2.0):
            raise ModelError(f"--ride-height {a}", f"expected a height above the road in metres "
                             f"(0 < h < 2), got {h:g}")
    p = np.array([base["corners"][AXLE_CORNERS[a][0]]["spring_preload_at_design_N"] for a in axles])

    def solve(pre):
        m = model.model_copy(deep=True)
        forces = {f.name: f for f in m.forces}
        for a, P in zip(axles, pre):
            for t in AXLE_CORNERS[a]:
                sp = forces[f"{t}_spring"]
                k = float(np.asarray(sp.stiffness, float))
                Ld = sp.free_length - base["corners"][t]["spring_preload_at_design_N"] / k
                sp.free_length = float(Ld + P / k)
        st = vehicle_statics(m)
        return st, np.array([st["axles"][a]["ride_height_m"] - goal[a] for a in axles]), m

    st, r, m = solve(p)
    J = np.empty((len(axles), len(axles)))
    for k in range(len(axles)):
        dp = np.zeros(len(axles))
        dp[k] = 100.0  # N
        J[:, k] = (solve(p + dp)[1] - r) / dp[k]
    for _ in range(max_iter):
        if np.abs(r).max() < tol:
            break
        p = p - np.linalg.solve(J, r)
        st, r, m = solve(p)
    else:
        raise ModelError("--ride-height", f"no preload reached the target within {tol * 1e3:g} mm "
                         f"after {max_iter} iterations (residual {1e3 * np.abs(r).max():.3g} mm)")
    forces = {f.name: f for f in m.forces}
    result = {a: {"preload_N": float(P),
                  "free_length_m": float(forces[f"{AXLE_CORNERS[a][0]}_spring"].free_length),
                  "ride_height_m": goal[a]} for a, P in zip(axles, p)}
    return result, st


#: bodies of a corner counted in full in its unsprung mass; every other body of the corner
#: (arms, links, struts, bar halves, shafts: one end on the chassis) counts half
UNSPRUNG_FULL = ("wheel", "upright", "knuckle")


def unsprung_masses(model: Model) -> dict:
    """Unsprung mass per corner (kg): the wheel and upright (knuckle) in full, the other bodies
    of the corner (named ``<corner>_...``) half (Milliken & Milliken 1995, ch. 16)."""
    out = {}
    for c in _corners(model):
        roles = {b.name[3:]: b.mass for b in model.bodies if b.name.startswith(f"{c}_")}
        out[c] = float(sum(m if r in UNSPRUNG_FULL else 0.5 * m for r, m in roles.items()))
    return out


def vehicle_info(model: Model, statics: dict | None = None) -> dict:
    """The car's mass, centre of mass, wheelbase, tracks, axle loads, unsprung masses, wheel
    rates and ride frequencies f = √(k_w / m_s) / 2π (k_w: the ``rtmbs kc`` wheel rate at design,
    both wheels of the axle together; m_s: the corner's static load / g less its unsprung mass),
    kinematic roll-centre heights (at design, above the road) and the steering ratio on centre
    (K&C rig). SI units, keys ending in their unit."""
    from .kc import kc_sweep

    corners = _corners(model)
    st = statics or vehicle_statics(model)
    mass = np.array([b.mass for b in model.bodies])
    pos = np.array([b.position for b in model.bodies], float)
    g = float(np.linalg.norm(model.gravity))
    cm = mass @ pos / mass.sum()
    info = {"mass_kg": float(mass.sum()), "centre_of_mass_m": [float(v) for v in cm],
            "unsprung_mass_kg": unsprung_masses(model), "axles": {}}
    wc = {c: np.asarray(model.body(cn["wheel"]).position, float) for c, cn in corners.items()}
    if "fl" in wc and "rl" in wc:
        info["wheelbase_m"] = float(wc["fl"][0] - wc["rl"][0])
    names = {"fl": "front-left", "rl": "rear-left"}
    for axle, (left, right) in AXLE_CORNERS.items():
        if left not in corners or right not in corners:
            continue
        a = st["axles"][axle]
        sweep = kc_sweep(model, names[left], travel=np.array([-0.005, 0.0, 0.005]),
                         rack=np.array([-2e-4, 0.0, 2e-4]), mode="parallel")
        kc, tab = sweep.summary, sweep.travel
        kw = float(kc["wheel_rate_N_per_m"])
        # kinematic roll centre: the contact point moves out by s per unit bump, so the wheel's
        # instant centre lies on the line rising at slope s from the contact point inboard;
        # it crosses the centre line at (t/2) s (Milliken & Milliken 1995, ch. 17)
        slope = float((tab["track_change_contact"][2] - tab["track_change_contact"][0])
                      / (tab["travel"][2] - tab["travel"][0]))
        ms = st["corners"][left]["Fz_N"] / g - info["unsprung_mass_kg"][left]
        row = {"track_m": float(abs(wc[left][1] - wc[right][1])), "load_N": a["load_N"],
               "load_share": a["load_share"], "wheel_rate_N_per_m": kw,
               "corner_sprung_mass_kg": float(ms),
               "roll_centre_height_m": 0.5 * float(abs(wc[left][1] - wc[right][1])) * slope,
               "ride_frequency_Hz": math.sqrt(kw / ms) / (2 * math.pi) if kw > 0 and ms > 0 else math.nan}
        if "steering_ratio" in kc:
            info["steering_ratio"] = float(kc["steering_ratio"])
        info["axles"][axle] = row
    return info
