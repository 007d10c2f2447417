"""Input functions of time f(t), ḟ(t), f̈(t) (numba): constants, smooth steps, ramps,
trapezoids, sines, tables and external channels set at run time.

Each function is a row of ``fun_type (nfun,)``, ``fun_par (nfun, NPAR)``, ``fun_tab (nfun,)``;
tables are slices ``tab_x[tab_adr[k]: tab_adr[k] + tab_len[k]]`` (and ``tab_y``).
"""
from __future__ import annotations

import math

from numba import njit

FUN_CONST, FUN_STEP, FUN_RAMP, FUN_TRAPEZOID, FUN_SINE, FUN_TABLE, FUN_CHANNEL = range(7)
NPAR = 8


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
    if ty == FUN_CONST or ty == FUN_CHANNEL:
        return p[0], 0.0, 0.0
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
    return 0.0, 0.0, 0.0
