"""The C providers of the synthesis formulations (engine/providers/synthesis_*.c): their two
assemblies agree (the ODE's M, Q against the synthesis path's q̈), the Newton warm start they
keep converges, and bad model vectors are refused with the cause named."""
import numpy as np
import pytest

from rtmbs.engine import _engine
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from _models.synthesis import random_states, sla_model, two_corner_model

FORMS = ["relative-cartesian", "relative-joint"]


@pytest.fixture(scope="module")
def sm():
    return subsystem_model(sla_model(), "chassis", dof=1)


@pytest.mark.parametrize("form", FORMS)
def test_synthesis_accelerations_solve_the_assembled_ode(sm, form):
    """q̈ from the base equation and θ̈ per subsystem (eqs. 1, 20/31: Schur complements) solves
    M q̈ = Q assembled by eq. 19 in the same call: two different paths through the stages."""
    syn = SynthesisSystem(sm, formulation=form, compiled=True)
    for q, qd in random_states(np.random.default_rng(11), 4):
        M, Q, qdd = (a.copy() for a in syn._provider.evaluate(0.3, q, qd))
        assert np.abs(M @ qdd - Q).max() < 1e-10 * np.abs(Q).max()
        assert np.abs(qdd).max() > 1.0                     # not trivially at rest


def test_two_subsystems_solve_the_assembled_ode():
    syn = SynthesisSystem(subsystem_model(two_corner_model(), "chassis", dof=1), formulation="relative-joint",
                          compiled=True)
    rng = np.random.default_rng(12)
    q = np.array([0.02, 0.05, -0.08])
    qd = rng.normal(size=3)
    M, Q, qdd = syn._provider.evaluate(0.3, q, qd)
    assert np.abs(M @ qdd - Q).max() < 1e-10 * np.abs(Q).max()


@pytest.mark.parametrize("form", FORMS)
def test_one_newton_iteration_per_call_converges_through_the_warm_start(sm, form):
    """With one Newton iteration per call the warm start carries the iteration on: after enough
    calls at one state the provider reaches the numpy path's 30-iteration solution (quadratic
    convergence makes the first call's error far larger)."""
    py = SynthesisSystem(sm, formulation=form)
    one = SynthesisSystem(sm, formulation=form, newton_iterations=1, compiled=True)
    q, qd = np.array([0.03, 0.12]), np.array([0.2, -1.5])
    py.terms(0.0, q, qd, iterations=30)
    ref = py.accelerations(0.0, q, qd)
    first = np.abs(one.accelerations(0.0, q, qd) - ref).max()
    for _ in range(6):
        one.accelerations(0.0, q, qd)
    last = np.abs(one.accelerations(0.0, q, qd) - ref).max()
    assert first > 1e3 * last and last < 1e-10 * np.abs(ref).max()


def test_bad_model_vectors_are_refused(sm):
    syn = SynthesisSystem(sm, formulation="relative-joint", compiled=True)
    p = syn._provider
    args = (0.0, np.zeros(2), np.zeros(2), *p.warm, p.iters, p.scratch, p.iscratch, p.M, p.Q, p.qdd)
    with pytest.raises(RuntimeError, match="synthesis_joint_evaluate: model: buffer too short"):
        _engine.synthesis_joint_evaluate(p.ints, p.par[:-1], *args)
    ints = p.ints.copy()
    ints[8] += 1                                            # more cut equations than dependent coordinates
    with pytest.raises(RuntimeError, match="synthesis_joint_evaluate: model: argument out of range"):
        _engine.synthesis_joint_evaluate(ints, p.par, *args)
    with pytest.raises(ValueError, match="scratch: .* entries, expected at least"):
        _engine.synthesis_joint_evaluate(p.ints, p.par, *args[:5], p.scratch[:-1], *args[6:])
    a = SynthesisSystem(sm, formulation="relative-cartesian", compiled=True)._provider
    ints = a.ints.copy()
    ints[3] -= 1                                            # one primitive fewer: Ψ_z not square
    with pytest.raises(RuntimeError, match="synthesis_cartesian_sizes: model: argument out of range"):
        _engine.synthesis_cartesian_sizes(ints, a.par)


def test_a_singular_cut_jacobian_is_an_error_not_a_crash(sm):
    """A non-finite warm start makes Φ_u's LU meet a non-finite pivot: the call raises with the
    status named (the engine returns it; nothing aborts)."""
    syn = SynthesisSystem(sm, formulation="relative-joint", compiled=True)
    syn._provider.warm[0][:] = np.nan
    with pytest.raises(RuntimeError, match="synthesis_joint_evaluate: singular matrix"):
        syn.accelerations(0.0, np.zeros(2), np.zeros(2))


@pytest.mark.parametrize("form", FORMS)
def test_energy_error_of_a_conservative_run_falls_with_the_order_of_ab3(sm, form):
    """Dampers off, the road force removed: the provider's dynamics conserve the energy the numpy
    path computes (kinetic + gravity + springs), so ab3's energy error falls as h³ (halving h: 8×);
    a provider whose M, Q or γ̂ disagreed with that energy would leave an error that does not."""
    import copy

    from rtmbs.protocol import State
    from rtmbs.solvers.base import get_solver

    cons = copy.deepcopy(sm)
    for f in cons.forces:
        f.c = 0.0
    cons.forces = [f for f in cons.forces if f.fun is None]
    err = []
    for h in (2e-4, 1e-4):
        syn = SynthesisSystem(cons, formulation=form, compiled=True)
        st = State(0.0, np.zeros(2), np.array([0.3, 3.0]))
        slv = get_solver("ab3")(syn)
        slv.reset(st)
        E0 = syn.energy(st.q, st.qd)
        worst = 0.0
        for k in range(int(round(0.3 / h))):
            slv.step(st, h)
            if k % 50 == 49:
                worst = max(worst, abs(syn.energy(st.q, st.qd) - E0))
        err.append(worst)
        assert np.abs(st.q).max() > 0.01                    # it moved
    assert 6.0 < err[0] / err[1] < 10.0


@pytest.mark.parametrize("form", FORMS)
def test_difference_jacobians_in_c_match_central_differences_of_its_forces(sm, form):
    """The provider's forward-difference Jacobians (one C call) against central differences of
    its own Q in every coordinate and velocity direction, and against the numpy path's."""
    from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_Q

    syn = SynthesisSystem(sm, formulation=form, compiled=True)
    py = SynthesisSystem(sm, formulation=form)
    q, qd = np.array([0.02, 0.1]), np.array([0.3, -2.0])
    for _ in range(6):
        syn.accelerations(0.6, q, qd)
    ws = syn.workspace()
    syn.evaluate(0.6, q, qd, ws, EVAL_M | EVAL_Q | EVAL_JAC)

    def Q(x, xd):
        for _ in range(6):                       # converge the warm start at the shifted state
            syn.accelerations(0.6, x, xd)
        return syn.forces(x, xd, 0.6)

    h = 1e-5
    for k in range(2):
        e = np.zeros(2)
        e[k] = h
        dq = (Q(q + e, qd) - Q(q - e, qd)) / (2 * h)
        dqd = (Q(q, qd + e) - Q(q, qd - e)) / (2 * h)
        assert np.abs(ws.Jq[:, k] - dq).max() < 1e-4 * np.abs(ws.Jq).max()
        assert np.abs(ws.Jqd[:, k] - dqd).max() < 1e-4 * np.abs(ws.Jqd).max()
    wp = py.workspace()
    py.terms(0.6, q, qd, iterations=30)
    py.evaluate(0.6, q, qd, wp, EVAL_M | EVAL_Q | EVAL_JAC)
    assert np.abs(ws.M - wp.M).max() < 1e-12 * np.abs(wp.M).max()
    assert np.abs(ws.Jq - wp.Jq).max() < 1e-6 * np.abs(wp.Jq).max()
    assert np.abs(ws.Jqd - wp.Jqd).max() < 1e-6 * np.abs(wp.Jqd).max()
    assert np.abs(ws.Jqd).max() > 1.0                     # the dampers are in it
