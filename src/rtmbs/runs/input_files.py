"""Manoeuvres of many runs: the model's own inputs, or a file that replaces some of them.

A manoeuvre file is YAML, ``inputs: {name: spec}`` in the vocabulary of a model's inputs
(docs/model-format.md), or CSV, a column ``t`` and one column per input (each becomes a ``table``
input). Every input it names must be an input of the model: a manoeuvre that drives nothing
the model has is refused, naming the input and the model's inputs.

Named manoeuvres (:func:`named_manoeuvre`): ``four-phase`` and its validations, the test of the
concept models (rtmbs.concept.drive_cycles), as tables of ``drive_torque`` and ``brake_torque``
and the test's ISO 8608 road under every tyre.
"""
from __future__ import annotations

import csv
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import yaml
from pydantic import ValidationError

from ..model.strict_yaml import safe_load, yaml_problem
from ..errors import ModelError, did_you_mean
from ..model import Input, Model

#: the manoeuvre of a model's own inputs
OWN = "model"


def load_manoeuvre(path) -> list[Input]:
    """The inputs of a manoeuvre file (YAML or CSV)."""
    p = Path(path)
    if not p.is_file():
        raise ModelError(str(p), "manoeuvre file not found (expected a YAML or CSV file, or "
                         f"'{OWN}' for the model's own inputs)")
    if p.suffix.lower() == ".csv":
        return _csv_inputs(p)
    try:
        data = safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ModelError(str(p), yaml_problem(exc)) from None
    if not isinstance(data, dict) or not isinstance(data.get("inputs"), dict) or not data["inputs"]:
        raise ModelError(str(p), "a manoeuvre file holds 'inputs': a mapping of input name -> "
                         "input (as in a model file)")
    out = []
    for name, spec in data["inputs"].items():
        try:
            fields = spec if isinstance(spec, dict) else {"type": "constant", "value": spec}
            out.append(Input(name=str(name), **fields))
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(x) for x in err["loc"])
            raise ModelError(f"{p}: inputs.{name}{'.' + where if where else ''}",
                             err["msg"].removeprefix("Value error, ")) from None
    return out


def _csv_inputs(p: Path) -> list[Input]:
    with p.open(newline="") as fh:
        rows = list(csv.reader(fh))
    if not rows or "t" not in rows[0]:
        raise ModelError(str(p), "a manoeuvre CSV needs a header with a column 't' and one "
                         "column per input")
    head = [h.strip() for h in rows[0]]
    body = [r for r in rows[1:] if r and not all(not c.strip() for c in r)]
    try:
        cols = {h: [float(r[k]) for r in body] for k, h in enumerate(head)}
    except (ValueError, IndexError):
        raise ModelError(str(p), "every row needs a number in every column") from None
    try:
        return [Input(name=h, type="table", t=cols["t"], values=cols[h]) for h in head if h != "t"]
    except ValidationError as exc:
        raise ModelError(str(p), exc.errors()[0]["msg"].removeprefix("Value error, ")) from None


def manoeuvre_inputs(manoeuvre, model: Model, model_name: str) -> list[Input] | None:
    """The inputs that replace the model's (``None``: the model's own), checked against it."""
    if manoeuvre is None or manoeuvre == OWN:
        return None
    inputs = manoeuvre if isinstance(manoeuvre, list) else load_manoeuvre(manoeuvre)
    known = [i.name for i in model.inputs]
    for inp in inputs:
        if inp.name not in known:
            source = manoeuvre if not isinstance(manoeuvre, list) else "manoeuvre"
            if not known:
                raise ModelError(f"{source}: inputs.{inp.name}", f"model '{model_name}' has no "
                                 "inputs: it cannot be driven by a manoeuvre (use its own motion)")
            raise ModelError(f"{source}: inputs.{inp.name}", f"not an input of model "
                             f"'{model_name}'" + did_you_mean(inp.name, known))
    return inputs


# -- named manoeuvres: the concept models' four-phase tests (rtmbs.concept.drive_cycles) -----------
#: name -> the test of rtmbs.concept.drive_cycles.MANOEUVRES
FOUR_PHASE = {"four-phase": "test", "four-phase-V1": "V1", "four-phase-V2": "V2"}


@dataclass(frozen=True)
class NamedManoeuvre:
    """A built-in manoeuvre: the inputs it replaces (tables of ``drive_torque`` and
    ``brake_torque``), the road it puts under every tyre and its duration."""

    name: str
    inputs: list
    road: dict
    t_end: float


def _breakpoints(m) -> np.ndarray:
    r = min(m.drive_ramp, 0.5 * (m.t_neutral - m.t_drive))
    t = [0.0, m.t_drive, m.t_drive + r, m.t_neutral - r, m.t_neutral, m.t_brake,
         m.t_brake + m.brake_ramp, max(m.t_end, m.t_brake + m.brake_ramp) + 1.0]
    return np.unique(np.array(t))


def named_manoeuvre(spec, source: str = "manoeuvre") -> NamedManoeuvre | None:
    """The built-in manoeuvre ``spec`` names, ``None`` when it names none (a file or ``model``).

    ``four-phase`` (the 18 s identification test of Carpinelli 2015 §5.1.3), ``four-phase-V1``,
    ``four-phase-V2`` (the validations), or a mapping ``{four-phase: test|V1|V2, scale: k}``
    (every time multiplied by k: a shorter window). The torques are piecewise linear, so tables
    at their breakpoints reproduce :meth:`rtmbs.concept.drive_cycles.Manoeuvre.torques` exactly."""
    from ..concept.drive_cycles import MANOEUVRES

    if isinstance(spec, str) and spec in FOUR_PHASE:
        which, scale = FOUR_PHASE[spec], 1.0
    elif isinstance(spec, dict) and "four-phase" in spec:
        extra = set(spec) - {"four-phase", "scale"}
        if extra:
            raise ModelError(f"{source}.{sorted(extra)[0]}", "unknown key (known: four-phase, scale)")
        which, scale = spec["four-phase"], spec.get("scale", 1.0)
        if which not in MANOEUVRES:
            raise ModelError(f"{source}.four-phase", f"unknown test {which!r}"
                             + did_you_mean(str(which), list(MANOEUVRES)) + f" (known: {', '.join(MANOEUVRES)})")
        ok = isinstance(scale, (int, float)) and not isinstance(scale, bool) and 0 < scale < np.inf
        if not ok:
            raise ModelError(f"{source}.scale", f"expected a number > 0, got {scale!r}")
    elif isinstance(spec, str) and spec.startswith("four-phase"):
        raise ModelError(source, f"unknown manoeuvre {spec!r}" + did_you_mean(spec, list(FOUR_PHASE)))
    else:
        return None
    m = MANOEUVRES[which]
    if scale != 1.0:
        m = m.scaled(float(scale))
    t = _breakpoints(m)
    drive, brake = m.torques(t)
    inputs = [Input(name="drive_torque", type="table", t=t.tolist(), values=drive.tolist()),
              Input(name="brake_torque", type="table", t=t.tolist(), values=brake.tolist())]
    return NamedManoeuvre(m.name, inputs, m.road(), float(m.t_end))


def with_road(model: Model, road: dict, model_name: str, manoeuvre: str) -> Model:
    """A copy of ``model`` with ``road`` under every tyre (ModelError if it has none)."""
    tyres = [f for f in model.forces if f.type == "tyre"]
    if not tyres:
        raise ModelError(manoeuvre, f"model '{model_name}' has no tyre: the four-phase test "
                         "drives it over a road")
    out = model.model_copy(deep=True)
    for f in out.forces:
        if f.type == "tyre":
            f.road = dict(road)
    return out


# -- inputs of a compiled system from the command line (``rtmbs run --input NAME=SPEC``) --------

def input_functions(specs, system) -> dict:
    """``{channel: f(t)}`` for :func:`rtmbs.solvers.simulate.simulate` from ``NAME=SPEC``
    strings: SPEC a number (held), or a CSV file with a column ``t`` and a column NAME (or one
    other column): linear between its rows, held at the ends. NAME must be an input channel of
    ``system`` (a vehicle's ``handwheel_angle`` rad, ``drive_torque`` N m per half shaft,
    ``brake_torque_front``/``brake_torque_rear`` N m per wheel). ModelError names the option."""
    out = {}
    names = tuple(getattr(system, "input_names", ()))
    for spec in specs or ():
        name, eq, value = str(spec).partition("=")
        name, value = name.strip(), value.strip()
        where = f"--input {spec}"
        if not eq or not name or not value:
            raise ModelError(where, "expected NAME=VALUE or NAME=FILE.csv (e.g. "
                             "handwheel_angle=0.1)")
        if name not in names:
            raise ModelError(where, f"'{name}' is not an input channel of the model"
                             + (did_you_mean(name, names) if names else " (it has none)"))
        if name in out:
            raise ModelError(where, f"'{name}' is given twice")
        number = _finite(value)
        if number is not None:
            out[name] = (lambda c: (lambda t: c))(number)
            continue
        out[name] = _csv_channel(Path(value), name, where)
    return out


def _finite(text: str) -> float | None:
    """The number ``text`` if it is one and finite, else None."""
    try:
        x = float(text)
    except ValueError:
        return None
    return x if np.isfinite(x) else None


def _csv_channel(path: Path, name: str, where: str):
    if not path.is_file():
        raise ModelError(where, f"'{path}' is neither a number nor a CSV file (looked for "
                         f"{path.resolve()})")
    cols = _csv_inputs(path)
    named = [i for i in cols if i.name == name]
    if not named and len(cols) != 1:
        raise ModelError(str(path), f"no column '{name}' (columns: "
                         f"{', '.join(i.name for i in cols)}); expected t and {name}")
    inp = (named or cols)[0]
    t, v = np.asarray(inp.t, float), np.asarray(inp.values, float)
    return lambda x: float(np.interp(x, t, v))
