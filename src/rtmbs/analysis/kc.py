"""Suspension kinematics and compliance (K&C) of one corner of a vehicle model.

A virtual K&C rig (offline, quasi-static): the chassis is fixed to the ground, gravity is off and
the tyres are removed (no tyre forces); a ``motion`` driver per corner prescribes the wheel-centre
height relative to the chassis (Carpinelli 2015 §4.2.2 driving constraints), another holds every wheel's
spin, and the steering rack is held by its own driver. Each point of a sweep is a position
assembly Φ(q) = 0 (``rtmbs.assembly``, continued from the previous point); the force at the wheel
centre is the reaction of the travel driver from the multipliers of the static balance
Φqᵀλ = Q(q) (Carpinelli 2016 eq. 1 with q̇ = q̈ = 0). A model whose corner keeps degrees of freedom
under these drivers (bushings) is brought to its static equilibrium at each point instead.

Conventions (ISO 8855, vehicle axes x forward, y left, z up): travel + up (bump); camber
negative = top of the wheel inboard; toe-in positive (front of the wheel inboard); steer angle =
yaw of the wheel's heading, + to the left; track change + outboard; force Fz + up (the load a
tyre would carry).
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from ..assembly import assemble_positions
from ..errors import AssemblyError, ModelError
from ..model.description import Model
from ..protocol import EVAL_PHIQ, EVAL_Q
from ..system import compile_model
from ..tolerances import MODEL_RANK_RTOL

CORNERS = {"front-left": "fl", "front-right": "fr", "rear-left": "rl", "rear-right": "rr"}
MODES = ("parallel", "single")

#: columns of the wheel-travel table: name -> unit
TRAVEL_COLUMNS = {"travel": "mm", "camber": "deg", "toe_in": "deg", "steer": "deg",
                  "track_change": "mm", "track_change_contact": "mm", "Fz": "N",
                  "camber_gain": "deg/m", "bump_steer": "deg/m", "wheel_rate": "N/m"}
#: columns of the rack-travel table
STEER_COLUMNS = {"rack_travel": "mm", "steer": "deg", "steer_other": "deg", "steer_gain": "deg/mm"}
#: added to the rack-travel table when a pinion drives the rack (handwheel + = left turn)
PINION_COLUMNS = {"handwheel": "deg", "steering_ratio": "-"}


@dataclass
class KCResult:
    """Tables of one corner: ``travel`` (column -> array, units in TRAVEL_COLUMNS) and, for a
    steered corner, ``steering`` (STEER_COLUMNS); ``summary`` holds the values at design."""

    model: str
    corner: str
    mode: str
    travel: dict
    steering: dict | None = None
    summary: dict = field(default_factory=dict)


def corner_tag(corner: str) -> str:
    """``front-left`` -> ``fl``; a bad name raises ModelError naming ``--corner``."""
    if corner not in CORNERS:
        from ..errors import did_you_mean

        raise ModelError("--corner", f"unknown corner '{corner}'" + did_you_mean(corner, CORNERS))
    return CORNERS[corner]


def rig_model(model: Model) -> Model:
    """A copy of a vehicle model on the K&C rig: chassis fixed, gravity off, no tyres; channel
    inputs ``kc_<tag>_travel`` drive each wheel centre's height relative to the chassis (m, + up),
    every wheel's spin is held and the rack (if any) follows ``kc_rack`` (m, + left)."""
    m = model.model_copy(deep=True)
    m.gravity = (0.0, 0.0, 0.0)
    tyres = {f.name for f in m.forces if f.type == "tyre"}
    m.forces = [f for f in m.forces if f.type != "tyre"]
    m.outputs = [o for o in m.outputs if o.split(".")[0] not in tyres]
    ch = m.body("chassis")
    m.add_marker("ground", "kc_chassis", ch.position)
    m.add_marker("chassis", "kc_fix", ch.position, frame="global")
    m.add_joint("kc_chassis_fixed", "fixed", "ground.kc_chassis", "chassis.kc_fix")
    found = []
    for tag in CORNERS.values():
        bearing = next((j for j in m.joints if j.name == f"{tag}_wheel_bearing"), None)
        if bearing is None:
            continue
        found.append(tag)
        body, mk = bearing.marker_i.split(".")
        wc = _marker_global(m, body, mk)
        m.add_marker("chassis", f"kc_{tag}_wc", tuple(wc), frame="global")
        m.add_input(f"kc_{tag}_travel", "channel", value=0.0)
        m.add_joint(f"kc_{tag}_travel", "motion", f"chassis.kc_{tag}_wc", bearing.marker_i,
                    dof="translation", function=f"kc_{tag}_travel")
        m.add_joint(f"kc_{tag}_spin", "motion", bearing.marker_i, bearing.marker_j, dof="rotation",
                    function=0.0)
    if not found:
        raise ModelError(model.name, "no wheel bearings '<fl|fr|rl|rr>_wheel_bearing': not a "
                         "vehicle built by rtmbs.vehicle.build")
    if any(j.name == "pinion_angle" for j in m.joints):
        # a pinion-driven rack: the rig drives the rack's travel instead, the coupler turns the pinion
        m.joints = [j for j in m.joints if j.name != "pinion_angle"]
        m.add_joint("rack_travel", "motion", "chassis.rack", "rack.rack", dof="translation",
                    function=0.0)
    for j in m.joints:
        if j.name == "rack_travel":
            m.add_input("kc_rack", "channel", value=0.0)
            j.function = "kc_rack"
    return m


def pinion_ratio(model: Model) -> float | None:
    """Rack travel per pinion radian (m/rad) of a pinion-driven rack (the ``steering`` coupler
    between ``rack_slide`` and ``pinion_pivot``), else None."""
    c = next((c for c in getattr(model, "couplers", []) if c.name == "steering"), None)
    if c is None or list(c.joints) != ["rack_slide", "pinion_pivot"] or c.ratio is None:
        return None
    return float(c.ratio)


def _marker_global(m: Model, body: str, name: str) -> np.ndarray:
    b = m.body(body)
    mk = next(k for k in b.markers if k.name == name)
    s = np.asarray(mk.position, float)
    if mk.frame == "global":
        return s
    A = b.orientation.as_matrix() if b.orientation else np.eye(3)
    return np.asarray(b.position, float) + A @ s


class _Rig:
    """The compiled rig and what it reads of one corner: the wheel bearing's marker on the
    upright (origin = wheel centre, z = spin axis pointing left)."""

    def __init__(self, model: Model, tag: str):
        self.model = rig_model(model)
        if not any(j.name == f"kc_{tag}_travel" for j in self.model.joints):
            raise ModelError("--corner", f"the model '{model.name}' has no corner '{tag}'")
        self.tag = tag
        self.sign = 1.0 if tag[1] == "l" else -1.0
        self.system = s = compile_model(self.model)
        bearing = next(j for j in self.model.joints if j.name == f"{tag}_wheel_bearing")
        self.marker = s.markers[bearing.marker_i]
        self.q = s._q0.copy()
        self.design = self.read(self.q)
        self.radius = self.design["wc"][2]  # wheel-centre height above the road at design

    def set(self, name: str, value: float) -> None:
        self.system.set_input(name, value)

    def solve(self) -> np.ndarray:
        """Positions at the current inputs (from the previous point) and the multipliers."""
        s = self.system
        self.q = assemble_positions(s, self.q)
        ws = s.workspace()
        s.evaluate(0.0, self.q, np.zeros(s.n), ws, EVAL_Q | EVAL_PHIQ)
        sv = np.linalg.svd(ws.phiq, compute_uv=False)
        if int((sv > sv[0] * MODEL_RANK_RTOL).sum()) < s.n:  # compliant (bushings): statics
            self._statics()
            s.evaluate(0.0, self.q, np.zeros(s.n), ws, EVAL_Q | EVAL_PHIQ)
        return np.linalg.lstsq(ws.phiq.T, ws.Q, rcond=None)[0]

    def _statics(self, tol: float = 1e-9, max_iter: int = 30) -> None:
        """Static equilibrium of the directions the drivers leave free (bushings): Newton on
        Nᵀ Q(q) = 0 over the null space N of Φq (the projected forces vanish, so Q = Φqᵀλ),
        the stiffness Nᵀ ∂Q/∂q N by central differences, re-assembling after each step."""
        s = self.system
        ws = s.workspace()
        zero = np.zeros(s.n)
        for _ in range(max_iter):
            self.q = assemble_positions(s, self.q)
            s.evaluate(0.0, self.q, zero, ws, EVAL_Q | EVAL_PHIQ)
            _, sv, vt = np.linalg.svd(ws.phiq)
            N = vt[int((sv > sv[0] * MODEL_RANK_RTOL).sum()):].T
            g = N.T @ ws.Q
            if np.abs(g).max() < tol * max(1.0, np.abs(ws.Q).max()):
                return
            K = np.empty((s.n, N.shape[1]))
            for k in range(N.shape[1]):
                e = 1e-7
                s.evaluate(0.0, self.q + e * N[:, k], zero, ws, EVAL_Q)
                qp = ws.Q.copy()
                s.evaluate(0.0, self.q - e * N[:, k], zero, ws, EVAL_Q)
                K[:, k] = (qp - ws.Q) / (2 * e)
            self.q = self.q - N @ np.linalg.solve(N.T @ K, g)
        raise AssemblyError(f"K&C rig of '{s.name}': no static equilibrium of the compliant "
                            f"directions after {max_iter} Newton iterations (projected force "
                            f"{np.abs(g).max():.3g})")

    def read(self, q, marker=None) -> dict:
        """Wheel centre (m) and spin axis (pointing outboard of this corner's side), global, of
        this corner's wheel or of the wheel of another bearing ``marker``."""
        mk = self.marker if marker is None else marker
        a = self.system.body_qadr[mk.body]
        A = _ep_matrix(q[a + 3:a + 7])
        return {"wc": q[a:a + 3] + A @ mk.s, "axis": self.sign * (A @ mk.C[:, 2])}

    def point(self) -> dict:
        lam = self.solve()
        r = self.read(self.q)
        o = r["axis"]
        sl = self.sign * o  # spin axis pointing left
        camber = -math.degrees(math.asin(o[2]))
        toe = math.degrees(math.atan2(o[0], self.sign * o[1]))
        steer = math.degrees(math.atan2(-sl[0], sl[1]))
        down = np.array([0.0, 0.0, -1.0])
        down = down - (down @ o) * o
        contact = r["wc"] + self.radius * down / np.linalg.norm(down)
        react = self.system.joint_reactions(self.q, np.zeros(self.system.n), 0.0, lam)
        return {"wc": r["wc"], "contact": contact, "camber": camber, "toe_in": toe,
                "steer": steer, "Fz": float(react[f"kc_{self.tag}_travel"][2])}


def _ep_matrix(p) -> np.ndarray:
    e0, e1, e2, e3 = p
    return 2.0 * np.array([
        [e0 * e0 + e1 * e1 - 0.5, e1 * e2 - e0 * e3, e1 * e3 + e0 * e2],
        [e1 * e2 + e0 * e3, e0 * e0 + e2 * e2 - 0.5, e2 * e3 - e0 * e1],
        [e1 * e3 - e0 * e2, e2 * e3 + e0 * e1, e0 * e0 + e3 * e3 - 0.5]])


def parse_range(text: str, option: str) -> np.ndarray:
    """``start:stop:count`` (metres) -> the points; ModelError names the option."""
    parts = text.split(":")
    try:
        if len(parts) != 3:
            raise ValueError
        a, b, n = float(parts[0]), float(parts[1]), int(parts[2])
    except ValueError:
        raise ModelError(option, f"expected START:STOP:COUNT (metres, COUNT an integer), got '{text}'") from None
    if not (math.isfinite(a) and math.isfinite(b)) or n < 3 or not a < 0.0 < b:
        raise ModelError(option, f"need START < 0 < STOP and COUNT >= 3, got '{text}'")
    return np.linspace(a, b, n)


def kc_sweep(model: Model, corner: str, travel=None, rack=None, mode: str = "parallel") -> KCResult:
    """K&C of one corner. ``travel``: wheel-centre travels (m, default −0.08…0.08 in 33 points);
    ``mode``: ``parallel`` (both wheels of the axle move together: an anti-roll bar does not
    twist) or ``single`` (the other wheel stays at design). ``rack``: rack travels (m, default
    −0.03…0.03 in 31 points) for the steering sweep of a corner whose tie rod hangs on the rack
    (wheel travel at design)."""
    tag = corner_tag(corner)
    if mode not in MODES:
        raise ModelError("--mode", f"unknown mode '{mode}' (known: {', '.join(MODES)})")
    z = np.linspace(-0.08, 0.08, 33) if travel is None else np.asarray(travel, float)
    if z.ndim != 1 or z.size < 3 or not np.all(np.diff(z) > 0):
        raise ModelError("--travel", "need at least 3 increasing travels")
    rig = _Rig(model, tag)
    other = tag[0] + ("r" if tag[1] == "l" else "l")
    moved = [tag] + ([other] if mode == "parallel" and other in _tags(rig.model) else [])
    wc0 = rig.design["wc"]
    start = rig.q.copy()
    pts = {}
    for zi in _walk(z, rig):
        for t in moved:
            rig.set(f"kc_{t}_travel", float(z[zi]))
        pts[zi] = rig.point()
    pts = [pts[k] for k in range(z.size)]
    rig.q = start
    for t in moved:
        rig.set(f"kc_{t}_travel", 0.0)
    design = rig.point()
    cp0 = design["contact"]
    wc = np.array([p["wc"] for p in pts])
    cp = np.array([p["contact"] for p in pts])
    tab = {"travel": 1e3 * (wc[:, 2] - wc0[2]),
           "camber": np.array([p["camber"] for p in pts]),
           "toe_in": np.array([p["toe_in"] for p in pts]),
           "steer": np.array([p["steer"] for p in pts]),
           "track_change": 1e3 * rig.sign * (wc[:, 1] - wc0[1]),
           "track_change_contact": 1e3 * rig.sign * (cp[:, 1] - cp0[1]),
           "Fz": np.array([p["Fz"] for p in pts])}
    tab["camber_gain"] = np.gradient(tab["camber"], z)
    tab["bump_steer"] = np.gradient(tab["toe_in"], z)
    tab["wheel_rate"] = np.gradient(tab["Fz"], z)
    res = KCResult(model.name, corner, mode, tab)
    k0 = int(np.argmin(np.abs(z)))
    res.summary = {"camber_deg": design["camber"], "toe_in_deg": design["toe_in"],
                   "Fz_N": design["Fz"], "camber_gain_deg_per_m": float(tab["camber_gain"][k0]),
                   "bump_steer_deg_per_m": float(tab["bump_steer"][k0]),
                   "wheel_rate_N_per_m": float(tab["wheel_rate"][k0]), "at_travel_mm": float(1e3 * z[k0])}
    tie = next((j for j in rig.model.joints if j.name == f"{tag}_tie_rod"), None)
    if tie is not None and not tie.marker_i.startswith("chassis.") and \
            any(i.name == "kc_rack" for i in rig.model.inputs):
        res.steering = _steer_sweep(rig, other, np.linspace(-0.03, 0.03, 31) if rack is None
                                    else np.asarray(rack, float), start)
        k = int(np.argmin(np.abs(res.steering["rack_travel"])))
        res.summary["steer_gain_deg_per_mm"] = float(res.steering["steer_gain"][k])
        r = pinion_ratio(model)
        if r is not None:
            # handwheel (pinion) angle of each rack travel; ratio = d(handwheel)/d(mean road wheel)
            st = res.steering
            st["handwheel"] = np.degrees(1e-3 * st["rack_travel"] / r)
            st["steering_ratio"] = np.gradient(st["handwheel"], 0.5 * (st["steer"] + st["steer_other"]))
            res.summary["steering_ratio"] = float(st["steering_ratio"][k])
            res.summary["rack_travel_per_turn_mm"] = float(2e3 * math.pi * abs(r))
    return res


def steering_ratio_on_centre(model: Model, rack: float = 2e-4, corner: str = "front-left") -> float:
    """On-centre steering ratio of a pinion-driven car: handwheel angle / mean road-wheel angle
    of the steered axle for rack travels ±``rack`` m about design (central difference), on the
    rig of :func:`kc_sweep` (chassis fixed, wheel-centre heights held at design: the ratio of a
    car standing on its wheels). A free car assembled at a handwheel angle (minimum-norm
    positions) lets the wheels move vertically as well, and through the bump steer that takes
    up part of the rack's travel: a larger ratio (sedan: 20.9 instead of 18.1)."""
    r = pinion_ratio(model)
    if r is None:
        raise ModelError("steering", f"the model '{model.name}' has no pinion-driven rack "
                         "(a 'steering' coupler between rack_slide and pinion_pivot)")
    rig = _Rig(model, corner_tag(corner))
    other = rig.tag[0] + ("r" if rig.tag[1] == "l" else "l")
    st = _steer_sweep(rig, other, np.array([-rack, 0.0, rack]), rig.q.copy())
    mean = np.radians(0.5 * (st["steer"] + st["steer_other"]))
    return float(2.0 * rack / r / (mean[2] - mean[0]))


def _tags(model: Model) -> set:
    return {i.name[3:5] for i in model.inputs if i.name.startswith("kc_") and i.name.endswith("_travel")}


def _walk(x, rig: _Rig):
    """Indices of x from the point nearest 0 outwards, each solve starting from the last one
    (the downward branch from the first point's solution)."""
    k = int(np.argmin(np.abs(x)))
    first = None
    for i in list(range(k, len(x))) + list(range(k - 1, -1, -1)):
        if i == k - 1:
            rig.q = first.copy()
        yield i
        if i == k:
            first = rig.q.copy()


def _steer_sweep(rig: _Rig, other: str, rack: np.ndarray, start) -> dict:
    """Road-wheel angles of the corner and of the other wheel of its axle against rack travel."""
    if rack.ndim != 1 or rack.size < 3 or not np.all(np.diff(rack) > 0):
        raise ModelError("--rack", "need at least 3 increasing rack travels")
    bearing = next(j for j in rig.model.joints if j.name == f"{other}_wheel_bearing")
    other_marker = rig.system.markers[bearing.marker_i]
    rows = {}
    rig.q = start.copy()
    for k in _walk(rack, rig):
        rig.set("kc_rack", float(rack[k]))
        p = rig.point()
        o = rig.read(rig.q, other_marker)["axis"] * rig.sign  # spin axis pointing left
        rows[k] = (p["steer"], math.degrees(math.atan2(-o[0], o[1])))
    rig.set("kc_rack", 0.0)
    rig.q = start.copy()
    steer = np.array([rows[k][0] for k in range(rack.size)])
    out = {"rack_travel": 1e3 * rack, "steer": steer,
           "steer_other": np.array([rows[k][1] for k in range(rack.size)])}
    out["steer_gain"] = np.gradient(steer, 1e3 * rack)
    return out


__all__ = ["kc_sweep", "rig_model", "pinion_ratio", "steering_ratio_on_centre", "PINION_COLUMNS", "KCResult", "CORNERS", "corner_tag", "parse_range"]
