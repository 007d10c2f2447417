import importlib.util
import sys
from pathlib import Path

# The helper models are imported under a unique name (tests run with --import-mode=importlib).
_NAME = "rtmbs_realtime_test_models"
if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, Path(__file__).with_name("models.py"))
    _mod = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _mod
    _spec.loader.exec_module(_mod)
