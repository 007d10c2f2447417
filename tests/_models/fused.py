"""Helpers of the tests of the solvers whose step is one call of the C engine."""
from __future__ import annotations


def started(slv, system):
    """(slv, state): the solver reset at ``system``'s initial state."""
    st = system.initial_state()
    slv.reset(st)
    return slv, st


def counters(slv) -> tuple:
    """The counters a compiled step or rollout must keep as the Python-driven step does: steps,
    evaluations, factorisations, solves, fallbacks, analyses."""
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nfallback, slv.nanalyse)
