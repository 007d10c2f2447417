"""An operation-counting number (Kim & Wang 2005 Table 1): a float that counts every multiplication or
division (M·D) and addition or subtraction (A·S) it takes part in, and the elementary functions
(sin, cos, sqrt) apart. Negation, abs and comparisons are not counted.

The synthesis kernels are written against numpy arrays whose dtype is float or object; run them on
object arrays of :class:`Op` to count (``with counting() as c: ...; c.md, c.add``).
"""
from __future__ import annotations

import math
from contextlib import contextmanager

import numpy as np


class Counter:
    """Tallies of one counting run: ``md`` (× and ÷), ``add`` (+ and −), ``fn`` (sin, cos, sqrt)."""

    def __init__(self):
        self.md = 0
        self.add = 0
        self.fn = 0

    def snapshot(self) -> tuple[int, int, int]:
        return self.md, self.add, self.fn


_COUNTER = Counter()


@contextmanager
def counting():
    """Count the operations of the Op numbers inside the block; yields the :class:`Counter`."""
    global _COUNTER
    old, _COUNTER = _COUNTER, Counter()
    try:
        yield _COUNTER
    finally:
        _COUNTER = old


def _v(x):
    return x.v if isinstance(x, Op) else x


class Op:
    """A float that counts the arithmetic done with it (one count per binary operation)."""

    __slots__ = ("v",)

    def __init__(self, v):
        self.v = float(_v(v))

    def _bin(self, other, f, kind):
        if isinstance(other, np.ndarray):
            return NotImplemented           # numpy applies the operation element by element
        if kind == "md":
            _COUNTER.md += 1
        else:
            _COUNTER.add += 1
        return Op(f(self.v, _v(other)))

    def __add__(self, o):
        return self._bin(o, lambda a, b: a + b, "add")

    def __radd__(self, o):
        return self._bin(o, lambda a, b: b + a, "add")

    def __sub__(self, o):
        return self._bin(o, lambda a, b: a - b, "add")

    def __rsub__(self, o):
        return self._bin(o, lambda a, b: b - a, "add")

    def __mul__(self, o):
        return self._bin(o, lambda a, b: a * b, "md")

    def __rmul__(self, o):
        return self._bin(o, lambda a, b: b * a, "md")

    def __truediv__(self, o):
        return self._bin(o, lambda a, b: a / b, "md")

    def __rtruediv__(self, o):
        return self._bin(o, lambda a, b: b / a, "md")

    def __neg__(self):
        return Op(-self.v)

    def __pos__(self):
        return self

    def __abs__(self):
        return Op(abs(self.v))

    def __float__(self):
        return self.v

    def __lt__(self, o):
        return self.v < _v(o)

    def __le__(self, o):
        return self.v <= _v(o)

    def __gt__(self, o):
        return self.v > _v(o)

    def __ge__(self, o):
        return self.v >= _v(o)

    def __eq__(self, o):
        return self.v == _v(o)

    def __hash__(self):
        return hash(self.v)

    def __repr__(self):
        return f"Op({self.v!r})"


def _fn(f):
    def g(x):
        if isinstance(x, Op):
            _COUNTER.fn += 1
            return Op(f(x.v))
        return f(x)
    return g


sin, cos, sqrt = _fn(math.sin), _fn(math.cos), _fn(math.sqrt)


def wrap(a):
    """An object array of :class:`Op` with the values of ``a`` (counting starts from these)."""
    a = np.asarray(a, float)
    out = np.empty(a.shape, dtype=object)
    for idx in np.ndindex(a.shape):
        out[idx] = Op(a[idx])
    return out


def unwrap(a):
    """The float values of an array of Op (or floats)."""
    a = np.asarray(a)
    if a.dtype != object:
        return a.astype(float)
    out = np.empty(a.shape)
    for idx in np.ndindex(a.shape):
        out[idx] = _v(a[idx])
    return out
