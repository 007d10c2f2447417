"""Straight-line generated code for a fixed-pattern sparse LU (issue 11 experiment).

A :class:`rtmbs.solvers.sparse.SparseLU` fixes, at its analysis, the pattern, the fill, the
ordering and the pivot sequence of a matrix (the KKT matrix of seed 000 eq. 22 in ``li-euler``).
What is left per step is a fixed list of indexed multiply-adds. :mod:`.plan` reads that list out
of an analysed ``SparseLU``; :mod:`.emit` writes it as straight-line code (every operand at a
constant offset, no index arrays) in C or as a numba module; :mod:`.build` compiles and loads it
(C: the system compiler and ``ctypes``; numba: a generated ``.py`` with ``@njit(cache=True)``).

The generated functions work on the ``SparseLU``'s own float buffer ``fb`` and compute exactly
what :func:`~rtmbs.solvers.sparse.lu_refactor` and :func:`~rtmbs.solvers.sparse.lu_solve_sp`
compute, in the same order (static pivots, statistics, couplings, refined solves of flagged
factors), so their results agree to the last bit unless the compiler contracts multiply-adds.

This is an experiment (benchmarks/codegen/, docs/benchmarks.md "Straight-line generated code");
no solver uses it. Nothing here imports numba, so editing it does not invalidate the kernel cache
(``rtmbs._compiled_sources``).
"""
from .build import GeneratedLU, build_c, build_numba, compiler, default_cache_dir  # noqa: F401
from .plan import LUPlan  # noqa: F401
