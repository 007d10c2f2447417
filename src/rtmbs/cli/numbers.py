"""Number types for the command line: a bad number is an argparse error naming the flag and the
value ("argument --h: expected a finite number > 0, got '0'", exit code 2), never a traceback
or a silent run."""
from __future__ import annotations

import argparse
import math

from ..model.strict_json import json_line, json_safe  # noqa: F401  (the CLI's names for them)


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
def int_range(low: int, high: int, what: str):
    """An int in [low, high]: "expected WHAT, got '200'" otherwise."""
    def parse(text: str):
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}") from None
        if not low <= value <= high:
            raise argparse.ArgumentTypeError(f"expected {what}, got {text!r}")
        return value

    parse.__name__ = what
    return parse


#: A SCHED_FIFO real-time priority (Linux: 1-99).
fifo_priority = int_range(1, 99, "a SCHED_FIFO priority, a whole number from 1 to 99")
#: Any finite float (positions, heights, slopes).
finite_float = _number(float, None, False, "a finite number")
