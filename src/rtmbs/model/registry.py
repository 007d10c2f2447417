"""The registries of force elements and joints: data only (no imports), so that the model layer
validates type names without importing the kernels (docs/extending.md).

* A force element type is one line of :data:`FORCE_ELEMENTS`; its implementation is the module
  ``rtmbs/kernels/elements/<name with '-' as '_'>.py`` (object ``ELEMENT``). Its numeric code, stored in
  the compiled model's ``frc_type``, is its index here: codes are never written by hand (the C
  engine's element table, ``engine/elements/table.c``, lists the types in the same order, and
  tests/engine checks it).
* A joint is one entry of :data:`JOINTS`: the constraint primitives it is made of (Carpinelli 2015
  §4.2.2) and the marker axes each one uses; its equation count follows from
  :data:`PRIMITIVE_ROWS`.
"""
from __future__ import annotations

#: (type name, stiff by default: whether the linearly implicit solvers use its Jacobians)
FORCE_ELEMENTS = (
    ("spring-damper", True),
    ("stop", True),
    ("bushing", True),
    ("force", False),
    ("torque", False),
    ("joint-torque", False),
    ("brake", False),
    ("tyre", True),
    ("torsion-spring", True),
)

FORCE_TYPES = tuple(name for name, _ in FORCE_ELEMENTS)
STIFF_BY_DEFAULT = frozenset(name for name, stiff in FORCE_ELEMENTS if stiff)


def force_code(name: str) -> int:
    """The numeric code of a force element type (its index in :data:`FORCE_ELEMENTS`)."""
    return FORCE_TYPES.index(name)


def element_module(name: str) -> str:
    """The module of ``rtmbs.kernels.elements`` that implements a force element type."""
    return name.replace("-", "_")


#: constraint primitives (kernels.codes PRIM_*) and their rows; the arguments of a primitive
#: in :data:`JOINTS` are marker axes ``xi yi zi`` (marker_i) and ``xj yj zj`` (marker_j):
#:   point            r_Pj − r_Pi = 0                    (the two marker origins)
#:   perp a b         aᵀb = 0                            (a on body i, b on body j)
#:   offset a         aᵀ(r_Pj − r_Pi) = s(t)             (s = 0, or the joint's function if driven)
#:   distance         |r_Pj − r_Pi| = L                  (L: the joint's distance or the initial one)
#:   angle a b c      cos θ(t)(cᵀb) − sin θ(t)(aᵀb) = 0  (θ(t): the joint's function)
PRIMITIVE_ROWS = {"point": 3, "perp": 1, "offset": 1, "distance": 1, "angle": 1}
#: (couplers, rtmbs.model.Coupler, are not joints: one row over several joints, made of
#: kernels.codes PRIM_CPL terms by rtmbs.system; docs/extending.md)

_LOCK = ("perp xi yj", "perp yi zj", "perp zi xj")
_CYLINDER = ("perp zi xj", "perp zi yj", "offset xi", "offset yi")

#: joint type -> its primitives; a joint with variants (``motion``: by ``dof``) maps each to a list,
#: all with the same number of equations. "driven" marks a primitive that takes the joint's function.
JOINTS = {
    "spherical": ("point",),
    "revolute": ("point", "perp zi xj", "perp zi yj"),
    "cylindrical": _CYLINDER,
    "prismatic": _CYLINDER + ("perp xi yj",),
    "universal": ("point", "perp zi zj"),
    "fixed": ("point",) + _LOCK,
    "distance": ("distance",),
    "orientation-lock": _LOCK,
    "motion": {"rotation": ("angle xi xj yi driven",), "translation": ("offset zi driven",)},
    "planar": ("perp zi xj", "perp zi yj", "offset zi"),
}


def joint_primitives(joint_type: str, variant: str | None = None) -> tuple[str, ...]:
    """The primitives of a joint (of its ``variant`` for joints that have variants)."""
    spec = JOINTS[joint_type]
    return spec[variant] if isinstance(spec, dict) else spec


def _equations(prims) -> int:
    return sum(PRIMITIVE_ROWS[p.split()[0]] for p in prims)


def _joint_equations() -> dict[str, int]:
    out = {}
    for name, spec in JOINTS.items():
        counts = {_equations(p) for p in (spec.values() if isinstance(spec, dict) else (spec,))}
        if len(counts) != 1:
            raise ValueError(f"joint '{name}': its variants have different numbers of equations {counts}")
        out[name] = counts.pop()
    return out


#: number of constraint equations of each joint type (derived from :data:`JOINTS`)
JOINT_EQUATIONS = _joint_equations()
