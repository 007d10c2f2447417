"""The C engine without Python: strict compiles and the harness under sanitizers.

The harness (src/rtmbs/engine/harness) runs a li-euler plan written by rtmbs.engine.dump. These
tests build it with the system's compilers: each is skipped, with the reason, only when its
compiler is absent (.ci/run installs gcc and clang). The engine cross-compiled for aarch64 and
armhf and run under qemu: tests/realtime/test_export_c.py (the exported program, which is the
engine and the model's data).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from _models.library import library_model
from rtmbs.engine import SOURCE_DIR
from rtmbs.engine.dump import write_plan
from rtmbs.solvers.base import get_solver

STRICT = ["-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror"]
ENGINE_SOURCES = sorted(p for p in SOURCE_DIR.rglob("*.c") if "binding" not in p.parts and "fmu" not in p.parts
                        and "harness" not in p.parts)
HARNESS_SOURCES = ENGINE_SOURCES + sorted((SOURCE_DIR / "harness").glob("*.c"))
WRAP = "-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc"
H = 1e-3


def _need(tool: str) -> str:
    path = shutil.which(tool)
    if path is None:
        pytest.skip(f"{tool} is not installed (apt-get install it; .ci/run does)")
    return path


def _build(cc: str, out: Path, *flags: str) -> Path:
    cmd = [cc, *STRICT, "-O1", "-ffp-contract=off", f"-I{SOURCE_DIR}", *flags,
           *map(str, HARNESS_SOURCES), WRAP, "-lm", "-o", str(out)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    return out


def _plan(tmp_path: Path, name: str, steps: int):
    system = library_model(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    return write_plan(tmp_path / f"{name}.plan", solver, state, H, steps), system, solver, state


def _run(cmd, plan: Path, out: Path, every: int = 10):
    r = subprocess.run([*cmd, str(plan), str(out), str(every)], capture_output=True, text=True,
                       timeout=600)
    return r, np.fromfile(out, np.float64)


@pytest.mark.parametrize("cc", ["gcc", pytest.param("clang", marks=pytest.mark.slow)])
def test_engine_compiles_without_warnings(cc, tmp_path):
    """Every engine source (the binding aside) and the stage timer of
    benchmarks/bench_engine_stages.py under -std=c99 -Wall -Wextra -Wpedantic -Werror."""
    exe = _need(cc)
    for src in HARNESS_SOURCES + [SOURCE_DIR / "harness" / "stages" / "stages.c"]:
        r = subprocess.run([exe, *STRICT, "-O2", f"-I{SOURCE_DIR}", "-c", str(src), "-o",
                            str(tmp_path / (src.stem + ".o"))], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", f"{src.name}: {r.stderr}"


@pytest.fixture(scope="module")
def sanitized(tmp_path_factory):
    """The harness built once under AddressSanitizer and UndefinedBehaviorSanitizer."""
    return _build(_need("gcc"), tmp_path_factory.mktemp("asan") / "harness", "-g",
                  "-fsanitize=address,undefined", "-fno-sanitize-recover=all",
                  "-fno-omit-frame-pointer")


@pytest.mark.parametrize("name", [pytest.param("four-bar", marks=pytest.mark.slow),
                                  pytest.param("multilink-transient", marks=pytest.mark.slow),
                                  pytest.param("sedan", marks=pytest.mark.slow),
                                  pytest.param("mcpherson-overconstrained",
                                               marks=pytest.mark.slow)])
def test_harness_under_sanitizers(sanitized, name, tmp_path):
    """10^4 steps under AddressSanitizer and UndefinedBehaviorSanitizer: no finding, no heap
    allocation while stepping, no step whose operation counts changed, and the trajectory of
    the same C step driven from Python (bit for bit: the same code, no contraction). The
    overconstrained strut's plan carries its row map (5 redundant rows left out)."""
    exe = sanitized
    steps = 10_000
    plan, system, solver, state = _plan(tmp_path, name, steps)
    r, rows = _run([str(exe)], plan, tmp_path / "out.bin", every=1000)
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""  # (a sanitizer reports on stderr)
    assert "heap allocations while stepping 0," in r.stdout, r.stdout
    assert "steps whose counts changed 0;" in r.stdout, r.stdout
    rows = rows.reshape(-1, 1 + 2 * system.n)
    assert rows.shape[0] == steps // 1000
    # the same plan stepped from Python through the binding
    ref = []
    for k in range(steps):
        assert solver.step(state, H)
        if (k + 1) % 1000 == 0:
            ref.append(np.concatenate([[state.t], state.q, state.qd]))
    np.testing.assert_array_equal(rows, np.array(ref))


DRIVER = Path(__file__).parent / "truck_dense_driver.c"


@pytest.fixture(scope="module")
def truck_driver(tmp_path_factory):
    """build(cc): the truck driver built under the sanitizers with compiler cc, once per module."""
    built = {}

    def build(cc):
        if cc not in built:
            exe = tmp_path_factory.mktemp(f"truck-{cc}") / "driver"
            r = subprocess.run([_need(cc), *STRICT, "-O1", "-ffp-contract=off",
                                f"-I{SOURCE_DIR}", "-g", "-fsanitize=address,undefined",
                                "-fno-sanitize-recover=all", *map(str, ENGINE_SOURCES),
                                str(DRIVER), WRAP, "-lm", "-o", str(exe)],
                               capture_output=True, text=True)
            assert r.returncode == 0 and r.stderr == "", r.stderr
            built[cc] = exe
        return built[cc]

    return build


@pytest.mark.parametrize("cc, method, name, options", [
    ("gcc", "li-euler", "truck-dae", {}),
    pytest.param("gcc", "li-euler", "truck-dae", dict(stabilize="ggl"), marks=pytest.mark.slow),
    pytest.param("gcc", "li-euler", "truck-dae", dict(projection="mass"), marks=pytest.mark.slow),
    pytest.param("gcc", "li-euler", "truck-ode", {}, marks=pytest.mark.slow),
    pytest.param("gcc", "li-euler", "truck-linear", {}, marks=pytest.mark.slow),
    pytest.param("clang", "li-euler", "truck-dae", {}, marks=pytest.mark.slow),
    pytest.param("clang", "li-euler", "truck-ode", {}, marks=pytest.mark.slow),
    ("gcc", "generalized-alpha", "truck-dae", {}),
    pytest.param("gcc", "generalized-alpha", "truck-dae", dict(stabilize="projection"),
                 marks=pytest.mark.slow),
    pytest.param("gcc", "generalized-alpha", "truck-ode", dict(jacobian="stiff"),
                 marks=pytest.mark.slow),
    pytest.param("clang", "generalized-alpha", "truck-dae", dict(stabilize="none"),
                 marks=pytest.mark.slow)])
def test_truck_dense_rollout_under_sanitizers(truck_driver, cc, method, name, options, tmp_path):
    """The planar truck's dense li-euler and generalized-alpha steps (li_euler_dense.c,
    alpha_dense.c: a provider's steps, which the plan harness does not carry) in a small driver
    (tests/engine/truck_dense_driver.c) under AddressSanitizer and UndefinedBehaviorSanitizer:
    10^4 steps in one rollout, no finding, no heap allocation, no step whose counts changed, and
    the state, λ and outputs of the same rollout driven from Python bit for bit."""
    from rtmbs.models import load_model
    from rtmbs.solvers.rollout import rollout

    exe = truck_driver(cc)
    steps = 10_000
    system = load_model(name)
    solver = get_solver(method)(system, **options)
    state = system.initial_state()
    state.qd[2] = 0.3
    solver.reset(state)
    kind, par = system.compiled_provider()
    if method == "li-euler":
        stab, niter, gamma = solver.stab_options()
        head = [kind, system.m, stab, niter, solver.implicit, solver.jac_flag, gamma, H, steps,
                par.size, 0, 0.0, 0.0, 0.0, 0.0, 0]
        vec0 = []
    else:  # (the start's a, q̈, λ are in the step's vectors)
        am, af, g, b, jac, niter, stab = solver.options_args
        head = [kind, system.m, stab, niter, 0, jac, 0.0, H, steps, par.size, 1, am, af, g, b,
                solver.vec.size]
        vec0 = solver.vec
    np.concatenate([head, state.q, state.qd, par, vec0]).tofile(tmp_path / "in.bin")
    r = subprocess.run([str(exe), str(tmp_path / "in.bin"), str(tmp_path / "out.bin")],
                       capture_output=True, text=True, timeout=600)
    assert r.returncode == 0 and r.stderr == "", r.stderr
    out = np.fromfile(tmp_path / "out.bin", np.float64)
    m = system.m
    done, heap, counter = out[0], out[1], out[2:18]
    q, qd, lam, y = out[18:27], out[27:36], out[36:36 + m], out[36 + m:]
    assert done == steps and heap == 0
    assert counter[5] == steps and counter[6] == 0  # steps, steps whose counts changed
    ref = rollout(solver, state, steps, H, every=steps)
    assert ref.nsteps == steps
    np.testing.assert_array_equal(q, state.q)
    np.testing.assert_array_equal(qd, state.qd)
    np.testing.assert_array_equal(lam, ref.lam[-1])
    np.testing.assert_array_equal(y, [ref.outputs[nm][-1] for nm in system.output_names])
