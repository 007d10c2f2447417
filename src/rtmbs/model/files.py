"""Model files (YAML): load with errors that name the key path, save."""
from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import ValidationError

from ..errors import ModelError
from .strict_yaml import safe_load, yaml_problem
from .description import Model

#: A model without bodies is refused.
NO_BODIES = "a model needs at least one body; none given (nothing would move)"
_NAMED_LISTS = ("bodies", "joints", "couplers", "forces", "inputs", "markers")


def _path(loc, raw) -> str:
    """Turn a pydantic location into a readable key path, using item names for list indices:
    ('bodies', 2, 'mass') -> 'bodies.arm.mass'."""
    parts = []
    node = raw
    for item in loc:
        if isinstance(item, int) and isinstance(node, list):
            name = None
            if 0 <= item < len(node) and isinstance(node[item], dict):
                name = node[item].get("name")
            parts.append(str(name) if name else f"[{item}]")
            node = node[item] if 0 <= item < len(node) else None
        elif isinstance(item, int) and isinstance(node, dict) and 0 <= item < len(node):
            key = list(node)[item]  # a mapping written as {name: ...} (markers, inputs)
            parts.append(str(key))
            node = node[key]
        else:
            parts.append(str(item))
            node = node.get(item) if isinstance(node, dict) else None
    return ".".join(parts)


def model_from_dict(data: dict, source: str = "") -> Model:
    """Validate a mapping into a :class:`Model`; errors become :class:`ModelError` with the key."""
    if not isinstance(data, dict):
        raise ModelError(source, f"a model file must hold a mapping at the top level, got {type(data).__name__}")
    try:
        return Model.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        loc = [x for x in err["loc"] if not (isinstance(x, str) and x.startswith("function-"))]
        path = _path(loc, data)
        msg = err["msg"].removeprefix("Value error, ")
        if err["type"] == "extra_forbidden":
            msg = f"unknown key '{loc[-1]}'"
        elif err["type"] == "missing" and loc[-1] == "inertia":
            msg = ("required key is missing: the inertia about the centre of mass, body axes "
                   "[kg m²] (3 principal moments, 6 values or a 3×3 matrix); there is no default")
        elif err["type"] == "missing":
            msg = "required key is missing"
        prefix = f"{source}: " if source else ""
        raise ModelError(prefix + path, msg) from None


def load_model_file(path) -> Model:
    path = Path(path)
    if not path.exists():
        raise ModelError(str(path), "model file not found")
    if path.is_dir():
        raise ModelError(str(path), "is a folder, expected a YAML model file")
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(str(path), f"cannot be read ({getattr(exc, 'strerror', None) or exc})") from None
    try:
        data = safe_load(text)
    except yaml.YAMLError as exc:
        raise ModelError(str(path), yaml_problem(exc)) from None
    model = model_from_dict(data, source=str(path))
    if not model.bodies:
        raise ModelError(f"{path}: bodies", NO_BODIES)
    if model.name == "model":
        model.name = path.stem
    resolve_file_references(model, path.parent)
    return model


#: keys of a tyre's ``road`` mapping that name a file
ROAD_FILE_KEYS = ("file", "path")


def _is_file_name(text: str) -> bool:
    """A tyre property reference that names a file (``.tir`` or with a folder), not a shipped
    short name such as MF61."""
    return text.lower().endswith(".tir") or "/" in text or "\\" in text


def file_references(model: Model):
    """(owner, key, path text) of every file a model refers to: tyre property files and road
    files. ``owner`` is the element (tyre) or its road mapping."""
    for f in model.forces:
        if f.type != "tyre":
            continue
        if f.tyre and _is_file_name(f.tyre):
            yield f, "tyre", f.tyre
        if isinstance(f.road, dict):
            for key in ROAD_FILE_KEYS:
                if isinstance(f.road.get(key), str):
                    yield f.road, key, f.road[key]


def resolve_file_references(model: Model, folder: Path) -> None:
    """Relative file references of a model file resolve against the model file's folder, not the
    current folder (a model and its files can move together)."""
    for owner, key, text in list(file_references(model)):
        p = Path(text).expanduser()
        if not p.is_absolute():
            p = (folder / p).resolve()
            if isinstance(owner, dict):
                owner[key] = str(p)
            else:
                setattr(owner, key, str(p))


def save_model_file(model: Model, path) -> Path:
    path = Path(path)
    data = model.model_dump(mode="json", by_alias=True, exclude_defaults=True)
    path.write_text(yaml.safe_dump(data, sort_keys=False))
    return path
