"""Point-to-point spring-damper, linear or tabulated: tension F = k(L − L0) + c L̇ + F0·f(t)
along the line of the two marker origins (or F(L − L0) and F(L̇) from tables)."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from .base import ElementType

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


ELEMENT = ElementType("spring-damper", pack)
