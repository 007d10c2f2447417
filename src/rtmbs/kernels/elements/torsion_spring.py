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

from numba import njit

from ...errors import ModelError
from ..cartesian import _cross
from .base import ElementType, marker_axis
from .joint_torque import axial_torque, axis_and_rate

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


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    z, w = axis_and_rate(k, bi, bj, frc_rot, kin_A, kin_w, tmp)
    xi = tmp[14]; yi = tmp[15]; xj = tmp[16]; g = tmp[17]; c1 = tmp[18]
    marker_axis(kin_A, bi, frc_rot[k, 0], 0, xi)
    marker_axis(kin_A, bi, frc_rot[k, 0], 1, yi)
    marker_axis(kin_A, bj, frc_rot[k, 1], 0, xj)
    al = xi[0] * xj[0] + xi[1] * xj[1] + xi[2] * xj[2]
    be = yi[0] * xj[0] + yi[1] * xj[1] + yi[2] * xj[2]
    dl = math.atan2(be, al) - par[TH0]
    dl -= 2.0 * math.pi * math.floor((dl + math.pi) / (2.0 * math.pi))
    Om = z[0] * w[0] + z[1] * w[1] + z[2] * w[2]
    T = -par[K] * dl - par[C] * Om + par[T0] * fv
    axial_torque(T, -par[C], bi, with_jac, fjac, z, w, S, tmp)
    if with_jac:  # the stiffness through θ: ∂τ/∂π_i += −k z gᵀ, ∂τ/∂π_j = k z gᵀ
        rho2 = al * al + be * be
        if rho2 < 1e-30:
            rho2 = 1e-30
        _cross(yi, xj, g)
        _cross(xi, xj, c1)
        for c in range(3):
            g[c] = (al * g[c] - be * c1[c]) / rho2
        for a in range(3):
            for b in range(3):
                kz = par[K] * z[a] * g[b]
                dtdx[a, 3 + b] -= kz
                dtdx[a, 9 + b] = kz
    return T


ELEMENT = ElementType("torsion-spring", kernel, pack, torque_only=True)
