"""Road height in numba (:func:`road_height_packed`), kept only for the numba evaluation
(:mod:`rtmbs.kernels.tyre_element`) that the solvers' numba steps still call; the engine's
``road.c`` is the implementation everything else calls (:mod:`rtmbs.vehicle.road`). Deleted
with the numba steps (issue 29)."""
from __future__ import annotations

from numba import njit

from ..vehicle.road import PACK_HEADER


@njit(cache=True)
def road_height_packed(table, x, y):
    """Road height and slope on the packed 1-D layout ``[x0, dx, y_left, y_right, N, zl..., zr...]``
    (indexes the array directly: no view is created per call)."""
    x0 = table[0]
    dx = table[1]
    n = (table.shape[0] - PACK_HEADER) // 2  # = table[4]; from the shape, a register value
    s = (x - x0) / dx
    inside = True
    if s <= 0.0:
        i = 0
        f = 0.0
        inside = False
    elif s >= n - 1:
        i = n - 1
        f = 0.0
        inside = False
    else:
        i = int(s)
        if i > n - 2:
            i = n - 2
        f = s - i
    il = PACK_HEADER + i
    ir = il + n
    if not inside:
        zl = table[il]
        zr = table[ir]
        sl = 0.0
        sr = 0.0
    else:
        inv_dx = 1.0 / dx
        dl = table[il + 1] - table[il]
        dr = table[ir + 1] - table[ir]
        zl = table[il] + f * dl
        zr = table[ir] + f * dr
        sl = dl * inv_dx
        sr = dr * inv_dx
    w = (y - table[3]) / (table[2] - table[3])
    if w < 0.0:
        w = 0.0
    elif w > 1.0:
        w = 1.0
    return zr + w * (zl - zr), sr + w * (sl - sr)
