"""The numba kernel of the stop element (:mod:`rtmbs.kernels.elements.stop` packs its
parameters; the engine's ``elements/stop.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from ..elements.stop import C, EXP, K, LMAX, LMIN
from .helpers import line_force, line_length, zero_jacobians


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    if with_jac:
        zero_jacobians(dfdx, dfdv, dtdx, dtdv, False, True)
    L, Ld = line_length(tmp)
    Lmin, Lmax, k_s, ex, c_d = par[LMIN], par[LMAX], par[K], par[EXP], par[C]
    F, FL, FLd = 0.0, 0.0, 0.0
    if L < Lmin:
        pen = Lmin - L
        F = -k_s * pen ** ex + c_d * Ld
        FL = k_s * ex * pen ** (ex - 1.0)
        FLd = c_d
    elif L > Lmax:
        pen = L - Lmax
        F = k_s * pen ** ex + c_d * Ld
        FL = k_s * ex * pen ** (ex - 1.0)
        FLd = c_d
    line_force(F, FL, FLd, L, tmp[10], Ld, with_jac, bi, bj, sgj, kin_w, f, dfdx, dfdv, tmp, S, Dd, Ddd)
    return F
