"""Drive torque between two bodies about marker_i z: τ = T(t) z on body j (−τ on i); with
:func:`axial_torque` shared by :mod:`.brake`."""
from __future__ import annotations

from .base import ElementType


def pack(fe, ctx):
    pass  # the torque is the element's function; the axis is marker_i's z


ELEMENT = ElementType("joint-torque", pack, torque_only=True)
