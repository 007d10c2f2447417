"""The rtmbs engine in C (``src/rtmbs/engine``): every real-time computation of a step.

The C sources are C99 with libm only (docs/engine.md); :mod:`rtmbs.engine._engine` is their
CPython binding, built by ``pip install``. Its functions take the packed buffers of a compiled
model (:mod:`rtmbs.kernels.layouts`) as the numba kernels they replace did.
"""
from __future__ import annotations

from pathlib import Path

from . import _engine  # noqa: F401  (built by pip install -e .: setup.py)

#: the folder of the C sources (rtmbs.h, rtmbs_fields.h, the stages)
SOURCE_DIR = Path(__file__).parent
FIELDS_HEADER = SOURCE_DIR / "rtmbs_fields.h"
