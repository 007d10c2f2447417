"""Every kernel output against an independent numerical derivative (STYLE.md: perturb Euler
parameters on the unit sphere)."""
from __future__ import annotations

import numpy as np
import pytest
from _models.sphere import on_sphere as _normalise, tangent as _tangent

from rtmbs.protocol import EVAL_ALL, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q
from rtmbs.system import compile_model
from rtmbs.kernels.codes import ROT_EP

from _models.random_model import random_model


@pytest.fixture(scope="module", params=["mixed", "euler-parameters", "euler-angles-zxz"])
def system(request):
    return compile_model(random_model(seed=3, rotation=request.param))


def _state(sys, seed):
    rng = np.random.default_rng(seed)
    q = _normalise(sys, sys._q0 + 0.05 * rng.standard_normal(sys.n))
    qd = _tangent(sys, q, rng.standard_normal(sys.n))
    return q, qd, 0.37


def test_sizes_match_joint_equation_counts(system):
    # 8 joint types (3+5+4+5+4+6+1+3) + 2 motions + 1 distance + one row per Euler-parameter body
    nep = int((system.body_rtype[:-1] == ROT_EP).sum())
    assert system.m == 31 + 2 + 1 + nep
    assert system.n == sum(7 if r == ROT_EP else 6 for r in system.body_rtype[:-1])


@pytest.mark.parametrize("seed", [1, 2])
def test_constraint_jacobian_matches_finite_differences(system, seed):
    q, qd, t = _state(system, seed)
    rng = np.random.default_rng(seed + 10)
    J = system.constraint_jacobian(q, t)
    for _ in range(6):
        dq = _tangent(system, q, rng.standard_normal(system.n))
        eps = 1e-6
        fd = (system.constraints(q + eps * dq, t) - system.constraints(q - eps * dq, t)) / (2 * eps)
        np.testing.assert_allclose(J @ dq, fd, rtol=1e-6, atol=1e-7)
    # Φt against the time difference
    eps = 1e-6
    fd_t = (system.constraints(q, t + eps) - system.constraints(q, t - eps)) / (2 * eps)
    np.testing.assert_allclose(system.constraint_time_derivative(q, t), fd_t, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("scale", [1.0, 1.07, 0.9])
def test_constraint_jacobian_is_exact_in_every_direction(system, scale):
    """Φq against central differences along arbitrary directions, radial ones (δp ∥ p) included,
    at Euler parameters on and off the unit sphere: a projection's Newton step needs Φq exact
    along p too (a check on the sphere only hid that Φ changed along p)."""
    q, _, t = _state(system, 5)
    rng = np.random.default_rng(7)
    for b in range(system.nbody):
        if system.body_rtype[b] == ROT_EP:
            a = system.body_qadr[b] + 3
            q[a:a + 4] *= scale
    J = system.constraint_jacobian(q, t)
    radial = np.zeros(system.n)
    for b in range(system.nbody):
        if system.body_rtype[b] == ROT_EP:
            a = system.body_qadr[b] + 3
            radial[a:a + 4] = q[a:a + 4]
    directions = [rng.standard_normal(system.n) for _ in range(6)] + [radial]
    for dq in directions:
        eps = 1e-6
        fd = (system.constraints(q + eps * dq, t) - system.constraints(q - eps * dq, t)) / (2 * eps)
        np.testing.assert_allclose(J @ dq, fd, rtol=1e-6, atol=1e-7)


def _curve(system, q0, qd0, qdd0, s):
    """A trajectory through q0 that stays on the unit sphere for Euler parameters."""
    return _normalise(system, q0 + s * qd0 + 0.5 * s * s * qdd0)


@pytest.mark.parametrize("seed", [1, 2])
def test_gamma_matches_second_time_derivative(system, seed):
    q0, qd0, t0 = _state(system, seed)
    rng = np.random.default_rng(seed + 20)
    qdd0 = rng.standard_normal(system.n)
    e = 1e-4
    qs = [_curve(system, q0, qd0, qdd0, k * e) for k in (-2, -1, 0, 1, 2)]
    # velocity and acceleration of the curve at s = 0 (4th-order central differences)
    qd = (-qs[4] + 8 * qs[3] - 8 * qs[1] + qs[0]) / (12 * e)
    qdd = (-qs[4] + 16 * qs[3] - 30 * qs[2] + 16 * qs[1] - qs[0]) / (12 * e * e)
    ph = [system.constraints(qs[k], t0 + (k - 2) * e) for k in range(5)]
    phidd = (-ph[4] + 16 * ph[3] - 30 * ph[2] + 16 * ph[1] - ph[0]) / (12 * e * e)
    J = system.constraint_jacobian(q0, t0)
    gamma = system.gamma(q0, qd, t0)
    np.testing.assert_allclose(J @ qdd - phidd, gamma, rtol=2e-4, atol=2e-5 * max(1, np.abs(gamma).max()))


@pytest.mark.parametrize("seed", [1, 2])
def test_force_jacobians_match_finite_differences(system, seed):
    q, qd, t = _state(system, seed)
    rng = np.random.default_rng(seed + 30)
    Jq, Jqd = system.force_jacobians(q, qd, t, stiff_only=False)
    scale = max(1.0, np.abs(system.forces(q, qd, t)).max())
    for _ in range(6):
        dq = _tangent(system, q, rng.standard_normal(system.n))
        eps = 1e-6
        fd = (system.forces(q + eps * dq, qd, t) - system.forces(q - eps * dq, qd, t)) / (2 * eps)
        np.testing.assert_allclose(Jq @ dq, fd, rtol=1e-5, atol=2e-6 * scale)
        dv = rng.standard_normal(system.n)
        fdv = (system.forces(q, qd + eps * dv, t) - system.forces(q, qd - eps * dv, t)) / (2 * eps)
        np.testing.assert_allclose(Jqd @ dv, fdv, rtol=1e-5, atol=2e-6 * scale)


def test_stiff_jacobians_are_those_of_the_stiff_elements(system):
    q, qd, t = _state(system, 5)
    Jq_all, _ = system.force_jacobians(q, qd, t, stiff_only=False)
    Jq_s, Jqd_s = system.force_jacobians(q, qd, t, stiff_only=True)
    # the same model with only the stiff elements, minus its inertia forces, differentiated numerically
    assert np.abs(Jq_s).max() > 0
    assert not np.allclose(Jq_s, Jq_all)
    model = system.model.model_copy(deep=True)
    model.forces = [f for f in model.forces if f.stiff]
    stiff = compile_model(model)
    eps = 1e-6
    rng = np.random.default_rng(7)
    dq = _tangent(stiff, q, rng.standard_normal(stiff.n))
    inertia_only = compile_model(model.model_copy(update={"forces": []}))
    fd = ((stiff.forces(q + eps * dq, qd, t) - inertia_only.forces(q + eps * dq, qd, t))
          - (stiff.forces(q - eps * dq, qd, t) - inertia_only.forces(q - eps * dq, qd, t))) / (2 * eps)
    np.testing.assert_allclose(Jq_s @ dq, fd, rtol=1e-5, atol=1e-5 * np.abs(fd).max())


def test_mass_matrix_gives_kinetic_energy(system):
    q, qd, _ = _state(system, 8)
    M = system.mass(q)
    np.testing.assert_allclose(M, M.T, atol=1e-12)
    # independent: T = Σ ½ m |ṙ|² + ½ ωᵀ J_g ω with ω̃ = Ȧ Aᵀ from a numerical derivative of A
    from scipy.spatial.transform import Rotation

    T = 0.0
    for b in range(system.nbody):
        a = system.body_qadr[b]
        nr = 4 if system.body_rtype[b] == ROT_EP else 3
        m = system.arrays.body_mass[b]
        Jl = system.arrays.body_inertia[b]
        T += 0.5 * m * qd[a:a + 3] @ qd[a:a + 3]

        def A_of(s):
            p = q[a + 3:a + 3 + nr] + s * qd[a + 3:a + 3 + nr]
            if nr == 4:  # Euler parameters (e0, e): scipy's quaternion is (x, y, z, w)
                return Rotation.from_quat(np.r_[p[1:], p[0]]).as_matrix()
            return Rotation.from_euler("ZXZ", p).as_matrix()  # intrinsic z-x-z: Rz Rx Rz

        e = 1e-6
        Ad = (A_of(e) - A_of(-e)) / (2 * e)
        A = A_of(0.0)
        W = Ad @ A.T
        w = np.array([W[2, 1], W[0, 2], W[1, 0]])
        T += 0.5 * w @ (A @ Jl @ A.T) @ w
    assert 0.5 * qd @ M @ qd == pytest.approx(T, rel=1e-7)


def test_evaluate_writes_only_what_is_asked(system):
    q, qd, t = _state(system, 9)
    ws = system.workspace()
    ws.buf[:] = 7.0
    system.evaluate(t, q, qd, ws, EVAL_PHI)
    assert np.all(ws.M == 7.0) and np.all(ws.Q == 7.0) and np.all(ws.Jq == 7.0)
    ws = system.workspace()
    system.evaluate(t, q, qd, ws, EVAL_ALL)
    full = ws.buf.copy()
    ws2 = system.workspace()
    for flag in (EVAL_M, EVAL_Q, EVAL_PHIQ):
        system.evaluate(t, q, qd, ws2, flag)
    np.testing.assert_array_equal(ws2.M, ws.M)
    np.testing.assert_array_equal(ws2.Q, ws.Q)
    np.testing.assert_array_equal(ws2.phiq, ws.phiq)
    system.evaluate(t, q, qd, ws, EVAL_ALL)  # repeated calls: no hidden state
    np.testing.assert_array_equal(ws.buf, full)


@pytest.mark.parametrize("flags", [EVAL_PHI, EVAL_PHIQ, EVAL_PHI | EVAL_PHIQ])
def test_position_level_evaluations_equal_the_full_one(system, flags):
    """Φ and Φq asked for alone (a step's predictor and projection evaluations: no velocities,
    no bias, D only with Φq) are those of a full evaluation bit for bit, also when the data
    still hold another state's velocities and biases."""
    _assert_position_level_evaluation(system, flags, *_state(system, 5), _state(system, 6))


def _assert_position_level_evaluation(system, flags, q, qd, t, other):
    full = system.workspace()
    system.evaluate(t, q, qd, full, EVAL_ALL)
    q2, qd2, _ = other
    system.evaluate(t + 0.1, q2, 3.0 * qd2, system.workspace(), EVAL_ALL)  # other data left behind
    ws = system.workspace()
    system.evaluate(t, q, qd, ws, flags)
    if flags & EVAL_PHI:
        np.testing.assert_array_equal(ws.phi, full.phi)
    if flags & EVAL_PHIQ:
        pat = system.phiq_pattern
        np.testing.assert_array_equal(ws.phiq[pat], full.phiq[pat])


def test_position_level_evaluations_of_couplers_equal_the_full_one():
    """As above on the sedan: its steering coupler (rotation and translation terms)."""
    from rtmbs.models import load_model

    s = load_model("sedan")
    rng = np.random.default_rng(2)
    q0 = s.initial_state().q
    q, q2 = (_normalise(s, q0 + 0.01 * rng.standard_normal(s.n)) for _ in range(2))
    qd, qd2 = (_tangent(s, q, rng.standard_normal(s.n)) for _ in range(2))
    for flags in (EVAL_PHI, EVAL_PHI | EVAL_PHIQ):
        _assert_position_level_evaluation(s, flags, q, qd, 0.2, (q2, qd2, 0.0))


def test_bushing_outputs_are_the_local_force_and_torque():
    from rtmbs.model import Model

    m = Model(name="b", gravity=(0, 0, 0))
    m.add_body("a", 1.0, inertia=[0.1, 0.1, 0.1], position=(0.01, -0.02, 0.03),
               orientation={"euler_zxz": [0.02, 0.01, -0.03]}, markers={"p": [0, 0, 0]})
    m.add_marker("ground", "o", (0, 0, 0), orientation={"z_axis": (0, 1, 0)})
    m.add_force("bush", "bushing", marker_i="ground.o", marker_j="a.p", stiffness=[1e3, 2e3, 3e3],
                rotational_stiffness=[10, 20, 30], preload_force=[1, 2, 3])
    s = compile_model(m)
    q = s._q0
    out = np.zeros(len(s.output_names))
    s.outputs(0.0, q, np.zeros(s.n), out)
    names = list(s.output_names)
    F = np.array([out[names.index(f"bush.F{c}")] for c in "xyz"])
    T = np.array([out[names.index(f"bush.T{c}")] for c in "xyz"])
    C = s.markers["ground.o"].C
    u = C.T @ np.array([0.01, -0.02, 0.03])
    np.testing.assert_allclose(F, -np.array([1e3, 2e3, 3e3]) * u + [1, 2, 3], rtol=1e-12)
    # the generalised force on the body's translation is the global force
    np.testing.assert_allclose(s.forces(q, np.zeros(s.n))[:3], C @ F, rtol=1e-12)
    R = C.T @ s.data.kin_A[0]
    theta = 0.5 * np.array([R[2, 1] - R[1, 2], R[0, 2] - R[2, 0], R[1, 0] - R[0, 1]])
    np.testing.assert_allclose(T, -np.array([10, 20, 30]) * theta, rtol=1e-10)


@pytest.mark.parametrize("flags", [EVAL_ALL, EVAL_M | EVAL_Q | EVAL_JAC_STIFF])
def test_a_reused_workspace_gives_the_same_values(system, flags):
    """evaluate writes every entry it owns: a workspace full of garbage from earlier use (or a
    caller's scaling of Jq in place) must not leak into the result."""
    q, qd, t = _state(system, 11)
    clean = system.workspace()
    system.evaluate(t, q, qd, clean, flags)
    dirty = system.workspace()
    dirty.buf[:] = np.random.default_rng(3).standard_normal(dirty.buf.size) * 1e3
    system.evaluate(t, q, qd, dirty, flags)
    names = ["M", "Q", "Jq", "Jqd"]
    patterns = {"M": system.mass_pattern, "Jq": system.jacobian_pattern(stiff_only=flags != EVAL_ALL),
                "Jqd": system.jacobian_pattern(stiff_only=flags != EVAL_ALL)}
    for nm in names:
        a, b = getattr(clean, nm), getattr(dirty, nm)
        if nm in patterns:  # outside its fixed pattern a matrix is never written (zero when fresh)
            a, b = a[patterns[nm]], b[patterns[nm]]
        np.testing.assert_array_equal(b, a, err_msg=nm)
    if flags == EVAL_ALL:
        for nm in ("phi", "gamma"):
            np.testing.assert_array_equal(getattr(dirty, nm), getattr(clean, nm), err_msg=nm)
        np.testing.assert_array_equal(dirty.phiq[system.phiq_pattern], clean.phiq[system.phiq_pattern])


def test_named_outputs_read_the_state_and_the_element_values():
    """Each named output comes from its own source (``output_index`` into the data buffer): a
    body's x, y, z and vx, vy, vz are its coordinates and velocities in q, q̇; ``<element>.force``
    and the tyre and bushing columns are the element's row of ``force_out_all``."""
    from rtmbs.models import load_model

    s = load_model("multilink-bushings")
    rng = np.random.default_rng(5)
    q = s.initial_state().q.copy()
    qd = 0.1 * rng.standard_normal(s.n)
    out = np.zeros(len(s.output_names))
    s.outputs(0.01, q, qd, out)
    names = list(s.output_names)
    for b, body in enumerate(s.body_names):
        a = s.body_qadr[b]
        np.testing.assert_array_equal([out[names.index(f"{body}.{c}")] for c in "xyz"], q[a:a + 3])
        np.testing.assert_array_equal([out[names.index(f"{body}.v{c}")] for c in "xyz"],
                                      qd[a:a + 3])
    for k, f in enumerate(s.force_names):
        assert out[names.index(f"{f}.force")] == s.force_out[k]
    k = s.force_names.index("tyre")
    assert out[names.index("tyre.Fz")] > 1000.0  # the wheel load (N)
    for j, c in enumerate(("Fx", "Fy", "Fz")):
        assert out[names.index(f"tyre.{c}")] == s.force_out_all[k, 1 + j]
