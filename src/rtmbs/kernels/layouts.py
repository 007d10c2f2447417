"""The packed buffers of a compiled Cartesian model, each field declared once by name in the C
engine's field table (``engine/rtmbs_fields.h``).

A compiled model (:class:`rtmbs.system.CartesianSystem`) keeps its arrays in three flat buffers
so that a compiled call receives a handful of arrays instead of dozens (:func:`pack`):

* :data:`MODEL_INTS`, :data:`MODEL_FLOATS`: what does not change during a run (sizes, index maps,
  parameters, tables, roads) — the *model*, shared by every run;
* :data:`DATA`: what a run writes (kinematics, scratch, element outputs) and its own input
  channels and extra states — the *data*, one per run (``CartesianSystem.new_data``).

Each declaration lists (name, number of dimensions, meaning). From it,
:meth:`Layout.pack` builds the buffer and the Python views, checking that every field is given
with its number of dimensions; the engine reads the same fields through the same layout rows.
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace

import numpy as np


def pack(arrays, dtype):
    """One flat buffer of ``dtype`` holding ``arrays`` in order, its layout (k × 6: offset, ndim,
    d0, d1, d2, d3) and a view into the buffer per array."""
    arrays = [np.ascontiguousarray(a, dtype=dtype) for a in arrays]
    lay = np.zeros((len(arrays), 6), np.int64)
    off = 0
    for k, a in enumerate(arrays):
        lay[k, 0] = off
        lay[k, 1] = a.ndim
        dims = a.shape if a.ndim else (1,)
        lay[k, 2:2 + len(dims)] = dims
        off += max(a.size, 1)
    buf = np.zeros(max(off, 1), dtype)
    views = []
    for k, a in enumerate(arrays):
        v = buf[lay[k, 0]:lay[k, 0] + a.size].reshape(a.shape)
        v[...] = a
        views.append(v)
    return buf, lay, views


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


#: the one field table, in C (MuJoCo's mjxmacro.h pattern): rows ``FIELD(name, ndim, ...)`` of
#: the blocks ``RTMBS_MODEL_INTS``, ``RTMBS_MODEL_FLOATS`` and ``RTMBS_DATA``; the C structs of
#: ``rtmbs.h`` expand the same rows, so Python and C cannot disagree on a field or its order
FIELDS_HEADER = Path(__file__).parent.parent / "engine" / "rtmbs_fields.h"

_ROW = re.compile(r'^\s*FIELD\((\w+),\s*(\d+),(.*)"([^"]*)",\s*"([^"]*)"\)\s*\\?$')


def read_field_table(text: str) -> dict[str, tuple[tuple[str, int, str, str, tuple[str, ...]], ...]]:
    """The blocks of ``rtmbs_fields.h``: {block: ((name, ndim, unit, meaning, dims), ...)}, dims
    the size expressions of a data row (empty for model rows)."""
    blocks: dict[str, list] = {}
    current = None
    for line in text.splitlines():
        head = re.match(r"#define (RTMBS_\w+)\(FIELD\)", line)
        if head:
            current = blocks.setdefault(head.group(1), [])
            continue
        row = _ROW.match(line)
        if row and current is not None:
            name, ndim, middle, unit, meaning = row.groups()
            dims = tuple(x.strip() for x in middle.strip().strip(",").split(",") if x.strip())
            current.append((name, int(ndim), unit, meaning, dims))
        elif not line.rstrip().endswith("\\"):
            current = None
    return {k: tuple(v) for k, v in blocks.items()}


FIELD_TABLE = read_field_table(FIELDS_HEADER.read_text())
#: the header's numeric constants (RTMBS_NFOUT, RTMBS_WARNSLOTS, RTMBS_COUNTSLOTS, ...)
FIELD_CONSTANTS = {k: int(v) for k, v in
                   re.findall(r"^#define (RTMBS_\w+) (\d+)\b", FIELDS_HEADER.read_text(), re.M)}


def _layout(name: str, dtype, block: str) -> Layout:
    return Layout(name, dtype, tuple((f[0], f[1], f[3]) for f in FIELD_TABLE[block]))


MODEL_INTS = _layout("ModelInts", np.int64, "RTMBS_MODEL_INTS")
MODEL_FLOATS = _layout("ModelFloats", np.float64, "RTMBS_MODEL_FLOATS")
DATA = _layout("DataBuffers", np.float64, "RTMBS_DATA")

LAYOUTS = (MODEL_INTS, MODEL_FLOATS, DATA)
