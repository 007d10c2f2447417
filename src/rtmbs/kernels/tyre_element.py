"""The tyre force element (seed 003 §4.3): 2-point follower enveloping, steady-state Magic
Formula, slips from the rim's motion, with its exact Jacobians.

The element acts on the rim at the wheel centre A (marker origin, marker z = spin axis s, which
should point to the vehicle's left so that the ISO-W axes of the .tir data apply):

    l = s × n / |s × n| (longitudinal), t = n × l (lateral), n = global z;
    road heights under the two followers at A ± lf·l give the effective plane angle β and height
    h_eff (Fig. 4.12); the plane normal n_e = cos β n − sin β l;
    d = direction in the wheel plane towards the road; loaded radius r = cos β (A_z − h_eff)/(−d·n_e);
    ρ = r_free − r (eq. 4.14), radial force F_n = k ρ + c ρ̇ along n_e (zero without contact),
    ρ̇ = −(cos β/(−d·n_e)) V_A,z;
    V_x = V_A·l, V_y = V_A·t, ω_s = ω_rim·s; κ, α from eqs. 4.15-4.16; camber γ = −asin(s·n_e);
    (F_x, F_y, M_x, M_y, M_z) = MF(F_n, κ, −α, γ, V_x) in the contact frame (l, t, n_e);
    force on the rim F = F_x l + F_y t + F_n n_e at the contact point C = A + r d, moment M.

Jacobians (``with_jac``): exact, in every direction of the rim's virtual coordinates
(δr_j, δπ_j) at fixed velocities (ṙ_j, ω_j) and of those velocities — forward mode, one
column at a time: a column's seed moves A, rotates s (δs = δπ × s) and the arm of A
(δV_A = ω × (δπ × s_g) at fixed ω), and the chain rule carries it through l, t, the road
heights at the followers (slopes ∂h/∂x, ∂h/∂y), β, h_eff, n_e, d, r, ρ, ρ̇, F_n (zero where F_n
is clipped to 0), V_x, V_y, ω_s, γ, the rolling radius Re(F_n, V_x), the slips and the Magic
Formula's five inputs (:func:`rtmbs.vehicle.tyre.magic_formula.mf_dual`: F_x, F_y, M_z, M_x, M_y
and their partials in F_n, κ, α, γ, V_x), to F = F_x l + F_y t + F_n n_e and τ = r d × F + M.
The carrier's columns (body i) are zero. One exception (docs/tyre.md): within v_min of V_x = 0
the steady-state Magic Formula's low-speed slip reductions' factor |V_x| gets the slope 0 (its
exact slope, an anti-damping changing sign across V_x = 0, traps a linearly implicit step at
standstill).

Transient tyres (``TP_XSTATE`` ≥ 0): slips from the carcass deflections ``tyre_x[1 + 2k]``,
``tyre_x[2 + 2k]`` with the low-speed damping, at the end of the step ``tyre_x[0]`` of the
fixed-step solver (:func:`rtmbs.vehicle.tyre.contact.transient_slips_lowspeed`); the Magic
Formula without its own low-speed slip reduction; the Jacobian through the slip velocities
(V_sx = V_x − ω_s Re), V_x and the relaxation lengths σκ(F_n), σα(F_n, γ)
(:func:`~rtmbs.vehicle.tyre.magic_formula.relaxation_lengths_dual`, exact).
"""
from __future__ import annotations

import math

from numba import njit

from .road_height import road_height_packed
from .cartesian import _cross as _cr
from .cartesian import _dot as _dt
from .tyre_contact import slip_quantities, transient_slips_lowspeed, two_point_follower
from .tyre_mf import (I_VXLOW, effective_rolling_radius, effective_rolling_radius_d, mf_dual,
                      mf_steady_state, relaxation_lengths_dual)
from .codes import (TO_ALPHA, TO_FX, TO_FY, TO_FZ, TO_GAMMA, TO_KAPPA, TO_RHO,  # noqa: F401
                    TO_SIGMA_ALPHA, TO_SIGMA_KAPPA, TO_VSX, TO_VSY, TO_VX, TP_CZ, TP_KZ, TP_LF,
                    TP_RFREE, TP_ROAD_ADR, TP_ROAD_LEN, TP_ROW, TP_VMIN, TP_XSTATE,
                    TYRE_OUTPUTS, TYRE_TRANSIENT_COLUMNS, TYRE_TRANSIENT_INPUTS)


# --- 3-vectors as tuples (registers) for the Jacobian's column passes ---------------------------
@njit(cache=True, inline="always")
def _t3(a):
    return (a[0], a[1], a[2])


@njit(cache=True, inline="always")
def _x3(a, b):
    return (a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0])


@njit(cache=True, inline="always")
def _d3(a, b):
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]


@njit(cache=True, inline="always")
def _lc3(ca, a, cb, b, cc, c):
    """ca a + cb b + cc c."""
    return (ca * a[0] + cb * b[0] + cc * c[0], ca * a[1] + cb * b[1] + cc * c[1],
            ca * a[2] + cb * b[2] + cc * c[2])


@njit(cache=True, inline="always")
def _road_slopes(road, x, y):
    """Slopes (∂h/∂x, ∂h/∂y) of the packed road (linear in x per sample interval, linear in y
    between the tracks at ``road[2]`` (left), ``road[3]`` (right), held outside them)."""
    _, hx = road_height_packed(road, x, y)
    yl, yr = road[2], road[3]
    zl, _ = road_height_packed(road, x, yl)
    zr, _ = road_height_packed(road, x, yr)
    w = (y - yr) / (yl - yr)
    hy = (zl - zr) / (yl - yr) if 0.0 < w < 1.0 else 0.0
    return hx, hy


@njit(cache=True, inline="always")
def _coefs(X, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g):
    """Partials of a Magic Formula output X (a dual of mf_dual, called with −α) with respect to
    the element's scalars (F_n, V_x, ω_s, V_y, γ), given ∂κ/∂(V_x, ω_s, F_n) and
    ∂α/∂(V_x, V_y, F_n, γ) of the slips."""
    return (X[1] + X[2] * k_z - X[3] * a_z, X[5] + X[2] * k_vx - X[3] * a_vx, X[2] * k_ws,
            -X[3] * a_vy, X[4] - X[3] * a_g)


@njit(cache=True, fastmath=False)
def tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, rA, vA, w, s, sg, f, tau, dfdx, dfdv,
               dtdx, dtdv, outs, tmp, G, mf):
    """Force ``f`` at the wheel centre and couple ``tau`` on the rim; ``outs`` gets
    TYRE_OUTPUTS (and TYRE_TRANSIENT_INPUTS for a transient tyre). With ``with_jac`` the
    Jacobians' columns 6-11 (rim); the caller has zeroed them. ``G`` and ``mf`` (≥ 13) are
    scratch."""
    p = tyre_par[int(par[TP_ROW])]
    adr = int(par[TP_ROAD_ADR])
    road = road_buf[adr:adr + int(par[TP_ROAD_LEN])]
    lf, kz, cz, vmin, rfree = par[TP_LF], par[TP_KZ], par[TP_CZ], par[TP_VMIN], par[TP_RFREE]
    for c in range(outs.shape[0]):
        outs[c] = 0.0
    l = tmp[0]; t = tmp[1]; ne = tmp[2]; d = tmp[3]; F = tmp[4]; Mc = tmp[5]; rd = tmp[6]
    ez = tmp[7]
    ez[0] = 0.0; ez[1] = 0.0; ez[2] = 1.0
    ns = math.sqrt(_dt(s, s))  # unit spin axis even if the Euler parameters drift off |p| = 1
    for c in range(3):
        s[c] /= ns
    _cr(s, ez, l)
    nl = math.sqrt(_dt(l, l))
    if nl < 1e-9:
        return  # spin axis vertical: no rolling contact defined
    for c in range(3):
        l[c] /= nl
    _cr(ez, l, t)
    xf, yf = rA[0] + lf * l[0], rA[1] + lf * l[1]
    xr, yr = rA[0] - lf * l[0], rA[1] - lf * l[1]
    hf, _ = road_height_packed(road, xf, yf)
    hr, _ = road_height_packed(road, xr, yr)
    beta, heff, _ = two_point_follower(hf, hr, rA[2], rfree, lf)
    cb, sb = math.cos(beta), math.sin(beta)
    for c in range(3):
        ne[c] = cb * ez[c] - sb * l[c]
    sn = _dt(ne, s)
    for c in range(3):
        d[c] = -(ne[c] - sn * s[c])
    nd = math.sqrt(_dt(d, d))
    for c in range(3):
        d[c] /= nd
    den = -_dt(d, ne)
    g = cb / den
    r = g * (rA[2] - heff)
    rho = rfree - r
    if rho <= 0.0:
        return
    rhod = -g * vA[2]
    Fn = kz * rho + cz * rhod
    clipped = Fn < 0.0
    if clipped:
        Fn = 0.0
    Vx = _dt(vA, l)
    Vy = _dt(vA, t)
    ws = _dt(w, s)
    re_z = re_v = 0.0
    if with_jac:  # with ∂Re/∂Fn, ∂Re/∂Vx: Re enters κ (and Vsx)
        Re, _, re_z, re_v = effective_rolling_radius_d(p, Fn, 0.0, Vx, 0.0)
    else:
        Re, _ = effective_rolling_radius(p, Fn, 0.0, Vx, 0.0)
    kappa, alpha = slip_quantities(Vx, Vy, ws, Re, vmin)
    gamma = -math.asin(max(-1.0, min(1.0, sn)))
    xs = int(par[TP_XSTATE])
    transient = xs >= 0
    # ∂κ/∂(Vx, ω_s, Fn) and ∂α/∂(Vx, Vy, Fn, γ) of the slips given to the Magic Formula
    k_vx = k_ws = k_z = a_vx = a_vy = a_z = a_g = 0.0
    if transient:
        # transient: slips from the carcass deflections u, v (eq. 4.24) with their low-speed
        # damping, at the end of the solver's step tyre_x[0] (0: at the current deflections);
        # relaxation lengths σκ(Fn), σα(Fn, γ); the deflections' inputs are kept for the
        # state update (eq. 4.23)
        sig_k, sig_a = relaxation_lengths_dual(p, Fn, gamma)
        sk, sa = sig_k[0], sig_a[0]
        Vsx = Vx - ws * Re
        outs[TO_VSX] = Vsx
        outs[TO_VSY] = Vy
        outs[TO_VX] = Vx
        outs[TO_SIGMA_KAPPA] = sk
        outs[TO_SIGMA_ALPHA] = sa
        kappa, alpha, tk_vsx, tk_vx, dk_s, ta_vsy, ta_vx, da_s = transient_slips_lowspeed(
            tyre_x[1 + 2 * xs], tyre_x[2 + 2 * xs], Vsx, Vy, Vx, sk, sa, p[I_VXLOW], tyre_x[0])
        k_vx = tk_vsx * (1.0 - ws * re_v) + tk_vx  # Vsx = Vx − ω_s Re(Fn, Vx)
        k_ws = -Re * tk_vsx
        k_z = -ws * re_z * tk_vsx + dk_s * sig_k[1]
        a_vx = ta_vx
        a_vy = ta_vsy
        a_z = da_s * sig_a[1]
        a_g = da_s * sig_a[4]
    elif with_jac:  # κ = (ω_s Re − Vx)/s_x, α = atan(−Vy/d_d), eqs. 4.15-4.16
        av = abs(Vx)
        if av > vmin:
            sx = Vx
            k_vx = -ws * Re / (Vx * Vx)
            dd = av
            a_vx = Vy * (1.0 if Vx >= 0.0 else -1.0) / (dd * dd + Vy * Vy)
        else:
            sx = vmin if Vx >= 0.0 else -vmin
            k_vx = -1.0 / sx
            dd = vmin
        k_vx += ws / sx * re_v
        k_ws = Re / sx
        k_z = ws / sx * re_z
        a_vy = -dd / (dd * dd + Vy * Vy)
    # the transient slips are finite at standstill: no further low-speed reduction of κ, α
    if with_jac:  # one pass gives the five outputs and their partials
        dFx, dFy, dMz, dMx, dMy = mf_dual(p, Fn, kappa, -alpha, gamma, Vx, not transient, True,
                                          vmin)
        Fx, Fy, Mz, Mx, My = dFx[0], dFy[0], dMz[0], dMx[0], dMy[0]
    else:
        mf_steady_state(p, Fn, kappa, -alpha, gamma, Vx, mf, not transient)
        Fx, Fy, Mx, My, Mz = mf[0], mf[1], mf[2], mf[3], mf[4]
    for c in range(3):
        F[c] = Fx * l[c] + Fy * t[c] + Fn * ne[c]
        Mc[c] = Mx * l[c] + My * t[c] + Mz * ne[c]
        rd[c] = r * d[c]
        f[c] = F[c]
    _cr(rd, F, tau)
    for c in range(3):
        tau[c] += Mc[c]
    outs[TO_FX] = Fx
    outs[TO_FY] = Fy
    outs[TO_FZ] = Fn
    outs[TO_KAPPA] = kappa
    outs[TO_ALPHA] = alpha
    outs[TO_GAMMA] = gamma
    outs[TO_RHO] = rho
    if not with_jac:
        return
    _tyre_jacobian(road, lf, kz, cz, clipped, rA, vA, w, s, sg, l, t, ne, d, F, rd, nl, hf, hr,
                   xf, yf, xr, yr, cb, sb, sn, nd, den, g, r, heff, Fn, Fx, Fy, Mx, My, Mz,
                   _coefs(dFx, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g),
                   _coefs(dFy, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g),
                   _coefs(dMz, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g),
                   (_coefs(dMx, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g),
                    _coefs(dMy, k_vx, k_ws, k_z, a_vx, a_vy, a_z, a_g)),
                   dfdx, dfdv, dtdx, dtdv)


@njit(cache=True)
def _tyre_jacobian(road, lf, kz, cz, clipped, rA, vA, w, s, sg, l, t, ne, d, F, rd, nl, hf, hr,
                   xf, yf, xr, yr, cb, sb, sn, nd, den, g, r, heff, Fn, Fx, Fy, Mx, My, Mz,
                   cFx, cFy, cMz, cMxy, dfdx, dfdv, dtdx, dtdv):
    """Columns 6-11 of ∂f/∂x, ∂τ/∂x (seed: δr_j = e_c, then δπ_j = e_c) and of ∂f/∂v, ∂τ/∂v
    (δṙ_j = e_c, then δω_j = e_c) by forward differentiation of :func:`tyre_force`, one column
    per pass (the same operations for every column). ``c*``: partials of F_x, F_y, M_z, (M_x,
    M_y) with respect to (F_n, V_x, ω_s, V_y, γ) (:func:`_coefs`)."""
    cMx, cMy = cMxy
    hfx, hfy = _road_slopes(road, xf, yf)
    hrx, hry = _road_slopes(road, xr, yr)
    lv, tv, nev, dv, sv = _t3(l), _t3(t), _t3(ne), _t3(d), _t3(s)
    Fv, rdv, vAv, wv, sgv = _t3(F), _t3(rd), _t3(vA), _t3(w), _t3(sg)
    ez = (0.0, 0.0, 1.0)
    zero = (0.0, 0.0, 0.0)
    rz = rA[2] - heff
    cg = math.sqrt(max(0.0, 1.0 - sn * sn))  # cos γ
    kfn = 0.0 if clipped else kz
    cfn = 0.0 if clipped else cz
    for col in range(12):
        cc = col % 3
        e = (1.0 if cc == 0 else 0.0, 1.0 if cc == 1 else 0.0, 1.0 if cc == 2 else 0.0)
        rot = (col % 6) >= 3
        # the column's seed: δA, δs, δV_A, δω
        if col < 6:
            if rot:
                drA = _x3(e, sgv)
                ds = _x3(e, sv)
                dvA = _x3(wv, drA)
            else:
                drA, ds, dvA = e, zero, zero
            dw = zero
        else:
            drA, ds = zero, zero
            dvA = _x3(e, sgv) if rot else e
            dw = e if rot else zero
        # directions: l = s × e_z/|s × e_z|, t = e_z × l
        dm = (ds[1], -ds[0], 0.0)
        lm = _d3(lv, dm)
        dl = ((dm[0] - lv[0] * lm) / nl, (dm[1] - lv[1] * lm) / nl, (dm[2] - lv[2] * lm) / nl)
        dt = (-dl[1], dl[0], 0.0)
        # followers' heights, β, h_eff (Fig. 4.12), n_e
        dhf = hfx * (drA[0] + lf * dl[0]) + hfy * (drA[1] + lf * dl[1])
        dhr = hrx * (drA[0] - lf * dl[0]) + hry * (drA[1] - lf * dl[1])
        dbeta = cb * cb * (dhf - dhr) / (2.0 * lf)
        dheff = 0.5 * (dhf + dhr)
        dne = _lc3(-sb * dbeta, ez, -cb * dbeta, lv, -sb, dl)
        # d = −(n_e − sn s)/|…|, den = −d·n_e, loaded radius r = cos β (A_z − h_eff)/den
        dsn = _d3(dne, sv) + _d3(nev, ds)
        du = _lc3(-1.0, dne, dsn, sv, sn, ds)
        ddu = _d3(dv, du)
        dd = ((du[0] - dv[0] * ddu) / nd, (du[1] - dv[1] * ddu) / nd, (du[2] - dv[2] * ddu) / nd)
        dden = -(_d3(dd, nev) + _d3(dv, dne))
        dg = (-sb * dbeta - g * dden) / den
        dr = dg * rz + g * (drA[2] - dheff)
        dFn = -kfn * dr + cfn * (-dg * vAv[2] - g * dvA[2])
        dgam = -dsn / cg if cg > 0.0 else 0.0
        dVx = _d3(dvA, lv) + _d3(vAv, dl)
        dVy = _d3(dvA, tv) + _d3(vAv, dt)
        dws = _d3(dw, sv) + _d3(wv, ds)
        dFx = cFx[0] * dFn + cFx[1] * dVx + cFx[2] * dws + cFx[3] * dVy + cFx[4] * dgam
        dFy = cFy[0] * dFn + cFy[1] * dVx + cFy[2] * dws + cFy[3] * dVy + cFy[4] * dgam
        dMz = cMz[0] * dFn + cMz[1] * dVx + cMz[2] * dws + cMz[3] * dVy + cMz[4] * dgam
        dMx = cMx[0] * dFn + cMx[1] * dVx + cMx[2] * dws + cMx[3] * dVy + cMx[4] * dgam
        dMy = cMy[0] * dFn + cMy[1] * dVx + cMy[2] * dws + cMy[3] * dVy + cMy[4] * dgam
        # F = Fx l + Fy t + Fn n_e, τ = r d × F + Mx l + My t + Mz n_e
        a1 = _lc3(dFx, lv, dFy, tv, dFn, nev)
        a2 = _lc3(Fx, dl, Fy, dt, Fn, dne)
        dF = (a1[0] + a2[0], a1[1] + a2[1], a1[2] + a2[2])
        b1 = _lc3(dMx, lv, dMy, tv, dMz, nev)
        b2 = _lc3(Mx, dl, My, dt, Mz, dne)
        drd = (dr * dv[0] + r * dd[0], dr * dv[1] + r * dd[1], dr * dv[2] + r * dd[2])
        c1 = _x3(drd, Fv)
        c2 = _x3(rdv, dF)
        j = 6 + col % 6
        if col < 6:
            for c in range(3):
                dfdx[c, j] = dF[c]
                dtdx[c, j] = c1[c] + c2[c] + b1[c] + b2[c]
        else:
            for c in range(3):
                dfdv[c, j] = dF[c]
                dtdv[c, j] = c1[c] + c2[c] + b1[c] + b2[c]
