"""The reference solver's ``formulation="augmented-lagrangian"`` through singular positions.

Models: ``parallelogram-four-bar.yaml`` and ``parallelogram-chain-20.yaml`` (rods of 1 m and 1 kg,
rockers vertical at t = 0 turning at 4 rad/s). Both have one degree of freedom: every rocker
turns by the same θ and the couplers translate, so

    ((N+1) m L²/3 + N m L²) θ̈ = −g ((N+1) m L/2 + N m L) cos θ,

integrated here independently with scipy's DOP853 at rtol 1e-13. Φq loses rank whenever the
rockers lie flat (θ = 0, π mod 2π), twice per turn; the default index-1 reference stops there.
Run times on the shared 2-core machine (measured): pendulum 3.5 s, four-bar 12 s, dense/sparse
5 s, CLI 4 s, options < 0.1 s, chain (20 s of motion, steps of 1.25, 2.5 and 5 ms) 111 s.
"""
import math
import re

import numpy as np
import pytest
from scipy.integrate import solve_ivp

from _models.exact import PhysicalPendulum, SpringMassDamper
from rtmbs.errors import SolverError
from rtmbs.models import load_model, model_file
from rtmbs.models.classic import parallelogram_chain
from rtmbs.solvers.reference import ReferenceSolver
from rtmbs.system import compile_model


L, MASS, G, OMEGA0, THETA0 = 1.0, 1.0, 9.81, 4.0, math.pi / 2
AL = "augmented-lagrangian"


def _model(N):
    if N in (1, 20):
        return load_model(str(model_file("parallelogram-four-bar" if N == 1
                                         else f"parallelogram-chain-{N}")))
    return compile_model(parallelogram_chain(N))


def _exact(N, t_end):
    """θ(t), θ̇(t) of the one-DOF motion (dense output) and the energy constants."""
    inertia = (N + 1) * MASS * L ** 2 / 3 + N * MASS * L ** 2
    grav = G * ((N + 1) * MASS * L / 2 + N * MASS * L)
    sol = solve_ivp(lambda t, y: (y[1], -grav / inertia * math.cos(y[0])), (0.0, t_end),
                    (THETA0, OMEGA0), method="DOP853", rtol=1e-13, atol=1e-13, dense_output=True)
    energy = 0.5 * inertia * OMEGA0 ** 2 + grav * math.sin(THETA0)
    return sol.sol, energy


def _body_errors(system, res, theta):
    """Largest distance of every body's centre from its exact position (rockers turn by θ about
    their pivots at x = iL, couplers translate with the rocker tips)."""
    c, s = np.cos(theta), np.sin(theta)
    err = 0.0
    for name, a in zip(system.body_names, system.body_qadr):
        i = int(name.removeprefix("rocker").removeprefix("coupler"))
        if name.startswith("rocker"):
            x, z = i * L + 0.5 * L * c, 0.5 * L * s
        else:
            x, z = (i + 0.5) * L + L * c, L * s
        r = res.q[:, a:a + 3]
        d = np.sqrt((r[:, 0] - x) ** 2 + r[:, 1] ** 2 + (r[:, 2] - z) ** 2)
        err = max(err, float(d.max()))
    return err


def _flat_passes(theta):
    """How many times θ crosses a multiple of π (a flat, singular position)."""
    return int(np.abs(np.diff(np.floor(theta / math.pi))).sum())


def _check_singular_run(N, t_end, step, err_bound, energy_bound, phi_bound, min_passes):
    system = _model(N)
    assert system.n == 7 * (2 * N + 1)
    sol, E0 = _exact(N, t_end)
    state = system.initial_state()
    assert abs(system.energy(state.q, state.qd) - E0) < 1e-12 * E0  # the YAML is the ODE's model
    res = ReferenceSolver(system, formulation=AL, step=step).solve(state, t_end, h=0.01)
    assert res.meta["status"] == 1, res.meta["message"]
    assert res.t[-1] == pytest.approx(t_end)
    theta = sol(res.t)[0]
    assert _flat_passes(theta) >= min_passes
    # Φq really loses rank on the way: its smallest non-trivial singular value nearly vanishes
    rank = system.n - 1
    ratios = []
    for k in np.argsort(np.abs(np.sin(theta)))[:3]:
        sv = np.linalg.svd(system.constraint_jacobian(res.q[k]), compute_uv=False)
        ratios.append(sv[rank - 1] / sv[0])
    sv0 = np.linalg.svd(system.constraint_jacobian(res.q[0]), compute_uv=False)
    assert max(ratios) < 0.05 * sv0[rank - 1] / sv0[0]
    # every body on its exact path (Richardson-extrapolated outputs), and the stated error
    # estimate is an upper bound, not a vacuous one
    err = _body_errors(system, res, theta)
    est = res.meta["error_estimate"]
    assert est["of"] == "the extrapolated output"
    assert err < err_bound
    assert est["q"] / 20 < err < est["q"]
    assert err < est["q_h_run"] / 2                # extrapolation gains over the h run
    # energy and constraints
    E = np.array([system.energy(q, qd) for q, qd in zip(res.q, res.qd)])
    assert np.abs(E - E0).max() < energy_bound * E0
    assert res.phi_norm.max() < phi_bound
    return res


@pytest.mark.slow
def test_four_bar_passes_its_flat_position_many_times():
    # 10 s: 9 turns, 18 passes through a singular position
    res = _check_singular_run(1, 10.0, 1e-3, err_bound=1e-4, energy_bound=1e-5,
                              phi_bound=1e-10, min_passes=18)
    assert res.phid_norm.max() < 1e-8


@pytest.mark.slow  # the four-bar's 18 flat passes and the chain's dense/sparse flat pass run fast
def test_chain_of_20_four_bars_over_20_s():
    # 20 s: about 18 turns of all 21 rockers at once, 36 passes through a singular position
    res = _check_singular_run(20, 20.0, 2e-3, err_bound=2e-3, energy_bound=2e-4, phi_bound=2e-8,
                              min_passes=36)
    assert res.meta["step"] == 1.25e-3            # h/8: steps of 1.25, 2.5 and 5 ms
    assert res.phid_norm.max() < 1e-4


def test_dense_and_sparse_linear_algebra_agree_through_a_flat_position():
    system = _model(20)
    runs = [ReferenceSolver(system, formulation=AL, linear_solver=ls, richardson="none")
            .solve(system.initial_state(), 0.4, h=0.01) for ls in ("dense", "sparse")]
    assert [r.meta["linear_solver"] for r in runs] == ["dense", "sparse"]
    assert _flat_passes(_exact(20, 0.4)[0](runs[0].t)[0]) == 1
    assert np.abs(runs[0].q - runs[1].q).max() < 1e-9
    assert np.abs(runs[0].qd - runs[1].qd).max() < 1e-7


def test_second_order_and_error_estimate_on_the_pendulum():
    p = PhysicalPendulum(2.0)
    errs, ests = [], []
    for step in (2e-3, 1e-3):
        res = ReferenceSolver(p, formulation=AL, step=step, richardson="estimate").solve(
            p.initial_state(), 2.0, h=0.004)
        assert res.meta["status"] == 1, res.meta["message"]
        assert res.meta["step"] == step
        errs.append(np.abs(res.q[:, 2] - p.theta_exact(res.t)).max())
        ests.append(res.meta["error_estimate"]["q"])
    assert 3.5 < errs[0] / errs[1] < 4.5          # order 2
    for err, est in zip(errs, ests):
        assert 0.5 * est < err < 2.0 * est
    assert errs[1] < 1e-4
    res = ReferenceSolver(p, formulation=AL, step=1e-3).solve(p.initial_state(), 2.0, h=0.004)
    assert res.meta["richardson"] == "extrapolate" and res.meta["step"] == 1e-3
    assert np.abs(res.q[:, 2] - p.theta_exact(res.t)).max() < errs[1] / 20


def test_options_are_checked_with_named_errors():
    p = PhysicalPendulum(1.0)
    with pytest.raises(SolverError, match="option 'formulation' must be one of index1, "
                                          "augmented-lagrangian, got 'al'"):
        ReferenceSolver(p, formulation="al")
    with pytest.raises(SolverError, match="option 'step' belongs to formulation "
                                          "'augmented-lagrangian'"):
        ReferenceSolver(p, step=1e-3)
    with pytest.raises(SolverError, match="option 'rtol' belongs to formulation 'index1'"):
        ReferenceSolver(p, formulation=AL, rtol=1e-8)
    with pytest.raises(SolverError, match=r"option 'step' must be a finite number > 0, got -1"):
        ReferenceSolver(p, formulation=AL, step=-1)
    with pytest.raises(SolverError, match="option 'richardson' must be 'extrapolate', 'estimate' "
                                          "or 'none', got True"):
        ReferenceSolver(p, formulation=AL, richardson=True)
    with pytest.raises(SolverError, match="option 'velocity_projection' must be 'multipliers' or 'exact', "
                                          "got 'svd'"):
        ReferenceSolver(p, formulation=AL, velocity_projection="svd")
    with pytest.raises(SolverError, match="option 'linear_solver' must be 'auto', 'dense' or "
                                          "'sparse', got 'lu'"):
        ReferenceSolver(p, formulation=AL, linear_solver="lu")
    with pytest.raises(SolverError, match="option 'linear_solver' = 'sparse' needs the model's "
                                          "sparsity patterns"):
        ReferenceSolver(p, formulation=AL, linear_solver="sparse").solve(p.initial_state(), 0.1)
    smd = SpringMassDamper()
    with pytest.raises(SolverError, match="has 1 extra first-order states"):
        ReferenceSolver(smd, formulation=AL).solve(smd.initial_state(), 0.1)


def test_failure_names_the_cause_and_the_time():
    p = PhysicalPendulum(1.0)
    res = ReferenceSolver(p, formulation=AL, max_iter=1, newton_tol=1e-15,
                          richardson="none").solve(p.initial_state(), 0.5, h=0.01)
    assert res.meta["status"] == -1
    assert "Newton iteration not converged in max_iter = 1 iterations" in res.meta["message"]
    assert "failed at t = 0.001 s" in res.meta["message"]
    assert res.t.size == 1  # the initial output only


def test_cli_runs_the_formulation(tmp_path, capsys):
    import json

    from rtmbs.cli import main

    path = str(model_file("parallelogram-four-bar"))
    assert main(["run", path, "--solver", "reference",
                 "--option", "formulation=augmented-lagrangian", "--option", "richardson=none", "--t-end", "0.6", "--h", "0.01",
                 "--out", str(tmp_path / "o"), "--json"]) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert s["status"] == 1 and s["t_end"] == pytest.approx(0.6)
    assert s["max_constraint_norm"] < 1e-12
    assert _flat_passes(_exact(1, 0.6)[0](np.linspace(0, 0.6, 61))[0]) == 1   # θ passes π


def test_the_generated_chain_is_the_yaml_chain():
    a, b = _model(20), compile_model(parallelogram_chain(20))
    assert (a.n, a.m) == (b.n, b.m) == (287, 346)
    sa, sb = a.initial_state(), b.initial_state()
    assert np.array_equal(sa.q, sb.q) and np.array_equal(sa.qd, sb.qd)
    c = compile_model(parallelogram_chain(40))
    assert (c.n, c.m) == (7 * 81, 5 * 121 + 80 + 1)


@pytest.mark.slow
@pytest.mark.parametrize("N", [20, 40])
def test_error_falls_with_the_step_through_flat_passes(N):
    """Steps of 2, 1 and 0.5 ms over 1.5 s (3 flat passes): the error of the (extrapolated)
    output falls at each halving and the stated estimate bounds it. Before the contraction-based
    stop and the penalty update (augmented_lagrangian._newton) the 40-loop chain got worse with
    a smaller step and Newton failed at the first flat pass at 0.25 ms."""
    system = _model(N)
    t_end = 1.5
    sol, E0 = _exact(N, t_end)
    errs, ests = [], []
    for step in (2e-3, 1e-3, 5e-4):
        res = ReferenceSolver(system, formulation=AL, step=step).solve(
            system.initial_state(), t_end, h=0.01)
        assert res.meta["status"] == 1, res.meta["message"]
        theta = sol(res.t)[0]
        assert _flat_passes(theta) == 3
        errs.append(_body_errors(system, res, theta))
        ests.append(res.meta["error_estimate"]["q"])
    assert errs[0] > errs[1] > errs[2], errs
    assert errs[0] / errs[1] > 4                       # order ≥ 2 on the first halving
    for err, est in zip(errs, ests):
        assert err <= est < 10 * err, (err, est)
    assert errs[2] < 5e-7


def test_failure_advice_on_max_iter_is_right():
    """The message names how many iterations the measured contraction needs; with that many
    the same step converges (the run goes on past the failure time)."""
    system = _model(20)
    run = lambda k: ReferenceSolver(system, formulation=AL, max_iter=k,  # noqa: E731
                                    richardson="none").solve(system.initial_state(), 0.5, h=0.01)
    res = run(3)
    assert res.meta["status"] == -1
    msg = res.meta["message"]
    m = re.search(r"raise 'max_iter' to (\d+) or 'newton_tol'", msg)
    assert m and "contracting by θ = " in msg, msg
    t_fail = float(re.search(r"failed at t = ([0-9.e-]+) s", msg).group(1))
    res2 = run(int(m.group(1)))
    if res2.meta["status"] == -1:
        t2 = float(re.search(r"failed at t = ([0-9.e-]+) s", res2.meta["message"]).group(1))
        assert t2 > t_fail


@pytest.mark.slow
def test_forty_loops_at_a_quarter_millisecond():
    """Steps of 1, 0.5 and 0.25 ms on the 40-loop chain over 1.5 s (3 flat passes) with
    ``velocity_projection="exact"``: each run reaches the end, the error falls at each halving and the
    stated estimate bounds it. The velocity projection converges at every step (GMRES on its
    multipliers); the method of multipliers (the default) stalls next to the flat positions at
    0.25 ms, leaving ‖Φq q̇‖ at 7e-5, the energy 2e-4 off after the first pass and Newton failing
    at the second (t = 0.77 s)."""
    system = _model(40)
    t_end = 1.5
    sol, E0 = _exact(40, t_end)
    errs, ests = [], []
    for step in (1e-3, 5e-4, 2.5e-4):
        res = ReferenceSolver(system, formulation=AL, step=step, velocity_projection="exact",
                              newton_tol=1e-12).solve(
            system.initial_state(), t_end, h=0.004)        # outputs 2 ms from the flat ones
        assert res.meta["status"] == 1, res.meta["message"]
        assert res.meta["step"] == step
        theta = sol(res.t)[0]
        assert _flat_passes(theta) == 3
        errs.append(_body_errors(system, res, theta))
        ests.append(res.meta["error_estimate"]["q"])
        assert res.meta["vel_residual_max"] < 1e-8
        assert res.phid_norm.max() < 1e-7
        E = np.array([system.energy(q, qd) for q, qd in zip(res.q, res.qd)])
        assert np.abs(E - E0).max() < 1e-6 * E0
    assert errs[0] > errs[1] > errs[2], errs
    for err, est in zip(errs, ests):
        assert err <= est < 10 * err, (err, est)
    assert errs[2] < 2e-7
