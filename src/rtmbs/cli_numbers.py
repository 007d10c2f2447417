"""Number types for the command line: a bad number is an argparse error naming the flag and the
value ("argument --h: expected a finite number > 0, got '0'", exit code 2), never a traceback
or a silent run (issue 13)."""
from __future__ import annotations

import argparse
import json
import math


def _number(kind, low: float, strict: bool, what: str):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if kind is float and not math.isfinite(value):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        if low is not None and (value < low or (strict and value == low)):
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    parse.__name__ = what  # argparse names the type in its own messages
    return parse


#: A finite float > 0 (step sizes, durations).
positive_float = _number(float, 0.0, True, "a finite number > 0")
#: A finite float ≥ 0.
nonnegative_float = _number(float, 0.0, False, "a finite number >= 0")
#: An int ≥ 1 (counts of steps, strides).
positive_int = _number(int, 1, False, "a whole number >= 1")
#: An int ≥ 0.
nonnegative_int = _number(int, 0, False, "a whole number >= 0")
#: Any finite float (positions, heights, slopes).
finite_float = _number(float, None, False, "a finite number")


def json_safe(value):
    """``value`` with every non-finite float (NaN, ±inf) replaced by ``None``, so that
    ``json.dumps`` writes valid JSON (``null``), never ``NaN`` (issue 13)."""
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_safe(v) for v in value]
    if hasattr(value, "item") and getattr(value, "shape", None) == ():  # numpy scalar
        return json_safe(value.item())
    return value


def json_line(value) -> str:
    """One line of strict JSON (non-finite numbers as ``null``)."""
    return json.dumps(json_safe(value), allow_nan=False)
