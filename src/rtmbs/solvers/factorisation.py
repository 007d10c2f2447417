"""One factorisation interface for the matrices the real-time solvers factor (docs/solvers.md).

Every LU factorisation of a step is a pair of arrays ``(fa, fb)`` handed to the numba kernels:

* dense: ``fa`` the (N, N) factors of :func:`rtmbs.solvers.linalg.lu_factor`, ``fb`` its pivots
  (int64);
* sparse: ``fa`` the index ``ib`` (uint32) and ``fb`` the values of a fixed-pattern
  :class:`~rtmbs.solvers.sparse.SparseLU` (no re-analysis, static pivots).

The kernels below (:func:`f_refactor`, :func:`f_set`, :func:`f_pivot_range`, :func:`f_solve`,
:func:`f_solve_t`, :func:`f_solve_cols`, :func:`f_kkt_factor`) are numba overloads that choose
the dense or the sparse routine from the type of ``fa`` when a caller is compiled, so a solver's
kernels are written once and compiled once per storage: nothing is decided per step.

The Python objects hold the arrays and the counters; they are chosen once, in a solver's
``__init__``/``_reset``, by :func:`make_kkt` (the KKT matrices [M − c_d Jq̇ − c Jq, s Φq_topᵀ;
Φq_bottom, 0] of seed 000 eqs. 12, 22, 30) and :func:`make_square` (an N × N matrix with entries
at fixed positions, e.g. Φu of Algorithm 2). Fixed cost: ``factor`` and ``solve`` allocate
nothing; the sparse KKT is analysed once, at its first ``factor`` (in ``reset``).
"""
from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload

from .linalg import lu_factor, lu_solve, lu_solve_t
from .sparse import (
    SparseKKT, SparseLU, kkt_hubs, kkt_values, lu_pivot_range_sp, lu_refactor, lu_solve_multi_sp,
    lu_solve_sp, lu_solve_t_sp,
)


def _dense(fa) -> bool:
    """Typing-time test: dense factors are a 2-d array, sparse ones the 1-d index ``ib``."""
    return isinstance(fa, types.Array) and fa.ndim == 2


# -- dense kernels ---------------------------------------------------------------------------
@njit(cache=True)
def kkt_assemble_full(M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, K):
    """K = [M − cd Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] (c = cd = 0: M alone)."""
    n = M.shape[0]
    m = phiq_top.shape[0]
    if c == 0.0 and cd == 0.0:
        for i in range(n):
            for j in range(n):
                K[i, j] = M[i, j]
    else:
        for i in range(n):
            for j in range(n):
                K[i, j] = M[i, j] - cd * Jqd[i, j] - c * Jq[i, j]
    for i in range(n):
        for j in range(m):
            K[i, n + j] = s * phiq_top[j, i]
    for i in range(m):
        for j in range(n):
            K[n + i, j] = phiq_bottom[i, j]
        for j in range(m):
            K[n + i, n + j] = 0.0


@njit(cache=True)
def _dense_pivot_range(a):
    lo = np.inf
    hi = 0.0
    for k in range(a.shape[0]):
        u = abs(a[k, k])
        if u < lo:
            lo = u
        if u > hi:
            hi = u
    return lo, hi


@njit(cache=True)
def _dense_solve_cols(a, piv, X):
    for c in range(X.shape[1]):
        lu_solve(a, piv, X[:, c])


# -- the overloads: one name, dense or sparse by the type of fa ---------------------------------
def f_refactor(fa, fb):
    """Factorise the values written by :func:`f_set` (dense: in place). Returns (pivot ratio,
    largest multiplier: 0 for dense)."""
    raise NotImplementedError("numba only")


def f_set(fa, fb, e, i, j, v):
    """Write entry ``e`` = (i, j) of the matrix before :func:`f_refactor`."""
    raise NotImplementedError("numba only")


def f_pivot_range(fa, fb):
    """(min, max) of |u_kk| of the last factorisation."""
    raise NotImplementedError("numba only")


def f_solve(fa, fb, b):
    """Solve A x = b in place."""
    raise NotImplementedError("numba only")


def f_solve_t(fa, fb, b):
    """Solve Aᵀ x = b in place."""
    raise NotImplementedError("numba only")


def f_solve_cols(fa, fb, X, W):
    """Solve A Y = X in place for the columns of X (N, k); W (N, k) work space (sparse)."""
    raise NotImplementedError("numba only")


def f_kkt_factor(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    """Assemble (dense) or gather (sparse, ``idx`` of a KKTMap) and factorise the KKT matrix.
    Returns (pivot ratio, largest multiplier)."""
    raise NotImplementedError("numba only")


@overload(f_refactor)
def _ov_refactor(fa, fb):
    if _dense(fa):
        return lambda fa, fb: (lu_factor(fa, fb), 0.0)
    return lambda fa, fb: lu_refactor(fa, fb)


@overload(f_set)
def _ov_set(fa, fb, e, i, j, v):
    if _dense(fa):
        def impl(fa, fb, e, i, j, v):
            fa[i, j] = v
        return impl

    def impl_sp(fa, fb, e, i, j, v):
        fb[e] = v
    return impl_sp


@overload(f_pivot_range)
def _ov_pivot_range(fa, fb):
    if _dense(fa):
        return lambda fa, fb: _dense_pivot_range(fa)
    return lambda fa, fb: lu_pivot_range_sp(fa, fb)


@overload(f_solve)
def _ov_solve(fa, fb, b):
    if _dense(fa):
        return lambda fa, fb, b: lu_solve(fa, fb, b)
    return lambda fa, fb, b: lu_solve_sp(fa, fb, b)


@overload(f_solve_t)
def _ov_solve_t(fa, fb, b):
    if _dense(fa):
        return lambda fa, fb, b: lu_solve_t(fa, fb, b)
    return lambda fa, fb, b: lu_solve_t_sp(fa, fb, b)


@overload(f_solve_cols)
def _ov_solve_cols(fa, fb, X, W):
    if _dense(fa):
        return lambda fa, fb, X, W: _dense_solve_cols(fa, fb, X)
    return lambda fa, fb, X, W: lu_solve_multi_sp(fa, fb, X, W)


@overload(f_kkt_factor)
def _ov_kkt_factor(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    if _dense(fa):
        def impl(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
            kkt_assemble_full(M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom, fa)
            return lu_factor(fa, fb), 0.0
        return impl
    return lambda fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom: kkt_values(
        fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)


# -- entry points from Python (one compiled call each) -----------------------------------------
@njit(cache=True)
def kkt_factor(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    return f_kkt_factor(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)


@njit(cache=True)
def solve(fa, fb, b):
    f_solve(fa, fb, b)


@njit(cache=True)
def solve_t(fa, fb, b):
    f_solve_t(fa, fb, b)


@njit(cache=True)
def kkt_rhs_solve(fa, fb, top, bottom, rhs):
    """rhs = [top; bottom], then solve K x = rhs in place (seed 000 eq. 12's [Q; γ])."""
    n = top.shape[0]
    for i in range(n):
        rhs[i] = top[i]
    for i in range(bottom.shape[0]):
        rhs[n + i] = bottom[i]
    f_solve(fa, fb, rhs)


@njit(cache=True)
def kkt_correction(fa, fb, phi, rhs, dq):
    """Solve K[x; μ] = [0; −Φ] and add x to ``dq`` (the projection of seed 000 eq. 30, with
    the factors of any KKT matrix of that form)."""
    n = dq.shape[0]
    for i in range(n):
        rhs[i] = 0.0
    for i in range(phi.shape[0]):
        rhs[n + i] = -phi[i]
    f_solve(fa, fb, rhs)
    for i in range(n):
        dq[i] += rhs[i]


@njit(cache=True)
def kkt_factor_correction(fa, fb, idx, M, phiq, phi, h, rhs, dq):
    """Factor [M hΦqᵀ; Φq 0] and add the correction of [0; −Φ] to ``dq`` (seed 000 eq. 30),
    one compiled call. Returns the pivot ratio."""
    ratio, growth = f_kkt_factor(fa, fb, idx, M, M, M, 0.0, 0.0, phiq, h, phiq)
    kkt_correction(fa, fb, phi, rhs, dq)
    return ratio, growth


# -- the Python objects -----------------------------------------------------------------------
_NO_INDEX = np.zeros(0, np.uint32)


class KKTFactorisation:
    """K = [M − c_d Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] (size n + m), dense or sparse.

    ``args`` = (fa, fb, idx) for the compiled kernels (``idx``: the gather index of the sparse
    :class:`~rtmbs.solvers.sparse.KKTMap`, empty when dense). ``lu``: the SparseLU (None when
    dense); ``nanalyse``, ``nfallback``, ``last_fallback``: its counters (0, 0, -1 when dense).
    """

    sparse = False

    def __init__(self, n: int, m: int):
        self.n, self.m = n, m
        self.K = np.zeros((n + m, n + m))
        self.piv = np.zeros(n + m, np.int64)
        self.args = (self.K, self.piv, _NO_INDEX)
        self.ratio = 1.0
        self.lu = None

    def factor(self, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom) -> float:
        """Assemble and factorise; returns the pivot ratio (0.0: singular)."""
        self.ratio = kkt_factor(*self.args, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)[0]
        return self.ratio

    def solve(self, rhs) -> None:
        solve(self.args[0], self.args[1], rhs)

    def solve_t(self, rhs) -> None:
        solve_t(self.args[0], self.args[1], rhs)

    def factors(self) -> tuple:
        """The SparseLU objects (for the solvers' fallback counters)."""
        return () if self.lu is None else (self.lu,)

    nanalyse = 0
    nfallback = 0
    last_fallback = -1


class SparseKKTFactorisation(KKTFactorisation):
    """:class:`KKTFactorisation` on the fixed patterns of A (``a_pattern``) and Φq: a
    :class:`~rtmbs.solvers.sparse.SparseKKT`, analysed at the first ``factor``."""

    sparse = True

    def __init__(self, a_pattern, phiq_pattern, hubs=()):
        self.n, self.m = a_pattern.shape[0], phiq_pattern.shape[0]
        self.kkt = SparseKKT(a_pattern, phiq_pattern, hubs=hubs)
        self.lu = self.kkt.lu
        self.idx = self.kkt.idx
        self.args = None  # (ib, fb, idx) after the analysis
        self.ratio = 1.0

    def factor(self, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom) -> float:
        if self.args is None:  # first call: analyse (allocates), then the fixed-cost kernel
            self.ratio = self.kkt.factor(M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)
            self.args = (self.lu.ib, self.lu.fb, self.idx)
            return self.ratio
        ratio, growth = kkt_factor(*self.args, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)
        self.lu.ratio, self.lu.growth = ratio, growth
        self.ratio = ratio
        return ratio

    @property
    def nanalyse(self) -> int:
        return self.lu.nanalyse

    @property
    def nfallback(self) -> int:
        return self.lu.nfallback

    @property
    def last_fallback(self) -> int:
        return self.lu.last_fallback


def make_kkt(system, sparse: bool, a_pattern=None) -> KKTFactorisation:
    """The KKT factorisation of ``system`` (size n + m): dense, or sparse (``sparse``, from
    :func:`~rtmbs.solvers.sparse.choose_linear_solver`) on ``a_pattern`` (default: M's own
    structure, ``mass_structure``, where the system gives it, else its mass pattern) and the
    system's Φq pattern."""
    n, m = system.n, system.m
    if not sparse:
        return KKTFactorisation(n, m)
    mp = np.asarray(getattr(system, "mass_structure", system.mass_pattern), bool)
    ap = mp if a_pattern is None else np.asarray(a_pattern, bool)
    pp = np.asarray(system.phiq_pattern, bool) if m else np.zeros((0, n), bool)
    return SparseKKTFactorisation(ap, pp, kkt_hubs(system))


class SquareFactorisation:
    """An N × N matrix with entries at the fixed positions (rows[e], cols[e]), written by
    :func:`f_set` inside a solver kernel and factorised by :func:`f_refactor`: dense (``rows``,
    ``cols`` must cover every entry: all of them are rewritten each time) or sparse (a
    :class:`~rtmbs.solvers.sparse.SparseLU`; :meth:`analyse` before the first factorisation).
    ``args`` = (fa, fb)."""

    def __init__(self, N: int, rows=None, cols=None, sparse: bool = False):
        self.N = N
        self.sparse = sparse
        if sparse:
            self.lu = SparseLU(N, rows, cols)
            self.args = None
        else:
            self.lu = None
            self.args = (np.zeros((N, N)), np.zeros(N, np.int64))

    def analyse(self, values, columns=None) -> None:
        """Sparse: ordering and pivots at ``values`` (of the entries; allocates); with
        ``columns``, that column order (rows by threshold pivoting)."""
        if self.sparse:
            self.lu.ax[:] = values
            self.lu.analyse(columns=columns)
            self.args = (self.lu.ib, self.lu.fb)

    def factors(self) -> tuple:
        return () if self.lu is None else (self.lu,)


def make_square(N: int, rows, cols, sparse: bool) -> SquareFactorisation:
    """:class:`SquareFactorisation` of size N, dense or sparse (entries (rows, cols))."""
    return SquareFactorisation(N, rows, cols, sparse)
