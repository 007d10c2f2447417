"""Brake torque about marker_i z: T = −T_b(t)·tanh(Ω/ω_ε), Ω = zᵀ(ω_j − ω_i), T_b the element's
function (a smooth Coulomb law)."""
from __future__ import annotations

import math

from numba import njit

from ...errors import ModelError
from .base import ElementType
from .joint_torque import axial_torque, axis_and_rate

# par: omega_eps
EPS = 0


def pack(fe, ctx):
    if fe.omega_eps <= 0:
        raise ModelError(f"{ctx.path}.omega_eps", "must be positive")
    ctx.par[EPS] = fe.omega_eps


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    z, w = axis_and_rate(k, bi, bj, frc_rot, kin_A, kin_w, tmp)
    eps = par[EPS]
    Om_rel = z[0] * w[0] + z[1] * w[1] + z[2] * w[2]
    th_ = math.tanh(Om_rel / eps)
    T = -fv * th_
    Tp = -fv * (1.0 - th_ * th_) / eps
    axial_torque(T, Tp, bi, with_jac, fjac, z, w, S, tmp)
    return T


ELEMENT = ElementType("brake", kernel, pack, torque_only=True)
