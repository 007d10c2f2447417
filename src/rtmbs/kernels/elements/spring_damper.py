"""Point-to-point spring-damper, linear or tabulated: tension F = k(L − L0) + c L̇ + F0·f(t)
along the line of the two marker origins (or F(L − L0) and F(L̇) from tables)."""
from __future__ import annotations

import numpy as np
from numba import njit

from ...errors import ModelError
from ..functions import table_eval
from .base import ElementType, line_force, line_length, zero_jacobians

# par: stiffness k, damping c, free length L0, preload F0
K, C, L0, F0 = range(4)


def pack(fe, ctx):
    par = ctx.par
    par[K] = ctx.scalar(fe.stiffness, "stiffness")
    par[C] = ctx.scalar(fe.damping, "damping")
    if fe.free_length is not None:
        par[L0] = fe.free_length
    else:  # the initial length
        par[L0] = float(np.linalg.norm(ctx.point(ctx.mj) - ctx.point(ctx.mi)))
    par[F0] = fe.preload
    if fe.force_table:
        ctx.tab[0] = ctx.table(fe.force_table["deflection"], fe.force_table["force"])
    if fe.damping_table:
        ctx.tab[1] = ctx.table(fe.damping_table["velocity"], fe.damping_table["force"])
    if par[K] < 0 or par[C] < 0:
        raise ModelError(ctx.path, "stiffness and damping must be non-negative")


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    f, tau, dfdx, dfdv, dtdx, dtdv = fjac
    tab_adr, tab_len, tab_x, tab_y = funs[3], funs[4], funs[5], funs[6]
    if with_jac:
        zero_jacobians(dfdx, dfdv, dtdx, dtdv, False, True)
    L, Ld = line_length(tmp)
    if frc_tab[k, 0] >= 0:
        j = frc_tab[k, 0]
        F, FL = table_eval(L - par[L0], tab_x, tab_y, tab_adr[j], tab_len[j])
    else:
        F, FL = par[K] * (L - par[L0]), par[K]
    if frc_tab[k, 1] >= 0:
        j = frc_tab[k, 1]
        Fd, FLd = table_eval(Ld, tab_x, tab_y, tab_adr[j], tab_len[j])
        F += Fd
    else:
        F += par[C] * Ld
        FLd = par[C]
    F += par[F0] * fv
    line_force(F, FL, FLd, L, tmp[10], Ld, with_jac, bi, bj, sgj, kin_w, f, dfdx, dfdv, tmp, S, Dd, Ddd)
    return F


ELEMENT = ElementType("spring-damper", kernel, pack)
