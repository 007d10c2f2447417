"""Model description: bodies, markers, joints, forces, inputs (validated pydantic models).

The same vocabulary serves the Python API and YAML files (docs/model-format.md). Objects refer to
each other by name: a marker is ``body.marker`` (``ground.name`` for the ground). Values are SI;
angles in radians unless a key ends in ``_deg``.
"""
from __future__ import annotations

import math
from typing import Annotated, Any, Literal, Union

import numpy as np
from pydantic import BaseModel, BeforeValidator, ConfigDict, Field, field_validator, model_validator

from .expression import compile_expression
from .registry import FORCE_TYPES, JOINT_EQUATIONS, STIFF_BY_DEFAULT



def not_a_boolean(v):
    """Numbers of a model are numbers: ``mass: true`` was taken as 1.0 (pydantic's lax mode
    reads booleans as 0/1); refused naming the key."""
    if isinstance(v, (bool, np.bool_)):
        raise ValueError(f"expected a number, got {str(bool(v)).lower()} (a boolean)")
    return v


def _no_booleans(v):
    """A number or nested lists of numbers (inertia, stiffness, damping) without booleans."""
    if isinstance(v, (list, tuple)):
        for x in v:
            _no_booleans(x)
    else:
        not_a_boolean(v)
    return v


#: A float of the model format: finite (``allow_inf_nan=False``), never a boolean.
Float = Annotated[float, BeforeValidator(not_a_boolean)]
Vec3 = tuple[Float, Float, Float]


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=False, arbitrary_types_allowed=True,
                              allow_inf_nan=False)  # every float of a model is finite


# -- orientation --------------------------------------------------------------------------------
class Orientation(_Strict):
    """One of: ``quaternion`` (Euler parameters e0..e3, normalised), ``euler_zxz`` (φ, θ, ψ),
    ``euler_zxz_deg``, ``matrix`` (3×3, columns are the frame's axes in the parent frame),
    ``z_axis`` (+ optional ``x_axis``): a frame whose z (and x) axis points along the vector."""

    quaternion: tuple[Float, Float, Float, Float] | None = None
    euler_zxz: Vec3 | None = None
    euler_zxz_deg: Vec3 | None = None
    matrix: tuple[Vec3, Vec3, Vec3] | None = None
    z_axis: Vec3 | None = None
    x_axis: Vec3 | None = None

    @model_validator(mode="after")
    def _one(self):
        given = [k for k in ("quaternion", "euler_zxz", "euler_zxz_deg", "matrix", "z_axis")
                 if getattr(self, k) is not None]
        if len(given) > 1:
            raise ValueError(f"give one orientation, not {', '.join(given)}")
        if self.x_axis is not None and self.z_axis is None:
            raise ValueError("x_axis needs z_axis")
        if self.quaternion is not None and np.linalg.norm(self.quaternion) < 1e-12:
            raise ValueError("zero quaternion")
        for k in ("z_axis", "x_axis"):
            v = getattr(self, k)
            if v is not None and np.linalg.norm(v) < 1e-12:
                raise ValueError(f"{k} has zero length")
        if self.x_axis is not None:
            z, x = np.array(self.z_axis, float), np.array(self.x_axis, float)
            if np.linalg.norm(np.cross(z, x)) < 1e-9 * np.linalg.norm(z) * np.linalg.norm(x):
                raise ValueError(f"x_axis {list(self.x_axis)} is parallel to z_axis "
                                 f"{list(self.z_axis)}; expected an x_axis across z_axis")
        if self.matrix is not None:
            A = np.array(self.matrix, float)
            if np.abs(A @ A.T - np.eye(3)).max() > 1e-6 or np.linalg.det(A) < 0:
                raise ValueError("matrix is not a proper rotation (AᵀA = I, det A = 1 expected)")
        return self

    def as_matrix(self) -> np.ndarray:
        from .rotation import matrix_from_quaternion, matrix_from_zxz, matrix_from_z_axis

        if self.quaternion is not None:
            return matrix_from_quaternion(np.array(self.quaternion, float))
        if self.euler_zxz is not None:
            return matrix_from_zxz(np.array(self.euler_zxz, float))
        if self.euler_zxz_deg is not None:
            return matrix_from_zxz(np.radians(self.euler_zxz_deg))
        if self.matrix is not None:
            return np.array(self.matrix, float)
        if self.z_axis is not None:
            return matrix_from_z_axis(np.array(self.z_axis, float),
                                      None if self.x_axis is None else np.array(self.x_axis, float))
        return np.eye(3)


def _orientation(v):
    if v is None or isinstance(v, Orientation):
        return v
    if isinstance(v, dict):
        return Orientation(**v)
    raise ValueError("orientation must be a mapping with one of quaternion, euler_zxz, "
                     "euler_zxz_deg, matrix, z_axis")


# -- markers and bodies ---------------------------------------------------------------------------
class Marker(_Strict):
    """A frame fixed on a body: position of its origin and orientation of its axes in the body
    frame (``frame: body``, default) or in the global frame at the initial configuration
    (``frame: global``, convenient for suspension hard points)."""

    name: str
    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Orientation | None = None
    frame: Literal["body", "global"] = "body"

    _v_or = field_validator("orientation", mode="before")(lambda cls, v: _orientation(v))


def _markers(v):
    """Markers as a list of mappings or as ``{name: position}`` / ``{name: {...}}``."""
    if isinstance(v, dict):
        out = []
        for k, m in v.items():
            if isinstance(m, dict):
                out.append({"name": k, **m})
            else:
                out.append({"name": k, "position": m})
        return out
    return v


class Shape(_Strict):
    """How ``rtmbs view`` draws a body (geometry only, no effect on the dynamics): a ``box`` of
    sides ``size`` along the body axes, or a ``cylinder`` of ``radius`` and ``length`` about
    ``axis`` (body axes); both centred at ``centre`` (body axes, from the body's origin, the
    centre of mass). Without a shape a body is drawn as the box of its mass and inertia."""

    type: Literal["box", "cylinder"]
    size: Vec3 | None = None
    radius: Float | None = None
    length: Float | None = None
    axis: Vec3 = (0.0, 0.0, 1.0)
    centre: Vec3 = (0.0, 0.0, 0.0)

    @model_validator(mode="after")
    def _complete(self):
        def positive(name, v):
            if v is None:
                raise ValueError(f"a {self.type} needs '{name}'")
            if not all(math.isfinite(x) and x > 0 for x in np.atleast_1d(v)):
                raise ValueError(f"{name} must be positive and finite, got {v}")

        if self.type == "box":
            positive("size", self.size)
        else:
            positive("radius", self.radius)
            positive("length", self.length)
            if not np.linalg.norm(self.axis) > 0:
                raise ValueError(f"axis must be a non-zero vector, got {list(self.axis)}")
        if not all(math.isfinite(x) for x in self.centre):
            raise ValueError(f"centre must be finite, got {list(self.centre)}")
        return self


#: The lightest body accepted [kg] (docs/model-format.md): a body of 1e-12 kg passed the
#: schema and ended in a singular factorisation.
MIN_MASS = 1e-6


class Body(_Strict):
    """A rigid body. ``inertia`` (required, no default) about the centre of mass in body axes:
    3 values (principal), 6 values (Ixx, Iyy, Izz, Ixy, Ixz, Iyz) or a 3×3 matrix [kg m²],
    finite, positive definite and obeying the triangle inequality. ``velocity`` and
    ``angular_velocity`` are global."""

    name: str
    mass: Float
    inertia: Any
    position: Vec3 = (0.0, 0.0, 0.0)
    orientation: Orientation | None = None
    velocity: Vec3 = (0.0, 0.0, 0.0)
    angular_velocity: Vec3 = (0.0, 0.0, 0.0)
    markers: list[Marker] = Field(default_factory=list)
    orientation_coordinates: Literal["euler-parameters", "euler-angles-zxz"] | None = None
    shape: Shape | None = None

    _v_or = field_validator("orientation", mode="before")(lambda cls, v: _orientation(v))
    _v_mk = field_validator("markers", mode="before")(lambda cls, v: _markers(v))

    @field_validator("mass")
    @classmethod
    def _mass(cls, v):
        if not (v > 0 and math.isfinite(v)):
            raise ValueError(f"mass must be positive and finite, got {v}")
        if v < MIN_MASS:
            raise ValueError(f"mass {v:g} kg is below {MIN_MASS:g} kg, the lightest body rtmbs "
                             "accepts (the mass matrix would be numerically singular): give the "
                             "body a plausible mass or merge it into the body it rides on")
        return v

    @field_validator("inertia", mode="before")
    @classmethod
    def _inertia(cls, v):
        _no_booleans(v)
        J = inertia_matrix(v)
        if not np.all(np.isfinite(J)):
            raise ValueError(f"inertia must be finite, got {np.asarray(v, float).tolist()}")
        w = np.linalg.eigvalsh(J)
        if w.min() <= 0:
            raise ValueError(f"inertia tensor is not positive definite (principal moments {w.tolist()})")
        tol = 1e-9 * w.max()
        if w[0] + w[1] < w[2] - tol or w[0] + w[2] < w[1] - tol or w[1] + w[2] < w[0] - tol:
            raise ValueError(
                f"principal moments {w.tolist()} violate the triangle inequality "
                "(each must be at most the sum of the other two)")
        return J.tolist()


def inertia_matrix(v) -> np.ndarray:
    a = np.asarray(v, float)
    if a.shape == (3,):
        return np.diag(a)
    if a.shape == (6,):
        ixx, iyy, izz, ixy, ixz, iyz = a
        return np.array([[ixx, ixy, ixz], [ixy, iyy, iyz], [ixz, iyz, izz]])
    if a.shape == (3, 3):
        if np.abs(a - a.T).max() > 1e-9 * max(1.0, np.abs(a).max()):
            raise ValueError("inertia matrix is not symmetric")
        return a
    raise ValueError(f"inertia must have 3, 6 or 3×3 values, got shape {a.shape}")


class Ground(_Strict):
    markers: list[Marker] = Field(default_factory=list)
    _v_mk = field_validator("markers", mode="before")(lambda cls, v: _markers(v))


# -- inputs (functions of time) ------------------------------------------------------------------
class Input(_Strict):
    """A function of time. ``type``: constant (value), step (t0, t1, from, to: smooth cubic),
    ramp (t0, slope, offset), trapezoid (t0, rise, hold, fall, amplitude, offset),
    sine (amplitude, frequency_hz, phase, offset, t0), table (t, values; linear),
    expr (an expression of t, e.g. ``0.05*sin(2*pi*1.5*t)``; see rtmbs.model.expression; a mapping
    with ``expr`` and no ``type`` is an expression), channel (value: initial; set at run time by
    name)."""

    name: str = ""
    type: Literal["constant", "step", "ramp", "trapezoid", "sine", "table", "expr", "channel"]
    value: Float = 0.0
    t0: Float = 0.0
    t1: Float = 1.0
    from_: Float = Field(0.0, alias="from")
    to: Float = 1.0
    slope: Float = 0.0
    offset: Float = 0.0
    rise: Float = 0.0
    hold: Float = 0.0
    fall: Float = 0.0
    amplitude: Float = 0.0
    frequency_hz: Float = 0.0
    phase: Float = 0.0
    t: list[Float] | None = None
    values: list[Float] | None = None
    expr: str | None = None
    model_config = ConfigDict(extra="forbid", populate_by_name=True)

    @model_validator(mode="before")
    @classmethod
    def _expression_type(cls, data):
        if isinstance(data, dict) and "expr" in data and "type" not in data:
            return {**data, "type": "expr"}
        return data

    @model_validator(mode="after")
    def _check(self):
        if self.type == "expr":
            if self.expr is None:
                raise ValueError("expr input needs 'expr', an expression of t")
            compile_expression(self.expr)  # ExpressionError (a ValueError) names the problem
        elif self.expr is not None:
            raise ValueError(f"'expr' is only read by inputs of type expr, not {self.type}")
        if self.type == "step" and not self.t1 > self.t0:
            raise ValueError(f"step needs t1 > t0 (t0 = {self.t0}, t1 = {self.t1})")
        if self.type == "table":
            if not self.t or not self.values or len(self.t) != len(self.values) or len(self.t) < 2:
                raise ValueError("table needs lists t and values of the same length (at least 2)")
            if np.any(np.diff(self.t) <= 0):
                raise ValueError("table t must be strictly increasing")
        if self.type == "trapezoid" and min(self.rise, self.fall) <= 0:
            raise ValueError("trapezoid needs rise > 0 and fall > 0")
        return self


FunctionSpec = Union[Float, str, Input]


def _function(v):
    """A function slot accepts a number (constant), an input name, or an inline input mapping."""
    not_a_boolean(v)
    if v is None or isinstance(v, (int, float, str, Input)):
        return v
    if isinstance(v, dict):
        return Input(**v)
    raise ValueError("expected a number, an input name or an input mapping")


# -- joints -----------------------------------------------------------------------------------------
# JOINT_EQUATIONS (type -> number of equations) follows from the joint table of .registry


def _known_type(v, kind: str, known):
    """``v`` if it is one of ``known`` (the registry of joint or force types), else a ValueError
    naming the ``kind`` and the closest known types."""
    if v not in known:
        from ..errors import did_you_mean

        raise ValueError(f"unknown {kind} type '{v}'" + did_you_mean(v, known))
    return v


class Joint(_Strict):
    """An ideal joint between marker_i (on body i) and marker_j (on body j), with the number of
    equations of Carpinelli 2015 §4.2.2. Axes: revolute/cylindrical/prismatic about marker_i's z;
    universal: spherical + marker_i z ⊥ marker_j z. ``motion`` prescribes the rotation about
    (``dof: rotation``) or the translation along (``dof: translation``) marker_i z of marker_j
    (rotation measured from marker_i x to marker_j x). ``planar``: marker_j's origin stays in
    marker_i's xy-plane and marker_j z along marker_i z (3 degrees of freedom)."""

    name: str
    type: str
    marker_i: str
    marker_j: str
    distance: Float | None = None
    dof: Literal["rotation", "translation"] | None = None
    function: FunctionSpec | None = None

    _v_fn = field_validator("function", mode="before")(lambda cls, v: _function(v))
    _v_type = field_validator("type")(lambda cls, v: _known_type(v, "joint", JOINT_EQUATIONS))

    @model_validator(mode="after")
    def _motion(self):
        if self.type == "motion" and (self.dof is None or self.function is None):
            raise ValueError("a motion joint needs dof (rotation|translation) and function")
        return self


# -- forces ------------------------------------------------------------------------------------------
# FORCE_TYPES: the force element registry (.registry; one module each in rtmbs.kernels.elements)


class Force(_Strict):
    """A force element. Types and their keys:

    * spring-damper (marker_i, marker_j): stiffness, damping, free_length (default: initial
      length), preload (tension), or ``force_table`` {deflection, force} and
      ``damping_table`` {velocity, force}. Tension positive.
    * stop (marker_i, marker_j): bump/rebound stop, min_length, max_length, stiffness, exponent,
      damping.
    * bushing (marker_i, marker_j): translational/rotational stiffness and damping per axis of
      marker_i (``stiffness``, ``damping``, ``rotational_stiffness``, ``rotational_damping``: 3
      values each), ``preload_force``, ``preload_torque`` (marker_i axes); or per axis (x, y, z)
      a table instead of the linear value: ``force_tables`` {axis: {deflection, force}},
      ``damping_tables`` {axis: {velocity, force}}, ``torque_tables`` {axis: {angle, torque}},
      ``rotational_damping_tables`` {axis: {angular_velocity, torque}} (restoring: the force on
      body j is −table(deflection)).
    * force / torque (marker_j: where it acts): ``direction`` (3), ``frame`` global|body,
      ``function`` (magnitude).
    * joint-torque (marker_i, marker_j): torque ``function`` about marker_i z, on j (−on i).
    * brake (marker_i, marker_j): brake torque −T_b(t)·tanh(Ω/omega_eps), T_b = ``function``.
    * tyre (marker_j on the rim: origin at the wheel centre, z along the spin axis, pointing to
      the vehicle's left; marker_i on the wheel carrier, optional, for reference): ``tyre``
      (shipped property file MF61, MF52, PAC2002 or a .tir path), ``road`` (mapping: type flat,
      square-bump, ... of rtmbs.vehicle.road), ``stiffness``/``damping`` (radial; default the
      file's VERTICAL_STIFFNESS and 500 N s/m), ``follower_half_length`` (default 0.3·r_free).
    * torsion-spring (marker_i, marker_j): torque −k δ − c Ω + preload·``function`` on j about
      marker_i z, δ the angle of marker_j x about marker_i z from its initial value (wrapped into
      [−π, π)), Ω the relative angular velocity about that axis: ``stiffness``, ``damping``, ``preload``.

    ``stiff`` marks elements whose Jacobians the linearly implicit solvers use (default: as
    registered in rtmbs.model.registry: spring-damper, stop, bushing, tyre, torsion-spring).
    """

    name: str
    type: str
    marker_i: str | None = None
    marker_j: str | None = None
    stiffness: Any = None
    damping: Any = None
    free_length: Float | None = None
    preload: Float = 0.0
    force_table: dict[str, list[Float]] | None = None
    damping_table: dict[str, list[Float]] | None = None
    force_tables: dict[str, dict[str, list[Float]]] | None = None
    damping_tables: dict[str, dict[str, list[Float]]] | None = None
    torque_tables: dict[str, dict[str, list[Float]]] | None = None
    rotational_damping_tables: dict[str, dict[str, list[Float]]] | None = None
    min_length: Float | None = None
    max_length: Float | None = None
    exponent: Float = 1.0
    rotational_stiffness: Vec3 = (0.0, 0.0, 0.0)
    rotational_damping: Vec3 = (0.0, 0.0, 0.0)
    preload_force: Vec3 = (0.0, 0.0, 0.0)
    preload_torque: Vec3 = (0.0, 0.0, 0.0)
    direction: Vec3 = (0.0, 0.0, 1.0)
    frame: Literal["global", "body"] = "global"
    function: FunctionSpec | None = None
    omega_eps: Float = 0.5
    tyre: str | None = None
    road: dict | None = None
    transient: bool = False
    follower_half_length: Float | None = None
    stiff: bool | None = None

    _v_fn = field_validator("function", mode="before")(lambda cls, v: _function(v))
    _v_nb = field_validator("stiffness", "damping", mode="before")(lambda cls, v: _no_booleans(v))
    _v_type = field_validator("type")(lambda cls, v: _known_type(v, "force", FORCE_TYPES))

    @model_validator(mode="after")
    def _check(self):
        if self.type in ("force", "torque") and np.linalg.norm(self.direction) < 1e-12:
            raise ValueError("direction has zero length")
        for key in ("force_tables", "damping_tables", "torque_tables", "rotational_damping_tables"):
            if getattr(self, key) is not None and self.type != "bushing":
                raise ValueError(f"'{key}' is only read by bushings, not {self.type}")
        for key in ("force_table", "damping_table"):
            tab = getattr(self, key)
            if tab is not None:
                xs = tab.get("deflection" if key == "force_table" else "velocity")
                ys = tab.get("force")
                if xs is None or ys is None or len(xs) != len(ys) or len(xs) < 2:
                    raise ValueError(f"{key} needs lists "
                                     f"{'deflection' if key == 'force_table' else 'velocity'} and force "
                                     "of the same length (at least 2)")
                if np.any(np.diff(xs) <= 0):
                    raise ValueError(f"{key}: abscissae must be strictly increasing")
        for key in ("stiffness", "damping"):
            value = getattr(self, key)
            try:
                a = np.asarray(value, float)
            except (TypeError, ValueError):
                continue  # not numbers: the compiler names the problem
            if value is not None and not np.all(np.isfinite(a)):
                raise ValueError(f"{key} must be finite, got {value}")
            if value is not None and np.any(a < 0):
                raise ValueError(f"{key} must be >= 0, got {value}")
        for key in ("rotational_stiffness", "rotational_damping"):
            if min(getattr(self, key)) < 0:
                raise ValueError(f"{key} must be >= 0, got {list(getattr(self, key))}")
        for key in ("free_length", "min_length", "max_length"):  # lengths: distances, >= 0
            value = getattr(self, key)
            if value is not None and value < 0:
                raise ValueError(f"{key} must be >= 0 (a distance between the markers' origins), "
                                 f"got {value:g}")
        for key in ("exponent", "omega_eps", "follower_half_length"):
            value = getattr(self, key)
            if value is not None and not value > 0:
                raise ValueError(f"{key} must be > 0, got {value}")
        if self.type == "stop" and (self.min_length is None and self.max_length is None):
            raise ValueError("a stop needs min_length and/or max_length")
        if (self.type == "stop" and self.min_length is not None and self.max_length is not None
                and self.min_length > self.max_length):
            raise ValueError(f"min_length {self.min_length:g} is greater than max_length "
                             f"{self.max_length:g}")
        if self.type == "tyre" and self.tyre is None:
            raise ValueError("a tyre needs 'tyre' (MF61, MF52, PAC2002 or a .tir file)")
        if self.stiff is None:
            self.stiff = self.type in STIFF_BY_DEFAULT
        return self


# -- couplers -------------------------------------------------------------------------------------------
class Coupler(_Strict):
    """One constraint Σ c_k (s_k − s_k0) = offset between the coordinates s_k of named joints:
    the rotation angle of a revolute joint about its marker_i z (from marker_i x to marker_j x)
    or the translation of a prismatic or cylindrical joint along its marker_i z; s_k0 is the
    value at the model's initial positions. ``ratio`` r (two joints a, b): s_a − s_a0 =
    r (s_b − s_b0), i.e. coefficients (1, −r); or ``coefficients`` (one per joint)."""

    name: str
    joints: list[str]
    ratio: Float | None = None
    coefficients: list[Float] | None = None
    offset: Float = 0.0

    @model_validator(mode="after")
    def _check(self):
        if len(self.joints) < 2:
            raise ValueError(f"a coupler needs at least two joints, got {len(self.joints)}")
        if len(set(self.joints)) != len(self.joints):
            raise ValueError(f"joints {self.joints} name a joint twice")
        if (self.ratio is None) == (self.coefficients is None):
            raise ValueError("give one of ratio (two joints) or coefficients (one per joint)")
        if self.ratio is not None:
            if len(self.joints) != 2:
                raise ValueError(f"ratio couples two joints, got {len(self.joints)}: give coefficients")
            if self.ratio == 0:
                raise ValueError("ratio must not be 0")
        elif len(self.coefficients) != len(self.joints):
            raise ValueError(f"{len(self.coefficients)} coefficients for {len(self.joints)} joints")
        elif any(c == 0 for c in self.coefficients):
            raise ValueError(f"coefficients must not be 0, got {self.coefficients}")
        return self

    def terms(self) -> list[tuple[str, float]]:
        """(joint, coefficient) of each term."""
        cs = [1.0, -self.ratio] if self.ratio is not None else self.coefficients
        return list(zip(self.joints, (float(c) for c in cs)))


# -- sensors ---------------------------------------------------------------------------------------------
#: sensor kinds, in the order of the C engine's codes (engine/sensors.h RTMBS_SNS_*), and their units
SENSOR_KINDS = {
    "roll": "rad", "pitch": "rad", "yaw": "rad", "vx": "m/s", "vy": "m/s", "vz": "m/s",
    "ax": "m/s²", "ay": "m/s²", "az": "m/s²", "roll_rate": "rad/s", "pitch_rate": "rad/s",
    "yaw_rate": "rad/s", "sideslip": "rad", "steer": "rad", "spin": "rad/s", "input": "",
}


class Sensor(_Strict):
    """A computed output ``name`` of the model, evaluated in the C engine with the other named
    outputs (engine/sensors.c, ISO 8855 conventions):

    * ``roll``, ``pitch``, ``yaw`` of ``body`` (z-y-x sequence, rad);
    * ``roll_rate``, ``pitch_rate``, ``yaw_rate``: its angular velocity in heading axes (rad/s);
    * ``vx``, ``vy``, ``vz``, ``ax``, ``ay``, ``az``, ``sideslip``: velocity, acceleration
      (Newton: the sum of external forces over the total mass) and sideslip angle of the centre
      of mass of all bodies, in the heading axes of ``body`` (x forward, y left, z up);
    * ``steer``: angle of ``body``'s ``axis`` (global at design, e.g. a wheel's spin axis) about
      the z axis of ``reference`` (rad); ``spin``: angular velocity of ``body`` about ``axis``;
    * ``input``: ``scale`` times the value of the input ``input``."""

    name: str
    kind: Literal[tuple(SENSOR_KINDS)]  # type: ignore[valid-type]
    body: str = ""
    reference: str = ""
    axis: Vec3 = (0.0, 1.0, 0.0)
    input: str = ""
    scale: Float = 1.0
    unit: str = ""

    @model_validator(mode="after")
    def _check(self):
        if self.kind == "input" and not self.input:
            raise ValueError("an 'input' sensor needs input: the input's name")
        if self.kind != "input" and not self.body:
            raise ValueError(f"a '{self.kind}' sensor needs body")
        if self.kind == "steer" and not self.reference:
            raise ValueError("a 'steer' sensor needs reference: the body whose z axis it turns about")
        if self.kind in ("steer", "spin") and not any(self.axis):
            raise ValueError(f"axis must not be zero, got {list(self.axis)}")
        if not self.unit:
            self.unit = SENSOR_KINDS[self.kind]
        return self


# -- the model -----------------------------------------------------------------------------------------
class Model(_Strict):
    """A multibody model: the description that :func:`rtmbs.system.compile_model` compiles."""

    name: str = "model"
    description: str = ""
    gravity: Vec3 = (0.0, 0.0, -9.81)
    orientation_coordinates: Literal["euler-parameters", "euler-angles-zxz"] = "euler-parameters"
    ground: Ground = Field(default_factory=Ground)
    bodies: list[Body] = Field(default_factory=list)
    joints: list[Joint] = Field(default_factory=list)
    couplers: list[Coupler] = Field(default_factory=list)
    forces: list[Force] = Field(default_factory=list)
    inputs: list[Input] = Field(default_factory=list)
    outputs: list[str] = Field(default_factory=list)
    sensors: list[Sensor] = Field(default_factory=list)

    _v_in = field_validator("inputs", mode="before")(
        lambda cls, v: [{"name": k, **i} for k, i in v.items()] if isinstance(v, dict) else v)

    # -- Python builder API -------------------------------------------------------------------
    def add_body(self, name: str, mass: float, **kw) -> Body:
        b = Body(name=name, mass=mass, **kw)
        self.bodies.append(b)
        return b

    def add_marker(self, body: str, name: str, position=(0.0, 0.0, 0.0), **kw) -> Marker:
        mk = Marker(name=name, position=tuple(position), **kw)
        if body == "ground":
            self.ground.markers.append(mk)
        else:
            self.body(body).markers.append(mk)
        return mk

    def add_joint(self, name: str, type: str, marker_i: str, marker_j: str, **kw) -> Joint:
        j = Joint(name=name, type=type, marker_i=marker_i, marker_j=marker_j, **kw)
        self.joints.append(j)
        return j

    def add_coupler(self, name: str, joints, **kw) -> Coupler:
        c = Coupler(name=name, joints=list(joints), **kw)
        self.couplers.append(c)
        return c

    def add_force(self, name: str, type: str, **kw) -> Force:
        f = Force(name=name, type=type, **kw)
        self.forces.append(f)
        return f

    def add_input(self, name: str, type: str, **kw) -> Input:
        i = Input(name=name, type=type, **kw)
        self.inputs.append(i)
        return i

    def body(self, name: str) -> Body:
        for b in self.bodies:
            if b.name == name:
                return b
        from ..errors import ModelError, did_you_mean

        raise ModelError(f"bodies.{name}", "unknown body" + did_you_mean(name, [b.name for b in self.bodies]))
