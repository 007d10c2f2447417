"""The four-corner SLA car (models/sla-car.yaml): four 1-DOF SLA subsystems on one
heave-only chassis, by synthesis (formulations A and B, B also compiled) against the ordinary
Cartesian model of the same file."""
import numpy as np
import pytest

import rtmbs
from rtmbs.errors import SolverError
from rtmbs.model import load_model_file
from rtmbs.models import model_file
from rtmbs.synthesis import SynthesisSystem, subsystem_model
from _models.synthesis import assert_bodies_match, cartesian_reference, compiled

CORNERS = ("fl", "fr", "rl", "rr")


def car_model():
    return load_model_file(model_file("sla-car"))


@pytest.fixture(scope="module")
def cart():
    return compiled(car_model())


def random_car_states(rng, k):
    """k random synthesis states: chassis height, the four LCA angles and their rates."""
    return [(np.array([rng.uniform(-0.05, 0.05), *rng.uniform(-0.12, 0.12, 4)]),
             rng.normal(size=5) * [0.5, 3.0, 3.0, 3.0, 3.0]) for _ in range(k)]


@pytest.fixture(scope="module", params=[("relative-cartesian", False), ("relative-joint", False),
                                        ("relative-joint", True)], ids=["A", "B", "B-compiled"])
def syn(request):
    form, comp = request.param
    return SynthesisSystem(subsystem_model(car_model(), "chassis", dof=1), formulation=form, compiled=comp)


def test_sizes(cart, syn):
    assert (cart.n, cart.m) == (91, 86)
    assert (syn.n, syn.m) == (5, 0)
    assert syn.coordinate_names == ["chassis.s"] + [f"lca_pivot_{c}.theta" for c in CORNERS]
    assert [s.bodies for s in syn.sm.subsystems] == [[f"{b}_{c}" for b in ("lower_arm", "upper_arm", "knuckle")]
                                                    for c in CORNERS]


def test_design_position_is_static_equilibrium(syn):
    """Each corner carries a quarter of the 1250 kg chassis as the quarter car does: at rest the
    accelerations are small (the preload was rounded), and mirrored corners are mirror images."""
    st = syn.initial_state()
    qdd = syn.accelerations(0.0, st.q, st.qd)
    assert np.abs(qdd[0]) < 1e-5 and np.abs(qdd[1:]).max() < 1e-4
    assert abs(qdd[1] + qdd[2]) < 1e-9 and abs(qdd[3] + qdd[4]) < 1e-9   # θ's axis is mirrored


@pytest.mark.parametrize("t", [0.3, 0.6, 1.6])     # at rest, front axle on the bump, rear axle on it
def test_accelerations_equal_cartesian(cart, syn, t):
    py = syn if not syn.compiled else SynthesisSystem(syn.sm, formulation=syn.formulation)
    for q, qd in random_car_states(np.random.default_rng(17), 3):
        ref = cartesian_reference(py, cart, t, q, qd)  # the position converged first
        for _ in range(8):                             # the compiled warm start too
            got_qdd = syn.accelerations(t, q, qd)
        assert_bodies_match(py.body_accelerations(t, q, qd), ref)
        # the chassis heave of the synthesis path (eq. 1) itself, compiled or not
        zdd = ref["chassis"][0][2]
        assert abs(got_qdd[0] - zdd) < 1e-9 * max(1.0, abs(zdd))


def test_effective_mass_spd(syn):
    if syn.compiled:
        pytest.skip("terms() are the numpy path")
    for q, qd in random_car_states(np.random.default_rng(23), 3):
        tm = syn.terms(0.0, q, qd, iterations=30)
        total = tm["Mhat"]                          # M̂0 + Σ M̌i of eq. 1
        assert np.abs(total - total.T).max() < 1e-12 * np.abs(total).max()
        assert np.linalg.eigvalsh(total).min() > 0
        for d, sub in zip(tm["subs"], syn.sm.subsystems):
            Mc = d["Mc"]
            assert np.abs(Mc - Mc.T).max() < 1e-12 * np.abs(Mc).max()
            assert np.linalg.eigvalsh(Mc).min() > 0
            assert np.linalg.eigvalsh(d["MEE"] - Mc).min() > -1e-12
            assert 0 < Mc[2, 2] < sub.mass.sum()


@pytest.mark.slow  # fast: the accelerations on the bump (the quarter car's run: the subsystem study)
def test_bump_run_agrees_with_cartesian(cart):
    """Both axles over the bump: the compiled synthesis car under ab3 (h = 1 ms) and the
    Cartesian car under the reference solver give the same chassis heave."""
    syn = SynthesisSystem(subsystem_model(car_model(), "chassis", dof=1), formulation="relative-joint",
                          compiled=True)
    res = rtmbs.simulate(syn, "ab3", t_end=1.8, h=1e-3, accelerations=False)
    ref = rtmbs.simulate(cart, "reference", t_end=1.8, h=1e-3, accelerations=False)
    z, zr = res.outputs["chassis.z"], ref.outputs["chassis.z"]
    assert np.ptp(zr[res.t > 1.45]) > 0.01            # the rear axle's bump moved the chassis too
    assert np.abs(z - zr).max() < 1e-5                  # m (the quarter car: 1.0e-6 m)


# -- the free base: the chassis with its 6 DOF (no joint to the ground) --------------------------

def free_car_model():
    m = car_model()
    m.joints = [j for j in m.joints if j.name != "chassis_slide"]
    return m


@pytest.fixture(scope="module")
def free_pair():
    m = free_car_model()
    return compiled(m), SynthesisSystem(subsystem_model(m, "chassis", dof=1), formulation="relative-joint")


def random_free_states(rng, k):
    """Chassis translation, Bryant angles, four LCA angles, and their rates."""
    return [(np.concatenate([rng.uniform(-0.05, 0.05, 3), rng.uniform(-0.15, 0.15, 3), rng.uniform(-0.12, 0.12, 4)]),
             rng.normal(size=10) * np.r_[[0.5] * 3, [1.0] * 3, [3.0] * 4]) for _ in range(k)]


def test_free_base_sizes(free_pair):
    cart, syn = free_pair
    assert (cart.n, cart.m) == (91, 81)
    assert (syn.n, syn.m) == (10, 0)
    assert syn.coordinate_names[:6] == [f"chassis.{c}" for c in ("x", "y", "z", "rx", "ry", "rz")]


@pytest.mark.parametrize("t", [0.3, 0.6])
def test_free_base_accelerations_equal_cartesian(free_pair, t):
    """The rotating base (ω0 ≠ 0, ω̇0 in Ẏ0 of eq. 1 through the Bryant-angle map T, Ṫq̇):
    every body's r̈ and ω̇, the chassis' included, equal the Cartesian model's."""
    cart, syn = free_pair
    for q, qd in random_free_states(np.random.default_rng(29), 3):
        ref = cartesian_reference(syn, cart, t, q, qd)
        assert np.abs(ref["chassis"][1]).max() > 1.0            # the chassis does rotate
        assert_bodies_match(syn.body_accelerations(t, q, qd), ref)
        M, Q = syn.mass(q), syn.forces(q, qd, t)                  # the protocol's M q̈ = Q
        qdd = syn.accelerations(t, q, qd)
        assert np.abs(np.linalg.solve(M, Q) - qdd).max() < 1e-10 * np.abs(qdd).max()


def test_free_base_effective_mass_spd(free_pair):
    _, syn = free_pair
    for q, qd in random_free_states(np.random.default_rng(31), 2):
        tm = syn.terms(0.6, q, qd, iterations=30)
        total = tm["Mhat"]
        assert np.abs(total - total.T).max() < 1e-12 * np.abs(total).max()
        assert np.linalg.eigvalsh(total).min() > 0
        for d in tm["subs"]:
            assert np.linalg.eigvalsh(d["Mc"]).min() > 0


def test_free_base_limits():
    sm = subsystem_model(free_car_model(), "chassis", dof=1)
    with pytest.raises(SolverError, match="formulation: a free base .* 'relative-joint' only, not "
                                          "'relative-cartesian'"):
        SynthesisSystem(sm, formulation="relative-cartesian")


def test_free_base_compiled_equals_numpy(free_pair):
    """The stacked C provider (formulation B) with the free base (T, Ṫq̇, ω0 inside) gives the numpy path's
    M, Q and q̈."""
    _, py = free_pair
    nb = SynthesisSystem(py.sm, formulation="relative-joint", compiled=True)
    for q, qd in random_free_states(np.random.default_rng(37), 3):
        for _ in range(8):
            nb.accelerations(0.6, q, qd)
        py.terms(0.6, q, qd, iterations=30)
        ref = py.accelerations(0.6, q, qd)
        assert np.abs(nb.accelerations(0.6, q, qd) - ref).max() < 1e-10 * np.abs(ref).max()
        M = py.mass(q)
        assert np.abs(nb.mass(q) - M).max() < 1e-12 * np.abs(M).max()
        Q = py.forces(q, qd, 0.6)
        assert np.abs(nb.forces(q, qd, 0.6) - Q).max() < 1e-10 * np.abs(Q).max()


@pytest.mark.slow  # fast: the free base's accelerations against the Cartesian car's
def test_free_base_bump_run_agrees_with_cartesian(free_pair):
    """The front axle over the bump with the chassis free: heave and pitch of the synthesis car
    (B, numpy, ab3 at 1 ms) follow the free Cartesian car's reference run."""
    cart, _ = free_pair
    syn = SynthesisSystem(subsystem_model(free_car_model(), "chassis", dof=1), formulation="relative-joint")
    res = rtmbs.simulate(syn, "ab3", t_end=0.9, h=1e-3, accelerations=False)
    ref = rtmbs.simulate(cart, "reference", t_end=0.9, h=1e-3, accelerations=False)
    z, zr = res.outputs["chassis.z"], ref.outputs["chassis.z"]
    assert np.ptp(zr) > 0.01                               # the bump lifted the chassis
    assert np.abs(z - zr).max() < 1e-5                     # m
    # pitch β (Bryant y angle) against the Cartesian chassis: A[0, 2] = sin β = 2(e1 e3 + e0 e2)
    a = cart.body_qadr[cart.body_names.index("chassis")]
    e = ref.q[:, a + 3:a + 7]
    beta_ref = np.arcsin(2 * (e[:, 1] * e[:, 3] + e[:, 0] * e[:, 2]))
    assert np.abs(beta_ref).max() > 1e-3                   # the front axle alone pitches the chassis
    assert np.abs(res.q[:, 4] - beta_ref).max() < 1e-3 * np.abs(beta_ref).max()
