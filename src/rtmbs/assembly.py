"""Assembly (consistent initial positions and velocities) and static equilibrium.

Offline utilities: they iterate to a tolerance and use dense numpy/scipy.
"""
from __future__ import annotations

import sys

import numpy as np
import scipy.sparse as sp
import scipy.sparse.linalg as spl

from .errors import AssemblyError, RedundantConstraintError
from .protocol import EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem
from .tolerances import MODEL_RANK_RTOL

POSITION_TOL = 1e-12
MAX_ITER = 60
#: From this many entries of Φq (m·n) on, set-up works on sparse matrices from the packed
#: evaluation (O(non-zeros)) instead of dense least squares and SVDs of the whole Φq.
SPARSE_SETUP_FROM = 4_000_000


#: Models with at least this many coordinates say which set-up phase they are in (stderr).
SETUP_NOTICE_FROM_N = 2000


def setup_notice(system, phase: str) -> None:
    """One line on stderr before a set-up phase of a large model (n ≥ SETUP_NOTICE_FROM_N):
    each of these phases takes seconds there (progress)."""
    if system.n >= SETUP_NOTICE_FROM_N:
        print(f"rtmbs: setting up '{system.name}' (n {system.n}, m {system.m}): {phase} ...",
              file=sys.stderr, flush=True)


def use_sparse(system) -> bool:
    """Whether set-up takes the sparse path for ``system`` (large, with a packed evaluation)."""
    return system.m * system.n > SPARSE_SETUP_FROM and hasattr(system, "evaluate_packed")


def sparse_evaluation(system, t, q, qd, what: int):
    """(M, Φq as CSR, the packed buffer) from the packed evaluation: no n × n or m × n array.
    Φ, Φt, γ and Q are read from the buffer at ``system.packed_layout.offsets``."""
    n, m = system.n, system.m
    lay = system.packed_layout
    buf = np.zeros(lay.size)
    system.evaluate_packed(float(t), np.asarray(q, float), np.asarray(qd, float), buf, what)
    r, c, e = lay.coo["phiq"]
    J = sp.coo_matrix((buf[e], (r, c)), shape=(m, n)).tocsr()   # coupler terms add up
    J.eliminate_zeros()
    M = None
    if what & EVAL_M:
        r, c, e = lay.coo["M"]
        M = sp.coo_matrix((buf[e], (r, c)), shape=(n, n)).tocsc()
    return M, J, buf


def packed_vector(system, buf, name: str) -> np.ndarray:
    """Q, phi, phit or gamma from a packed buffer."""
    o = system.packed_layout.offsets[name]
    size = system.n if name == "Q" else system.m
    return buf[o:o + size].copy()


def min_norm_solve(J: sp.csr_matrix, r: np.ndarray) -> np.ndarray:
    """x of least norm with J x = r for a sparse J of full row rank: x = Jᵀ (J Jᵀ)⁻¹ r by a
    sparse LU of J Jᵀ; LSQR (minimum norm from x = 0, Paige & Saunders 1982) when J Jᵀ is
    singular (redundant rows)."""
    try:
        y = spl.splu((J @ J.T).tocsc()).solve(r)
        if np.isfinite(y).all():
            return J.T @ y
    except RuntimeError:
        pass
    return spl.lsqr(J, r, atol=1e-15, btol=1e-15, iter_lim=10 * J.shape[1])[0]


def _rows_to_joints(system, rows) -> list[str]:
    names = []
    for name, (start, count) in getattr(system, "joint_rows", {}).items():
        if any(start <= r < start + count for r in rows):
            names.append(name)
    return names


def assemble_positions(system: MechanicalSystem, q0, t: float = 0.0, tol: float = POSITION_TOL,
                       max_iter: int = MAX_ITER) -> np.ndarray:
    """Minimal-change consistent positions: Newton on Φ(q, t) = 0 with the minimum-norm
    correction Δq = −Φq⁺ Φ (works with redundant constraints)."""
    q = np.array(q0, float)
    if system.m == 0:
        return q
    sparse = use_sparse(system)
    ws = None if sparse else system.workspace()
    for _ in range(max_iter):
        if sparse:
            _, J, buf = sparse_evaluation(system, t, q, np.zeros(system.n), EVAL_PHI | EVAL_PHIQ)
            phi = packed_vector(system, buf, "phi")
        else:
            system.evaluate(t, q, np.zeros(system.n), ws, EVAL_PHI | EVAL_PHIQ)
            phi = ws.phi
        res = np.linalg.norm(phi, np.inf)
        if not np.isfinite(res):
            break
        if res < tol:
            return q
        dq = (min_norm_solve(J, -phi) if sparse
              else np.linalg.lstsq(ws.phiq, -ws.phi, rcond=None)[0])
        step = 1.0
        phi0 = np.linalg.norm(phi)
        for _ls in range(8):  # damped Newton: accept a step that reduces ‖Φ‖
            qn = q + step * dq
            if np.linalg.norm(_phi(system, qn, t)) < (1 - 1e-4 * step) * phi0 or step < 0.02:
                break
            step *= 0.5
        q = qn
    phi = _phi(system, q, t)
    worst = np.argsort(-np.abs(phi))[:3]
    joints = _rows_to_joints(system, [int(r) for r in worst if abs(phi[r]) > tol])
    raise AssemblyError(
        f"cannot assemble '{system.name}': the constraints cannot be satisfied near the given "
        f"positions (‖Φ‖∞ = {np.abs(phi).max():.3g} after {max_iter} Newton iterations); "
        f"largest violations in: {', '.join(joints) or 'unknown rows'}")


def _phi(system, q, t):
    if use_sparse(system):
        buf = sparse_evaluation(system, t, q, np.zeros(system.n), EVAL_PHI)[2]
        return packed_vector(system, buf, "phi")
    ws = system.workspace()
    system.evaluate(t, q, np.zeros(system.n), ws, EVAL_PHI)
    return ws.phi.copy()


def assemble_velocities(system: MechanicalSystem, q, qd0, t: float = 0.0) -> np.ndarray:
    """Minimal-change consistent velocities: project on Φq q̇ + Φt = 0."""
    qd = np.array(qd0, float)
    if system.m == 0:
        return qd
    if use_sparse(system):
        _, J, buf = sparse_evaluation(system, t, q, qd, EVAL_PHIQ)
        return qd - min_norm_solve(J, J @ qd + packed_vector(system, buf, "phit"))
    ws = system.workspace()
    system.evaluate(t, q, qd, ws, EVAL_PHIQ)
    r = ws.phiq @ qd + ws.phit
    return qd - np.linalg.lstsq(ws.phiq, r, rcond=None)[0]


def assemble(system: MechanicalSystem, q0, qd0, t: float = 0.0, check_redundant: bool = True):
    """Consistent (q, q̇). With ``check_redundant``, a rank-deficient Φq raises
    :class:`RedundantConstraintError` naming the redundant joints (the redundant-constraint
    formulations accept such models: pass ``check_redundant=False``)."""
    setup_notice(system, "assembly of the initial positions and velocities")
    q = assemble_positions(system, q0, t)
    qd = assemble_velocities(system, q, qd0, t)
    if check_redundant and system.m and getattr(system, "allow_redundant", False) is False:
        ws = system.workspace()
        system.evaluate(t, q, qd, ws, EVAL_PHIQ)
        s = np.linalg.svd(ws.phiq, compute_uv=False)
        rank = int((s > s[0] * MODEL_RANK_RTOL).sum())
        if rank < system.m:
            red = system.redundant_joints(q, t) if hasattr(system, "redundant_joints") else []
            names = ", ".join(f"{n} ({k} dependent equation{'s' if k > 1 else ''})" for n, k in red)
            raise RedundantConstraintError(
                f"'{system.name}': the constraint Jacobian has rank {rank} < m = {system.m}: "
                f"redundant joints: {names or 'unknown'}. Remove them, replace them by joints with "
                "fewer equations, or use a redundant-constraint formulation (allow_redundant).",
                [n for n, _ in red])
    return q, qd


def static_equilibrium(system: MechanicalSystem, q0=None, t: float = 0.0, tol: float = 1e-9,
                       max_iter: int = 50):
    """Static equilibrium Q(q, 0, t) − Φqᵀλ = 0, Φ(q, t) = 0 (as Adams' and SIMPACK's static
    solve): Newton on (q, λ) with a finite-difference Jacobian and the KKT solved by least
    squares. Returns (q, λ)."""
    n, m = system.n, system.m
    q = np.array(system.initial_state().q if q0 is None else q0, float)
    zero = np.zeros(n)
    ws = system.workspace()

    def residual(x):
        qq, lam = x[:n], x[n:]
        system.evaluate(t, qq, zero, ws, EVAL_Q | EVAL_PHI | EVAL_PHIQ)
        return np.concatenate([ws.Q - ws.phiq.T @ lam, ws.phi])

    system.evaluate(t, q, zero, ws, EVAL_Q | EVAL_PHIQ)
    lam = np.linalg.lstsq(ws.phiq.T, ws.Q, rcond=None)[0] if m else np.zeros(0)
    x = np.concatenate([q, lam])
    scale = max(1.0, np.abs(residual(x)).max())
    for _ in range(max_iter):
        r = residual(x)
        if np.abs(r).max() < tol * scale:
            return x[:n].copy(), x[n:].copy()
        J = np.empty((n + m, n + m))
        for k in range(n + m):
            e = 1e-7 * max(1.0, abs(x[k]))
            xp = x.copy()
            xp[k] += e
            xm = x.copy()
            xm[k] -= e
            J[:, k] = (residual(xp) - residual(xm)) / (2 * e)
        dx = np.linalg.lstsq(J, -r, rcond=None)[0]
        step = 1.0
        r0 = np.linalg.norm(r)
        while step > 1e-3 and np.linalg.norm(residual(x + step * dx)) > (1 - 1e-4 * step) * r0:
            step *= 0.5
        x = x + step * dx
    r = residual(x)
    raise AssemblyError(f"static equilibrium of '{system.name}' not found: residual "
                        f"{np.abs(r).max():.3g} after {max_iter} Newton iterations")
