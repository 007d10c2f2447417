"""The peer mechanisms (docs/benchmarks/peers.md) as built-in models: every number of
the document, consistency of the initial state, energy conservation by the reference solver, and
the stored reference crank angle against an independent minimal-coordinate computation."""
import numpy as np
import pytest
from scipy.integrate import solve_ivp

from rtmbs import simulate
from rtmbs.analysis.sizes import sizes
from rtmbs.errors import ModelError
from rtmbs.models import load_model
from rtmbs.models import peers

G = 9.81
TH0 = np.radians(200.0)
# the document's four-bar, computed here independently of the YAML file
A_PT, D_PT = np.zeros(3), np.array([0.30, 0.0, 0.0])
B_PT = 0.10 * np.array([np.cos(TH0), 0.0, np.sin(TH0)])


def _circle_intersections(P, rp, Q, rq):
    """Both intersections of the circles (P, rp), (Q, rq) in the x-z plane."""
    p, q = P[[0, 2]], Q[[0, 2]]
    d = np.linalg.norm(q - p)
    a = (rp ** 2 - rq ** 2 + d ** 2) / (2 * d)
    h = np.sqrt(rp ** 2 - a ** 2)
    e = (q - p) / d
    n = np.array([-e[1], e[0]])
    return [np.array([x[0], 0.0, x[1]]) for x in (p + a * e + h * n, p + a * e - h * n)]


C_PT = max(_circle_intersections(B_PT, 0.30, D_PT, 0.25), key=lambda c: c[2])


def _rod_inertia(m, L, r, P, Q):
    u = (Q - P) / np.linalg.norm(Q - P)
    return m * (3 * r ** 2 + L ** 2) / 12 * (np.eye(3) - np.outer(u, u)) + m * r ** 2 / 2 * np.outer(u, u)


@pytest.fixture(scope="module")
def four_bar():
    return load_model("peer-four-bar")


@pytest.fixture(scope="module")
def chain():
    return load_model("peer-chain")


@pytest.fixture(scope="module")
def quarter_car():
    return load_model("peer-quarter-car")


def _body_mass_and_inertia(s, q, name):
    """Mass and world-axes inertia tensor of a body recovered from the compiled mass matrix:
    kinetic energies of unit translations and of rotations ω = e_i, e_i + e_j (polarisation)."""
    b = s.body_names.index(name)
    a = s.body_qadr[b]
    e0, e1, e2, e3 = q[a + 3:a + 7]
    E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])

    def twice_ke(v=np.zeros(3), w=np.zeros(3)):
        qd = np.zeros(s.n)
        qd[a:a + 3] = v
        qd[a + 3:a + 7] = 0.5 * E.T @ w  # ṗ = ½ Eᵀ ω (global ω)
        return 2 * s.kinetic_energy(q, qd)

    mass = [twice_ke(v=u) for u in np.eye(3)]
    d = [twice_ke(w=u) for u in np.eye(3)]
    I = np.diag(d)
    for i in range(3):
        for j in range(i + 1, 3):
            I[i, j] = I[j, i] = 0.5 * (twice_ke(w=np.eye(3)[i] + np.eye(3)[j]) - d[i] - d[j])
    return mass, I


@pytest.mark.parametrize("name, expected", [
    ("peer-four-bar", dict(n=21, m=20, rank=20, f=1)),
    ("peer-chain", dict(n=70, m=40, rank=40, f=30)),
    ("peer-quarter-car", dict(n=42, m=38, rank=38, f=4)),
])
def test_sizes(name, expected):
    assert sizes(load_model(name)) == expected


def test_four_bar_geometry_and_inertias(four_bar):
    s = four_bar
    q = s.initial_state().q
    assert np.linalg.norm(C_PT - B_PT) == pytest.approx(0.30, abs=1e-15)
    assert np.linalg.norm(C_PT - D_PT) == pytest.approx(0.25, abs=1e-15)
    for ref, P in [("ground.A", A_PT), ("crank.A", A_PT), ("crank.B", B_PT), ("coupler.B", B_PT),
                   ("coupler.C", C_PT), ("rocker.C", C_PT), ("rocker.D", D_PT), ("ground.D", D_PT)]:
        np.testing.assert_allclose(peers.marker_position(s, q, ref), P, atol=1e-15, err_msg=ref)
    rods = {"crank": (0.2, 0.10, A_PT, B_PT), "coupler": (0.6, 0.30, B_PT, C_PT), "rocker": (0.5, 0.25, D_PT, C_PT)}
    for name, (m, L, P, Q) in rods.items():
        mass, I = _body_mass_and_inertia(s, q, name)
        np.testing.assert_allclose(mass, [m] * 3, rtol=1e-14, err_msg=name)
        np.testing.assert_allclose(I, _rod_inertia(m, L, 0.01, P, Q), rtol=1e-12, atol=1e-17, err_msg=name)
        np.testing.assert_allclose(q[s.body_qadr[s.body_names.index(name)]:][:3], (P + Q) / 2, atol=1e-15)
    assert np.degrees(peers.crank_angle(s, q[None])[0]) == pytest.approx(200.0 - 360.0, abs=1e-12)


def test_chain_geometry_inertias_and_rigid_rotation(chain):
    s = chain
    st = s.initial_state()
    w0 = np.array([0.0, 0.0, 2.0])
    names = list(s.output_names)
    out = np.empty(len(names))
    s.outputs(0.0, st.q, st.qd, out)
    I_rod = _rod_inertia(1.0, 0.20, 0.02, np.zeros(3), np.array([0.2, 0.0, 0.0]))
    eps = 1e-7
    for i in range(10):
        c = np.array([(i + 0.5) * 0.2, 0.0, 0.0])
        mass, I = _body_mass_and_inertia(s, st.q, f"rod{i}")
        np.testing.assert_allclose(mass, [1.0] * 3, rtol=1e-14)
        np.testing.assert_allclose(I, I_rod, rtol=1e-12, atol=1e-17)
        get = lambda k: np.array([out[names.index(f"rod{i}.{k}{c}")] for c in "xyz"])  # noqa: E731
        np.testing.assert_allclose(get(""), c, atol=1e-15)
        np.testing.assert_allclose(get("v"), np.cross(w0, c), atol=1e-14)
        np.testing.assert_allclose(get("w"), w0, atol=1e-14)
        for end, x in (("top", 0.2 * i), ("bottom", 0.2 * (i + 1))):
            r = np.array([x, 0.0, 0.0])
            np.testing.assert_allclose(peers.marker_position(s, st.q, f"rod{i}.{end}"), r, atol=1e-15)
            v = (peers.marker_position(s, st.q + eps * st.qd, f"rod{i}.{end}")
                 - peers.marker_position(s, st.q - eps * st.qd, f"rod{i}.{end}")) / (2 * eps)
            np.testing.assert_allclose(v, np.cross(w0, r), atol=1e-8)
    np.testing.assert_allclose(peers.tip_position(s, st.q), [2.0, 0.0, 0.0], atol=1e-15)


QC_POINTS = {  # the document's hard points
    "chassis.lower_pivot": (0, 0.30, 0.17), "chassis.upper_pivot": (0, 0.40, 0.48),
    "lower_arm.ball": (0, 0.70, 0.15), "upper_arm.ball": (0, 0.65, 0.50),
    "chassis.tie_inner": (-0.15, 0.32, 0.25), "knuckle.tie_outer": (-0.15, 0.68, 0.25),
    "wheel.hub": (0, 0.75, 0.30), "lower_arm.spring_lower": (0, 0.54, 0.158),
    "chassis.spring_upper": (0, 0.50, 0.60), "ground.tyre_ground": (0, 0.75, 0),
}
QC_BODIES = {  # mass, centre of mass, inertia diagonal (world axes)
    "chassis": (400, (0, 0, 0.60), (50, 50, 50)),
    "upper_arm": (2, (0, 0.525, 0.49), (0.02, 0.01, 0.02)),
    "lower_arm": (4, (0, 0.50, 0.16), (0.06, 0.02, 0.06)),
    "knuckle": (6, (0, 0.68, 0.32), (0.08, 0.04, 0.06)),
    "tie_rod": (0.5, (-0.15, 0.50, 0.25), (0.005, 0.0005, 0.005)),
    "wheel": (20, (0, 0.75, 0.30), (0.6, 1.0, 0.6)),
}


def test_quarter_car_hard_points_bodies_and_forces(quarter_car):
    s = quarter_car
    st = s.initial_state()
    for ref, P in QC_POINTS.items():
        np.testing.assert_allclose(peers.marker_position(s, st.q, ref), P, atol=1e-15, err_msg=ref)
    names = list(s.output_names)
    out = np.empty(len(names))
    s.outputs(0.0, st.q, st.qd, out)
    for name, (m, c, d) in QC_BODIES.items():
        mass, I = _body_mass_and_inertia(s, st.q, name)
        np.testing.assert_allclose(mass, [m] * 3, rtol=1e-14, err_msg=name)
        np.testing.assert_allclose(I, np.diag(d), rtol=1e-12, atol=1e-15, err_msg=name)
        for k, v in zip("xyz", c):
            assert out[names.index(f"{name}.{k}")] == pytest.approx(v, abs=1e-15)
        for k, v in zip(("vx", "vy", "vz", "wx", "wy", "wz"), (0, 0, -0.5, 0, 0, 0)):
            assert out[names.index(f"{name}.{k}")] == pytest.approx(v, abs=1e-14), f"{name}.{k}"
    # preload 6600 N in compression (the mounts move together: no damper force);
    # tyre: k (0.30 − free length) + c·(−0.5), free length 0.30 + 432.5 g / 2e5
    assert out[names.index("suspension.force")] == pytest.approx(-6600.0, rel=1e-12)
    assert out[names.index("tyre_spring.force")] == pytest.approx(-432.5 * G - 250.0, rel=1e-12)
    # the chassis moves along z only: a rigid shift of everything along z keeps Φ = 0, along x not
    for shift, ok in (([0, 0, 0.01], True), ([0.01, 0, 0], False)):
        q = st.q.copy()
        for a in s.body_qadr[:s.nbody]:
            q[a:a + 3] += shift
        rows = s.joint_rows["chassis_slide"]
        phi = s.constraints(q)
        assert np.abs(np.delete(phi, range(rows[0], rows[0] + rows[1]))).max() < 1e-15
        assert (np.abs(phi[rows[0]:rows[0] + rows[1]]).max() < 1e-15) == ok


@pytest.mark.parametrize("name", peers.PEER_MODELS)
def test_initial_state_as_written_is_consistent(name):
    """The YAML numbers themselves satisfy Φ = 0 and Φq q̇ = 0 (assembly changes nothing)."""
    s = load_model(name)
    q0, qd0 = s._q0, s._qd0  # positions and velocities as written, before assembly
    assert np.abs(s.constraints(q0)).max() < 1e-15
    assert np.abs(s.constraint_jacobian(q0) @ qd0).max() < 1e-14
    st = s.initial_state()
    np.testing.assert_allclose(st.q, q0, atol=1e-15)
    np.testing.assert_allclose(st.qd, qd0, atol=1e-14)
    assert peers.closure_error(s, q0) < 1e-15


def test_closure_error_measures_a_displaced_joint(four_bar):
    s = four_bar
    q = s.initial_state().q
    a = s.body_qadr[s.body_names.index("coupler")]
    q[a:a + 3] += [3e-4, 0.0, -4e-4]  # coupler moved by 0.5 mm: B and C open by that much
    assert peers.closure_error(s, q) == pytest.approx(5e-4, rel=1e-12)
    assert peers.closure_error(s, np.array([q, s.initial_state().q])) == pytest.approx([5e-4, 0.0], abs=1e-15)
    with pytest.raises(ModelError, match="unknown marker 'crank.b'"):
        peers.marker_position(s, q, "crank.b")


def test_quarter_car_energy_at_start(quarter_car):
    s = quarter_car
    st = s.initial_state()
    V = G * sum(m * c[2] for m, c, _ in QC_BODIES.values())
    springs = 0.5 * 60000 * 0.11 ** 2 + 0.5 * 200000 * (432.5 * G / 200000) ** 2
    assert peers.mechanical_energy(s, st.q, st.qd) == pytest.approx(0.5 * 432.5 * 0.25 + V + springs, rel=1e-13)


# -- the four-bar in one coordinate: an independent computation of the reference crank angle -------
def _four_bar_minimal_rhs(t, y):
    """Lagrange's equation in the crank angle θ for the planar four-bar (x-z plane):
    m(θ) θ̈ + c(θ) θ̇² = Q(θ), from the angles φ2, φ3 of coupler and rocker and their θ-derivatives
    (loop closure L1 e1 + L2 e2 − L3 e3 = D and its derivatives)."""
    L, m = np.array([0.10, 0.30, 0.25]), np.array([0.2, 0.6, 0.5])
    Iy = m * (3 * 0.01 ** 2 + L ** 2) / 12
    e = lambda a: np.array([np.cos(a), np.sin(a)])  # noqa: E731
    ep = lambda a: np.array([-np.sin(a), np.cos(a)])  # noqa: E731
    th, w = y
    B = L[0] * e(th)
    C = max(_circle_intersections(np.array([B[0], 0, B[1]]), 0.30, D_PT, 0.25), key=lambda c: c[2])[[0, 2]]
    p = np.array([th, np.arctan2(*(C - B)[::-1]), np.arctan2(*(C - D_PT[[0, 2]])[::-1])])
    A = np.column_stack([L[1] * ep(p[1]), -L[2] * ep(p[2])])
    dp = np.r_[1.0, np.linalg.solve(A, -L[0] * ep(th))]
    ddp = np.r_[0.0, np.linalg.solve(A, L[0] * e(th) + L[1] * e(p[1]) * dp[1] ** 2 - L[2] * e(p[2]) * dp[2] ** 2)]
    J = [L[0] / 2 * ep(th), L[0] * ep(th) + L[1] / 2 * ep(p[1]) * dp[1], L[2] / 2 * ep(p[2]) * dp[2]]
    H = [-L[0] / 2 * e(th), -L[0] * e(th) + L[1] / 2 * (ep(p[1]) * ddp[1] - e(p[1]) * dp[1] ** 2),
         L[2] / 2 * (ep(p[2]) * ddp[2] - e(p[2]) * dp[2] ** 2)]
    mth = sum(m[k] * J[k] @ J[k] + Iy[k] * dp[k] ** 2 for k in range(3))
    cth = sum(m[k] * J[k] @ H[k] + Iy[k] * dp[k] * ddp[k] for k in range(3))
    return [w, (-G * sum(m[k] * J[k][1] for k in range(3)) - cth * w ** 2) / mth]


def test_stored_crank_angle_against_minimal_coordinate_ode():
    sol = solve_ivp(_four_bar_minimal_rhs, (0.0, 2.0), [TH0, 0.0], method="DOP853", rtol=1e-12,
                    atol=1e-14, t_eval=[1.0, 2.0])
    deg = np.degrees(sol.y[0]) - 360.0
    assert abs(deg[0] - peers.FOUR_BAR_CRANK_DEG_1S) < 1e-6
    assert abs(deg[1] - peers.FOUR_BAR_CRANK_DEG_2S) < 1e-6


@pytest.fixture(scope="module")
def four_bar_reference(four_bar):
    return simulate(four_bar, "reference", t_end=2.0, h=1e-3)  # Radau, rtol 1e-10


def test_reference_conserves_four_bar_energy(four_bar, four_bar_reference):
    r = four_bar_reference
    E = peers.mechanical_energy(four_bar, r.q, r.qd)
    assert E[0] == pytest.approx(G * (0.2 * B_PT[2] / 2 + 0.6 * (B_PT + C_PT)[2] / 2 + 0.5 * C_PT[2] / 2), rel=1e-14)
    ke = np.array([four_bar.kinetic_energy(q, qd) for q, qd in zip(r.q, r.qd)])
    assert ke.max() > 0.3 * E[0]  # the crank really turns
    assert np.abs(E - E[0]).max() < 1e-6 * abs(E[0])
    assert np.abs(peers.closure_error(four_bar, r.q)).max() < 1e-12


def test_reference_reproduces_the_stored_crank_angle(four_bar, four_bar_reference):
    r = four_bar_reference
    th = np.degrees(peers.crank_angle(four_bar, r.q))
    assert r.t[1000] == pytest.approx(1.0)
    assert abs(th[1000] - peers.FOUR_BAR_CRANK_DEG_1S) < 1e-6
    assert abs(th[2000] - peers.FOUR_BAR_CRANK_DEG_2S) < 1e-6


def test_reference_conserves_chain_energy(chain):
    r = simulate(chain, "reference", t_end=2.0, h=1e-3, method="DOP853", rtol=1e-10, atol=1e-12)
    E = peers.mechanical_energy(chain, r.q, r.qd)
    assert E[0] == pytest.approx(0.5 * sum(1.0 * (2 * 0.2 * (i + 0.5)) ** 2 + 4 * 0.0034333333333333334
                                           for i in range(10)), rel=1e-13)
    assert np.abs(E - E[0]).max() < 1e-6 * abs(E[0])
    assert np.abs(peers.closure_error(chain, r.q)).max() < 1e-12
