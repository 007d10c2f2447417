"""Assembly (consistent initial positions and velocities) and static equilibrium.

Offline utilities: they iterate to a tolerance and use dense numpy/scipy.
"""
from __future__ import annotations

import numpy as np

from .errors import AssemblyError, RedundantConstraintError
from .protocol import EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem
from .tolerances import MODEL_RANK_RTOL

POSITION_TOL = 1e-12
MAX_ITER = 60


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
    ws = system.workspace()
    for _ in range(max_iter):
        system.evaluate(t, q, np.zeros(system.n), ws, EVAL_PHI | EVAL_PHIQ)
        res = np.linalg.norm(ws.phi, np.inf)
        if not np.isfinite(res):
            break
        if res < tol:
            return q
        dq = np.linalg.lstsq(ws.phiq, -ws.phi, rcond=None)[0]
        step = 1.0
        for _ls in range(8):  # damped Newton: accept a step that reduces ‖Φ‖
            qn = q + step * dq
            system.evaluate(t, qn, np.zeros(system.n), ws, EVAL_PHI)
            if np.linalg.norm(ws.phi) < (1 - 1e-4 * step) * np.linalg.norm(_phi(system, q, t)) or step < 0.02:
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
    ws = system.workspace()
    system.evaluate(t, q, np.zeros(system.n), ws, EVAL_PHI)
    return ws.phi.copy()


def assemble_velocities(system: MechanicalSystem, q, qd0, t: float = 0.0) -> np.ndarray:
    """Minimal-change consistent velocities: project on Φq q̇ + Φt = 0."""
    qd = np.array(qd0, float)
    if system.m == 0:
        return qd
    ws = system.workspace()
    system.evaluate(t, q, qd, ws, EVAL_PHIQ)
    r = ws.phiq @ qd + ws.phit
    return qd - np.linalg.lstsq(ws.phiq, r, rcond=None)[0]


def assemble(system: MechanicalSystem, q0, qd0, t: float = 0.0, check_redundant: bool = True):
    """Consistent (q, q̇). With ``check_redundant``, a rank-deficient Φq raises
    :class:`RedundantConstraintError` naming the redundant joints (the redundant-constraint
    formulations accept such models: pass ``check_redundant=False``)."""
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
