"""Standard full-vehicle events on a car built by rtmbs.vehicle.build (the built-in
``sedan`` by default), each a fixed-step run returning a Result (docs/vehicle.md "Driver and
events").

* :func:`double_lane_change`: ISO 3888-1 (severe lane change), closed loop: the speed held by the
  PI controller, the path (lane centres joined by half-cosine transitions in sections 2 and 4)
  followed by pure pursuit. Lanes :func:`iso3888_lanes`.
* :func:`steady_state_circular`: ISO 4138 constant radius, the speed raised slowly (the quasi-
  steady variant), pure pursuit on the circle; :func:`understeer_gradient` from its steady part.
* :func:`step_steer`: ISO 7401 step steer, open loop: the handwheel ramps from 0 to its value in
  ``rise`` seconds (the standard: 0.15 s or less); the speed controller holds the speed (the
  standard holds the throttle; a small difference at these speeds).
* :func:`sine_with_dwell`: FMVSS 126 / ECE R13-H sine with dwell, open loop, coasting; its
  yaw-rate ratios and lateral displacement in meta["criteria"].
* :func:`brake_in_turn`: ISO 7975 braking in a turn, open loop from a steady circle.

Any car: pass ``system, model`` from :func:`.car.load_car` (built rolling at the event's
speed); the steering ratio and the width default to the car's own (:func:`_ratio`,
:func:`_width`). Metrics: :mod:`.metrics`; the command ``rtmbs event``."""
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
    """The built-in sedan compiled rolling straight at ``speed`` m/s (:func:`.car.load_car`:
    the wheels and half shafts spinning at free rolling)."""
    from .car import load_car

    car = load_car("sedan" if joints == "ideal" else f"sedan-{joints}", speed)
    return car.system, car.model


def _car(model):
    """Mass, loaded radius, wheelbase and the rear axle's distance behind the chassis point."""
    mass = sum(b.mass for b in model.bodies)
    fl, rl = model.body("fl_wheel").position, model.body("rl_wheel").position
    ch = model.body("chassis").position
    return mass, 0.5 * (fl[2] + rl[2]), fl[0] - rl[0], ch[0] - rl[0]


def _ratio(model, given):
    """The steering ratio ``given``, else the car's own on centre (the K&C rig,
    :func:`rtmbs.analysis.kc.steering_ratio_on_centre`; the sedan: 18.02)."""
    if given is not None:
        return float(given)
    from ..analysis.kc import steering_ratio_on_centre

    return steering_ratio_on_centre(model)


def _width(model, given):
    """The vehicle width ``given``, else the car's track + tyre width (:func:`.car.overall_width`;
    the sedan: 1.845 m)."""
    if given is not None:
        return float(given)
    from .car import overall_width

    return overall_width(model)[0]


def _check_speed(kmh: float) -> float:
    if not (isinstance(kmh, (int, float)) and math.isfinite(kmh) and 0 < kmh <= 250):
        raise SolverError(f"speed_kmh: expected 0 < speed <= 250 km/h, got {kmh!r}")
    return kmh / 3.6


def double_lane_change(speed_kmh: float = 70.0, steering_ratio: float | None = None,
                       h: float = 1e-3, solver: str = "li-euler", save_every: int = 10,
                       width: float | None = None,
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
    steering_ratio, width = _ratio(model, steering_ratio), _width(model, width)
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


def _circle_follower(x0, radius, laps, L, rear, steering_ratio) -> PurePursuit:
    """Pure pursuit of a circle of ``radius`` turning left, entered tangentially at ``x0`` after
    a 20 m straight lead-in, ``laps`` turns long; started at the car's rear axle."""
    th = np.arange(0.0, 2 * math.pi * laps, 0.1 / radius)
    lead = np.arange(-20.0, 0.0, 0.1)
    px = np.concatenate([x0 + lead, x0 + radius * np.sin(th)])
    py = np.concatenate([np.zeros_like(lead), radius * (1.0 - np.cos(th))])
    pp = PurePursuit(px, py, wheelbase=L, rear_offset=rear, ratio=steering_ratio,
                     preview_time=0.6, min_lookahead=5.0)
    pp.start(x0 - rear, 0.0, within=60.0)
    return pp


def steady_state_circular(radius: float = 40.0, kmh_start: float = 30.0, kmh_end: float = 60.0,
                          accel: float = 0.5, settle: float = 2.0,
                          steering_ratio: float | None = None,
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
    steering_ratio = _ratio(model, steering_ratio)
    x0 = model.body("chassis").position[0]
    t_end = settle + (v1 - v0) / accel
    laps = (v1 * t_end) / (2 * math.pi * radius) + 1.0
    pp = _circle_follower(x0, radius, laps, L, rear, steering_ratio)

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


#: FMVSS 126 S5.2 / UN ECE R13-H Annex 9: yaw-rate ratio limits at these times after the
#: completion of steer, and the lateral displacement limit (m, GVWR ≤ 3500 kg) at 1.07 s after
#: the beginning of steer (required from amplitudes of 5 A up)
SINE_DWELL_LIMITS = {"ratio_1.0": 0.35, "ratio_1.75": 0.20, "lateral_1.07": 1.83}


def sine_dwell_profile(amplitude: float, freq: float = 0.7, dwell: float = 0.5):
    """The sine-with-dwell handwheel f(τ), τ from the beginning of steer: A sin(2π f τ) to its
    second peak (τ = 0.75/f, value −A), held for ``dwell`` s, then the last quarter period
    back to 0 at the completion of steer τ = 1/f + dwell, 0 after. Returns (f, completion)."""
    t2, cos_ = 0.75 / freq, 1.0 / freq + dwell

    def f(tau):
        if tau <= 0.0 or tau >= cos_:
            return 0.0
        if tau <= t2:
            return amplitude * math.sin(2 * math.pi * freq * tau)
        if tau <= t2 + dwell:
            return -amplitude
        return amplitude * math.sin(2 * math.pi * freq * (tau - dwell))

    return f, cos_


def steer_for_ay(speed_kmh: float = 80.0, ay: float = 0.3 * 9.81, trial_deg: float = 20.0,
                 system=None, model=None, **options) -> float:
    """Handwheel angle (deg) for a steady ``ay`` at ``speed_kmh``: a :func:`step_steer` of
    ``trial_deg`` (3 s, steady over its last 0.5 s) scaled linearly, ay/ay_trial (the car in its
    linear range; FMVSS 126's slowly increasing steer fits the same line through 0.3 g)."""
    if not (math.isfinite(ay) and ay > 0 and math.isfinite(trial_deg) and trial_deg > 0):
        raise SolverError("steer_for_ay: need ay > 0 and trial_deg > 0")
    res = step_steer(speed_kmh, trial_deg, t_step=0.5, t_end=3.0, system=system, model=model,
                     **options)
    ay_ss = float(res.outputs["chassis.ay"][res.t >= 2.5].mean())
    if system is not None:
        system.set_input("handwheel_angle", 0.0)
    return trial_deg * ay / ay_ss


def sine_with_dwell(speed_kmh: float = 80.0, scale: float = 5.0, amplitude_deg: float | None = None,
                    direction: int = 1, freq: float = 0.7, dwell: float = 0.5, t_start: float = 0.5,
                    h: float = 1e-3, solver: str = "li-euler", save_every: int = 5, system=None,
                    model=None, channel: str = "handwheel_angle", **options):
    """FMVSS 126 / ECE R13-H sine with dwell: the car coasts from ``speed_kmh`` (no drive or
    brake torque); at ``t_start`` (beginning of steer, BOS) the handwheel follows
    :func:`sine_dwell_profile` with amplitude ``scale`` · A (``direction`` +1: left first), A the
    handwheel angle of 0.3 g steady state (:func:`steer_for_ay`, or ``amplitude_deg``); the run
    ends 2 s after the completion of steer (COS). meta["criteria"]: the first local peak of the
    yaw rate after the handwheel changes sign (rad/s) and its time, the yaw rate at COS + 1.0 and
    + 1.75 s and their ratios to the peak (limits 0.35, 0.20), the lateral displacement of the
    chassis point at BOS + 1.07 s (m, in the first steer's direction, limit 1.83 m); the values
    at those times are linear interpolations of the recorded signal. A car whose yaw rate
    never turns back after the reversal (it spins) has ``spin`` True and the largest yaw rate
    after the reversal as its peak."""
    v = _check_speed(speed_kmh)
    if direction not in (1, -1):
        raise SolverError(f"direction: expected 1 (left first) or -1, got {direction!r}")
    for k, x in (("scale", scale), ("freq", freq), ("dwell", dwell), ("t_start", t_start)):
        if not (isinstance(x, (int, float)) and math.isfinite(x) and x >= 0 and
                (x > 0 or k in ("dwell", "t_start"))):
            raise SolverError(f"sine_with_dwell: {k} must be a finite number > 0 (dwell, t_start "
                              f">= 0), got {x!r}")
    if system is None:
        system, model = sedan_system(v)
    if amplitude_deg is None:
        amplitude_deg = steer_for_ay(speed_kmh, system=system, model=model, h=h, solver=solver)
    A = direction * scale * math.radians(amplitude_deg)
    f, cos_ = sine_dwell_profile(A, freq, dwell)
    drv = Driver(system, inputs={channel: lambda t: f(t - t_start)})
    res = drive(system, drv, t_start + cos_ + 2.0, h, solver, save_every, **options)
    t, r = res.t, res.outputs["chassis.yaw_rate"]
    x = -direction * r                    # the yaw after the reversal, positive
    k = np.nonzero(t >= t_start + 0.5 / freq)[0]
    peak = next((i for i in k[1:-1] if x[i] > 0 and x[i] >= x[i - 1] and x[i] > x[i + 1]), None)
    crit = {"bos": t_start, "cos": t_start + cos_, "amplitude_deg": math.degrees(abs(A)),
            "A_deg": float(amplitude_deg), "spin": peak is None}
    if peak is None:  # the yaw rate never turns back: the car spins; its largest yaw rate
        peak = int(k[np.argmax(x[k])])  # makes the ratios near 1 (a fail)
    rp = float(r[peak])
    for dt in (1.0, 1.75):
        ri = float(np.interp(t_start + cos_ + dt, t, r))
        crit[f"yaw_rate_{dt}"], crit[f"ratio_{dt}"] = ri, ri / rp
    y = res.outputs["chassis.y"]
    crit["lateral_1.07"] = direction * float(np.interp(t_start + 1.07, t, y) - np.interp(t_start, t, y))
    crit.update(peak_yaw_rate=rp, t_peak=float(t[peak]))
    crit["pass"] = bool(crit["ratio_1.0"] <= SINE_DWELL_LIMITS["ratio_1.0"]
                        and crit["ratio_1.75"] <= SINE_DWELL_LIMITS["ratio_1.75"]
                        and (scale < 5.0 or crit["lateral_1.07"] >= SINE_DWELL_LIMITS["lateral_1.07"]))
    res.meta.update(event="FMVSS 126 sine with dwell", speed_kmh=speed_kmh, criteria=crit)
    return res


class _BrakeInTurnDriver(Driver):
    """Pure pursuit on the circle at constant speed until ``t_brake``; from then the handwheel
    is held at its last value, the drive torque is 0 and the brake torques rise linearly to
    ``torque_front``/``torque_rear`` (N m per wheel) over ``ramp`` s (ISO 7975 open loop)."""

    def __init__(self, system, speed, path, t_brake, torque_front, torque_rear, ramp):
        super().__init__(system, speed, path)
        self.t_brake, self.tf, self.tr, self.ramp = t_brake, torque_front, torque_rear, ramp
        self.signals.update({"driver.brake_torque_front": 0.0, "driver.brake_torque_rear": 0.0})

    def update(self, t, q, qd, h):
        if t < self.t_brake:
            return super().update(t, q, qd, h)
        if self.path is not None:  # the start of braking: hold the handwheel, release the speed
            self._set(self.path.channel, self.handwheel, 0.0, t)
            self.path = self.speed = None
            self._set("drive_torque", 0.0, 0.0, t)
        super().update(t, q, qd, h)  # the chassis signals
        w = min((t - self.t_brake) / self.ramp, 1.0)
        rate = 1.0 / self.ramp if w < 1.0 else 0.0
        self._set("brake_torque_front", w * self.tf, rate * self.tf, t)
        self._set("brake_torque_rear", w * self.tr, rate * self.tr, t)
        self.signals["driver.brake_torque_front"] = w * self.tf
        self.signals["driver.brake_torque_rear"] = w * self.tr


def brake_in_turn(speed_kmh: float = 80.0, radius: float = 100.0, decel: float = 4.0,
                  t_brake: float = 4.0, after: float = 1.5, front_share: float = 0.6,
                  ramp: float = 0.2, steering_ratio: float | None = None, h: float = 1e-3,
                  solver: str = "li-euler", save_every: int = 10, system=None, model=None,
                  **options):
    """ISO 7975 braking in a turn, open loop: the car (the sedan unless given) enters a left
    circle of ``radius`` m at ``speed_kmh`` and is held on it by pure pursuit at constant speed
    until ``t_brake`` s (steady state); then the handwheel is held and the brakes apply the
    torques of a deceleration ``decel`` m/s² (m·decel·r in total, ``front_share`` on the front
    axle, halved per wheel) ramped over ``ramp`` s; the run ends ``after`` s later. meta:
    radius, circle centre, t_brake, the torques."""
    v = _check_speed(speed_kmh)
    for k, x, lo in (("radius", radius, 10.0), ("decel", decel, 0.0), ("t_brake", t_brake, 1.0),
                     ("after", after, 1.0), ("ramp", ramp, 0.0)):
        if not (isinstance(x, (int, float)) and math.isfinite(x) and x >= lo and x > 0):
            raise SolverError(f"brake_in_turn: {k} must be a finite number >= {lo:g} and > 0, "
                              f"got {x!r}")
    if not 0.0 <= front_share <= 1.0:
        raise SolverError(f"brake_in_turn: front_share must be in [0, 1], got {front_share!r}")
    if system is None:
        system, model = sedan_system(v)
    mass, radius_w, L, rear = _car(model)
    steering_ratio = _ratio(model, steering_ratio)
    x0 = model.body("chassis").position[0]
    laps = (v * (t_brake + after)) / (2 * math.pi * radius) + 0.5
    pp = _circle_follower(x0, radius, laps, L, rear, steering_ratio)
    total = mass * decel * radius_w
    drv = _BrakeInTurnDriver(system, SpeedControl(v, mass, radius_w), pp, t_brake,
                             front_share * total / 2.0, (1.0 - front_share) * total / 2.0, ramp)
    res = drive(system, drv, t_brake + after, h, solver, save_every, **options)
    res.meta.update(event="ISO 7975 braking in a turn", speed_kmh=speed_kmh, radius=radius,
                    centre=(x0, radius), t_brake=t_brake, decel_demand=decel,
                    brake_torque_front=drv.tf, brake_torque_rear=drv.tr,
                    steering_ratio=steering_ratio)
    return res
