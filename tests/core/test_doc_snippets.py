"""Every documented example runs: the ``python`` code blocks of README.md and docs/*.md, each
file's blocks in order in one fresh interpreter in an empty folder (a block may use what an
earlier block of its page made), and the ``>>>`` examples of the package's docstrings.

Blocks fenced as ``py`` are excerpts of files shown for reading (a registry line, part of an
element module, a snippet that needs an FMU built by an earlier shell step) and are not run.
docs/vehicle.md works on ``my_car/``, which its tutorial makes by copying the sedan's files: the
test does that copy first. Pages under docs/studies/ are the studies' reports (tests/studies)."""
import doctest
import importlib
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import rtmbs

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = Path(rtmbs.__file__).resolve().parent
BLOCK = re.compile(r"^```python\n(.*?)^```", re.S | re.M)
#: docs/studies/ holds the studies' generated reports, whose example is the whole study (minutes;
#: tests/studies runs each study)
PAGES = sorted(p for p in [ROOT / "README.md", *(ROOT / "docs").rglob("*.md")]
               if BLOCK.search(p.read_text()) and "studies" not in p.relative_to(ROOT).parts)
#: pages whose examples take more than a few seconds (a paced real-time run, a reference solve)
SLOW = {"realtime.md", "reference-solver.md", "redundant.md", "sedan.md", "synthesis.md"}


def _code(page: Path) -> str:
    return "\n".join(m.group(1) for m in BLOCK.finditer(page.read_text()))


@pytest.mark.parametrize("page", [pytest.param(p, id=str(p.relative_to(ROOT)), marks=(
    [pytest.mark.slow] if p.name in SLOW else [])) for p in PAGES])
def test_the_python_blocks_of_a_page_run(page, tmp_path):
    if page.name == "vehicle.md":
        shutil.copytree(PACKAGE / "data" / "vehicles" / "sedan", tmp_path / "my_car")
    script = tmp_path / "blocks.py"
    script.write_text(_code(page))
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, capture_output=True,
                          text=True, timeout=600, env={"PATH": "/usr/bin:/bin",
                                                       "OPENBLAS_NUM_THREADS": "1",
                                                       "MPLBACKEND": "Agg",
                                                       "PYTHONPATH": str(PACKAGE.parent)})
    assert proc.returncode == 0, f"{page.name}:\n{proc.stderr[-3000:]}"


def test_the_pages_with_examples_are_found():
    """The search above can fail: the README and the tyre page hold runnable blocks."""
    names = {p.name for p in PAGES}
    assert {"README.md", "tyre.md", "synthesis.md"} <= names


def _modules_with_examples():
    for path in sorted(PACKAGE.rglob("*.py")):
        if ">>> " in path.read_text():
            rel = path.relative_to(PACKAGE.parent).with_suffix("")
            yield ".".join(p for p in rel.parts if p != "__init__")


@pytest.mark.parametrize("name", list(_modules_with_examples()))
def test_docstring_examples_run(name):
    result = doctest.testmod(importlib.import_module(name), optionflags=doctest.ELLIPSIS)
    assert result.attempted > 0 and result.failed == 0, result
