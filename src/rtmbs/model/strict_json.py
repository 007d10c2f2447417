"""Strict JSON for everything rtmbs writes: non-finite numbers become ``null``, never ``NaN``
(which ``json.loads`` of other tools rejects)."""
from __future__ import annotations

import json
import math


def json_safe(value):
    """``value`` with every non-finite float (NaN, ±inf) replaced by ``None``, numpy scalars
    and arrays as Python numbers and lists, so that ``json.dumps`` writes valid JSON."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "tolist") and hasattr(value, "shape"):  # numpy scalar or array
        return json_safe(value.tolist())
    return value


def dumps(value, **kw) -> str:
    """``json.dumps`` of :func:`json_safe` (``value``), refusing any NaN left over."""
    return json.dumps(json_safe(value), allow_nan=False, **kw)


def json_line(value) -> str:
    """One line of strict JSON (non-finite numbers as ``null``)."""
    return dumps(value)
