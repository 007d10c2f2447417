"""What a force element module provides (:class:`ElementType`: its name, ``pack`` and flags) and
what ``pack`` receives (:class:`PackContext`). The element's forces and Jacobians are the engine's
(``src/rtmbs/engine/elements/<name>.c``; docs/engine.md, "Adding a force element")."""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from ...errors import ModelError


@dataclass(frozen=True)
class ElementType:
    """A force element type: what one module of :mod:`rtmbs.kernels.elements` registers.

    ``pack(fe, ctx)`` writes the element's parameters from its description ``fe``
    (:class:`rtmbs.model.Force`) into ``ctx.par`` (and table indices into ``ctx.tab``), raising
    :class:`~rtmbs.errors.ModelError` with ``ctx.path``; ``outputs`` names the values the kernel
    writes into ``outs`` (named ``<element>.<output>``); ``torque_only``: the element applies a
    couple only, depending on rotations and angular velocities (its Jacobian blocks have no
    translational terms); ``single_body``: it acts on body j only (marker_j, or marker_i if
    marker_j is not given; the ground is body i)."""

    name: str
    pack: Callable
    outputs: tuple[str, ...] = ()
    torque_only: bool = False
    single_body: bool = False


@dataclass
class PackContext:
    """What ``pack`` may use: the element's key ``path``, its rows ``par`` (floats) and ``tab``
    (two table indices, −1 none), its markers ``mi``/``mj`` (``.body``, ``.s`` position and ``.C``
    axes in body frame), the initial poses ``r0``/``A0`` of the bodies (ground last),
    ``table(x, y) -> index``, ``marker(ref, path)`` (resolves a reference), and the lists that
    collect tyre data (``tyres``, ``roads``) and the count of transient tyres (``ntransient``)."""

    table: Callable
    marker: Callable
    r0: np.ndarray
    A0: np.ndarray
    tyres: list = field(default_factory=list)
    roads: list = field(default_factory=list)
    ntransient: int = 0
    path: str = ""
    par: np.ndarray | None = None
    tab: np.ndarray | None = None
    mi: object = None
    mj: object = None

    def point(self, m) -> np.ndarray:
        """Initial global position of a marker's origin."""
        return self.r0[m.body] + self.A0[m.body] @ m.s

    def axes(self, m) -> np.ndarray:
        """Initial global axes (columns) of a marker."""
        return self.A0[m.body] @ m.C

    def scalar(self, value, key, default=0.0) -> float:
        if value is None:
            return default
        a = np.asarray(value, float).reshape(-1)
        if a.size != 1:
            raise ModelError(f"{self.path}.{key}", f"expected one value, got {a.size}")
        return float(a[0])

    def vec3(self, value, key) -> np.ndarray:
        if value is None:
            return np.zeros(3)
        a = np.asarray(value, float).reshape(-1)
        if a.size == 1:
            return np.full(3, float(a[0]))
        if a.size != 3:
            raise ModelError(f"{self.path}.{key}", f"expected 1 or 3 values, got {a.size}")
        return a
