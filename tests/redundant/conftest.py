import importlib.util
import os
import sys
from pathlib import Path

# Small dense SVDs thrash with multi-threaded OpenBLAS on a loaded 2-core machine (effective
# only when numpy is not imported yet).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# The helper models are imported under a unique name (tests run with --import-mode=importlib).
_NAME = "rtmbs_redundant_test_models"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("models.py"))
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)
