"""The numba kernel of the torsion-spring element (:mod:`rtmbs.kernels.elements.torsion_spring` packs its
parameters; the engine's ``elements/torsion_spring.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

import math

from numba import njit

from ..cartesian import _cross
from ..elements.torsion_spring import C, K, T0, TH0
from .helpers import marker_axis
from .joint_torque import axial_torque, axis_and_rate


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
