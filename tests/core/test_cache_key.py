"""The numba cache directory is keyed on the sources compiled code depends on, and only those."""
from pathlib import Path

import rtmbs

ROOT = Path(rtmbs.__file__).parent


def _keyed():
    return {p.relative_to(ROOT).as_posix() for p in rtmbs._compiled_sources(ROOT)}


def test_compiled_modules_and_their_imports_are_keyed():
    keyed = _keyed()
    # modules with compiled kernels
    for module in ("kernels/cartesian.py", "kernels/evaluate.py",
                   "kernels/element_kernels/dispatch.py", "kernels/tyre_mf.py"):
        assert module in keyed, module
    # pure-Python modules whose constants compiled code freezes
    for module in ("tolerances.py", "kernels/layout_views.py", "kernels/codes.py",
                   "vehicle/tyre/magic_formula.py", "kernels/elements/bushing.py"):
        assert module in keyed, module


def test_cli_readers_and_offline_solvers_are_not_keyed():
    keyed = _keyed()
    # (the study and the demo only mention numba in comments and messages)
    # (the solvers hold no compiled code: src/rtmbs/solvers has no numba)
    for module in ("cli.py", "commands.py", "model/schema.py", "io/result.py", "solvers/reference.py",
                   "studies/multilink.py", "demo.py", "solvers/li_euler.py", "solvers/sparse.py"):
        assert module not in keyed, module
