"""Tyre force element building blocks (Carpinelli 2015 §4.3).

- :func:`load_tir` reads a TNO ``.tir`` file (MF 5.2, PAC2002, MF 6.1/6.2) into
  :class:`TyreProperties`;
- :func:`evaluate` / :func:`magic_formula.mf_steady_state` give the steady-state Magic Formula
  forces and moments (Fx, Fy, Mx, My, Mz) and the effective rolling radius;
- :mod:`.contact` holds the 2-point follower enveloping model (§4.3.1), the slip definitions
  (eqs. 4.15-4.16) and the single-contact-point transient model (eqs. 4.22-4.24).
"""
from __future__ import annotations

import importlib

# Lazy attributes: importing the package (e.g. by the CLI) loads neither the engine nor numpy.
_LAZY = {"evaluate": "api", "OUTPUT_NAMES": "magic_formula", "mf_steady_state": "magic_formula",
         "TyreProperties": "tir", "data_path": "tir", "load_tir": "tir", "parse_tir": "tir"}

__all__ = sorted(_LAZY)


def __getattr__(name):
    if name in _LAZY:
        return getattr(importlib.import_module(f".{_LAZY[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
