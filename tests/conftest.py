"""Markers given by where a test lives (pyproject.toml lists them; the README's ``pytest`` leaves
out ``slow``, ``study``, ``realtime`` and ``browser``, CI runs everything):

``study``
    reproduces a paper's table end to end (``tests/studies/``, ``test_*_study.py``);
``realtime``
    paces on the machine's wall clock (the real-time loop's CLI and UDP tests, the exported C
    program); the loop's logic itself, its overrun accounting included, is tested on a simulated
    clock (``tests/realtime/test_loop.py``, ``test_overrun_split.py``) and stays in the default
    run;
``browser``
    drives headless Chromium (``tests/io/test_view.py``'s page tests).

``slow`` is set on the test itself (``@pytest.mark.slow``): a single test of more than about 10 s
on this project's 2-core machine.
"""
from __future__ import annotations

import os
from pathlib import Path

import pytest

# Small dense factorisations thrash with multi-threaded OpenBLAS on a loaded 2-core machine; as
# .ci/run, the default run is single-threaded (before any test module imports numpy).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

HERE = Path(__file__).parent
#: files whose tests pace on the wall clock
REALTIME_FILES = {"test_cli.py", "test_export_c.py", "test_udp.py", "test_udp_guard.py"}


def _marker_for(path: Path, item) -> str | None:
    rel = path.relative_to(HERE)
    if rel.parts[0] == "studies" or path.name.endswith("_study.py"):
        return "study"
    if rel.parts[0] == "realtime" and path.name in REALTIME_FILES:
        return "realtime"
    if path.name == "test_view.py" and ({"step_page", "step_run"} & set(item.fixturenames)
                                        or "_chromium(" in _source(item)):
        return "browser"
    return None


def _source(item) -> str:
    import inspect

    try:
        return inspect.getsource(item.function)
    except (OSError, TypeError, AttributeError):
        return ""


@pytest.hookimpl(tryfirst=True)  # (before -m deselects by marker)
def pytest_collection_modifyitems(config, items):
    for item in items:
        name = _marker_for(Path(str(item.fspath)), item)
        if name is not None:
            item.add_marker(getattr(pytest.mark, name))
