"""Brake torque about marker_i z: T = −T_b(t)·tanh(Ω/ω_ε), Ω = zᵀ(ω_j − ω_i), T_b the element's
function (a smooth Coulomb law)."""
from __future__ import annotations

from ...errors import ModelError
from .base import ElementType

# par: omega_eps
EPS = 0


def pack(fe, ctx):
    if fe.omega_eps <= 0:
        raise ModelError(f"{ctx.path}.omega_eps", "must be positive")
    ctx.par[EPS] = fe.omega_eps


ELEMENT = ElementType("brake", pack, torque_only=True)
