"""The numba kernel of the brake element (:mod:`rtmbs.kernels.elements.brake` packs its
parameters; the engine's ``elements/brake.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

import math

from numba import njit

from ..elements.brake import EPS
from .joint_torque import axial_torque, axis_and_rate


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
