"""Formulations A (relative Cartesian coordinates, introduced θ; Kim & Wang 2005 §3) and B (recursive
relative joint coordinates, cut joints, coordinate partitioning; §4) on the SLA quarter car against
the ordinary Cartesian model of the same file."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from rtmbs.errors import ModelError, SolverError
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from rtmbs.synthesis import relative_cartesian as rc
from _models.synthesis import (assert_bodies_match, cartesian_accelerations, cartesian_reference,
                               compiled, random_states, sla_model)


FORMS = ["relative-cartesian", "relative-joint"]


@pytest.fixture(scope="module")
def cart():
    return compiled(sla_model())


@pytest.fixture(scope="module", params=FORMS)
def pair(request, cart):
    return cart, SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation=request.param)


def test_sizes(pair):
    cart, syn = pair
    assert (syn.n, syn.m) == (2, 0)
    assert syn.coordinate_names == ["chassis.s", "lca_pivot.theta"]
    assert (cart.n, cart.m) == (28, 26)


@pytest.mark.parametrize("t", [0.3, 0.6])      # before the bump, on it (road force acting)
def test_accelerations_equal_cartesian(pair, t):
    cart, syn = pair
    for q, qd in random_states(np.random.default_rng(7), 5):
        ref = cartesian_reference(syn, cart, t, q, qd)    # the position converged first
        assert_bodies_match(syn.body_accelerations(t, q, qd), ref)


def test_protocol_matrix_and_synthesis_solve_agree(pair):
    """The dense M q̈ = Q the generic solvers factor and the synthesis path (eqs. 1, 20-22)."""
    _, syn = pair
    for q, qd in random_states(np.random.default_rng(3), 4):
        syn.terms(0.6, q, qd, iterations=30)
        M, Q = syn.mass(q), syn.forces(q, qd, 0.6)
        qdd = syn.accelerations(0.6, q, qd)
        assert np.allclose(M, M.T, rtol=0, atol=1e-12 * np.abs(M).max())
        assert np.abs(np.linalg.solve(M, Q) - qdd).max() < 1e-10 * max(1.0, np.abs(qdd).max())


def test_effective_mass_spd(pair):
    _, syn = pair
    for q, qd in random_states(np.random.default_rng(11), 5):
        tm = syn.terms(0.0, q, qd, iterations=30)
        d = tm["subs"][0]
        Mc = d["Mc"]
        assert np.abs(Mc - Mc.T).max() < 1e-12 * np.abs(Mc).max()
        w = np.linalg.eigvalsh(Mc)
        assert w.min() > 0, w
        # less than the rigidly attached bodies' mass matrix M̄_EE (the θ direction is free)
        assert np.linalg.eigvalsh(d["MEE"] - Mc).min() > -1e-12
        assert np.linalg.eigvalsh(d["MEE"] - Mc).max() > 1e-3
        assert d["Mtt"][0, 0] > 0
        # its translational block: the subsystem mass minus what θ takes away
        assert 0 < Mc[2, 2] < syn.sm.subsystems[0].mass.sum()


def test_effective_mass_and_force_equal_between_formulations():
    """M̌ and P̌ (eqs. 21-22 and 36-37) are the base's view of the same subsystem: equal."""
    sa = SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation="relative-cartesian")
    sb = SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation="relative-joint")
    for q, qd in random_states(np.random.default_rng(5), 4):
        da = sa.terms(0.6, q, qd, iterations=30)["subs"][0]
        db = sb.terms(0.6, q, qd, iterations=30)["subs"][0]
        assert np.abs(da["Mc"] - db["Mc"]).max() < 1e-10 * np.abs(da["Mc"]).max()
        assert np.abs(da["Pc"] - db["Pc"]).max() < 1e-10 * np.abs(da["Pc"]).max()
        assert np.abs(da["MEE"] - db["MEE"]).max() < 1e-10 * np.abs(da["MEE"]).max()
        assert abs(sa.accelerations(0.6, q, qd)[1] - sb.accelerations(0.6, q, qd)[1]) < 1e-9 * max(
            1.0, abs(sa.accelerations(0.6, q, qd)[1]))


def test_relative_joint_tree_and_cuts():
    from rtmbs.synthesis.recursive import Tree

    sub = subsystem_model(sla_model(), "chassis", dof=1).subsystems[0]
    tree = Tree(sub)
    assert [e[0] for e in tree.edges] == ["lca_pivot", "uca_pivot", "lca_ball"]
    assert [c[0] for c in tree.cuts] == ["uca_ball", "tie_rod"]
    assert (tree.nq, tree.ncut, tree.v) == (5, 4, 0)
    # cutting the other ball joint instead: knuckle reached through the upper arm
    tree2 = Tree(sub, cut=("lca_ball",))
    assert [c[0] for c in tree2.cuts] == ["lca_ball", "tie_rod"]
    with pytest.raises(ModelError, match=r"synthesis\.cut: cutting lca_ball, uca_ball leaves the tree "
                       r"disconnected: knuckle not reached from the base"):
        Tree(sub, cut=("lca_ball", "uca_ball"))
    with pytest.raises(ModelError, match=r"synthesis\.cut: unknown joint 'ball'"):
        Tree(sub, cut=("ball",))
    with pytest.raises(ModelError, match=r"synthesis\.cut: the θ joint 'lca_pivot' must be a tree joint"):
        Tree(sub, cut=("lca_pivot",))


@pytest.mark.parametrize("cut", [(), ("lca_ball",)])
def test_relative_joint_other_cut_same_accelerations(cart, cut):
    syn = SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation="relative-joint", cut=cut)
    for q, qd in random_states(np.random.default_rng(9), 3):
        syn.terms(0.6, q, qd, iterations=30)
        qc, qdc = syn.cartesian_state(cart, q, qd)
        ref = cartesian_accelerations(cart, qc, qdc, 0.6)
        got = syn.body_accelerations(0.6, q, qd)
        a = ref["knuckle"][0]
        assert np.abs(got["knuckle"][0] - a).max() < 1e-9 * max(1.0, np.abs(a).max())


def test_position_solve_matches_constraints_and_angle(cart):
    """The fixed-count Newton solve (4 iterations from the design position) puts the Cartesian
    model on its constraints with the lower arm turned by exactly θ about its pivot axis."""
    sm = subsystem_model(sla_model(), "chassis", dof=1)
    sub = sm.subsystems[0]
    for theta in (-0.12, -0.03, 0.05, 0.12):
        r, A = rc.position(sub, sub.r0, sub.A0, theta, 4)
        psi, _, _ = rc.constraints(sub, r, A, theta, jac=False)
        assert np.abs(psi).max() < 1e-12
        b = A[sub.theta_body] @ sub.theta_x
        e2 = np.cross(sub.theta_axis, sub.theta_e1)
        assert abs(np.arctan2(e2 @ b, sub.theta_e1 @ b) - theta) < 1e-12
        assert abs(sub.theta_axis @ b) < 1e-12
        for form in FORMS:
            syn = SynthesisSystem(sm, formulation=form)
            syn.terms(0.0, np.array([0.0, theta]), np.zeros(2), iterations=4)
            qc, _ = syn.cartesian_state(cart, np.array([0.0, theta]), np.zeros(2))
            assert np.abs(cart.constraints(qc)).max() < 1e-12, form
        # 2 iterations are not enough from the design position at 0.12 rad: the count matters
    r, A = rc.position(sub, sub.r0, sub.A0, 0.12, 1)
    assert np.abs(rc.constraints(sub, r, A, 0.12, jac=False)[0]).max() > 1e-6


@pytest.mark.parametrize("form", FORMS)
def test_energy_conserved_undamped(form):
    """Undamped SLA (no coil-over damping, no road) from a moving state: the energy of an
    accurate integration of the synthesis ODE stays constant (and the motion is not trivial)."""
    model = sla_model()
    for f in model.forces:
        if f.name == "coil_over":
            f.damping = 0.0
    model.forces = [f for f in model.forces if f.name != "road"]
    syn = SynthesisSystem(subsystem_model(model, "chassis", dof=1), newton_iterations=4, formulation=form)
    q0, qd0 = np.zeros(2), np.array([0.3, 2.0])

    def rhs(t, x):
        return np.concatenate([x[2:], syn.accelerations(t, x[:2], x[2:])])

    sol = solve_ivp(rhs, (0, 0.2), np.concatenate([q0, qd0]), method="DOP853", rtol=1e-11, atol=1e-12,
                    dense_output=False, t_eval=np.linspace(0, 0.2, 21))
    E = np.array([syn.energy(x[:2], x[2:]) for x in sol.y.T])
    assert np.ptp(sol.y[1]) > 0.02                     # the arm swings
    assert np.abs(E - E[0]).max() < 1e-7 * abs(E[0] - syn.energy(q0, np.zeros(2))), np.abs(E - E[0]).max()


def test_damped_run_loses_energy(pair):
    """With the coil-over's damping the same motion loses energy (so the check above could fail)."""
    model = sla_model()
    model.forces = [f for f in model.forces if f.name != "road"]
    syn = SynthesisSystem(subsystem_model(model, "chassis", dof=1), formulation=pair[1].formulation)
    x = np.array([0.0, 0.0, 0.3, 2.0])
    E0 = syn.energy(x[:2], x[2:])
    sol = solve_ivp(lambda t, x: np.concatenate([x[2:], syn.accelerations(t, x[:2], x[2:])]),
                    (0, 0.05), x, method="DOP853", rtol=1e-9, atol=1e-11)
    assert syn.energy(sol.y[:2, -1], sol.y[2:, -1]) < E0 - 1.0


def _model_with(**edit):
    m = sla_model()
    for k, v in edit.items():
        setattr(m, k, v)
    return m


def test_bad_descriptions():
    m = sla_model()
    with pytest.raises(ModelError, match=r"synthesis\.dof\.lower_arm: declared 2 degrees of freedom, but "
                       r"the subsystem lower_arm, upper_arm, knuckle has 6×3 − 17 = 1"):
        subsystem_model(m, "chassis", dof=2)
    # not attached to the base: drop the arm pivots and the tie rod
    m = sla_model()
    m.joints = [j for j in m.joints if j.name not in ("lca_pivot", "uca_pivot", "tie_rod")]
    with pytest.raises(ModelError, match=r"bodies\.lower_arm: not attached to the base 'chassis'"):
        subsystem_model(m, "chassis")
    m = sla_model()
    with pytest.raises(ModelError, match=r"synthesis\.base: unknown body 'body'"):
        subsystem_model(m, "body")
    m = sla_model()
    with pytest.raises(ModelError, match=r"joints\.chassis_slide: a subsystem body may not be joined to the "
                                         r"ground \(only the base 'knuckle' is\)"):
        subsystem_model(m, "knuckle")          # a free base: the chassis' slide now joins a subsystem
    m = sla_model()
    next(j for j in m.joints if j.name == "chassis_slide").type = "revolute"
    with pytest.raises(ModelError, match=r"synthesis\.base\.chassis: the base body needs at most one joint to "
                                         r"the ground, prismatic \(vertical slide\) or orientation-lock, or none"):
        subsystem_model(m, "chassis")
    m = sla_model()
    next(j for j in m.joints if j.name == "tie_rod").type = "universal"
    with pytest.raises(ModelError, match=r"joints\.tie_rod\.type: joint type 'universal' is not supported"):
        subsystem_model(m, "chassis")
    m = sla_model()
    next(f for f in m.forces if f.name == "tyre").type = "bushing"
    with pytest.raises(ModelError, match=r"forces\.tyre\.type: force type 'bushing' is not supported"):
        subsystem_model(m, "chassis")
    with pytest.raises(SolverError, match="newton_iterations: expected an integer >= 1, got 0"):
        SynthesisSystem(subsystem_model(sla_model(), "chassis"), newton_iterations=0)
    with pytest.raises(SolverError, match="formulation: unknown 'magic'"):
        SynthesisSystem(subsystem_model(sla_model(), "chassis"), formulation="magic")


@pytest.mark.parametrize("form", FORMS)
def test_two_subsystems_on_one_base(form):
    """Eq. 1 sums the effective masses and forces of several subsystems: the SLA and its mirror
    image on one chassis give the Cartesian model's accelerations."""
    from _models.synthesis import two_corner_model

    model = two_corner_model()
    cart2 = compiled(model)
    assert np.abs(cart2.constraints(cart2.initial_state().q)).max() < 1e-12
    syn = SynthesisSystem(subsystem_model(model, "chassis", dof=1), formulation=form)
    assert syn.n == 3 and len(syn.sm.subsystems) == 2
    rng = np.random.default_rng(21)
    for _ in range(3):
        q = np.array([rng.uniform(-0.05, 0.05), *rng.uniform(-0.12, 0.12, 2)])
        qd = rng.normal(size=3) * [0.5, 3.0, 3.0]
        syn.terms(0.6, q, qd, iterations=30)
        qc, qdc = syn.cartesian_state(cart2, q, qd)
        assert np.abs(cart2.constraints(qc)).max() < 1e-12
        ref = cartesian_accelerations(cart2, qc, qdc, 0.6)
        assert_bodies_match(syn.body_accelerations(0.6, q, qd), ref)


@pytest.mark.parametrize("form,what", [("relative-cartesian", "Ψ_z"), ("relative-joint", "Φ_u")])
def test_theta_that_cannot_be_independent(form, what):
    """Lock the lower arm by a distance joint and free the steering (no tie rod): still 1 DOF, but
    the arm angle θ cannot drive it: a named error, not a singular matrix in the first step."""
    from rtmbs.model.description import Joint

    m = sla_model()
    m.joints = [j for j in m.joints if j.name != "tie_rod"]
    m.joints.append(Joint(name="arm_lock", type="distance", marker_i="chassis.spring_upper",
                          marker_j="lower_arm.spring_lower"))
    sm = subsystem_model(m, "chassis", dof=1)
    with pytest.raises(ModelError, match=rf"synthesis\.dof\.lower_arm: {what} is singular at the initial "
                       r"configuration .*the angle of joint 'lca_pivot' cannot be the independent coordinate"):
        SynthesisSystem(sm, formulation=form)
