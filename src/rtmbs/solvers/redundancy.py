"""Redundant joint sets in the fixed-step solvers: leave the dependent equations out.

Four revolutes with parallel axes (a planar four-bar drawn the usual way) or two coaxial hinges
give a rank-deficient Φq: rank r < m. Like Adams at assembly, the solvers find at ``reset`` a
maximal independent set of r rows of Φq(q0) and integrate with those rows only, for the whole
run. :class:`ReducedSystem` is a thin provider of the mechanical-system protocol over the kept
rows (m' = r): ``evaluate`` writes the full evaluation of the wrapped system and copies the kept
rows of Φ, Φq, Φt and γ in one compiled call (no allocation); M, Q, Jq and Jq̇ are shared, not
copied. The solvers see an ordinary system with full row rank.

The left-out rows are dependent on the kept ones at q0; for a structural redundancy they stay
satisfied as long as the kept ones are. Each evaluation checks them (Φ is evaluated with Φq) and
counts, without raising, those in which one exceeds
``LEFT_OUT_ATOL + LEFT_OUT_FACTOR·‖Φ_kept‖∞`` (``nviolations``, with the row and the size).

On a compiled model, ``li-euler``, ``generalized-alpha`` and ``explicit-euler`` do not call
``evaluate``: their steps in the C engine solve with the kept rows (``row_map``;
src/rtmbs/engine/li_euler.c, generalized_alpha.c, explicit_euler.c) and make the same check after
each of their evaluations, counted in the model's data (warning ``redundant`` and
``data.left_worst``); ``nviolations``, ``max_violation`` and ``violation_row`` add both counts.

Rank decisions use :data:`rtmbs.tolerances.SOLVER_RANK_RTOL` (σ ≤ SOLVER_RANK_RTOL·σmax is zero),
the tolerance of the redundant-constraint formulations of Pękal & Frączek 2016.
"""
from __future__ import annotations

import warnings

import numpy as np
import scipy.linalg as sla
import scipy.sparse as sp

from ..assembly import setup_notice, sparse_evaluation
from ..errors import RedundantConstraintError, RedundantConstraintWarning, SolverError
from ..protocol import EVAL_GAMMA, EVAL_PHI, EVAL_PHIQ, MechanicalSystem, State, Workspace, workspace_size
from ..tolerances import SOLVER_RANK_RTOL
from ..engine import WARNINGS

#: the row of the engine's warning table that counts violated left-out rows (rtmbs.h)
WARN_REDUNDANT = WARNINGS.index("redundant")

#: Option ``redundant`` of the fixed-step solvers: leave dependent rows out, or raise.
REDUNDANT_CHOICES = ("remove", "error")
#: A left-out row counts as violated when |Φ_i| > LEFT_OUT_ATOL + LEFT_OUT_FACTOR·‖Φ_kept‖∞
#: (Φ in the model's units: lengths and direction cosines). Locally implied rows drift with the
#: kept ones, so only a large excess (a redundancy that held at q0 only) is counted.
LEFT_OUT_ATOL = 1e-6
LEFT_OUT_FACTOR = 10.0

#: Φq with more entries (m·n) than this is not decomposed by one dense SVD: its rank is found
#: by structure (joints that are bridges of the body graph) and dense checks of the closed-loop
#: parts only (:func:`independent_rows`).
DENSE_RANK_LIMIT = 4_000_000

_ROW_KIND = {0: "spherical", 1: "dot-1", 2: "dot-2", 3: "distance", 4: "rotation-driver"}


# -- choosing the rows (at reset; allocates) -------------------------------------------------
def row_priority(system) -> np.ndarray:
    """Rows in the order they are preferred: Euler-parameter normalisation rows first, then the
    joints' rows in joint order, then any other rows."""
    m = system.m
    jr = getattr(system, "joint_rows", {})
    ep = [r for name, (s, c) in jr.items() if name.endswith(".euler-parameters")
          for r in range(s, s + c)]
    joints = [r for name, (s, c) in jr.items() if not name.endswith(".euler-parameters")
              for r in range(s, s + c)]
    seen = set(ep) | set(joints)
    return np.array(ep + joints + [r for r in range(m) if r not in seen], np.int64)


def select_rows(phiq: np.ndarray, priority=None, rtol: float = SOLVER_RANK_RTOL):
    """A maximal independent set of rows of Φq: ``(kept, left_out, rank)`` (sorted arrays).

    Greedy in ``priority`` order (modified Gram-Schmidt: a row is kept when its part orthogonal
    to the rows kept before exceeds rtol·σmax), checked against the rank by SVD; if the greedy
    set is not well conditioned, the rows of a QR with column pivoting of Φqᵀ are used."""
    m = phiq.shape[0]
    order = np.arange(m) if priority is None else np.asarray(priority, np.int64)
    s = np.linalg.svd(phiq, compute_uv=False)
    if s.size == 0 or s[0] == 0.0:
        return np.zeros(0, np.int64), np.arange(m), 0
    cut = rtol * s[0]
    rank = int(np.count_nonzero(s > cut))
    if rank == m:
        return np.arange(m), np.zeros(0, np.int64), m
    basis = np.zeros((rank, phiq.shape[1]))
    kept = []
    for r in order:
        v = phiq[r].astype(float)
        B = basis[:len(kept)]
        for _ in range(2):  # twice is enough (Kahan-Parlett)
            v -= B.T @ (B @ v)
        nv = np.linalg.norm(v)
        if nv > cut:
            basis[len(kept)] = v / nv
            kept.append(int(r))
            if len(kept) == rank:
                break
    kept = np.sort(np.array(kept, np.int64))
    ok = kept.size == rank and (rank == 0 or np.linalg.svd(phiq[kept], compute_uv=False)[-1] > cut)
    if not ok:
        piv = sla.qr(phiq.T, mode="r", pivoting=True)[1]
        kept = np.sort(piv[:rank].astype(np.int64))
    left = np.setdiff1d(np.arange(m), kept)
    return kept, left, rank


def sparse_jacobian(system, t, q) -> sp.csr_matrix:
    """Φq(q, t) as a CSR matrix, from the packed evaluation (O(non-zeros), no m × n array)
    where the model has one, else from the dense workspace."""
    if not hasattr(system, "evaluate_packed"):
        return sp.csr_matrix(_jacobian(system, t, q))
    return sparse_evaluation(system, t, q, np.zeros(system.n), EVAL_PHIQ)[1]


def _block(J: sp.csr_matrix, rows, colbody, bodies) -> np.ndarray:
    """The dense block of rows ``rows`` of J on the columns of ``bodies`` (in column order)."""
    cols = np.flatnonzero(np.isin(colbody, bodies)) if len(bodies) > 4 else \
        np.flatnonzero(np.logical_or.reduce([colbody == b for b in bodies]))
    where = {int(c): k for k, c in enumerate(cols)}
    out = np.zeros((len(rows), cols.size))
    for i, r in enumerate(rows):
        lo, hi = J.indptr[r], J.indptr[r + 1]
        for c, v in zip(J.indices[lo:hi], J.data[lo:hi]):
            out[i, where[int(c)]] = v
    return out


def _bridges(nnode: int, edges) -> np.ndarray:
    """Which edges (pairs of nodes, parallel edges allowed) are bridges of the multigraph:
    Tarjan's low-link, iterative (Tarjan 1974)."""
    adj = [[] for _ in range(nnode)]
    for k, (a, b) in enumerate(edges):
        adj[a].append((b, k))
        adj[b].append((a, k))
    disc = np.full(nnode, -1)
    low = np.zeros(nnode, np.int64)
    bridge = np.zeros(len(edges), bool)
    clock = 0
    for root in range(nnode):
        if disc[root] >= 0:
            continue
        disc[root] = low[root] = clock
        clock += 1
        stack = [(root, -1, iter(adj[root]))]
        while stack:
            v, via, it = stack[-1]
            for w, k in it:
                if k == via:
                    continue
                if disc[w] < 0:
                    disc[w] = low[w] = clock
                    clock += 1
                    stack.append((w, k, iter(adj[w])))
                    break
                low[v] = min(low[v], disc[w])
            else:
                stack.pop()
                if stack:
                    u = stack[-1][0]
                    low[u] = min(low[u], low[v])
                    if low[v] > disc[u]:
                        bridge[via] = True
    return bridge


def independent_rows(system, t, q, rtol: float = SOLVER_RANK_RTOL):
    """``(kept, left_out, rank)`` of Φq(q, t) as :func:`select_rows`, in O(non-zeros) for large
    models (m·n > DENSE_RANK_LIMIT): a joint that is a bridge of the body graph (ground one node)
    joins a part that could otherwise move freely, so its rows are independent of all others
    when they are among themselves (checked on the joint's own columns); rows can depend only
    within the 2-edge-connected parts (closed loops), each checked densely on its own bodies'
    columns (with those bodies' Euler-parameter rows). Smaller models: :func:`select_rows` on
    the dense Φq."""
    m, n = system.m, system.n
    joint_bodies = getattr(system, "joint_bodies", None)
    if m * n <= DENSE_RANK_LIMIT or joint_bodies is None or not hasattr(system, "body_qadr"):
        return select_rows(_jacobian(system, t, q), row_priority(system), rtol)
    setup_notice(system, "rank of the constraint Jacobian (sparse)")
    J = sparse_jacobian(system, t, q)
    qadr = np.asarray(system.body_qadr)
    nb = qadr.size
    ground = nb                                   # one node for the ground and fixed bodies
    colbody = np.full(n, ground, np.int64)
    starts = [(int(qadr[b]), b) for b in range(nb) if qadr[b] >= 0]
    starts.sort()
    for k, (a, b) in enumerate(starts):
        end = starts[k + 1][0] if k + 1 < len(starts) else n
        colbody[a:end] = b
    order = row_priority(system)
    rank_of = np.empty(m, np.int64)
    rank_of[order] = np.arange(m)
    groups, edges, ep_rows = [], [], {}
    for name, (start, count) in system.joint_rows.items():
        rows = np.arange(start, start + count)
        bodies = np.unique(colbody[J.indices[J.indptr[start]:J.indptr[start + count]]])
        bodies = bodies if bodies.size else np.array([ground])
        if name.endswith(".euler-parameters"):
            ep_rows.setdefault(int(bodies[0]), []).extend(rows.tolist())
            continue
        nodes = [int(x) for x in bodies] + ([ground] if bodies.size == 1 else [])
        groups.append((rows, nodes))
    seen = np.zeros(m, bool)
    for rows, _ in groups:
        seen[rows] = True
    for rws in ep_rows.values():
        seen[rws] = True
    for r in np.flatnonzero(~seen):              # rows outside every joint: their own group
        nodes = [int(x) for x in np.unique(colbody[J.indices[J.indptr[r]:J.indptr[r + 1]]])]
        nodes = nodes or [ground]
        groups.append((np.array([r]), nodes + ([ground] if len(nodes) == 1 else [])))
    simple = [g for g in groups if len(g[1]) == 2]
    is_bridge = np.zeros(len(groups), bool)
    br = _bridges(nb + 1, [tuple(g[1]) for g in simple])
    k = 0
    for i, g in enumerate(groups):
        if len(g[1]) == 2:
            is_bridge[i] = br[k]
            k += 1
    kept = []
    # bridges: independent of the rest when independent among themselves
    for i in np.flatnonzero(is_bridge):
        rows = groups[i][0]
        sub = _block(J, rows, colbody, [b for b in groups[i][1] if b != ground])
        kk, _, _ = select_rows(sub, np.argsort(rank_of[rows], kind="stable"), rtol)
        kept.extend(rows[kk].tolist())
    # the closed-loop parts: union-find of the bodies joined by non-bridge groups
    parent = np.arange(nb + 1)

    def find(x):
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    loop_groups = [groups[i] for i in np.flatnonzero(~is_bridge)]
    for rows, nodes in loop_groups:
        for b in nodes[1:]:
            parent[find(b)] = find(nodes[0])
    parts: dict = {}
    for rows, nodes in loop_groups:
        parts.setdefault(find(nodes[0]), []).append(rows)
    in_loop = set()
    members: dict = {}
    for b in range(nb):
        members.setdefault(find(b), []).append(b)
    for root, rowlists in parts.items():
        bodies = [b for b in members.get(root, []) if b != ground]
        in_loop.update(bodies)
        rows = np.concatenate(rowlists + [np.array(ep_rows.get(b, []), np.int64) for b in bodies])
        sub = _block(J, rows, colbody, bodies)
        kk, _, _ = select_rows(sub, np.argsort(rank_of[rows], kind="stable"), rtol)
        kept.extend(rows[kk].tolist())
    for b, rws in ep_rows.items():                # normalisation rows outside the loops
        if b not in in_loop:
            kept.extend(rws)
    kept = np.sort(np.array(kept, np.int64))
    return kept, np.setdiff1d(np.arange(m), kept), int(kept.size)


def describe_rows(system, rows) -> list[tuple[str, list[int], str]]:
    """Group rows by joint: ``[(joint, equation numbers within the joint (from 0), kinds)]``."""
    rows = [int(r) for r in rows]
    out = []
    prim_type = getattr(system, "prim_type", None)
    prim_row = getattr(system, "prim_row", None)

    def kind(r):
        if prim_type is None:
            return ""
        for k in range(len(prim_row)):
            nr = 3 if prim_type[k] == 0 else 1
            if prim_row[k] <= r < prim_row[k] + nr:
                return _ROW_KIND.get(int(prim_type[k]), "") + ("-" + "xyz"[r - prim_row[k]] if nr == 3 else "")
        return "normalisation"

    named = set()
    for name, (s, c) in getattr(system, "joint_rows", {}).items():
        mine = [r for r in rows if s <= r < s + c]
        if mine:
            named.update(mine)
            kinds = sorted({kind(r) for r in mine} - {""})
            out.append((name, [r - s for r in mine], ", ".join(kinds)))
    rest = [r for r in rows if r not in named]
    if rest:
        out.append(("", rest, ""))
    return out


def notice(system, kept, left) -> str:
    """The message that names the joints and the equations left out."""
    parts = []
    for name, eqs, kinds in describe_rows(system, left):
        if not name:
            parts.append(f"row{'s' if len(eqs) > 1 else ''} {', '.join(map(str, eqs))}")
            continue
        what = f"equation{'s' if len(eqs) > 1 else ''} {', '.join(map(str, eqs))}"
        parts.append(f"joint '{name}' {what}" + (f" ({kinds} rows)" if kinds else ""))
    return (f"'{system.name}': rank(Φq) = {kept.size} < m = {system.m}; redundant and left out "
            f"of the solver's equations: {'; '.join(parts)}")


def _jacobian(system, t, q) -> np.ndarray:
    ws = system.workspace()
    system.evaluate(float(t), np.asarray(q, float), np.zeros(system.n), ws, EVAL_PHIQ)
    return ws.phiq.copy()


def redundancy_error(solver_name, system, t, kept, left) -> RedundantConstraintError:
    groups = [(n, len(e)) for n, e, _ in describe_rows(system, left) if n]
    names = ", ".join(f"{n} ({k} dependent equation{'s' if k > 1 else ''})" for n, k in groups)
    return RedundantConstraintError(
        f"solver '{solver_name}': the constraint Jacobian of '{system.name}' has rank "
        f"{kept.size} < m = {system.m} at t = {t:g}: redundant joints: {names or 'unknown'}; "
        f"expected full row rank m = {system.m} (option redundant='error'; the default "
        "'remove' leaves the dependent equations out)", [n for n, _ in groups])


# -- the wrapper -------------------------------------------------------------------------------
class ReducedWorkspace(Workspace):
    """A workspace of the reduced system (n, m') whose ``buf`` also holds the full evaluation.

    ``buf`` = [the wrapped system's workspace (n, m) | Φ', Φq', Φt', γ' (m' rows)]; ``inner``
    is the full workspace over the head of ``buf``; ``M``, ``Q``, ``Jq``, ``Jqd`` are its arrays
    (shared), ``phi``, ``phiq``, ``phit``, ``gamma`` the kept rows (copied by ``evaluate``).
    Offsets of the arrays in ``buf``: ``rtmbs.solvers.sparse.workspace_offsets``."""

    def __init__(self, n: int, m_full: int, m: int):
        self.n, self.m = n, m
        nin = workspace_size(n, m_full)
        self.buf = np.zeros(nin + m * (n + 3))
        self.inner = Workspace(n, m_full)
        self.inner.bind(self.buf[:nin])
        self.M, self.Q, self.Jq, self.Jqd = self.inner.M, self.inner.Q, self.inner.Jq, self.inner.Jqd
        o = nin
        self.phi = self.buf[o:o + m]; o += m
        self.phiq = self.buf[o:o + m * n].reshape(m, n); o += m * n
        self.phit = self.buf[o:o + m]; o += m
        self.gamma = self.buf[o:o + m]


def _gather(what, buf, idx, stats) -> None:
    """Copy the kept rows within ``buf`` and check the left-out rows of Φ.

    ``idx`` = [ncopy, nleft, nkept, ptr (4: segments Φ | Φq, Φt | γ), src (ncopy), dst (ncopy),
    left-out Φ (nleft), kept Φ (nkept)] as offsets in ``buf``; ``stats`` = [bound factor,
    bound atol, violations, worst |Φ|, its left-out index, last violated left-out index]."""
    nc, nl, nk = int(idx[0]), int(idx[1]), int(idx[2])
    src, dst = idx[7:7 + nc], idx[7 + nc:7 + 2 * nc]
    for seg in range(3):
        if what & (4 << seg):
            k0, k1 = idx[3 + seg], idx[4 + seg]
            buf[dst[k0:k1]] = buf[src[k0:k1]]
    if what & 4 and nl > 0:
        lo = 7 + 2 * nc
        kmax = float(np.abs(buf[idx[lo + nl:lo + nl + nk]]).max(initial=0.0))
        bound = stats[1] + stats[0] * kmax
        a = np.abs(buf[idx[lo:lo + nl]])
        bad = np.flatnonzero((a > bound) | np.isnan(a))
        for k in bad:
            if not a[k] <= stats[3]:
                stats[3] = a[k]
                stats[4] = k
        if bad.size:
            stats[2] += 1.0
            stats[5] = bad[-1]


class ReducedSystem(MechanicalSystem):
    """The wrapped ``system`` over its kept constraint rows (m' = rank Φq(q0)).

    Attributes: ``system`` (the full one), ``kept``, ``left_out`` (rows of the full system),
    ``message`` (the notice); ``nviolations`` (evaluations in which a left-out row exceeded the
    bound), ``max_violation`` (largest |Φ| of a violated left-out row) and
    ``violation_row`` (its row in the full system, -1: none). Everything else is the wrapped
    system's."""

    def __init__(self, system: MechanicalSystem, kept, left_out):
        self.system = system
        self._inner_evaluate = system.evaluate
        self.n, self.m_full = system.n, system.m
        self._select(np.asarray(kept, np.int64), np.asarray(left_out, np.int64))
        self.stats = np.zeros(6)
        self.stats[:2] = LEFT_OUT_FACTOR, LEFT_OUT_ATOL
        self.reset_violations()

    def _select(self, kept, left):
        n, mf = self.n, self.m_full
        self.kept, self.left_out = kept, left
        self.m = m = kept.size
        nin = 3 * n * n + n + mf * (n + 3)
        # offsets of Φ, Φq, Φt, γ in the inner layout and in the reduced tail (ReducedWorkspace)
        i_phi, i_phiq = n * n + n, n * n + n + mf
        i_phit, i_gam = i_phiq + mf * n, i_phiq + mf * n + mf
        o_phi, o_phiq = nin, nin + m
        o_phit, o_gam = o_phiq + m * n, o_phiq + m * n + m
        pat = getattr(self.system, "phiq_pattern", None)
        cols = [np.nonzero(pat[r])[0] if pat is not None else np.arange(n) for r in kept]
        src_phiq = [i_phiq + r * n + c for r, c in zip(kept, cols)]
        dst_phiq = [o_phiq + k * n + c for k, c in enumerate(cols)]
        ar = np.arange(m)
        src = [i_phi + kept, *src_phiq, i_phit + kept, i_gam + kept]
        dst = [o_phi + ar, *dst_phiq, o_phit + ar, o_gam + ar]
        src = np.concatenate(src) if m else np.zeros(0, np.int64)
        dst = np.concatenate(dst) if m else np.zeros(0, np.int64)
        nq = sum(c.size for c in cols)
        ptr = [0, m, 2 * m + nq, 3 * m + nq]
        self._idx = np.concatenate([[src.size, left.size, m], ptr, src, dst, i_phi + left,
                                    i_phi + kept]).astype(np.int64)
        #: the C engine's row map (``rtmbs_rows``, stages.h): [m', left-out count, kept, left-out]
        self.row_map = np.concatenate([[m, left.size], kept, left]).astype(np.int64)
        self.message = notice(self.system, kept, left)

    # -- violations of the left-out rows -----------------------------------------------------
    def _engine_data(self):
        """The compiled model's data, where the engine's step counts its checks (None for a
        system without one)."""
        data = getattr(self.system, "data", None)
        return data if hasattr(data, "left_worst") else None

    def reset_violations(self) -> None:
        self.stats[2:] = 0.0, 0.0, -1.0, -1.0
        data = self._engine_data()
        if data is not None:  # (the warning count goes on: counted from here)
            self._engine_count0 = int(data.warning[WARN_REDUNDANT, 0])
            data.left_worst[:] = 0.0, -1.0

    def _engine_worst(self) -> tuple[int, float, int]:
        """(violations, largest |Φ|, its row) counted by the engine's step since the reset."""
        data = self._engine_data()
        if data is None:
            return 0, 0.0, -1
        return (int(data.warning[WARN_REDUNDANT, 0]) - self._engine_count0,
                float(data.left_worst[0]), int(data.left_worst[1]))

    @property
    def nviolations(self) -> int:
        return int(self.stats[2]) + self._engine_worst()[0]

    @property
    def max_violation(self) -> float:
        return max(float(self.stats[3]), self._engine_worst()[1])

    @property
    def violation_row(self) -> int:
        """Row (of the full system) of the largest violation seen, -1 for none."""
        _, worst, row = self._engine_worst()
        if worst > self.stats[3]:
            return row
        k = int(self.stats[4])
        return int(self.left_out[k]) if k >= 0 else -1

    # -- the protocol --------------------------------------------------------------------------
    def workspace(self) -> ReducedWorkspace:
        return ReducedWorkspace(self.n, self.m_full, self.m)

    def evaluate(self, t, q, qd, ws: ReducedWorkspace, what: int) -> None:
        if what & EVAL_PHIQ:
            what |= EVAL_PHI  # for the check of the left-out rows (the Cartesian kernel has it)
        self._inner_evaluate(t, q, qd, ws.inner, what)
        _gather(what, ws.buf, self._idx, self.stats)

    def expand_multipliers(self, lam, out) -> None:
        """λ over the rows of the full system: the kept rows' values, 0 on the left-out rows."""
        out[:] = 0.0
        out[self.kept] = lam

    @property
    def phiq_pattern(self):
        return np.asarray(self.system.phiq_pattern, bool)[self.kept]

    def initial_state(self) -> State:
        return self.system.initial_state()

    def extra_rates(self, t, q, qd, x, out) -> None:
        self.system.extra_rates(t, q, qd, x, out)

    def set_extra(self, x) -> None:
        self.system.set_extra(x)

    def advance_extra(self, state: State, h: float) -> None:
        self.system.advance_extra(state, h)

    def outputs(self, t, q, qd, out, **extra) -> None:
        self.system.outputs(t, q, qd, out, **extra)

    def acceleration_outputs(self, t, q, qd, qdd, out) -> None:
        self.system.acceleration_outputs(t, q, qd, qdd, out)

    def set_input(self, name: str, value: float) -> None:
        self.system.set_input(name, value)

    def energy(self, q, qd) -> float:
        return self.system.energy(q, qd)

    def __getattr__(self, name):  # everything else: the wrapped system's
        if name == "system":
            raise AttributeError(name)
        return getattr(self.system, name)


for _a in ("name", "nx", "output_names", "acceleration_names", "input_names"):
    setattr(ReducedSystem, _a, property(lambda self, _a=_a: getattr(self.system, _a)))


# -- the solvers' hook (rtmbs.solvers.base) -------------------------------------------------------
def check_choice(solver_name, redundant) -> str:
    if redundant not in REDUNDANT_CHOICES:
        raise SolverError(f"solver '{solver_name}': option redundant={redundant!r} is not one of "
                          + ", ".join(repr(c) for c in REDUNDANT_CHOICES))
    return redundant


def prepare(system: MechanicalSystem, solver_name: str, redundant: str) -> MechanicalSystem:
    """At solver construction: the system the solver integrates. With ``redundant='remove'``
    and rank Φq(q0) < m (q0 the initial state) a :class:`ReducedSystem` (and a
    :class:`RedundantConstraintWarning` naming the left-out equations), otherwise ``system``."""
    check_choice(solver_name, redundant)
    if redundant == "error" or system.m == 0:
        return system
    st = system.initial_state()
    kept, left, _ = independent_rows(system, st.t, st.q)
    if left.size == 0:
        return system
    red = ReducedSystem(system, kept, left)
    warnings.warn(red.message, RedundantConstraintWarning, stacklevel=4)
    return red


def at_reset(solver_name: str, system: MechanicalSystem, full: MechanicalSystem,
             redundant: str, state: State) -> None:
    """At ``reset``: the rows at the reset state. Raises :class:`RedundantConstraintError` for
    ``redundant='error'`` and rank deficiency; re-selects the kept rows of a
    :class:`ReducedSystem` (same count) and clears its violation counter."""
    if full.m == 0:
        return
    kept, left, rank = independent_rows(full, state.t, state.q)
    if left.size and redundant == "error":
        raise redundancy_error(solver_name, full, state.t, kept, left)
    if system is full:
        if left.size:
            raise RedundantConstraintError(
                f"solver '{solver_name}': '{full.name}' has rank(Φq) = {rank} < m = {full.m} at "
                f"the reset state (t = {state.t:g}) but full rank at its initial state; build "
                "the solver after setting the initial state", [n for n, _, _ in
                                                              describe_rows(full, left) if n])
        return
    if rank != system.m:
        raise SolverError(
            f"solver '{solver_name}': '{full.name}' has rank(Φq) = {rank} at the reset state "
            f"(t = {state.t:g}) but {system.m} at its initial state, where the redundant rows "
            "were chosen; build a new solver for this state")
    if not np.array_equal(kept, system.kept):
        system._select(kept, left)
        warnings.warn(system.message, RedundantConstraintWarning, stacklevel=4)
    system.reset_violations()
