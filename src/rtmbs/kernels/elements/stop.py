"""Bump / rebound stop along the line of two marker origins: tension
F = −k (L_min − L)^e + c L̇ below L_min, k (L − L_max)^e + c L̇ above L_max, zero between."""
from __future__ import annotations

from numba import njit

from ...errors import ModelError
from .base import ElementType, line_force, line_length, zero_jacobians

# par: min length, max length, stiffness k, exponent e, damping c
LMIN, LMAX, K, EXP, C = range(5)


def pack(fe, ctx):
    par = ctx.par
    par[LMIN] = fe.min_length if fe.min_length is not None else -1.0
    par[LMAX] = fe.max_length if fe.max_length is not None else 1e30
    par[K] = ctx.scalar(fe.stiffness, "stiffness")
    par[EXP] = fe.exponent
    par[C] = ctx.scalar(fe.damping, "damping")
    if fe.exponent < 1:
        raise ModelError(f"{ctx.path}.exponent", f"must be >= 1, got {fe.exponent}")


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


ELEMENT = ElementType("stop", kernel, pack)
