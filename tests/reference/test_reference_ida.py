"""The reference's default Jacobian, bounded finite differences, the sparse IDA method
(GGL form) and single-threaded BLAS (docs/reference-solver.md states the bounds)."""
import math
import os
import re

import numpy as np
import pytest
from threadpoolctl import threadpool_info, threadpool_limits

from _models.exact import (
    NaNAfter, PhysicalPendulum, PrescribedSlider, SpringMassDamper, double_pendulum,
)
import rtmbs
from rtmbs.errors import SolverError
from rtmbs.model.files import model_from_dict
from rtmbs.protocol import EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q
from rtmbs.solvers import reference_ida
from rtmbs.solvers.reference import ReferenceSolver
from rtmbs.solvers.reference_ida import GGLJacobian, _patterns, colour_columns, q_block_pattern
from rtmbs.system import compile_model


G = 9.81
#: The point-mass pendulum runs this long by default (0.4-1.2 s of wall time per simulated
#: second here); RTMBS_REFERENCE_LONG=1 runs the issue's 2000 s (12-15 min).
PENDULUM_T = 2000.0 if os.environ.get("RTMBS_REFERENCE_LONG") else 30.0


def point_mass_pendulum():
    """A bob (one Euler-parameter body, tiny isotropic inertia) on a massless rod of 1 m (a
    distance joint to the ground), released horizontally: its orientation coordinates enter no
    equation but the normalisation, where scipy's differencing grew its steps without bound."""
    d = dict(name="point-mass-pendulum", gravity=[0, 0, -G],
             bodies=[dict(name="bob", mass=1.0, inertia=[1e-4] * 3, position=[1.0, 0, 0])],
             ground=dict(markers=dict(pivot=dict(position=[0, 0, 0]))),
             joints=[dict(name="rod", type="distance", marker_i="ground.pivot",
                          marker_j="bob.cm")])
    return compile_model(model_from_dict(d))


def _energy(res):
    return 0.5 * (res.qd[:, :3] ** 2).sum(1) + G * res.q[:, 2]


@pytest.mark.slow  # the bounded difference steps themselves: the next test
def test_point_mass_pendulum_default_reference_keeps_energy():
    s = point_mass_pendulum()
    res = ReferenceSolver(s).solve(s.initial_state(), PENDULUM_T, h=0.05)
    assert res.meta["status"] == 1, res.meta["message"]
    assert res.meta["jacobian"] == "model" and res.meta["method"] == "Radau"
    assert res.t[-1] == pytest.approx(PENDULUM_T)
    E = _energy(res)
    assert np.abs(E - E[0]).max() / G < 1e-8  # |E0| = 0: relative to m g L
    assert np.abs(np.linalg.norm(res.q[:, :3], axis=1) - 1.0).max() < 1e-12


def test_fd_jacobian_has_bounded_steps_and_matches_central_differences():
    s = point_mass_pendulum()
    slv = ReferenceSolver(s, jacobian="fd")
    st = s.initial_state()
    slv.reset(st)
    rng = np.random.default_rng(3)
    y = np.concatenate((st.q, st.qd + 0.3 * rng.standard_normal(s.n)))
    J = slv._fd_jacobian(0.0, y)
    for _ in range(50):  # repeated calls: the step does not grow (scipy's did)
        J2 = slv._fd_jacobian(0.0, y)
    assert np.array_equal(J, J2) and np.isfinite(J).all()
    Jc = np.empty_like(J)
    for j in range(y.size):  # central differences with a different step, every direction
        d = np.zeros_like(y)
        d[j] = 1e-5
        Jc[:, j] = (slv._rhs(0.0, y + d) - slv._rhs(0.0, y - d)) / 2e-5
    assert np.abs(J - Jc).max() < 1e-5 * max(1.0, np.abs(Jc).max())
    assert slv.njev == 51 and slv.nfev_jac == 51 * (y.size + 1)


def test_failures_name_the_jacobian_and_the_time(monkeypatch):
    # IDA stuck at the NaN gives up after its step budget per output: 500 steps, not 50 000
    # (the same message, in 0.5 s instead of 25 s)
    monkeypatch.setattr(reference_ida, "MAX_STEPS_PER_OUTPUT", 500)
    sysm = NaNAfter(0.37)
    for jac in ("model", "fd"):
        res = ReferenceSolver(sysm, jacobian=jac).solve(sysm.initial_state(), 1.0, h=0.01)
        msg = res.meta["message"]
        assert res.meta["status"] == -1
        assert abs(float(re.search(r"failed at t = (\S+) s", msg).group(1)) - 0.37) < 1e-9
        assert f"jacobian='{jac}'" in msg
    res = ReferenceSolver(sysm, method="ida", jacobian="model").solve(sysm.initial_state(), 1.0,
                                                                      h=0.01)
    msg = res.meta["message"]
    assert res.meta["status"] == -1 and "non-finite forces or accelerations" in msg
    assert "failed at t = 0.37 s" in msg  # the first output IDA could not reach
    assert 0.37 <= float(re.search(r"from t = (\S+) s", msg).group(1)) < 0.371
    assert "results kept up to t = 0.36 s" in msg and res.t[-1] == pytest.approx(0.36)
    # ida's default (jacobian="fd"): the differences meet the NaN first, past the last output
    res = ReferenceSolver(sysm, method="ida").solve(sysm.initial_state(), 1.0, h=0.01)
    msg = res.meta["message"]
    assert res.meta["status"] == -1 and res.meta["jacobian"] == "fd"
    assert "non-finite Jacobian (finite differences of the residual, jacobian='fd') at t = " in msg
    assert 0.37 <= float(re.search(r"at t = (\S+) s;", msg).group(1)) < 0.371
    assert "results kept up to t = 0.36 s" in msg and res.t[-1] == pytest.approx(0.36)
    with pytest.raises(SolverError, match=r"option 'jacobian' must be 'fd' or 'model', got 'ad'"):
        ReferenceSolver(sysm, jacobian="ad")
    with pytest.raises(SolverError, match=r"unknown method 'IDA' \(known: .*Radau, ida\)"):
        ReferenceSolver(sysm, method="IDA")


# -- the GGL Jacobian ---------------------------------------------------------------------------
def _ggl_residual(sysm, ws, t, y, yp):
    """The GGL residual written out independently of reference_ida (module docstring)."""
    n, m, nx = sysm.n, sysm.m, sysm.nx
    q, v, lam, mu = y[:n], y[n:2 * n], y[2 * n:2 * n + m], y[2 * n + m:2 * n + 2 * m]
    sysm.evaluate(t, q, v, ws, EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ)
    r = [yp[:n] - v + ws.phiq.T @ mu, ws.M @ yp[n:2 * n] + ws.phiq.T @ lam - ws.Q, ws.phi.copy(),
         ws.phiq @ v + ws.phit]
    if nx:
        rates = np.zeros(nx)
        sysm.extra_rates(t, q, v, y[2 * n + 2 * m:], rates)
        r.append(yp[2 * n + 2 * m:] - rates)
    return np.concatenate(r)


@pytest.mark.parametrize("make", [PrescribedSlider, point_mass_pendulum])
def test_ggl_jacobian_matches_finite_differences_in_every_direction(make):
    """Exact where the left-out curvature terms vanish (PrescribedSlider: linear Φ, constant M
    and Q); on the point-mass pendulum the difference is those terms, bounded by their size."""
    sysm = make()
    n, m = sysm.n, sysm.m
    ws = sysm.workspace()
    st = sysm.initial_state()
    rng = np.random.default_rng(5)
    N = 2 * n + 2 * m
    y = np.concatenate((st.q, st.qd + 0.2 * rng.standard_normal(n), rng.standard_normal(2 * m)))
    yp = rng.standard_normal(N)
    t, cj = 0.3, 250.0
    if make is point_mass_pendulum:  # curvature terms are then ∝ λ, μ, v: keep them small
        y[2 * n:] *= 1e-3
        y[n:2 * n] *= 1e-3
        yp[n:2 * n] *= 1e-3
    jac = GGLJacobian(n, m, 0, *_patterns(sysm, ws, t, y[:n], y[n:2 * n]))
    sysm.evaluate(t, y[:n], y[n:2 * n], ws, EVAL_M | EVAL_PHIQ | EVAL_JAC)
    vals = np.zeros(jac.pattern.nnz)
    jac.values(ws, cj, vals)
    P = jac.pattern.copy()
    P.data[:] = vals
    JJ = P.toarray()
    F = np.empty((N, N))
    for j in range(N):
        d = np.zeros(N)
        d[j] = 1e-6
        F[:, j] = (_ggl_residual(sysm, ws, t, y + d, yp) - _ggl_residual(sysm, ws, t, y - d, yp)
                   + cj * (_ggl_residual(sysm, ws, t, y, yp + d)
                           - _ggl_residual(sysm, ws, t, y, yp - d))) / 2e-6
    # entry by entry (the Φq entries are O(1), cj M ones O(cj)): the left-out curvature terms
    # of the pendulum are O(|λ|, |μ|, |v|) = O(1e-3)
    bound = 1e-7 if make is PrescribedSlider else 1e-2
    assert np.abs(JJ - F).max() < bound
    assert np.abs(F).max() > 100.0  # cj M is in it


# -- jacobian="fd" for ida: coloured forward differences in q -----------------------------------
def _multilink_ideal():
    from rtmbs.studies.multilink import FULL, build_system, dropped_state

    s = build_system("ideal", FULL)
    return s, dropped_state(s, FULL["drop"])


def _moving_ggl_point(sysm, st, seed):
    """(y, y') of the GGL form at a moving, consistent state: λ from the accelerations, μ ≠ 0."""
    n, m = sysm.n, sysm.m
    slv = ReferenceSolver(sysm, method="ida")
    rng = np.random.default_rng(seed)
    q, qd, _ = slv.project(0.0, np.asarray(st.q, float),
                           np.asarray(st.qd, float) + 0.3 * rng.standard_normal(n))
    qdd, lam = slv.accelerations(0.0, q, qd)
    assert np.abs(lam).max() > 1.0  # the (Φqᵀλ)_q curvature term is in the test
    y = np.concatenate((q, qd, lam, 1e-2 * np.abs(lam).max() * rng.standard_normal(m)))
    yp = np.concatenate((qd + 0.1 * rng.standard_normal(n), qdd, np.zeros(2 * m)))
    return y, yp


def _matrix(jac, vals):
    P = jac.pattern.copy()
    P.data[:] = vals
    return P.toarray()


@pytest.mark.parametrize("which", ["multilink-ideal", "double-pendulum"])
@pytest.mark.parametrize("diff_v", [False, True])
def test_coloured_fd_iteration_matrix_matches_dense_differences_in_every_column(which, diff_v):
    """The ``jacobian="fd"`` matrix of ida (q columns, and v columns with ``diff_v``, from
    coloured forward differences) against central differences of the GGL residual written out
    independently, in every column of y; the model's matrix differs by the curvature terms."""
    if which == "multilink-ideal":
        sysm, st = _multilink_ideal()
    else:
        sysm = double_pendulum()
        st = sysm.initial_state()
    n, m = sysm.n, sysm.m
    N = 2 * n + 2 * m
    ws = sysm.workspace()
    y, yp = _moving_ggl_point(sysm, st, 3)
    t, cj = 0.0, 300.0
    pats = _patterns(sysm, ws, t, y[:n], y[n:2 * n])
    jf = GGLJacobian(n, m, 0, *pats, qb=q_block_pattern(sysm, ws, t, y[:n], *pats), diff_v=diff_v)
    jm = GGLJacobian(n, m, 0, *pats)

    def residual(t_, y_, yp_, out):
        out[:] = _ggl_residual(sysm, ws, t_, y_, yp_)

    sysm.evaluate(t, y[:n], y[n:2 * n], ws, EVAL_M | EVAL_PHIQ | EVAL_JAC)
    vm = np.zeros(jm.pattern.nnz)
    jm.values(ws, cj, vm)
    vf = np.zeros(jf.pattern.nnz)
    jf.fd_values(residual, t, y, yp, _ggl_residual(sysm, ws, t, y, yp), cj, ws, vf)
    JF, JM = _matrix(jf, vf), _matrix(jm, vm)
    F = np.empty((N, N))
    for j in range(N):
        d = np.zeros(N)
        d[j] = 1e-6 * max(abs(y[j]), 1.0)
        F[:, j] = (_ggl_residual(sysm, ws, t, y + d, yp) - _ggl_residual(sysm, ws, t, y - d, yp)
                   + cj * (_ggl_residual(sysm, ws, t, y, yp + d)
                           - _ggl_residual(sysm, ws, t, y, yp - d))) / (2 * d[j])
    scale = np.abs(F).max(axis=0)  # per column
    assert (scale > 0).all()
    err = np.abs(JF - F) / scale
    assert err.max() < 2e-5, err.max()                  # FD accuracy in every column
    curv = np.abs(JM - F)[:, :n] / scale[:n]            # the model's q columns: no curvature
    assert curv.max() > 1e-2, curv.max()
    assert 1 <= jf.ncolours <= n + (n if diff_v else 0)


def test_ida_fd_colouring_is_valid_and_covers_the_sedan():
    """On the sedan: no two columns of a colour share a row of F1, F2, F4 in the pattern, far
    fewer colours than n, and the residual's q-derivatives vanish outside the pattern."""
    from rtmbs.manoeuvres.events import sedan_system

    sysm, _ = sedan_system(80 / 3.6)
    n, m = sysm.n, sysm.m
    ws = sysm.workspace()
    y, yp = _moving_ggl_point(sysm, sysm.initial_state(), 4)
    pats = _patterns(sysm, ws, 0.0, y[:n], y[n:2 * n])
    qb = q_block_pattern(sysm, ws, 0.0, y[:n], *pats)
    jac = GGLJacobian(n, m, 0, *pats, qb=qb)
    rows = np.vstack((qb[:2 * n], qb[2 * n + m:]))
    for c in range(jac.ncolours):
        assert rows[:, jac.colour == c].sum(axis=1).max() == 1
    assert jac.ncolours < 0.55 * n  # 116 of 231 (the structural Φqᵀ·Φq bound alone: 161)
    P = jac.pattern.toarray() != 0
    r0 = _ggl_residual(sysm, ws, 0.0, y, yp)
    out = big = 0.0
    for j in range(n):
        d = np.zeros(y.size)
        d[j] = 1e-6
        col = np.abs(_ggl_residual(sysm, ws, 0.0, y + d, yp) - r0)[:2 * n + 2 * m] / 1e-6
        out = max(out, col[~P[:2 * n + 2 * m, j]].max(initial=0.0))
        big = max(big, col.max())
    assert out < 1e-12 * big, (out, big)  # rounding only (1.1e-7 of 2e6 measured)


def test_colour_columns_greedy_groups():
    p = np.array([[1, 1, 0, 0], [0, 0, 1, 1], [1, 0, 1, 0]], bool)
    c = colour_columns(p)
    for k in range(c.max() + 1):
        assert p[:, c == k].sum(axis=1).max() <= 1
    assert c.max() + 1 == 2 and c[0] != c[1] and c[0] != c[2] and c[2] != c[3]


def test_ida_bad_jacobian_option_names_it():
    sysm = point_mass_pendulum()
    with pytest.raises(SolverError, match=r"^solver 'reference': option 'jacobian' must be 'fd' "
                                          r"or 'model', got 'dense'$"):
        ReferenceSolver(sysm, method="ida", jacobian="dense")


# -- the IDA method against exact solutions and the dense reference ----------------------------
def test_ida_pendulum_matches_elliptic_solution():
    p = PhysicalPendulum(2.0)
    T = p.period()
    res = ReferenceSolver(p, method="ida", rtol=1e-10, atol=1e-12).solve(
        p.initial_state(), 1.1 * T, h=T / 100)
    assert res.meta["status"] == 1, res.meta["message"]
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < 1e-7
    assert res.meta["phi_raw_max"] < 1e-9 and res.phi_norm.max() < 1e-12


def test_ida_rheonomic_and_ode_models_match_closed_form():
    s = PrescribedSlider()
    res = ReferenceSolver(s, method="ida", rtol=1e-10, atol=1e-12).solve(s.initial_state(), 1.0,
                                                                          h=0.01)
    q, qd, lam = s.exact(res.t)
    assert np.abs(res.q - q).max() < 1e-8 and np.abs(res.qd - qd).max() < 1e-8
    assert np.abs(res.lam[:, 0] - lam).max() < 1e-6
    smd = SpringMassDamper()
    res = ReferenceSolver(smd, method="ida", rtol=1e-10, atol=1e-12).solve(
        smd.initial_state(), 2.0, h=0.01)
    x, v = smd.exact(res.t)
    assert np.abs(res.q[:, 0] - x).max() < 1e-8 and np.abs(res.qd[:, 0] - v).max() < 1e-8


def test_ida_double_pendulum_energy():
    """At the rtol the docs recommend for ida (1e-8; measured 1.3e-7 over 2 s)."""
    dp = double_pendulum()
    res = ReferenceSolver(dp, method="ida", rtol=1e-8, atol=1e-10).solve(
        dp.initial_state(), 2.0, h=0.01)
    E = np.array([dp.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.abs(E - E[0]).max() / abs(E[0]) < 1e-6
    assert res.phi_norm.max() < 1e-12 and res.meta["phi_raw_max"] < 1e-7


#: The multilink comparison over the issue's 0.5 s (the dropped car lands at 0.078 s), rtol 1e-8;
#: about 10 s of solving here (Radau 8 s, IDA 1.3 s) after the compile. Stated agreement: q 1e-8 m, q̇ 2e-6, λ 1e-5 max|λ|.
ML_T, ML_RTOL = 0.5, 1e-8


@pytest.mark.slow  # fast: ida against exact solutions, its coloured Jacobian on the multilink
def test_ida_agrees_with_dense_reference_on_multilink():
    from rtmbs.studies.multilink import FULL, build_system, dropped_state

    s = build_system("ideal", FULL)
    st = dropped_state(s, FULL["drop"])
    runs = {(meth, jac): ReferenceSolver(s, method=meth, rtol=ML_RTOL, atol=ML_RTOL / 100,
                                         jacobian=jac).solve(st, ML_T, h=1e-3)
            for meth, jac in (("Radau", "model"), ("ida", "model"), ("ida", "fd"))}
    a = runs["Radau", "model"]
    for jac in ("model", "fd"):
        b = runs["ida", jac]
        assert a.meta["status"] == 1 and b.meta["status"] == 1, b.meta["message"]
        assert np.abs(a.q - b.q).max() < 1e-8
        assert np.abs(a.qd - b.qd).max() < 2e-6
        assert np.abs(a.lam - b.lam).max() < 1e-5 * np.abs(a.lam).max()
        assert b.meta["njev"] > 0 and b.meta["nfev"] > b.meta["njev"]
    assert np.abs(a.q[-1] - a.q[0]).max() > 0.02  # it fell and landed: not a static check
    fd = runs["ida", "fd"].meta  # F(y) and one residual per colour for each iteration matrix
    assert 1 < fd["colours"] < s.n and fd["nfev_jac"] == fd["njev"] * (1 + fd["colours"])
    assert runs["ida", "model"].meta["nfev_jac"] == 0


# -- threads ------------------------------------------------------------------------------------
class _ThreadProbe(PhysicalPendulum):
    """The pendulum recording the BLAS thread count seen inside its evaluations."""

    def __init__(self):
        super().__init__(0.5, name="thread-probe")
        self.seen = set()

    def evaluate(self, t, q, qd, ws, what):
        self.seen.add(max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"))
        super().evaluate(t, q, qd, ws, what)


@pytest.mark.parametrize("method", ["Radau", "ida"])
def test_blas_is_single_threaded_inside_a_solve(method, monkeypatch):
    monkeypatch.delenv("RTMBS_BLAS_THREADS", raising=False)
    with threadpool_limits(limits=2, user_api="blas"):
        outside = max(i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas")
        p = _ThreadProbe()
        ReferenceSolver(p, method=method).solve(p.initial_state(), 0.05, h=0.01)
        assert p.seen == {1}
        monkeypatch.setenv("RTMBS_BLAS_THREADS", "all")  # the opt-out
        p = _ThreadProbe()
        ReferenceSolver(p, method=method).solve(p.initial_state(), 0.05, h=0.01)
        assert p.seen == {outside}
    assert outside == 2


def test_blas_threads_variable_errors_name_it(monkeypatch):
    monkeypatch.setenv("RTMBS_BLAS_THREADS", "many")
    p = PhysicalPendulum(0.5)
    with pytest.raises(SolverError, match=r"RTMBS_BLAS_THREADS='many': expected a number"):
        ReferenceSolver(p).solve(p.initial_state(), 0.05, h=0.01)


def test_simulate_runs_with_single_threaded_blas(monkeypatch):
    """rtmbs.simulate (any solver) limits the BLAS pools as the reference does."""
    from threadpoolctl import threadpool_info

    from rtmbs.models import load_model
    from rtmbs.solvers.base import get_solver

    seen = []
    cls = get_solver("li-euler")
    real = cls.step

    def spy(self, *args, **kwargs):
        seen.append([p["num_threads"] for p in threadpool_info() if p["user_api"] == "blas"])
        return real(self, *args, **kwargs)

    monkeypatch.delenv("RTMBS_BLAS_THREADS", raising=False)
    monkeypatch.setattr(cls, "step", spy)
    # (the dense path: the step driven from Python, where LAPACK runs)
    rtmbs.simulate(load_model("double-pendulum"), "li-euler", t_end=0.01, h=1e-3,
                   linear_solver="dense")
    assert seen and all(n == 1 for threads in seen for n in threads)
