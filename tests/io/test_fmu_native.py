"""Native co-simulation FMUs (rtmbs.fmu, src/rtmbs/engine/fmu) checked with fmpy.

For the double pendulum, the multilink with transient tyres and the sedan, as FMI 2.0 and FMI 3.0
FMUs: fmpy's validation finds no problem; fmpy.simulate_fmu with an input table gives the outputs
of rtmbs's own compiled run (rollout: the same h, options and per-step inputs) to 1e-12
relative; the binary rebuilt from the FMU's sources/ by fmpy gives the same numbers; the binary
needs libc and libm only; two instances stepped alternately in one process equal two separate
runs; FMU states come back bit for bit; a failed step is an error naming the time.

Outputs are compared as the FMI defines them: after doStep(t_k, h) the outputs at t_{k+1} with
the inputs set before the step (fmpy samples before it sets the next inputs), as rollout's rows.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import zipfile
from pathlib import Path

import fmpy  # the `test` extra installs it
import numpy as np
import pytest
from fmpy.validation import validate_fmu

from _models.library import library_model
from rtmbs.cli import main as cli_main
from rtmbs.fmu import export_fmu, fmi_headers
from rtmbs.fmu.export import PLATFORM
from rtmbs.models import load_model
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import rollout

H = 1e-3
T = 0.3
RTOL = 1e-12
MODELS = ["double-pendulum", "multilink-transient", "sedan"]
CASES = [(m, v) for m in MODELS for v in (2, 3)]
STRICT = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]

if shutil.which("cc") is None:
    pytest.skip("no C compiler (cc): the FMU binary is built with it", allow_module_level=True)


_FMUS: dict = {}


@pytest.fixture(scope="module")
def fmus(tmp_path_factory):
    """The six FMUs, exported once (the double pendulum's through the command line)."""
    root = tmp_path_factory.mktemp("fmus")

    def get(name: str, fmi: int) -> Path:
        key = (name, fmi)
        if key not in _FMUS:
            path = root / f"{name}-{fmi}.fmu"
            if name == "double-pendulum":
                assert cli_main(["export-fmu", name, "--fmi", str(fmi), "--h", str(H), "-o",
                                 str(path)]) == 0
            else:
                export_fmu(library_model(name), path, fmi=fmi, h=H)
            _FMUS[key] = path
        return _FMUS[key]

    return get


def _input_table(names):
    """A table of every input: ramps between a few points (fmpy interpolates it linearly)."""
    if not names:
        return None
    tt = np.array([0.0, 0.1, 0.2, T])
    sig = np.zeros(len(tt), dtype=[("time", float)] + [(nm, float) for nm in names])
    sig["time"] = tt
    for k, nm in enumerate(names):
        sig[nm] = [0.0, 40.0 * (k + 1), -25.0 * (k + 1), 10.0]
    if "handwheel_angle" in names:
        sig["handwheel_angle"] = [0.0, 0.3, -0.2, 0.1]
    return sig


def _fmi_names(system):
    return [f"{nm}_out" if nm in system.input_names else nm for nm in system.output_names]


def _simulate_fmu(path, system):
    """fmpy's run with the input table; the inputs each step saw are recorded too."""
    names = list(system.input_names)
    return fmpy.simulate_fmu(str(path), stop_time=T, output_interval=H,
                             input=_input_table(names), output=_fmi_names(system) + names)


def _reference(system, inputs: dict, options: dict | None = None):
    """rtmbs's own run: li-euler at H with the default options, the compiled rollout, the
    inputs of each step given; rows at t0 .. T of every named output."""
    system = system.new_data()
    state = system.initial_state()
    slv = get_solver("li-euler")(system, **(options or {}))
    slv.reset(state)
    y0 = np.zeros(len(system.output_names))
    system.outputs(state.t, state.q, state.qd, y0)
    n = int(round(T / H))
    r = rollout(slv, state, n, H, inputs=inputs)
    assert r.nsteps == n
    t = np.concatenate([[state.t - n * H], r.t])
    return t, {nm: np.concatenate([[y0[j]], r.outputs[nm]])
               for j, nm in enumerate(system.output_names)}


def _worst(res, system, ref) -> float:
    """Largest difference over every output, relative to the output's largest magnitude."""
    worst = 0.0
    for nm, fmi_name in zip(system.output_names, _fmi_names(system)):
        a, b = np.asarray(res[fmi_name]), ref[nm]
        scale = max(np.abs(b).max(), 1e-300)
        worst = max(worst, float(np.abs(a - b).max() / scale))
    return worst


def _compare(res, system, options: dict | None = None) -> float:
    names = list(system.input_names)
    # step k ran with the inputs recorded at row k + 1 (sampled after the step, before the next
    # inputs are set): rollout gets exactly those values
    inputs = {nm: np.asarray(res[nm][1:], float) for nm in names}
    table = _input_table(names)
    for nm in names:  # (and they are the table's, to round-off)
        tk = np.arange(len(res) - 1) * H
        assert np.allclose(inputs[nm], np.interp(tk, table["time"], table[nm]), atol=1e-12)
    t, ref = _reference(system, inputs, options)
    assert len(res) == len(t)
    np.testing.assert_allclose(res["time"], t, rtol=0, atol=1e-12)
    return _worst(res, system, ref)


@pytest.mark.parametrize("name,fmi", CASES)
def test_fmu_validates_and_equals_rtmbs(fmus, name, fmi):
    """fmpy validates the model description (units, ModelStructure, start values ...), and
    its run of the binary equals rtmbs's run to RTOL on every output."""
    path = fmus(name, fmi)
    assert validate_fmu(str(path)) == []
    md = fmpy.read_model_description(str(path))
    system = library_model(name)
    outs = [v for v in md.modelVariables if v.causality == "output"]
    assert [v.name for v in outs] == _fmi_names(system)
    assert all(v.unit and v.description for v in outs)  # (every output of these has a unit)
    assert [v.name for v in md.modelVariables if v.causality == "input"] == list(system.input_names)
    assert md.coSimulation.needsExecutionTool is False
    assert len(md.outputs) == len(outs) and len(md.initialUnknowns) == len(outs)
    res = _simulate_fmu(path, system)
    worst = _compare(res, system)
    print(f"{name} FMI {fmi}: largest relative difference {worst:.3g}")
    assert worst <= RTOL


@pytest.mark.parametrize("options", [
    {"stabilize": "ggl", "ggl_iterations": 2},  # (a second KKT: GGL's)
    {"projection": "mass"},                     # (a second KKT: the projector's)
    {"stabilize": "baumgarte", "baumgarte_gamma": 50.0},
    {"stabilize": "none", "position_update": "explicit", "jacobian": "all"},
])
def test_solver_options_are_compiled_in(options, tmp_path):
    """The options given at export (through the command line) are the FMU's: its run equals
    rtmbs's run with the same options to RTOL, also with a second KKT of its own."""
    args = []
    for key, value in options.items():
        args += ["--option", f"{key}={value}"]
    path = tmp_path / "dp.fmu"
    assert cli_main(["export-fmu", "double-pendulum", "--fmi", "2", "--h", str(H), "-o", str(path),
                     *args]) == 0
    assert validate_fmu(str(path)) == []
    system = library_model("double-pendulum")
    worst = _compare(_simulate_fmu(path, system), system, options)
    print(f"double pendulum {options}: largest relative difference {worst:.3g}")
    assert worst <= RTOL


@pytest.mark.parametrize("name,fmi", CASES)
def test_binary_needs_libc_and_libm_only(fmus, name, fmi, tmp_path):
    """ldd of the binary: libc, libm, the loader and the vDSO; RUNPATH $ORIGIN; only the FMI
    functions exported."""
    ldd = shutil.which("ldd")
    if ldd is None:
        pytest.skip("ldd is not installed")
    with zipfile.ZipFile(fmus(name, fmi)) as zf:
        sos = [n for n in zf.namelist() if n.startswith(f"binaries/{PLATFORM[fmi]}/")]
        assert len(sos) == 1 and sos[0].endswith(".so")
        zf.extractall(tmp_path)
    so = tmp_path / sos[0]
    libs = [line.split()[0] for line in subprocess.run([ldd, str(so)], capture_output=True,
                                                         text=True, check=True).stdout.splitlines()]
    assert libs and all(lib.startswith(("linux-vdso", "libc.so", "libm.so", "/lib64/ld-linux",
                                        "/lib/ld-linux")) for lib in libs), libs
    dyn = subprocess.run(["readelf", "-d", str(so)], capture_output=True, text=True).stdout
    assert "[$ORIGIN]" in dyn
    syms = subprocess.run(["nm", "-D", "--defined-only", str(so)], capture_output=True,
                          text=True).stdout.split("\n")
    names = [s.split()[-1] for s in syms if s.strip()]
    assert names and all(n.startswith(f"fmi{fmi}") for n in names), names


@pytest.mark.parametrize("name,fmi", [("double-pendulum", 2),
                                      pytest.param("multilink-transient", 3, marks=pytest.mark.slow),
                                      pytest.param("sedan", 3, marks=pytest.mark.slow)])
def test_rebuilt_from_sources_gives_the_same_numbers(fmus, name, fmi, tmp_path):
    """fmpy rebuilds the binary from sources/ (the files modelDescription.xml or
    buildDescription.xml list, with CMake): the same numbers as the shipped binary. (One FMI
    version per model, to keep the time down: CMake compiles every source, 10-25 s a build.)"""
    if shutil.which("cmake") is None:
        pytest.skip("cmake is not installed (fmpy builds the sources with it)")
    from fmpy.build import build_platform_binary

    path = fmus(name, fmi)
    unzipdir = tmp_path / "fmu"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(unzipdir)
    shutil.rmtree(unzipdir / "binaries")
    os.environ.setdefault("CMAKE_BUILD_PARALLEL_LEVEL", str(os.cpu_count() or 1))
    build_platform_binary(unzipdir.resolve(), build_dir=None)
    assert list((unzipdir / "binaries" / PLATFORM[fmi]).glob("*.so"))
    system = library_model(name)
    shipped = _simulate_fmu(path, system)
    rebuilt = _simulate_fmu(unzipdir, system)
    for nm in _fmi_names(system):
        np.testing.assert_allclose(rebuilt[nm], shipped[nm], rtol=RTOL, atol=0)


@pytest.mark.parametrize("fmi", [2, 3])
def test_sources_compile_without_warnings(fmus, fmi, tmp_path):
    """The FMU's own sources, model_data.c and the FMI layer (fmu/), under -std=c99 -Wall
    -Wextra -Wpedantic -Werror (gcc and clang where installed); the engine's other sources are
    checked so in tests/engine/test_harness.py."""
    with zipfile.ZipFile(fmus("double-pendulum", fmi)) as zf:
        zf.extractall(tmp_path)
    src = tmp_path / "sources"
    files = [src / "model_data.c", *sorted((src / "fmu").glob("*.c"))]
    assert src / "fmu" / f"fmi{fmi}.c" in files and len(files) == 3
    for cc in ("gcc", "clang"):
        if shutil.which(cc) is None:
            continue
        for f in files:
            r = subprocess.run([cc, *STRICT, "-O2", f"-I{src}", f"-I{fmi_headers()}", "-c", str(f),
                                "-o", str(tmp_path / "x.o")], capture_output=True, text=True)
            assert r.returncode == 0 and r.stderr == "", f"{cc} {f.name}: {r.stderr}"


def _slave(path: Path, tmp_path: Path, fmi: int, instance: str):
    unzipdir = tmp_path / "unzipped"
    if not unzipdir.exists():
        with zipfile.ZipFile(path) as zf:
            zf.extractall(unzipdir)
    md = fmpy.read_model_description(str(unzipdir))
    cls = fmpy.fmi2.FMU2Slave if fmi == 2 else fmpy.fmi3.FMU3Slave
    fmu = cls(guid=md.guid, unzipDirectory=str(unzipdir),
              modelIdentifier=md.coSimulation.modelIdentifier, instanceName=instance)
    vrs = {v.name: v.valueReference for v in md.modelVariables}
    return fmu, vrs


def _init(fmu, fmi):
    """Initialise an instantiated FMU at t = 0 (FMI 2: setupExperiment first)."""
    if fmi == 2:
        fmu.setupExperiment(startTime=0.0)
        fmu.enterInitializationMode()
    else:
        fmu.enterInitializationMode(startTime=0.0)
    fmu.exitInitializationMode()


def _start(fmu, fmi):
    fmu.instantiate()
    _init(fmu, fmi)


def _real(fmu, fmi):
    return (fmu.getReal, fmu.setReal) if fmi == 2 else (fmu.getFloat64, fmu.setFloat64)


@pytest.mark.parametrize("fmi", [2, 3])
def test_two_instances_stepped_alternately_equal_two_runs(fmus, fmi, tmp_path):
    """Two sedan instances in one process, with different drive torques, stepped alternately:
    each equals its own run alone; an FMU state taken halfway and set again repeats the second
    half bit for bit (also through serialisation)."""
    path = fmus("sedan", fmi)
    system = library_model("sedan")
    outs = _fmi_names(system)
    n = 150

    def run(pairs):
        """pairs: [(fmu, vrs, torque)]; step all alternately; the outputs of each, per step."""
        rows = [[] for _ in pairs]
        for k in range(n):
            for j, (fmu, vrs, torque) in enumerate(pairs):
                get, set_ = _real(fmu, fmi)
                set_([vrs["drive_torque"]], [torque])
                fmu.doStep(k * H, H)
                rows[j].append(get([vrs[o] for o in outs]))
        return [np.array(r) for r in rows]

    a, va = _slave(path, tmp_path, fmi, "a")
    b, vb = _slave(path, tmp_path, fmi, "b")
    _start(a, fmi)
    _start(b, fmi)
    ya, yb = run([(a, va, 120.0), (b, vb, -80.0)])
    assert np.abs(ya - yb).max() > 0  # (the two runs differ: their inputs do)
    for fmu in (a, b):
        fmu.terminate()
        fmu.freeInstance()
    for torque, y in ((120.0, ya), (-80.0, yb)):
        c, vc = _slave(path, tmp_path, fmi, "c")
        _start(c, fmi)
        (yc,) = run([(c, vc, torque)])
        np.testing.assert_array_equal(yc, y)
        c.terminate()
        c.freeInstance()

    # FMU states: get at n steps, run on, set it back (and through serialisation), run again
    d, vd = _slave(path, tmp_path, fmi, "d")
    _start(d, fmi)
    run([(d, vd, 50.0)])
    get_state = d.getFMUstate if fmi == 2 else d.getFMUState
    set_state = d.setFMUstate if fmi == 2 else d.setFMUState
    serialize = d.serializeFMUstate if fmi == 2 else d.serializeFMUState
    deserialize = d.deSerializeFMUstate if fmi == 2 else d.deserializeFMUState
    state = get_state()
    blob = serialize(state)
    first = [], []

    def more(store):
        get, set_ = _real(d, fmi)
        for k in range(n, n + 50):
            set_([vd["drive_torque"]], [50.0])
            d.doStep(k * H, H)
            store.append(get([vd[o] for o in outs]))

    more(first[0])
    set_state(state)
    more(first[1])
    restored = deserialize(blob)
    set_state(restored)
    again = []
    more(again)
    free_state = d.freeFMUstate if fmi == 2 else d.freeFMUState
    free_state(state)
    free_state(restored)
    np.testing.assert_array_equal(np.array(first[1]), np.array(first[0]))
    np.testing.assert_array_equal(np.array(again), np.array(first[0]))
    d.terminate()
    d.freeInstance()


@pytest.mark.parametrize("fmi", [2, 3])
def test_failed_step_is_an_error_naming_the_time(fmus, fmi, tmp_path):
    """A communication step that is not a multiple of h, and a diverging step, return
    fmi2Error / fmi3Error with a logged message that names the time."""
    from fmpy.fmi1 import FMICallException

    path = fmus("sedan", fmi)
    messages = []

    def logger(*args):  # FMI 3: (env, status, category, message); FMI 2 through _fmi2_callbacks
        messages.append(" ".join(a.decode() if isinstance(a, bytes) else str(a) for a in args))

    unzipdir = tmp_path / "unzipped"
    with zipfile.ZipFile(path) as zf:
        zf.extractall(unzipdir)
    md = fmpy.read_model_description(str(unzipdir))
    cls = fmpy.fmi2.FMU2Slave if fmi == 2 else fmpy.fmi3.FMU3Slave
    fmu = cls(guid=md.guid, unzipDirectory=str(unzipdir),
              modelIdentifier=md.coSimulation.modelIdentifier, instanceName="x")
    if fmi == 3:
        fmu.instantiate(loggingOn=True, logMessage=logger)
    else:
        fmu.instantiate(loggingOn=True, callbacks=_fmi2_callbacks(logger))
    _init(fmu, fmi)
    with pytest.raises(FMICallException):
        fmu.doStep(0.0, 1.5 * H)
    assert any("not a multiple" in m and "t = 0" in m for m in messages), messages
    vr = {v.name: v.valueReference for v in md.modelVariables}
    _, set_ = _real(fmu, fmi)
    set_([vr["drive_torque"]], [1e15])
    with pytest.raises(FMICallException):
        for k in range(200):
            fmu.doStep(k * H, H)
    assert any(("diverged" in m or "failed" in m) and "from t = " in m for m in messages), messages
    fmu.freeInstance()


def _fmi2_callbacks(logger):
    from fmpy import calloc, free
    from fmpy.fmi2 import (fmi2CallbackAllocateMemoryTYPE, fmi2CallbackFreeMemoryTYPE,
                           fmi2CallbackFunctions, fmi2CallbackLoggerTYPE)

    cb = fmi2CallbackFunctions()
    cb.logger = fmi2CallbackLoggerTYPE(lambda env, inst, status, cat, msg: logger(status, msg))
    cb.allocateMemory = fmi2CallbackAllocateMemoryTYPE(calloc)
    cb.freeMemory = fmi2CallbackFreeMemoryTYPE(free)
    _CALLBACKS.append(cb)  # (kept alive while the instance may call them)
    return cb


_CALLBACKS: list = []


@pytest.mark.parametrize("fmi", [2, 3])
def test_car_from_vehicle_files_runs_after_its_folder_is_gone(fmi, tmp_path):
    """A car built from a vehicle file and a .tir file in a temporary folder: the FMU (exported
    through the command line) validates and runs after the folder is deleted, equal to rtmbs's
    run of the same car to RTOL (the model's data are compiled into the binary)."""
    import re

    import yaml

    from rtmbs.engine import SOURCE_DIR

    doc = (SOURCE_DIR.parents[2] / "docs" / "vehicle.md").read_text()
    section = doc[doc.index("## A complete vehicle in one file"):]
    data = yaml.safe_load(re.search(r"```yaml\n(.*?)```", section, re.S).group(1))
    folder = tmp_path / "car"
    folder.mkdir()
    tir = SOURCE_DIR.parent / "data" / "tyre" / "chrono_Sedan_Pac02Tire.tir"
    shutil.copy2(tir, folder / "my_tyre.tir")
    data["subsystems"]["wheels"]["tyre"] = "my_tyre.tir"
    (folder / "vehicle.yaml").write_text(yaml.safe_dump(data))
    system = load_model(str(folder / "vehicle.yaml"))
    path = tmp_path / f"car-{fmi}.fmu"
    assert cli_main(["export-fmu", str(folder / "vehicle.yaml"), "--fmi", str(fmi), "--h", str(H),
                     "-o", str(path)]) == 0
    shutil.rmtree(folder)
    assert validate_fmu(str(path)) == []
    res = _simulate_fmu(path, system)
    worst = _compare(res, system)
    print(f"car from vehicle files, FMI {fmi}: largest relative difference {worst:.3g}")
    assert worst <= RTOL
