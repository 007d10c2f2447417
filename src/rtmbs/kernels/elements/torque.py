"""Applied torque on a body: τ = f(t)·e about a global or body-fixed axis (see :mod:`.force`)."""
from __future__ import annotations

from .base import ElementType
from .force import pack


ELEMENT = ElementType("torque", pack, torque_only=True, single_body=True)
