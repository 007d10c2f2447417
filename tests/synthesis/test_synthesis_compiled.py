"""The numba kernels of both formulations (compiled=True) against the numpy ones."""
import numpy as np
import pytest

import rtmbs
from rtmbs.errors import SolverError
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from .synthesis_helpers import random_states, sla_model, two_corner_model

FORMS = ["relative-cartesian", "relative-joint"]


@pytest.mark.parametrize("form", FORMS)
def test_compiled_equals_numpy(form):
    sm = subsystem_model(sla_model(), "chassis", dof=1)
    py = SynthesisSystem(sm, formulation=form)
    nb = SynthesisSystem(sm, formulation=form, compiled=True)
    for q, qd in random_states(np.random.default_rng(4), 4):
        for _ in range(8):                       # converge both warm starts (4 iterations each)
            nb.accelerations(0.6, q, qd)
        py.terms(0.6, q, qd, iterations=30)
        ref = py.accelerations(0.6, q, qd)
        assert np.abs(nb.accelerations(0.6, q, qd) - ref).max() < 1e-10 * np.abs(ref).max()
        assert np.abs(nb.mass(q) - py.mass(q)).max() < 1e-12 * np.abs(py.mass(q)).max()
        Q = py.forces(q, qd, 0.6)
        assert np.abs(nb.forces(q, qd, 0.6) - Q).max() < 1e-10 * np.abs(Q).max()


@pytest.mark.parametrize("form", FORMS)
def test_compiled_bump_run_equals_numpy(form):
    sm = subsystem_model(sla_model(), "chassis", dof=1)
    runs = [rtmbs.simulate(SynthesisSystem(sm, formulation=form, compiled=c), "ab3", t_end=0.7, h=1e-3,
                           accelerations=False) for c in (False, True)]
    z = [r.outputs["chassis.z"] for r in runs]
    assert np.ptp(z[0]) > 0.03                      # the bump moved the chassis
    assert np.abs(z[0] - z[1]).max() < 1e-10


def test_compiled_takes_one_subsystem():
    sm = subsystem_model(two_corner_model(), "chassis", dof=1)
    with pytest.raises(SolverError, match="compiled: the compiled kernel takes formulation B with one subsystem"):
        SynthesisSystem(sm, formulation="relative-joint", compiled=True)
    with pytest.raises(SolverError, match="compiled: the compiled kernel takes formulation A with one subsystem"):
        SynthesisSystem(sm, formulation="relative-cartesian", compiled=True)
