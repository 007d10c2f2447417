"""Build of the C engine (src/rtmbs/engine) as the extension rtmbs.engine._engine.

Everything else is declared in pyproject.toml. The engine's sources are C99 with libm only; the
binding (engine/binding/*.c) is the one part that includes Python.h and numpy's headers.
"""
from pathlib import Path

import numpy
from setuptools import Extension, setup

ENGINE = Path("src/rtmbs/engine")
SOURCES = sorted(str(p) for p in ENGINE.rglob("*.c") if "harness" not in p.parts and "fmu" not in p.parts)

setup(
    ext_modules=[Extension(
        "rtmbs.engine._engine",
        sources=SOURCES,
        include_dirs=[str(ENGINE), numpy.get_include()],
        # -ffp-contract=off: no fused multiply-add, so x86-64, ARM and the FMU give the same bits
        # (no -fno-math-errno either: with it gcc rewrites cos(atan(x)) as 1/sqrt(1 + x^2))
        extra_compile_args=["-std=c99", "-O3", "-ffp-contract=off", "-Wall", "-Wextra"],
        libraries=["m"],
    )],
)
