"""Subsystem templates: each builds one side (or the whole) of a subsystem into a Model.

Suspension templates (``double-wishbone``, ``mcpherson``, ``multilink``) expose ``HARD_POINTS``,
``BODIES``, ``BUSHINGS`` and ``build(side, spec, ctx) -> Corner``.
"""
from __future__ import annotations

from . import double_wishbone, mcpherson, multilink

SUSPENSIONS = {"double-wishbone": double_wishbone, "mcpherson": mcpherson, "multilink": multilink}
