"""The virtual measurement campaign of Carpinelli 2015 §5.2.3 on a full vehicle, as an API
other code reuses (the study ``rtmbs study fullcar``, the Table 5.3 validation).

:func:`run_campaign` drives a car built by ``rtmbs.vehicle.build`` (the rear-drive
``sedan-rwd`` by default; the built-in ``sedan`` drives its front axle) straight ahead, steering
locked, on an ISO 8608 road, through four phases (seconds, :data:`PHASES`): at rest (settle),
acceleration to ``target_kmh`` (drive torque on the car's driven axle), neutral (no torque,
rolling resistance only), braking (equal torque front and rear by default). It
returns a :class:`Campaign`: the raw (unfiltered) virtual measurements, the true values they
estimate, the inputs, and the full :class:`~rtmbs.result.Result`.

Sensors (:mod:`rtmbs.analysis.sensors`), per corner ``fl``, ``fr``, ``rl``, ``rr``:

* **stroke**: a distance sensor (wire potentiometer) from a chassis point ``CORNER_HEIGHT`` m
  above the design wheel centre to the wheel centre, change from its design length, + extension
  (body farther from the wheel), m; mounted vertically, so it reads the wheel travel (the
  wheel's lateral motion enters at second order);
* **corner_acc**: vertical (world z) kinematic acceleration of that chassis point, m/s², without
  gravity (a body-fixed accelerometer senses r̈ − g in body axes: ``rtmbs.analysis.sensors``
  ``gravity=``, ``frame="body"``); by central differences of its exact velocity;
* true values: ``corner_z`` (the chassis point's height change), ``wheel_centre_z`` (wheel
  centre height, absolute), ``road_z`` (road height under the wheel centre), m.

Drive torque: ``drive_torque=None`` (default) tracks the linear speed ramp 0 → ``target_kmh``
over the acceleration phase: feed-forward m_eff a r plus the PI of
:class:`~rtmbs.manoeuvres.driver.SpeedControl` (gains ``kp``, ``ki``), never negative; a number
is the plateau of an open-loop trapezoid (N m per half shaft); a callable f(t) is used as given.
Every torque rises and falls over ``DRIVE_RAMP`` s; brake torques rise over ``BRAKE_RAMP`` s.
"""
from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..analysis import sensors
from ..errors import SolverError
from .driver import Driver, SpeedControl, drive

CORNERS = ("fl", "fr", "rl", "rr")
#: seconds of settle (at rest), acceleration, neutral, braking (Carpinelli 2015 Fig. 5.18)
PHASES = (5.0, 5.0, 10.0, 5.0)
QUICK_SCALE = 0.3   # quick: every phase and the target speed scaled (same accelerations)
DRIVE_RAMP = 0.2    # s, rise and fall of the drive torque (ours)
BRAKE_RAMP = 0.3    # s, rise of the brake torque (ours)
BRAKE_TORQUE = 300.0  # N m per wheel, front and rear (ours: the paper gives no value)
ROAD_SEED = 14
ROAD_DX = 0.05
ROAD_AHEAD = 1.0    # m: the road starts this far ahead of the front wheels (the car settles
ROAD_FADE = 5.0     # m: on level ground), faded in over ROAD_FADE m
CORNER_HEIGHT = 0.25  # m: the corner sensors above the design wheel centre (ours)
G = 9.81

UNITS = {"t": "s", "speed": "m/s", "a_x": "m/s^2", "target_speed": "m/s",
         "drive_torque": "N m", "brake_front": "N m", "brake_rear": "N m",
         "stroke": "m", "corner_acc": "m/s^2", "corner_z": "m", "wheel_centre_z": "m",
         "road_z": "m", "cg_x": "m", "cg_z": "m", "cg_vz": "m/s", "pitch": "rad", "roll": "rad"}


@dataclass
class Campaign:
    """The campaign's signals over ``t`` (s), raw (no filter), SI units (:data:`UNITS`).

    Scalars per time: ``speed`` (chassis forward speed, the tachometer), ``a_x`` (its central
    difference), ``target_speed``, ``drive_torque`` (per half shaft), ``brake_front`` and
    ``brake_rear`` (per wheel), chassis (sprung mass) centre of mass ``cg_x``, ``cg_z``,
    ``cg_vz``, ``pitch`` (+ nose down) and ``roll`` (+ right side down), ISO 8855.
    Dicts corner -> (N,): ``stroke``, ``corner_acc``, ``corner_z``, ``wheel_centre_z``,
    ``road_z``. ``observer``: W_tot (N), h_cg (m, whole car at design), L (m), K_tire (N/m)
    of eq. 5.11. ``phases``: phase name -> (start, end) s. ``result``: the full run."""

    t: np.ndarray
    speed: np.ndarray
    a_x: np.ndarray
    target_speed: np.ndarray
    drive_torque: np.ndarray
    brake_front: np.ndarray
    brake_rear: np.ndarray
    cg_x: np.ndarray
    cg_z: np.ndarray
    cg_vz: np.ndarray
    pitch: np.ndarray
    roll: np.ndarray
    stroke: dict
    corner_acc: dict
    corner_z: dict
    wheel_centre_z: dict
    road_z: dict
    road: object
    observer: dict
    phases: dict
    result: object
    meta: dict = field(default_factory=dict)

    @property
    def fs(self) -> float:
        """Sampling rate of the signals, Hz."""
        return 1.0 / float(self.t[1] - self.t[0])

    def signals(self) -> dict:
        """Flat ``{name: (array, unit)}``; per-corner signals as ``stroke.fl`` etc."""
        out = {}
        for k in ("speed", "a_x", "target_speed", "drive_torque", "brake_front", "brake_rear",
                  "cg_x", "cg_z", "cg_vz", "pitch", "roll"):
            out[k] = (getattr(self, k), UNITS[k])
        for k in ("stroke", "corner_acc", "corner_z", "wheel_centre_z", "road_z"):
            for c, v in getattr(self, k).items():
                out[f"{k}.{c}"] = (v, UNITS[k])
        return out

    def to_mdf(self, path, extra: dict | None = None, comment: str = "") -> Path:
        """Write :meth:`signals` (plus ``extra`` ``{name: (array, unit)}`` on the same ``t``) to
        an ASAM MDF4 file, each channel with its unit; time is the master channel (s)."""
        from asammdf import MDF, Signal

        sig = {**self.signals(), **(extra or {})}
        mdf = MDF(version="4.10")
        mdf.append([Signal(samples=np.ascontiguousarray(v, float), timestamps=self.t, name=k,
                           unit=u) for k, (v, u) in sig.items()],
                   comment=comment or f"rtmbs campaign (Carpinelli 2015 §5.2.3): model "
                   f"{self.meta.get('model')}, solver {self.meta.get('solver')}, h = "
                   f"{self.meta.get('h')} s")
        path = Path(path)
        mdf.save(path, overwrite=True)
        mdf.close()
        return path


def vehicle_system(model, road: dict, speed: float = 0.0):
    """(compiled system, description) of ``model`` ("sedan-rwd", "sedan", "sedan-bushings", a
    vehicle file or its folder) on ``road``."""
    from ..model.strict_yaml import safe_load
    from ..system import compile_model
    from ..vehicle.build.vehicle import SEDAN, SEDAN_RWD, vehicle_from_dict

    joints = None
    if model in ("sedan", "sedan-bushings"):
        path, joints = SEDAN / "vehicle.yaml", ("ideal" if model == "sedan" else "bushings")
    elif model == "sedan-rwd":
        path = SEDAN_RWD / "vehicle.yaml"
    else:
        path = Path(model)
        path = path / "vehicle.yaml" if path.is_dir() else path
        if not path.is_file():
            raise SolverError(f"campaign: model must be 'sedan-rwd', 'sedan', 'sedan-bushings' or a "
                              f"vehicle file, got {model!r}")
    data = safe_load(path.read_text())
    data["road"], data["speed"] = road, float(speed)
    m = vehicle_from_dict(data, path.parent, str(path), joints)
    m.name = model if isinstance(model, str) and model.startswith("sedan") else path.parent.name
    return compile_model(m), m


def observer_parameters(model) -> dict:
    """W_tot (N), h_cg (m: the whole car's centre of mass at design), wheelbase L (m) and K_tire
    (N/m, the front tyre's VERTICAL_STIFFNESS) of eq. 5.11, from a vehicle description."""
    from ..kernels.elements.tyre import TYRE_FILES
    from ..vehicle.tyre import magic_formula as mfk
    from ..vehicle.tyre.tir import data_path, load_tir

    mass = sum(b.mass for b in model.bodies)
    h_cg = sum(b.mass * b.position[2] for b in model.bodies) / mass
    L = model.body("fl_wheel").position[0] - model.body("rl_wheel").position[0]
    tyre = next(f.tyre for f in model.forces if f.type == "tyre")
    src = TYRE_FILES.get(tyre)
    props = load_tir(data_path(src) if src else tyre)
    K = float(props.params[mfk.PARAM_NAMES.index("VERTICAL_STIFFNESS")])
    return {"W_tot": mass * G, "mass": mass, "h_cg": h_cg, "L": L, "K_tire": K}


def _window(t: float, t0: float, t1: float, ramp: float) -> float:
    return min(max((t - t0) / ramp, 0.0), 1.0) * min(max((t1 - t) / ramp, 0.0), 1.0)


class CampaignDriver(Driver):
    """The campaign's inputs: drive torque in [t0, t1) (ramp tracking or open loop), brake
    torques from ``t2`` on, handwheel held at 0; ``progress(t)`` every simulated second."""

    def __init__(self, system, t0, t1, t2, target, drive_torque, brake_front, brake_rear,
                 mass_eff, radius, kp=2.0, ki=0.4, progress=None):
        super().__init__(system, inputs={})
        for name in ("drive_torque", "brake_torque_front", "brake_torque_rear"):
            try:
                self._row[name] = system._channel(name)
            except KeyError as exc:
                raise SolverError(f"campaign: {exc.args[0]}") from None
        self.t0, self.t1, self.t2, self.target = t0, t1, t2, target
        self.torque, self.bf, self.br = drive_torque, brake_front, brake_rear
        self.pi = SpeedControl(0.0, mass_eff, radius, kp=kp, ki=ki)
        self.progress, self._next = progress, 1.0
        self.signals.update({"campaign.drive_torque": 0.0, "campaign.brake_front": 0.0,
                             "campaign.brake_rear": 0.0, "campaign.target_speed": 0.0})

    def accel(self) -> float:
        """Feed-forward acceleration: the trapezoid of ramps DRIVE_RAMP reaching the target."""
        return self.target / (self.t1 - self.t0 - DRIVE_RAMP)

    def target_speed(self, t: float) -> float:
        """Integral of accel() times the trapezoid window (``target`` at t1)."""
        r, T = DRIVE_RAMP, self.t1 - self.t0
        u = min(max(t - self.t0, 0.0), T)

        def ramp(x):  # ∫ of min(x/r, 1) from 0
            return x * x / (2 * r) if x < r else x - r / 2

        return self.accel() * (ramp(u) - ramp(max(u - (T - r), 0.0)))

    def update(self, t, q, qd, h):
        super().update(t, q, qd, h)
        s = self.signals
        w = _window(t, self.t0, self.t1, DRIVE_RAMP)
        vt = self.target_speed(t)
        if self.torque is None:
            T = 0.0
            if w > 0.0:
                self.pi.target = vt
                a_ff = self.accel()
                pi = self.pi.torque(t, s["chassis.speed"], h)
                T = max(w * (self.pi.mass * a_ff * self.pi.radius + pi), 0.0) / 2.0
        elif callable(self.torque):
            T = float(self.torque(t))
        else:
            T = w * float(self.torque)
        b = min(max((t - self.t2) / BRAKE_RAMP, 0.0), 1.0)
        self._set("drive_torque", T, 0.0, t)
        self._set("brake_torque_front", b * self.bf, 0.0, t)
        self._set("brake_torque_rear", b * self.br, 0.0, t)
        s["campaign.drive_torque"], s["campaign.target_speed"] = T, vt
        s["campaign.brake_front"], s["campaign.brake_rear"] = b * self.bf, b * self.br
        if self.progress is not None and t >= self._next:
            self._next += 1.0
            self.progress(t)


def _number(name, v, lo=0.0):
    if not (isinstance(v, (int, float)) and math.isfinite(v) and v >= lo):
        raise SolverError(f"campaign: {name} must be a finite number >= {lo:g}, got {v!r}")
    return float(v)


def run_campaign(model="sedan-rwd", *, target_kmh: float = 80.0, drive_torque=None,
                 brake_front: float = BRAKE_TORQUE, brake_rear: float = BRAKE_TORQUE,
                 road_class: str = "B", road: dict | None = None, road_seed: int = ROAD_SEED,
                 phases=PHASES, h: float = 1e-3, solver: str = "li-euler", save_every: int = 2,
                 quick: bool = False, progress=None, kp: float = 2.0, ki: float = 0.4,
                 **options) -> Campaign:
    """The §5.2.3 campaign on ``model``; see the module docstring.

    ``target_kmh`` speed at the end of the acceleration phase; ``drive_torque`` None (track the
    ramp), N m per half shaft (trapezoid) or f(t); ``brake_front``/``brake_rear`` N m per wheel;
    ``road_class`` ISO 8608 class (seed ``road_seed``, 0.05 m spacing, both tracks independent)
    or ``road`` a road mapping (``rtmbs.vehicle.road.from_spec``: a CSV file, a class A then B
    profile...); ``phases`` (settle, accelerate, neutral, brake) in s; ``quick`` scales the
    phases and the target speed by :data:`QUICK_SCALE`; fixed step ``h`` of ``solver``
    (options passed on), signals every ``save_every`` steps; ``progress(t)`` called every
    simulated second. SolverError names a bad argument or the time of a diverged step."""
    from ..vehicle.road import from_spec

    phases = tuple(_number("phases", float(p), 0.0) for p in phases) if len(phases) == 4 else None
    if phases is None or phases[1] <= 2 * DRIVE_RAMP:
        raise SolverError(f"campaign: phases must be 4 durations (settle, accelerate, neutral, "
                          f"brake) s with accelerate > {2 * DRIVE_RAMP} s")
    v = _number("target_kmh", target_kmh) / 3.6
    bf, br = _number("brake_front", brake_front), _number("brake_rear", brake_rear)
    if drive_torque is not None and not callable(drive_torque):
        drive_torque = _number("drive_torque", drive_torque)
    if quick:
        phases, v = tuple(p * QUICK_SCALE for p in phases), v * QUICK_SCALE
    t0 = phases[0]
    t1, t2 = t0 + phases[1], t0 + phases[1] + phases[2]
    t_end = t2 + phases[3]
    flat = road is None
    if flat:
        road = {"type": "flat"}
    system, desc = vehicle_system(model, road)
    if flat:
        length = 64.0 * math.ceil((v * (0.5 * phases[1] + phases[2] + phases[3]) + 30.0) / 64.0)
        x0 = max(b.position[0] for b in desc.bodies if b.name.endswith("_wheel")) + ROAD_AHEAD
        road = {"type": "iso8608", "class": road_class, "length": length, "dx": ROAD_DX,
                "seed": int(road_seed), "x0": round(x0, 3), "fade_in": ROAD_FADE}
        system, desc = vehicle_system(model, road)
    obs = observer_parameters(desc)
    radius = 0.5 * (desc.body("fl_wheel").position[2] + desc.body("rl_wheel").position[2])
    J = sum(float(np.asarray(b.inertia, float)[1, 1])  # spin axis: vehicle y
            for b in desc.bodies if b.name.endswith("_wheel"))
    mass_eff = obs["mass"] + J / radius ** 2
    drv = CampaignDriver(system, t0, t1, t2, v, drive_torque, bf, br, mass_eff, radius, kp, ki,
                         progress)
    w0 = time.perf_counter()
    res = drive(system, drv, t_end, h=h, solver=solver, save_every=save_every, **options)
    wall = time.perf_counter() - w0
    return _measure(system, desc, res, from_spec(road), obs, {
        "settle": (0.0, t0), "accelerate": (t0, t1), "neutral": (t1, t2), "brake": (t2, t_end)},
        dict(model=desc.name, solver=solver, h=h, save_every=save_every, quick=quick,
             target_kmh=v * 3.6, brake_front=bf, brake_rear=br, road=road, wall_s=wall,
             drive_torque="ramp tracking (FF + PI)" if drive_torque is None else
             ("f(t)" if callable(drive_torque) else drive_torque), mass_eff=mass_eff,
             radius=radius))


def _measure(system, desc, res, road, obs, phases, meta) -> Campaign:
    t = res.t
    q0 = system.initial_state().q
    names = list(system.coordinate_names)
    sig = {k: {} for k in ("stroke", "corner_acc", "corner_z", "wheel_centre_z", "road_z")}
    for c in CORNERS:
        wheel = f"{c}_wheel"
        k = names.index(f"{wheel}.x")
        wc0 = q0[k:k + 3]
        corner = sensors.point_at(system, "chassis", wc0 + (0.0, 0.0, CORNER_HEIGHT), f"{c}_corner")
        centre = sensors.Point(wheel, (0.0, 0.0, 0.0), f"{c}_wheel_centre")
        d = sensors.marker_distance(res, corner, centre)
        sig["stroke"][c] = d - CORNER_HEIGHT
        zc = sensors.marker_position(res, corner)[:, 2]
        sig["corner_z"][c] = zc - zc[0]
        sig["corner_acc"][c] = sensors.marker_acceleration(res, corner)[:, 2]
        wc = sensors.marker_position(res, centre)
        sig["wheel_centre_z"][c] = wc[:, 2]
        sig["road_z"][c] = road.height(wc[:, 0], wc[:, 1])
    speed = res.outputs["chassis.speed"]
    ang = sensors.body_angles(res, "chassis")
    o = res.outputs
    return Campaign(t=t, speed=speed, a_x=np.gradient(speed, t), target_speed=o["campaign.target_speed"],
                    drive_torque=o["campaign.drive_torque"], brake_front=o["campaign.brake_front"],
                    brake_rear=o["campaign.brake_rear"], cg_x=o["chassis.x"], cg_z=o["chassis.z"],
                    cg_vz=o["chassis.vz"], pitch=ang["pitch"], roll=ang["roll"], road=road,
                    observer=obs, phases=phases, result=res, meta=meta, **sig)
