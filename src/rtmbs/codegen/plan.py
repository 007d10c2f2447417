"""The fixed operation list of an analysed :class:`~rtmbs.solvers.sparse.SparseLU`.

:func:`~rtmbs.solvers.sparse.lu_refactor` eliminates row by row through a dense accumulator
``w``; for row i, entry (i, k) of L, every update w[j] -= l_ik u_kj lands on an entry (i, j) of
the filled pattern, whose position in the factor storage is known after the analysis. So the
numeric factorisation is a list, fixed at the analysis, of "lu[t] -= lu[p] * lu[r]" with constant
positions t, p, r, in the order lu_refactor does them (:meth:`LUPlan.row_plans`). The
generated code regroups that list per entry of the factors (:meth:`LUPlan.entry_plans`): each
entry is one chain of subtractions in the same order, which keeps the rounding identical.
"""
from __future__ import annotations

import hashlib
from dataclasses import dataclass, field

import numpy as np

from ..solvers import sparse as sp
from ..tolerances import PIVOT_REL

#: Part of every plan's key (the file names of built code): bump when the emitted code changes.
#: 1: row updates lu[t] -= l * lu[r] (as lu_refactor); 2: each entry as one chain.
CODEGEN_VERSION = 2


def _slice(ib, slot, length):
    o = int(ib[slot])
    return ib[o:o + length].astype(np.int64)


@dataclass
class RowPlan:
    """Elimination of one row i of the permuted matrix (seed 000 eq. 22's KKT for li-euler)."""

    diag: int  # position of u_ii in the factor storage
    prow: int  # row of the matrix at this position (recorded when its pivot is raised)
    #: per entry (i, k) of L, in order: (position of l_ik, position of u_kk, [(t, r)]) with the
    #: updates lu[t] -= l_ik * lu[r] over the entries r of row k of U right of the diagonal
    elim: list = field(default_factory=list)


@dataclass
class LUPlan:
    """Everything the generated code needs, as Python ints.

    Offsets ``o_*`` are into the ``SparseLU``'s float buffer ``fb`` (layout in
    :mod:`rtmbs.solvers.sparse`): entry values ax, factors lu, pivot references, couplings,
    statistics.
    """

    N: int
    ne: int
    nnz: int
    o_lu: int
    o_pref: int
    o_cval: int
    o_stats: int
    ptr: np.ndarray
    diag: np.ndarray
    col: np.ndarray
    amap: np.ndarray
    prow: np.ndarray
    pcol: np.ndarray
    rows: np.ndarray
    cols: np.ndarray
    cdst: np.ndarray
    csrc: np.ndarray
    key: str
    pivot_rel: float = PIVOT_REL
    nrefine: int = sp.NREFINE

    @classmethod
    def from_sparse_lu(cls, lu: "sp.SparseLU") -> "LUPlan":
        """The plan of an analysed ``SparseLU`` (``lu.ib`` set by ``analyse``)."""
        if lu.ib is None:
            raise ValueError("LUPlan.from_sparse_lu: the SparseLU is not analysed yet (ib is "
                             "None); factor it once first")
        ib = lu.ib
        N, ne, nnz, nc = (int(ib[s]) for s in (sp._H_N, sp._H_NE, sp._H_NNZ, sp._H_NC))
        o_pref = ne + nnz + N
        consts = (PIVOT_REL, sp.NREFINE, sp._S_LEN, CODEGEN_VERSION)
        key = hashlib.sha1(ib.tobytes() + repr(consts).encode())
        return cls(
            N=N, ne=ne, nnz=nnz, o_lu=ne, o_pref=o_pref, o_cval=o_pref + 3 * N,
            o_stats=o_pref + 3 * N + nc,
            ptr=_slice(ib, sp._H_PTR, N + 1), diag=_slice(ib, sp._H_DIAG, N),
            col=_slice(ib, sp._H_COL, nnz), amap=_slice(ib, sp._H_AMAP, ne),
            prow=_slice(ib, sp._H_PROW, N), pcol=_slice(ib, sp._H_PCOL, N),
            rows=_slice(ib, sp._H_ROWS, ne), cols=_slice(ib, sp._H_COLS, ne),
            cdst=_slice(ib, sp._H_CDST, nc), csrc=_slice(ib, sp._H_CSRC, nc),
            key=key.hexdigest()[:16])

    _ARRAYS = ("ptr", "diag", "col", "amap", "prow", "pcol", "rows", "cols", "cdst", "csrc")
    _SCALARS = ("N", "ne", "nnz", "o_lu", "o_pref", "o_cval", "o_stats", "nrefine")

    def save(self, path) -> None:
        """Write the plan to an ``.npz`` (read back by :meth:`load`, e.g. by a generated module)."""
        np.savez(path, key=np.array(self.key), pivot_rel=np.array(self.pivot_rel),
                 **{k: getattr(self, k) for k in self._ARRAYS},
                 **{k: np.array(getattr(self, k)) for k in self._SCALARS})

    @classmethod
    def load(cls, path) -> "LUPlan":
        with np.load(path) as z:
            return cls(key=str(z["key"]), pivot_rel=float(z["pivot_rel"]),
                       **{k: z[k].astype(np.int64) for k in cls._ARRAYS},
                       **{k: int(z[k]) for k in cls._SCALARS})

    # -- derived lists ---------------------------------------------------------------------------
    def scatter(self) -> list:
        """Per factor position p, the entries e with amap[e] == p, in order of e."""
        out = [[] for _ in range(self.nnz)]
        for e, p in enumerate(self.amap.tolist()):
            out[p].append(e)
        return out

    def row_plans(self) -> list:
        """:class:`RowPlan` of every row, in elimination order."""
        ptr, diag, col = self.ptr.tolist(), self.diag.tolist(), self.col.tolist()
        plans = []
        for i in range(self.N):
            pos = {col[p]: p for p in range(ptr[i], ptr[i + 1])}
            rp = RowPlan(diag=diag[i], prow=int(self.prow[i]))
            for p in range(ptr[i], diag[i]):
                k = col[p]
                dk = diag[k]
                rp.elim.append((p, dk, [(pos[col[r]], r) for r in range(dk + 1, ptr[k + 1])]))
            plans.append(rp)
        return plans

    def entry_plans(self) -> list:
        """Per row, in elimination order: (diag position, [(q, entries e scattered onto q,
        [(p, r)], dk)]) over the positions q of the row in column order, where the value at q
        is sum(ax[e]) - sum(lu[p] * lu[r]) with the products in the order lu_refactor subtracts
        them (ascending k), divided by lu[dk] for an entry of L (dk = -1 for U). Computing each
        entry as one chain (the accumulator in a register, one store) gives the same rounding
        as the row updates of :meth:`row_plans`: an entry's updates come in the same order and
        every l_ik is final before the entries right of it need it."""
        ptr, diag, col = self.ptr.tolist(), self.diag.tolist(), self.col.tolist()
        scat = self.scatter()
        out = []
        for i, rp in enumerate(self.row_plans()):
            contrib = {q: [] for q in range(ptr[i], ptr[i + 1])}
            for p, dk, ups in rp.elim:
                for t, r in ups:
                    contrib[t].append((p, r))
            ents = [(q, scat[q], contrib[q], diag[col[q]] if q < diag[i] else -1)
                    for q in range(ptr[i], ptr[i + 1])]
            out.append((diag[i], ents))
        return out

    @property
    def flops(self) -> int:
        """Multiply-adds of the numeric factorisation (``SparseLU.flops``: updates + divisions)."""
        return sum(len(u) + 1 for rp in self.row_plans() for _, _, u in rp.elim)

    @property
    def solve_flops(self) -> int:
        """Multiply-adds of one pair of triangular solves (off-diagonal entries of L and U)."""
        return self.nnz - self.N
