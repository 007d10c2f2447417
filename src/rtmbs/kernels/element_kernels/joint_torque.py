"""The numba kernel of the joint-torque element (:mod:`rtmbs.kernels.elements.joint_torque` packs its
parameters; the engine's ``elements/joint_torque.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from ..cartesian import _cross, _skew
from .helpers import marker_axis, zero_jacobians


@njit(cache=True, inline="always")
def axial_torque(T, Tp, bi, with_jac, fjac, z, w, S, tmp):
    """τ = T z about the unit axis z fixed in body i, T depending on Ω = zᵀ(ω_j − ω_i) with
    ∂T/∂Ω = Tp: ∂τ/∂π_i = −T z̃ + Tp z (z × w)ᵀ, ∂τ/∂ω_j = −∂τ/∂ω_i = Tp z zᵀ (w = ω_j − ω_i)."""
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    for c in range(3):
        tau[c] = T * z[c]
    if not with_jac:
        return
    zero_jacobians(dfdx, dfdv, dtdx, dtdv, True, True)
    v2 = tmp[13]
    _skew(z, S[0])
    _cross(z, w, v2)
    for a in range(3):
        for b in range(3):
            dtdx[a, 3 + b] = -T * S[0, a, b] + Tp * z[a] * v2[b]
            dtdv[a, 3 + b] = -Tp * z[a] * z[b]
            dtdv[a, 9 + b] = Tp * z[a] * z[b]


@njit(cache=True, inline="always")
def axis_and_rate(k, bi, bj, frc_rot, kin_A, kin_w, tmp):
    """Marker_i z in global axes (tmp[12]) and the relative angular velocity ω_j − ω_i (tmp[11])."""
    z = tmp[12]
    w = tmp[11]
    marker_axis(kin_A, bi, frc_rot[k, 0], 2, z)
    for c in range(3):
        w[c] = kin_w[bj, c] - kin_w[bi, c]
    return z, w


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    z, w = axis_and_rate(k, bi, bj, frc_rot, kin_A, kin_w, tmp)
    axial_torque(fv, 0.0, bi, with_jac, fjac, z, w, S, tmp)
    return fv
