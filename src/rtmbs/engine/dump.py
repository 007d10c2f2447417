"""A li-euler step plan written to one file, for the C harness and for C targets without Python.

The file holds what a C program needs to run the same steps as Python: the model's packed
buffers, the data's initial buffer (input channels at their initial values), the KKT plans and
storage of the solver after its ``reset``, the options, the initial state, the output index and,
for a model with redundant rows, the row map (``rows``: the kept rows the step solves with).
Format (little-endian): the magic ``RTMBSPLN``, then records of a 24-byte name (NUL padded), a
type byte (``i`` int64, ``u`` uint32, ``d`` float64), 7 bytes of padding, the count (int64) and
the values. ``src/rtmbs/engine/harness/plan.c`` reads it.
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

MAGIC = b"RTMBSPLN"
_TYPES = {np.dtype(np.int64): b"i", np.dtype(np.uint32): b"u", np.dtype(np.float64): b"d"}


def _record(f, name: str, a) -> None:
    a = np.ascontiguousarray(a)
    if a.dtype not in _TYPES:
        a = a.astype(np.float64 if a.dtype.kind == "f" else np.int64)
    raw = name.encode()
    if len(raw) >= 24:
        raise ValueError(f"plan record name too long: {name}")
    f.write(raw.ljust(24, b"\0") + _TYPES[a.dtype] + b"\0" * 7)
    f.write(np.int64(a.size).tobytes())
    f.write(a.astype(a.dtype.newbyteorder("<")).tobytes())


def write_plan(path, solver, state, h: float, steps: int) -> Path:
    """Write the plan of ``solver`` (a ``li-euler`` solver on a compiled model, already
    ``reset`` on ``state``) for ``steps`` steps of ``h`` seconds."""
    if not getattr(solver, "fused", False):
        raise ValueError("write_plan: the solver has no compiled step (li-euler on a compiled model)")
    system = solver.system
    rows, = solver.rows_args  # (the row map of a model with redundant rows, or None)
    ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec = solver.kernel_args
    jac, implicit = solver.jac_flag, solver.implicit
    stab, niter, gamma, pib, pfb, pidx = solver.stab_args
    path = Path(path)
    with open(path, "wb") as f:
        f.write(MAGIC)
        sizes = [system.n, solver.full_system.m, system._data_sizes[1], system.nx]
        for name, a in (("sizes", np.array(sizes, np.int64)),
                        ("ibuf", ibuf), ("ilay", ilay), ("fbuf", fbuf), ("flay", flay),
                        ("sbuf", sbuf), ("slay", slay), ("kib", kib), ("kfb", kfb), ("kidx", kidx),
                        ("pib", pib), ("pfb", pfb), ("pidx", pidx), ("wsize", np.array([w0.size], np.int64)),
                        ("options", np.array([h, jac, int(implicit), stab, niter, gamma], np.float64)),
                        ("steps", np.array([steps], np.int64)),
                        ("q0", state.q), ("qd0", state.qd), ("x0", state.x), ("t0", np.array([state.t])),
                        ("oidx", system.output_index)) + ((("rows", rows),) if rows is not None
                                                           else ()):
            _record(f, name, a)
    return path
