"""Full-car identification and validation on the detailed sedan: Carpinelli 2015 §5.2.2-5.2.4, Table 5.3
(docs/concept.md "Table 5.3 on the sedan").

Pipeline (each step a function):

1. :func:`sedan_layout`: what the concept models take from the sedan (the paper's "assessed
   parameters"): sprung and unsprung masses and centres of mass, wheel centres, tyre. The
   paper splits the links' masses equally between sprung and unsprung;
2. the virtual measurement campaign, :func:`rtmbs.manoeuvres.campaign.run_campaign` (raw strokes,
   corner accelerations, speed);
3. :func:`reconstruct`: strokes low-passed at 25 Hz, corner accelerations high-passed at 0.5 Hz,
   a_x from the speed, wheel-centre heights by :func:`rtmbs.concept.measurement.reconstruct_wheel_centre`
   with the eq. 5.11 tyre-deflection correction;
4. :func:`longitudinal_inputs`: F_x per wheel and the rear drive torque from a_x (eqs. 5.6-5.10);
5. :func:`identify_car`: the 14 parameters of :data:`rtmbs.concept.models.CAR_PARAMS` on the
   5-body identification model driven by 3-4, fitted to the four measured strokes
   (:class:`StrokeSimulator`, stacked residual);
6. :func:`validate`: a Table 5.3 manoeuvre on the sedan (campaign with its road and brakes) and on
   the identified 12-DOF car driven open loop by the sedan's recorded torques; RMS errors of the
   chassis CG height and vertical velocity (the same material point on both), pitch and roll.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace

import numpy as np

from ..analysis import sensors as sn
from . import longitudinal as lo
from . import models as cm
from .measurement import lowpass, reconstruct_wheel_centre

CORNERS = cm.CORNERS
STROKES = tuple(f"s_{c}" for c in CORNERS)
#: a_x from the differentiated speed, low-passed (ours; the paper gives no filter)
AX_LP_HZ = 5.0
#: braking detected where the filtered a_x is below this (m/s²; coasting is about −0.1)
BRAKE_DETECT = -0.5
#: corner sensors above the design wheel centre, as the campaign's (CORNER_HEIGHT)
CORNER_HEIGHT = 0.25
#: rolling-resistance coefficient when the coast gives none in (0, F_R_MAX) (ours)
F_R_DEFAULT, F_R_MAX = 0.01, 0.05
#: Carpinelli 2015 Table 5.3 (manoeuvre: target km/h, brake front, brake rear N m per wheel, road)
TABLE_53 = {"I": (80.0, 200.0, 200.0, "A"), "II": (80.0, 300.0, 300.0, "C"),
            "III": (54.0, 310.0, 200.0, "A/B")}
SEED_ITERATIONS_53 = 21
#: parts of each sedan corner on the unsprung side: full and half (the paper's split)
UNSPRUNG_FULL = {"f": ("upright",), "r": ("knuckle",)}
UNSPRUNG_HALF = {"f": ("upper_arm", "lower_arm"),
                 "r": ("upper_arm", "leading_arm", "control_arm", "trailing_arm", "lower_arm",
                       "halfshaft")}


# -- 1. layout -------------------------------------------------------------------------------------
def _inertia_about(bodies, cg):
    """Inertia tensor (3, 3) about ``cg`` of [(mass, position, inertia 3x3 at design)]."""
    J = np.zeros((3, 3))
    for m, p, I in bodies:
        r = np.asarray(p, float) - cg
        J += np.asarray(I, float) + m * (r @ r * np.eye(3) - np.outer(r, r))
    return J


def sedan_layout(model=None) -> cm.CarLayout:
    """:class:`~rtmbs.concept.models.CarLayout` of a car built by ``rtmbs.vehicle.build`` (the
    rear-drive ``sedan-rwd`` by default): per corner the wheel (rim) and an arm of upright/knuckle + half
    of each link (+ half the half shaft at the rear), at their centres of mass; everything else
    sprung. ``sprung_inertia`` is the sprung parts' about their centre of mass (the reference
    the identified I_xx, I_yy compare to)."""
    if model is None:
        from ..vehicle.build.vehicle import SEDAN_RWD, load_vehicle_file

        model = load_vehicle_file(SEDAN_RWD)
    bodies = {b.name: b for b in model.bodies}
    share = {name: 1.0 for name in bodies}
    axles, offsets, wcs = {}, {}, {}
    for a in ("f", "r"):
        parts = [(f"{a}l_{k}", 1.0) for k in UNSPRUNG_FULL[a]]
        parts += [(f"{a}l_{k}", 0.5) for k in UNSPRUNG_HALF[a]]
        pts = [(bodies[n].mass * w, np.array(bodies[n].position, float),
                w * np.asarray(bodies[n].inertia, float)) for n, w in parts]
        m_arm = sum(p[0] for p in pts)
        cg = sum(p[0] * p[1] for p in pts) / m_arm
        J = _inertia_about(pts, cg)
        wheel = bodies[f"{a}l_wheel"]
        wc = np.array(wheel.position, float)
        Jw = np.asarray(wheel.inertia, float)
        axles[a] = cm.CornerMasses(sprung=0.0, arm=float(m_arm), arm_cg=tuple(cg),
                                   arm_inertia=tuple(float(x) for x in np.diag(J)),
                                   rim=float(wheel.mass),
                                   rim_inertia=(float(Jw[0, 0]), float(Jw[1, 1]), float(Jw[2, 2])))
        offsets[a] = (float(cg[0] - wc[0]), float(cg[2] - wc[2]))
        for side in "lr":
            c = a + side
            wcs[c] = tuple(float(x) for x in bodies[f"{c}_wheel"].position)
            share[f"{c}_wheel"] = 0.0
            for n, w in parts:
                share[n.replace(f"{a}l_", f"{c}_")] = 1.0 - w
    sprung = [(bodies[n].mass * w, np.array(bodies[n].position, float),
               w * np.asarray(bodies[n].inertia, float)) for n, w in share.items() if w > 0]
    ms = sum(p[0] for p in sprung)
    cg = sum(p[0] * p[1] for p in sprung) / ms
    J = _inertia_about(sprung, cg)
    tyre = next(f.tyre for f in model.forces if f.type == "tyre")
    obs = _observer(model)
    return cm.CarLayout(name=model.name, sprung_mass=float(ms), sprung_cg=tuple(float(x) for x in cg),
                        sprung_inertia=tuple(float(x) for x in np.diag(J)), axles=axles,
                        arm_offset=offsets, wheel_centres=wcs, tyre=tyre, tyre_kz=obs["K_tire"])


def _observer(model) -> dict:
    from ..manoeuvres.campaign import observer_parameters

    return observer_parameters(model)


# -- 3. reconstruction -------------------------------------------------------------------------------
@dataclass
class Reconstruction:
    """Filtered measurements and the reconstructed wheel-centre heights (absolute, m) on the
    campaign's grid ``t``; ``a_x`` filtered (m/s²)."""

    t: np.ndarray
    stroke: dict
    wheel_z: dict
    corner_z: dict
    a_x: np.ndarray
    fs: float
    meta: dict = field(default_factory=dict)


def reconstruct(campaign, layout: cm.CarLayout, correct: bool = True, fc: float = 0.5,
                noise: dict | None = None, seed: int = 0) -> Reconstruction:
    """Steps 1-4 of §5.2.3 on a :class:`~rtmbs.manoeuvres.campaign.Campaign`: strokes low-passed
    at 25 Hz, each corner acceleration high-passed at ``fc`` and integrated twice, plus the slow
    part of the stroke less the eq. 5.11 tyre deflection (``correct``; observer parameters
    W_tot, h_CG, L, K_tire of the campaign), less the stroke; plus the design wheel-centre
    height of ``layout``. ``noise``: white sensor noise {"stroke": m, "acc": m/s², "speed":
    m/s} (standard deviations) added first."""
    fs = campaign.fs
    rng = np.random.default_rng(seed)
    noise = noise or {}

    def noisy(y, key):
        s = noise.get(key, 0.0)
        return np.asarray(y, float) + (s * rng.standard_normal(np.size(y)) if s else 0.0)

    speed = noisy(campaign.speed, "speed")
    a_x = lowpass(np.gradient(speed, campaign.t), fs, AX_LP_HZ)
    o = campaign.observer
    stroke, wz, cz = {}, {}, {}
    for c in CORNERS:
        s = lowpass(noisy(campaign.stroke[c], "stroke"), fs)
        r = reconstruct_wheel_centre(noisy(campaign.corner_acc[c], "acc"), s, fs,
                                     a_x if correct else None, o["W_tot"], o["h_cg"], o["L"],
                                     o["K_tire"], rear=c[0] == "r", fc=fc)
        stroke[c] = s
        wz[c] = layout.wheel_centres[c][2] + r["wheel_centre"]
        cz[c] = r["corner"]
    return Reconstruction(campaign.t, stroke, wz, cz, a_x, fs, {"correct": correct, "fc": fc,
                                                                 "noise": noise})


def reconstruction_errors(campaign, rec: Reconstruction, fc: float = 0.5) -> dict:
    """RMS error (m) of the reconstructed wheel-centre heights per corner: ``total``; ``slow``
    and ``fast``: of its parts below and above ``fc`` (zero-phase 2nd-order split, the
    reconstruction's own); ``road_slow``: RMS of the road's part below ``fc`` under the wheel;
    ``less_road_slow``: of the error less that part of the road (what no body-mounted sensor
    high-passed at ``fc`` can see)."""
    from .measurement import highpass

    out = {}
    for c in CORNERS:
        e = rec.wheel_z[c] - campaign.wheel_centre_z[c]
        e = e - e[0]
        hp = highpass(e, rec.fs, fc)
        road = campaign.road_z[c] - campaign.road_z[c][0]
        slow_road = road - highpass(road, rec.fs, fc)
        out[c] = {"less_road_slow": float(np.sqrt(np.mean((e + slow_road) ** 2))),
                  "total": float(np.sqrt(np.mean(e ** 2))),
                  "fast": float(np.sqrt(np.mean(hp ** 2))),
                  "slow": float(np.sqrt(np.mean((e - hp) ** 2))),
                  "road_slow": float(np.sqrt(np.mean((road - highpass(road, rec.fs, fc)) ** 2)))}
    return out


# -- 4. longitudinal inputs ---------------------------------------------------------------------------
def longitudinal_inputs(rec: Reconstruction, campaign, layout: cm.CarLayout, i_w: float | None = None,
                        f_r: float | None = None) -> dict:
    """Per-sample F_x per wheel and rear drive torque (eqs. 5.6-5.10) from the filtered a_x.
    f_r: from the coasting deceleration of the neutral phase (the paper's ≈ 0.01 g) unless
    given (:data:`F_R_DEFAULT` when that is not in (0, :data:`F_R_MAX`)); braking where
    a_x < :data:`BRAKE_DETECT`, split by the campaign's brake torques; r: the loaded radius
    (design wheel-centre height)."""
    M = layout.total_mass
    r = float(np.mean([layout.wheel_centres[c][2] for c in CORNERS]))
    if i_w is None:
        i_w = float(np.mean([layout.axles[a].rim_inertia[1] for a in "fr"]))
    if f_r is None:
        t0, t1 = campaign.phases["neutral"]
        sel = (rec.t > t0 + 0.3 * (t1 - t0)) & (rec.t < t1 - 0.1 * (t1 - t0))
        m_eff = M + 4 * i_w / r ** 2
        f_r = float(-np.mean(rec.a_x[sel]) * m_eff / (M * cm.G)) if sel.any() else np.nan
        if not 0.0 < f_r < F_R_MAX:     # too short a coast to tell (quick runs)
            f_r = F_R_DEFAULT
    Ws = layout.static_sprung_loads()
    W = {c: Ws[c] + (layout.axles[c[0]].arm + layout.axles[c[0]].rim) * cm.G for c in CORNERS}
    bf, br = float(np.max(campaign.brake_front)), float(np.max(campaign.brake_rear))
    share = br / (bf + br) if bf + br > 0 else 0.5
    out = lo.identification_inputs(rec.a_x, M, W, f_r, i_w, r, braking=rec.a_x < BRAKE_DETECT,
                                   rear_share=share)
    out["meta"] = {"f_r": f_r, "I_w": i_w, "r": r, "rear_share": share, "M_tot": M}
    return out


# -- 5. identification ------------------------------------------------------------------------------
def _result(system, r, t):
    return SimpleNamespace(t=t, q=r.q, qd=r.qd, coordinate_names=list(system.coordinate_names),
                           meta={"model": system.name})


def strokes_of(system, res, layout: cm.CarLayout, wheel_body: str) -> dict:
    """The campaign's stroke sensor on a concept model: the distance from the sprung body's
    point ``CORNER_HEIGHT`` above the design wheel centre to the wheel centre (on
    ``wheel_body.format(c)``), less its design length."""
    out = {}
    for c in CORNERS:
        wc = np.array(layout.wheel_centres[c], float)
        top = sn.point_at(system, "body", wc + (0.0, 0.0, CORNER_HEIGHT))
        centre = sn.point_at(system, wheel_body.format(c), wc)
        out[f"s_{c}"] = sn.marker_distance(res, top, centre) - CORNER_HEIGHT
    return out


def chassis_signals(system, res, point) -> dict:
    """Height and vertical velocity of the sprung body's material point at ``point`` (global,
    at design; the sedan's chassis centre of mass), pitch and roll of the body."""
    p = sn.point_at(system, "body", point)
    ang = sn.body_angles(res, "body")
    return {"cg_z": sn.marker_position(res, p)[:, 2], "cg_vz": sn.marker_velocity(res, p)[:, 2],
            "pitch": ang["pitch"], "roll": ang["roll"]}


@dataclass(frozen=True)
class StrokeSimulator:
    """``simulate(params)`` for :func:`rtmbs.concept.calibrate.identify`: the 5-body identification
    model of ``layout`` (wheel-centre heights ``wheel_z``: corner -> table Input; channel inputs
    one value per step), ``n`` steps of ``h`` with li-euler, sampled every ``every`` steps;
    returns the four strokes ``s_<corner>`` (and the chassis signals at ``point``). Picklable."""

    wheel_z: dict
    inputs: dict
    n: int
    h: float
    every: int
    layout: cm.CarLayout
    point: tuple
    fixed: dict | None = None
    solver: str = "li-euler"

    def __call__(self, params: dict) -> dict:
        from ..solvers.base import get_solver
        from ..solvers.rollout import rollout
        from ..system import compile_model

        system = compile_model(cm.identification_model({**(self.fixed or {}), **params},
                                                        wheel_z=self.wheel_z, layout=self.layout))
        slv = get_solver(self.solver)(system)
        state = system.initial_state()
        slv.reset(state)
        r = rollout(slv, state, self.n, self.h, inputs=self.inputs, every=self.every)
        rows = self.n // self.every
        t = np.arange(1, rows + 1) * self.every * self.h
        out = {"t": t, "status": int(r.status)}
        k = len(r.t)
        sig = {**strokes_of(system, _result(system, r, t[:k]), self.layout, "arm_{}"),
               **chassis_signals(system, _result(system, r, t[:k]), self.point)} if k else {}
        for key in (*STROKES, "cg_z", "cg_vz", "pitch", "roll"):
            y = np.full(rows, np.nan)
            if k:
                y[:k] = sig[key]
            out[key] = y
        return out


def stroke_simulator(rec: Reconstruction, campaign, layout: cm.CarLayout, h: float | None = None,
                     inputs: dict | None = None, wheel_z: dict | None = None) -> StrokeSimulator:
    """The :class:`StrokeSimulator` of a campaign: wheel-centre heights ``wheel_z`` (default the
    reconstruction's; e.g. ``campaign.wheel_centre_z`` for the true ones) as tables on the
    campaign's grid, longitudinal inputs (default :func:`longitudinal_inputs`) held over each
    sample, step ``h`` (default the campaign's sample spacing)."""
    from ..model.description import Input

    t = np.asarray(rec.t, float)
    dt = float(t[1] - t[0])
    h = dt if h is None else h
    every = int(round(dt / h))
    n = (len(t) - 1) * every
    wz = wheel_z or rec.wheel_z
    tables = {c: Input(type="table", t=t.tolist(), values=np.asarray(wz[c], float).tolist())
              for c in CORNERS}
    src = inputs or longitudinal_inputs(rec, campaign, layout)
    ch = {k: np.repeat(np.asarray(v, float)[:-1], every) for k, v in src.items() if k != "meta"}
    point = (float(campaign.result.q[0][0]), float(campaign.result.q[0][1]),
             float(campaign.result.q[0][2]))  # chassis centre of mass at t = 0
    return StrokeSimulator(tables, ch, n, h, every, layout, point)


def target_of(campaign, rec: Reconstruction) -> dict:
    """The identification target: the filtered strokes after t = 0 (the simulator's grid)."""
    out = {"t": rec.t[1:] - rec.t[0]}
    for c in CORNERS:
        out[f"s_{c}"] = rec.stroke[c][1:]
    return out


def side_view_ic(campaign, corner: str) -> dict:
    """The side-view instant centre of a sedan corner from its motion in the campaign (the
    carrier's pitch and the wheel centre's x relative to the chassis, regressed on the
    wheel travel): (d, e) in the concept's convention (from the design wheel centre; d > 0 ahead
    of a rear wheel, behind a front one). A reference for the identified d, e, not an input."""
    res = campaign.result
    carrier = f"{corner}_{'upright' if corner[0] == 'f' else 'knuckle'}"
    A_c = sn._pose(res, "chassis")[2]
    A_k = sn._pose(res, carrier)[2]
    rel = np.einsum("nji,njk->nik", A_c, A_k)
    theta = np.arctan2(rel[:, 0, 2], rel[:, 2, 2])          # pitch of the carrier about +y
    wc = sn.marker_position(res, sn.Point(f"{corner}_wheel", (0.0, 0.0, 0.0)))
    r, _, _, _ = sn._pose(res, "chassis")
    loc = np.einsum("nji,nj->ni", A_c, wc - r)              # wheel centre in chassis axes
    z = loc[:, 2] - loc[0, 2]
    sel = np.abs(z - np.median(z)) < 4 * np.std(z)
    dtheta = np.polyfit(z[sel], theta[sel] - theta[0], 1)[0]
    dx = np.polyfit(z[sel], loc[sel, 0] - loc[0, 0], 1)[0]
    # a point rotating by θ about y around the IC: dz = θ (x_ic − x), dx = −θ (z_ic − z)
    x_ic = 1.0 / dtheta                 # IC ahead (+) of the wheel centre
    z_ic = -dx * x_ic                   # IC above (+) the wheel centre
    sgn = -1.0 if corner[0] == "f" else 1.0
    return {"d_from_wc": float(sgn * x_ic), "e_from_wc": float(z_ic), "dtheta_dz": float(dtheta),
            "dx_dz": float(dx)}


def ic_parameters(campaign, layout: cm.CarLayout) -> dict:
    """:func:`side_view_ic` of the left corners as the concept's (d_f, e_f, d_r, e_r) (from the
    arm's centre of mass)."""
    out = {}
    for a in "fr":
        ic = side_view_ic(campaign, a + "l")
        sgn = -1.0 if a == "f" else 1.0
        dx, dz = layout.arm_offset[a]
        out[f"d_{a}"] = ic["d_from_wc"] - sgn * dx
        out[f"e_{a}"] = ic["e_from_wc"] - dz
    return out


def problem(layout: cm.CarLayout, ic_sides: dict) -> tuple:
    """(names, start, lower, upper) of the 14-parameter identification (our choices; the paper
    gives none): generic mid-size-car values, not the sedan's: I_xx 400, I_yy 1500 kg m²,
    K 30 kN/m, C 2.5 kN s/m, the IC 2 m from the arm on the side ``ic_sides[a]`` (+1/−1) says
    and at its height, free lengths for the design ride height at K; bounds wide (a free
    length's cover the static load at every rate within the rate's bounds)."""
    names = cm.CAR_PARAMS
    start = {"I_xx": 400.0, "I_yy": 1500.0, "K_f": 30000.0, "K_r": 30000.0, "C_f": 2500.0,
             "C_r": 2500.0}
    lo_ = {"I_xx": 100.0, "I_yy": 300.0, "K_f": 8000.0, "K_r": 8000.0, "C_f": 300.0, "C_r": 300.0}
    hi_ = {"I_xx": 1500.0, "I_yy": 5000.0, "K_f": 120000.0, "K_r": 120000.0, "C_f": 15000.0,
           "C_r": 15000.0}
    for a in "fr":
        s = 1.0 if ic_sides[a] > 0 else -1.0
        start[f"d_{a}"], start[f"e_{a}"] = 2.0 * s, 0.0
        lo_[f"d_{a}"], hi_[f"d_{a}"] = (0.3, 40.0) if s > 0 else (-40.0, -0.3)
        lo_[f"e_{a}"], hi_[f"e_{a}"] = -5.0, 1.5
    L0 = cm.car_defaults(layout=layout)
    Ws = layout.static_sprung_loads()
    for c in CORNERS:   # free lengths for the static load at any rate within the bounds, ±5 cm
        a = c[0]
        start[f"L0_{c}"] = L0[f"L0_{c}"]
        lo_[f"L0_{c}"] = cm.SPRING_LENGTH + Ws[c] / hi_[f"K_{a}"] - 0.05
        hi_[f"L0_{c}"] = cm.SPRING_LENGTH + Ws[c] / lo_[f"K_{a}"] + 0.05
    return names, [start[k] for k in names], [lo_[k] for k in names], [hi_[k] for k in names]


# -- 6. validation ------------------------------------------------------------------------------------
def ab_road(x_switch: float, length: float, x0: float, seed: int, path, dx: float = 0.05,
            blend: float = 2.0) -> dict:
    """Manoeuvre III's road: ISO 8608 class A, then class B from ``x_switch`` (a linear blend
    over ``blend`` m; our choice of where), both tracks independent, written to the CSV
    ``path``; the road mapping for the tyres."""
    from ..vehicle.road import Road, iso8608

    a = iso8608("A", length, dx, seed, x0=x0, fade_in=5.0)
    b = iso8608("B", length, dx, seed + 1, x0=x0, fade_in=5.0)
    w = np.clip((a.x - x_switch) / blend, 0.0, 1.0)
    z = (1.0 - w) * a.z + w * b.z
    road = Road(a.x0, a.dx, np.ascontiguousarray(z), a.y_left, a.y_right, "csv",
                {"A then B at": x_switch})
    road.to_csv(path)
    return {"type": "csv", "path": str(path)}


def sedan_chassis_signals(campaign) -> dict:
    return {"cg_z": campaign.cg_z, "cg_vz": campaign.cg_vz, "pitch": campaign.pitch,
            "roll": campaign.roll}


def run_concept_car(params: dict, campaign, layout: cm.CarLayout, h: float = 1e-3) -> dict:
    """The 12-DOF trailing-arm car with ``params`` on the campaign's road, driven open loop by
    the sedan's recorded torques (drive per rear wheel, brakes per wheel), from rest; chassis
    signals at the sedan's chassis centre of mass, on the campaign's grid."""
    from ..solvers.base import get_solver
    from ..solvers.rollout import rollout
    from ..system import compile_model

    system = compile_model(cm.trailing_arm_car_model(params, road=campaign.meta["road"],
                                                     layout=layout))
    t = np.asarray(campaign.t, float)
    every = int(round((t[1] - t[0]) / h))
    n = (len(t) - 1) * every
    ch = {k: np.repeat(np.asarray(v, float)[:-1], every) for k, v in
          (("drive_torque", campaign.drive_torque), ("brake_front", campaign.brake_front),
           ("brake_rear", campaign.brake_rear))}
    slv = get_solver("li-euler")(system)
    state = system.initial_state()
    q0, qd0 = state.q.copy(), state.qd.copy()
    slv.reset(state)
    r = rollout(slv, state, n, h, inputs=ch, every=every)
    k = len(r.t)
    res = SimpleNamespace(t=np.concatenate([[0.0], r.t]), q=np.vstack([q0, r.q]),
                          qd=np.vstack([qd0, r.qd]), coordinate_names=list(system.coordinate_names),
                          meta={})
    point = tuple(float(x) for x in campaign.result.q[0][:3])
    sig = chassis_signals(system, res, point)
    out = {"status": int(r.status), "speed": np.full(len(t), np.nan)}
    for key, y in sig.items():
        v = np.full(len(t), np.nan)
        v[:k + 1] = y
        out[key] = v
    out["speed"][:k + 1] = res.qd[:, list(system.coordinate_names).index("body.x")]
    return out


def rms_table(model: dict, ref: dict, keys=("cg_z", "cg_vz", "pitch", "roll")) -> dict:
    """RMS of model − reference per signal (Table 5.3's outputs)."""
    return {k: float(np.sqrt(np.nanmean((np.asarray(model[k]) - np.asarray(ref[k])) ** 2)))
            for k in keys}
