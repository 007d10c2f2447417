"""Subsystem synthesis with independent coordinates (Kim & Wang 2005, Kim & Wang): a base body and
subsystems whose effective mass and force enter the base body's 6×6 equation (eqs. 1-2).
docs/synthesis.md."""
from .description import subsystem_model
from .numpy_provider import SynthesisSystem, build

__all__ = ["SynthesisSystem", "build", "subsystem_model"]
