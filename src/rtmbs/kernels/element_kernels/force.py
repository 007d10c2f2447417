"""The numba kernel of the force element (:mod:`rtmbs.kernels.elements.force` packs its
parameters; the engine's ``elements/force.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from ..cartesian import _matvec, _skew
from ..elements.force import BODY_FIXED, DIR
from .helpers import zero_jacobians


@njit(cache=True, inline="always")
def applied(torque, bj, with_jac, fv, par, kin_A, fjac, tmp, S):
    """The vector fv·e (e rotating with body j if body-fixed) as the force or, with ``torque``,
    the couple; the only Jacobian is ∂(A e)/∂π_j = −(A e)~ of a body-fixed direction."""
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    v1 = tmp[12]
    v2 = tmp[13]
    if with_jac:
        zero_jacobians(dfdx, dfdv, dtdx, dtdv, True, True)
    for c in range(3):
        v1[c] = par[DIR + c]
    if par[BODY_FIXED] != 0.0:
        _matvec(kin_A[bj], v1, v2)
    else:
        for c in range(3):
            v2[c] = v1[c]
    vec = tau if torque else f
    for c in range(3):
        vec[c] = fv * v2[c]
    if with_jac and par[BODY_FIXED] != 0.0:
        _skew(vec, S[0])
        dvx = dtdx if torque else dfdx
        for a in range(3):
            for b in range(3):
                dvx[a, 9 + b] = -S[0, a, b]
    return fv


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    return applied(False, bj, with_jac, fv, par, kin_A, fjac, tmp, S)
