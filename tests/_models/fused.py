"""Helpers of the tests of the solvers whose step is one call of the C engine."""
from __future__ import annotations

import numpy as np

#: steps of the compared runs and the drive torque ramp over them (models with a drive_torque
#: input: the quarter car, the multilink)
N = 300
TORQUE = np.linspace(0.0, 400.0, N)


def started(slv, system):
    """(slv, state): the solver reset at ``system``'s initial state."""
    st = system.initial_state()
    slv.reset(st)
    return slv, st


def counters(slv) -> tuple:
    """The counters a compiled step or rollout must keep as the Python-driven step does: steps,
    evaluations, factorisations, solves, fallbacks, analyses."""
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nfallback, slv.nanalyse)


def ramp_inputs(system, k):
    """Step k's drive torque of the ramp, on a model that has the input."""
    if "drive_torque" in system.input_names:
        system.set_input("drive_torque", TORQUE[k])
