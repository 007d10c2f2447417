"""Quarter-car manoeuvres and identification (Carpinelli 2015 §5.1.3): the concept model's known
parameters come back from its own noisy responses; bad set-ups are named errors."""
import numpy as np
import pytest

from rtmbs.concept import calibrate as idf
from rtmbs.concept import drive_cycles as mv
from rtmbs.concept import models as cm
from rtmbs.errors import ModelError, SolverError
from rtmbs.models import load_model
from rtmbs.system import compile_model

QUICK = mv.TEST.scaled(0.25, "quick")   # 4.5 s: settle 1.5 s, drive 1.5-2.5 s, brake 3.75-4.5 s
NAMES = cm.QUARTER_PARAMS


def _truth_and_start():
    d = cm.quarter_defaults()
    truth = {"d_r": 0.75, "e_r": 0.14, "K_r": 34000.0, "L0_r": d["L0_r"] + 0.004, "C_r": 2600.0}
    lo = [0.3, 0.0, 15000.0, d["L0_r"] - 0.05, 500.0]
    hi = [1.5, 0.4, 60000.0, d["L0_r"] + 0.05, 6000.0]
    return truth, [d[k] for k in NAMES], (lo, hi)


def test_test_manoeuvre_torques():
    t = np.array([0.0, 5.99, 6.5, 7.0, 8.0, 9.0, 9.5, 10.0, 12.0, 15.0, 15.15, 15.3, 17.9])
    drive, brake = mv.TEST.torques(t)
    assert drive.tolist() == pytest.approx([0, 0, 250, 500, 500, 500, 250, 0, 0, 0, 0, 0, 0])
    assert brake.tolist() == pytest.approx([0] * 10 + [175, 350, 350])
    assert (mv.V1.drive, mv.V1.brake, mv.V1.road_class) == (300.0, 150.0, "A")
    assert (mv.V2.drive, mv.V2.brake, mv.V2.road_class) == (400.0, 250.0, "C")
    q = mv.TEST.scaled(0.5)
    assert q.torques([3.5])[0][0] == pytest.approx(500.0) and q.t_end == 9.0


def test_identification_recovers_known_parameters_from_noisy_responses():
    truth, x0, bounds = _truth_and_start()
    sim = idf.quarter_car_simulator(QUICK)
    target = sim(truth)
    assert target["status"] == 1
    rng = np.random.default_rng(0)
    noisy = dict(target)
    noisy["z"] = target["z"] + 2e-4 * rng.standard_normal(target["z"].size)     # 0.2 mm
    noisy["vz"] = target["vz"] + 2e-3 * rng.standard_normal(target["vz"].size)  # 2 mm/s
    calls = []

    def counting_map(fn, args):
        calls.append(len(args))
        return [fn(a) for a in args]

    r = idf.identify(sim, noisy, NAMES, x0, bounds, known=NAMES, map=counting_map)
    start_err = max(abs(x0[i] / truth[k] - 1) for i, k in enumerate(NAMES))
    assert start_err > 0.15
    for k in NAMES:
        assert r.params[k] == pytest.approx(truth[k], rel=0.01), k
    # the Jacobian columns went through the map hook, one batch of 5 per iteration
    assert calls and set(calls) == {len(NAMES)} and len(calls) == r.iterations
    assert r.history[-1] < 1e-2 * r.history[0]
    assert all(b <= a * (1 + 1e-12) for a, b in zip(r.history, r.history[1:]))


def test_cumulative_residual_has_two_equations():
    truth, _, _ = _truth_and_start()
    t = np.linspace(0.0, 1.0, 11)
    target = {"t": t, "z": np.sin(t), "vz": np.cos(t)}
    model = {"t": t, "z": np.sin(t) + 0.1, "vz": np.cos(t) - 0.2}
    r = idf.residual_vector(model, target, residual="cumulative")
    dt = 0.1
    assert r == pytest.approx([11 * 0.1 / np.std(np.sin(t)) * dt, 11 * 0.2 / np.std(np.cos(t)) * dt])
    s = idf.residual_vector(model, target, residual="cumulative", cumulative="signed")
    assert s == pytest.approx([-r[0], r[1]])
    st = idf.residual_vector(model, target)
    assert st.size == 22
    assert 0.5 * st @ st == pytest.approx(0.5 * ((0.1 / np.std(np.sin(t))) ** 2 + (0.2 / np.std(np.cos(t))) ** 2))


def test_bad_set_ups_are_named():
    _, x0, (lo, hi) = _truth_and_start()
    sim = lambda p: None  # noqa: E731 (never called: the checks come first)
    with pytest.raises(ModelError, match=r"identify\.names\.K_rr: unknown parameter \(did you mean 'K_r'"):
        idf.identify(sim, {}, ("d_r", "K_rr"), x0[:2], (lo[:2], hi[:2]), known=NAMES)
    bad_lo = list(lo)
    bad_lo[2] = 31000.0
    with pytest.raises(ModelError, match=r"identify\.bounds\.K_r: the start 30000 is outside the bounds \[31000, 60000\]"):
        idf.identify(sim, {}, NAMES, x0, (bad_lo, hi), known=NAMES)
    with pytest.raises(ModelError, match=r"identify\.x0: expected 5 values"):
        idf.identify(sim, {}, NAMES, x0[:4], (lo, hi), known=NAMES)
    with pytest.raises(SolverError, match=r"identify: the target has no signal 'vz' \(it has: t, z\)"):
        idf.identify(sim, {"t": [0.0, 1.0], "z": [0.0, 0.0]}, NAMES, x0, (lo, hi), known=NAMES)
    with pytest.raises(SolverError, match=r"manoeuvre 'test': model 'double-pendulum' has no input channel 'drive_torque'"):
        mv.run(load_model("double-pendulum"), mv.TEST)


def test_manoeuvre_drives_the_detailed_model_and_the_concept_alike():
    """A short test on multilink-ideal and on the concept quarter car (default design): both
    settle near the same chassis height (the concept's free length is set for the detailed
    model's ride height) and both respond to the drive torque."""
    from rtmbs.models.multilink import multilink_model
    man = mv.TEST.scaled(0.15, "short")
    ref = mv.run(compile_model(multilink_model("ideal", road=man.road())), man)
    con = mv.run(compile_model(cm.quarter_car_model(road=man.road())), man)
    assert ref["status"] == con["status"] == 1
    k = int(round(man.t_drive / 1e-3)) - 1
    assert abs(ref["z"][k] - con["z"][k]) < 1e-3
    k2 = int(round(man.t_neutral / 1e-3)) - 1
    assert abs(ref["z"][k2] - ref["z"][k]) > 5e-4 and abs(con["z"][k2] - con["z"][k]) > 5e-4


@pytest.mark.slow  # the concept study identifies the full car (§5.2.3); the quarter car's noisy identification stays fast
def test_full_car_gives_back_its_parameters():
    """§5.2.3's identifiability check on the 12-DOF trailing-arm car: rear rate, damping, IC and
    pitch inertia from its own noisy body responses (z, v_z, roll and pitch rates) over a 3.5 s
    drive-coast-brake run on ISO B (separate left and right tracks)."""
    man = mv.Manoeuvre("car-quick", drive=300.0, brake=300.0, road_class="B", t_drive=0.5,
                       t_neutral=2.0, t_brake=2.5, t_end=3.5, drive_ramp=0.3, brake_ramp=0.2)
    sim = idf.car_simulator(man)
    names = ("K_r", "C_r", "d_r", "e_r", "I_yy")
    truth = {"K_r": 34000.0, "C_r": 2900.0, "d_r": 0.75, "e_r": 0.14, "I_yy": 2300.0}
    target = sim(truth)
    assert target["status"] == 1
    rng = np.random.default_rng(1)
    noisy = dict(target)
    for k, s in (("z", 2e-4), ("vz", 2e-3), ("wx", 2e-3), ("wy", 2e-3)):
        noisy[k] = target[k] + s * rng.standard_normal(target[k].size)
    d = cm.car_defaults()
    x0 = [d[k] for k in names]
    r = idf.identify(sim, noisy, names, x0, ([15000, 500, 0.2, -0.2, 1000], [60000, 6000, 2.0, 0.5, 4000]),
                     known=cm.CAR_PARAMS, signals=("z", "vz", "wx", "wy"), max_iterations=15)
    for k in names:
        assert r.params[k] == pytest.approx(truth[k], rel=0.01), k
    assert abs(x0[names.index("e_r")] / truth["e_r"] - 1) > 0.2


CAR_TRUTH = {"K_r": 34000.0, "C_r": 2900.0, "d_r": 0.75, "e_r": 0.14, "K_f": 28000.0,
             "C_f": 2200.0}


def _car_measurement(params, brake):
    """Virtual measurement on the 12-DOF car (ISO B, 3.5 s: 300 N m drive from 0.5 s, coast from
    2 s, ``brake`` N m on every wheel from 2.5 s): the car's outputs, the wheel-centre height
    tables for the identification model, the drive torque and the grid."""
    from rtmbs.model.description import Input
    from rtmbs.solvers.base import get_solver
    from rtmbs.solvers.rollout import rollout

    man = mv.Manoeuvre("car", drive=300.0, brake=brake, road_class="B", t_drive=0.5,
                       t_neutral=2.0, t_brake=2.5, t_end=3.5, drive_ramp=0.3, brake_ramp=0.2)
    h = 1e-3
    n = int(round(man.t_end / h))
    car = compile_model(cm.trailing_arm_car_model(params, road=man.road()))
    slv = get_solver("li-euler")(car)
    st = car.initial_state()
    q0 = st.q.copy()
    slv.reset(st)
    drive, b = man.torques(np.arange(n) * h)
    o = rollout(slv, st, n, h, inputs={"drive_torque": drive, "brake_front": b,
                                       "brake_rear": b}).outputs
    t = np.concatenate([[0.0], np.arange(1, n + 1) * h])
    wz = {c: Input(type="table", t=t.tolist(), values=np.concatenate(
        [[q0[car.body_qadr[car.body_index[f"rim_{c}"]] + 2]], o[f"rim_{c}.z"]]).tolist())
        for c in cm.CORNERS}
    return o, wz, drive, man.t_end, h, n


@pytest.mark.slow  # the concept study runs §5.2.2; that the model follows the car stays fast
def test_identification_model_identifies_the_full_car():
    """§5.2.2: the 5-body identification model (no rims, no tyres), driven by the 12-DOF car's
    wheel-centre heights and tyre forces, identifies the car's front and rear rates, dampings
    and rear IC from its body heave, v_z and pitch rate (measured: within 1.3 %, 6 iterations)."""
    o, wz, drive, t_end, h, n = _car_measurement(CAR_TRUTH, brake=300.0)
    inputs = {"drive_torque": drive, **{f"Fx_{c}": np.concatenate([[0.0], o[f"tyre_{c}.Fx"][:-1]])
                                        for c in cm.CORNERS}}
    sim = idf.identification_model_simulator(wz, inputs, t_end, h,
                                             signals={"z": "body.z", "vz": "body.vz", "wy": "body.wy"})
    target = {"t": np.arange(1, n + 1) * h, "z": o["body.z"], "vz": o["body.vz"], "wy": o["body.wy"]}
    names = tuple(CAR_TRUTH)
    d = cm.car_defaults()
    x0 = [d[k] for k in names]
    r = idf.identify(sim, target, names, x0, ([15000, 500, 0.2, -0.2, 15000, 500],
                                              [60000, 6000, 2.0, 0.5, 60000, 6000]),
                     known=cm.CAR_PARAMS, signals=("z", "vz", "wy"), max_iterations=15)
    for k in names:
        assert r.params[k] == pytest.approx(CAR_TRUTH[k], rel=0.03), k
    assert abs(x0[names.index("e_r")] / CAR_TRUTH["e_r"] - 1) > 0.2


def test_identification_model_follows_the_full_car():
    """§5.2.2 on virtual measurements of the 12-DOF car (ISO B road, 300 N m drive then coast):
    the 5-body identification model, its wheel-centre heights driven by the car's (tables), its
    longitudinal inputs either the car's tyre forces or eqs. 5.6-5.8 from the car's a_x,
    reproduces the body's heave and pitch. Measured RMS errors / signal std: with the tyre forces
    9 % (z), 7 % (v_z), 6 % (pitch rate); with eqs. 5.6-5.8 33 %, 21 %, 14 % (the equations
    split the rolling resistance between the axles by static load, the tyres do not)."""
    from rtmbs.concept import longitudinal as lo
    from rtmbs.solvers.base import get_solver
    from rtmbs.solvers.rollout import rollout

    o, wz, drive, _, h, n = _car_measurement({}, brake=0.0)
    idm = compile_model(cm.identification_model(wheel_z=wz))
    mm = cm.detailed_masses()
    ax = np.gradient(np.concatenate([[0.0], o["body.vx"]]), h)[:-1]
    W = {c: w + (mm.arm + mm.rim) * 9.81 for c, (_, w) in cm.corner_positions().items()}
    measured = {"drive_torque": drive, **{f"Fx_{c}": np.concatenate([[0.0], o[f"tyre_{c}.Fx"][:-1]])
                                          for c in cm.CORNERS}}
    estimated = lo.identification_inputs(ax, cm.SPRUNG_MASS + 4 * (mm.arm + mm.rim), W, 0.01, 1.25,
                                         cm.ml.WHEEL_CENTRE_Z)
    for inputs, limits in ((measured, (0.15, 0.12, 0.1)), (estimated, (0.45, 0.3, 0.2))):
        s = get_solver("li-euler")(idm)
        st2 = idm.initial_state()
        s.reset(st2)
        r = rollout(s, st2, n, h, inputs=inputs)
        assert r.status == 1
        for k, lim in zip(("body.z", "body.vz", "body.wy"), limits):
            err = np.sqrt(np.mean((r.outputs[k] - o[k]) ** 2))
            assert err < lim * np.std(o[k]), (k, err, np.std(o[k]))
