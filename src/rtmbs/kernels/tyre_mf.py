"""The Magic Formula in numba (Pacejka 2012, §4.3.2 and Appendix 3), kept only for the numba
evaluation (:mod:`rtmbs.kernels.tyre_element`) that the solvers' numba steps still call; the
engine's ``tyre/magic_formula.c`` is the implementation everything else calls
(:mod:`rtmbs.vehicle.tyre.magic_formula`). Deleted with the numba steps (issue 29)."""
from __future__ import annotations

import math

from numba import njit

from ..vehicle.tyre.magic_formula import (EPS, FAMILY_MF52, I_ALPMAX, I_ALPMIN, I_BREFF, I_CAMMAX,
                                          I_CAMMIN, I_DREFF, I_FAMILY, I_FNOMIN, I_FREFF, I_FZMAX,
                                          I_FZMIN, I_INFLPRES, I_KPUMAX, I_KPUMIN,
                                          I_LATERAL_STIFFNESS, I_LCX, I_LCY, I_LEX, I_LEY, I_LFZO,
                                          I_LHX, I_LHY, I_LKX, I_LKY, I_LKYC, I_LKZC, I_LMUX,
                                          I_LMUY, I_LMX, I_LMY, I_LONGITUDINAL_STIFFNESS, I_LONGVL,
                                          I_LRES, I_LS, I_LSGAL, I_LSGKP, I_LTR, I_LVMX, I_LVX,
                                          I_LVY, I_LVYKA, I_LXAL, I_LYKA, I_NOMPRES, I_PCFX1,
                                          I_PCFX2, I_PCFX3, I_PCFY1, I_PCFY2, I_PCFY3, I_PCX1,
                                          I_PCY1, I_PDX1, I_PDX2, I_PDX3, I_PDY1, I_PDY2, I_PDY3,
                                          I_PEX1, I_PEX2, I_PEX3, I_PEX4, I_PEY1, I_PEY2, I_PEY3,
                                          I_PEY4, I_PEY5, I_PFZ1, I_PHX1, I_PHX2, I_PHY1, I_PHY2,
                                          I_PHY3, I_PKX1, I_PKX2, I_PKX3, I_PKY1, I_PKY2, I_PKY3,
                                          I_PKY4, I_PKY5, I_PKY6, I_PKY7, I_PPMX1, I_PPX1, I_PPX2,
                                          I_PPX3, I_PPX4, I_PPY1, I_PPY2, I_PPY3, I_PPY4, I_PPY5,
                                          I_PPZ1, I_PPZ2, I_PRESMAX, I_PRESMIN, I_PTX1, I_PTX2,
                                          I_PTX3, I_PTY1, I_PTY2, I_PVX1, I_PVX2, I_PVY1, I_PVY2,
                                          I_PVY3, I_PVY4, I_QBZ1, I_QBZ10, I_QBZ2, I_QBZ3, I_QBZ4,
                                          I_QBZ5, I_QBZ9, I_QCZ1, I_QDZ1, I_QDZ10, I_QDZ11, I_QDZ2,
                                          I_QDZ3, I_QDZ4, I_QDZ6, I_QDZ7, I_QDZ8, I_QDZ9, I_QEZ1,
                                          I_QEZ2, I_QEZ3, I_QEZ4, I_QEZ5, I_QHZ1, I_QHZ2, I_QHZ3,
                                          I_QHZ4, I_QSX1, I_QSX10, I_QSX11, I_QSX12, I_QSX13,
                                          I_QSX14, I_QSX2, I_QSX3, I_QSX4, I_QSX5, I_QSX6, I_QSX7,
                                          I_QSX8, I_QSX9, I_QSY1, I_QSY2, I_QSY3, I_QSY4, I_QSY5,
                                          I_QSY6, I_QSY7, I_QSY8, I_Q_RE0, I_Q_V1, I_RBX1, I_RBX2,
                                          I_RBX3, I_RBY1, I_RBY2, I_RBY3, I_RBY4, I_RCX1, I_RCY1,
                                          I_REX1, I_REX2, I_REY1, I_REY2, I_RHX1, I_RHY1, I_RHY2,
                                          I_RVY1, I_RVY2, I_RVY3, I_RVY4, I_RVY5, I_RVY6, I_SSZ1,
                                          I_SSZ2, I_SSZ3, I_SSZ4, I_UNLOADED_RADIUS,
                                          I_VERTICAL_STIFFNESS, I_VXLOW, N_RE_ITER, O_FX, O_FY,
                                          O_KXK, O_KYA, O_MUX, O_MUY, O_MX, O_MY, O_MZ, O_RE,
                                          O_SIGA, O_SIGK, O_T)


@njit(cache=True, error_model="numpy")
def _sgn1(x):
    """sign(x) with sign(0) = +1 (keeps denominators away from zero)."""
    return 1.0 if x >= 0.0 else -1.0


@njit(cache=True, error_model="numpy")
def _clip(x, lo, hi):
    return lo if x < lo else (hi if x > hi else x)


@njit(cache=True, error_model="numpy")
def _mf(B, C, D, E, x):
    """Magic Formula y = D sin(C atan(Bx - E(Bx - atan Bx))), seed 003 eq. 4.17."""
    bx = B * x
    return D * math.sin(C * math.atan(bx - E * (bx - math.atan(bx))))


@njit(cache=True, error_model="numpy")
def effective_rolling_radius(p, Fz, kappa, Vx, dpi):
    """Effective rolling radius Re and spin speed omega for free-rolling slip ``kappa``.

    Re = R_omega - Fz0/Cz (DREFF atan(BREFF Fz/Fz0) + FREFF Fz/Fz0), R_omega = R0 (Q_RE0 +
    Q_V1 (omega R0/V0)^2), omega = Vx (1 + kappa)/Re (Pacejka eq. 2.5; MF 6.1 Besselink et al.
    2010 eqs. 1, 7). The implicit pair is solved by N_RE_ITER fixed-point updates from
    Re = 0.965 R0 (the contraction factor is ~1e-3 for passenger-car data).
    """
    R0 = p[I_UNLOADED_RADIUS]
    V0 = p[I_LONGVL]
    Fz0 = p[I_FNOMIN]
    Cz = p[I_VERTICAL_STIFFNESS] * (1.0 + p[I_PFZ1] * dpi)
    defl = (Fz0 / Cz) * (p[I_DREFF] * math.atan(p[I_BREFF] * Fz / Fz0) + p[I_FREFF] * Fz / Fz0)
    Re = 0.965 * R0
    omega = 0.0
    for _ in range(N_RE_ITER):
        omega = (kappa * Vx + Vx) / Re
        Re = R0 * (p[I_Q_RE0] + p[I_Q_V1] * (omega * R0 / V0) ** 2) - defl
    return Re, omega


@njit(cache=True, error_model="numpy")
def _fy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52):
    """Pure-slip lateral force, eqs. 4.E19-4.E30 (MF 5.2: SHy with PHY3, no Kyg0 term).

    Returns Fy0, muy, Kya, SHy, SVy, By, Cy.
    """
    Fz0p = p[I_LFZO] * p[I_FNOMIN]
    g2 = gamma * gamma
    Kya = (p[I_PKY1] * Fz0p * (1.0 + p[I_PPY1] * dpi) * (1.0 - p[I_PKY3] * abs(gamma))
           * math.sin(p[I_PKY4] * math.atan((Fz / Fz0p)
                      / ((p[I_PKY2] + p[I_PKY5] * g2) * (1.0 + p[I_PPY2] * dpi))))
           * p[I_LKY])                                                       # 4.E25
    SVyg = Fz * (p[I_PVY3] + p[I_PVY4] * dfz) * gamma * p[I_LKYC] * p[I_LMUY]  # 4.E28
    if mf52:
        SHy = (p[I_PHY1] + p[I_PHY2] * dfz) * p[I_LHY] + p[I_PHY3] * gamma * p[I_LKYC]
    else:
        Kyg0 = Fz * (p[I_PKY6] + p[I_PKY7] * dfz) * (1.0 + p[I_PPY5] * dpi) * p[I_LKYC]  # 4.E30
        SHy = ((p[I_PHY1] + p[I_PHY2] * dfz) * p[I_LHY]
               + (Kyg0 * gamma - SVyg) / (Kya + EPS * _sgn1(Kya)))          # 4.E27
    SVy = Fz * (p[I_PVY1] + p[I_PVY2] * dfz) * p[I_LVY] * p[I_LMUY] + SVyg  # 4.E29
    SHy *= red
    SVy *= red
    alphay = alpha + SHy                                                     # 4.E20
    Cy = p[I_PCY1] * p[I_LCY]                                                # 4.E21
    muy = ((p[I_PDY1] + p[I_PDY2] * dfz) * (1.0 + p[I_PPY3] * dpi + p[I_PPY4] * dpi * dpi)
           * (1.0 - p[I_PDY3] * g2) * p[I_LMUY])                             # 4.E23
    Dy = muy * Fz                                                            # 4.E22
    Ey = ((p[I_PEY1] + p[I_PEY2] * dfz)
          * (1.0 + p[I_PEY5] * g2 - (p[I_PEY3] + p[I_PEY4] * gamma) * _sgn1(alphay))
          * p[I_LEY])                                                        # 4.E24
    Ey = min(Ey, 1.0)
    By = Kya / (Cy * Dy + EPS * _sgn1(Dy))                                   # 4.E26
    Fy0 = _mf(By, Cy, Dy, Ey, alphay) + SVy                                  # 4.E19
    if Fz == 0.0:
        muy = 0.0
    return Fy0, muy, Kya, SHy, SVy, By, Cy


@njit(cache=True, error_model="numpy")
def _gyk(p, kappa, alpha, gamma, dfz):
    """Weighting function of Fy for combined slip, eqs. 4.E59-4.E65."""
    SHyk = p[I_RHY1] + p[I_RHY2] * dfz                                       # 4.E65
    Eyk = min(p[I_REY1] + p[I_REY2] * dfz, 1.0)                              # 4.E64
    Cyk = p[I_RCY1]                                                          # 4.E63
    Byk = ((p[I_RBY1] + p[I_RBY4] * gamma * gamma)
           * math.cos(math.atan(p[I_RBY2] * (alpha - p[I_RBY3]))) * p[I_LYKA])  # 4.E62
    kappas = kappa + SHyk                                                    # 4.E61
    G0 = math.cos(Cyk * math.atan(Byk * SHyk - Eyk * (Byk * SHyk - math.atan(Byk * SHyk))))
    return math.cos(Cyk * math.atan(Byk * kappas - Eyk * (Byk * kappas - math.atan(Byk * kappas)))) / G0


@njit(cache=True, error_model="numpy")
def _mx_my(p, uFz, Fz, gamma, dpi, press, Vx, kappa_in, Fx, Fy, mf52):
    """Overturning and rolling resistance moments from the (clipped) inputs and Fx, Fy."""
    R0 = p[I_UNLOADED_RADIUS]
    Fz0 = p[I_FNOMIN]
    V0 = p[I_LONGVL]
    VXLOW = p[I_VXLOW]
    # --- overturning moment (TNO manual form of 4.E69) ------------------------------------
    FzMx = Fz * (Fz / p[I_FZMIN]) ** 2 if Fz < p[I_FZMIN] else Fz
    Mx = (R0 * FzMx * p[I_LMX]
          * (p[I_QSX1] * p[I_LVMX] - p[I_QSX2] * gamma * (1.0 + p[I_PPMX1] * dpi)
             + p[I_QSX3] * Fy / Fz0
             + p[I_QSX4] * math.cos(p[I_QSX5] * math.atan((p[I_QSX6] * FzMx / Fz0) ** 2))
             * math.sin(p[I_QSX7] * gamma + p[I_QSX8] * math.atan(p[I_QSX9] * Fy / Fz0))
             + p[I_QSX10] * math.atan(p[I_QSX11] * FzMx / Fz0) * gamma)
          + R0 * p[I_LMX] * (Fy * (p[I_QSX13] + p[I_QSX14] * abs(gamma))
                             - FzMx * p[I_QSX12] * gamma * abs(gamma)))

    # --- rolling resistance moment (MF 6.1: Besselink et al. eq. A48; MF 5.2 manual) -------
    FzMy = uFz * (uFz / p[I_FZMIN]) if uFz < p[I_FZMIN] else uFz
    vr = Vx / V0
    if mf52:
        My = (-R0 * FzMy * p[I_LMY]
              * (p[I_QSY1] + p[I_QSY2] * Fx / Fz0 + p[I_QSY3] * abs(vr) + p[I_QSY4] * vr ** 4))
    else:
        My = (-R0 * Fz0 * p[I_LMY]
              * (p[I_QSY1] + p[I_QSY2] * Fx / Fz0 + p[I_QSY3] * abs(vr) + p[I_QSY4] * vr ** 4
                 + (p[I_QSY5] + p[I_QSY6] * FzMy / Fz0) * gamma * gamma)
              * ((FzMy / Fz0) ** p[I_QSY7] * (press / p[I_NOMPRES]) ** p[I_QSY8]))
    if Vx == 0.0:
        My = 0.0
    else:
        if Vx < 0.0:
            My = -My
        # smooth sign change of My for a wheel spinning backwards (kappa near -1)
        high = VXLOW / abs(Vx) - 1.0
        low = -1.0 - VXLOW - high
        if low <= kappa_in <= high:
            My *= math.sin(0.5 * math.pi * (kappa_in + 1.0) / (high + 1.0))
        elif kappa_in < low:
            My = -My

    return Mx, My


@njit(cache=True, error_model="numpy")
def mf_steady_state(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, out, slip_reduction=True):
    """Steady-state forces and moments of one tyre at one operating point (no allocation).

    Inputs: vertical load ``Fz_in`` [N], longitudinal slip ``kappa_in`` [-] (seed 003 eq. 4.15),
    slip angle ``alpha_in`` [rad] (eq. 4.16), camber ``gamma_in`` [rad], forward speed ``Vx``
    [m/s] of the wheel centre. Writes ``out[O_*]``: Fx, Fy, Mx, My, Mz in the ISO-W contact
    frame [N, N m], Re [m], pneumatic trail t [m], mux, muy, cornering stiffness Kya [N/rad],
    slip stiffness Kxk [N], relaxation lengths sigma_kappa, sigma_alpha [m] (nan if the file
    has no carcass stiffness).

    ``slip_reduction`` False skips the low-speed reduction of κ and α (below VXLOW) and keeps
    that of the shifts: for the transient slips of the carcass deflections, which stay finite
    at standstill (``contact.transient_slips_lowspeed``, docs/tyre.md "Transient model at low
    speed").
    """
    mf_evaluate(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, out, True, slip_reduction)


@njit(cache=True, error_model="numpy")
def mf_evaluate(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, out, full, slip_reduction=True):
    """:func:`mf_steady_state`; with ``full`` False only Fx, Fy, Mz, t, mux, muy, Kya, Kxk (what
    the tyre element's Jacobian differentiates: no Mx, My, Re, relaxation lengths)."""
    mf52 = p[I_FAMILY] == FAMILY_MF52
    R0 = p[I_UNLOADED_RADIUS]
    Fz0 = p[I_FNOMIN]
    V0 = p[I_LONGVL]
    VXLOW = p[I_VXLOW]

    # --- inputs: limits and low-speed reductions (MFeval parseInputs, useMode 111) ---------
    uFz = max(Fz_in, 0.0)
    kappa = kappa_in
    alpha = alpha_in
    press = p[I_INFLPRES]
    dpi_raw = (press - p[I_NOMPRES]) / p[I_NOMPRES]
    red = 1.0  # smooth reduction of shifts below VXLOW, 0 at standstill
    if abs(Vx) <= VXLOW:
        red = 1.0 - 0.5 * (1.0 + math.cos(math.pi * Vx / VXLOW))
        if slip_reduction:
            kappa = kappa * abs(Vx) / VXLOW
    speed_sum = abs(Vx) + abs(math.tan(alpha) * Vx)
    if slip_reduction and speed_sum < VXLOW:
        alpha = alpha * speed_sum / VXLOW
    alpha = _clip(alpha, p[I_ALPMIN], p[I_ALPMAX])
    gamma = _clip(gamma_in, p[I_CAMMIN], p[I_CAMMAX])
    Fz = _clip(uFz, 0.0, p[I_FZMAX])
    kappa = _clip(kappa, p[I_KPUMIN], p[I_KPUMAX])
    press = _clip(press, p[I_PRESMIN], p[I_PRESMAX])
    Fz_low = max(Fz, p[I_FZMIN])  # load used for the aligning moment
    if Fz <= 0.0:
        Fz_low = 0.0

    # --- basic quantities, eqs. 4.E1-4.E8 (LMUV = 0, Amu = 1) ------------------------------
    Fz0p = p[I_LFZO] * Fz0                                                   # 4.E1
    dfz = (Fz - Fz0p) / Fz0p                                                 # 4.E2a
    dpi = (press - p[I_NOMPRES]) / p[I_NOMPRES]                              # 4.E2b
    Vsy = math.tan(alpha) * abs(Vx)
    Vc = math.sqrt(Vx * Vx + Vsy * Vsy)
    cos_alpha_p = _clip(Vx / (Vc + EPS), -1.0, 1.0)                          # cos of 4.E6
    LMUX = p[I_LMUX]
    LMUY = p[I_LMUY]

    # --- pure longitudinal slip, eqs. 4.E9-4.E18 ------------------------------------------
    Cx = p[I_PCX1] * p[I_LCX]                                                # 4.E11
    mux = ((p[I_PDX1] + p[I_PDX2] * dfz) * (1.0 + p[I_PPX3] * dpi + p[I_PPX4] * dpi * dpi)
           * (1.0 - p[I_PDX3] * gamma * gamma) * LMUX)                       # 4.E13
    if Fz == 0.0:
        mux = 0.0
    Dx = mux * Fz                                                            # 4.E12
    Kxk = (Fz * (p[I_PKX1] + p[I_PKX2] * dfz) * math.exp(p[I_PKX3] * dfz)
           * (1.0 + p[I_PPX1] * dpi + p[I_PPX2] * dpi * dpi) * p[I_LKX])     # 4.E15
    Bx = Kxk / (Cx * Dx + EPS * _sgn1(Dx))                                   # 4.E16
    SHx = (p[I_PHX1] + p[I_PHX2] * dfz) * p[I_LHX] * red                     # 4.E17
    SVx = Fz * (p[I_PVX1] + p[I_PVX2] * dfz) * p[I_LVX] * LMUX * red         # 4.E18
    kappax = kappa + SHx                                                     # 4.E10
    Ex = ((p[I_PEX1] + p[I_PEX2] * dfz + p[I_PEX3] * dfz * dfz)
          * (1.0 - p[I_PEX4] * _sgn1(kappax)) * p[I_LEX])                    # 4.E14
    Ex = min(Ex, 1.0)
    Fx0 = _mf(Bx, Cx, Dx, Ex, kappax) + SVx                                  # 4.E9
    if Vx < 0.0:
        Fx0 = -Fx0

    # --- pure lateral slip, eqs. 4.E19-4.E30 ----------------------------------------------
    Fy0, muy, Kya, SHy, SVy, By, Cy = _fy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52)

    # --- combined slip, eqs. 4.E50-4.E67 --------------------------------------------------
    Cxa = p[I_RCX1]                                                          # 4.E55
    Exa = min(p[I_REX1] + p[I_REX2] * dfz, 1.0)                              # 4.E56
    SHxa = p[I_RHX1]                                                         # 4.E57
    Bxa = ((p[I_RBX1] + p[I_RBX3] * gamma * gamma)
           * math.cos(math.atan(p[I_RBX2] * kappa)) * p[I_LXAL])             # 4.E54
    alphas = alpha + SHxa                                                    # 4.E53
    Gxa0 = math.cos(Cxa * math.atan(Bxa * SHxa - Exa * (Bxa * SHxa - math.atan(Bxa * SHxa))))
    Gxa = math.cos(Cxa * math.atan(Bxa * alphas - Exa * (Bxa * alphas - math.atan(Bxa * alphas)))) / Gxa0
    Fx = Gxa * Fx0                                                           # 4.E50

    DVyk = (muy * Fz * (p[I_RVY1] + p[I_RVY2] * dfz + p[I_RVY3] * gamma)
            * math.cos(math.atan(p[I_RVY4] * alpha)))                        # 4.E67
    SVyk = DVyk * math.sin(p[I_RVY5] * math.atan(p[I_RVY6] * kappa)) * p[I_LVYKA] * red  # 4.E66
    Gyk = _gyk(p, kappa, alpha, gamma, dfz)                                  # 4.E59
    Fy = Gyk * Fy0 + SVyk                                                    # 4.E58

    # --- aligning moment, eqs. 4.E31-4.E49 and 4.E71-4.E78 --------------------------------
    Kya_p = Kya + EPS * _sgn1(Kya)                                           # 4.E39
    alphar = alpha + SHy + SVy / Kya_p                                       # 4.E37, 4.E38
    SHt = p[I_QHZ1] + p[I_QHZ2] * dfz + (p[I_QHZ3] + p[I_QHZ4] * dfz) * gamma  # 4.E35
    alphat = alpha + SHt                                                     # 4.E34
    Bt = ((p[I_QBZ1] + p[I_QBZ2] * dfz + p[I_QBZ3] * dfz * dfz)
          * (1.0 + p[I_QBZ4] * gamma + p[I_QBZ5] * abs(gamma)) * p[I_LKY] / LMUY)  # 4.E40
    Ct = p[I_QCZ1]                                                           # 4.E41
    Dt = ((p[I_QDZ1] + p[I_QDZ2] * dfz) * (1.0 - p[I_PPZ1] * dpi)
          * (1.0 + p[I_QDZ3] * gamma + p[I_QDZ4] * gamma * gamma)
          * Fz_low * (R0 / Fz0p) * p[I_LTR])                                 # 4.E43
    Et = ((p[I_QEZ1] + p[I_QEZ2] * dfz + p[I_QEZ3] * dfz * dfz)
          * (1.0 + (p[I_QEZ4] + p[I_QEZ5] * gamma) * (2.0 / math.pi) * math.atan(Bt * Ct * alphat)))
    Et = min(Et, 1.0)                                                        # 4.E44
    Br = p[I_QBZ9] * p[I_LKY] / LMUY + p[I_QBZ10] * By * Cy                  # 4.E45
    sgn_vx = 1.0 if Vx > 0.0 else (-1.0 if Vx < 0.0 else 0.0)
    Dr = (Fz_low * R0 * ((p[I_QDZ6] + p[I_QDZ7] * dfz) * p[I_LRES]
                         + ((p[I_QDZ8] + p[I_QDZ9] * dfz) * (1.0 + p[I_PPZ2] * dpi)
                            + (p[I_QDZ10] + p[I_QDZ11] * dfz) * abs(gamma)) * gamma * p[I_LKZC])
          * LMUY * sgn_vx * math.cos(alpha))                                 # 4.E47
    ratio2 = (Kxk / Kya_p) ** 2 * kappa * kappa
    alphar_eq = math.atan(math.sqrt(math.tan(alphar) ** 2 + ratio2)) * _sgn1(alphar)  # 4.E78
    alphat_eq = math.atan(math.sqrt(math.tan(alphat) ** 2 + ratio2)) * _sgn1(alphat)  # 4.E77
    s = R0 * (p[I_SSZ1] + p[I_SSZ2] * (Fy / Fz0) + (p[I_SSZ3] + p[I_SSZ4] * dfz) * gamma) * p[I_LS]  # 4.E76
    Mzr = Dr * math.cos(math.atan(Br * alphar_eq)) * red                     # 4.E75 (Cr = 1)
    t = (Dt * math.cos(Ct * math.atan(Bt * alphat_eq - Et * (Bt * alphat_eq - math.atan(Bt * alphat_eq))))
         * cos_alpha_p * p[I_LFZO] * red)                                    # 4.E73
    if mf52:
        Mz = -t * (Fy - SVyk) + Mzr + s * Fx
    else:
        Fy0_g0 = _fy0(p, Fz, dfz, dpi, alpha, 0.0, red, mf52)[0]
        Mz = -t * (Gyk * Fy0_g0) + Mzr + s * Fx                              # 4.E71, 4.E72, 4.E74

    out[O_FX] = Fx
    out[O_FY] = Fy
    out[O_MZ] = Mz
    out[O_T] = t
    out[O_MUX] = mux
    out[O_MUY] = muy
    out[O_KYA] = Kya
    out[O_KXK] = Kxk
    if not full:
        return

    Mx, My = _mx_my(p, uFz, Fz, gamma, dpi, press, Vx, kappa_in, Fx, Fy, mf52)

    # --- effective rolling radius and relaxation lengths ---------------------------------
    Re = effective_rolling_radius(p, uFz, kappa_in, Vx, dpi_raw)[0]
    if mf52:
        sig_k = ((p[I_PTX1] + p[I_PTX2] * dfz) * math.exp(-p[I_PTX3] * dfz)
                 * p[I_LSGKP] * R0 * Fz / Fz0)
        sig_a = (p[I_PTY1] * math.sin(2.0 * math.atan(Fz / (p[I_PTY2] * Fz0p)))
                 * (1.0 - p[I_PKY3] * abs(gamma)) * R0 * p[I_LFZO] * p[I_LSGAL])
    else:
        cx = (p[I_LONGITUDINAL_STIFFNESS] * (1.0 + p[I_PCFX1] * dfz + p[I_PCFX2] * dfz * dfz)
              * (1.0 + p[I_PCFX3] * dpi))
        cy = (p[I_LATERAL_STIFFNESS] * (1.0 + p[I_PCFY1] * dfz + p[I_PCFY2] * dfz * dfz)
              * (1.0 + p[I_PCFY3] * dpi))
        sig_k = abs(Kxk / cx) if cx != 0.0 else math.nan
        sig_a = abs(Kya / cy) if cy != 0.0 else math.nan

    out[O_MX] = Mx
    out[O_MY] = My
    out[O_RE] = Re
    out[O_SIGK] = sig_k
    out[O_SIGA] = sig_a


@njit(cache=True, error_model="numpy")
def _dc(v):
    """Constant (no derivative)."""
    return (v, 0.0, 0.0, 0.0, 0.0, 0.0)


@njit(cache=True, error_model="numpy")
def _dvar(v, lane):
    """The input ``lane`` (1..5) with value v."""
    return (v, 1.0 if lane == 1 else 0.0, 1.0 if lane == 2 else 0.0, 1.0 if lane == 3 else 0.0,
            1.0 if lane == 4 else 0.0, 1.0 if lane == 5 else 0.0)


@njit(cache=True, error_model="numpy")
def _dfun(a, v, k):
    """Chain rule of a function of one argument: value v, slope k at a[0]."""
    return (v, k * a[1], k * a[2], k * a[3], k * a[4], k * a[5])


@njit(cache=True, error_model="numpy")
def _dadd(a, b):
    return (a[0] + b[0], a[1] + b[1], a[2] + b[2], a[3] + b[3], a[4] + b[4], a[5] + b[5])


@njit(cache=True, error_model="numpy")
def _dsub(a, b):
    return (a[0] - b[0], a[1] - b[1], a[2] - b[2], a[3] - b[3], a[4] - b[4], a[5] - b[5])


@njit(cache=True, error_model="numpy")
def _dadds(a, s):
    """a + s, s a float."""
    return (a[0] + s, a[1], a[2], a[3], a[4], a[5])


@njit(cache=True, error_model="numpy")
def _dsubs(s, a):
    """s - a, s a float."""
    return (s - a[0], -a[1], -a[2], -a[3], -a[4], -a[5])


@njit(cache=True, error_model="numpy")
def _dneg(a):
    return (-a[0], -a[1], -a[2], -a[3], -a[4], -a[5])


@njit(cache=True, error_model="numpy")
def _dmul(a, b):
    return (a[0] * b[0], a[1] * b[0] + a[0] * b[1], a[2] * b[0] + a[0] * b[2],
            a[3] * b[0] + a[0] * b[3], a[4] * b[0] + a[0] * b[4], a[5] * b[0] + a[0] * b[5])


@njit(cache=True, error_model="numpy")
def _dmuls(a, s):
    """a * s, s a float."""
    return (a[0] * s, a[1] * s, a[2] * s, a[3] * s, a[4] * s, a[5] * s)


@njit(cache=True, error_model="numpy")
def _ddiv(a, b):
    q = a[0] / b[0]
    r = 1.0 / b[0]
    return (q, (a[1] - q * b[1]) * r, (a[2] - q * b[2]) * r, (a[3] - q * b[3]) * r,
            (a[4] - q * b[4]) * r, (a[5] - q * b[5]) * r)


@njit(cache=True, error_model="numpy")
def _ddivs(a, s):
    """a / s, s a float."""
    return (a[0] / s, a[1] / s, a[2] / s, a[3] / s, a[4] / s, a[5] / s)


@njit(cache=True, error_model="numpy")
def _dlin(d, c0, c1):
    """c0 + c1 d."""
    return _dfun(d, c0 + c1 * d[0], c1)


@njit(cache=True, error_model="numpy")
def _dquad(d, c0, c1, c2):
    """c0 + c1 d + c2 d²."""
    return _dfun(d, c0 + c1 * d[0] + c2 * d[0] * d[0], c1 + 2.0 * c2 * d[0])


@njit(cache=True, error_model="numpy")
def _dsq(a):
    """a ** 2."""
    return _dfun(a, a[0] * a[0], 2.0 * a[0])


@njit(cache=True, error_model="numpy")
def _dsin(a):
    return _dfun(a, math.sin(a[0]), math.cos(a[0]))


@njit(cache=True, error_model="numpy")
def _dcos(a):
    return _dfun(a, math.cos(a[0]), -math.sin(a[0]))


@njit(cache=True, error_model="numpy")
def _datan(a):
    return _dfun(a, math.atan(a[0]), 1.0 / (1.0 + a[0] * a[0]))


@njit(cache=True, error_model="numpy")
def _dcosatan(a):
    """cos(atan(a)); derivative -a cos³(atan a)."""
    c = math.cos(math.atan(a[0]))
    return _dfun(a, c, -a[0] * c * c * c)


@njit(cache=True, error_model="numpy")
def _dtan(a):
    t = math.tan(a[0])
    return _dfun(a, t, 1.0 + t * t)


@njit(cache=True, error_model="numpy")
def _dexp(a):
    e = math.exp(a[0])
    return _dfun(a, e, e)


@njit(cache=True, error_model="numpy")
def _dsqrt(a):
    """sqrt(a); zero derivative at a = 0 (the callers' arguments are sums of squares there)."""
    r = math.sqrt(a[0])
    return _dfun(a, r, 0.5 / r if r > 0.0 else 0.0)


@njit(cache=True, error_model="numpy")
def _dpow(a, c):
    """a ** c, c a float; zero derivative at a <= 0."""
    v = a[0] ** c
    return _dfun(a, v, c * v / a[0] if a[0] > 0.0 else 0.0)


@njit(cache=True, error_model="numpy")
def _dabs(a):
    """|a|; zero derivative at a = 0 (the mean of the one-sided slopes)."""
    if a[0] > 0.0:
        return a
    if a[0] < 0.0:
        return _dneg(a)
    return _dc(0.0)


@njit(cache=True, error_model="numpy")
def _dmin1(a):
    """min(a, 1) (the curvature factors' limit E <= 1)."""
    return a if a[0] <= 1.0 else _dc(1.0)


@njit(cache=True, error_model="numpy")
def _dclip(a, lo, hi):
    """Clip; a clipped value is a constant."""
    if a[0] < lo:
        return _dc(lo)
    if a[0] > hi:
        return _dc(hi)
    return a


@njit(cache=True, error_model="numpy")
def _dmf(B, C, D, E, x):
    """:func:`_mf` on dual numbers (C a float)."""
    bx = _dmul(B, x)
    return _dmul(D, _dsin(_dmuls(_datan(_dsub(bx, _dmul(E, _dsub(bx, _datan(bx))))), C)))


@njit(cache=True, error_model="numpy")
def _dcos_mf(C, B, E, x):
    """cos(C atan(B x - E (B x - atan(B x)))) (the weighting functions 4.E51-4.E60), C a float."""
    bx = _dmul(B, x)
    return _dcos(_dmuls(_datan(_dsub(bx, _dmul(E, _dsub(bx, _datan(bx))))), C))


@njit(cache=True, error_model="numpy")
def _dkya(p, Fz, dpi, gamma):
    """Cornering stiffness Kya, eq. 4.E25, on dual numbers."""
    Fz0p = p[I_LFZO] * p[I_FNOMIN]
    ka = _dmuls(_dsubs(1.0, _dmuls(_dabs(gamma), p[I_PKY3])),
                p[I_PKY1] * Fz0p * (1.0 + p[I_PPY1] * dpi))
    den = _dmuls(_dadds(_dmuls(_dsq(gamma), p[I_PKY5]), p[I_PKY2]), 1.0 + p[I_PPY2] * dpi)
    sk = _dsin(_dmuls(_datan(_ddiv(_ddivs(Fz, Fz0p), den)), p[I_PKY4]))
    return _dmuls(_dmul(sk, ka), p[I_LKY])


@njit(cache=True, error_model="numpy")
def _dkxk(p, Fz, dfz, dpi):
    """Slip stiffness Kxk, eq. 4.E15, on dual numbers."""
    return _dmuls(_dmuls(_dmul(_dmul(Fz, _dlin(dfz, p[I_PKX1], p[I_PKX2])),
                               _dexp(_dmuls(dfz, p[I_PKX3]))),
                         1.0 + p[I_PPX1] * dpi + p[I_PPX2] * dpi * dpi), p[I_LKX])


@njit(cache=True, error_model="numpy")
def _dfy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52):
    """:func:`_fy0` on dual numbers: Fy0, muy, Kya, SHy, SVy, By (Cy is a constant)."""
    g2 = _dsq(gamma)
    Kya = _dkya(p, Fz, dpi, gamma)                                       # 4.E25
    SVyg = _dmuls(_dmuls(_dmul(_dmul(Fz, _dlin(dfz, p[I_PVY3], p[I_PVY4])), gamma),
                         p[I_LKYC]), p[I_LMUY])                          # 4.E28
    SHy0 = _dmuls(_dlin(dfz, p[I_PHY1], p[I_PHY2]), p[I_LHY])
    if mf52:
        SHy = _dadd(SHy0, _dmuls(gamma, p[I_PHY3] * p[I_LKYC]))
    else:
        Kyg0 = _dmuls(_dmuls(_dmul(Fz, _dlin(dfz, p[I_PKY6], p[I_PKY7])),
                             1.0 + p[I_PPY5] * dpi), p[I_LKYC])          # 4.E30
        SHy = _dadd(SHy0, _ddiv(_dsub(_dmul(Kyg0, gamma), SVyg),
                                _dadds(Kya, EPS * _sgn1(Kya[0]))))       # 4.E27
    SVy = _dadd(_dmuls(_dmuls(_dmul(Fz, _dlin(dfz, p[I_PVY1], p[I_PVY2])), p[I_LVY]),
                       p[I_LMUY]), SVyg)                                 # 4.E29
    SHy = _dmul(SHy, red)
    SVy = _dmul(SVy, red)
    alphay = _dadd(alpha, SHy)                                           # 4.E20
    Cy = p[I_PCY1] * p[I_LCY]                                            # 4.E21
    muy = _dmuls(_dmul(_dmuls(_dlin(dfz, p[I_PDY1], p[I_PDY2]),
                              1.0 + p[I_PPY3] * dpi + p[I_PPY4] * dpi * dpi),
                       _dsubs(1.0, _dmuls(g2, p[I_PDY3]))), p[I_LMUY])   # 4.E23
    Dy = _dmul(muy, Fz)                                                  # 4.E22
    Ey = _dmuls(_dmul(_dlin(dfz, p[I_PEY1], p[I_PEY2]),
                      _dsub(_dadds(_dmuls(g2, p[I_PEY5]), 1.0),
                            _dmuls(_dlin(gamma, p[I_PEY3], p[I_PEY4]), _sgn1(alphay[0])))),
                p[I_LEY])                                                # 4.E24
    Ey = _dmin1(Ey)
    By = _ddiv(Kya, _dadds(_dmuls(Dy, Cy), EPS * _sgn1(Dy[0])))          # 4.E26
    Fy0 = _dadd(_dmf(By, Cy, Dy, Ey, alphay), SVy)                       # 4.E19
    return Fy0, muy, Kya, SHy, SVy, By, Cy


@njit(cache=True, error_model="numpy")
def _datan_eq(x, ratio2):
    """sgn(x) atan(sqrt(tan(x)² + ratio2)) (eqs. 4.E77-4.E78) on dual numbers. Where the root
    vanishes (x = 0 and ratio2 = 0) the result is taken as x: exact along x, and the mean of
    the one-sided slopes (zero) of the |κ|-kink along ratio2."""
    tx = _dtan(x)
    u = _dadd(_dsq(tx), ratio2)
    if u[0] == 0.0:
        return (0.0, x[1], x[2], x[3], x[4], x[5])
    e = _datan(_dsqrt(u))
    return e if x[0] >= 0.0 else _dneg(e)


@njit(cache=True, error_model="numpy")
def _dmx_my(p, uFz, Fz, gamma, dpi, press, vx, kappa_in, Fx, Fy, mf52):
    """:func:`_mx_my` on dual numbers (Mx: TNO form of 4.E69; My: Besselink et al. eq. A48)."""
    R0 = p[I_UNLOADED_RADIUS]
    Fz0 = p[I_FNOMIN]
    VXLOW = p[I_VXLOW]
    FzMx = _dmul(Fz, _dsq(_ddivs(Fz, p[I_FZMIN]))) if Fz[0] < p[I_FZMIN] else Fz
    A = _dadds(_dmuls(gamma, -p[I_QSX2] * (1.0 + p[I_PPMX1] * dpi)), p[I_QSX1] * p[I_LVMX])
    A = _dadd(A, _dmuls(Fy, p[I_QSX3] / Fz0))
    A = _dadd(A, _dmul(_dmuls(_dcos(_dmuls(_datan(_dsq(_dmuls(FzMx, p[I_QSX6] / Fz0))), p[I_QSX5])),
                              p[I_QSX4]),
                       _dsin(_dadd(_dmuls(gamma, p[I_QSX7]),
                                   _dmuls(_datan(_dmuls(Fy, p[I_QSX9] / Fz0)), p[I_QSX8])))))
    A = _dadd(A, _dmul(_dmuls(_datan(_dmuls(FzMx, p[I_QSX11] / Fz0)), p[I_QSX10]), gamma))
    ag = _dabs(gamma)
    B = _dsub(_dmul(Fy, _dadds(_dmuls(ag, p[I_QSX14]), p[I_QSX13])),
              _dmuls(_dmul(_dmul(FzMx, gamma), ag), p[I_QSX12]))
    Mx = _dadd(_dmuls(_dmul(FzMx, A), R0 * p[I_LMX]), _dmuls(B, R0 * p[I_LMX]))

    FzMy = _dmul(uFz, _ddivs(uFz, p[I_FZMIN])) if uFz[0] < p[I_FZMIN] else uFz
    vr = _ddivs(vx, p[I_LONGVL])
    c = _dadd(_dadd(_dadds(_dmuls(Fx, p[I_QSY2] / Fz0), p[I_QSY1]), _dmuls(_dabs(vr), p[I_QSY3])),
              _dmuls(_dsq(_dsq(vr)), p[I_QSY4]))
    if mf52:
        My = _dmuls(_dmul(FzMy, c), -R0 * p[I_LMY])
    else:
        c = _dadd(c, _dmul(_dadds(_dmuls(FzMy, p[I_QSY6] / Fz0), p[I_QSY5]), _dsq(gamma)))
        My = _dmuls(_dmul(c, _dpow(_ddivs(FzMy, Fz0), p[I_QSY7])),
                    -R0 * Fz0 * p[I_LMY] * (press / p[I_NOMPRES]) ** p[I_QSY8])
    if vx[0] == 0.0:
        return Mx, _dc(0.0)
    if vx[0] < 0.0:
        My = _dneg(My)
    high = _dadds(_ddiv(_dc(VXLOW), _dabs(vx)), -1.0)  # smooth sign change near κ = -1
    low = _dsubs(-1.0 - VXLOW, high)
    if low[0] <= kappa_in[0] <= high[0]:
        x = _ddiv(_dadds(kappa_in, 1.0), _dadds(high, 1.0))
        My = _dmul(My, _dsin(_dmuls(x, 0.5 * math.pi)))
    elif kappa_in[0] < low[0]:
        My = _dneg(My)
    return Mx, My


@njit(cache=True, error_model="numpy")
def mf_dual(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, slip_reduction=True, moments=True,
            kink_band=0.0):
    """Fx, Fy, Mz and (with ``moments``) Mx, My of :func:`mf_evaluate` as dual numbers: 6-tuples
    (value, ∂/∂Fz, ∂/∂κ, ∂/∂α, ∂/∂γ, ∂/∂Vx), exact partial derivatives in one forward-mode pass
    (no allocation). Clipped inputs and the sign functions have zero derivative; at a
    non-differentiable point (a kink of |x|) the mean of the one-sided slopes is used; the
    low-speed reductions (|Vx| < VXLOW) are differentiated. ``slip_reduction`` as in
    :func:`mf_steady_state`; without ``moments`` Mx = My = 0. Within ``kink_band`` of Vx = 0
    the low-speed slip reductions' factors |Vx| are differentiated with their mean slope 0 (as
    at Vx = 0 itself; the tyre element's choice for a step that crosses the kink)."""
    mf52 = p[I_FAMILY] == FAMILY_MF52
    R0 = p[I_UNLOADED_RADIUS]
    Fz0 = p[I_FNOMIN]
    VXLOW = p[I_VXLOW]

    # --- inputs: limits and low-speed reductions -----------------------------------------
    uFz = _dvar(Fz_in, 1) if Fz_in >= 0.0 else _dc(0.0)
    kappa_raw = _dvar(kappa_in, 2)
    kappa = kappa_raw
    alpha = _dvar(alpha_in, 3)
    vx = _dvar(Vx, 5)
    press = p[I_INFLPRES]
    red = _dc(1.0)
    avx = _dabs(vx)
    vx_r = _dc(Vx) if abs(Vx) < kink_band else vx  # Vx in the slip reductions
    if abs(Vx) <= VXLOW:
        red = _dsubs(1.0, _dmuls(_dadds(_dcos(_ddivs(_dmuls(vx, math.pi), VXLOW)), 1.0), 0.5))
        if slip_reduction:
            kappa = _ddivs(_dmul(kappa, _dabs(vx_r)), VXLOW)
    speed_sum = _dadd(_dabs(_dmul(_dtan(alpha), vx_r)), _dabs(vx_r))
    if slip_reduction and speed_sum[0] < VXLOW:
        alpha = _ddivs(_dmul(alpha, speed_sum), VXLOW)
    alpha = _dclip(alpha, p[I_ALPMIN], p[I_ALPMAX])
    gamma = _dclip(_dvar(gamma_in, 4), p[I_CAMMIN], p[I_CAMMAX])
    Fz = _dclip(uFz, 0.0, p[I_FZMAX])
    kappa = _dclip(kappa, p[I_KPUMIN], p[I_KPUMAX])
    press = _clip(press, p[I_PRESMIN], p[I_PRESMAX])
    Fz_low = Fz if Fz[0] >= p[I_FZMIN] else _dc(p[I_FZMIN])
    if Fz[0] <= 0.0:
        Fz_low = _dc(0.0)
    # (mf_evaluate sets mux = muy = 0 at Fz = 0; they only enter as mu Fz, so keeping them
    # gives the same values and the right-hand slopes at Fz = 0)

    # --- basic quantities, eqs. 4.E1-4.E8 ------------------------------------------------
    Fz0p = p[I_LFZO] * Fz0                                               # 4.E1
    dfz = _ddivs(_dadds(Fz, -Fz0p), Fz0p)                                # 4.E2a
    dpi = (press - p[I_NOMPRES]) / p[I_NOMPRES]                          # 4.E2b
    Vsy = _dmul(_dtan(alpha), avx)
    Vc = _dsqrt(_dadd(_dsq(Vsy), _dsq(vx)))
    cos_alpha_p = _dclip(_ddiv(vx, _dadds(Vc, EPS)), -1.0, 1.0)          # cos of 4.E6
    LMUX = p[I_LMUX]
    LMUY = p[I_LMUY]
    g2 = _dsq(gamma)

    # --- pure longitudinal slip, eqs. 4.E9-4.E18 -----------------------------------------
    Cx = p[I_PCX1] * p[I_LCX]                                            # 4.E11
    mux = _dmuls(_dmul(_dmuls(_dlin(dfz, p[I_PDX1], p[I_PDX2]),
                              1.0 + p[I_PPX3] * dpi + p[I_PPX4] * dpi * dpi),
                       _dsubs(1.0, _dmuls(g2, p[I_PDX3]))), LMUX)        # 4.E13
    Dx = _dmul(mux, Fz)                                                  # 4.E12
    Kxk = _dkxk(p, Fz, dfz, dpi)                                         # 4.E15
    Bx = _ddiv(Kxk, _dadds(_dmuls(Dx, Cx), EPS * _sgn1(Dx[0])))          # 4.E16
    SHx = _dmul(_dmuls(_dlin(dfz, p[I_PHX1], p[I_PHX2]), p[I_LHX]), red)  # 4.E17
    SVx = _dmul(_dmuls(_dmuls(_dmul(Fz, _dlin(dfz, p[I_PVX1], p[I_PVX2])), p[I_LVX]), LMUX),
                red)                                                     # 4.E18
    kappax = _dadd(kappa, SHx)                                           # 4.E10
    Ex = _dmuls(_dmuls(_dquad(dfz, p[I_PEX1], p[I_PEX2], p[I_PEX3]),
                       1.0 - p[I_PEX4] * _sgn1(kappax[0])), p[I_LEX])    # 4.E14
    Ex = _dmin1(Ex)
    Fx0 = _dadd(_dmf(Bx, Cx, Dx, Ex, kappax), SVx)                       # 4.E9
    if Vx < 0.0:
        Fx0 = _dneg(Fx0)

    # --- pure lateral slip, eqs. 4.E19-4.E30 ---------------------------------------------
    Fy0, muy, Kya, SHy, SVy, By, Cy = _dfy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52)

    # --- combined slip, eqs. 4.E50-4.E67 -------------------------------------------------
    Cxa = p[I_RCX1]                                                      # 4.E55
    Exa = _dmin1(_dlin(dfz, p[I_REX1], p[I_REX2]))                       # 4.E56
    SHxa = _dc(p[I_RHX1])                                                # 4.E57
    Bxa = _dmuls(_dmul(_dcosatan(_dmuls(kappa, p[I_RBX2])),
                       _dadds(_dmuls(g2, p[I_RBX3]), p[I_RBX1])),
                 p[I_LXAL])                                              # 4.E54
    alphas = _dadds(alpha, p[I_RHX1])                                    # 4.E53
    Gxa = _ddiv(_dcos_mf(Cxa, Bxa, Exa, alphas), _dcos_mf(Cxa, Bxa, Exa, SHxa))  # 4.E51
    Fx = _dmul(Gxa, Fx0)                                                 # 4.E50

    DVyk = _dmul(_dmul(_dmul(muy, Fz), _dadd(_dlin(dfz, p[I_RVY1], p[I_RVY2]),
                                             _dmuls(gamma, p[I_RVY3]))),
                 _dcosatan(_dmuls(alpha, p[I_RVY4])))                    # 4.E67
    SVyk = _dmul(_dmuls(_dmul(DVyk, _dsin(_dmuls(_datan(_dmuls(kappa, p[I_RVY6])), p[I_RVY5]))),
                        p[I_LVYKA]), red)                                # 4.E66
    SHyk = _dlin(dfz, p[I_RHY1], p[I_RHY2])                              # 4.E65
    Eyk = _dmin1(_dlin(dfz, p[I_REY1], p[I_REY2]))                       # 4.E64
    Byk = _dmuls(_dmul(_dcosatan(_dmuls(_dadds(alpha, -p[I_RBY3]), p[I_RBY2])),
                       _dadds(_dmuls(g2, p[I_RBY4]), p[I_RBY1])), p[I_LYKA])  # 4.E62
    kappas = _dadd(kappa, SHyk)                                          # 4.E61
    Gyk = _ddiv(_dcos_mf(p[I_RCY1], Byk, Eyk, kappas), _dcos_mf(p[I_RCY1], Byk, Eyk, SHyk))  # 4.E59
    Fy = _dadd(_dmul(Gyk, Fy0), SVyk)                                    # 4.E58

    # --- aligning moment, eqs. 4.E31-4.E49 and 4.E71-4.E78 -------------------------------
    Kya_p = _dadds(Kya, EPS * _sgn1(Kya[0]))                             # 4.E39
    alphar = _dadd(_dadd(alpha, SHy), _ddiv(SVy, Kya_p))                 # 4.E37, 4.E38
    SHt = _dadd(_dlin(dfz, p[I_QHZ1], p[I_QHZ2]),
                _dmul(_dlin(dfz, p[I_QHZ3], p[I_QHZ4]), gamma))          # 4.E35
    alphat = _dadd(alpha, SHt)                                           # 4.E34
    Bt = _ddivs(_dmuls(_dmul(_dquad(dfz, p[I_QBZ1], p[I_QBZ2], p[I_QBZ3]),
                             _dadd(_dadds(_dmuls(gamma, p[I_QBZ4]), 1.0),
                                   _dmuls(_dabs(gamma), p[I_QBZ5]))), p[I_LKY]),
                LMUY)                                                    # 4.E40
    Ct = p[I_QCZ1]                                                       # 4.E41
    Dt = _dmul(_dmuls(_dlin(dfz, p[I_QDZ1], p[I_QDZ2]), 1.0 - p[I_PPZ1] * dpi),
               _dadd(_dadds(_dmuls(gamma, p[I_QDZ3]), 1.0), _dmuls(g2, p[I_QDZ4])))
    Dt = _dmuls(_dmuls(_dmul(Dt, Fz_low), R0 / Fz0p), p[I_LTR])          # 4.E43
    Et = _dmul(_dquad(dfz, p[I_QEZ1], p[I_QEZ2], p[I_QEZ3]),
               _dadds(_dmul(_datan(_dmul(_dmuls(Bt, Ct), alphat)),
                            _dmuls(_dlin(gamma, p[I_QEZ4], p[I_QEZ5]), 2.0 / math.pi)), 1.0))
    Et = _dmin1(Et)                                                      # 4.E44
    Br = _dadds(_dmuls(_dmuls(By, p[I_QBZ10]), Cy), p[I_QBZ9] * p[I_LKY] / LMUY)    # 4.E45
    sgn_vx = 1.0 if Vx > 0.0 else (-1.0 if Vx < 0.0 else 0.0)
    Dr_g = _dadd(_dmuls(_dlin(dfz, p[I_QDZ8], p[I_QDZ9]), 1.0 + p[I_PPZ2] * dpi),
                 _dmul(_dlin(dfz, p[I_QDZ10], p[I_QDZ11]), _dabs(gamma)))
    Dr = _dmul(_dmuls(Fz_low, R0), _dadd(_dmuls(_dlin(dfz, p[I_QDZ6], p[I_QDZ7]), p[I_LRES]),
                                         _dmuls(_dmul(Dr_g, gamma), p[I_LKZC])))
    Dr = _dmul(_dmuls(_dmuls(Dr, LMUY), sgn_vx), _dcos(alpha))           # 4.E47
    ratio2 = _dmul(_dmul(_dsq(_ddiv(Kxk, Kya_p)), kappa), kappa)
    alphar_eq = _datan_eq(alphar, ratio2)                                # 4.E78
    alphat_eq = _datan_eq(alphat, ratio2)                                # 4.E77
    s = _dmuls(_dmuls(_dadd(_dadds(_dmuls(_ddivs(Fy, Fz0), p[I_SSZ2]), p[I_SSZ1]),
                            _dmul(_dlin(dfz, p[I_SSZ3], p[I_SSZ4]), gamma)), R0),
               p[I_LS])                                                  # 4.E76
    Mzr = _dmul(_dmul(Dr, _dcosatan(_dmul(Br, alphar_eq))), red)         # 4.E75 (Cr = 1)
    t = _dmul(_dmuls(_dmul(_dmul(Dt, _dcos_mf(Ct, Bt, Et, alphat_eq)), cos_alpha_p), p[I_LFZO]),
              red)                                                       # 4.E73
    if mf52:
        Mz = _dadd(_dadd(_dneg(_dmul(t, _dsub(Fy, SVyk))), Mzr), _dmul(s, Fx))
    else:
        Fy0_g0 = _dfy0(p, Fz, dfz, dpi, alpha, _dc(0.0), red, mf52)[0]
        Mz = _dadd(_dadd(_dneg(_dmul(t, _dmul(Gyk, Fy0_g0))), Mzr), _dmul(s, Fx))  # 4.E71-4.E74
    if not moments:
        return Fx, Fy, Mz, _dc(0.0), _dc(0.0)
    Mx, My = _dmx_my(p, uFz, Fz, gamma, dpi, press, vx, kappa_raw, Fx, Fy, mf52)
    return Fx, Fy, Mz, Mx, My


@njit(cache=True, error_model="numpy")
def relaxation_lengths_dual(p, Fz_in, gamma_in):
    """Relaxation lengths (σκ, σα) of :func:`mf_evaluate` as dual numbers (lanes Fz and γ; σκ
    depends on the load only): MF 6.1 |Kxk/Cx|, |Kya/Cy| (nan without carcass stiffness), MF 5.2
    the PTX*/PTY* formulas."""
    Fz0 = p[I_FNOMIN]
    R0 = p[I_UNLOADED_RADIUS]
    uFz = _dvar(Fz_in, 1) if Fz_in >= 0.0 else _dc(0.0)
    Fz = _dclip(uFz, 0.0, p[I_FZMAX])
    gamma = _dclip(_dvar(gamma_in, 4), p[I_CAMMIN], p[I_CAMMAX])
    press = _clip(p[I_INFLPRES], p[I_PRESMIN], p[I_PRESMAX])
    dpi = (press - p[I_NOMPRES]) / p[I_NOMPRES]
    Fz0p = p[I_LFZO] * Fz0
    dfz = _ddivs(_dadds(Fz, -Fz0p), Fz0p)
    if p[I_FAMILY] == FAMILY_MF52:
        sig_k = _ddivs(_dmuls(_dmul(_dmul(_dlin(dfz, p[I_PTX1], p[I_PTX2]),
                                          _dexp(_dmuls(dfz, -p[I_PTX3]))),
                                    Fz), p[I_LSGKP] * R0), Fz0)
        sig_a = _dmuls(_dmul(_dsin(_dmuls(_datan(_ddivs(Fz, p[I_PTY2] * Fz0p)), 2.0)),
                             _dsubs(1.0, _dmuls(_dabs(gamma), p[I_PKY3]))),
                       p[I_PTY1] * R0 * p[I_LFZO] * p[I_LSGAL])
        return sig_k, sig_a
    cx = _dmuls(_dquad(dfz, 1.0, p[I_PCFX1], p[I_PCFX2]),
                p[I_LONGITUDINAL_STIFFNESS] * (1.0 + p[I_PCFX3] * dpi))
    cy = _dmuls(_dquad(dfz, 1.0, p[I_PCFY1], p[I_PCFY2]),
                p[I_LATERAL_STIFFNESS] * (1.0 + p[I_PCFY3] * dpi))
    nan = _dc(math.nan)
    sig_k = _dabs(_ddiv(_dkxk(p, Fz, dfz, dpi), cx)) if cx[0] != 0.0 else nan
    sig_a = _dabs(_ddiv(_dkya(p, Fz, dpi, gamma), cy)) if cy[0] != 0.0 else nan
    return sig_k, sig_a


@njit(cache=True, error_model="numpy")
def effective_rolling_radius_d(p, Fz, kappa, Vx, dpi):
    """:func:`effective_rolling_radius` (Re, omega) and dRe/dFz, dRe/dVx (through
    ω = Vx (1 + κ)/Re in the Q_V1 term), carried through the same N_RE_ITER fixed-point
    updates."""
    R0 = p[I_UNLOADED_RADIUS]
    V0 = p[I_LONGVL]
    Fz0 = p[I_FNOMIN]
    Cz = p[I_VERTICAL_STIFFNESS] * (1.0 + p[I_PFZ1] * dpi)
    x = p[I_BREFF] * Fz / Fz0
    defl = (Fz0 / Cz) * (p[I_DREFF] * math.atan(p[I_BREFF] * Fz / Fz0) + p[I_FREFF] * Fz / Fz0)
    ddefl = (p[I_DREFF] * p[I_BREFF] / (1.0 + x * x) + p[I_FREFF]) / Cz
    Re = 0.965 * R0
    dRz = 0.0
    dRv = 0.0
    omega = 0.0
    for _ in range(N_RE_ITER):
        omega = (kappa * Vx + Vx) / Re
        dwz = -omega / Re * dRz
        dwv = (1.0 + kappa) / Re - omega / Re * dRv
        w = omega * R0 / V0
        Re = R0 * (p[I_Q_RE0] + p[I_Q_V1] * w ** 2) - defl
        k = R0 * p[I_Q_V1] * 2.0 * w * (R0 / V0)
        dRz = k * dwz - ddefl
        dRv = k * dwv
    return Re, omega, dRz, dRv
