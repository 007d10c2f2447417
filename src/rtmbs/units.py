"""Units of every named signal of a run, from one table keyed by the kind of signal.

The names are the ones the system already makes (``system.py``: coordinates ``<body>.<c>``,
outputs ``<body>.x/vx/wx``, ``<element>.force`` and the element outputs of
``model/registry.py``'s types; ``Result.columns``: ``t``, ``q:``/``qd:`` prefixes). A name's unit
is read from its last component; ``<element>.force`` needs the element's type (a torque element
outputs N m), which :func:`rtmbs.io.meta.system_units` takes from the model. SI units, written as in the
docs: ``m``, ``m/s``, ``rad``, ``N m``; ``1`` marks a dimensionless quantity, ``""`` a quantity
of mixed units (‖Φ‖ mixes lengths and direction cosines).
"""
from __future__ import annotations

#: coordinate kind -> (unit of the coordinate, unit of its time derivative)
COORDINATE = {
    "x": ("m", "m/s"), "y": ("m", "m/s"), "z": ("m", "m/s"),
    "e0": ("1", "1/s"), "e1": ("1", "1/s"), "e2": ("1", "1/s"), "e3": ("1", "1/s"),
    "phi": ("rad", "rad/s"), "theta": ("rad", "rad/s"), "psi": ("rad", "rad/s"),
}

#: output kind (last component of the name) -> unit: body positions, velocities, angular
#: velocities, accelerations (system.py output_names, acceleration_names)
BODY_OUTPUT = {
    "x": "m", "y": "m", "z": "m", "vx": "m/s", "vy": "m/s", "vz": "m/s",
    "wx": "rad/s", "wy": "rad/s", "wz": "rad/s", "ax": "m/s²", "ay": "m/s²", "az": "m/s²",
    # vehicle outputs (rtmbs.model.Sensor, vehicle/build/outputs.py) and driver signals
    "roll": "rad", "pitch": "rad", "yaw": "rad", "roll_rate": "rad/s", "pitch_rate": "rad/s",
    "yaw_rate": "rad/s", "sideslip": "rad", "steer": "rad", "spin": "rad/s",
    "handwheel": "rad", "handwheel_angle": "rad", "rack_travel": "m",
    "wdx": "rad/s²", "wdy": "rad/s²", "wdz": "rad/s²",
}

#: force element type -> unit of its main output ``<element>.force`` (model/registry.py types)
ELEMENT_MAIN = {
    "spring-damper": "N", "stop": "N", "bushing": "N", "force": "N", "tyre": "N",
    "torque": "N m", "joint-torque": "N m", "brake": "N m", "torsion-spring": "N m",
}

#: further element outputs (kernels/elements: bushing Fx..Tz in marker_i axes; tyre
#: TYRE_OUTPUTS: forces, slip ratio, slip angle, camber, radial deflection)
ELEMENT_OUTPUT = {
    "bushing": {"Fx": "N", "Fy": "N", "Fz": "N", "Tx": "N m", "Ty": "N m", "Tz": "N m"},
    "tyre": {"Fx": "N", "Fy": "N", "Fz": "N", "kappa": "1", "alpha": "rad", "gamma": "rad",
             "rho": "m"},
}

_ANY_ELEMENT_OUTPUT = {k: u for outs in ELEMENT_OUTPUT.values() for k, u in outs.items()}

#: constraint primitive (model/registry.py PRIMITIVE_ROWS) -> unit of its multipliers: a
#: constraint in metres carries a force, a dimensionless one (a direction cosine, an angle's
#: sine/cosine, the Euler-parameter norm) a moment
MULTIPLIER = {"point": "N", "offset": "N", "distance": "N", "perp": "N m", "angle": "N m",
              "euler-parameters": "N m"}

#: run-level columns of Result.columns
RUN = {"t": "s", "phi_norm": "", "phid_norm": ""}

#: the planar truck (models/truck.py): named outputs that are not body outputs
TRUCK_OUTPUT = {"chassis_heave": "m", "chassis_pitch": "rad", "cabin_heave": "m",
                "load_pitch": "rad", "g1": "m", "g2": "m", "road_rear": "m", "road_front": "m"}


def unit_of(name: str, element_types: dict[str, str] | None = None) -> str:
    """Unit of one signal name (``t``, ``q:<coord>``, ``qd:<coord>``, ``lam:<i>`` excepted, or a
    named output); ``element_types`` maps force element names to types (for ``<element>.force``).
    ``""`` when the name is of no known kind."""
    if name in RUN:
        return RUN[name]
    if name in TRUCK_OUTPUT:
        return TRUCK_OUTPUT[name]
    if name.startswith(("q:", "qd:")):
        prefix, coord = name.split(":", 1)
        kind = coord.rsplit(".", 1)[-1]
        if kind in COORDINATE:
            return COORDINATE[kind][prefix == "qd"]
        return ""
    owner, _, kind = name.rpartition(".")
    etype = (element_types or {}).get(owner)
    if etype is not None:
        if kind == "force":
            return ELEMENT_MAIN.get(etype, "")
        return ELEMENT_OUTPUT.get(etype, {}).get(kind, "")
    if owner and kind in BODY_OUTPUT:
        return BODY_OUTPUT[kind]
    if owner and kind in _ANY_ELEMENT_OUTPUT:  # the same unit for every element type that has it
        return _ANY_ELEMENT_OUTPUT[kind]
    return ""


def unit_in(result, name: str) -> str:
    """Unit of a signal as :meth:`Result.signal` resolves ``name`` (an output before a
    coordinate of the same name; ``chassis.z`` is the output, ``q:chassis.z`` the coordinate)."""
    known = result.meta.get("units") or {}
    if name in result.outputs or name == "t":
        key = name
    elif name.startswith("qd:"):
        key = name
    else:
        key = "q:" + name.removeprefix("q:")
    return known[key] if key in known else unit_of(key)


def signal_units(result) -> dict[str, str]:
    """``{name: unit}`` for every column of ``result`` (``Result.columns``) and its multipliers:
    ``result.meta['units']`` (written from the system when the run is saved) where it has the
    name, else :func:`unit_of` of the name (extra states ``x<i>`` have no unit)."""
    known = dict(result.meta.get("units") or {})
    names = list(result.columns()) + [f"lam:{i}" for i in range(result.lam.shape[1]
                                                                 if result.lam.ndim == 2 else 0)]
    return {n: known[n] if n in known else unit_of(n) for n in names}


def label(name: str, unit: str) -> str:
    """An axis label: ``rim.z [m]``; the bare name without a unit."""
    return f"{name} [{unit}]" if unit else name
