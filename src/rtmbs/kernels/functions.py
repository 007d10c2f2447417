"""Input functions of time f(t), ḟ(t), f̈(t) (numba): constants, smooth steps, ramps,
trapezoids, sines, tables, expressions and external channels set at run time.

Each function is a row of ``fun_type (nfun,)``, ``fun_par (nfun, NPAR)``, ``fun_tab (nfun,)``;
tables are slices ``tab_x[tab_adr[k]: tab_adr[k] + tab_len[k]]`` (and ``tab_y``). An expression's
program (rtmbs.model.expression) is stored the same way: opcodes in ``tab_x``, operands in ``tab_y``.
"""
from __future__ import annotations

import math

from numba import carray, njit, types
from numba.core import cgutils
from numba.extending import intrinsic

from ..model import expression as ex

from .codes import (FUN_CHANNEL, FUN_CONST, FUN_EXPR, FUN_RAMP, FUN_SINE, FUN_STEP,  # noqa: F401
                    FUN_TABLE, FUN_TRAPEZOID, NPAR)
_STACK = ex.MAX_DEPTH
_PUSH, _TIME, _ADD, _SUB, _MUL, _DIV, _NEG, _POW = ex.PUSH, ex.TIME, ex.ADD, ex.SUB, ex.MUL, ex.DIV, \
    ex.NEG, ex.POW_CONST
_SIN, _COS, _TAN, _EXP, _LOG, _SQRT, _TANH, _ATAN, _ABS = ex.SIN, ex.COS, ex.TAN, ex.EXP, ex.LOG, \
    ex.SQRT, ex.TANH, ex.ATAN, ex.ABS


@intrinsic
def _stack_buffer(typingctx):
    """Pointer to 3·MAX_DEPTH doubles on the caller's stack (no heap allocation per call)."""
    sig = types.CPointer(types.float64)()

    def codegen(context, builder, signature, args):
        return cgutils.alloca_once(builder, context.get_value_type(types.float64), size=3 * _STACK)

    return sig, codegen


@njit(cache=True, fastmath=False)
def _unary(op, u, c):
    """f(u), f'(u), f''(u) of the one-argument operation ``op`` (``c``: POW's exponent)."""
    if op == _POW:
        p1 = c * u ** (c - 1.0) if c != 0.0 else 0.0
        p2 = c * (c - 1.0) * u ** (c - 2.0) if c * (c - 1.0) != 0.0 else 0.0
        return u ** c, p1, p2
    if op == _SIN:
        s = math.sin(u)
        return s, math.cos(u), -s
    if op == _COS:
        c0 = math.cos(u)
        return c0, -math.sin(u), -c0
    if op == _TAN:
        v = math.tan(u)
        d = 1.0 + v * v
        return v, d, 2.0 * v * d
    if op == _EXP:
        v = math.exp(u)
        return v, v, v
    if op == _LOG:
        return math.log(u) if u > 0.0 else math.nan, 1.0 / u, -1.0 / (u * u)
    if op == _SQRT:
        v = math.sqrt(u) if u >= 0.0 else math.nan
        return v, 0.5 / v, -0.25 / (v * u)
    if op == _TANH:
        v = math.tanh(u)
        d = 1.0 - v * v
        return v, d, -2.0 * v * d
    if op == _ATAN:
        d = 1.0 / (1.0 + u * u)
        return math.atan(u), d, -2.0 * u * d * d
    if op == _ABS:
        return abs(u), 1.0 if u > 0.0 else (-1.0 if u < 0.0 else 0.0), 0.0
    return math.nan, math.nan, math.nan


@njit(cache=True, fastmath=False)
def expr_eval(t, ops, args, adr, n):
    """Value, first and second time derivative of the expression program
    ``ops[adr:adr+n]``/``args[adr:adr+n]`` at ``t``: a stack machine on Taylor triples
    (u, u̇, ü), so the derivatives are exact (chain and product rules, no differencing)."""
    st = carray(_stack_buffer(), (_STACK, 3))
    sp = 0
    for i in range(adr, adr + n):
        op = int(ops[i])
        if op == _PUSH or op == _TIME:
            st[sp, 0] = args[i] if op == _PUSH else t
            st[sp, 1] = 0.0 if op == _PUSH else 1.0
            st[sp, 2] = 0.0
            sp += 1
        elif op <= _DIV:
            sp -= 1
            b0, b1, b2 = st[sp, 0], st[sp, 1], st[sp, 2]
            a0, a1, a2 = st[sp - 1, 0], st[sp - 1, 1], st[sp - 1, 2]
            if op == _ADD:
                c0, c1, c2 = a0 + b0, a1 + b1, a2 + b2
            elif op == _SUB:
                c0, c1, c2 = a0 - b0, a1 - b1, a2 - b2
            elif op == _MUL:
                c0, c1, c2 = a0 * b0, a1 * b0 + a0 * b1, a2 * b0 + 2.0 * a1 * b1 + a0 * b2
            else:
                c0 = a0 / b0
                c1 = (a1 - c0 * b1) / b0
                c2 = (a2 - 2.0 * c1 * b1 - c0 * b2) / b0
            st[sp - 1, 0], st[sp - 1, 1], st[sp - 1, 2] = c0, c1, c2
        elif op == _NEG:
            st[sp - 1, 0], st[sp - 1, 1], st[sp - 1, 2] = -st[sp - 1, 0], -st[sp - 1, 1], -st[sp - 1, 2]
        else:
            u0, u1, u2 = st[sp - 1, 0], st[sp - 1, 1], st[sp - 1, 2]
            f0, f1, f2 = _unary(op, u0, args[i])
            st[sp - 1, 0] = f0
            st[sp - 1, 1] = f1 * u1 if u1 != 0.0 else 0.0
            st[sp - 1, 2] = (f2 * u1 * u1 if u1 != 0.0 else 0.0) + (f1 * u2 if u2 != 0.0 else 0.0)
    return st[0, 0], st[0, 1], st[0, 2]


@njit(cache=True, fastmath=False)
def table_eval(x, tx, ty, adr, n):
    """Linear interpolation (clamped at the ends) and slope of a table."""
    if x <= tx[adr]:
        return ty[adr], 0.0
    if x >= tx[adr + n - 1]:
        return ty[adr + n - 1], 0.0
    lo = adr
    hi = adr + n - 1
    while hi - lo > 1:  # bisection: log2(n) steps, bounded by the table size
        mid = (lo + hi) // 2
        if tx[mid] <= x:
            lo = mid
        else:
            hi = mid
    slope = (ty[hi] - ty[lo]) / (tx[hi] - tx[lo])
    return ty[lo] + slope * (x - tx[lo]), slope


@njit(cache=True, fastmath=False)
def fun_eval(k, t, fun_type, fun_par, fun_tab, tab_adr, tab_len, tab_x, tab_y):
    """Value, first and second time derivative of input function ``k`` at ``t``."""
    ty = fun_type[k]
    p = fun_par[k]
    if ty == FUN_CONST:
        return p[0], 0.0, 0.0
    if ty == FUN_CHANNEL:
        # value p0 with rate p1 and acceleration p2 at time p3 (a channel set by a Python
        # callable: its Taylor expansion about the last time it was set; 0, 0 otherwise)
        dt = t - p[3]
        return p[0] + dt * (p[1] + 0.5 * dt * p[2]), p[1] + dt * p[2], p[2]
    if ty == FUN_STEP:
        # cubic STEP (as in Adams): from p2 at t <= p0 to p3 at t >= p1
        t0, t1, h0, h1 = p[0], p[1], p[2], p[3]
        if t <= t0:
            return h0, 0.0, 0.0
        if t >= t1:
            return h1, 0.0, 0.0
        T = t1 - t0
        d = (t - t0) / T
        a = h1 - h0
        return h0 + a * d * d * (3.0 - 2.0 * d), a * 6.0 * d * (1.0 - d) / T, a * (6.0 - 12.0 * d) / (T * T)
    if ty == FUN_RAMP:
        t0, slope, off = p[0], p[1], p[2]
        if t < t0:  # from t0 on the slope applies (right derivative at t0)
            return off, 0.0, 0.0
        return off + slope * (t - t0), slope, 0.0
    if ty == FUN_TRAPEZOID:
        t0, tr, th, tf, amp, off = p[0], p[1], p[2], p[3], p[4], p[5]
        if t < t0:
            return off, 0.0, 0.0
        if t < t0 + tr:
            return off + amp * (t - t0) / tr, amp / tr, 0.0
        if t <= t0 + tr + th:
            return off + amp, 0.0, 0.0
        if t < t0 + tr + th + tf:
            return off + amp * (1.0 - (t - t0 - tr - th) / tf), -amp / tf, 0.0
        return off, 0.0, 0.0
    if ty == FUN_SINE:
        amp, om, ph, off, t0 = p[0], p[1], p[2], p[3], p[4]
        if t < t0:
            return off + amp * math.sin(ph), 0.0, 0.0
        a = om * (t - t0) + ph
        return off + amp * math.sin(a), amp * om * math.cos(a), -amp * om * om * math.sin(a)
    if ty == FUN_TABLE:
        j = fun_tab[k]
        v, s = table_eval(t, tab_x, tab_y, tab_adr[j], tab_len[j])
        return v, s, 0.0
    if ty == FUN_EXPR:
        j = fun_tab[k]
        return expr_eval(t, tab_x, tab_y, tab_adr[j], tab_len[j])
    return 0.0, 0.0, 0.0
