"""Single-threaded BLAS for rtmbs's own dense linear algebra.

The CLI sets ``OPENBLAS_NUM_THREADS=1`` before numpy loads; the Python API cannot (numpy is
usually imported first), so the offline solvers limit the BLAS/LAPACK thread pools around their
runs with ``threadpoolctl``: on the 2-core project machine a dense LU of a 1133×1133 matrix took
0.40 s with threads against 0.06 s without, and parallel runs fight for the cores.

Opt out with the environment variable ``RTMBS_BLAS_THREADS``: a number of threads (``"4"``), or
``"all"`` / ``"0"`` to leave the pools as they are. Unset or empty means 1.
"""
from __future__ import annotations

import contextlib
import os

from ..errors import SolverError

ENV = "RTMBS_BLAS_THREADS"


def blas_thread_limit() -> int | None:
    """Threads rtmbs gives BLAS (``RTMBS_BLAS_THREADS``; default 1); None: no limit."""
    raw = os.environ.get(ENV, "").strip().lower()
    if raw in ("", "1"):
        return 1
    if raw in ("all", "0", "none"):
        return None
    try:
        k = int(raw)
    except ValueError:
        k = -1
    if k < 1:
        raise SolverError(f"environment variable {ENV}={raw!r}: expected a number of threads "
                          "(>= 1), 'all' or '0' (no limit)")
    return k


@contextlib.contextmanager
def limited_blas():
    """Context in which the BLAS pools use :func:`blas_thread_limit` threads."""
    k = blas_thread_limit()
    if k is None:
        yield
        return
    from threadpoolctl import threadpool_limits

    # OpenMP too: SuperLU_MT (method "ida") runs an OpenMP team whose spinning barriers
    # crawl on a loaded machine even for nthreads = 1
    with threadpool_limits(limits=k, user_api="blas"), \
            threadpool_limits(limits=k, user_api="openmp"):
        yield


def with_limited_blas(fn):
    """Decorator: run ``fn`` inside :func:`limited_blas`."""
    import functools

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with limited_blas():
            return fn(*args, **kwargs)

    return wrapper
