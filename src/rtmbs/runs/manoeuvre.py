"""Manoeuvres of many runs: the model's own inputs, or a file that replaces some of them.

A manoeuvre file is YAML, ``inputs: {name: spec}`` in the vocabulary of a model's inputs
(docs/model-format.md), or CSV, a column ``t`` and one column per input (each becomes a ``table``
input). Every input it names must be an input of the model: a manoeuvre that drives nothing
the model has is refused, naming the input and the model's inputs.
"""
from __future__ import annotations

import csv
from pathlib import Path

import yaml
from pydantic import ValidationError

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
        data = yaml.safe_load(p.read_text())
    except yaml.YAMLError as exc:
        raise ModelError(str(p), f"malformed YAML: {getattr(exc, 'problem', exc)}") from None
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
