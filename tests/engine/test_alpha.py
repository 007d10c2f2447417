"""The generalized-alpha step of the C engine (src/rtmbs/engine/generalized_alpha.c:
``_engine.generalized_alpha_step``, its ``_outputs`` form and ``generalized_alpha_rollout``)
against the numba kernels it replaces (``rtmbs.solvers.compiled_alpha.generalized_alpha_step``,
``generalized_alpha_step_outputs``, ``_generalized_alpha_rollout``), called with the same
positional arguments on twin systems (``new_data``) from the same state.

Every option set (stabilize velocity / projection / none, jacobian all / stiff, 1 and 3 Newton
corrections) on peer-quarter-car, multilink-ideal with transient tyres (extra states) and
four-bar, 200 steps of 1 ms: the states q, q̇ and the extra states agree after every step within
RTOL = 1e-10 relative (per coordinate, to its largest magnitude over the run, at least 1: the
convention of test_golden), the solver's state kept in ``vec`` (a, q̈, λ) within RTOL_ACC, the
pivot ratios within RTOL. The kernels differ only in the evaluation (numba contracts
multiply-adds into FMA there, the C does not; the rest is the same arithmetic: the C step equals
the Python-driven step bit for bit, tests/solvers/test_alpha_fused.py). Measured worst over the
three models and twelve option sets: q 1e-14, q̇ 2e-11, x 5e-14 (multilink). The accelerations
and multipliers are the solution of the iteration matrix's system, whose condition number
multiplies the evaluations' round-off, and each Newton correction adds β'Δq to q̈₁ with
β' = (1 − α_m)/(βh²(1 − α_f)) ≈ 3e6 s⁻² at h = 1 ms; the α_m recursion carries the
differences on: measured worst over 200 steps a 3e-7, q̈ 7e-7, λ 8e-7 (peer-quarter-car),
hence RTOL_ACC = 5e-6. One step from the same state (test_one_step_from_the_same_state): q
2e-15, q̇ 3e-12, a, q̈, λ 5e-9.
"""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.engine import _engine as E
from rtmbs.models import load_model
from rtmbs.models.multilink import build
from rtmbs.solvers import compiled_alpha as ca
from rtmbs.solvers.base import get_solver

H = 1e-3
N = 200
RTOL = 1e-10
RTOL_ACC = 5e-6  # a, q̈, λ over 200 steps (module docstring)
RTOL_STEP_ACC = 1e-7  # a, q̈, λ after one step from the same state
RTOL_OUT = 1e-7  # the named outputs (forces of stiff elements: test_golden's RTOL_OUTPUTS)
#: the engine's counters (rtmbs.h rtmbs_counter)
CNT_EVAL, CNT_ELEMENT, CNT_FACTOR, CNT_SOLVE, CNT_FLOP, CNT_STEP = range(6)
MODELS = ["peer-quarter-car", "multilink-transient", "four-bar"]
OPTIONS = [dict(stabilize=s, jacobian=j, newton_iterations=k)
           for s in ("velocity", "projection", "none") for j in ("all", "stiff") for k in (1, 3)]
IDS = [f"{o['stabilize']}-{o['jacobian']}-{o['newton_iterations']}" for o in OPTIONS]

_SYSTEMS = {}


def _system(model):
    if model not in _SYSTEMS:
        _SYSTEMS[model] = (build("ideal", transient=True) if model == "multilink-transient"
                           else load_model(model))
    return _SYSTEMS[model].new_data()


def _inputs(system, k):
    """A drive-torque ramp where the model has one (the multilink): the tyres build up forces."""
    if "drive_torque" in system.input_names:
        system.set_input("drive_torque", 2.0 * k)


def _solver(system, opts):
    slv = get_solver("generalized-alpha")(system, linear_solver="sparse", **opts)
    st = system.initial_state()
    slv.reset(st)
    assert slv.fused and slv._kernel is E.generalized_alpha_step
    return slv, st


def _state(slv, st):
    return {"q": st.q.copy(), "qd": st.qd.copy(), "a": slv.a.copy(), "qdd": slv.qdd.copy(),
            "lam": slv.lam.copy(), "x": st.x.copy()}


def _worst(c_rows, n_rows):
    """Largest |C − numba| over the run relative to each coordinate's largest |numba|, at least
    1 (test_golden's convention), per quantity; rows: one dict of arrays per step."""
    return _worst_arrays({key: np.array([r[key] for r in c_rows]) for key in c_rows[0]},
                         {key: np.array([r[key] for r in n_rows]) for key in n_rows[0]})


def _worst_arrays(c, nb):
    """:func:`_worst` on arrays (rows, coordinates); a 1-d array is one row."""
    out = {}
    for key, b in nb.items():
        a = np.asarray(c[key], float)
        b = np.asarray(b, float)
        if b.ndim == 1:
            a, b = a[None], b[None]
        if b.size == 0:
            out[key] = 0.0
            continue
        scale = np.maximum(np.abs(b).max(axis=0), 1.0)
        out[key] = float((np.abs(a - b) / scale).max())
    return out


def _check(worst):
    tol = {"a": RTOL_ACC, "qdd": RTOL_ACC, "lam": RTOL_ACC, "y": RTOL_OUT}
    for key, err in worst.items():
        assert err <= tol.get(key, RTOL), (key, worst)


def _expected_counts(slv, system):
    """Counter increments of one step: evaluations, elements, factorisations, solves, LU
    multiply-adds, steps (with unflagged factors)."""
    ne, nf, ns = slv._counts_per_step()
    refactor, solve, _ = E.lu_flops(slv.kkt.lu.ib)
    flops = refactor + ns * solve
    if slv.stabilize == "projection":  # its factorisation and two solves are the projection's
        prefactor, psolve, _ = E.lu_flops(slv.pkkt.lu.ib)
        flops = refactor + (ns - 2) * solve + prefactor + 2 * psolve
    nfrc = len(system.force_out)
    return np.array([ne, slv.newton_iterations * nfrc, nf, ns, flops, 1], np.int64)


@pytest.mark.parametrize("opts", OPTIONS, ids=IDS)
@pytest.mark.parametrize("model", MODELS)
def test_c_step_equals_the_numba_step(model, opts):
    a, b = _system(model), _system(model)
    (sa, ta), (sb, tb) = _solver(a, opts), _solver(b, opts)
    expect = _expected_counts(sa, a)
    c_rows, n_rows, ratios = [], [], []
    q0 = ta.q.copy()
    for k in range(N):
        _inputs(a, k)
        _inputs(b, k)
        c0 = a.data.counter.copy()
        w0 = a.data.warning.copy()
        assert sa.step(ta, H)  # the C engine's
        got = (a.data.counter - c0).astype(np.int64)
        assert np.array_equal(got[:6], expect), f"counters of step {k + 1}: {got[:6]} != {expect}"
        assert np.array_equal(a.data.warning, w0)
        assert sb._fused_call(ca.generalized_alpha_step, tb, H, ())  # the numba kernel
        assert ta.t == tb.t
        c_rows.append(_state(sa, ta))
        n_rows.append(_state(sb, tb))
        ratios.append((sa.kkt.lu.ratio, sb.kkt.lu.ratio, sa.kkt.lu.growth, sb.kkt.lu.growth))
    _check(_worst(c_rows, n_rows))
    r = np.array(ratios)
    np.testing.assert_allclose(r[:, 0], r[:, 1], rtol=RTOL)
    np.testing.assert_allclose(r[:, 2], r[:, 3], rtol=1e-8, atol=1e-12)
    if sa.pkkt is not None:
        assert sa.pkkt.lu.ratio == pytest.approx(sb.pkkt.lu.ratio, rel=RTOL)
    assert sa.nfallback == sb.nfallback == 0
    assert np.abs(ta.q - q0).max() > 1e-4  # (it moved)
    if model == "multilink-transient":
        assert np.abs(ta.x).max() > 1e-6  # (the deflections built up and were advanced)


@pytest.mark.parametrize("model", MODELS)
def test_one_step_from_the_same_state(model):
    """Every option set, 200 steps each started from the numba step's state (q, q̇, t, the
    extra states and ``vec``: a, q̈, λ copied into the C solver's): the differences of one step
    alone, q, q̇, x within RTOL and a, q̈, λ within RTOL_STEP_ACC."""
    for opts in OPTIONS:
        a, b = _system(model), _system(model)
        (sa, ta), (sb, tb) = _solver(a, opts), _solver(b, opts)
        c_rows, n_rows = [], []
        for k in range(N):
            _inputs(a, k)
            _inputs(b, k)
            ta.q[:], ta.qd[:], ta.x[:], sa.vec[:], ta.t = tb.q, tb.qd, tb.x, sb.vec, tb.t
            assert sa.step(ta, H)
            assert sb._fused_call(ca.generalized_alpha_step, tb, H, ())
            c_rows.append(_state(sa, ta))
            n_rows.append(_state(sb, tb))
        worst = _worst(c_rows, n_rows)
        for key, err in worst.items():
            assert err <= (RTOL_STEP_ACC if key in ("a", "qdd", "lam") else RTOL), (opts, worst)


@pytest.mark.parametrize("at_start", [False, True])
@pytest.mark.parametrize("stabilize", ["velocity", "projection"])
@pytest.mark.parametrize("model", ["peer-quarter-car", "multilink-transient"])
def test_c_step_outputs_equal_the_numba_ones(model, stabilize, at_start):
    """``generalized_alpha_step_outputs`` (at the step's end, or at its start): the same outputs
    and states as the numba kernel's (outputs within RTOL_OUT), and the same counter increments
    in every step."""
    a, b = _system(model), _system(model)
    opts = {"stabilize": stabilize}
    (sa, ta), (sb, tb) = _solver(a, opts), _solver(b, opts)
    ya, yb = np.zeros(len(a.output_index)), np.zeros(len(b.output_index))
    rows_a, rows_b, steps = [], [], []
    for k in range(N):
        _inputs(a, k)
        _inputs(b, k)
        c0 = a.data.counter.copy()
        assert sa.step_outputs(ta, H, ya, at_start=at_start)
        steps.append((a.data.counter - c0)[:6])
        assert sb._fused_call(ca.generalized_alpha_step_outputs, tb, H,
                              (b.output_index, yb, at_start))
        rows_a.append(dict(_state(sa, ta), y=ya.copy()))
        rows_b.append(dict(_state(sb, tb), y=yb.copy()))
    _check(_worst(rows_a, rows_b))
    steps = np.array(steps)
    assert (steps == steps[0]).all()
    ne = sa._counts_per_step()[0]
    assert steps[0][CNT_EVAL] == ne + 1 and steps[0][CNT_STEP] == 1  # (the outputs' evaluation)


@pytest.mark.parametrize("stabilize", ["velocity", "projection", "none"])
@pytest.mark.parametrize("model", MODELS)
def test_c_rollout_equals_the_numba_rollout_and_the_loop_of_steps(model, stabilize):
    """The C rollout against the numba rollout kernel (same arguments,
    ``compiled_alpha.run_kernel``) in two calls (the second from step i0 = 100, continuing from
    a, q̈, λ in ``vec``), every 3rd step saved: the rows and the solver's state after within
    the tolerances of the step test; and
    against a loop of the C step: bit for bit (the same C)."""
    from rtmbs.solvers.rollout import _input_matrix

    systems = [_system(model) for _ in range(3)]
    solvers = [_solver(s, {"stabilize": stabilize}) for s in systems]
    s0 = systems[0]
    inp = {"drive_torque": 2.0 * np.arange(N)} if "drive_torque" in s0.input_names else None
    res = []
    for kernel, (slv, st), s in zip((E.generalized_alpha_rollout, ca._generalized_alpha_rollout),
                                    solvers, systems):
        rows = []
        for part, i0 in ((slice(0, N // 2), 0), (slice(N // 2, N), N // 2)):
            k = part.stop - part.start
            _, chan, vals = _input_matrix(s, {nm: v[part] for nm, v in (inp or {}).items()}, k)
            nrow = k // 3
            out = (np.zeros(nrow), np.zeros((nrow, s.n)), np.zeros((nrow, s.n)),
                   np.zeros((nrow, s.n)), np.zeros((nrow, s.m)),
                   np.zeros((nrow, len(s.output_index))), np.zeros((nrow, s.nx)))
            done = ca.run_kernel(kernel, slv, st, 0.0, i0, H, k, 3, chan, vals, s.output_index,
                                 out)
            assert done == k
            rows.append(out)
        res.append(dict(zip(("t", "q", "qd", "qd_prev", "lam", "y", "x"),
                            (np.concatenate([r[j] for r in rows]) for j in range(7))),
                        a=slv.a.copy(), qdd=slv.qdd.copy(), ratio=np.array([slv.ratio])))
    _check(_worst_arrays(res[0], res[1]))
    # the loop of C steps gives the C rollout's rows bit for bit
    slv, st = solvers[2]
    s = systems[2]
    y = np.zeros(len(s.output_index))
    half = N // 2  # (the steps whose rows the two rollouts saved: every 3rd of each call)
    saved = {j for j in range(3, half + 1, 3)} | {half + j for j in range(3, N - half + 1, 3)}
    qs, ys = [], []
    for k in range(N):
        _inputs(s, k)
        assert slv.step(st, H)
        if k + 1 in saved:
            s.outputs(st.t, st.q, st.qd, y)
            qs.append(st.q.copy())
            ys.append(y.copy())
    assert np.array_equal(np.array(qs), res[0]["q"]) and np.array_equal(np.array(ys), res[0]["y"])
    assert np.array_equal(slv.a, res[0]["a"]) and np.array_equal(slv.qdd, res[0]["qdd"])


def test_arguments_are_checked():
    """Wrong counts, dtypes, lengths and options raise instead of reading out of bounds."""
    s = _system("peer-quarter-car")
    slv, st = _solver(s, {})
    args = (*slv.kernel_args, st.q, st.qd, s.m, 0.0, H, *slv.options_args)
    with pytest.raises(TypeError):
        E.generalized_alpha_step(*args[:-1])
    bad = list(args)
    bad[15] = slv.vec[:5]  # vec too short
    with pytest.raises(ValueError):
        E.generalized_alpha_step(*bad)
    bad = list(args)
    bad[14] = bad[14].astype(np.int64)  # midx of the wrong dtype
    with pytest.raises(TypeError):
        E.generalized_alpha_step(*bad)
    bad = list(args)
    bad[-1] = 7  # stab
    with pytest.raises(ValueError):
        E.generalized_alpha_step(*bad)
    r = E.generalized_alpha_step(*args)
    assert len(r) == 5 and r[0] > 0.0 and r[4] is True
