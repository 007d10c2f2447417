"""`rtmbs identify CONFIG.yaml` on the concept quarter car (docs/concept.md): the
four-phase manoeuvre named in a config reproduces rtmbs.concept.drive_cycles.run, known parameters
come back from the model's own noisy run, a target run of another model (multilink-ideal), the
exact messages of bad configs, and the Jacobian columns on a 2-worker LocalCluster equal the
in-process ones bit for bit."""
import csv
import functools

import numpy as np
import pytest
import yaml

from rtmbs.concept import calibrate as idf
from rtmbs.concept import drive_cycles as mv
from rtmbs.concept import models as cm
from rtmbs.errors import ModelError
from rtmbs.models.multilink import multilink_model
from rtmbs.runs.engine import local_cluster, run_many
from rtmbs.runs.identify import fd_points, identify, problem, residuals_task, simulate_signals
from rtmbs.system import compile_model

SCALE = 0.25   # the 18 s test as 4.5 s: settle 1.5 s, drive 1.5-2.5 s, brake 3.75-4.5 s
MAN = {"four-phase": "test", "scale": SCALE}
SIGNALS = ["chassis.z", "chassis.vz"]
K, C, L0 = "forces.spring.stiffness", "forces.spring.damping", "forces.spring.free_length"


def _config(target, **extra):
    return {"model": "concept-quarter-car", "manoeuvre": MAN, "signals": SIGNALS,
            "parameters": {K: {"start": 45000.0, "bounds": [10000.0, 80000.0]},
                           C: {"start": 1500.0, "bounds": [300.0, 8000.0]},
                           L0: {"start": 0.48, "bounds": [0.40, 0.60]}},
            "target": target, **extra}


def test_named_four_phase_manoeuvre_reproduces_the_concept_run():
    """The config's tables and road drive the YAML model exactly as concept.drive_cycles.run
    drives the Python-built one (the same numbers to round-off)."""
    man = mv.TEST.scaled(SCALE)
    prob = problem(_config({"run": {}}))
    assert prob.spec.t_end == pytest.approx(man.t_end)   # the manoeuvre's duration by default
    ref = mv.run(compile_model(cm.quarter_car_model(None, road=man.road())), man)
    assert ref["status"] == 1
    for key, sig in (("z", "chassis.z"), ("vz", "chassis.vz")):
        y = np.interp(ref["t"], prob.t_meas, prob.measured[sig])
        assert np.max(np.abs(y - ref[key])) < 1e-9 * np.max(np.abs(ref[key])), sig
    # the drive and brake phases move the chassis (the inputs arrive): pitch-free heave of mm
    assert np.ptp(ref["z"][ref["t"] > 1.0]) > 1e-3


IC_X = "bodies.chassis.markers.ic_rl.position.0"


def test_also_ties_the_pivot_on_both_bodies_as_d_r():
    """The instant centre's x is two numbers of the YAML (the pivot marker on the chassis and on
    the arm): ``also`` writes one identified value to both, which is the factory's d_r."""
    d_r = 0.75
    ic_x = cm.detailed_masses().arm_cg[0] + d_r
    cfg = _config({"run": {IC_X: ic_x}}, manoeuvre={"four-phase": "test", "scale": 0.1})
    cfg["parameters"] = {IC_X: {"start": 0.6, "bounds": [0.2, 1.6],
                                "also": ["bodies.arm.markers.ic.position.0"]}}
    prob = problem(cfg)
    man = mv.TEST.scaled(0.1)
    ref = mv.run(compile_model(cm.quarter_car_model({"d_r": d_r}, road=man.road())), man)
    default = mv.run(compile_model(cm.quarter_car_model(None, road=man.road())), man)
    y = np.interp(ref["t"], prob.t_meas, prob.measured["chassis.z"])
    assert np.max(np.abs(y - ref["z"])) < 1e-9
    assert np.max(np.abs(default["z"] - ref["z"])) > 1e-4   # d_r matters
    with pytest.raises(ModelError) as e:
        cfg["parameters"][IC_X]["also"] = ["bodies.arm.markers.icc.position.0"]
        problem(cfg)
    assert "bodies.arm.markers.icc.position.0: unknown parameter of model 'concept-quarter-car'" \
        in str(e.value)


def test_example_config_of_the_docs_is_valid():
    """The config shown in docs/concept.md passes every check (on a 1.8 s window of its test)."""
    from pathlib import Path

    text = (Path(__file__).parents[2] / "docs" / "concept.md").read_text()
    block = "#" + text.split("```yaml\n# concept-id.yaml")[1].split("```")[0]
    cfg = yaml.safe_load(block)
    assert cfg["manoeuvre"] == "four-phase" and cfg["target"] == {"model": "multilink-ideal"}
    prob = problem({**cfg, "manoeuvre": {"four-phase": "test", "scale": 0.1}})
    assert prob.paths[-2:] == [IC_X, "bodies.chassis.markers.ic_rl.position.2"]
    assert prob.tied[IC_X] == ["bodies.arm.markers.ic.position.0"]
    assert np.all(prob.lower < prob.start) and np.all(prob.start < prob.upper)
    assert np.std(prob.measured["chassis.z"]) > 1e-3   # multilink-ideal moved over the road


def test_recovers_known_parameters_from_own_noisy_run(tmp_path):
    truth = {K: 34000.0, C: 2600.0, L0: 0.479}
    cfg = _config({"run": truth})
    out = simulate_signals(problem(cfg).spec, truth)
    rng = np.random.default_rng(1)
    keep = slice(0, None, 10)   # sampled every 10 ms
    noise = {"chassis.z": 2e-4, "chassis.vz": 2e-3}   # 0.2 mm, 2 mm/s
    with open(tmp_path / "measured.csv", "w", newline="") as fh:
        w = csv.writer(fh)
        w.writerow(["t"] + SIGNALS)
        cols = [out["t"][keep]] + [out[s][keep] + noise[s] * rng.standard_normal(out[s][keep].size)
                                   for s in SIGNALS]
        w.writerows(np.column_stack(cols).tolist())
    (tmp_path / "id.yaml").write_text(yaml.safe_dump(_config({"data": "measured.csv"}, max_nfev=30)))
    res = identify(tmp_path / "id.yaml", scheduler=None, progress=False)
    assert res.status > 0
    for p, v in truth.items():
        assert abs(res.start[p] / v - 1) > 0.0015 * (p == L0) + 0.15 * (p != L0), p  # start off
        assert res.values[p] == pytest.approx(v, rel=0.01 if p != L0 else 1e-3), p
    assert res.rms < 1.5 * np.sqrt(np.mean([(noise[s] / np.std(out[s][keep])) ** 2 for s in SIGNALS]))


def test_target_run_of_multilink_ideal_is_the_study_reference():
    """target {model: multilink-ideal}: the detailed model through the same manoeuvre, as the
    concept study runs it (rtmbs.studies.concept._reference), on a 0.9 s window."""
    man = mv.TEST.scaled(0.05)
    prob = problem({**_config({"model": "multilink-ideal"}), "manoeuvre": {"four-phase": "test",
                                                                          "scale": 0.05}})
    ref = mv.run(compile_model(multilink_model("ideal", road=man.road())), man)
    assert ref["status"] == 1
    y = np.interp(ref["t"], prob.t_meas, prob.measured["chassis.z"])
    assert np.max(np.abs(y - ref["z"])) < 1e-9
    # and it is not the concept model's response
    concept = mv.run(compile_model(cm.quarter_car_model(None, road=man.road())), man)
    assert np.max(np.abs(concept["z"] - ref["z"])) > 1e-4


@pytest.mark.parametrize("change, message", [
    ({"manoeuvre": "four-phase-V3"}, "config: manoeuvre: unknown manoeuvre 'four-phase-V3' "
     "(did you mean 'four-phase-V2'? known: four-phase, four-phase-V1, four-phase-V2)"),
    ({"manoeuvre": {"four-phase": "V4"}}, "config: manoeuvre.four-phase: unknown test 'V4'"),
    ({"manoeuvre": {"four-phase": "V1", "scale": -1}}, "config: manoeuvre.scale: expected a "
     "number > 0, got -1"),
    ({"manoeuvre": {"four-phase": "V1", "speed": 2}}, "config: manoeuvre.speed: unknown key "
     "(known: four-phase, scale)"),
    ({"model": "double-pendulum", "parameters": {"bodies.link1.mass": {"start": 1.0}}},
     "config: manoeuvre: model 'double-pendulum' has no tyre: the four-phase test drives it over a road"),
    ({"target": {"model": "multilink-ideal", "data": "x.csv"}}, "config: target: expected "
     "{run: {PATH: value, ...}}"),
    ({"target": {"model": "peer-quarter-car"}}, "config: manoeuvre: model 'peer-quarter-car' has no tyre"),
])
def test_bad_concept_configs_are_named(change, message):
    with pytest.raises(ModelError) as e:
        problem({**_config({"run": {}}), **change})
    assert message in str(e.value)


def test_jacobian_columns_on_a_local_cluster_equal_in_process():
    """Both identification paths: rtmbs identify's residual tasks (run_many) and the concept
    identification's Residual through functools.partial(run_many, scheduler=client) as map."""
    prob = problem(_config({"run": {K: 34000.0, C: 2600.0, L0: 0.479}}, manoeuvre={
        "four-phase": "test", "scale": 0.1}))
    pts, _ = fd_points(prob, prob.start)
    tasks = [(prob, x) for x in [prob.start] + pts]
    here = run_many(residuals_task, tasks, scheduler=None, progress=False)

    man = mv.TEST.scaled(0.1)
    sim = idf.quarter_car_simulator(man)
    target = sim({"K_r": 34000.0, "C_r": 2600.0})
    names = ("K_r", "C_r", "d_r")
    res = idf.Residual(sim, target, names, np.array([1e4, 300.0, 0.3]), np.array([7e4, 7700.0, 1.2]),
                       ("z", "vz"), "stacked", "absolute", {"z": float(np.std(target["z"])),
                                                           "vz": float(np.std(target["vz"]))})
    u_pts, _ = idf.fd_points(np.array([0.4, 0.3, 0.5]), 1e-3)
    cols_here = list(map(res, u_pts))
    with local_cluster(2) as client:
        there = run_many(residuals_task, tasks, scheduler=client, progress=False)
        cols_there = functools.partial(run_many, scheduler=client, progress=False)(res, u_pts)
    for a, b in zip(here, there):
        assert np.array_equal(a, b)
    for a, b in zip(cols_here, cols_there):
        assert np.array_equal(a, b)
    # the columns differ from each other and from the base point (each moved one parameter)
    assert all(not np.array_equal(here[0], c) for c in here[1:])
    assert not np.array_equal(cols_here[0], cols_here[1])


@pytest.mark.parametrize("args, message", [
    (["concept", "--scheduler", "foo"], "rtmbs: error: --scheduler 'foo': expected none, local or "
     "an address such as tcp://host:8786\n"),
    (["concept", "--workers", "2"], "rtmbs: error: --workers: only with --scheduler local (the "
     "processes of a LocalCluster)\n"),
    (["truck", "--scheduler", "local"], "rtmbs: error: --scheduler: study 'truck' runs in this "
     "process only (--scheduler is for: concept)\n"),
])
def test_study_scheduler_options_are_checked_before_any_run(tmp_path, capsys, args, message):
    from rtmbs.cli import main

    assert main(["study", *args, "--out", str(tmp_path / "out")]) == 1
    assert capsys.readouterr().err == message
    assert not any((tmp_path / "out").rglob("*"))


def test_sweep_over_the_four_phase_test():
    """`rtmbs sweep concept-quarter-car --manoeuvre four-phase...`: each row's final chassis
    height is the Python-built model's through manoeuvres.run with that K_r."""
    from rtmbs.runs.sweep import sweep

    man = mv.TEST.scaled(0.1)
    table = sweep("concept-quarter-car", {K: [25000.0, 40000.0]},
                  manoeuvre={"four-phase": "test", "scale": 0.1}, signals=["chassis.z"],
                  progress=False)
    assert table.meta["t_end"] == pytest.approx(man.t_end)
    finals = []
    for k, z in zip((25000.0, 40000.0), table.columns["chassis.z.final"]):
        ref = mv.run(compile_model(cm.quarter_car_model({"K_r": k}, road=man.road())), man)
        assert z == pytest.approx(ref["z"][-1], abs=1e-12)
        finals.append(z)
    assert abs(finals[0] - finals[1]) > 1e-3
