"""The C providers of both formulations (compiled=True, engine/providers/synthesis_*.c) against the
numpy path of the same formulation."""
import numpy as np
import pytest

import rtmbs
from rtmbs.errors import SolverError
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from _models.synthesis import random_states, sla_model, two_corner_model

FORMS = ["relative-cartesian", "relative-joint"]


def _assert_equal_at(py, nb, q, qd, t=0.6):
    """The compiled system ``nb`` gives the numpy one's ``py`` q̈ (to 1e-10), M (to 1e-12) and Q
    (to 1e-10 of their largest entry) at (t, q, q̇), once both warm starts have converged."""
    for _ in range(8):                           # converge both warm starts (4 iterations each)
        nb.accelerations(t, q, qd)
    py.terms(t, q, qd, iterations=30)
    ref = py.accelerations(t, q, qd)
    assert np.abs(nb.accelerations(t, q, qd) - ref).max() < 1e-10 * np.abs(ref).max()
    assert np.abs(nb.mass(q) - py.mass(q)).max() < 1e-12 * np.abs(py.mass(q)).max()
    Q = py.forces(q, qd, t)
    assert np.abs(nb.forces(q, qd, t) - Q).max() < 1e-10 * np.abs(Q).max()


@pytest.mark.parametrize("form", FORMS)
def test_compiled_equals_numpy(form):
    sm = subsystem_model(sla_model(), "chassis", dof=1)
    py = SynthesisSystem(sm, formulation=form)
    nb = SynthesisSystem(sm, formulation=form, compiled=True)
    for q, qd in random_states(np.random.default_rng(4), 4):
        _assert_equal_at(py, nb, q, qd)


@pytest.mark.parametrize("form,solver", [
    ("relative-cartesian", "ab3"), ("relative-joint", "ab3"), ("relative-joint", "li-euler"),
    pytest.param("relative-cartesian", "li-euler", marks=pytest.mark.slow),  # (the numpy run: 30 s)
])
def test_compiled_bump_run_equals_numpy(form, solver):
    """ab3 (q̈ only) and li-euler (M, Q and the difference Jacobians, in C when compiled)."""
    sm = subsystem_model(sla_model(), "chassis", dof=1)
    runs = [rtmbs.simulate(SynthesisSystem(sm, formulation=form, compiled=c), solver, t_end=0.7, h=1e-3,
                           accelerations=False) for c in (False, True)]
    z = [r.outputs["chassis.z"] for r in runs]
    assert np.ptp(z[0]) > 0.03                      # the bump moved the chassis
    assert np.abs(z[0] - z[1]).max() < 1e-10


def test_compiled_subsystem_limits():
    """A compiles one subsystem only; B stacks subsystems but refuses an element between two."""
    import copy

    model = two_corner_model()
    with pytest.raises(SolverError, match="compiled: formulation A's provider takes 'relative-cartesian' with one subsystem"):
        SynthesisSystem(subsystem_model(model, "chassis", dof=1), formulation="relative-cartesian", compiled=True)
    bar = copy.deepcopy([f for f in model.forces if f.name == "coil_over"][0])
    bar.name, bar.marker_i, bar.marker_j = "bar", "lower_arm.spring_lower", "lower_arm_r.spring_lower"
    model.forces.append(bar)
    with pytest.raises(SolverError, match="compiled: force element 'bar' joins two subsystems"):
        SynthesisSystem(subsystem_model(model, "chassis", dof=1), formulation="relative-joint", compiled=True)


def test_compiled_two_subsystems_equal_numpy():
    """The stacked kernel of B (eq. 1 summing M̌, P̌ of both corners) equals the numpy path."""
    sm = subsystem_model(two_corner_model(), "chassis", dof=1)
    py = SynthesisSystem(sm, formulation="relative-joint")
    nb = SynthesisSystem(sm, formulation="relative-joint", compiled=True)
    rng = np.random.default_rng(5)
    for _ in range(3):
        q = np.array([rng.uniform(-0.05, 0.05), *rng.uniform(-0.12, 0.12, 2)])
        qd = rng.normal(size=3) * [0.5, 3.0, 3.0]
        _assert_equal_at(py, nb, q, qd)
