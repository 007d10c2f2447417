"""Kim & Wang 2005 Table 1: multiplications/divisions (M·D) and additions/subtractions (A·S) per stage of
one evaluation of each formulation, counted by running the kernels on
:class:`~rtmbs.synthesis.opcount.Op` numbers (the counts of this implementation, not of the
paper's Fortran: compare ratios)."""
from __future__ import annotations

import numpy as np

from . import opcount as oc
from .linalg import solve

STAGES = ("position", "velocity", "RHS", "mass/force", "effective mass/force", "acceleration")


def _accelerations(syn, tm):
    """Acceleration stage: base equation (eq. 1), θ̈ (eq. 20 / 31) and the dependent
    accelerations (eq. 18 / eqs. 32, 26)."""
    S = tm["S"]
    xdd = solve(S.T @ tm["Mhat"] @ S, S.T @ tm["Phat"])
    Yd = S @ xdd
    for si, d in enumerate(tm["subs"]):
        thdd = solve(d["Mtt"], d["gt"] - d["MEt"].T @ Yd)
        if syn.formulation == "relative-cartesian":
            d["yd"] = d["N"] @ thdd + d["p"]
        else:
            tree, kin = syn._trees[si], d["kin"]
            qdd = np.zeros(tree.nq, dtype=object)
            qdd[tree.v] = thdd[0]
            qdd[tree.u] = d["c"] - d["R"][:, 0] * thdd[0]
            d["Yd"] = [kin["B"][k] @ qdd + kin["D"][k] for k in range(len(syn.sm.subsystems[si].bodies))]
    return xdd


def operation_counts(syn, q, qd, t=0.0, iterations=None) -> dict:
    """{stage: (M·D, A·S, functions)} for one evaluation of ``syn`` at (t, q, q̇) with the
    position stage's Newton iterations as given (default: the system's)."""
    syn.terms(t, np.asarray(q, float), np.asarray(qd, float), iterations=30)   # converged warm start
    with oc.counting() as c:
        tm = syn.terms(t, oc.wrap(q), oc.wrap(qd), iterations=iterations, counted=True)
        before = c.snapshot()
        _accelerations(syn, tm)
        after = c.snapshot()
    counts = {k: tuple(v) for k, v in tm["counts"].items()}
    counts["acceleration"] = tuple(a - b for a, b in zip(after, before))
    return {s: counts.get(s, (0, 0, 0)) for s in STAGES}
