"""Sizes and structure of any protocol provider: n, m, rank(Φq), degrees of freedom."""
from __future__ import annotations

import numpy as np

from ..protocol import MechanicalSystem
from ..tolerances import MODEL_RANK_RTOL


def constraint_rank(system: MechanicalSystem, q=None, t: float = 0.0) -> int:
    if system.m == 0:
        return 0
    q = system.initial_state().q if q is None else q
    s = np.linalg.svd(system.constraint_jacobian(q, t), compute_uv=False)
    return int((s > MODEL_RANK_RTOL * s[0]).sum()) if s.size and s[0] > 0 else 0


def sizes(system: MechanicalSystem, q=None) -> dict:
    """``{n, m, rank, f}`` with f = n − rank(Φq) (Table 4.1 of Carpinelli 2015)."""
    r = constraint_rank(system, q)
    return {"n": system.n, "m": system.m, "rank": r, "f": system.n - r}
