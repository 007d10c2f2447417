"""The quarter-car test manoeuvres of Carpinelli 2015 §5.1.3-5.1.4 (docs/concept.md).

``TEST`` (18 s, the identification run): 0-6 s settle on an ISO 8608 class B road; 6-10 s
trapezoidal drive torque up to 500 N m (chassis -> driveline); 10-15 s neutral; 15-18 s brake
torque 350 N m (knuckle/arm -> rim). ``V1`` (300/150 N m, class A) and ``V2`` (400/250 N m,
class C) validate (§5.1.4). The paper gives neither the torque ramps nor the road realisation:
ramps ``DRIVE_RAMP`` and ``BRAKE_RAMP``, road seed ``ROAD_SEED``, 0.05 m spacing, faded in over
the first metres (our choices).

A model drives a manoeuvre through two input channels, ``drive_torque`` and
``brake_torque`` (``multilink-ideal`` and :func:`rtmbs.concept.models.quarter_car_model` both
have them), and is measured by ``chassis.z`` and ``chassis.vz``.
"""
from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from ..errors import SolverError, did_you_mean

DRIVE_RAMP = 1.0   # s, rise and fall of the drive trapezoid
BRAKE_RAMP = 0.3   # s, rise of the brake torque
ROAD_SEED = 3
ROAD_LENGTH = 400.0  # m (the car covers about 100 m in 18 s)
CHANNELS = ("drive_torque", "brake_torque")
SIGNALS = ("chassis.z", "chassis.vz")


@dataclass(frozen=True)
class Manoeuvre:
    """A four-phase test: settle until ``t_drive``, drive trapezoid (max ``drive`` N m) until
    ``t_neutral``, neutral until ``t_brake``, brake ``brake`` N m until ``t_end``; ISO 8608 road
    ``road_class``."""

    name: str
    drive: float = 500.0
    brake: float = 350.0
    road_class: str = "B"
    t_drive: float = 6.0
    t_neutral: float = 10.0
    t_brake: float = 15.0
    t_end: float = 18.0
    drive_ramp: float = DRIVE_RAMP
    brake_ramp: float = BRAKE_RAMP
    road_seed: int = ROAD_SEED

    def road(self) -> dict:
        """The road mapping for the tyre element (rtmbs.vehicle.road.from_spec)."""
        return {"type": "iso8608", "class": self.road_class, "length": ROAD_LENGTH, "dx": 0.05,
                "seed": self.road_seed, "x0": -5.0, "fade_in": 8.0}

    def torques(self, t) -> tuple[np.ndarray, np.ndarray]:
        """Drive and brake torque [N m] at times ``t``."""
        t = np.asarray(t, float)
        r = min(self.drive_ramp, 0.5 * (self.t_neutral - self.t_drive))
        up = np.clip((t - self.t_drive) / r, 0.0, 1.0)
        down = np.clip((self.t_neutral - t) / r, 0.0, 1.0)
        drive = self.drive * np.minimum(up, down)
        brake = self.brake * np.clip((t - self.t_brake) / self.brake_ramp, 0.0, 1.0)
        return drive, brake

    def inputs(self, h: float, n_steps: int | None = None) -> dict:
        """One value per step (the time before the step) for :func:`rtmbs.solvers.rollout.rollout`."""
        n = int(round(self.t_end / h)) if n_steps is None else n_steps
        d, b = self.torques(np.arange(n) * h)
        return {"drive_torque": d, "brake_torque": b}

    def scaled(self, factor: float, name: str | None = None) -> "Manoeuvre":
        """The same test with every time multiplied by ``factor`` (quick runs)."""
        return replace(self, name=name or f"{self.name}×{factor:g}",
                       **{k: getattr(self, k) * factor for k in
                          ("t_drive", "t_neutral", "t_brake", "t_end", "drive_ramp", "brake_ramp")})


TEST = Manoeuvre("test")
V1 = Manoeuvre("V1", drive=300.0, brake=150.0, road_class="A")
V2 = Manoeuvre("V2", drive=400.0, brake=250.0, road_class="C")
MANOEUVRES = {m.name: m for m in (TEST, V1, V2)}


def check_drivable(system, manoeuvre: Manoeuvre) -> None:
    """SolverError naming the manoeuvre, the model and what it lacks (an input channel or a
    measured signal)."""
    channels = tuple(getattr(system, "input_names", ()))
    for c in CHANNELS:
        if c not in channels:
            raise SolverError(f"manoeuvre '{manoeuvre.name}': model '{system.name}' has no input "
                              f"channel '{c}' (channels: {', '.join(channels) or 'none'})")
    outputs = tuple(system.output_names)
    for s in SIGNALS:
        if s not in outputs:
            raise SolverError(f"manoeuvre '{manoeuvre.name}': model '{system.name}' has no output "
                              f"'{s}'" + did_you_mean(s, outputs))


def run(system, manoeuvre: Manoeuvre, solver: str = "li-euler", h: float = 1e-3,
        every: int = 1, **options) -> dict:
    """Drive ``system`` through ``manoeuvre`` from its initial state: arrays ``t``, ``z``,
    ``vz``, ``az`` (finite difference of vz) every ``every`` steps, ``status`` (1 finished,
    −1 failed/diverged: the arrays are NaN from there)."""
    from ..solvers.base import get_solver
    from ..solvers.rollout import rollout

    check_drivable(system, manoeuvre)
    slv = get_solver(solver)(system, **options)
    state = system.initial_state()
    slv.reset(state)
    n = int(round(manoeuvre.t_end / h))
    r = rollout(slv, state, n, h, inputs=manoeuvre.inputs(h, n), every=every)
    # the samples after steps every, 2 every, ...; a failed run keeps NaN from where it stopped
    t = np.arange(1, n // every + 1) * every * h
    out = {"t": t, "status": int(r.status)}
    for key, sig in (("z", "chassis.z"), ("vz", "chassis.vz")):
        y = np.full(t.shape, np.nan)
        v = np.asarray(r.outputs[sig])[:len(t)]
        y[:len(v)] = v
        out[key] = y
    out["az"] = np.gradient(out["vz"], t)
    return out


# -- full car (§5.2) ------------------------------------------------------------------------------
CAR_CHANNELS = ("drive_torque", "brake_front", "brake_rear")
CAR_SIGNALS = {"z": "body.z", "vz": "body.vz", "wx": "body.wx", "wy": "body.wy"}


def run_car(system, manoeuvre: Manoeuvre, solver: str = "li-euler", h: float = 1e-3,
            every: int = 1, **options) -> dict:
    """Drive the 12-DOF trailing-arm car (:func:`rtmbs.concept.models.trailing_arm_car_model`)
    through ``manoeuvre``: ``drive`` per rear wheel, ``brake`` on each of the four wheels (the
    the paper's equal front/rear braking torque). Returns t, z, vz (sprung CG), wx, wy (roll and
    pitch rates), ``status``."""
    from ..solvers.base import get_solver
    from ..solvers.rollout import rollout

    channels = tuple(getattr(system, "input_names", ()))
    for c in CAR_CHANNELS:
        if c not in channels:
            raise SolverError(f"manoeuvre '{manoeuvre.name}': model '{system.name}' has no input "
                              f"channel '{c}' (channels: {', '.join(channels) or 'none'})")
    slv = get_solver(solver)(system, **options)
    state = system.initial_state()
    slv.reset(state)
    n = int(round(manoeuvre.t_end / h))
    d, b = manoeuvre.torques(np.arange(n) * h)
    r = rollout(slv, state, n, h, inputs={"drive_torque": d, "brake_front": b, "brake_rear": b},
                every=every)
    t = np.arange(1, n // every + 1) * every * h
    out = {"t": t, "status": int(r.status)}
    for key, sig in CAR_SIGNALS.items():
        y = np.full(t.shape, np.nan)
        v = np.asarray(r.outputs[sig])[:len(t)]
        y[:len(v)] = v
        out[key] = y
    return out
