"""Standard full-vehicle events on a car built by rtmbs.vehicle.assembly (the built-in
``sedan`` by default), each a fixed-step run returning a Result (docs/vehicle.md "Driver and
events").

* :func:`double_lane_change`: ISO 3888-1 (severe lane change), closed loop: the speed held by the
  PI controller, the path (lane centres joined by half-cosine transitions in sections 2 and 4)
  followed by pure pursuit. Lanes :func:`iso3888_lanes`.
* :func:`steady_state_circular`: ISO 4138 constant radius, the speed raised slowly (the quasi-
  steady variant), pure pursuit on the circle; :func:`understeer_gradient` from its steady part.
* :func:`step_steer`: ISO 7401 step steer, open loop: the handwheel ramps from 0 to its value in
  ``rise`` seconds (the standard: 0.15 s or less); the speed controller holds the speed (the
  standard holds the throttle; a small difference at these speeds)."""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError
from ..system import compile_model
from .driver import Driver, PurePursuit, SpeedControl, drive

#: ISO 3888-1 (1999) sections as commonly published: (length m, lane width as (a, c): a·b + c
#: with b the vehicle width; None: the free sections 2 and 4); lateral offset 3.5 m
ISO3888_SECTIONS = ((15.0, (1.1, 0.25)), (30.0, None), (25.0, (1.2, 0.25)), (25.0, None),
                    (15.0, (1.3, 0.25)), (15.0, (1.3, 0.25)))
ISO3888_OFFSET = 3.5
SEDAN_WIDTH = 1.85  # m: the sedan's width over the tyres (track 1.596 m + a 245 mm tyre)


def iso3888_lanes(width: float = SEDAN_WIDTH, start: float = 0.0) -> list[dict]:
    """The gated sections of ISO 3888-1 for a car ``width`` wide: per section x0, x1, the lane's
    centre y and width. The offset 3.5 m is taken between the right-hand cone lines of
    sections 1 and 3 (the standard's figure); sections 1, 5 and 6 share their right-hand line."""
    out, x = [], start
    right = None
    for k, (length, w) in enumerate(ISO3888_SECTIONS):
        if w is not None:
            lane = w[0] * width + w[1]
            if right is None:
                right = -lane / 2.0
            r = right + (ISO3888_OFFSET if k == 2 else 0.0)
            out.append({"section": k + 1, "x0": x, "x1": x + length, "y": r + lane / 2.0, "width": lane})
        x += length
    return out


def lane_change_path(lanes: list[dict], lead: float = 50.0, ds: float = 0.1):
    """Reference path: each lane's centre, joined by half-cosine transitions over the free
    sections; straight for ``lead`` metres before and after."""
    x = np.arange(lanes[0]["x0"] - lead, lanes[-1]["x1"] + lead, ds)
    y = np.full_like(x, lanes[0]["y"])
    for a, b in zip(lanes[:-1], lanes[1:]):
        y[x >= a["x1"]] = b["y"]
        m = (x >= a["x1"]) & (x < b["x0"])
        u = (x[m] - a["x1"]) / (b["x0"] - a["x1"])
        y[m] = a["y"] + (b["y"] - a["y"]) * 0.5 * (1.0 - np.cos(math.pi * u))
    return x, y


def sedan_system(speed: float, joints: str = "ideal"):
    """The built-in sedan compiled rolling straight at ``speed`` m/s."""
    import yaml

    from ..vehicle.assembly.vehicle import SEDAN, vehicle_from_dict

    data = yaml.safe_load((SEDAN / "vehicle.yaml").read_text())
    data["speed"] = float(speed)
    m = vehicle_from_dict(data, SEDAN, joints=joints)
    m.name = "sedan" if joints == "ideal" else f"sedan-{joints}"
    return compile_model(m), m


def _car(model):
    """Mass, loaded radius, wheelbase and the rear axle's distance behind the chassis point."""
    mass = sum(b.mass for b in model.bodies)
    fl, rl = model.body("fl_wheel").position, model.body("rl_wheel").position
    ch = model.body("chassis").position
    return mass, 0.5 * (fl[2] + rl[2]), fl[0] - rl[0], ch[0] - rl[0]


def _check_speed(kmh: float) -> float:
    if not (isinstance(kmh, (int, float)) and math.isfinite(kmh) and 0 < kmh <= 250):
        raise SolverError(f"speed_kmh: expected 0 < speed <= 250 km/h, got {kmh!r}")
    return kmh / 3.6


def double_lane_change(speed_kmh: float = 70.0, steering_ratio: float = 18.1, h: float = 1e-3,
                       solver: str = "li-euler", save_every: int = 10, width: float = SEDAN_WIDTH,
                       run_out: float = 10.0, preview_time: float = 0.6, min_lookahead: float = 5.0,
                       understeer: float = 0.006,
                       system=None, model=None, **options):
    """ISO 3888-1 at ``speed_kmh`` (the sedan unless ``system``/``model`` are given): the car
    starts at the entry of section 1 and runs to ``run_out`` m past section 6's end. The
    Result's meta holds ``lanes`` and the path; outputs add ``path.y`` (the path at the car's
    x) and ``driver.lateral_error`` (chassis point vs path, + left)."""
    v = _check_speed(speed_kmh)
    if system is None:
        system, model = sedan_system(v)
    mass, radius, L, rear = _car(model)
    x0 = model.body("chassis").position[0]
    lanes = iso3888_lanes(width, start=x0)
    px, py = lane_change_path(lanes)
    pp = PurePursuit(px, py, wheelbase=L, rear_offset=rear, ratio=steering_ratio,
                     preview_time=preview_time, min_lookahead=min_lookahead, understeer=understeer)
    pp.start(x0 - rear, 0.0, within=60.0)
    drv = Driver(system, SpeedControl(v, mass, radius), pp)
    t_end = (lanes[-1]["x1"] + run_out - x0) / v
    res = drive(system, drv, t_end, h, solver, save_every, **options)
    res.outputs["path.y"] = np.interp(res.outputs["chassis.x"], px, py)
    res.meta.update(event="ISO 3888-1 double lane change", speed_kmh=speed_kmh, lanes=lanes,
                    width=width)
    return res


def lane_margins(res) -> dict:
    """Per gated section the smallest clearance (m) between the car's sides (chassis point ±
    width/2, yaw neglected) and the lane's cone lines over the section; negative: a cone hit."""
    x, y = res.outputs["chassis.x"], res.outputs["chassis.y"]
    b = res.meta["width"]
    out = {}
    for ln in res.meta["lanes"]:
        m = (x >= ln["x0"]) & (x <= ln["x1"])
        out[ln["section"]] = float(np.min(ln["width"] / 2.0 - (np.abs(y[m] - ln["y"]) + b / 2.0)))
    return out


def step_steer(speed_kmh: float = 80.0, handwheel_deg: float = 40.0, t_step: float = 0.5,
               rise: float = 0.15, t_end: float = 3.0, h: float = 1e-3, solver: str = "li-euler",
               save_every: int = 10, system=None, model=None, channel: str = "handwheel_angle",
               **options):
    """ISO 7401 step steer: straight at ``speed_kmh``, at ``t_step`` the handwheel ramps
    linearly to ``handwheel_deg`` (+ left) in ``rise`` s and is held; outputs add
    ``chassis.yaw_rate`` (rad/s) and ``chassis.ay`` (v·r, m/s²)."""
    v = _check_speed(speed_kmh)
    if not (math.isfinite(handwheel_deg) and rise > 0 and t_step >= 0 and t_end > t_step + rise):
        raise SolverError("step_steer: need a finite handwheel_deg, rise > 0 and "
                          "t_end > t_step + rise")
    if system is None:
        system, model = sedan_system(v)
    mass, radius, _, _ = _car(model)
    a = math.radians(handwheel_deg)

    def hw(t):
        return a * min(max((t - t_step) / rise, 0.0), 1.0)

    drv = Driver(system, SpeedControl(v, mass, radius), inputs={channel: hw})
    res = drive(system, drv, t_end, h, solver, save_every, **options)
    res.meta.update(event="ISO 7401 step steer", speed_kmh=speed_kmh, handwheel_deg=handwheel_deg,
                    t_step=t_step, rise=rise)
    return res


def steady_state_circular(radius: float = 40.0, kmh_start: float = 30.0, kmh_end: float = 60.0,
                          accel: float = 0.5, settle: float = 2.0, steering_ratio: float = 18.1,
                          h: float = 1e-3, solver: str = "li-euler", save_every: int = 10,
                          system=None, model=None, **options):
    """ISO 4138 steady-state circular driving, constant radius with the speed raised slowly: the
    car (the sedan unless given) enters a left circle of ``radius`` m at ``kmh_start``, holds it
    for ``settle`` s, then the target speed rises by ``accel`` m/s² to ``kmh_end``. Pure pursuit
    keeps it on the circle (t_p 0.6 s, l_min 5 m, no understeer term: the steer is found by the
    loop). meta: radius, ratio; :func:`understeer_gradient` reads the result."""
    v0, v1 = _check_speed(kmh_start), _check_speed(kmh_end)
    if not (math.isfinite(radius) and radius >= 10.0 and v1 >= v0 and accel > 0 and settle >= 0):
        raise SolverError("steady_state_circular: need radius >= 10 m, kmh_end >= kmh_start, "
                          "accel > 0 and settle >= 0")
    if system is None:
        system, model = sedan_system(v0)
    mass, radius_w, L, rear = _car(model)
    x0 = model.body("chassis").position[0]
    t_end = settle + (v1 - v0) / accel
    laps = (v1 * t_end) / (2 * math.pi * radius) + 1.0
    th = np.arange(0.0, 2 * math.pi * laps, 0.1 / radius)
    lead = np.arange(-20.0, 0.0, 0.1)
    px = np.concatenate([x0 + lead, x0 + radius * np.sin(th)])
    py = np.concatenate([np.zeros_like(lead), radius * (1.0 - np.cos(th))])
    pp = PurePursuit(px, py, wheelbase=L, rear_offset=rear, ratio=steering_ratio,
                     preview_time=0.6, min_lookahead=5.0)
    pp.start(x0 - rear, 0.0, within=60.0)

    def target(t):
        return v0 + accel * max(0.0, t - settle)

    drv = Driver(system, SpeedControl(target, mass, radius_w), pp)
    res = drive(system, drv, t_end, h, solver, save_every, **options)
    res.meta.update(event="ISO 4138 steady-state circular (constant radius)", radius=radius,
                    steering_ratio=steering_ratio, wheelbase=L, settle=settle)
    return res


def understeer_gradient(res, ay_range=(1.0, 4.0)) -> dict:
    """The understeer gradient of a steady-state circular run: the slope K (rad per m/s²) of
    δ − L r/v against ay = v r over ``ay_range`` (δ = handwheel / steering ratio, the road-wheel
    angle; L r/v the Ackermann angle of the path actually driven), and K in deg/g."""
    o = res.outputs
    v, r = o["chassis.speed"], o["chassis.yaw_rate"]
    delta = o["driver.handwheel"] / res.meta["steering_ratio"]
    ay = v * r
    m = (res.t > res.meta["settle"]) & (ay >= ay_range[0]) & (ay <= ay_range[1])
    if m.sum() < 10:
        raise SolverError(f"understeer_gradient: fewer than 10 points with ay in {ay_range} m/s²")
    K, c = np.polyfit(ay[m], delta[m] - res.meta["wheelbase"] * r[m] / v[m], 1)
    return {"K_rad_per_m_s2": float(K), "K_deg_per_g": float(math.degrees(K) * 9.81),
            "offset_rad": float(c), "points": int(m.sum())}
