"""One factorisation interface for the KKT matrices the solvers factor (docs/solvers.md).

Every LU factorisation is a pair of arrays ``(fa, fb)``:

* dense: ``fa`` the (N, N) factors of the engine's dense LU (``rtmbs.solvers.dense``), ``fb``
  its pivots (int64);
* sparse: ``fa`` the index ``ib`` (uint32) and ``fb`` the values of a fixed-pattern
  :class:`~rtmbs.solvers.sparse.SparseLU` (no re-analysis, static pivots; the engine's
  sparse_lu.c factorises and solves).

The functions below take either (:func:`kkt_factor`, :func:`solve`, :func:`solve_t`,
:func:`kkt_correction`); the objects hold the arrays and the counters and are chosen once, in a
solver's ``__init__``/``_reset``, by :func:`make_kkt` (the KKT matrices [M − c_d Jq̇ − c Jq,
s Φq_topᵀ; Φq_bottom, 0] of Carpinelli 2016 eqs. 12, 22, 30). The sparse KKT is analysed once, at its
first ``factor`` (in ``reset``); the solvers' steps on compiled models factor it inside the
engine, from packed workspaces.
"""
from __future__ import annotations

import numpy as np

from . import dense
from .sparse import LUStatistics, SparseKKT, kkt_hubs, kkt_values, lu_solve_sp, lu_solve_t_sp


def _is_dense(fa) -> bool:
    """Dense factors are a 2-d array, sparse ones the 1-d index ``ib``."""
    return fa.ndim == 2


def kkt_factor(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom):
    """Assemble (dense) or gather (sparse, ``idx`` of a KKTMap) and factorise the KKT matrix.
    Returns (pivot ratio, largest multiplier: 0 for dense)."""
    if _is_dense(fa):
        return dense.kkt_factor(fa, fb, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom), 0.0
    return kkt_values(fa, fb, idx, M, Jq, Jqd, c, cd, phiq_top, s, phiq_bottom)


def solve(fa, fb, b) -> None:
    """Solve A x = b in place."""
    (dense.lu_solve if _is_dense(fa) else lu_solve_sp)(fa, fb, b)


def solve_t(fa, fb, b) -> None:
    """Solve Aᵀ x = b in place."""
    (dense.lu_solve_t if _is_dense(fa) else lu_solve_t_sp)(fa, fb, b)


def kkt_correction(fa, fb, phi, rhs, dq) -> None:
    """Solve K[x; μ] = [0; −Φ] and add x to ``dq`` (the projection of Carpinelli 2016 eq. 30, with
    the factors of any KKT matrix of that form)."""
    n = dq.shape[0]
    rhs[:n] = 0.0
    np.negative(phi, out=rhs[n:])
    solve(fa, fb, rhs)
    dq += rhs[:n]


_NO_INDEX = np.zeros(0, np.uint32)


# -- the Python objects -----------------------------------------------------------------------

class KKTFactorisation:
    """K = [M − c_d Jq̇ − c Jq, s Φq_topᵀ; Φq_bottom, 0] (size n + m), dense or sparse.

    ``args`` = (fa, fb, idx) for :func:`kkt_factor` and :func:`solve` (``idx``: the gather index of the sparse
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


class SparseKKTFactorisation(LUStatistics, KKTFactorisation):
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


