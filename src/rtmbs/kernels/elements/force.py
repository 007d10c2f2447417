"""Applied force on a body at marker_j: f = f(t)·e, e a global direction or one fixed in the body
(``frame: body``, given in marker axes); :mod:`.torque` is its couple twin."""
from __future__ import annotations

import numpy as np

from .base import ElementType

# par: direction (3, body axes if par[3] = 1), body-fixed flag
DIR, BODY_FIXED = 0, 3


def pack(fe, ctx):
    d = np.asarray(fe.direction, float)
    if fe.frame == "body":
        d = ctx.mj.C @ d  # marker axes -> body axes
    ctx.par[DIR:DIR + 3] = d
    ctx.par[BODY_FIXED] = 1.0 if fe.frame == "body" else 0.0


ELEMENT = ElementType("force", pack, single_body=True)
