"""FMU export: the FMU loaded by fmpy gives the same numbers as ``simulate`` on the same inputs."""
from pathlib import Path

import numpy as np
import pytest

import rtmbs_realtime_test_models as tm
from rtmbs.solvers.simulate import simulate

pythonfmu = pytest.importorskip("pythonfmu", reason="pythonfmu not installed (pip install 'rtmbs[fmu]')")
fmpy = pytest.importorskip("fmpy", reason="fmpy not installed (pip install 'rtmbs[fmu]')")

from rtmbs.io.fmu import export_fmu  # noqa: E402

H = 1e-3
SPEC = f"{Path(tm.__file__)}:make_msd"


@pytest.fixture(scope="module")
def fmu_path(tmp_path_factory):
    return export_fmu(SPEC, tm.SOLVER_NAME, H, tmp_path_factory.mktemp("fmu") / "msd.fmu")


def _reference(force, t_end):
    system = tm.MassSpringDamper()
    system.set_input("force", force)
    return simulate(system, tm.SOLVER_NAME, t_end=t_end, h=H)


def test_model_description(fmu_path):
    md = fmpy.read_model_description(str(fmu_path), validate=False)
    causal = {v.name: v.causality for v in md.modelVariables}
    # the output 'force' (the applied input echoed) is renamed: FMI names are unique
    assert causal == {"force": "input", "x": "output", "v": "output", "force_out": "output"}
    assert [v.name for v in md.modelVariables if v.causality == "output"] == ["x", "v", "force_out"]
    assert float(md.defaultExperiment.stepSize) == H


def test_fmpy_simulate_matches_simulate(fmu_path):
    res = fmpy.simulate_fmu(str(fmu_path), stop_time=0.2, step_size=H, validate=False,
                            output=["x", "v"])
    ref = _reference(0.0, 0.2)
    k = np.rint(res["time"] / H).astype(int)
    assert len(k) == 201 and k[-1] == 200
    np.testing.assert_array_equal(res["x"], ref.q[k, 0])
    np.testing.assert_array_equal(res["v"], ref.qd[k, 0])


def test_inputs_and_communication_steps(fmu_path):
    from fmpy.fmi1 import FMICallException
    from fmpy.fmi2 import FMU2Slave

    md = fmpy.read_model_description(str(fmu_path), validate=False)
    vr = {v.name: v.valueReference for v in md.modelVariables}
    unzip = fmpy.extract(str(fmu_path))
    fmu = FMU2Slave(guid=md.guid, unzipDirectory=unzip,
                    modelIdentifier=md.coSimulation.modelIdentifier, instanceName="a")
    fmu.instantiate()
    try:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
        fmu.exitInitializationMode()
        fmu.setReal([vr["force"]], [2.5])
        ref = _reference(2.5, 0.1)
        t = 0.0
        for j in range(1, 51):          # communication step 2 h: two solver steps each
            fmu.doStep(t, 2 * H)
            t = round(j * 2 * H, 12)
            x, v, f = fmu.getReal([vr["x"], vr["v"], vr["force_out"]])
            assert (x, v, f) == (ref.q[2 * j, 0], ref.qd[2 * j, 0], 2.5)
        # a communication step that is not a multiple of h is refused
        with pytest.raises(FMICallException, match="fmi2DoStep failed"):
            fmu.doStep(t, 1.5 * H)
    finally:
        fmu.terminate()
        fmu.freeInstance()


@pytest.mark.parametrize("stabilize", ["projection", "none"])
def test_exported_options_reproduce_rtmbs_run(tmp_path, capsys, stabilize):
    """``rtmbs export-fmu --stabilize S`` carries the option into the FMU: fmpy's outputs equal
    those of ``rtmbs run`` with the same options (and not those of the other choice)."""
    from rtmbs.cli import main
    from rtmbs.result import Result

    fmu = tmp_path / "dp.fmu"
    # the seeds' explicit positions, where projection and none differ visibly
    seed = ["--position-update", "explicit"]
    assert main(["export-fmu", "double-pendulum", "--solver", "li-euler", "--h", "1e-3",
                 "--stabilize", stabilize, *seed, "-o", str(fmu)]) == 0
    runs = {}
    for s in ("projection", "none"):
        assert main(["run", "double-pendulum", "--solver", "li-euler", "--h", "1e-3", "--t-end",
                     "0.3", "--stabilize", s, *seed, "--out", str(tmp_path / s), "--json"]) == 0
        runs[s] = Result.load(tmp_path / s)
    capsys.readouterr()
    names = ["link2.x", "link2.z", "link1.wy"]
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.3, step_size=H, validate=False, output=names)
    k = np.rint(res["time"] / H).astype(int)
    assert len(k) == 301 and k[-1] == 300
    other = "none" if stabilize == "projection" else "projection"
    for nm in names:
        np.testing.assert_array_equal(res[nm], runs[stabilize].outputs[nm][k])
    assert np.abs(res["link2.z"] - runs[other].outputs["link2.z"][k]).max() > 1e-7


def test_fmu_bundles_the_files_a_model_refers_to(tmp_path, monkeypatch, capsys):
    """A YAML model's tyre and road files travel inside the FMU: with the model folder deleted
    and fmpy started from another folder, the FMU gives the numbers of ``rtmbs run`` on a copy."""
    import shutil
    import sys
    import zipfile

    from rtmbs.cli import main
    from rtmbs.result import Result

    sys.path.insert(0, str(Path(__file__).parents[1] / "core"))
    from test_relocatable import write_model

    model = write_model(tmp_path / "project")
    copy = shutil.copytree(tmp_path / "project", tmp_path / "copy")
    fmu = tmp_path / "wheel.fmu"
    assert main(["export-fmu", str(model), "--solver", "li-euler", "--h", "1e-3",
                 "--stabilize", "projection", "-o", str(fmu)]) == 0
    names = zipfile.ZipFile(fmu).namelist()
    assert any(n.endswith("rtmbs_files/front.tir") for n in names)
    assert any(n.endswith("rtmbs_files/bump.csv") for n in names)
    shutil.rmtree(tmp_path / "project")
    assert main(["run", str(copy / "wheel.yaml"), "--solver", "li-euler", "--h", "1e-3",
                 "--t-end", "0.2", "--stabilize", "projection", "--out", str(tmp_path / "run")]) == 0
    ref = Result.load(tmp_path / "run")
    capsys.readouterr()
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    out = ["rim.z", "tyre.force"]
    res = fmpy.simulate_fmu(str(fmu), stop_time=0.2, step_size=H, validate=False, output=out)
    k = np.rint(res["time"] / H).astype(int)
    assert k[-1] == 200
    for nm in out:
        np.testing.assert_array_equal(res[nm], ref.outputs[nm][k])
    assert np.ptp(ref.outputs["rim.z"]) > 1e-3  # the wheel went over the bump
