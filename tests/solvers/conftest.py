"""Make the hand-written test models importable under unique names (pytest runs with
``--import-mode=importlib``, so this folder is not on sys.path and other folders may have
modules of the same name)."""
import importlib.util
import pathlib
import sys

_HERE = pathlib.Path(__file__).parent


def _load(name, file):
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, _HERE / file)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[name] = mod
    spec.loader.exec_module(mod)
    return mod


_load("solvertest_models", "models.py")
_load("solvertest_reference", "reference.py")
_load("solvertest_indep_runs", "indep_runs.py")
