"""The numba kernel of the tyre element (:mod:`rtmbs.kernels.elements.tyre` packs its
parameters; the engine's ``elements/tyre.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from .. import tyre_element as te
from .helpers import marker_axis, zero_jacobians


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    if with_jac:  # (without contact the tyre writes none)
        zero_jacobians(dfdx, dfdv, dtdx, dtdv, True, True)
    sax = tmp[12]  # spin axis: marker_j z
    marker_axis(kin_A, bj, frc_rot[k, 1], 2, sax)
    te.tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, tmp[5], tmp[6], kin_w[bj], sax, sgj, f, tau,
                  dfdx, dfdv, dtdx, dtdv, outs, tmp[14:24], X, mf)
    return outs[2]
