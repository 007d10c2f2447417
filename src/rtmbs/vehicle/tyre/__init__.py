"""Tyre force element building blocks (seed 003 §4.3).

- :func:`load_tir` reads a TNO ``.tir`` file (MF 5.2, PAC2002, MF 6.1/6.2) into
  :class:`TyreProperties`;
- :func:`evaluate` / :func:`magic_formula.mf_steady_state` give the steady-state Magic Formula
  forces and moments (Fx, Fy, Mx, My, Mz) and the effective rolling radius;
- :mod:`.contact` holds the 2-point follower enveloping model (§4.3.1), the slip definitions
  (eqs. 4.15-4.16) and the single-contact-point transient model (eqs. 4.22-4.24).
"""
from __future__ import annotations

from .api import evaluate
from .magic_formula import OUTPUT_NAMES, mf_steady_state
from .tir import TyreProperties, data_path, load_tir, parse_tir

__all__ = ["OUTPUT_NAMES", "TyreProperties", "data_path", "evaluate", "load_tir",
           "mf_steady_state", "parse_tir"]
