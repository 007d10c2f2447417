"""The standard metrics of the events, from their Results (SI inside; the names carry the
report's units).

* :func:`step_steer_metrics`: ISO 7401 (2011) step steer, §§ 9-10: steady-state yaw rate and
  lateral acceleration (mean over the last ``window`` s), yaw-rate gain (steady yaw rate per
  handwheel angle, and per road-wheel angle with the car's steering ratio), response time
  (from 50 % of the handwheel step to 90 % of the steady yaw rate), peak response time (to the
  first yaw-rate peak) and overshoot ((peak − steady) / steady).
* :func:`circle_metrics`: ISO 4138 (2021) constant radius: the understeer gradient, the slope
  of the road-wheel angle (handwheel / steering ratio) less the Ackermann angle L r / v
  against a_y over its linear range (:func:`.events.understeer_gradient`), and the handwheel
  gradient d(δ_H)/d(a_y).
* :func:`lane_change_metrics`: ISO 3888-1 (2018) cone clearances per gated section
  (:func:`.events.lane_margins`).
* :func:`brake_in_turn_metrics`: ISO 7975 (2019) braking in a turn, at 1 s after the start of
  braking: mean deceleration, yaw-rate and lateral-acceleration ratios to their values at the
  start, the change of sideslip angle and the path's deviation from the circle."""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError

G = 9.81


def sideslip(res) -> np.ndarray:
    """Sideslip angle β (rad) of the chassis reference point: atan2 of the horizontal velocity
    components along the body's heading (ISO 8855: + velocity to the left of the heading)."""
    o = res.outputs
    yaw = o["chassis.yaw"]
    vx, vy = o["chassis.vx"], o["chassis.vy"]
    u = np.cos(yaw) * vx + np.sin(yaw) * vy
    w = -np.sin(yaw) * vx + np.cos(yaw) * vy
    return np.arctan2(w, u)


def roll_angle(res, body: str = "chassis") -> np.ndarray:
    """Roll angle φ = atan2(A₂₁, A₂₂) of ``body`` (rad; the z-y-x angles' roll, + right side
    down, as in a left turn), from its Euler parameters."""
    k = list(res.coordinate_names).index(f"{body}.x")
    e0, e1, e2, e3 = (res.q[:, k + 3 + i] for i in range(4))
    return np.arctan2(2.0 * (e2 * e3 + e0 * e1), e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3)


def _crossing(t, x, level, start):
    """First time >= ``start`` at which ``x`` reaches ``level`` (linear interpolation)."""
    k = np.nonzero((t >= start) & (x >= level))[0]
    if len(k) == 0:
        return math.nan
    i = k[0]
    if i == 0 or t[i - 1] < start:
        return float(t[i])
    return float(t[i - 1] + (level - x[i - 1]) / (x[i] - x[i - 1]) * (t[i] - t[i - 1]))


def step_steer_metrics(res, steering_ratio: float, window: float = 0.5,
                       channel: str = "handwheel_angle") -> dict:
    """ISO 7401 metrics of a :func:`.events.step_steer` Result (see the module docstring).
    Keys end in their unit: ``_deg``, ``_deg_s`` (deg/s), ``_m_s2``, ``_s``, ``_pct``,
    ``_1_s`` (1/s: yaw-rate gain per road-wheel angle)."""
    t = res.t
    o = res.outputs
    hw = o[f"driver.{channel}"]
    r, ay = o["chassis.yaw_rate"], o["chassis.ay"]
    t_end, t_step = float(t[-1]), float(res.meta["t_step"])
    if t_end - window <= t_step + res.meta["rise"]:
        raise SolverError(f"step steer: the run ends {t_end - t_step:.3g} s after the step: "
                          f"too short for a steady state over the last {window} s")
    ss = t >= t_end - window
    sign = 1.0 if hw[-1] >= 0 else -1.0
    hw_ss, r_ss, ay_ss = float(hw[ss].mean()), float(r[ss].mean()), float(ay[ss].mean())
    if abs(hw_ss) == 0 or sign * r_ss <= 0:
        raise SolverError("step steer: no steady yaw rate in the direction of the steer")
    t50 = _crossing(t, sign * hw, 0.5 * abs(hw_ss), 0.0)
    t90 = _crossing(t, sign * r, 0.9 * abs(r_ss), t50)
    after = t >= t50
    k = int(np.argmax(sign * r[after]))
    r_pk, t_pk = float(r[after][k]), float(t[after][k])
    ay_pk = float(np.max(sign * ay[after])) * sign
    speed = float(o["chassis.speed"][ss].mean())
    delta = hw_ss / steering_ratio
    return {
        "speed_kmh": speed * 3.6,
        "handwheel_deg": math.degrees(hw_ss),
        "road_wheel_deg": math.degrees(delta),
        "yaw_rate_ss_deg_s": math.degrees(r_ss),
        "ay_ss_m_s2": ay_ss,
        "yaw_rate_gain_deg_s_per_deg": r_ss / hw_ss,
        "yaw_rate_gain_road_wheel_1_s": r_ss / delta,
        "ay_gain_m_s2_per_deg": ay_ss / math.degrees(hw_ss),
        "response_time_s": t90 - t50,
        "peak_response_time_s": t_pk - t50,
        "yaw_rate_peak_deg_s": math.degrees(r_pk),
        "overshoot_pct": 100.0 * (r_pk - r_ss) / r_ss,
        "ay_overshoot_pct": 100.0 * (ay_pk - ay_ss) / ay_ss,
        "t50_s": t50,
    }


def circle_metrics(res, ay_range=(1.0, 4.0)) -> dict:
    """ISO 4138 metrics of a :func:`.events.steady_state_circular` Result: the understeer
    gradient (deg/g and rad per m/s²), the handwheel gradient (deg per m/s²) over ``ay_range``
    (m/s²), the largest lateral acceleration reached and the sideslip gradient."""
    from .events import understeer_gradient

    ug = understeer_gradient(res, ay_range)
    o = res.outputs
    v, r = o["chassis.speed"], o["chassis.yaw_rate"]
    ay = v * r
    m = (res.t > res.meta["settle"]) & (ay >= ay_range[0]) & (ay <= ay_range[1])
    hw_slope = np.polyfit(ay[m], np.degrees(o["driver.handwheel"][m]), 1)[0]
    beta_slope = np.polyfit(ay[m], np.degrees(sideslip(res)[m]), 1)[0]
    return {"understeer_gradient_deg_per_g": ug["K_deg_per_g"],
            "understeer_gradient_rad_per_m_s2": ug["K_rad_per_m_s2"],
            "handwheel_gradient_deg_per_m_s2": float(hw_slope),
            "sideslip_gradient_deg_per_m_s2": float(beta_slope),
            "ay_fit_from_m_s2": float(ay_range[0]), "ay_fit_to_m_s2": float(ay_range[1]),
            "fit_points": ug["points"], "ay_max_m_s2": float(ay[res.t > res.meta["settle"]].max()),
            "radius_m": float(res.meta["radius"])}


def lane_change_metrics(res) -> dict:
    """ISO 3888-1 cone clearances (m, negative: a cone hit) per gated section, the smallest,
    the largest lateral error from the path, and whether the car passed (every clearance >= 0)."""
    from .events import lane_margins

    margins = lane_margins(res)
    out = {f"clearance_section_{k}_m": v for k, v in margins.items()}
    out["clearance_min_m"] = min(margins.values())
    out["path_error_max_m"] = float(np.abs(res.outputs["driver.lateral_error"]).max())
    out["handwheel_max_deg"] = float(np.degrees(np.abs(res.outputs["driver.handwheel"]).max()))
    out["ay_max_m_s2"] = float(np.abs(res.outputs["chassis.ay"]).max())
    out["speed_exit_kmh"] = float(res.outputs["chassis.speed"][-1] * 3.6)
    out["pass"] = bool(out["clearance_min_m"] >= 0.0)
    return out


def brake_in_turn_metrics(res, after: float = 1.0) -> dict:
    """ISO 7975 metrics of a :func:`.events.brake_in_turn` Result at ``after`` s after the start
    of braking t_b: mean deceleration over [t_b, t_b + after] (m/s²), yaw-rate and lateral-
    acceleration ratios (value at t_b + after / value at t_b), sideslip change (deg), and the
    change of the chassis point's distance from the circle's centre over that second (m, +
    outward: the car runs wide)."""
    t, o = res.t, res.outputs
    tb = float(res.meta["t_brake"])
    t1 = tb + after
    if t1 > t[-1]:
        raise SolverError(f"brake in turn: the run ends before t_b + {after:g} s")
    at = {k: (float(np.interp(tb, t, x)), float(np.interp(t1, t, x))) for k, x in
          (("r", o["chassis.yaw_rate"]), ("ay", o["chassis.ay"]), ("v", o["chassis.speed"]),
           ("beta", sideslip(res)))}
    cx, cy, R = res.meta["centre"][0], res.meta["centre"][1], res.meta["radius"]
    def off(tt):  # the chassis point's distance outside the circle
        return float(np.hypot(np.interp(tt, t, o["chassis.x"]) - cx,
                              np.interp(tt, t, o["chassis.y"]) - cy) - R)

    dev = off(t1) - off(tb)
    return {"speed_at_brake_kmh": at["v"][0] * 3.6, "ay_at_brake_m_s2": at["ay"][0],
            "deceleration_mean_m_s2": (at["v"][0] - at["v"][1]) / after,
            "yaw_rate_ratio": at["r"][1] / at["r"][0], "ay_ratio": at["ay"][1] / at["ay"][0],
            "sideslip_change_deg": math.degrees(at["beta"][1] - at["beta"][0]),
            "path_deviation_m": dev, "after_s": after}
