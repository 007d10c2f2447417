"""Pack many small arrays into one flat buffer per dtype so a compiled call unboxes a handful of
arrays instead of dozens (each unboxed array costs ~0.1-0.2 µs: PERFORMANCE.md).

``pack(arrays)`` returns the buffer and a layout (k × 6: offset, ndim, d0, d1, d2, d3); the
Python side keeps views into the buffer, so writing a view (e.g. an input channel) writes the
buffer the kernel reads. Inside numba, ``view1..view4`` carve the same views back.
"""
from __future__ import annotations

import numpy as np
from numba import njit


def pack(arrays, dtype):
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


@njit(cache=True, inline="always")
def view1(buf, lay, k):
    o = lay[k, 0]
    return buf[o:o + lay[k, 2]]


@njit(cache=True, inline="always")
def view2(buf, lay, k):
    o = lay[k, 0]
    d0, d1 = lay[k, 2], lay[k, 3]
    return buf[o:o + d0 * d1].reshape((d0, d1))


@njit(cache=True, inline="always")
def view3(buf, lay, k):
    o = lay[k, 0]
    d0, d1, d2 = lay[k, 2], lay[k, 3], lay[k, 4]
    return buf[o:o + d0 * d1 * d2].reshape((d0, d1, d2))


@njit(cache=True, inline="always")
def view4(buf, lay, k):
    o = lay[k, 0]
    d0, d1, d2, d3 = lay[k, 2], lay[k, 3], lay[k, 4], lay[k, 5]
    return buf[o:o + d0 * d1 * d2 * d3].reshape((d0, d1, d2, d3))
