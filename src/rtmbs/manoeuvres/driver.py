"""A driver for offline full-vehicle runs: it reads the chassis state after each fixed step and
sets the vehicle's input channels (handwheel angle, drive and brake torques) for the next one.

* :class:`SpeedControl`: PI control of the forward speed to an acceleration demand a = kp e +
  ki ∫e (e = target − v), turned into a wheel torque m a r (m the car's mass, r the loaded
  radius); positive: ``drive_torque`` per half shaft (T/2), negative: ``brake_torque_front`` /
  ``_rear`` per wheel (|T|/4). The integral is clamped (anti-windup).
* :class:`PurePursuit`: the classic pure-pursuit law on the rear-axle point: road-wheel angle
  δ = atan(2 (L + K v²) sin α / l_d) to the path point l_d = max(l_min, t_p v) ahead, α its
  bearing from the heading, K the car's understeer gradient (rad per m/s²: the steady-state
  steer of a curvature κ is (L + K v²) κ); handwheel = ``ratio`` · δ, applied through a first-order actuator (time constant
  ``tau``, rate limit), the channel set with its value and rate (a motion driver sees both).
* open-loop channels: callables f(t) per input name (``inputs=``), set with value and rate.

Fixed cost per step: a few dozen floating-point operations and a bounded path search (a window
around the last nearest point), no allocation; the solver step is the compiled one."""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field

import numpy as np

from ..errors import SolverError
from ..result import Result
from ..solvers.base import get_solver, time_after
from ..protocol import EVAL_PHI


@dataclass
class SpeedControl:
    """PI speed controller; ``target`` m/s (a number or f(t))."""

    target: object
    mass: float
    radius: float
    kp: float = 2.0            # (m/s²) per (m/s)
    ki: float = 0.4            # (m/s²) per (m)
    a_max: float = 4.0         # |a| limit of the demand, m/s²
    drive: str = "drive_torque"
    brakes: tuple = ("brake_torque_front", "brake_torque_rear")
    integral: float = 0.0

    def torque(self, t: float, v: float, h: float) -> float:
        """Total wheel torque demand (N m, + drive) after one step of the integrator."""
        vt = self.target(t) if callable(self.target) else float(self.target)
        e = vt - v
        lim = self.a_max / max(self.ki, 1e-12)
        self.integral = min(max(self.integral + e * h, -lim), lim)
        a = min(max(self.kp * e + self.ki * self.integral, -self.a_max), self.a_max)
        return self.mass * a * self.radius


@dataclass
class PurePursuit:
    """Pure-pursuit path following of the polyline ``x, y`` (m, resampled every ``ds``)."""

    x: np.ndarray
    y: np.ndarray
    wheelbase: float
    rear_offset: float         # rear axle behind the chassis reference point, m (along x)
    ratio: float               # handwheel angle per road-wheel angle (channel units per rad)
    understeer: float = 0.0    # understeer gradient K, rad of road-wheel angle per m/s² of ay
    preview_time: float = 0.6  # s
    min_lookahead: float = 6.0 # m
    tau: float = 0.05          # handwheel actuator time constant, s
    max_rate: float = 15.0     # handwheel rate limit, channel units per s (rad/s)
    ds: float = 0.1
    channel: str = "handwheel_angle"
    _i: int = field(default=0, init=False)

    def __post_init__(self):
        x, y = np.asarray(self.x, float), np.asarray(self.y, float)
        if x.ndim != 1 or x.shape != y.shape or x.size < 2:
            raise SolverError("path: x and y must be 1-D arrays of the same length >= 2")
        s = np.concatenate([[0.0], np.cumsum(np.hypot(np.diff(x), np.diff(y)))])
        n = int(s[-1] / self.ds) + 1
        si = np.linspace(0.0, s[-1], n)
        self.px, self.py = np.interp(si, s, x), np.interp(si, s, y)
        self.hx = np.gradient(self.px)
        self.hy = np.gradient(self.py)
        nrm = np.hypot(self.hx, self.hy)
        self.hx, self.hy = self.hx / nrm, self.hy / nrm
        self.window = 50  # points searched either side of the last nearest one (± 5 m at ds 0.1)

    def start(self, x: float, y: float, within: float) -> None:
        """The nearest point to (x, y) among the path's first ``within`` metres (a path may
        pass the start again later: laps of a circle)."""
        k = max(1, min(self.px.size, int(within / self.ds) + 1))
        self._i = int(np.argmin((self.px[:k] - x) ** 2 + (self.py[:k] - y) ** 2))

    def nearest(self, x: float, y: float) -> int:
        a, b = max(0, self._i - self.window), min(self.px.size, self._i + self.window + 1)
        d = (self.px[a:b] - x) ** 2 + (self.py[a:b] - y) ** 2
        self._i = a + int(np.argmin(d))
        return self._i

    def lateral_error(self, x: float, y: float) -> float:
        """Signed distance (+ left of the path) of (x, y) from the nearest path point."""
        i = self.nearest(x, y)
        return -(x - self.px[i]) * self.hy[i] + (y - self.py[i]) * self.hx[i]

    def command(self, x: float, y: float, yaw: float, v: float) -> float:
        """Handwheel command (channel units) for the chassis reference point (x, y) and yaw."""
        rx, ry = x - self.rear_offset * math.cos(yaw), y - self.rear_offset * math.sin(yaw)
        ld = max(self.min_lookahead, self.preview_time * v)
        i = self.nearest(rx, ry)
        j = min(i + int(round(ld / self.ds)), self.px.size - 1)
        dx, dy = self.px[j] - rx, self.py[j] - ry
        alpha = math.atan2(dy, dx) - yaw
        dist = max(math.hypot(dx, dy), 1e-6)
        # curvature to the target point 2 sin α / l_d; steady-state steer for it (L + K v²) κ
        delta = math.atan(2.0 * (self.wheelbase + self.understeer * v * v) * math.sin(alpha) / dist)
        return self.ratio * delta


def table_input(times, values, name: str = "table"):
    """An open-loop input from a table: piecewise linear in t through (``times``, ``values``),
    held at the ends; ``times`` strictly increasing. SolverError names ``name`` on bad input."""
    t, v = np.asarray(times, float), np.asarray(values, float)
    if t.ndim != 1 or t.shape != v.shape or t.size < 2:
        raise SolverError(f"{name}: times and values must be 1-D of the same length >= 2, "
                          f"got {t.shape} and {v.shape}")
    if not (np.all(np.isfinite(t)) and np.all(np.isfinite(v))):
        raise SolverError(f"{name}: times and values must be finite")
    if not np.all(np.diff(t) > 0):
        raise SolverError(f"{name}: times must be strictly increasing")
    return lambda x: float(np.interp(x, t, v))


class Driver:
    """Sets a vehicle system's channels between steps: speed control, path following and
    open-loop inputs ``{name: f(t)}`` (f returns the value; its rate is taken by differences)."""

    def __init__(self, system, speed: SpeedControl | None = None, path: PurePursuit | None = None,
                 inputs: dict | None = None, chassis: str = "chassis"):
        self.system, self.speed, self.path = system, speed, path
        names = list(system.coordinate_names)
        if f"{chassis}.x" not in names or f"{chassis}.e0" not in names:
            raise SolverError(f"driver: no body '{chassis}' in Euler parameters in the model "
                              f"'{system.name}'")
        self.k = names.index(f"{chassis}.x")
        self.inputs = dict(inputs or {})
        self._row = {}  # channel name -> its row of the system's function parameters
        for name in list(self.inputs) + ([path.channel] if path else []) + \
                ([speed.drive, *speed.brakes] if speed else []):
            try:
                self._row[name] = system._channel(name)
            except KeyError as exc:
                raise SolverError(f"driver: {exc.args[0]}") from None
        self.handwheel = 0.0
        self.signals = {"driver.handwheel": 0.0, "driver.torque": 0.0, "driver.lateral_error": 0.0,
                        "chassis.yaw": 0.0, "chassis.speed": 0.0, "chassis.yaw_rate": 0.0,
                        "chassis.ay": 0.0}
        self.signals.update({f"driver.{n}": 0.0 for n in self.inputs})

    def _set(self, name: str, value: float, rate: float, t: float) -> None:
        self.system.fun_par[self._row[name], :4] = (value, rate, 0.0, t)

    def chassis(self, q, qd):
        """Reference point x, y, yaw, forward speed and yaw rate of the chassis."""
        k = self.k
        e0, e1, e2, e3 = q[k + 3:k + 7]
        a00 = e0 * e0 + e1 * e1 - e2 * e2 - e3 * e3
        a10 = 2.0 * (e1 * e2 + e0 * e3)
        yaw = math.atan2(a10, a00)
        c = math.hypot(a00, a10)
        v = (qd[k] * a00 + qd[k + 1] * a10) / c
        # global ω = 2 G ṗ with G = [−e, ẽ + e0 I]; its z row is (−e3, −e2, e1, e0)
        d0, d1, d2, d3 = qd[k + 3:k + 7]
        wz = 2.0 * (-e3 * d0 - e2 * d1 + e1 * d2 + e0 * d3)
        return q[k], q[k + 1], yaw, v, wz

    def update(self, t: float, q, qd, h: float) -> None:
        """Reads the state at t and sets the channels for the step t -> t + h."""
        x, y, yaw, v, wz = self.chassis(q, qd)
        s = self.signals
        s["chassis.yaw"], s["chassis.speed"], s["chassis.yaw_rate"] = yaw, v, wz
        s["chassis.ay"] = v * wz
        if self.speed is not None:
            T = self.speed.torque(t, v, h)
            s["driver.torque"] = T
            self._set(self.speed.drive, max(T, 0.0) / 2.0, 0.0, t)
            for b in self.speed.brakes:
                self._set(b, max(-T, 0.0) / 4.0, 0.0, t)
        if self.path is not None:
            cmd = self.path.command(x, y, yaw, v)
            p = self.path
            rate = min(max((cmd - self.handwheel) / max(p.tau, h), -p.max_rate), p.max_rate)
            self._set(p.channel, self.handwheel, rate, t)
            self.handwheel += rate * h
            s["driver.handwheel"] = self.handwheel
            s["driver.lateral_error"] = p.lateral_error(x, y)
        for name, f in self.inputs.items():
            val = float(f(t))
            self._set(name, val, (float(f(t + h)) - val) / h, t)
            s[f"driver.{name}"] = val


def drive(system, driver: Driver, t_end: float, h: float = 1e-3, solver: str = "li-euler",
          save_every: int = 10, progress=None, **options) -> Result:
    """Runs ``system`` from its initial state to ``t_end`` with fixed steps, the driver setting
    the channels before each step; a Result with the system's outputs plus the driver's
    signals (``driver.*``, ``chassis.yaw``/``speed``/``yaw_rate``/``ay``). SolverError on a
    diverged step (naming the time). ``progress(t, t_end)``, if given, is called about every
    0.1 s of simulated time and at the end."""
    if not (h > 0 and math.isfinite(h) and t_end > 0 and math.isfinite(t_end)):
        raise SolverError(f"drive: need finite h > 0 and t_end > 0, got h={h!r}, t_end={t_end!r}")
    if int(save_every) < 1:
        raise SolverError(f"drive: save_every must be >= 1, got {save_every!r}")
    slv = get_solver(solver)(system, **options)
    state = system.initial_state().copy()
    nsteps = int(round(t_end / h))
    nsave = nsteps // save_every + 1
    names = list(system.output_names)
    buf = np.zeros(len(names))
    out = np.empty((nsave, len(names)))
    t_arr, q_arr, qd_arr = np.empty(nsave), np.empty((nsave, system.n)), np.empty((nsave, system.n))
    sig_names = list(driver.signals)
    sig = np.empty((nsave, len(sig_names)))
    ws, phi = system.workspace(), np.zeros(nsave)

    def record(k):
        t_arr[k], q_arr[k], qd_arr[k] = state.t, state.q, state.qd
        system.outputs(state.t, state.q, state.qd, buf)
        out[k] = buf
        sig[k] = [driver.signals[n] for n in sig_names]
        system.evaluate(state.t, state.q, state.qd, ws, EVAL_PHI)
        phi[k] = np.linalg.norm(ws.phi)

    t0 = time.perf_counter()
    try:
        slv.reset(state)
        ks, t_start = 0, state.t
        every = max(1, int(round(0.1 / h)))
        for i in range(nsteps + 1):
            if progress is not None and (i % every == 0 or i == nsteps):
                progress(state.t, t_end)
            driver.update(state.t, state.q, state.qd, h)
            if i % save_every == 0:
                record(ks)
                ks += 1
            if i == nsteps:
                break
            ok = slv.step(state, h)
            state.t = time_after(t_start, h, i + 1)
            if not ok or not math.isfinite(state.q.sum() + state.qd.sum()):
                raise SolverError(f"drive: the run diverged at t = {state.t:.4g} s (solver '{solver}', "
                                  f"h = {h:g} s)")
    finally:  # the channels back to 0 (the model's initial state is assembled with them)
        for name in driver._row:
            driver._set(name, 0.0, 0.0, 0.0)
    wall = time.perf_counter() - t0
    outputs = {n: out[:ks, j].copy() for j, n in enumerate(names)}
    outputs.update({n: sig[:ks, j].copy() for j, n in enumerate(sig_names)})
    return Result(t=t_arr[:ks].copy(), q=q_arr[:ks].copy(), qd=qd_arr[:ks].copy(),
                  lam=np.zeros((ks, system.m)), phi_norm=phi[:ks].copy(), phid_norm=np.zeros(ks),
                  outputs=outputs, coordinate_names=list(system.coordinate_names),
                  meta=dict(model=system.name, solver=solver, h=h, steps=nsteps, wall_s=wall,
                            status=1, message="finished"))
