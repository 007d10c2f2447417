"""Products with the step's matrices over their entries, dense or on a fixed pattern.

``ent`` is ``None`` (every entry: plain dense loops) or ``(rows, cols)``, the entries of a fixed
sparsity pattern in row order. The functions are numba overloads chosen from the type of ``ent``
when a caller is compiled (as the factorisations of ``factorisation``), so a solver kernel is
written once. Both forms subtract in the same order (by row, columns ascending), so a dense run
gives the same numbers through either.
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload


def entries(pattern):
    """``(rows, cols)`` of the True entries of ``pattern``, row by row (for the ``ent`` argument)."""
    return tuple(np.ascontiguousarray(v, np.intp) for v in np.nonzero(pattern))


def sub_mv(ent, A, x, y):
    """y[i] −= Σⱼ A[i, j] x[j] for the rows of A."""
    raise NotImplementedError("numba only")


def sub_mtv(ent, A, x, y):
    """y[j] −= Σᵢ A[i, j] x[i] for the columns of A (y = y − Aᵀx)."""
    raise NotImplementedError("numba only")


@njit(cache=True)
def _sub_mv_dense(A, x, y):
    for i in range(A.shape[0]):
        s = y[i]
        for j in range(A.shape[1]):
            s -= A[i, j] * x[j]
        y[i] = s


@njit(cache=True)
def _sub_mv_entries(rows, cols, A, x, y):
    for e in range(rows.shape[0]):
        y[rows[e]] -= A[rows[e], cols[e]] * x[cols[e]]


@njit(cache=True)
def _sub_mtv_dense(A, x, y):
    for j in range(A.shape[1]):
        s = y[j]
        for i in range(A.shape[0]):
            s -= A[i, j] * x[i]
        y[j] = s


@njit(cache=True)
def _sub_mtv_entries(rows, cols, A, x, y):
    for e in range(rows.shape[0]):
        y[cols[e]] -= A[rows[e], cols[e]] * x[rows[e]]


@overload(sub_mv)
def _ov_sub_mv(ent, A, x, y):
    if isinstance(ent, types.NoneType):
        return lambda ent, A, x, y: _sub_mv_dense(A, x, y)
    return lambda ent, A, x, y: _sub_mv_entries(ent[0], ent[1], A, x, y)


@overload(sub_mtv)
def _ov_sub_mtv(ent, A, x, y):
    if isinstance(ent, types.NoneType):
        return lambda ent, A, x, y: _sub_mtv_dense(A, x, y)
    return lambda ent, A, x, y: _sub_mtv_entries(ent[0], ent[1], A, x, y)
