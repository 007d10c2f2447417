"""The ISO 7401 step steer run with a fixed-step solver and with the offline ``reference``
solver on the same inputs, and their differences (docs/vehicle.md "Step steer
against the reference").

The driver's PI speed control reads the state between fixed steps, which an adaptive offline
solver cannot reproduce; both runs therefore take the same open-loop inputs through
``simulate(..., inputs=...)``: the handwheel a half-cosine ramp from 0 to its value over
``rise`` s from ``t_step`` (value, rate and acceleration exact; the event's linear ramp has
velocity jumps, i.e. impulses in a rheonomic constraint, which an error-controlled solver
resolves with tiny steps) and a constant ``drive_torque`` per half shaft (default 0: the car
coasts, as in the sine with dwell)."""
from __future__ import annotations

import math

import numpy as np

from ..errors import SolverError

#: the compared signals: name -> unit
SIGNALS = {"yaw_rate": "rad/s", "ay": "m/s²", "roll": "rad", "speed": "m/s"}


def smooth_step_input(value: float, t_start: float, rise: float):
    """f(t) -> (value, rate, acceleration) of a half-cosine ramp from 0 at ``t_start`` to
    ``value`` at ``t_start + rise`` (rate 0 at both ends), held after."""
    if not (math.isfinite(value) and rise > 0 and t_start >= 0):
        raise SolverError("smooth_step_input: need a finite value, rise > 0 and t_start >= 0")
    w = math.pi / rise

    def f(t):
        u = t - t_start
        if u <= 0.0:
            return 0.0, 0.0, 0.0
        if u >= rise:
            return value, 0.0, 0.0
        return (0.5 * value * (1.0 - math.cos(w * u)), 0.5 * value * w * math.sin(w * u),
                0.5 * value * w * w * math.cos(w * u))

    return f


def chassis_signals(res, body: str = "chassis") -> dict[str, np.ndarray]:
    """Yaw rate (global ω_z), lateral acceleration of the centre of mass in the heading frame
    (from the Result's body accelerations), roll angle φ = atan2(A₂₁, A₂₂) (the z-y-x angles'
    roll; + about the body's x axis: right side down, as in a left turn) and the horizontal
    speed of the body's reference point."""
    names = list(res.coordinate_names)
    k = names.index(f"{body}.x")
    q, qd = res.q, res.qd
    e0, e1, e2, e3 = (q[:, k + 3 + i] for i in range(4))
    d0, d1, d2, d3 = (qd[:, k + 3 + i] for i in range(4))
    a00 = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3
    a10 = 2.0 * (e1 * e2 + e0 * e3)
    a21 = 2.0 * (e2 * e3 + e0 * e1)          # z component of the body's y axis
    a22 = e0 * e0 - e1 * e1 - e2 * e2 + e3 * e3
    yaw = np.arctan2(a10, a00)
    o = res.outputs
    ax, ay = o[f"{body}.ax"], o[f"{body}.ay"]
    return {"yaw_rate": 2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3),
            "ay": -np.sin(yaw) * ax + np.cos(yaw) * ay,
            "roll": np.arctan2(a21, a22),
            "speed": np.hypot(qd[:, k], qd[:, k + 1])}


def step_steer_vs_reference(speed_kmh: float = 80.0, handwheel_deg: float = 20.0,
                            t_step: float = 0.5, rise: float = 0.15, t_end: float = 2.0,
                            drive_torque: float = 0.0, h: float = 1e-3, solver: str = "li-euler",
                            reference: dict | None = None, system=None, model=None,
                            solver_options: dict | None = None) -> dict:
    """Both runs of the step steer (the sedan unless ``system``/``model``) on the grid of ``h``
    to ``t_end``; ``reference``: the reference solver's options (default ``ida``, rtol 1e-6).
    Returns ``{"fixed": Result, "reference": Result, "signals": {"fixed": ..., "reference":
    ...}, "errors": {signal: {"max", "rms", "peak"}}, "meta": {...}}`` (``peak``: max |signal|
    of the reference, for scale). A reference run that fails part way (IDA's Newton on the
    sedan, docs/vehicle.md) is compared up to where it got: ``meta["t_compared"]``,
    ``meta["reference_status"]`` (1 finished, −1 failed) and its message say so."""
    from ..solvers.simulate import simulate
    from .events import _check_speed, sedan_system

    v = _check_speed(speed_kmh)
    if not (math.isfinite(t_end) and t_end > t_step + rise):
        raise SolverError("step_steer_vs_reference: t_end must be after t_step + rise")
    if system is None:
        system, model = sedan_system(v)
    inputs = {"handwheel_angle": smooth_step_input(math.radians(handwheel_deg), t_step, rise),
              "drive_torque": lambda t: (drive_torque, 0.0, 0.0)}
    ref_opts = {"method": "ida", "rtol": 1e-6, **(reference or {})}
    runs = {"fixed": simulate(system, solver, t_end=t_end, h=h, inputs=inputs,
                              **(solver_options or {})),
            "reference": simulate(system, "reference", t_end=t_end, h=h, inputs=inputs,
                                  raise_on_divergence=False, **ref_opts)}
    sig = {k: chassis_signals(r) for k, r in runs.items()}
    n = min(len(runs["fixed"].t), len(runs["reference"].t))
    if not np.allclose(runs["fixed"].t[:n], runs["reference"].t[:n], atol=1e-12, rtol=0):
        raise SolverError("step_steer_vs_reference: the two runs are not on the same grid")
    errors = {}
    for name in SIGNALS:
        d = sig["fixed"][name][:n] - sig["reference"][name][:n]
        errors[name] = {"max": float(np.abs(d).max()), "rms": float(np.sqrt(np.mean(d * d))),
                        "peak": float(np.abs(sig["reference"][name][:n]).max())}
    ref = runs["reference"].meta
    return {**runs, "signals": sig, "errors": errors,
            "meta": {"t_compared": float(runs["fixed"].t[n - 1]),
                     "reference_status": ref.get("status"), "reference_message": ref.get("message"),
                     "reference_wall_s": ref.get("wall_s"), "reference_nfev": ref.get("nfev"),
                     "speed_kmh": speed_kmh, "handwheel_deg": handwheel_deg, "t_step": t_step,
                     "rise": rise, "t_end": t_end, "drive_torque": drive_torque, "h": h,
                     "solver": solver, "reference": ref_opts}}
