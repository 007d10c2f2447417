"""A vehicle file and its subsystem files -> ONE model description (rtmbs.model.Model).

Order of the bodies: chassis, steering (rack, its housing if on mounts, pinion, handwheel if
the column is compliant), front left/right corner, rear left/right corner, anti-roll bar
halves, driveline shafts. The chassis is free (6 degrees of freedom) and stands on
its four tyres. A vehicle may leave out one suspension (one axle, e.g. for an axle rig): then
no other subsystem may refer to the missing axle.
"""
from __future__ import annotations

import math
import warnings
from pathlib import Path

import numpy as np
import yaml
from pydantic import ValidationError

from ...model.strict_yaml import safe_load, yaml_problem
from ...errors import ModelError, did_you_mean
from ...model.description import Model
from ...model.files import _is_file_name, _path
from . import schema
from .corner import Side, tup
from .outputs import add_vehicle_outputs
from .templates import SUSPENSIONS, antiroll, brakes, driveline, steering
from .templates.common import Context

AXLES = {"front": "f", "rear": "r"}


def _read_yaml(path: Path, source: str) -> dict:
    if not path.exists():
        raise ModelError(source, f"file not found: {path}")
    try:
        data = safe_load(path.read_text())
    except yaml.YAMLError as exc:
        raise ModelError(str(path), yaml_problem(exc)) from None
    if not isinstance(data, dict):
        raise ModelError(str(path), f"must hold a mapping at the top level, got {type(data).__name__}")
    return data


def _validate(cls, data: dict, source: str, prefix: str = ""):
    """pydantic validation with the ModelError of model files: ``<file>: <key path>: problem``."""
    try:
        return cls.model_validate(data)
    except ValidationError as exc:
        errs = exc.errors()
        # a misspelled key shows as a missing key and an unknown one: name the unknown one
        err = next((e for e in errs if e["type"] == "extra_forbidden"), errs[0])
        path = ".".join(p for p in (prefix, _path(err["loc"], data)) if p)
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            known = _known_keys(cls, err["loc"][:-1])
            msg = f"unknown key '{err['loc'][-1]}'" + (did_you_mean(str(err["loc"][-1]), known)
                                                       if known else "")
        elif err["type"] == "missing":
            msg = "required key is missing"
        raise ModelError(f"{source}: {path}" if source else path, msg) from None


def _known_keys(cls, loc) -> list[str]:
    """The keys of the pydantic model reached from ``cls`` along ``loc`` (field names; a dict
    or list level is skipped), [] when the path leaves the models."""
    for part in loc:
        if isinstance(part, int) or cls is None:
            continue
        field = getattr(cls, "model_fields", {}).get(part)
        if field is None:
            continue  # a dict key (a subsystem role, a hard-point name)
        ann = field.annotation
        cls = next((a for a in (ann, *getattr(ann, "__args__", ())) if hasattr(a, "model_fields")), None)
    return [f.alias or n for n, f in cls.model_fields.items()] if cls is not None and hasattr(cls, "model_fields") else []


#: a hard point farther than this from the vehicle's origin (m) is taken for millimetres
MAX_COORDINATE_M = 10.0


def check_units(points: dict, where: str, position=None) -> None:
    """Hard points (and a subsystem's position) are metres: a coordinate beyond
    MAX_COORDINATE_M looks like millimetres."""
    items = list(points.items()) + ([("position", position)] if position is not None else [])
    for name, p in items:
        if any(abs(float(v)) > MAX_COORDINATE_M for v in p):
            key = f"{where}.{'hard_points.' if name != 'position' else ''}{name}"
            key = key.replace(".hard_points.position", ".position")
            raise ModelError(key, f"{list(p)} is more than {MAX_COORDINATE_M:g} m from the "
                             "origin: looks like millimetres (hard points are in metres)")


#: two hard points closer than this (m) coincide
COINCIDE_M = 1e-3
#: an arm's outer point closer than this (m) to its pivot axis leaves the arm without length
ARM_MIN_M = 0.01


def check_points(points: dict, where: str) -> None:
    """Coinciding hard points (a body or joint between them degenerates) and A-arms whose
    outer point lies on their pivot axis (``<arm>_front``, ``<arm>_back``, ``<arm>_upright``)
    are errors naming the points."""
    names = list(points)
    for i, a in enumerate(names):
        for b in names[i + 1:]:
            if np.linalg.norm(np.subtract(points[a], points[b], dtype=float)) < COINCIDE_M:
                raise ModelError(f"{where}.hard_points.{b}", f"{list(points[b])} coincides with "
                                 f"{a}: a body or joint between two points needs them apart")
    for name in names:
        if not name.endswith("_upright"):
            continue
        arm = name.removesuffix("_upright")
        if f"{arm}_front" in points and f"{arm}_back" in points:
            f, b, o = (np.asarray(points[k], float) for k in (f"{arm}_front", f"{arm}_back", name))
            axis = (b - f) / np.linalg.norm(b - f)
            d = float(np.linalg.norm(np.cross(o - f, axis)))
            if d < ARM_MIN_M:
                raise ModelError(f"{where}.hard_points.{name}", f"{list(points[name])} is "
                                 f"{1e3 * d:.1f} mm from the pivot axis {arm}_front-{arm}_back: "
                                 "the three points of an arm must not lie on one line")
            if o[1] <= max(f[1], b[1]):
                warnings.warn(f"{where}.hard_points.{name}: {list(points[name])} is not outboard "
                              f"of {arm}_front and {arm}_back (y {f[1]:g}, {b[1]:g}): the arm "
                              "points inboard (hard points are the left side, y to the left)",
                              DesignWarning, stacklevel=2)


#: kingpin inclination above this (deg) is implausible for a road car (typically 5-15 deg)
MAX_KINGPIN_DEG = 20.0
#: a tie rod's inner point farther than this (m) from the rack's axis is off the rack
RACK_TOLERANCE_M = 0.005


class DesignWarning(UserWarning):
    """An implausible but buildable vehicle design (rtmbs: warning: one line)."""


#: (lower, upper) points of the kingpin (steering) axis of each template
KINGPIN = {"double-wishbone": ("lower_arm_upright", "upper_arm_upright"),
           "mcpherson": ("lower_arm_upright", "strut_top")}


def check_kingpin(sp, where: str) -> None:
    """Warns when the kingpin axis leans more than MAX_KINGPIN_DEG in the y-z plane or leans
    outboard at the top (an arm pointing the wrong way)."""
    pts = KINGPIN.get(sp.template)
    if pts is None or not all(p in sp.hard_points for p in pts):
        return
    lo, up = (np.asarray(sp.hard_points[p], float) for p in pts)
    d = up - lo
    if d[2] <= 0:
        warnings.warn(f"{where}.hard_points.{pts[1]}: {list(up)} is not above {pts[0]} "
                      f"{list(lo)}: the kingpin axis points down", DesignWarning, stacklevel=2)
        return
    kpi = math.degrees(math.atan2(-d[1], d[2]))  # left side: + top inboard
    if not -5.0 <= kpi <= MAX_KINGPIN_DEG:
        warnings.warn(f"{where}.hard_points.{pts[1]}: kingpin inclination {kpi:.1f} deg from "
                      f"{pts[0]} to {pts[1]} (plausible 0-{MAX_KINGPIN_DEG:g} deg, top inboard)",
                      DesignWarning, stacklevel=2)


def check_rack(steer, steer_where: str, sp, sp_where: str) -> None:
    """Warns when the steered axle's inner tie-rod point is off the rack's axis (the line
    through rack_centre along y): the rack would bind or steer with wheel travel."""
    if "tie_rod_inner" not in sp.hard_points:
        return
    rack = np.asarray(steer.position, float) + np.asarray(steer.hard_points["rack_centre"], float)
    inner = np.asarray(sp.position, float) + np.asarray(sp.hard_points["tie_rod_inner"], float)
    off = math.hypot(inner[0] - rack[0], inner[2] - rack[2])
    if off > RACK_TOLERANCE_M:
        warnings.warn(f"{sp_where}.hard_points.tie_rod_inner: {1e3 * off:.0f} mm off the rack's "
                      f"axis ({steer_where}.hard_points.rack_centre, along y)", DesignWarning,
                      stacklevel=2)


#: a tyre farther than this (m) above or into a flat road at design is misplaced
TYRE_GAP_M = 0.05


def check_tyre_on_road(corner, tag: str, tyre: str, road: dict, where: str) -> None:
    """Warns when a tyre's unloaded radius leaves it more than TYRE_GAP_M above a flat road
    (z = 0) or into it at the design position (the car would fall or jump at the start)."""
    if road.get("type", "flat") != "flat":
        return
    radius = _unloaded_radius(tyre)
    if radius is None:
        return
    gap = float(corner.wheel_centre[2]) - radius
    if abs(gap) > TYRE_GAP_M:
        warnings.warn(f"{where}.hard_points.wheel_centre: the {tag} tyre (unloaded radius "
                      f"{radius:.3f} m) is {1e3 * abs(gap):.0f} mm {'above' if gap > 0 else 'into'} "
                      f"the road at design (wheel centre {float(corner.wheel_centre[2]):.3f} m "
                      "above it)", DesignWarning, stacklevel=2)


def _unloaded_radius(tyre: str) -> float | None:
    from ..tyre.tir import SHIPPED, data_path, parse_tir

    path = data_path(SHIPPED[tyre]) if tyre in SHIPPED else Path(tyre)
    try:
        tir = parse_tir(path)
    except (ModelError, OSError):
        return None  # the tyre element reports a bad file when the model is compiled
    entry = tir.find("UNLOADED_RADIUS", "DIMENSION")
    return float(entry.value) if entry is not None and isinstance(entry.value, float) else None


def check_positions(subs: dict, axles: dict) -> None:
    """Warns when a subsystem of an axle (steering, anti-roll bar, driveline) is placed at
    another position than the axle's suspension: their hard points are then given in
    different frames, which is rarely meant."""
    for role, (spec, _, where) in subs.items():
        axle = getattr(spec, "axle", None) if role in ("steering", "driveline") else \
            role.removesuffix("_antiroll") if role.endswith("_antiroll") else None
        if axle not in axles or not hasattr(spec, "position"):
            continue
        sp, _, swhere = subs[f"{axle}_suspension"]
        if np.abs(np.subtract(spec.position, sp.position)).max() > 1e-3:
            warnings.warn(f"{where}.position: {list(spec.position)} differs from "
                          f"{swhere}.position {list(sp.position)} (subsystems of one axle are "
                          "placed at its suspension's position)", DesignWarning, stacklevel=2)


def check_preload(sp, where: str) -> None:
    """Warns about a spring without preload: the car sags under its weight from the design
    position (``rtmbs statics`` gives the preloads for a ride height)."""
    spring = getattr(sp, "spring", None)
    if spring is not None and spring.preload == 0.0 and spring.stiffness > 0:
        warnings.warn(f"{where}.spring.preload: 0 N: the car will sag under its weight from "
                      "the design position (rtmbs statics CAR --ride-height front=design,"
                      "rear=design gives the preloads)", DesignWarning, stacklevel=2)


def _subsystem(role: str, entry, folder: Path, source: str):
    """(validated spec, folder of its file, key path for errors) of one subsystem entry: a
    mapping with ``file`` (and optionally ``position``) or the subsystem inline."""
    if not isinstance(entry, dict):
        raise ModelError(f"{source}: subsystems.{role}", "expected a mapping (file: ... or the "
                         "subsystem inline)")
    entry = dict(entry)
    if "file" in entry:
        path = Path(entry.pop("file")).expanduser()
        path = path if path.is_absolute() else folder / path
        data = {**_read_yaml(path, f"{source}: subsystems.{role}.file"), **entry}
        return _validate(schema.SUBSYSTEMS[role], data, str(path), role), path.parent, f"{path}: {role}"
    where = f"{source}: subsystems.{role}" if source else f"subsystems.{role}"
    return _validate(schema.SUBSYSTEMS[role], entry, source, f"subsystems.{role}"), folder, where


def _load_subsystems(spec: schema.Vehicle, folder: Path, source: str) -> dict:
    """role -> (spec, folder, key path for errors); unknown and missing roles named."""
    pre = f"{source}: " if source else ""
    for role in spec.subsystems:
        if role not in schema.SUBSYSTEMS:
            raise ModelError(f"{pre}subsystems.{role}", f"unknown subsystem '{role}'"
                             + did_you_mean(role, schema.SUBSYSTEMS))
    for role in schema.REQUIRED:
        if role not in spec.subsystems:
            raise ModelError(f"{pre}subsystems.{role}", "required subsystem is missing")
    if not any(r in spec.subsystems for r in schema.SUSPENSION_ROLES):
        raise ModelError(f"{pre}subsystems", "needs front_suspension, rear_suspension or both")
    return {role: _subsystem(role, e, folder, source) for role, e in spec.subsystems.items()}


def _road_paths(road: dict, folder: Path, where: str) -> dict:
    """A road file (``file``/``path``) relative to the vehicle file's folder, as model files
    and .tir paths are; a missing file names where it was looked for."""
    road = dict(road)
    for key in ("file", "path"):
        if isinstance(road.get(key), str):
            p = Path(road[key]).expanduser()
            p = p if p.is_absolute() else (folder / p).resolve()
            if not p.is_file():
                raise ModelError(f"{where}.{key}", f"road file not found: looked for {p}")
            road[key] = str(p)
    return road


def _tyre_path(wheels, folder: Path) -> str:
    """A shipped tyre name as is; a .tir path relative to the wheels file's folder."""
    tyre = wheels.tyre
    if _is_file_name(tyre) and not Path(tyre).expanduser().is_absolute():
        tyre = str((folder / tyre).resolve())
    return tyre


def vehicle_from_dict(data: dict, folder: Path = Path("."), source: str = "",
                      joints: str | None = None) -> Model:
    """The model of a vehicle mapping (subsystem files relative to ``folder``). ``joints``
    overrides the file's ``joints`` (``ideal`` | ``bushings``)."""
    if not isinstance(data, dict):
        raise ModelError(source, f"must hold a mapping at the top level, got {type(data).__name__}")
    spec = _validate(schema.Vehicle, data, source)
    spec.road = _road_paths(spec.road, folder, f"{source}: road" if source else "road")
    if joints is not None:
        if joints not in ("ideal", "bushings"):
            raise ModelError("joints", f"unknown variant '{joints}'" + did_you_mean(joints, ("ideal", "bushings")))
        spec.joints = joints
    subs = _load_subsystems(spec, folder, source)
    axles = {a: p for a, p in AXLES.items() if f"{a}_suspension" in subs}
    _check_axles(subs, axles)
    model = Model(name=spec.name, description=spec.description, gravity=spec.gravity)
    ch = spec.chassis
    model.add_body("chassis", ch.mass, inertia=ch.inertia, position=tup(ch.centre_of_mass))
    # the rack first: the steered axle's tie rods end on it
    rack = None
    if "steering" in subs:
        st, _, where = subs["steering"]
        schema.check_names(st.hard_points, steering.HARD_POINTS, f"{where}.hard_points", "hard point")
        rack = (st.axle, steering.build(model, st, where))
    wheels, wfolder, _ = subs["wheels"]
    tyre = _tyre_path(wheels, wfolder)
    corners = {}
    for axle, prefix in axles.items():
        sp, _, where = subs[f"{axle}_suspension"]
        tpl = SUSPENSIONS[sp.template]
        schema.check_names(sp.hard_points, tpl.HARD_POINTS, f"{where}.hard_points", "hard point")
        check_units(sp.hard_points, where, sp.position)
        check_points(sp.hard_points, where)
        check_kingpin(sp, where)
        check_preload(sp, where)
        if rack and rack[0] == axle:
            check_rack(subs["steering"][0], subs["steering"][2], sp, where)
        schema.check_names(sp.bodies, tpl.BODIES, f"{where}.bodies", "body")
        if spec.joints == "bushings":
            schema.check_names(sp.bushings, tpl.BUSHINGS, f"{where}.bushings", "bushing")
        ctx = Context(spec.joints, wheels, spec.road, tyre, where,
                      rack[1] if rack and rack[0] == axle else "chassis")
        corners[axle] = {sd: tpl.build(Side(model, prefix, sd, sp.position, where), sp, ctx)
                         for sd in ("left", "right")}
        check_tyre_on_road(corners[axle]["left"], f"{prefix}l", tyre, spec.road, where)
    check_positions(subs, axles)
    for axle, prefix in axles.items():
        role = f"{axle}_antiroll"
        if role in subs:
            bar, _, where = subs[role]
            if bar.axle != axle:
                raise ModelError(f"{where}.axle", f"the {role} bar must be on the {axle} axle, got "
                                 f"'{bar.axle}'")
            schema.check_names(bar.hard_points, antiroll.HARD_POINTS, f"{where}.hard_points", "hard point")
            antiroll.build(model, bar, corners[axle], where, prefix)
    if "driveline" in subs:
        dl, _, where = subs["driveline"]
        schema.check_names(dl.hard_points, driveline.HARD_POINTS, f"{where}.hard_points", "hard point")
        schema.check_names(dl.bodies, driveline.BODIES, f"{where}.bodies", "body")
        driveline.build(model, dl, corners[dl.axle], where, AXLES[dl.axle])
    if "brakes" in subs:
        brakes.build(model, subs["brakes"][0], corners)
    if spec.speed:
        _rolling(model, spec.speed, corners)
    add_vehicle_outputs(model, corners, subs["steering"][0] if "steering" in subs else None)
    return model


def _check_axles(subs: dict, axles: dict) -> None:
    """A subsystem on an axle without a suspension is named (a one-axle vehicle)."""
    def missing(role, axle, key):
        if axle not in axles:
            _, _, where = subs[role]
            raise ModelError(f"{where}.{key}", f"the vehicle has no {axle}_suspension: the "
                             f"{role} cannot be on the {axle} axle")

    if "steering" in subs:
        missing("steering", subs["steering"][0].axle, "axle")
    if "driveline" in subs:
        missing("driveline", subs["driveline"][0].axle, "axle")
    for axle in AXLES:
        if f"{axle}_antiroll" in subs:
            missing(f"{axle}_antiroll", axle, "axle")
        if "brakes" in subs and getattr(subs["brakes"][0], axle) is not None:
            missing("brakes", axle, axle)


def _rolling(model: Model, speed: float, corners: dict) -> None:
    """Initial state of a car rolling forward at ``speed``: every body moves at (speed, 0, 0);
    each wheel spins free-rolling, at speed / R_e about its spin axis, R_e the tyre's effective
    rolling radius at the design deflection (Pacejka 2012, eq. 4.E23 as in MF-Tyre 5.2/6.1:
    the sedan's R_e = 0.3366 m against a wheel-centre height of 0.332 m), and the half shafts
    of a driven wheel turn with it. The assembly projects these velocities onto the joints.
    (With the half shafts at rest, that projection slowed the sedan's driven wheels to a
    longitudinal slip of -0.67 at t = 0.)"""
    from ..tyre.tir import load_tir, shipped_or_path

    props = load_tir(shipped_or_path(next(f.tyre for f in model.forces if f.type == "tyre")))
    v = (float(speed), 0.0, 0.0)
    for b in model.bodies:
        b.velocity = v
    names = {b.name for b in model.bodies}
    for sides in corners.values():
        for c in sides.values():
            wheel = c.bodies["wheel"]
            h = float(c.wheel_centre[2])
            Fz = max(props["VERTICAL_STIFFNESS"] * (props["UNLOADED_RADIUS"] - h), 0.0)
            re = float(props.evaluate(Fz, 0.0, 0.0, Vx=float(speed))["Re"])
            w = tup(speed / re * c.spin_left)
            model.body(wheel).angular_velocity = w
            corner = wheel[:-len("wheel")]  # fl_, rr_, ...
            for shaft in ("outshaft", "halfshaft"):
                if corner + shaft in names:
                    model.body(corner + shaft).angular_velocity = w


def is_vehicle_file(path) -> bool:
    """Whether ``path`` is a vehicle file (a YAML mapping with ``subsystems``) or a folder holding
    ``vehicle.yaml``, as opposed to a model file."""
    import yaml

    path = Path(path)
    if path.is_dir():
        return (path / "vehicle.yaml").is_file()
    try:
        data = safe_load(path.read_text())
    except (OSError, UnicodeDecodeError, yaml.YAMLError):
        return False  # the model-file reader reports what is wrong with it
    return isinstance(data, dict) and "subsystems" in data


def load_vehicle_file(path, joints: str | None = None) -> Model:
    """The model description of a vehicle file (``rtmbs.system.compile_model`` compiles it)."""
    path = Path(path)
    if path.is_dir():
        path = path / "vehicle.yaml"
    data = _read_yaml(path, str(path))
    model = vehicle_from_dict(data, path.parent, str(path), joints)
    if model.name == "vehicle":
        model.name = path.parent.name if path.stem == "vehicle" else path.stem
    return model


#: the built-in sedan's folder
SEDAN = Path(__file__).resolve().parents[2] / "data" / "vehicles" / "sedan"


def sedan_model(joints: str = "ideal") -> Model:
    """The built-in mid-size front-drive sedan (docs/models/sedan.md)."""
    m = load_vehicle_file(SEDAN / "vehicle.yaml", joints)
    m.name = "sedan" if joints == "ideal" else f"sedan-{joints}"
    return m


def corner_bodies(model: Model) -> dict:
    """Pairs (left body, right body) of a model built here, by the side tags (``fl``/``fr``,
    ``rl``/``rr``): the mirror images."""
    names = [b.name for b in model.bodies]
    out = {}
    for n in names:
        for a in AXLES.values():
            if n.startswith(f"{a}l_") and f"{a}r_{n[3:]}" in names:
                out[n] = f"{a}r_{n[3:]}"
    return out


def pitch_held(model: Model) -> Model:
    """A copy of a vehicle model on an axle rig: a ``motion`` driver ``rig_pitch`` holds the
    chassis' pitch at design (the angle of its x axis about the global y axis); the chassis
    keeps its other five degrees of freedom. For a one-axle vehicle, which has no pitch
    support of its own."""
    m = model.model_copy(deep=True)
    axes = {"z_axis": (0.0, 1.0, 0.0), "x_axis": (1.0, 0.0, 0.0)}
    m.add_marker("ground", "rig_pitch", m.body("chassis").position, orientation=axes)
    m.add_marker("chassis", "rig_pitch", (0.0, 0.0, 0.0), orientation=axes)
    m.add_joint("rig_pitch", "motion", "ground.rig_pitch", "chassis.rig_pitch", dof="rotation",
                function=0.0)
    return m


#: the built-in sedan's rear axle alone (a one-axle vehicle file; hold its pitch: pitch_held)
SEDAN_REAR_AXLE = SEDAN.parent / "sedan-rear-axle"
#: the near 50/50 rear-drive variant of the sedan that the campaign and the full-car
#: identification drive (their concept car drives its rear axle: Carpinelli 2015, eq. 5.6)
SEDAN_RWD = SEDAN.parent / "sedan-rwd"

__all__ = ["load_vehicle_file", "vehicle_from_dict", "sedan_model", "corner_bodies", "pitch_held",
           "SEDAN_REAR_AXLE"]


def held_for_statics(model: Model) -> Model:
    """A copy of a vehicle model for a static solve: motion drivers hold the directions in which
    a car at rest on its tyres has no stiffness (chassis x, y and yaw: no horizontal tyre force
    at zero speed; every wheel's spin). Their multipliers vanish at the equilibrium, so the
    loads are those of the free car, and Newton no longer wanders along these directions."""
    m = model.model_copy(deep=True)
    ch = m.body("chassis")
    c = ch.position
    m.add_marker("ground", "statics_x", c, orientation={"z_axis": (1.0, 0.0, 0.0)})
    m.add_marker("ground", "statics_y", c, orientation={"z_axis": (0.0, 1.0, 0.0)})
    m.add_marker("ground", "statics_yaw", c)
    m.add_joint("statics_x", "motion", "ground.statics_x", "chassis.cm", dof="translation",
                function=0.0)
    m.add_joint("statics_y", "motion", "ground.statics_y", "chassis.cm", dof="translation",
                function=0.0)
    m.add_joint("statics_yaw", "motion", "ground.statics_yaw", "chassis.cm", dof="rotation",
                function=0.0)
    for j in list(m.joints):
        if j.name.endswith("_wheel_bearing"):
            m.add_joint(j.name.replace("_wheel_bearing", "_statics_spin"), "motion", j.marker_i,
                        j.marker_j, dof="rotation", function=0.0)
    return m
