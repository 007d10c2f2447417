"""The library's models by name, for tests parametrized over them: the built-in models
(``rtmbs.models.load_model``) and ``multilink-transient`` (the ideal multilink with transient
tyres, ``rtmbs.models.multilink.build("ideal", transient=True)``), which has extra states."""
from __future__ import annotations

from rtmbs.models import load_model
from rtmbs.models.multilink import build

_COMPILED = {}


def library_model(name: str):
    """A freshly compiled model."""
    if name == "multilink-transient":
        return build("ideal", transient=True)
    return load_model(name)


def fresh_data(name: str):
    """New data (``new_data``) of a model compiled once per test session."""
    if name not in _COMPILED:
        _COMPILED[name] = library_model(name)
    return _COMPILED[name].new_data()
