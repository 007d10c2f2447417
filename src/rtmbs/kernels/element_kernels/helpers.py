"""The numba element kernels (one module each) and the helpers they share (zeroed Jacobians, the
line of two marker origins, a marker axis); the engine's ``elements/*.c`` are their C twins.
Deleted with the numba steps (issue 29).

The compiled kernel of an element has one signature (the dispatcher of
:mod:`rtmbs.kernels.element_kernels.dispatch` calls it with the element's code)::

    kernel(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj,
           tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf) -> main output

It writes the force f (at P_j on body j, −f on i) and couple τ of element k into
``fjac = (f, τ, ∂f/∂x, ∂f/∂v, ∂τ/∂x, ∂τ/∂v)`` — f and τ arrive zeroed; with ``with_jac`` it writes
all four 3×12 Jacobians (x = (δr_i, δπ_i, δr_j, δπ_j) at fixed v = (ṙ_i, ω_i, ṙ_j, ω_j); seed 003
§4.2), and returns its main scalar output (``<name>.force``); further named outputs go to
``outs``. ``fv`` is the value of the element's function at t (1 without one), ``par`` its row of
parameters (what ``pack`` wrote), ``bi``/``bj`` its bodies (ground = nb). Already computed in
``tmp`` (3-vectors): 0 arm sg_i = A_i s_i, 1 point P_i, 2 its velocity, 5 P_j, 6 its velocity,
8 d = P_j − P_i, 9 ḋ; ``sgj`` = A_j s_j, ``arm_i`` = d + sg_i. Rows 10-31 of ``tmp`` and the 3×3
slices of ``S`` are free scratch, as are ``Dd``, ``Ddd`` (3×12) and ``X`` (9×12).
"""
from __future__ import annotations

import math

from numba import njit

from ..cartesian import _skew


@njit(cache=True, inline="always")
def zero(a):
    for i in range(a.shape[0]):
        for j in range(a.shape[1]):
            a[i, j] = 0.0


@njit(cache=True, inline="always")
def zero_jacobians(dfdx, dfdv, dtdx, dtdv, force, torque):
    """Clear the force (``force``) and couple (``torque``) Jacobians an element does not write."""
    if force:
        zero(dfdx)
        zero(dfdv)
    if torque:
        zero(dtdx)
        zero(dtdv)


@njit(cache=True, inline="always")
def line_jacobians(sgi, sgj, wi, wj, Dd, Ddd, S):
    """Dd = ∂d/∂x = ∂ḋ/∂v = [−I, s̃g_i, I, −s̃g_j];  Ddd = ∂ḋ/∂x = [0, ω̃_i s̃g_i, 0, −ω̃_j s̃g_j]."""
    zero(Dd)
    zero(Ddd)
    _skew(sgi, S[0])
    _skew(sgj, S[1])
    _skew(wi, S[2])
    _skew(wj, S[3])
    for a in range(3):
        Dd[a, a] = -1.0
        Dd[a, 6 + a] = 1.0
        for b in range(3):
            Dd[a, 3 + b] = S[0, a, b]
            Dd[a, 9 + b] = -S[1, a, b]
            si = 0.0
            sj = 0.0
            for c in range(3):
                si += S[2, a, c] * S[0, c, b]
                sj += S[3, a, c] * S[1, c, b]
            Ddd[a, 3 + b] = si
            Ddd[a, 9 + b] = -sj


@njit(cache=True, inline="always")
def line_force(F, FL, FLd, L, u, Ld, with_jac, bi, bj, sgj, kin_w, f, dfdx, dfdv, tmp, S, Dd, Ddd):
    """f = −F u along the unit line u = d/L of two points, F(L, L̇) with ∂F/∂L = FL, ∂F/∂L̇ = FLd
    (tension positive), and its Jacobians: with P = (I − u uᵀ)/L, ∂u/∂x = P Dd, ∂L/∂x = uᵀ Dd,
    ∂L̇/∂x = (P ḋ)ᵀ Dd + uᵀ Ddd, ∂L̇/∂v = uᵀ Dd."""
    for c in range(3):
        f[c] = -F * u[c]
    if not with_jac:
        return
    sgi = tmp[0]
    dd = tmp[9]
    v1 = tmp[12]
    line_jacobians(sgi, sgj, kin_w[bi], kin_w[bj], Dd, Ddd, S)
    for c in range(3):
        v1[c] = (dd[c] - u[c] * Ld) / L  # P ḋ
    for col in range(12):
        gL = 0.0
        gLd = 0.0
        for c in range(3):
            gL += u[c] * Dd[c, col]
            gLd += v1[c] * Dd[c, col] + u[c] * Ddd[c, col]
        for c in range(3):
            gu = (Dd[c, col] - u[c] * gL) / L
            dfdx[c, col] = -(FL * u[c] * gL + FLd * u[c] * gLd + F * gu)
            dfdv[c, col] = -FLd * u[c] * gL


@njit(cache=True, inline="always")
def line_length(tmp):
    """Length L = |d| (at least 1e-12), unit direction u = d/L (into tmp[10]) and L̇ = uᵀḋ."""
    d = tmp[8]
    dd = tmp[9]
    u = tmp[10]
    L = math.sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2])
    if L < 1e-12:
        L = 1e-12
    for c in range(3):
        u[c] = d[c] / L
    return L, u[0] * dd[0] + u[1] * dd[1] + u[2] * dd[2]


@njit(cache=True, inline="always")
def marker_axis(kin_A, b, C, col, out):
    """out = A_b C[:, col]: a marker axis in global coordinates."""
    for c in range(3):
        out[c] = kin_A[b, c, 0] * C[0, col] + kin_A[b, c, 1] * C[1, col] + kin_A[b, c, 2] * C[2, col]
