"""Six-component bushing between two markers (Carpinelli 2015 §4.2.3): stiffness and damping per
axis of marker_i on the translation u = Bᵀd and the small rotation θ = vee(skew(R)),
R = Bᵀ B_j (B = A_i C_i, B_j = A_j C_j), with preloads; named outputs: force and torque on body j
in marker_i axes. Per axis a the force on j is f_a = −F_a(u_a) − D_a(u̇_a) + F0_a (torque alike with
θ, θ̇), F_a(u) = k_a u or a table (force_tables / torque_tables), D_a(u̇) = c_a u̇ or a table
(damping_tables / rotational_damping_tables; tables linear between points, clamped at the ends,
the engine's rtmbs_table_eval); the Jacobians use the local slopes F_a', D_a'."""
from __future__ import annotations

import numpy as np

from ...errors import ModelError
from .base import ElementType

# par: translational stiffness (3), damping (3), rotational stiffness (3), damping (3),
# preload force (3), preload torque (3), all in marker_i axes; then the table index (−1: none) of
# each of the 12 characteristics in the same order (k, c, k_rot, c_rot per axis)
KT, CT, KR, CR, F0, T0, TAB = 0, 3, 6, 9, 12, 15, 18
NTAB = 30  # how many tables (0: the linear bushing, a path without table look-ups)
#: the table keys of a bushing (in the order of par[TAB:TAB + 12]) and their column names
TABLE_KEYS = (("force_tables", "deflection", "force"), ("damping_tables", "velocity", "force"),
              ("torque_tables", "angle", "torque"),
              ("rotational_damping_tables", "angular_velocity", "torque"))
LINEAR_KEYS = ("stiffness", "damping", "rotational_stiffness", "rotational_damping")


def pack(fe, ctx):
    par = ctx.par
    par[KT:KT + 3] = ctx.vec3(fe.stiffness, "stiffness")
    par[CT:CT + 3] = ctx.vec3(fe.damping, "damping")
    par[KR:KR + 3] = fe.rotational_stiffness
    par[CR:CR + 3] = fe.rotational_damping
    par[F0:F0 + 3] = fe.preload_force
    par[T0:T0 + 3] = fe.preload_torque
    if np.any(par[0:12] < 0):
        raise ModelError(ctx.path, "bushing stiffness and damping must be non-negative")
    par[TAB:TAB + 12] = -1.0
    for part, (key, xname, yname) in enumerate(TABLE_KEYS):
        tables = getattr(fe, key) or {}
        for axis, tab in tables.items():
            path = f"{ctx.path}.{key}.{axis}"
            if axis not in ("x", "y", "z"):
                raise ModelError(f"{ctx.path}.{key}", f"unknown axis '{axis}' (expected x, y or z of marker_i)")
            a = "xyz".index(axis)
            if not isinstance(tab, dict) or set(tab) != {xname, yname}:
                raise ModelError(path, f"expected the lists {xname} and {yname}")
            x, y = np.asarray(tab[xname], float), np.asarray(tab[yname], float)
            if x.ndim != 1 or x.shape != y.shape or x.size < 2:
                raise ModelError(path, f"{xname} and {yname} must be lists of the same length (at least 2)")
            if not (np.all(np.isfinite(x)) and np.all(np.isfinite(y))):
                raise ModelError(path, "values must be finite")
            if np.any(np.diff(x) <= 0):
                raise ModelError(path, f"{xname} must be strictly increasing")
            if np.any(np.diff(y) < 0):
                raise ModelError(path, f"{yname} must not decrease with {xname} (non-monotonic table)")
            if par[3 * part + a] != 0.0:
                raise ModelError(path, f"axis {axis} has both a table and {LINEAR_KEYS[part]} "
                                       f"{par[3 * part + a]:g}: give one")
            par[TAB + 3 * part + a] = ctx.table(x, y)
            par[NTAB] += 1


ELEMENT = ElementType("bushing", pack, outputs=("Fx", "Fy", "Fz", "Tx", "Ty", "Tz"))
