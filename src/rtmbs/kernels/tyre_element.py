"""The tyre force element (seed 003 §4.3): 2-point follower enveloping, steady-state Magic
Formula, slips from the rim's motion, with the Jacobians of its stiff parts.

The element acts on the rim at the wheel centre A (marker origin, marker z = spin axis s, which
should point to the vehicle's left so that the ISO-W axes of the .tir data apply):

    l = s × n / |s × n| (longitudinal), t = n × l (lateral), n = global z;
    road heights under the two followers at A ± lf·l give the effective plane angle β and height
    h_eff (Fig. 4.12); the plane normal n_e = cos β n − sin β l;
    d = direction in the wheel plane towards the road; loaded radius r = cos β (A_z − h_eff)/(−d·n_e);
    ρ = r_free − r (eq. 4.14), radial force F_n = k ρ + c ρ̇ along n_e (zero without contact);
    V_x = V_A·l, V_y = V_A·t, ω_s = ω_rim·s; κ, α from eqs. 4.15-4.16; camber γ = −asin(s·n_e);
    (F_x, F_y, M_x, M_y, M_z) = MF(F_n, κ, −α, γ, V_x) in the contact frame (l, t, n_e);
    force on the rim F = F_x l + F_y t + F_n n_e at the contact point C = A + r d, moment M.

Jacobians (``with_jac``): the radial force with respect to the wheel-centre position and
velocity, and the tangential forces through the load, the slips and the spin — the directions
l, t, n_e, d are held fixed (their rotation with camber is a non-stiff, second-order effect).

Transient tyres (``TP_XSTATE`` ≥ 0): slips from the carcass deflections ``tyre_x[1 + 2k]``,
``tyre_x[2 + 2k]`` with the low-speed damping, at the end of the step ``tyre_x[0]`` of the
fixed-step solver (:func:`rtmbs.vehicle.tyre.contact.transient_slips_lowspeed`); the Magic
Formula without its own low-speed slip reduction; the Jacobian through the slip velocities,
Vx and (via Re and the relaxation lengths) the load.
"""
from __future__ import annotations

import math

from numba import njit

from ..vehicle.road import road_height_packed
from .cartesian import _cross as _cr
from .cartesian import _dot as _dt
from ..vehicle.tyre.contact import slip_quantities, transient_slips_lowspeed, two_point_follower
from ..vehicle.tyre.magic_formula import (D_FX, D_FX_A, D_FX_FZ, D_FX_K, D_FY, D_FY_A, D_FY_FZ, D_FY_K,
                                           D_MZ, D_MZ_A, D_MZ_FZ, D_MZ_K, I_FNOMIN, I_VXLOW,
                                           effective_rolling_radius,
                                           effective_rolling_radius_dfz, mf_force_partials, mf_moments,
                                           mf_steady_state)

#: frc_par layout of a tyre element
TP_ROW, TP_ROAD_ADR, TP_ROAD_LEN, TP_LF, TP_KZ, TP_CZ, TP_VMIN, TP_RFREE, TP_XSTATE = range(9)
#: extra outputs of a tyre element (frc_out columns 1..)
TYRE_OUTPUTS = ("Fx", "Fy", "Fz", "kappa", "alpha", "gamma", "rho")
#: further per-element values (after TYRE_OUTPUTS) that drive the transient states (eq. 4.23)
TYRE_TRANSIENT_INPUTS = ("Vsx", "Vsy", "Vx", "sigma_kappa", "sigma_alpha")
#: column of each of those values in ``outs`` (frc_out column 1 + it), by name
_COL = {name: c for c, name in enumerate(TYRE_OUTPUTS + TYRE_TRANSIENT_INPUTS)}
TO_FX, TO_FY, TO_FZ = _COL["Fx"], _COL["Fy"], _COL["Fz"]
TO_KAPPA, TO_ALPHA, TO_GAMMA, TO_RHO = _COL["kappa"], _COL["alpha"], _COL["gamma"], _COL["rho"]
TO_VSX, TO_VSY, TO_VX = _COL["Vsx"], _COL["Vsy"], _COL["Vx"]
TO_SIGMA_KAPPA, TO_SIGMA_ALPHA = _COL["sigma_kappa"], _COL["sigma_alpha"]
#: the frc_out columns of TYRE_TRANSIENT_INPUTS (contiguous, in that order)
TYRE_TRANSIENT_COLUMNS = slice(1 + TO_VSX, 1 + TO_SIGMA_ALPHA + 1)


@njit(cache=True, inline="always")
def _point_row(row, c, v, sg, out):
    """out[row, 6:12] += c·[vᵀ, (sg × v)ᵀ]: derivative of v·(point velocity or position) of the rim."""
    out[row, 6] += c * v[0]
    out[row, 7] += c * v[1]
    out[row, 8] += c * v[2]
    out[row, 9] += c * (sg[1] * v[2] - sg[2] * v[1])
    out[row, 10] += c * (sg[2] * v[0] - sg[0] * v[2])
    out[row, 11] += c * (sg[0] * v[1] - sg[1] * v[0])


@njit(cache=True, fastmath=False)
def tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, rA, vA, w, s, sg, f, tau, dfdx, dfdv, dtdx,
               dtdv, outs, tmp, G, mf):
    """Force ``f`` at the wheel centre and couple ``tau`` on the rim; ``outs`` gets
    TYRE_OUTPUTS. ``G`` (≥ 8×12) and ``mf`` (≥ 13) are scratch."""
    p = tyre_par[int(par[TP_ROW])]
    adr = int(par[TP_ROAD_ADR])
    road = road_buf[adr:adr + int(par[TP_ROAD_LEN])]
    lf, kz, cz, vmin, rfree = par[TP_LF], par[TP_KZ], par[TP_CZ], par[TP_VMIN], par[TP_RFREE]
    for c in range(outs.shape[0]):
        outs[c] = 0.0
    l = tmp[0]; t = tmp[1]; ne = tmp[2]; d = tmp[3]; F = tmp[4]; Mc = tmp[5]; rd = tmp[6]
    ez = tmp[7]; v1 = tmp[8]
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
    hf, _ = road_height_packed(road, rA[0] + lf * l[0], rA[1] + lf * l[1])
    hr, _ = road_height_packed(road, rA[0] - lf * l[0], rA[1] - lf * l[1])
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
    damp_on = True
    if Fn < 0.0:
        Fn = 0.0
        damp_on = False
    Vx = _dt(vA, l)
    Vy = _dt(vA, t)
    ws = _dt(w, s)
    re_z = 0.0
    if with_jac:  # with ∂Re/∂Fn: the load also changes κ through the rolling radius
        Re, _, re_z = effective_rolling_radius_dfz(p, Fn, 0.0, Vx, 0.0)
    else:
        Re, _ = effective_rolling_radius(p, Fn, 0.0, Vx, 0.0)
    kappa, alpha = slip_quantities(Vx, Vy, ws, Re, vmin)
    gamma = -math.asin(max(-1.0, min(1.0, sn)))
    xs = int(par[TP_XSTATE])
    transient = xs >= 0
    tk_vsx = tk_vx = ta_vsy = ta_vx = tk_z = ta_z = 0.0
    if transient:
        # transient: slips from the carcass deflections u, v (eq. 4.24) with their low-speed
        # damping, at the end of the solver's step tyre_x[0] (0: at the current deflections);
        # relaxation lengths from the steady-state point; the deflections' inputs are kept for
        # the state update (eq. 4.23)
        dfz = 1e-6 * (Fn + p[I_FNOMIN])
        if with_jac:  # ∂σ/∂F_n by a forward difference (σκ, σα of MF 6.1 / 5.2 formulas)
            mf_steady_state(p, Fn + dfz, kappa, -alpha, gamma, Vx, mf)
            tk_z, ta_z = mf[11], mf[12]
        mf_steady_state(p, Fn, kappa, -alpha, gamma, Vx, mf)
        sk, sa = mf[11], mf[12]
        Vsx = Vx - ws * Re
        outs[TO_VSX] = Vsx
        outs[TO_VSY] = Vy
        outs[TO_VX] = Vx
        outs[TO_SIGMA_KAPPA] = sk
        outs[TO_SIGMA_ALPHA] = sa
        kappa, alpha, tk_vsx, tk_vx, dk_s, ta_vsy, ta_vx, da_s = transient_slips_lowspeed(
            tyre_x[1 + 2 * xs], tyre_x[2 + 2 * xs], Vsx, Vy, Vx, sk, sa, p[I_VXLOW], tyre_x[0])
        tk_z = dk_s * (tk_z - sk) / dfz  # ∂κ'/∂F_n, ∂α'/∂F_n through the relaxation lengths
        ta_z = da_s * (ta_z - sa) / dfz
    # the transient slips are finite at standstill: no further low-speed reduction of κ, α
    if with_jac:  # one pass gives Fx, Fy, Mz and their partials (kept in mf for below)
        mf_force_partials(p, Fn, kappa, -alpha, gamma, Vx, mf, not transient)
        Fx, Fy, Mz = mf[D_FX], mf[D_FY], mf[D_MZ]
        Mx, My = mf_moments(p, Fn, kappa, gamma, Vx, Fx, Fy)
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
    # rows of G (1×12 each): 0 ∂ρ/∂x, 1 ∂ρ̇/∂v, 2 ∂Vx/∂v, 3 ∂Vy/∂v, 4 ∂ω_s/∂v, 5 ∂Fn/∂x, 6 ∂Fn/∂v
    for a in range(8):
        for col in range(12):
            G[a, col] = 0.0
    _point_row(0, -g, ez, sg, G)
    _point_row(1, -g, ez, sg, G)
    _point_row(2, 1.0, l, sg, G)
    _point_row(3, 1.0, t, sg, G)
    for c in range(3):
        G[4, 9 + c] = s[c]
    for col in range(12):
        G[5, col] = kz * G[0, col]
        G[6, col] = cz * G[1, col] if damp_on else 0.0
    # exact partial derivatives of Fx, Fy, Mz with respect to the Magic Formula's scalar inputs
    # (forward mode, one pass); MF is called with −α: ∂/∂α_seed = −∂/∂α_mf
    fx_z, fx_k, fx_a = mf[D_FX_FZ], mf[D_FX_K], -mf[D_FX_A]
    fy_z, fy_k, fy_a = mf[D_FY_FZ], mf[D_FY_K], -mf[D_FY_A]
    mz_z, mz_k, mz_a = mf[D_MZ_FZ], mf[D_MZ_K], -mf[D_MZ_A]
    # slips: κ = (ω_s Re − Vx)/sx, α = atan(−Vy/dd)
    av = abs(Vx)
    if av > vmin:
        k_vx = -ws * Re / (Vx * Vx)
        k_ws = Re / Vx
        dd = av
        a_vx = Vy * (1.0 if Vx >= 0.0 else -1.0) / (dd * dd + Vy * Vy)
    else:
        sx = vmin if Vx >= 0.0 else -vmin
        k_vx = -1.0 / sx
        k_ws = Re / sx
        dd = vmin
        a_vx = 0.0
    a_vy = -dd / (dd * dd + Vy * Vy)
    if transient:  # κ'(Vsx = Vx − ω_s Re, Vx), α'(Vy, Vx) of transient_slips_lowspeed
        k_vx = tk_vsx + tk_vx
        k_ws = -Re * tk_vsx
        a_vx = ta_vx
        a_vy = ta_vsy
    k_z = ws * re_z * k_ws / Re + tk_z  # ∂κ/∂F_n = ω_s ∂Re/∂F_n / s_x (the same through Vsx)
    fx_z += fx_k * k_z + fx_a * ta_z
    fy_z += fy_k * k_z + fy_a * ta_z
    mz_z += mz_k * k_z + mz_a * ta_z
    for col in range(12):
        dk_v = k_vx * G[2, col] + k_ws * G[4, col]
        da_v = a_vx * G[2, col] + a_vy * G[3, col]
        dFx_v = fx_z * G[6, col] + fx_k * dk_v + fx_a * da_v
        dFy_v = fy_z * G[6, col] + fy_k * dk_v + fy_a * da_v
        dFx_x = fx_z * G[5, col]
        dFy_x = fy_z * G[5, col]
        for c in range(3):
            dfdv[c, col] = dFx_v * l[c] + dFy_v * t[c] + G[6, col] * ne[c]
            dfdx[c, col] = dFx_x * l[c] + dFy_x * t[c] + G[5, col] * ne[c]
    # τ = r d × F + M:  dτ = r d̃ dF − (d × F) dρ + n_e dMz
    _cr(d, F, v1)
    r0, r1, r2 = rd[0], rd[1], rd[2]
    for col in range(12):
        x0, x1, x2 = dfdx[0, col], dfdx[1, col], dfdx[2, col]
        y0, y1, y2 = dfdv[0, col], dfdv[1, col], dfdv[2, col]
        g0 = G[0, col]
        dtdx[0, col] = r1 * x2 - r2 * x1 - v1[0] * g0
        dtdx[1, col] = r2 * x0 - r0 * x2 - v1[1] * g0
        dtdx[2, col] = r0 * x1 - r1 * x0 - v1[2] * g0
        dtdv[0, col] = r1 * y2 - r2 * y1
        dtdv[1, col] = r2 * y0 - r0 * y2
        dtdv[2, col] = r0 * y1 - r1 * y0
    for col in range(12):
        dk_v = k_vx * G[2, col] + k_ws * G[4, col]
        da_v = a_vx * G[2, col] + a_vy * G[3, col]
        dMz_v = mz_z * G[6, col] + mz_k * dk_v + mz_a * da_v
        dMz_x = mz_z * G[5, col]
        for c in range(3):
            dtdv[c, col] += ne[c] * dMz_v
            dtdx[c, col] += ne[c] * dMz_x
