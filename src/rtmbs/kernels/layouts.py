"""The packed buffers of a compiled Cartesian model, each field declared once by name (issue 11).

A compiled model (:class:`rtmbs.system.CartesianSystem`) keeps its arrays in three flat buffers
so that a compiled call unboxes a handful of arrays instead of dozens (:mod:`.arena`):

* :data:`MODEL_INTS`, :data:`MODEL_FLOATS`: what does not change during a run (sizes, index maps,
  parameters, tables, roads) — the *model*, shared by every run;
* :data:`DATA`: what a run writes (kinematics, scratch, element outputs) and its own input
  channels and extra states — the *data*, one per run (``CartesianSystem.new_data``).

Each declaration lists (name, number of dimensions, meaning). From it,
:meth:`Layout.pack` builds the buffer and the Python views (checking that every field is given
with its number of dimensions), and :func:`generate_views` writes the compiled accessors
(``kernels/layout_views.py``: a namedtuple per buffer and an inlined numba function returning
it), so kernels read ``d.kin_A`` and never a position. ``python -m rtmbs.kernels.layouts``
regenerates that file; tests/core/test_layouts.py fails when it is out of date.
"""
from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np

from .arena import pack


@dataclass(frozen=True)
class Layout:
    """A packed buffer: ``fields`` are (name, ndim, meaning) in buffer order."""

    name: str
    dtype: type
    fields: tuple[tuple[str, int, str], ...]

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(f[0] for f in self.fields)

    def pack(self, arrays: dict) -> tuple[np.ndarray, np.ndarray, SimpleNamespace]:
        """(buffer, layout table, views by name) of ``arrays`` (a dict with every field)."""
        missing = [f for f in self.names if f not in arrays]
        extra = [k for k in arrays if k not in self.names]
        if missing or extra:
            raise ValueError(f"{self.name}: missing fields {missing}, unknown fields {extra}")
        ordered = []
        for name, ndim, _ in self.fields:
            a = np.asarray(arrays[name], dtype=self.dtype)
            if a.ndim != ndim:
                raise ValueError(f"{self.name}.{name}: expected {ndim} dimensions, got shape {a.shape}")
            ordered.append(a)
        buf, lay, views = pack(ordered, self.dtype)
        return buf, lay, SimpleNamespace(**dict(zip(self.names, views)))


MODEL_INTS = Layout("ModelInts", np.int64, (
    ("body_qadr", 1, "first coordinate of each body (nb + 1; -1 for the ground)"),
    ("body_rtype", 1, "rotation coordinates of each body (kernels.rotations ROT_*)"),
    ("body_eprow", 1, "row of the Euler-parameter normalisation constraint (-1: none)"),
    ("prim_type", 1, "constraint primitive of each primitive (kernels.cartesian PRIM_*)"),
    ("prim_row", 1, "first constraint row of each primitive"),
    ("prim_body", 2, "bodies i, j of each primitive"),
    ("prim_fun", 1, "input function driving the primitive (-1: none)"),
    ("frc_type", 1, "force element code"),
    ("frc_body", 2, "bodies i, j of each force element"),
    ("frc_fun", 2, "input functions of each force element (-1: none)"),
    ("frc_tab", 2, "tables of each force element (-1: none)"),
    ("frc_stiff", 1, "1 if the element's Jacobians enter the iteration matrix"),
    ("fun_type", 1, "kind of each input function (kernels.functions FUN_*)"),
    ("fun_tab", 1, "table of each input function (-1: none)"),
    ("tab_adr", 1, "first entry of each table in tab_x, tab_y"),
    ("tab_len", 1, "entries of each table"),
    ("blk_pair", 2, "virtual Jacobian blocks: body a, body b, 1 if translational terms, "
                             "1 if a stiff element writes it"),
    ("frc_blk", 2, "block of the (i,i), (i,j), (j,i), (j,j) couplings of each element"),
))

MODEL_FLOATS = Layout("ModelFloats", np.float64, (
    ("body_mass", 1, "mass of each body, kg"),
    ("body_inertia", 3, "inertia tensor at the centre of mass in body axes, kg m²"),
    ("gravity", 1, "gravity vector, m/s²"),
    ("prim_vec", 3, "marker points and axes of each primitive in body axes"),
    ("prim_par", 2, "scalar parameters of each primitive (distance ...)"),
    ("frc_vec", 3, "marker points of each force element in body axes, m"),
    ("frc_rot", 4, "marker axes of each force element in body axes"),
    ("frc_par", 2, "parameters of each force element (kernels.cartesian NFPAR)"),
    ("tab_x", 1, "abscissae of all tables"),
    ("tab_y", 1, "ordinates of all tables"),
    ("tyre_par", 2, "Magic Formula parameters of each tyre"),
    ("road", 1, "packed road descriptions"),
))

DATA = Layout("DataBuffers", np.float64, (
    ("fun_par", 2, "parameters of the input functions; channels hold their current value"),
    ("xstate", 1, "extra first-order states (transient tyre deflections u, v)"),
    ("kin_r", 2, "centre-of-mass position of each body, m"),
    ("kin_rd", 2, "centre-of-mass velocity, m/s"),
    ("kin_A", 3, "rotation matrix body -> global"),
    ("kin_G", 3, "G(p): ω = G ṗ"),
    ("kin_dG", 4, "∂G/∂p"),
    ("kin_W", 3, "Ġ"),
    ("kin_w", 2, "angular velocity, global axes, rad/s"),
    ("kin_alpha", 2, "Ġ ṗ (angular acceleration at p̈ = 0)"),
    ("kin_dadp", 3, "∂α/∂p"),
    ("kin_dadpd", 3, "∂α/∂ṗ"),
    ("d2G", 4, "second derivatives of G (Euler angles)"),
    ("tmp", 2, "3-vector scratch"),
    ("S", 3, "3×3 scratch"),
    ("Dx", 2, "virtual-coordinate constraint Jacobian rows (12 columns: body i, body j)"),
    ("beta", 1, "γ of each constraint row in virtual coordinates"),
    ("f", 1, "force of the current element"),
    ("tau", 1, "torque of the current element"),
    ("dfdx", 2, "∂f/∂(δr_i, δπ_i, δr_j, δπ_j)"),
    ("dfdv", 2, "∂f/∂ velocities"),
    ("dtdx", 2, "∂τ/∂ positions"),
    ("dtdv", 2, "∂τ/∂ velocities"),
    ("arm_i", 1, "lever arm of the element on body i"),
    ("sgj", 1, "marker j point in global axes"),
    ("Dd", 2, "line Jacobian of a point-to-point element"),
    ("Ddd", 2, "its time derivative"),
    ("X", 2, "9×12 scratch"),
    ("frc_out", 2, "outputs of each force element (kernels.cartesian NFOUT columns)"),
    ("mf", 1, "Magic Formula scratch"),
    ("vQ", 2, "forces in virtual coordinates per body (with a copy for Jacobians)"),
    ("vK", 3, "∂Q/∂q blocks in virtual coordinates"),
    ("vC", 3, "∂Q/∂q̇ blocks in virtual coordinates"),
    ("vP", 4, "Euler-angle inertia terms −J_g ∂α/∂p, −J_g ∂α/∂ṗ"),
    ("KL", 3, "block mapping scratch"),
))

LAYOUTS = (MODEL_INTS, MODEL_FLOATS, DATA)

_ACCESSOR = {"ModelInts": "model_ints", "ModelFloats": "model_floats", "DataBuffers": "data_buffers"}
GENERATED = Path(__file__).with_name("layout_views.py")


def generate_views() -> str:
    """Source of ``kernels/layout_views.py`` from :data:`LAYOUTS`."""
    out = ['"""Compiled views of the packed buffers, GENERATED from rtmbs.kernels.layouts by',
           '``python -m rtmbs.kernels.layouts``: do not edit (tests/core/test_layouts.py checks it)."""',
           "from collections import namedtuple", "", "from numba import njit", "",
           "from .arena import view1, view2, view3, view4", ""]
    for lay in LAYOUTS:
        names = ", ".join(f'"{n}"' for n in lay.names)
        out += ["", f"{lay.name} = namedtuple(\"{lay.name}\", ({names}))", "", "",
                "@njit(cache=True, inline=\"always\")",
                f"def {_ACCESSOR[lay.name]}(buf, lay):",
                f'    """The fields of the {lay.name} buffer by name."""',
                f"    return {lay.name}("]
        for k, (name, ndim, _) in enumerate(lay.fields):
            out.append(f"        view{ndim}(buf, lay, {k}),  # {name}")
        out.append("    )")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


if __name__ == "__main__":
    GENERATED.write_text(generate_views())
    print(f"wrote {GENERATED}")
