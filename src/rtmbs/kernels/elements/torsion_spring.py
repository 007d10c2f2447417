"""Linear torsion spring-damper about marker_i z between two bodies (the worked example of
docs/extending.md): torque on body j (−on i)

    τ = T z,   T = −k δ − c Ω + T0·f(t),   δ = θ − θ0 wrapped into [−π, π),
    θ = atan2(y_iᵀx_j, x_iᵀx_j)   (the angle of marker_j x about marker_i z),
    Ω = zᵀ(ω_j − ω_i),

θ0 = the initial angle, T0 = ``preload``. With x_i, y_i, z (= z_i) and x_j global, α = x_iᵀx_j,
β = y_iᵀx_j: ∂θ/∂π_i = g = [α (y_i × x_j) − β (x_i × x_j)]/(α² + β²) = −∂θ/∂π_j; the rest as
:func:`.joint_torque.axial_torque` with ∂T/∂Ω = −c. In a revolute joint about z_i, θ̇ = Ω and
the stored energy is ½ k δ².
"""
from __future__ import annotations

import math


from ...errors import ModelError
from .base import ElementType

# par: stiffness k, damping c, initial angle θ0, preload torque T0
K, C, TH0, T0 = range(4)


def pack(fe, ctx):
    par = ctx.par
    par[K] = ctx.scalar(fe.stiffness, "stiffness")
    par[C] = ctx.scalar(fe.damping, "damping")
    par[T0] = fe.preload
    Bi, Bj = ctx.axes(ctx.mi), ctx.axes(ctx.mj)
    al, be = Bi[:, 0] @ Bj[:, 0], Bi[:, 1] @ Bj[:, 0]
    if math.hypot(al, be) < 1e-6:
        raise ModelError(ctx.path, "marker_j x is along marker_i z: no angle about marker_i z")
    par[TH0] = math.atan2(be, al)


ELEMENT = ElementType("torsion-spring", pack, torque_only=True)
