"""The C engine without Python: strict compiles, the harness under sanitizers, ARM under qemu.

The harness (src/rtmbs/engine/harness) runs a li-euler plan written by rtmbs.engine.dump. These
tests build it with the system's compilers: each is skipped, with the reason, only when its
compiler or emulator is absent (.ci/run installs them: gcc, clang, Debian's cross compilers and
qemu-user).
"""
from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from rtmbs.engine import SOURCE_DIR
from rtmbs.engine.dump import write_plan
from rtmbs.models import load_model
from rtmbs.models.multilink import build as build_multilink
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


def _system(name: str):
    if name == "multilink-transient":
        return build_multilink("ideal", transient=True)
    return load_model(name)


def _plan(tmp_path: Path, name: str, steps: int):
    system = _system(name)
    solver = get_solver("li-euler")(system)
    state = system.initial_state()
    solver.reset(state)
    return write_plan(tmp_path / f"{name}.plan", solver, state, H, steps), system, solver, state


def _run(cmd, plan: Path, out: Path, every: int = 10):
    r = subprocess.run([*cmd, str(plan), str(out), str(every)], capture_output=True, text=True,
                       timeout=600)
    return r, np.fromfile(out, np.float64)


@pytest.mark.parametrize("cc", ["gcc", "clang"])
def test_engine_compiles_without_warnings(cc, tmp_path):
    """Every engine source (the binding aside) and the stage timer of
    benchmarks/bench_engine_stages.py under -std=c99 -Wall -Wextra -Wpedantic -Werror."""
    exe = _need(cc)
    for src in HARNESS_SOURCES + [SOURCE_DIR / "harness" / "stages" / "stages.c"]:
        r = subprocess.run([exe, *STRICT, "-O2", f"-I{SOURCE_DIR}", "-c", str(src), "-o",
                            str(tmp_path / (src.stem + ".o"))], capture_output=True, text=True)
        assert r.returncode == 0 and r.stderr == "", f"{src.name}: {r.stderr}"


@pytest.mark.parametrize("name", ["four-bar", "multilink-transient", "sedan"])
def test_harness_under_sanitizers(name, tmp_path):
    """10^4 steps under AddressSanitizer and UndefinedBehaviorSanitizer: no finding, no heap
    allocation while stepping, no step whose operation counts changed, and the trajectory of
    the same C step driven from Python (bit for bit: the same code, no contraction)."""
    cc = _need("gcc")
    exe = _build(cc, tmp_path / "harness", "-g", "-fsanitize=address,undefined",
                 "-fno-sanitize-recover=all", "-fno-omit-frame-pointer")
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


@pytest.mark.parametrize("arch,gcc,qemu,sysroot", [
    ("aarch64", "aarch64-linux-gnu-gcc", "qemu-aarch64", "/usr/aarch64-linux-gnu"),
    ("armhf", "arm-linux-gnueabihf-gcc", "qemu-arm", "/usr/arm-linux-gnueabihf"),
])
def test_harness_on_arm_matches_x86_64(arch, gcc, qemu, sysroot, tmp_path):
    """1 s of the multilink with transient tyres cross-compiled for ARM and run under qemu
    equals the x86-64 run to 1e-9 (only libm's last bits may differ)."""
    cross = _need(gcc)
    emu = _need(qemu)
    native = _build(_need("gcc"), tmp_path / "harness")
    armexe = _build(cross, tmp_path / f"harness-{arch}")
    plan = _plan(tmp_path, "multilink-transient", 1000)[0]
    r0, x86 = _run([str(native)], plan, tmp_path / "x86.bin")
    r1, arm = _run([emu, "-L", sysroot, str(armexe)], plan, tmp_path / f"{arch}.bin")
    assert r0.returncode == 0 and r1.returncode == 0, r1.stderr
    assert x86.size == arm.size > 0
    scale = np.maximum(np.abs(x86), 1.0)
    assert np.max(np.abs(arm - x86) / scale) <= 1e-9
