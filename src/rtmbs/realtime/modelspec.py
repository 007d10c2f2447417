"""Naming a model on the command line or inside an FMU.

A model spec is one of

* ``FILE.py:FACTORY`` — a Python file and a function (or class) in it returning a
  ``MechanicalSystem``; the file is imported under a name made from its path (so it may also
  register solvers);
* ``package.module:FACTORY`` — the same from an importable module;
* anything else — a library model name or a YAML model file, given to
  ``rtmbs.models.load_model``.
"""
from __future__ import annotations

import hashlib
import importlib
import importlib.util
import sys
from pathlib import Path

from ..errors import ModelError
from ..protocol import MechanicalSystem


def split_spec(spec: str) -> tuple[str, str | None]:
    """``(target, factory)``; ``factory`` is None for a library name or a YAML file."""
    head, sep, tail = str(spec).rpartition(":")
    if sep and tail.isidentifier() and head and not (len(head) == 1 and head.isalpha()):
        return head, tail
    return str(spec), None


def spec_file(spec: str) -> Path | None:
    """The file a spec needs (a ``.py`` or YAML file), or None for a library name or module."""
    target, factory = split_spec(spec)
    if factory is not None:
        return Path(target) if target.endswith(".py") else None
    p = Path(target)
    return p if p.suffix.lower() in (".yaml", ".yml") else None


def _import_file(path: Path):
    path = path.resolve()
    name = "rtmbs_user_" + hashlib.sha1(str(path).encode()).hexdigest()[:12]
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        del sys.modules[name]
        raise
    return mod


def resolve_model(spec: str) -> MechanicalSystem:
    """Build the ``MechanicalSystem`` a spec names (module doc)."""
    target, factory = split_spec(spec)
    if factory is None:
        try:
            from ..models import load_model
        except ImportError:
            raise ModelError("MODEL", f"cannot load '{spec}': rtmbs.models.load_model is not "
                             "available; give FILE.py:FACTORY or module:FACTORY") from None
        return load_model(spec)
    if target.endswith(".py"):
        path = Path(target)
        if not path.is_file():
            raise ModelError("MODEL", f"model file '{target}' does not exist")
        mod = _import_file(path)
    else:
        try:
            mod = importlib.import_module(target)
        except ModuleNotFoundError as exc:
            raise ModelError("MODEL", f"cannot import module '{target}': {exc}") from None
    fn = getattr(mod, factory, None)
    if fn is None or not callable(fn):
        raise ModelError("MODEL", f"'{target}' has no factory '{factory}'")
    system = fn()
    if not isinstance(system, MechanicalSystem):
        raise ModelError("MODEL", f"'{spec}' returned {type(system).__name__}, expected a "
                         "MechanicalSystem")
    return system
