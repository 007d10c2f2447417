"""Bump / rebound stop along the line of two marker origins: tension
F = −k (L_min − L)^e + c L̇ below L_min, k (L − L_max)^e + c L̇ above L_max, zero between."""
from __future__ import annotations

from ...errors import ModelError
from .base import ElementType

# par: min length, max length, stiffness k, exponent e, damping c
LMIN, LMAX, K, EXP, C = range(5)


def pack(fe, ctx):
    par = ctx.par
    par[LMIN] = fe.min_length if fe.min_length is not None else -1.0
    par[LMAX] = fe.max_length if fe.max_length is not None else 1e30
    par[K] = ctx.scalar(fe.stiffness, "stiffness")
    par[EXP] = fe.exponent
    par[C] = ctx.scalar(fe.damping, "damping")
    if fe.exponent < 1:
        raise ModelError(f"{ctx.path}.exponent", f"must be >= 1, got {fe.exponent}")


ELEMENT = ElementType("stop", pack)
