"""Model and data: several runs on one compiled model are independent."""
import numpy as np
import pytest

from rtmbs.errors import SolverError

from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver


def _run(system, torque, n_steps, solver="li-euler"):
    slv = get_solver(solver)(system)
    st = system.initial_state()
    slv.reset(st)
    return slv, st


def test_interleaved_runs_on_one_model_equal_separate_runs():
    """Two runs with different drive torques on two data objects of one model, stepped in turn,
    end exactly where each ends when run alone."""
    model = load_model("multilink-ideal")
    torques = (150.0, -80.0)
    alone = []
    for tq in torques:
        s = model.new_data()
        s.set_input("drive_torque", tq)
        slv, st = _run(s, tq, 0)
        for _ in range(300):
            assert slv.step(st, 1e-3)
        alone.append(st.q.copy())
    runs = []
    for tq in torques:
        s = model.new_data()
        s.set_input("drive_torque", tq)
        runs.append(_run(s, tq, 0))
    for _ in range(300):
        for slv, st in runs:
            assert slv.step(st, 1e-3)
    for (slv, st), q in zip(runs, alone):
        np.testing.assert_array_equal(st.q, q)
    # and the two torques really gave different motions
    assert np.abs(alone[0] - alone[1]).max() > 1e-3


def test_new_data_shares_the_model_and_not_the_inputs():
    model = load_model("multilink-ideal")
    a, b = model.new_data(), model.new_data()
    assert a._ibuf is b._ibuf and a._fbuf is b._fbuf
    a.set_input("drive_torque", 10.0)
    assert b.fun_par[b.fun_names["drive_torque"], 0] == 0.0
    assert model.fun_par[model.fun_names["drive_torque"], 0] == 0.0


def test_rollout_equals_the_step_loop_with_the_same_inputs():
    """rollout (one compiled call) with a drive torque over time takes exactly the steps of the
    Python loop that sets the input before each step, and returns the outputs there."""
    from rtmbs.solvers.rollout import rollout

    model = load_model("multilink-ideal")
    torque = np.linspace(0.0, 300.0, 400)
    a = model.new_data()
    slv_a, st_a = _run(a, 0, 0)
    assert slv_a.fused
    r = rollout(slv_a, st_a, 400, 1e-3, inputs={"drive_torque": torque}, every=4)
    b = model.new_data()
    slv_b, st_b = _run(b, 0, 0)
    out = np.zeros(len(b.output_names))
    k = b.output_names.index("rim.z")
    zs = []
    for i in range(400):
        b.set_input("drive_torque", torque[i])
        assert slv_b.step(st_b, 1e-3)
        if (i + 1) % 4 == 0:
            b.outputs(st_b.t, st_b.q, st_b.qd, out)
            zs.append(out[k])
    assert r.status == 1 and r.nsteps == 400 and len(r.t) == 100
    np.testing.assert_array_equal(st_a.q, st_b.q)
    np.testing.assert_array_equal(r.q[-1], st_b.q)
    np.testing.assert_allclose(r.t, 4e-3 * np.arange(1, 101), rtol=0, atol=1e-15)
    np.testing.assert_array_equal(r.outputs["rim.z"], zs)
    assert slv_a.nstep == slv_b.nstep == 400 and slv_a.neval == slv_b.neval


def test_rollout_stops_at_a_diverging_step_and_keeps_the_last_good_state():
    from rtmbs.solvers.rollout import rollout

    s = load_model("multilink-ideal").new_data()
    slv, st = _run(s, 0, 0)
    torque = np.zeros(50)
    torque[20] = np.nan
    with pytest.raises(SolverError, match=r"rollout: input 'drive_torque' is nan at step 21: "
                                          "inputs must be finite numbers"):
        rollout(slv, st, 50, 1e-3, inputs={"drive_torque": torque})
    torque[20] = 1e25  # a torque that throws the wheel off at step 21
    r = rollout(slv, st, 50, 1e-3, inputs={"drive_torque": torque})
    assert r.status == -1 and r.nsteps == 20 and len(r.t) == 20
    assert "rollout stopped at step 21 of 50 (t = 0.021 s)" in r.message
    np.testing.assert_array_equal(st.q, r.q[-1])
    assert st.t == r.t[-1] and np.all(np.isfinite(st.q))


@pytest.mark.parametrize("model_name,solver", [("multilink-bushings", "li-euler"),
                                               ("multilink-ideal", "li-euler"),
                                               ("multilink-ideal", "li-euler-indep")])
def test_step_outputs_equals_the_step_then_the_outputs(model_name, solver):
    """``step_outputs`` (for the compiled li-euler one compiled call: the step, then the named
    outputs at the new state) publishes exactly what ``step`` followed by ``system.outputs``
    gives, every output at every step, and the outputs do not change the trajectory."""
    model = load_model(model_name)
    torque = np.linspace(0.0, 300.0, 200)
    a, b = model.new_data(), model.new_data()
    slv_a, st_a = _run(a, 0, 0, solver)
    slv_b, st_b = _run(b, 0, 0, solver)
    assert getattr(slv_a, "fused", False) == (solver == "li-euler")
    ya, yb = np.zeros(len(a.output_names)), np.zeros(len(b.output_names))
    first = None
    for i in range(200):
        a.set_input("drive_torque", torque[i])
        b.set_input("drive_torque", torque[i])
        assert slv_a.step_outputs(st_a, 1e-3, ya)
        assert slv_b.step(st_b, 1e-3)
        b.outputs(st_b.t, st_b.q, st_b.qd, yb)
        np.testing.assert_array_equal(ya, yb)
        assert st_a.t == st_b.t
        first = ya.copy() if first is None else first
    np.testing.assert_array_equal(st_a.q, st_b.q)
    np.testing.assert_array_equal(st_a.qd, st_b.qd)
    assert slv_a.nstep == slv_b.nstep == 200 and slv_a.neval == slv_b.neval
    # the outputs are those of the moving state: the rim's height and the tyre's force changed
    for name, change in (("rim.z", 1e-5), ("tyre.Fz", 1.0)):
        j = a.output_names.index(name)
        assert abs(ya[j] - first[j]) > change, name


# -- several data on one model: interleaved runs -------------------------------------------------
#: (solver, options): the compiled steps of the four fixed-step solvers of a compiled model and
#: the dense path driven from Python (every evaluation through ``system.evaluate``)
INTERLEAVED = [("li-euler", {}), ("li-euler", {"linear_solver": "dense"}), ("li-euler-indep", {}),
               ("explicit-euler", {}), ("generalized-alpha", {})]


@pytest.fixture(scope="module")
def transient_multilink():
    """multilink-ideal with a transient tyre (extra states in the data) and a drive torque."""
    from rtmbs.models.multilink import build

    return build("ideal", transient=True)


def _two_starts(model, solver, options):
    """Two different consistent states of ``model``: its initial state, and the state after 60
    steps with a drive torque of 400 N m (the wheel spinning, the tyre deflected)."""
    d = model.new_data()
    slv = get_solver(solver)(d, **options)
    st = d.initial_state()
    slv.reset(st)
    d.set_input("drive_torque", 400.0)
    for _ in range(60):
        assert slv.step(st, 1e-3)
    return model.initial_state(), st


def _chunks(slv, data, st, torque, y):
    """The run in pieces: a rollout of 40 steps, two ``step_outputs``, a rollout of 40 more, a
    ``step`` and the outputs. Yields after each piece (so that two runs can be interleaved) and
    collects what each piece returns into ``y``."""
    from rtmbs.solvers.rollout import rollout

    out = np.zeros(len(data.output_names))
    for k in range(2):
        r = rollout(slv, st, 40, 1e-3, inputs={"drive_torque": torque[k]}, every=8)
        y += [r.q, r.qd, r.lam, r.x, *r.outputs.values()]
        yield
        for _ in range(2):
            data.set_input("drive_torque", torque[k])
            assert slv.step_outputs(st, 1e-3, out)
            y.append(out.copy())
            yield
    assert slv.step(st, 1e-3)
    data.outputs(st.t, st.q, st.qd, out)
    y += [st.q.copy(), st.qd.copy(), st.x.copy(), np.array([st.t]), out.copy()]
    yield


@pytest.mark.parametrize("solver,options", INTERLEAVED)
def test_two_data_on_one_model_interleaved_end_as_each_alone(transient_multilink, solver, options):
    """Two data objects of one model, two solvers, two initial states and two drive torques:
    the runs taken piece by piece in turn (rollouts and single steps) give, bit for bit, every
    row, output, multiplier, extra state and end state that each run gives alone."""
    model = transient_multilink
    starts = _two_starts(model, solver, options)
    torques = (np.array([150.0, 250.0]), np.array([-80.0, 30.0]))

    def run(k):
        d = model.new_data()
        slv = get_solver(solver)(d, **options)
        st = starts[k].copy()
        slv.reset(st)
        y = []
        return _chunks(slv, d, st, torques[k], y), y

    alone = []
    for k in range(2):
        pieces, y = run(k)
        for _ in pieces:
            pass
        alone.append(y)
    (pa, ya), (pb, yb) = run(0), run(1)
    for _ in zip(pa, pb):  # a piece of run 0, a piece of run 1, ...
        pass
    for got, want in ((ya, alone[0]), (yb, alone[1])):
        assert len(got) == len(want)
        for g, w in zip(got, want):
            np.testing.assert_array_equal(g, w)
    # the two runs differ (different starts and torques), and the deflections moved
    assert np.abs(alone[0][-5] - alone[1][-5]).max() > 1e-3
    assert np.abs(alone[0][-3]).max() > 1e-5 and np.abs(alone[1][-3]).max() > 1e-5


def test_data_objects_have_their_own_per_run_attributes_and_the_model_s_others(transient_multilink):
    """``new_data`` makes a :class:`Data`: the per-run attributes new (no array of one data object
    shares memory with another's or the model's), every other attribute the model's own object.
    Running on a data object (a solver's steps, outputs, extra-state rates, an initial state with
    input callables) leaves no attribute on it outside ``DATA_ATTRIBUTES`` and none on the model."""
    from rtmbs.system import DATA_ATTRIBUTES, Data

    model = transient_multilink
    before = set(vars(model)) | {"_packed"}  # (the packed layout: a constant, made at first use)
    a, b = model.new_data(), model.new_data()
    assert type(a) is Data and a.compiled is model and a.new_data().compiled is model
    for d in (a, b):
        slv = get_solver("li-euler")(d)
        st = d.initial_state()
        slv.reset(st)
        assert slv.step_outputs(st, 1e-3, np.zeros(len(d.output_names)))
        d.outputs(st.t, st.q, st.qd, np.zeros(len(d.output_names)))
        d.extra_rates(st.t, st.q, st.qd, st.x, np.zeros(d.nx))
        d.acceleration_outputs(st.t, st.q, st.qd, np.zeros(d.n), np.zeros(len(d.acceleration_names)))
        d.set_input_functions({"drive_torque": lambda t: 10.0 * t})
        d.initial_state()
    for name in DATA_ATTRIBUTES:
        objs = [getattr(x, name) for x in (model, a, b)]
        assert len({id(o) for o in objs}) == 3, name
    arrays = {name: [getattr(x, name) for x in (model, a, b)
                     if isinstance(getattr(x, name), np.ndarray)] for name in DATA_ATTRIBUTES}
    arrays["_rates_ws"] = [x._rates_ws.buf for x in (a, b)]
    assert all(len(arrays[k]) == 3 for k in ("_sbuf", "fun_par", "extra_state", "force_out_all"))
    assert len(arrays["_outputs_ws"]) == 2
    for name, objs in arrays.items():
        for i in range(len(objs)):
            for j in range(i + 1, len(objs)):
                assert not np.shares_memory(objs[i], objs[j]), name
    for name in vars(model):
        if name not in DATA_ATTRIBUTES:
            assert getattr(a, name) is getattr(model, name), name
    assert set(vars(a)) <= set(DATA_ATTRIBUTES) | set(vars(model)) | {"compiled"}
    assert set(vars(model)) == before
    # the model's data and a data object's are apart: an input set on one is not on the others
    a.set_input("drive_torque", 5.0)
    row = model.fun_names["drive_torque"]
    assert (a.fun_par[row, 0], b.fun_par[row, 0], model.fun_par[row, 0]) == (5.0, 0.0, 0.0)
