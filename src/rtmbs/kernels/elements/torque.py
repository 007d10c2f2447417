"""Applied torque on a body: τ = f(t)·e about a global or body-fixed axis (see :mod:`.force`)."""
from __future__ import annotations

from numba import njit

from .base import ElementType
from .force import applied, pack


@njit(cache=True, inline="always")
def kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    return applied(True, bj, with_jac, fv, par, kin_A, fjac, tmp, S)


ELEMENT = ElementType("torque", kernel, pack, torque_only=True, single_body=True)
