"""The rtmbs engine in C (``src/rtmbs/engine``): every real-time computation of a step.

The C sources are C99 with libm only (docs/engine.md); :mod:`rtmbs.engine._engine` is their
CPython binding, built by ``pip install``. Its functions take the packed buffers of a compiled
model (:mod:`rtmbs.kernels.layouts`).
"""
from __future__ import annotations

from pathlib import Path

from . import _engine  # noqa: F401  (built by pip install -e .: setup.py)

#: the folder of the C sources (rtmbs.h, rtmbs_fields.h, the stages)
SOURCE_DIR = Path(__file__).parent
FIELDS_HEADER = SOURCE_DIR / "rtmbs_fields.h"

#: the data's operation counters (rtmbs.h: rtmbs_counter), in their order
COUNTERS = ("evaluations", "element_kernels", "factorisations", "solves", "multiply_adds", "steps",
            "cost_changes")
#: the counts of one step (the RTMBS_CNT_LAST slots follow cost_changes)
STEP_COUNTS = COUNTERS[:5]


def counters(data) -> dict:
    """The operation counts a compiled model's data holds (``system.data``): the totals by name
    (``COUNTERS``; ``cost_changes`` counts the steps whose counts differed from the step
    before: 0 for a fixed-cost solver) and ``last_step``, the counts of the last step."""
    c = data.counter
    out = {name: int(c[k]) for k, name in enumerate(COUNTERS)}
    out["last_step"] = {name: int(c[len(COUNTERS) + k]) for k, name in enumerate(STEP_COUNTS)}
    return out

#: the data's warnings (rtmbs.h: rtmbs_warning), in their order
WARNINGS = ("singular", "growth", "nonfinite", "unsupported", "table", "redundant")


def warnings(data) -> dict:
    """The numerical trouble the engine counted in a compiled model's data (``system.data``):
    {kind: (count, the offending index of the last one, its time in s)}; kinds ``WARNINGS``:
    a zero or non-finite pivot (index -1), factors flagged for refinement (the pivot's row), a
    diverging step undone by a rollout (the first coordinate past 1e8 or not finite; the step's
    start), an element without a C kernel (the element), a table look-up out of range, an
    evaluation in a step where a left-out redundant constraint row exceeded its bound (the row;
    rtmbs.solvers.redundancy)."""
    w = data.warning
    return {name: (int(w[k, 0]), int(w[k, 1]), float(w[k, 2])) for k, name in enumerate(WARNINGS)}
