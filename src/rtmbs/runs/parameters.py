"""Parameter paths: dotted names of the numbers of a model description (docs/runs.md).

A path walks the description as it is written in YAML (docs/model-format.md): keys, items of the
named lists (``bodies``, ``joints``, ``forces``, ``inputs``, ``markers``) by their ``name``, and
vector components by index: ``forces.spring.stiffness``, ``bodies.arm.mass``,
``bodies.link1.markers.tip.position.0``, ``gravity.2``, ``inputs.torque.amplitude``. Overrides
are applied to the description, which is validated again and compiled: the compiled kernels are
the same for every value (nothing is compiled per run).
"""
from __future__ import annotations

import copy
import difflib
import math
from dataclasses import dataclass, field
from pathlib import Path

from ..errors import ModelError
from ..model import Model, load_model_file, model_from_dict
from ..models import BUILTIN, load_model, model_file

_NAMED = ("bodies", "joints", "forces", "inputs", "markers")

#: unit of a parameter from its last key (vector components: the key before the index)
UNITS = {
    "mass": "kg", "inertia": "kg m²", "position": "m", "velocity": "m/s",
    "angular_velocity": "rad/s", "gravity": "m/s²", "stiffness": "N/m", "damping": "N s/m",
    "rotational_stiffness": "N m/rad", "rotational_damping": "N m s/rad", "free_length": "m",
    "min_length": "m", "max_length": "m", "distance": "m", "preload_force": "N",
    "preload_torque": "N m", "omega_eps": "rad/s", "follower_half_length": "m", "t0": "s",
    "t1": "s", "frequency_hz": "Hz", "phase": "rad", "exponent": "1",
}


@dataclass
class ModelSpec:
    """A model to run many times: its description, its name (or file) and the attributes the
    built-in factory sets on the compiled system beyond the description (``allow_redundant``)."""

    name: str
    description: Model
    extras: dict = field(default_factory=dict)


def model_spec(model) -> ModelSpec:
    """The description of a built-in model name or a YAML file (a hand-written system such as
    the planar truck has none: :class:`ModelError`)."""
    if isinstance(model, ModelSpec):
        return model
    if isinstance(model, Model):
        return ModelSpec(model.name, model)
    s = str(model)
    f = model_file(s) if s in BUILTIN else None
    if f is not None:
        return ModelSpec(s, load_model_file(f))
    if s not in BUILTIN and Path(s).suffix.lower() in (".yaml", ".yml"):
        return ModelSpec(s, load_model_file(s))
    system = load_model(s)  # a built-in made in Python, or the error naming the unknown model
    if not hasattr(system, "model"):
        raise ModelError("MODEL", f"'{s}' is a hand-written system without a model description: "
                         "parameter runs need a YAML model or a built-in body model")
    extras = {k: getattr(system, k) for k in ("allow_redundant",) if hasattr(system, k)}
    return ModelSpec(s, system.model, extras)


def _data(model: Model) -> dict:
    return model.model_dump(mode="python", by_alias=True)


def _is_number(v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def parameter_paths(model: Model) -> list[str]:
    """Every path that addresses a number of ``model`` (the names the close-name hints use)."""
    out = []

    def walk(node, prefix):
        if _is_number(node):
            out.append(prefix)
        elif isinstance(node, dict):
            for k, v in node.items():
                if k != "name":
                    walk(v, f"{prefix}.{k}" if prefix else str(k))
        elif isinstance(node, (list, tuple)):
            named = all(isinstance(x, dict) and x.get("name") for x in node) and node
            for i, v in enumerate(node):
                walk(v, f"{prefix}.{v['name'] if named else i}")

    walk(_data(model), "")
    return out


def unknown_path(path: str, model: Model, name: str) -> ModelError:
    """The error for a path that addresses no number of the model, with the closest paths."""
    close = difflib.get_close_matches(path, parameter_paths(model), n=3, cutoff=0.6)
    quoted = [f"'{c}'" for c in close]
    hint = (" (did you mean " + (", ".join(quoted[:-1]) + " or " if len(quoted) > 1 else "")
            + quoted[-1] + "?)") if close else \
        " (a path is keys and names joined by dots, e.g. forces.spring.stiffness or bodies.arm.mass)"
    return ModelError(path, f"unknown parameter of model '{name}'" + hint)


def _locate(data: dict, path: str, model: Model, name: str):
    """(container, key) of the number at ``path`` in the dumped description ``data``."""
    parts = path.split(".")
    node = data
    for i, part in enumerate(parts):
        last = i == len(parts) - 1
        if isinstance(node, dict) and part in node and part != "name":
            key = part
        elif i and isinstance(node, list) and parts[i - 1] in _NAMED:
            key = next((k for k, x in enumerate(node) if isinstance(x, dict) and x.get("name") == part), None)
            if key is None:
                raise unknown_path(path, model, name)
        elif isinstance(node, (list, tuple)) and part.isdigit() and int(part) < len(node):
            key = int(part)
        else:
            raise unknown_path(path, model, name)
        if last:
            value = node[key]
            if not (_is_number(value) or value is None):
                raise ModelError(path, f"is not a number of model '{name}' (it holds "
                                 f"{type(value).__name__}): give a path down to a number")
            return node, key
        if isinstance(node[key], tuple):
            node[key] = list(node[key])
        node = node[key]
    raise unknown_path(path, model, name)


def check_paths(spec: ModelSpec, paths) -> None:
    """Raise the :class:`ModelError` of the first path that addresses no number."""
    data = _data(spec.description)
    for p in paths:
        _locate(data, p, spec.description, spec.name)


def get_value(spec: ModelSpec, path: str):
    """The number at ``path`` (``None`` for an optional key left to its default)."""
    node, key = _locate(_data(spec.description), path, spec.description, spec.name)
    return node[key]


def with_values(spec: ModelSpec, values: dict) -> Model:
    """A new description with ``{path: value}`` applied, validated again (an invalid value is
    the :class:`ModelError` of the model file, e.g. ``bodies.arm.mass: mass must be positive``)."""
    data = _data(spec.description)
    for path, value in values.items():
        if not (_is_number(value) and math.isfinite(value)):
            raise ModelError(path, f"expected a finite number, got {value!r}")
        node, key = _locate(data, path, spec.description, spec.name)
        node[key] = float(value)
    model = model_from_dict(data, source=f"{spec.name} with {_listing(values)}")
    return model


def _listing(values: dict) -> str:
    return ", ".join(f"{k}={v:g}" for k, v in values.items())


def build_system(spec: ModelSpec, values: dict | None = None, inputs: list | None = None):
    """The compiled system of ``spec`` with parameter ``values`` and, when given, the manoeuvre's
    ``inputs`` replacing the model's inputs of the same name."""
    from ..system import compile_model

    model = with_values(spec, values or {}) if values else copy.deepcopy(spec.description)
    if inputs:
        by_name = {i.name: i for i in inputs}
        model.inputs = [by_name.get(i.name, i) for i in model.inputs]
    system = compile_model(model)
    for k, v in spec.extras.items():
        setattr(system, k, v)
    return system


#: force types whose ``stiffness``/``damping`` are rotational or not linear in a length
_FORCE_UNITS = {"torsion-spring": {"stiffness": "N m/rad", "damping": "N m s/rad"},
                "stop": {"stiffness": ""}}


def unit_of_parameter(path: str, model: Model | None = None) -> str:
    """Unit of a parameter from its key (``""`` when the key does not tell)."""
    keys = [p for p in path.split(".") if not p.isdigit()]
    if not keys:
        return ""
    if keys[0] == "forces" and len(keys) == 3 and model is not None:
        ftype = next((f.type for f in model.forces if f.name == keys[1]), None)
        if keys[2] in _FORCE_UNITS.get(ftype, {}):
            return _FORCE_UNITS[ftype][keys[2]]
    if keys[0] == "inputs":
        return {"t0": "s", "t1": "s", "frequency_hz": "Hz", "phase": "rad", "rise": "s",
                "hold": "s", "fall": "s"}.get(keys[-1], "")
    return UNITS.get(keys[-1], "")
