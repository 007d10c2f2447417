"""Where Algorithm 2's step reads M, Φq, Jq, Jq̇.

Every kernel of ``li-euler-indep`` that reads these matrices on its sparse path takes one flat
float buffer ``w`` and a :class:`~rtmbs.solvers.sparse.PackedKKTMap` index ``idx`` (a flat value
index per entry of A = M − hJq̇ − h²Jq on its pattern, and per entry of Φq, in the order of
``np.nonzero`` of the patterns). The buffer is either

* the *packed* workspace of a compiled Cartesian model (``system.packed_layout``: M, Jq, Jq̇,
  Φq in their blocks, memory O(non-zeros)), or
* the ``buf`` of a dense :class:`~rtmbs.protocol.Workspace` (:class:`DenseLayout`: entry (i, j)
  of M at ``off_M + i n + j``), for any other system with fixed patterns,

so there is one kernel for both storages, reading the same values in the same order.
:class:`StepStorage` holds the two buffers of a step (at q and at the projected positions), the
views of their vectors and the evaluation into them; ``dense_view`` scatters a packed buffer into
a dense workspace for tests and offline tools.
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..protocol import Workspace
from .sparse import KKTMap, PackedKKTMap, workspace_offsets


class _FlatIndex:
    """(i, j) -> ``off + i·ncol + j`` (a dense row-major block), as the dicts of
    ``PackedLayout.index_maps`` (``as_list``: the Φq form, a list of one index)."""

    def __init__(self, off: int, ncol: int, as_list: bool = False):
        self.off, self.ncol, self.as_list = off, ncol, as_list

    def get(self, key, default=None):
        k = self.off + key[0] * self.ncol + key[1]
        return [k] if self.as_list else k


class DenseLayout:
    """Dense row-major arrays in one flat buffer seen as a packed layout (the interface
    :class:`~rtmbs.solvers.sparse.PackedKKTMap` reads): ``offsets`` of M, Jq, Jq̇, Φq, ... (n
    columns each) in a buffer of ``size`` floats. Every entry has its own place."""

    def __init__(self, n: int, offsets: dict, size: int):
        self.offsets, self.size = offsets, size
        self._maps = (_FlatIndex(offsets["M"], n), _FlatIndex(offsets["Jq"], n),
                      _FlatIndex(offsets["phiq"], n, as_list=True))

    @classmethod
    def of_workspace(cls, system) -> "DenseLayout":
        """The layout of ``system.workspace().buf``."""
        ws = system.workspace()
        return cls(system.n, workspace_offsets(ws), ws.buf.size)

    def index_maps(self):
        return self._maps


def phiq_reader(phiq, phiq_pattern):
    """``(w, idx)`` reading the entries ``phiq_pattern`` of a dense (m, n) array ``phiq`` (a view,
    no copy; for tests and offline use of the partition kernels, ``basis.reader``)."""
    m, n = phiq.shape
    w = np.ascontiguousarray(phiq).reshape(-1)
    lay = DenseLayout(n, dict(M=0, Jq=0, Jqd=0, phiq=0), w.size)
    return w, entry_index(np.zeros((n, n), bool), phiq_pattern, lay)


def entry_index(a_pattern, phiq_pattern, layout, rows=None) -> np.ndarray:
    """The :class:`PackedKKTMap` index of the entries of ``a_pattern`` (A) and ``phiq_pattern``
    (Φq) in ``layout`` (``system.packed_layout`` or a :class:`DenseLayout`); ``rows``: the
    model's row of each row of ``phiq_pattern`` (:class:`PackedKKTMap`)."""
    return PackedKKTMap(KKTMap(np.asarray(a_pattern, bool), np.asarray(phiq_pattern, bool)),
                        layout, rows).idx


def packed_parts(idx) -> tuple:
    """The parts of a :class:`PackedKKTMap` index: (dJ, a_i, a_j, a_M, a_J, z_r, z_c, z_ptr, z_idx,
    z_Mdiag, offset of the augmentation), as int64 arrays."""
    na, nz, nzi, dj = (int(v) for v in idx[:4])
    o = 4
    parts = []
    for size in (na, na, na, na, nz, nz, nz + 1, nzi, nz):
        parts.append(idx[o:o + size].astype(np.int64))
        o += size
    return (dj, *parts, o)


def phiq_values(w, idx) -> np.ndarray:
    """The Φq entries of ``idx`` read from buffer ``w``, each the sum of its terms in order (as
    the engine's ``phiq_at`` and the dense writer add them)."""
    zptr, zidx = packed_parts(idx)[7:9]
    start, count = zptr[:-1], np.diff(zptr)
    v = w[zidx[start]].copy()
    for t in range(1, int(count.max(initial=1))):
        more = count > t
        v[more] += w[zidx[start[more] + t]]
    return v


def phiq_scatter(w, idx, out) -> None:
    """The dense Φq (m, n) of buffer ``w`` (``out`` cleared first; a rebase's dense copy)."""
    zr, zc = packed_parts(idx)[5:7]
    out[:, :] = 0.0
    out[zr, zc] = phiq_values(w, idx)


#: The projection (Carpinelli 2016 eq. 30) from a step's packed buffers, in the engine (kkt.c):
#: ``project_kkt(ib, fb, pidx, w0, w1, phi1, h, rhs, dq)`` gathers [M(q) hΦqᵀ; Φq 0] with Φq at
#: the projected positions (``w1``; M copied there from ``w0``) through ``pidx``, factorises it and
#: adds the correction of [0; −Φ] to ``dq``; returns (pivot ratio, largest multiplier).
project_kkt = _engine.project_kkt


class StepStorage:
    """The two buffers of an Algorithm 2 step, packed (``packed``: a compiled Cartesian model's
    blocks) or dense workspaces; ``w0`` at (t, q), ``w1`` at the projected positions. ``Q``,
    ``gamma``, ``phi``, ``phit`` (of ``w0``) and ``phi1`` (of ``w1``) are views."""

    def __init__(self, system, packed: bool):
        self.system, self.packed = system, packed
        n, m = system.n, system.m
        if packed:
            self.layout = system.packed_layout
            self.w0, self.w1 = np.zeros(self.layout.size), np.zeros(self.layout.size)
            self._views = [None, None]  # the dense views, made at first use
        else:
            self.layout = DenseLayout.of_workspace(system)
            self.ws0, self.ws1 = system.workspace(), system.workspace()
            self.w0, self.w1 = self.ws0.buf, self.ws1.buf
        off = self.layout.offsets
        self.Q = self.w0[off["Q"]:off["Q"] + n]
        self.gamma = self.w0[off["gamma"]:off["gamma"] + m]
        self.phi = self.w0[off["phi"]:off["phi"] + m]
        self.phit = self.w0[off["phit"]:off["phit"] + m]
        self.phi1 = self.w1[off["phi"]:off["phi"] + m]

    def evaluate(self, solver, k: int, t, q, qd, what: int) -> None:
        """Evaluate ``what`` into buffer ``k`` (0: w0, 1: w1), counted in ``solver.neval``."""
        if self.packed:
            self.system.evaluate_packed(t, q, qd, self.w1 if k else self.w0, what)
        else:
            self.system.evaluate(t, q, qd, self.ws1 if k else self.ws0, what)
        solver.neval += 1

    def dense_view(self, k: int = 0) -> Workspace:
        """Buffer ``k`` as a dense workspace: the workspace itself, or (packed) a scatter of the
        blocks into one made at first use (tests, offline tools; allocates)."""
        if not self.packed:
            return self.ws1 if k else self.ws0
        if self._views[k] is None:
            self._views[k] = self.system.workspace()
        return self.layout.dense(self.w1 if k else self.w0, self._views[k])

    def phiq_dense(self, idx) -> np.ndarray:
        """Φq of ``w0`` as a dense (m, n) array (a view when dense; a new array when packed: for a
        rebase, which may allocate)."""
        if not self.packed:
            return self.ws0.phiq
        out = np.zeros((self.system.m, self.system.n))
        phiq_scatter(self.w0, idx, out)
        return out
