"""Algorithm 2 (``li-euler-indep``, B = "partition", packed storage) in the C engine
(src/rtmbs/engine/li_euler_indep.c, partition.c, rollout_indep.c) against the numba kernels it
replaces (rtmbs.solvers.compiled_indep.li_euler_indep_step, rollout_indep._li_euler_indep_rollout).

Two solvers on two copies of a model run the same steps, one with the C kernels (the default) and
one with the numba ones (``solver.kernels = NUMBA_KERNELS``); the rebases (a new partition: rook
pivoting and a sparse analysis) run in Python between the compiled calls on both. Asserted per
step: q, q̇, ż to 1e-10 relative (per entry, relative to max(|numba value|, 1)) and λ to 1e-10
of its largest entry; the solver's
counters (steps, evaluations, factorisations, solves, rebases, fallbacks) identical; the C data's
own counters (rtmbs_count) advance by the solver's factorisations and solves (and its evaluations
less one: M, Q, γ and the Jacobians at t are one evaluation in the compiled step, two calls in the
Python-driven one the solver counts) in every step without a rebase or a re-mapping, with the
same multiply-adds in every such step between two rebases.

The numba evaluation contracts multiply-adds into FMA and the C does not (the solver kernels are
compiled without fastmath in both: same order of operations), so the two agree to round-off,
not bit for bit."""
import numpy as np
import pytest

from rtmbs.demo import demo_system
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.li_euler_indep import C_KERNELS, NUMBA_KERNELS
from rtmbs.solvers.rollout import rollout

E = pytest.importorskip("rtmbs.engine._engine")

H = 1e-3
RTOL = 1e-10
NSTEPS = 250
CHANGE_AT = 150  # the caller halves q̇ before this step (ż re-mapped inside the compiled call)
CNT_EVAL, CNT_ELEMENT, CNT_FACTOR, CNT_SOLVE, CNT_FLOP, CNT_STEP = range(6)

CONFIGS = {
    "projection": {},
    "projection-T": {"projection_solve": "T", "jacobian": "all"},
    "none": {"stabilize": "none", "multipliers": False},
    "baumgarte": {"stabilize": "baumgarte", "position_update": "explicit"},
    "rebase-every-step": {"rebase_tol": 1e3},
}
# four-bar is small (n < 18): linear_solver="sparse" puts it on the compiled (packed) path
MODELS = {"four-bar": {"linear_solver": "sparse"}, "peer-quarter-car": {}, "multilink-ideal": {}}


def _counts(slv):
    return (slv.nstep, slv.neval, slv.nfactor, slv.nsolve, slv.nrebase, slv.nfallback)


def _close(name, got, want, where, normwise=False):
    """Per entry, relative to max(|want|, 1) (``normwise``: to max(max |want|, 1))."""
    got, want = np.asarray(got, float), np.asarray(want, float)
    assert got.shape == want.shape, where
    if want.size == 0:
        return 0.0
    scale = max(np.abs(want).max(), 1.0) if normwise else np.maximum(np.abs(want), 1.0)
    err = np.abs(got - want) / scale
    assert err.max() <= RTOL, f"{where}: {name} differs by {err.max():.2e} (relative)"
    return float(err.max())


def _run(model, options, kernels):
    system = load_model(model)
    slv = get_solver("li-euler-indep")(system, **options)
    assert slv.fused_step
    slv.kernels = kernels
    st = system.initial_state()
    st.qd *= 2.0  # (more motion)
    slv.reset(st)
    rows = []
    for k in range(NSTEPS):
        if k == CHANGE_AT:
            st.qd *= 0.5
        before = _counts(slv), system.data.counter.copy()
        ok = slv.step(st, H)
        rows.append(dict(ok=ok, t=st.t, q=st.q.copy(), qd=st.qd.copy(), lam=slv.lam.copy(),
                         zd=slv.zd.copy(), counts=_counts(slv), before=before,
                         engine=system.data.counter.copy(), cols=slv.cols.copy()))
        if not ok:
            break
    return slv, rows


# multilink-ideal with a rebase in every step: rook pivoting of its Φq meets pivots equal to
# round-off, and the numba and C evaluations (FMA or not) choose other partitions from the first
# step (then q̇ differs by the drift of q̇ + Δq̇, 1e-6); the C step against the Python-driven one on
# the same evaluations (bit for bit, partitions included) is tests/solvers/test_indep_fused.py
CASES = [(model, config) for model in MODELS for config in CONFIGS
         if (model, config) != ("multilink-ideal", "rebase-every-step")]


@pytest.mark.parametrize("model,config", CASES)
def test_step_agrees_with_numba(model, config):
    options = {**MODELS[model], **CONFIGS[config]}
    slv_c, c = _run(model, options, C_KERNELS)
    slv_n, nb = _run(model, options, NUMBA_KERNELS)
    assert len(c) == len(nb) == NSTEPS, f"stopped at step {min(len(c), len(nb))}"
    f = slv_c.f
    proj = config not in ("none", "baumgarte") and slv_c.system.m > 0
    mult = config != "none" and slv_c.system.m > 0
    flops = None
    fixed = 0
    for k, (a, b) in enumerate(zip(c, nb)):
        where = f"{model} {config} step {k + 1}"
        assert a["ok"] and b["ok"] and a["t"] == b["t"], where
        for name in ("q", "qd", "zd"):
            _close(name, a[name], b[name], where)
        # λ (N, N m: up to 1e4 on these models) relative to its largest entry: a small
        # multiplier beside large ones carries their round-off
        _close("lam", a["lam"], b["lam"], where, normwise=True)
        assert a["counts"] == b["counts"], f"{where}: counters {a['counts']} vs {b['counts']}"
        assert np.array_equal(a["cols"], b["cols"]), f"{where}: partition"
        # the C data's counters: what the step did, as the solver counts it
        (c0, e0), e1 = a["before"], a["engine"]
        d_solver = np.subtract(a["counts"], c0)
        d = e1 - e0
        assert d[CNT_STEP] == 1, where
        rebased = d_solver[4] > 0
        changed = k == CHANGE_AT
        kkt = proj and config != "projection-T"
        if rebased and not changed:  # the C call stops before q̇ = S b + R ż (then Python)
            assert tuple(d[[CNT_EVAL, CNT_FACTOR, CNT_SOLVE]]) == (
                2 + proj, 2 + kkt, f + 2 + proj + mult), where
        if rebased:
            flops = None  # (a new partition: a new plan of Φu, other multiply-adds)
        if rebased or changed:
            continue
        fixed += 1
        # (the compiled step evaluates M, Q, γ and the Jacobians at t in one call; the solver
        # counts them as the Python-driven step's two calls)
        assert d[CNT_EVAL] == d_solver[1] - 1 == 2 + proj, where
        assert d[CNT_FACTOR] == d_solver[2] == 2 + kkt, where
        assert d[CNT_SOLVE] == d_solver[3] == f + 3 + proj + mult, where
        if flops is None:
            flops = d[CNT_FLOP]
        assert d[CNT_FLOP] == flops > 0, f"{where}: multiply-adds {d[CNT_FLOP]} vs {flops}"
    if config == "rebase-every-step":
        assert slv_c.nrebase == NSTEPS
    else:
        assert fixed >= NSTEPS - 1 - slv_c.nrebase > 0
    if model == "peer-quarter-car" and config == "projection":
        assert slv_c.nrebase >= 1  # the pivot check of Φu fails on the way: B chosen again


def test_changed_state_step_counts_the_remapping():
    """The caller's change of q̇ costs one evaluation, factorisation and solve more, in C."""
    slv, rows = _run("multilink-ideal", {}, C_KERNELS)
    (c0, e0), e1 = rows[CHANGE_AT]["before"], rows[CHANGE_AT]["engine"]
    (c0b, e0b), e1b = rows[CHANGE_AT - 1]["before"], rows[CHANGE_AT - 1]["engine"]
    cnt = [CNT_EVAL, CNT_FACTOR, CNT_SOLVE]
    assert list((e1 - e0)[cnt] - (e1b - e0b)[cnt]) == [1, 1, 1]
    assert tuple(np.subtract(rows[CHANGE_AT]["counts"], c0)[1:4]) == tuple(
        np.subtract(rows[CHANGE_AT - 1]["counts"], c0b)[1:4] + 1)


def test_step_outputs_agree_with_numba():
    """``step_outputs`` (the real-time loop's step): the outputs at the end and at the start."""
    out = {}
    for name, kernels in (("c", C_KERNELS), ("numba", NUMBA_KERNELS)):
        system = load_model("multilink-ideal")
        slv = get_solver("li-euler-indep")(system)
        slv.kernels = kernels
        st = system.initial_state()
        slv.reset(st)
        y = np.zeros(len(system.output_names))
        rows = []
        for k in range(200):
            assert slv.step_outputs(st, H, y, at_start=k % 2 == 1)
            rows.append(np.concatenate([st.q, st.qd, y]))
        out[name] = np.array(rows)
    scale = np.maximum(np.abs(out["numba"]).max(axis=0), 1.0)
    assert (np.abs(out["c"] - out["numba"]) / scale).max() <= 1e-9


ROLLOUTS = {  # name: (model factory, options, steps, every, inputs)
    "multilink-ideal": (lambda: load_model("multilink-ideal"), {}, 300, 3,
                        {"drive_torque": np.linspace(0.0, 300.0, 300)}),
    "demo bump": (demo_system, {}, 400, 2, {}),
    "peer-quarter-car": (lambda: load_model("peer-quarter-car"), {}, 300, 1, {}),
}


@pytest.mark.parametrize("case", list(ROLLOUTS))
def test_rollout_agrees_with_numba(case):
    """The compiled rollout (rebases finished in Python between calls): rows, state, counters."""
    make, opts, n, every, inputs = ROLLOUTS[case]
    res = {}
    for name, kernels in (("c", C_KERNELS), ("numba", NUMBA_KERNELS)):
        system = make()
        slv = get_solver("li-euler-indep")(system, **opts)
        slv.kernels = kernels
        st = system.initial_state()
        slv.reset(st)
        r = rollout(slv, st, n, H, inputs=inputs, every=every)
        res[name] = (slv, st, r)
    (sc, stc, rc), (sn, stn, rn) = res["c"], res["numba"]
    assert rc.status == rn.status == 1 and rc.nsteps == rn.nsteps == n
    assert _counts(sc) == _counts(sn)
    assert np.array_equal(sc.cols, sn.cols)
    for key in ("t", "q", "qd", "qd_prev", "lam", "x"):
        got, want = getattr(rc, key), getattr(rn, key)
        scale = np.maximum(np.abs(want).max(axis=0, initial=0.0), 1.0)
        assert (np.abs(got - want) / scale).max(initial=0.0) <= RTOL, key
    for nm in sc.system.output_names:
        want = rn.outputs[nm]
        scale = max(np.abs(want).max(), 1.0)
        assert np.abs(rc.outputs[nm] - want).max() / scale <= 1e-8, nm
    if case in ("demo bump", "peer-quarter-car"):
        assert sc.nrebase >= 1  # B chosen again on the way: the compiled call returned
