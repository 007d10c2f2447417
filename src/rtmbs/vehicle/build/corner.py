"""Placing and mirroring one side of a subsystem into the vehicle's model description.

A subsystem file gives the LEFT side in its own frame (x forward, y left, z up, metres); the
subsystem is placed by a translation ``position`` in the vehicle frame (ISO 8855), and the right
side is the mirror image y → −y (points, axes and inertia tensors: S = diag(1, −1, 1)).
"""
from __future__ import annotations

import math

import numpy as np

from ...errors import ModelError
from ...model.description import Model, inertia_matrix

S = np.diag([1.0, -1.0, 1.0])
SIDES = {"left": (1.0, "l"), "right": (-1.0, "r")}


def unit(v) -> np.ndarray:
    """v / |v|; NaN for a zero vector (Side.marker names the coinciding points)."""
    v = np.asarray(v, float)
    with np.errstate(invalid="ignore", divide="ignore"):
        return v / np.linalg.norm(v)


def tup(v) -> tuple:
    """Rounded to 1e-12 m: the two sides of one description stay symmetric to round-off."""
    return tuple(round(float(x), 12) for x in v)


def rod_inertia(m, a, b, radius) -> np.ndarray:
    """Thin solid cylinder between points a and b (axes of the frame of a and b)."""
    u = unit(np.subtract(b, a))
    length = float(np.linalg.norm(np.subtract(b, a)))
    it = m * (3 * radius ** 2 + length ** 2) / 12.0
    ia = 0.5 * m * radius ** 2
    return it * (np.eye(3) - np.outer(u, u)) + ia * np.outer(u, u)


def axis_inertia(i_axis, i_diam, s) -> np.ndarray:
    """Inertia of a wheel: i_axis about the spin axis s, i_diam about any diameter."""
    s = unit(s)
    return i_diam * (np.eye(3) - np.outer(s, s)) + i_axis * np.outer(s, s)


def spin_axis(camber_deg: float, toe_in_deg: float) -> np.ndarray:
    """Left wheel's spin axis pointing outboard (+y) from static camber (negative: top inboard)
    and toe-in (positive: front of the wheel inboard), degrees (ISO 8855)."""
    g, d = math.radians(camber_deg), math.radians(toe_in_deg)
    return np.array([math.sin(d) * math.cos(g), math.cos(d) * math.cos(g), -math.sin(g)])


class Side:
    """One side (left or right) of a subsystem placed in the vehicle: maps the subsystem's
    left-side points and vectors into the vehicle frame and adds named items to the model.

    Body names are ``<prefix><side letter>_<role>`` (e.g. ``fl_upper_arm``); items of the
    side get the same prefix so that the left and right items pair up by name.
    """

    def __init__(self, model: Model, prefix: str, side: str, position, subsystem: str):
        self.model, self.side, self.subsystem = model, side, subsystem
        self.sign, letter = SIDES[side]
        self.tag = f"{prefix}{letter}"
        self.origin = np.asarray(position, float)

    # -- geometry -------------------------------------------------------------------------------
    def point(self, p) -> np.ndarray:
        """A subsystem (left-side) point in the vehicle frame."""
        p = np.asarray(p, float)
        return self.origin + (p if self.sign > 0 else S @ p)

    def vector(self, v) -> np.ndarray:
        v = np.asarray(v, float)
        return v if self.sign > 0 else S @ v

    def inertia(self, J) -> list:
        J = inertia_matrix(J)
        return (J if self.sign > 0 else S @ J @ S).tolist()

    # -- model items --------------------------------------------------------------------------------
    def name(self, role: str) -> str:
        return f"{self.tag}_{role}"

    def body(self, role: str, mass: float, inertia, centre) -> str:
        """A body of the side; ``inertia`` and ``centre`` already in the vehicle frame."""
        nm = self.name(role)
        self.model.add_body(nm, float(mass), inertia=np.asarray(inertia, float).round(12).tolist(),
                            position=tup(centre))
        return nm

    def marker(self, body: str, name: str, at, z=None, x=None) -> str:
        """A marker at ``at`` (vehicle frame) with global axes z (and x) at design."""
        kw = {"frame": "global"}
        for label, v in (("z", z), ("x", x)):
            if v is not None and not float(np.linalg.norm(np.asarray(v, float))) > 1e-9:
                raise ModelError(f"{self.subsystem}.hard_points", f"the points that set the "
                                 f"{label} axis of {body}.{name} coincide (a body or joint "
                                 f"needs two distinct points)")
        if z is not None and x is not None:
            zu, xu = unit(z), unit(x)
            if float(np.linalg.norm(np.cross(zu, xu))) < 1e-9:
                raise ModelError(f"{self.subsystem}.hard_points", f"the points that set the axes "
                                 f"of {body}.{name} are collinear (a body or joint needs three "
                                 f"points not on one line)")
        if z is not None:
            kw["orientation"] = {"z_axis": tup(unit(z)), **({"x_axis": tup(unit(x))} if x is not None else {})}
        self.model.add_marker(body, name, tup(at), **kw)
        return f"{body}.{name}"
