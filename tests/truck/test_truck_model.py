"""The planar truck (Truck benchmark §2): Jacobians vs finite differences, constraint terms, statics,
linearisation, energy conservation."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from rtmbs.errors import ModelError
from rtmbs.models.truck import TRUCK_MODELS, TruckParams, road_profile, truck
from rtmbs.protocol import EVAL_Q

RNG = np.random.default_rng(1)


def _perturbed(sys, scale=0.02):
    q = sys.q_eq + scale * RNG.standard_normal(sys.n)
    qd = 0.5 * RNG.standard_normal(sys.n)
    return q, qd


def _fd_jac(fun, x, eps=1e-6):
    f0 = fun(x)
    J = np.zeros((f0.size, x.size))
    for j in range(x.size):
        e = np.zeros_like(x)
        e[j] = eps * max(1.0, abs(x[j]))
        J[:, j] = (fun(x + e) - fun(x - e)) / (2 * e[j])
    return J


@pytest.mark.parametrize("variant", ["ode", "dae", "linear"])
def test_sizes_names_and_registry(variant):
    sys = TRUCK_MODELS[f"truck-{variant}"]()
    assert sys.n == 9 and sys.m == (2 if variant == "dae" else 0)
    assert len(sys.coordinate_names) == 9
    M = sys.mass(sys.q_eq)
    assert np.allclose(M, np.diag(np.diag(M))) and np.all(np.diag(M) > 0)
    out = np.zeros(len(sys.output_names))
    sys.outputs(0.0, sys.q_eq, np.zeros(9), out)
    assert out[0] == sys.q_eq[2]


@pytest.mark.parametrize("variant", ["ode", "dae", "linear"])
def test_force_jacobians_match_finite_differences(variant):
    sys = truck(variant, bump_times=(0.0,))
    q, qd = _perturbed(sys)
    t = 0.3       # front wheel on the bump: the road terms are active
    Jq, Jqd = sys.force_jacobians(q, qd, t)
    Jq_fd = _fd_jac(lambda x: sys.forces(x, qd, t), q)
    Jqd_fd = _fd_jac(lambda x: sys.forces(q, x, t), qd)
    scale = np.abs(Jq).max()
    assert np.abs(Jq - Jq_fd).max() < 1e-6 * scale
    assert np.abs(Jqd - Jqd_fd).max() < 1e-6 * np.abs(Jqd).max()


def test_stiff_jacobian_leaves_out_only_the_cabin_mounts():
    sys = truck("ode")
    q, qd = _perturbed(sys)
    Jq, Jqd = sys.force_jacobians(q, qd, 0.0)
    Js, Jsd = sys.force_jacobians(q, qd, 0.0, stiff_only=True)
    diff = np.abs(Jq - Js) + np.abs(Jqd - Jsd)
    rows = set(np.nonzero(diff.max(axis=1) > 0)[0])
    cols = set(np.nonzero(diff.max(axis=0) > 0)[0])
    assert rows == cols == {2, 3, 4, 5}            # chassis and cabin coordinates
    # the damping part left out is the two cabin dampers: −d Σ ∇s∇sᵀ, trace −d Σ |∇s|² with
    # |∇s|² ≈ 1 + x_chassis² + 1 + x_cabin² (lever arms at small angles)
    p = sys.params
    lev = sum(2 + x**2 + (x - p.x_cabin) ** 2 for x in p.x_cabin_mounts)
    assert np.trace(Jqd - Jsd) == pytest.approx(-p.d_cabin * lev, rel=0.02)


def test_constraint_jacobian_and_gamma():
    sys = truck("dae")
    q, qd = _perturbed(sys, 0.2)
    G = sys.constraint_jacobian(q)
    assert G.shape == (2, 9)
    G_fd = _fd_jac(lambda x: sys.constraints(x), q)
    assert np.abs(G - G_fd).max() < 1e-8
    # along q(s) = q + s·qd (q̈ = 0): d²g/ds² = (G q̇)_q q̇ = −γ
    eps = 1e-4
    g2 = (sys.constraints(q + eps * qd) - 2 * sys.constraints(q)
          + sys.constraints(q - eps * qd)) / eps**2
    gam = sys.gamma(q, qd)
    assert np.abs(gam).max() > 1e-2
    assert np.allclose(-g2, gam, rtol=1e-5, atol=1e-6)
    assert np.array_equal(sys.constraint_time_derivative(q), np.zeros(2))


def test_static_equilibrium():
    ode = truck("ode")
    W = 9.81 * ode.masses.sum()
    assert np.abs(ode.forces(ode.q_eq, np.zeros(9))).max() < 1e-9 * W
    dae = truck("dae")
    Q = dae.forces(dae.q_eq, np.zeros(9))
    G = dae.constraint_jacobian(dae.q_eq)
    assert np.abs(Q - G.T @ dae.lam_eq).max() < 1e-9 * W
    assert np.abs(dae.constraints(dae.q_eq)).max() < 1e-14
    # the hinge carries the rear part of the load's weight (λ₂ < 0 pulls down on the load)
    assert 0.3 * 9.81 * dae.params.m_load < -dae.lam_eq[1] < 0.7 * 9.81 * dae.params.m_load
    # the preloads are set for the design load: extra payload settles the truck lower
    for variant in ("ode", "dae"):
        heavy = truck(variant, m_payload_extra=3000.0)
        r = heavy.forces(heavy.q_eq, np.zeros(9))
        if variant == "dae":
            r = r - heavy.constraint_jacobian(heavy.q_eq).T @ heavy.lam_eq
        assert np.abs(r).max() < 1e-9 * W
        dz = heavy.q_eq - heavy.q_design
        assert dz[7] < -0.01 and dz[2] < -0.01 and dz[0] < -0.005   # load, chassis, rear wheel


def test_linear_model_is_the_jacobian_of_the_ode_at_equilibrium():
    ode, lin = truck("ode"), truck("linear")
    z = np.zeros(9)
    K_fd = -_fd_jac(lambda x: ode.forces(x, z), ode.q_eq)
    D_fd = -_fd_jac(lambda x: ode.forces(ode.q_eq, x), z)
    assert np.abs(lin.K - K_fd).max() < 1e-6 * np.abs(lin.K).max()
    assert np.abs(lin.D - D_fd).max() < 1e-6 * np.abs(lin.D).max()
    # its forces agree with the ODE's to second order near equilibrium (on the bump too)
    dq = 1e-4 * RNG.standard_normal(9)
    dv = 1e-4 * RNG.standard_normal(9)
    for t in (0.0, 10.2):
        e1 = np.abs(ode.forces(ode.q_eq + dq, dv, t) - lin.forces(lin.q_eq + dq, dv, t)).max()
        e2 = np.abs(ode.forces(ode.q_eq + dq / 10, dv / 10, t)
                    - lin.forces(lin.q_eq + dq / 10, dv / 10, t)).max()
        assert 60 < e1 / e2 < 140


def test_potential_gradient_is_the_conservative_force():
    sys = truck("ode", dampers=False, road="flat")
    q, _ = _perturbed(sys, 0.01)
    z = np.zeros(9)
    grad = _fd_jac(lambda x: np.array([sys.energy(x, z)]), q)[0]
    Q = sys.forces(q, z)
    assert np.abs(Q + grad).max() < 1e-6 * np.abs(Q).max()


def test_energy_is_conserved_without_dampers_on_a_flat_road():
    sys = truck("ode", dampers=False, road="flat")
    ws = sys.workspace()
    minv = 1.0 / sys.masses

    def f(t, y):
        sys.evaluate(t, y[:9], y[9:], ws, EVAL_Q)
        return np.concatenate([y[9:], ws.Q * minv])

    q0 = sys.q_eq.copy()
    v0 = np.array([0.3, -0.2, 0.1, 0.05, 0.2, -0.1, 0.01, 0.05, 0.02])
    sol = solve_ivp(f, (0, 1.0), np.concatenate([q0, v0]), method="DOP853", rtol=1e-12,
                    atol=1e-12, t_eval=np.linspace(0, 1, 21))
    E = np.array([sys.energy(y[:9], y[9:]) for y in sol.y.T])
    T0 = 0.5 * np.sum(sys.masses * v0**2)
    assert np.abs(E - E[0]).max() < 1e-8 * T0
    # the motion is not trivial: kinetic energy exchanged with the springs
    T = np.array([0.5 * np.sum(sys.masses * y[9:] ** 2) for y in sol.y.T])
    assert T.min() < 0.9 * T0


def test_road_has_three_bumps_of_the_given_height():
    p = TruckParams()
    t = np.linspace(0, 100, 200001)
    u = road_profile(p, t)
    assert u[:, 1].max() == pytest.approx(0.2, abs=1e-6)
    starts = t[1:][(u[1:, 1] > 0) & (u[:-1, 1] == 0)]
    assert np.allclose(starts, p.bump_times, atol=1e-3)
    delay = (p.x_front - p.x_rear) / p.speed
    starts_r = t[1:][(u[1:, 0] > 0) & (u[:-1, 0] == 0)]
    assert np.allclose(starts_r, np.array(p.bump_times) + delay, atol=1e-3)


def test_errors_name_the_item():
    with pytest.raises(ModelError, match="unknown variant 'odee'.*did you mean 'ode'"):
        truck("odee")
    with pytest.raises(ModelError, match="truck.k_tyer: unknown parameter.*k_tyre"):
        truck("ode", k_tyer=1.0)
    with pytest.raises(ModelError, match="unknown road 'bumpy'"):
        truck("ode", road="bumpy")
