"""The numba kernel of the spring-damper element (:mod:`rtmbs.kernels.elements.spring_damper` packs its
parameters; the engine's ``elements/spring_damper.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from ..elements.spring_damper import C, F0, K, L0
from ..functions import table_eval
from .helpers import line_force, line_length, zero_jacobians


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
