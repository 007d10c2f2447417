"""Vehicle and subsystem files (YAML): the validated vocabulary (docs/vehicle.md).

A vehicle file names a chassis and its subsystems; each subsystem is a file (or an inline
mapping) of hard points and properties of its LEFT side in its own frame, placed in the vehicle
frame by ``position``. Hard-point and body names depend on the template: each template lists them
(``HARD_POINTS``, ``BODIES``) and :func:`check_names` names an unknown or missing one.
"""
from __future__ import annotations

import math
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from ...errors import ModelError, did_you_mean
from ...model.description import Float, _no_booleans, inertia_matrix

Vec3 = tuple[Float, Float, Float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", allow_inf_nan=False)


def _positive(v, what="value"):
    if v is not None and not v > 0:
        raise ValueError(f"{what} must be > 0, got {v}")
    return v


def _non_negative(v):
    for x in (v if isinstance(v, (tuple, list)) else (v,)):
        if x < 0:
            raise ValueError(f"must be >= 0, got {v}")
    return v


class Part(_Strict):
    """A body: mass (kg), inertia about its centre of mass in vehicle axes at design (3, 6 or
    3×3 values, kg m²) and centre of mass (subsystem frame, left side). Links may give a
    ``radius`` instead of inertia and centre: a thin rod between their two hard points."""

    mass: Float
    inertia: Any = None
    centre: Vec3 | None = None
    radius: Float | None = None

    _m = field_validator("mass")(lambda cls, v: _positive(v, "mass"))
    _r = field_validator("radius")(lambda cls, v: _positive(v, "radius"))

    @field_validator("inertia")
    @classmethod
    def _inertia(cls, v):
        if v is not None:
            _no_booleans(v)
            inertia_matrix(v)  # shape check; the model's Body checks definiteness
        return v


class Bushing(_Strict):
    """Bushing rates in the bushing's axes (z along the pivot or link axis): N/m, N s/m,
    N m/rad, N m s/rad."""

    stiffness: Vec3
    damping: Vec3 = (0.0, 0.0, 0.0)
    rotational_stiffness: Vec3 = (0.0, 0.0, 0.0)
    rotational_damping: Vec3 = (0.0, 0.0, 0.0)

    _nn = field_validator("stiffness", "damping", "rotational_stiffness",
                          "rotational_damping")(lambda cls, v: _non_negative(v))


class Spring(_Strict):
    """Linear coil spring: ``stiffness`` (N/m), ``preload`` (compression force at the design
    length, N: sets the free length)."""

    stiffness: Float
    preload: Float = 0.0
    _k = field_validator("stiffness")(lambda cls, v: _positive(v, "stiffness"))


class DamperTable(_Strict):
    """Damper force (N, tension positive: rebound) against its extension speed (m/s, + in
    rebound), interpolated linearly; speeds increasing, forces not decreasing."""

    velocity: list[Float]
    force: list[Float]

    @model_validator(mode="after")
    def _check(self):
        if len(self.velocity) < 2 or len(self.velocity) != len(self.force):
            raise ValueError("velocity and force need the same length, at least 2 points")
        if any(b <= a for a, b in zip(self.velocity, self.velocity[1:])):
            raise ValueError("velocity must increase")
        if any(b < a for a, b in zip(self.force, self.force[1:])):
            raise ValueError("force must not decrease with velocity (a damper dissipates)")
        return self


class Damper(_Strict):
    """Linear ``damping`` (N s/m) or a ``table`` of force against speed (one of the two)."""

    damping: Float | None = None
    table: DamperTable | None = None
    _c = field_validator("damping")(lambda cls, v: v if v is None else _non_negative(v))

    @model_validator(mode="after")
    def _one(self):
        if (self.damping is None) == (self.table is None):
            raise ValueError("give either damping (N s/m) or table {velocity, force}")
        return self


class Stops(_Strict):
    """Bump and rebound stops on the spring's line (one ``stop`` element): the bump stop touches
    after ``bump_clearance`` m of compression from the design length, the rebound stop after
    ``rebound_clearance`` m of extension; force ``stiffness`` · penetration^``exponent``
    (N/m^exponent) plus ``damping`` (N s/m) in contact."""

    bump_clearance: Float
    rebound_clearance: Float
    stiffness: Float
    exponent: Float = 1.0
    damping: Float = 0.0
    _p = field_validator("bump_clearance", "rebound_clearance", "stiffness")(
        lambda cls, v: _positive(v))
    _c = field_validator("damping")(lambda cls, v: _non_negative(v))

    @model_validator(mode="after")
    def _exp(self):
        if self.exponent < 1.0:
            raise ValueError(f"exponent must be >= 1, got {self.exponent}")
        return self


class Alignment(_Strict):
    """Static camber (negative: top inboard) and toe-in (degrees) of the left wheel."""

    camber_deg: Float = 0.0
    toe_in_deg: Float = 0.0


def _points(v):
    """Hard points: a mapping name -> [x, y, z] (m), each 3 finite numbers."""
    if not isinstance(v, dict):
        raise ValueError("expected a mapping of hard-point names to [x, y, z] (m)")
    for k, p in v.items():
        try:
            ok = len(p) == 3 and all(not isinstance(x, bool) and math.isfinite(float(x))
                                     for x in p)
        except (TypeError, ValueError):
            ok = False
        if not ok:
            raise ValueError(f"hard point '{k}': expected 3 finite numbers [x, y, z] (m), got {p!r}")
    return v


class _Placed(_Strict):
    """A subsystem placed on the car: its hard points (m) relative to its ``position``."""

    description: str = ""
    position: Vec3 = (0.0, 0.0, 0.0)
    hard_points: dict[str, Vec3]
    _p = field_validator("hard_points", mode="before")(lambda cls, v: _points(v))


class Suspension(_Placed):
    template: Literal["double-wishbone", "mcpherson", "multilink"]
    alignment: Alignment = Field(default_factory=Alignment)
    bodies: dict[str, Part]
    spring: Spring
    damper: Damper
    stops: Stops | None = None
    bushings: dict[str, Bushing] = Field(default_factory=dict)


class Wheels(_Strict):
    """Wheel (rim + tyre) and tyre property file of all four corners."""

    description: str = ""
    tyre: str
    mass: Float
    spin_inertia: Float
    diametral_inertia: Float
    transient: bool = False
    _m = field_validator("mass", "spin_inertia", "diametral_inertia")(lambda cls, v: _positive(v))


class Column(_Strict):
    """Steering-column compliance between the handwheel and the pinion: the torsion bar's rate
    ``stiffness`` (N m/rad), ``damping`` (N m s/rad) and the power assist's ``assist_gain`` (assist
    torque on the pinion per N m twisting the torsion bar; 0: manual). With the handwheel's angle
    driven, the pinion sees the torsion bar stiffened by (1 + assist_gain)."""

    stiffness: Float
    damping: Float = 0.0
    assist_gain: Float = 0.0
    _k = field_validator("stiffness")(lambda cls, v: _positive(v, "stiffness"))
    _c = field_validator("damping", "assist_gain")(lambda cls, v: _non_negative(v))


class RackMount(_Strict):
    """The rack housing's mounts on the chassis along the rack's axis (y): ``stiffness`` (N/m,
    all mounts together), ``damping`` (N s/m), housing ``mass`` (kg)."""

    stiffness: Float
    damping: Float = 0.0
    mass: Float = 1.0
    _k = field_validator("stiffness", "mass")(lambda cls, v: _positive(v))
    _c = field_validator("damping")(lambda cls, v: _non_negative(v))


class Steering(_Placed):
    """Rack and pinion: the rack slides along y in the chassis; ``drive: rack-travel`` drives
    the rack's travel (m, + to the left) by the input ``input`` (a motion driver);
    ``pinion-angle`` drives the pinion (handwheel) angle (rad, + left turn) by the input, rack
    travel = ``ratio`` (m/rad) · pinion angle through a coupler; ``pinion`` is its body."""

    template: Literal["rack-and-pinion"]
    axle: Literal["front", "rear"] = "front"
    rack: Part
    pinion: Part | None = None
    drive: Literal["rack-travel", "pinion-angle"] = "rack-travel"
    ratio: Float | None = None
    input: str | None = None  # default rack_travel (m) or handwheel_angle (rad)
    column: Column | None = None          # None: the handwheel drives the pinion rigidly
    rack_mount: RackMount | None = None   # None: the rack slides in the chassis rigidly


class AntiRollBar(_Placed):
    """Two bar halves revolute to the chassis about y, joined by a torsion spring of
    ``stiffness`` (N m/rad, the bar's torsion rate); drop links (distance joints) from the arm
    ends to the suspension body ``attach``."""

    template: Literal["antiroll-bar"]
    axle: Literal["front", "rear"]
    attach: str = "lower_arm"
    half: Part
    stiffness: Float
    damping: Float = 0.0
    _k = field_validator("stiffness", "damping")(lambda cls, v: _non_negative(v))


class Driveline(_Placed):
    """Half shafts of the driven axle: an outshaft cylindrical to the chassis (the
    differential's output, plunging along y), a halfshaft on two universal joints, and the drive
    torque ``input`` (N m on each outshaft: the equal split of an open differential)."""

    template: Literal["half-shafts"]
    axle: Literal["front", "rear"] = "rear"
    outer_joint_offset: Float
    bodies: dict[str, Part]
    input: str = "drive_torque"


class Brake(_Strict):
    input: str
    omega_eps: Float = 0.5
    _e = field_validator("omega_eps")(lambda cls, v: _positive(v, "omega_eps"))


class Brakes(_Strict):
    """A brake element on each wheel (upright → wheel), the brake torque per wheel of its
    axle's input (N m)."""

    description: str = ""
    front: Brake | None = None
    rear: Brake | None = None


class Chassis(_Strict):
    mass: Float
    inertia: Any
    centre_of_mass: Vec3
    _m = field_validator("mass")(lambda cls, v: _positive(v, "mass"))
    _nb = field_validator("inertia", mode="before")(lambda cls, v: _no_booleans(v))


#: subsystem role -> schema
SUBSYSTEMS = {"front_suspension": Suspension, "rear_suspension": Suspension, "wheels": Wheels,
              "steering": Steering, "front_antiroll": AntiRollBar, "rear_antiroll": AntiRollBar,
              "driveline": Driveline, "brakes": Brakes}
REQUIRED = ("wheels",)
#: at least one of these (a vehicle of one axle: an axle rig, docs/vehicle.md)
SUSPENSION_ROLES = ("front_suspension", "rear_suspension")


class Vehicle(_Strict):
    name: str = "vehicle"
    description: str = ""
    gravity: Vec3 = (0.0, 0.0, -9.81)
    joints: Literal["ideal", "bushings"] = "ideal"
    speed: Float = 0.0
    road: dict = Field(default_factory=lambda: {"type": "flat"})
    chassis: Chassis
    subsystems: dict[str, dict]


def check_names(given, allowed, path: str, what: str, required=True) -> None:
    """Names of hard points / bodies / bushings against a template's list: an unknown name
    (with a suggestion) or a missing one raises ModelError naming the key."""
    def key(k):
        return f"{path}.{k}" if path else k

    for k in given:
        if k not in allowed:
            raise ModelError(key(k), f"unknown {what} '{k}' for this template"
                             + did_you_mean(k, allowed))
    if required:
        for k in allowed:
            if k not in given:
                raise ModelError(key(k), f"required {what} is missing")
