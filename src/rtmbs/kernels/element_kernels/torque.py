"""The numba kernel of the torque element (:mod:`rtmbs.kernels.elements.torque` packs its
parameters; the engine's ``elements/torque.c`` is its C twin). Deleted with the numba steps
(issue 29)."""
from __future__ import annotations

from numba import njit

from .force import applied


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    return applied(True, bj, with_jac, fv, par, kin_A, fjac, tmp, S)
