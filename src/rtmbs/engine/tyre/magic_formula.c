/* magic_formula.c -- steady-state Magic Formula (MF 6.1, MF 5.2 / PAC2002): forces, moments,
 * combined slip, rolling radius, relaxation lengths, and their exact partial derivatives by
 * forward-mode dual numbers (rtmbs.vehicle.tyre.magic_formula; Pacejka 2012, Appendix 3).
 *
 * Every expression keeps the operation order of the numba code (which is compiled without
 * fastmath), so the results agree to the last bit where libm agrees.
 */
#include <math.h>

#include "magic_formula.h"

#define P(name) p[RTMBS_MF_I_##name]
#define MF_PI 3.14159265358979323846
#define EPS RTMBS_MF_EPS

/* -- scalar helpers -------------------------------------------------------------------------- */

/* sign(x) with sign(0) = +1 (keeps denominators away from zero) */
static double sgn1(double x) { return x >= 0.0 ? 1.0 : -1.0; }

static double clip(double x, double lo, double hi) { return x < lo ? lo : (x > hi ? hi : x); }

/* min(x, 1) (the curvature factors' limit E <= 1) */
static double min1(double x) { return 1.0 < x ? 1.0 : x; }

static double sq(double x) { return x * x; }

/* x ** 4 as numba unrolls it: (x x)(x x) */
static double pow4(double x) {
    double x2 = x * x;
    return x2 * x2;
}

/* cos(atan(x)) evaluated as written: without errno handling (-fno-math-errno) gcc folds
 * cos(atan(x)) into 1/sqrt(x x + 1), which differs in the last bits from the numba kernels (and
 * those bits grow to 1e-11 relative in the partials); the volatile keeps the two libm calls */
static double cos_atan(double x) {
    volatile double a = atan(x);
    return cos(a);
}

/* Magic Formula y = D sin(C atan(Bx - E(Bx - atan Bx))), Carpinelli 2015 eq. 4.17 */
static double mf(double B, double C, double D, double E, double x) {
    double bx = B * x;
    return D * sin(C * atan(bx - E * (bx - atan(bx))));
}

/* -- effective rolling radius ---------------------------------------------------------------- */

double rtmbs_effective_rolling_radius(const double* p, double Fz, double kappa, double Vx,
                                      double dpi, double* omega_out) {
    const double R0 = P(UNLOADED_RADIUS), V0 = P(LONGVL), Fz0 = P(FNOMIN);
    const double Cz = P(VERTICAL_STIFFNESS) * (1.0 + P(PFZ1) * dpi);
    const double defl = (Fz0 / Cz) * (P(DREFF) * atan(P(BREFF) * Fz / Fz0) + P(FREFF) * Fz / Fz0);
    double Re = 0.965 * R0, omega = 0.0;
    int it;
    for (it = 0; it < RTMBS_MF_N_RE_ITER; it++) {
        omega = (kappa * Vx + Vx) / Re;
        Re = R0 * (P(Q_RE0) + P(Q_V1) * sq(omega * R0 / V0)) - defl;
    }
    if (omega_out) *omega_out = omega;
    return Re;
}

double rtmbs_effective_rolling_radius_d(const double* p, double Fz, double kappa, double Vx,
                                        double dpi, double* omega_out, double* dRz_out,
                                        double* dRv_out) {
    const double R0 = P(UNLOADED_RADIUS), V0 = P(LONGVL), Fz0 = P(FNOMIN);
    const double Cz = P(VERTICAL_STIFFNESS) * (1.0 + P(PFZ1) * dpi);
    const double x = P(BREFF) * Fz / Fz0;
    const double defl = (Fz0 / Cz) * (P(DREFF) * atan(P(BREFF) * Fz / Fz0) + P(FREFF) * Fz / Fz0);
    const double ddefl = (P(DREFF) * P(BREFF) / (1.0 + x * x) + P(FREFF)) / Cz;
    double Re = 0.965 * R0, dRz = 0.0, dRv = 0.0, omega = 0.0;
    int it;
    for (it = 0; it < RTMBS_MF_N_RE_ITER; it++) {
        double dwz, dwv, w, k;
        omega = (kappa * Vx + Vx) / Re;
        dwz = -omega / Re * dRz;
        dwv = (1.0 + kappa) / Re - omega / Re * dRv;
        w = omega * R0 / V0;
        Re = R0 * (P(Q_RE0) + P(Q_V1) * sq(w)) - defl;
        k = R0 * P(Q_V1) * 2.0 * w * (R0 / V0);
        dRz = k * dwz - ddefl;
        dRv = k * dwv;
    }
    if (omega_out) *omega_out = omega;
    if (dRz_out) *dRz_out = dRz;
    if (dRv_out) *dRv_out = dRv;
    return Re;
}

/* -- pure lateral slip, eqs. 4.E19-4.E30 (MF 5.2: SHy with PHY3, no Kyg0 term) --------------- */
typedef struct fy0_result_ {
    double Fy0, muy, Kya, SHy, SVy, By, Cy;
} fy0_result;

static fy0_result fy0(const double* p, double Fz, double dfz, double dpi, double alpha,
                      double gamma, double red, int mf52) {
    fy0_result o;
    const double Fz0p = P(LFZO) * P(FNOMIN);
    const double g2 = gamma * gamma;
    double Kya, SVyg, SHy, SVy, alphay, Cy, muy, Dy, Ey, By;
    Kya = (P(PKY1) * Fz0p * (1.0 + P(PPY1) * dpi) * (1.0 - P(PKY3) * fabs(gamma))
           * sin(P(PKY4) * atan((Fz / Fz0p)
                                / ((P(PKY2) + P(PKY5) * g2) * (1.0 + P(PPY2) * dpi))))
           * P(LKY));                                                         /* 4.E25 */
    SVyg = Fz * (P(PVY3) + P(PVY4) * dfz) * gamma * P(LKYC) * P(LMUY);        /* 4.E28 */
    if (mf52) {
        SHy = (P(PHY1) + P(PHY2) * dfz) * P(LHY) + P(PHY3) * gamma * P(LKYC);
    } else {
        double Kyg0 = Fz * (P(PKY6) + P(PKY7) * dfz) * (1.0 + P(PPY5) * dpi) * P(LKYC); /* 4.E30 */
        SHy = ((P(PHY1) + P(PHY2) * dfz) * P(LHY)
               + (Kyg0 * gamma - SVyg) / (Kya + EPS * sgn1(Kya)));            /* 4.E27 */
    }
    SVy = Fz * (P(PVY1) + P(PVY2) * dfz) * P(LVY) * P(LMUY) + SVyg;           /* 4.E29 */
    SHy *= red;
    SVy *= red;
    alphay = alpha + SHy;                                                     /* 4.E20 */
    Cy = P(PCY1) * P(LCY);                                                    /* 4.E21 */
    muy = ((P(PDY1) + P(PDY2) * dfz) * (1.0 + P(PPY3) * dpi + P(PPY4) * dpi * dpi)
           * (1.0 - P(PDY3) * g2) * P(LMUY));                                 /* 4.E23 */
    Dy = muy * Fz;                                                            /* 4.E22 */
    Ey = ((P(PEY1) + P(PEY2) * dfz)
          * (1.0 + P(PEY5) * g2 - (P(PEY3) + P(PEY4) * gamma) * sgn1(alphay))
          * P(LEY));                                                          /* 4.E24 */
    Ey = min1(Ey);
    By = Kya / (Cy * Dy + EPS * sgn1(Dy));                                    /* 4.E26 */
    o.Fy0 = mf(By, Cy, Dy, Ey, alphay) + SVy;                                 /* 4.E19 */
    if (Fz == 0.0) muy = 0.0;
    o.muy = muy;
    o.Kya = Kya;
    o.SHy = SHy;
    o.SVy = SVy;
    o.By = By;
    o.Cy = Cy;
    return o;
}

/* weighting function of Fy for combined slip, eqs. 4.E59-4.E65 */
static double gyk(const double* p, double kappa, double alpha, double gamma, double dfz) {
    const double SHyk = P(RHY1) + P(RHY2) * dfz;                              /* 4.E65 */
    const double Eyk = min1(P(REY1) + P(REY2) * dfz);                         /* 4.E64 */
    const double Cyk = P(RCY1);                                               /* 4.E63 */
    const double Byk = ((P(RBY1) + P(RBY4) * gamma * gamma)
                        * cos_atan(P(RBY2) * (alpha - P(RBY3))) * P(LYKA)); /* 4.E62 */
    const double kappas = kappa + SHyk;                                       /* 4.E61 */
    const double G0 = cos(Cyk * atan(Byk * SHyk - Eyk * (Byk * SHyk - atan(Byk * SHyk))));
    return cos(Cyk * atan(Byk * kappas - Eyk * (Byk * kappas - atan(Byk * kappas)))) / G0;
}

/* overturning and rolling resistance moments from the (clipped) inputs and Fx, Fy */
static void mx_my(const double* p, double uFz, double Fz, double gamma, double dpi, double press,
                  double Vx, double kappa_in, double Fx, double Fy, int mf52, double* Mx_out,
                  double* My_out) {
    const double R0 = P(UNLOADED_RADIUS), Fz0 = P(FNOMIN), V0 = P(LONGVL), VXLOW = P(VXLOW);
    double FzMx, Mx, FzMy, vr, My;
    /* overturning moment (TNO manual form of 4.E69) */
    FzMx = Fz < P(FZMIN) ? Fz * sq(Fz / P(FZMIN)) : Fz;
    Mx = (R0 * FzMx * P(LMX)
          * (P(QSX1) * P(LVMX) - P(QSX2) * gamma * (1.0 + P(PPMX1) * dpi)
             + P(QSX3) * Fy / Fz0
             + P(QSX4) * cos(P(QSX5) * atan(sq(P(QSX6) * FzMx / Fz0)))
             * sin(P(QSX7) * gamma + P(QSX8) * atan(P(QSX9) * Fy / Fz0))
             + P(QSX10) * atan(P(QSX11) * FzMx / Fz0) * gamma)
          + R0 * P(LMX) * (Fy * (P(QSX13) + P(QSX14) * fabs(gamma))
                           - FzMx * P(QSX12) * gamma * fabs(gamma)));
    /* rolling resistance moment (MF 6.1: Besselink et al. eq. A48; MF 5.2 manual) */
    FzMy = uFz < P(FZMIN) ? uFz * (uFz / P(FZMIN)) : uFz;
    vr = Vx / V0;
    if (mf52) {
        My = (-R0 * FzMy * P(LMY)
              * (P(QSY1) + P(QSY2) * Fx / Fz0 + P(QSY3) * fabs(vr) + P(QSY4) * pow4(vr)));
    } else {
        My = (-R0 * Fz0 * P(LMY)
              * (P(QSY1) + P(QSY2) * Fx / Fz0 + P(QSY3) * fabs(vr) + P(QSY4) * pow4(vr)
                 + (P(QSY5) + P(QSY6) * FzMy / Fz0) * gamma * gamma)
              * (pow(FzMy / Fz0, P(QSY7)) * pow(press / P(NOMPRES), P(QSY8))));
    }
    if (Vx == 0.0) {
        My = 0.0;
    } else {
        double high, low;
        if (Vx < 0.0) My = -My;
        /* smooth sign change of My for a wheel spinning backwards (kappa near -1) */
        high = VXLOW / fabs(Vx) - 1.0;
        low = -1.0 - VXLOW - high;
        if (low <= kappa_in && kappa_in <= high)
            My *= sin(0.5 * MF_PI * (kappa_in + 1.0) / (high + 1.0));
        else if (kappa_in < low)
            My = -My;
    }
    *Mx_out = Mx;
    *My_out = My;
}

void rtmbs_mf_moments(const double* p, double Fz_in, double kappa_in, double gamma_in, double Vx,
                      double Fx, double Fy, double* Mx, double* My) {
    const double uFz = 0.0 > Fz_in ? 0.0 : Fz_in;
    const double gamma = clip(gamma_in, P(CAMMIN), P(CAMMAX));
    const double Fz = clip(uFz, 0.0, P(FZMAX));
    const double press = clip(P(INFLPRES), P(PRESMIN), P(PRESMAX));
    const double dpi = (press - P(NOMPRES)) / P(NOMPRES);
    mx_my(p, uFz, Fz, gamma, dpi, press, Vx, kappa_in, Fx, Fy, P(FAMILY) == RTMBS_MF_FAMILY_MF52,
          Mx, My);
}

void rtmbs_mf_steady_state(const double* p, double Fz_in, double kappa_in, double alpha_in,
                           double gamma_in, double Vx, double* out, int slip_reduction) {
    rtmbs_mf_evaluate(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, out, 1, slip_reduction);
}

void rtmbs_mf_evaluate(const double* p, double Fz_in, double kappa_in, double alpha_in,
                       double gamma_in, double Vx, double* out, int full, int slip_reduction) {
    const int mf52 = P(FAMILY) == RTMBS_MF_FAMILY_MF52;
    const double R0 = P(UNLOADED_RADIUS), Fz0 = P(FNOMIN), VXLOW = P(VXLOW);
    double uFz, kappa, alpha, press, dpi_raw, red, speed_sum, gamma, Fz, Fz_low;
    double Fz0p, dfz, dpi, Vsy, Vc, cos_alpha_p, LMUX, LMUY;
    double Cx, mux, Dx, Kxk, Bx, SHx, SVx, kappax, Ex, Fx0;
    fy0_result y;
    double Cxa, Exa, SHxa, Bxa, alphas, Gxa0, Gxa, Fx, DVyk, SVyk, Gyk, Fy;
    double Kya_p, alphar, SHt, alphat, Bt, Ct, Dt, Et, Br, sgn_vx, Dr, ratio2, alphar_eq,
        alphat_eq, s, Mzr, t, Mz;
    double Mx, My, Re, sig_k, sig_a;

    /* inputs: limits and low-speed reductions (MFeval parseInputs, useMode 111) */
    uFz = 0.0 > Fz_in ? 0.0 : Fz_in;
    kappa = kappa_in;
    alpha = alpha_in;
    press = P(INFLPRES);
    dpi_raw = (press - P(NOMPRES)) / P(NOMPRES);
    red = 1.0; /* smooth reduction of shifts below VXLOW, 0 at standstill */
    if (fabs(Vx) <= VXLOW) {
        red = 1.0 - 0.5 * (1.0 + cos(MF_PI * Vx / VXLOW));
        if (slip_reduction) kappa = kappa * fabs(Vx) / VXLOW;
    }
    speed_sum = fabs(Vx) + fabs(tan(alpha) * Vx);
    if (slip_reduction && speed_sum < VXLOW) alpha = alpha * speed_sum / VXLOW;
    alpha = clip(alpha, P(ALPMIN), P(ALPMAX));
    gamma = clip(gamma_in, P(CAMMIN), P(CAMMAX));
    Fz = clip(uFz, 0.0, P(FZMAX));
    kappa = clip(kappa, P(KPUMIN), P(KPUMAX));
    press = clip(press, P(PRESMIN), P(PRESMAX));
    Fz_low = P(FZMIN) > Fz ? P(FZMIN) : Fz; /* load used for the aligning moment */
    if (Fz <= 0.0) Fz_low = 0.0;

    /* basic quantities, eqs. 4.E1-4.E8 (LMUV = 0, Amu = 1) */
    Fz0p = P(LFZO) * Fz0;                                                     /* 4.E1 */
    dfz = (Fz - Fz0p) / Fz0p;                                                 /* 4.E2a */
    dpi = (press - P(NOMPRES)) / P(NOMPRES);                                  /* 4.E2b */
    Vsy = tan(alpha) * fabs(Vx);
    Vc = sqrt(Vx * Vx + Vsy * Vsy);
    cos_alpha_p = clip(Vx / (Vc + EPS), -1.0, 1.0);                           /* cos of 4.E6 */
    LMUX = P(LMUX);
    LMUY = P(LMUY);

    /* pure longitudinal slip, eqs. 4.E9-4.E18 */
    Cx = P(PCX1) * P(LCX);                                                    /* 4.E11 */
    mux = ((P(PDX1) + P(PDX2) * dfz) * (1.0 + P(PPX3) * dpi + P(PPX4) * dpi * dpi)
           * (1.0 - P(PDX3) * gamma * gamma) * LMUX);                         /* 4.E13 */
    if (Fz == 0.0) mux = 0.0;
    Dx = mux * Fz;                                                            /* 4.E12 */
    Kxk = (Fz * (P(PKX1) + P(PKX2) * dfz) * exp(P(PKX3) * dfz)
           * (1.0 + P(PPX1) * dpi + P(PPX2) * dpi * dpi) * P(LKX));           /* 4.E15 */
    Bx = Kxk / (Cx * Dx + EPS * sgn1(Dx));                                    /* 4.E16 */
    SHx = (P(PHX1) + P(PHX2) * dfz) * P(LHX) * red;                           /* 4.E17 */
    SVx = Fz * (P(PVX1) + P(PVX2) * dfz) * P(LVX) * LMUX * red;               /* 4.E18 */
    kappax = kappa + SHx;                                                     /* 4.E10 */
    Ex = ((P(PEX1) + P(PEX2) * dfz + P(PEX3) * dfz * dfz)
          * (1.0 - P(PEX4) * sgn1(kappax)) * P(LEX));                         /* 4.E14 */
    Ex = min1(Ex);
    Fx0 = mf(Bx, Cx, Dx, Ex, kappax) + SVx;                                   /* 4.E9 */
    if (Vx < 0.0) Fx0 = -Fx0;

    /* pure lateral slip, eqs. 4.E19-4.E30 */
    y = fy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52);

    /* combined slip, eqs. 4.E50-4.E67 */
    Cxa = P(RCX1);                                                            /* 4.E55 */
    Exa = min1(P(REX1) + P(REX2) * dfz);                                      /* 4.E56 */
    SHxa = P(RHX1);                                                           /* 4.E57 */
    Bxa = ((P(RBX1) + P(RBX3) * gamma * gamma)
           * cos_atan(P(RBX2) * kappa) * P(LXAL));                           /* 4.E54 */
    alphas = alpha + SHxa;                                                    /* 4.E53 */
    Gxa0 = cos(Cxa * atan(Bxa * SHxa - Exa * (Bxa * SHxa - atan(Bxa * SHxa))));
    Gxa = cos(Cxa * atan(Bxa * alphas - Exa * (Bxa * alphas - atan(Bxa * alphas)))) / Gxa0;
    Fx = Gxa * Fx0;                                                           /* 4.E50 */

    DVyk = (y.muy * Fz * (P(RVY1) + P(RVY2) * dfz + P(RVY3) * gamma)
            * cos_atan(P(RVY4) * alpha));                                    /* 4.E67 */
    SVyk = DVyk * sin(P(RVY5) * atan(P(RVY6) * kappa)) * P(LVYKA) * red;      /* 4.E66 */
    Gyk = gyk(p, kappa, alpha, gamma, dfz);                                   /* 4.E59 */
    Fy = Gyk * y.Fy0 + SVyk;                                                  /* 4.E58 */

    /* aligning moment, eqs. 4.E31-4.E49 and 4.E71-4.E78 */
    Kya_p = y.Kya + EPS * sgn1(y.Kya);                                        /* 4.E39 */
    alphar = alpha + y.SHy + y.SVy / Kya_p;                                   /* 4.E37, 4.E38 */
    SHt = P(QHZ1) + P(QHZ2) * dfz + (P(QHZ3) + P(QHZ4) * dfz) * gamma;        /* 4.E35 */
    alphat = alpha + SHt;                                                     /* 4.E34 */
    Bt = ((P(QBZ1) + P(QBZ2) * dfz + P(QBZ3) * dfz * dfz)
          * (1.0 + P(QBZ4) * gamma + P(QBZ5) * fabs(gamma)) * P(LKY) / LMUY); /* 4.E40 */
    Ct = P(QCZ1);                                                             /* 4.E41 */
    Dt = ((P(QDZ1) + P(QDZ2) * dfz) * (1.0 - P(PPZ1) * dpi)
          * (1.0 + P(QDZ3) * gamma + P(QDZ4) * gamma * gamma)
          * Fz_low * (R0 / Fz0p) * P(LTR));                                   /* 4.E43 */
    Et = ((P(QEZ1) + P(QEZ2) * dfz + P(QEZ3) * dfz * dfz)
          * (1.0 + (P(QEZ4) + P(QEZ5) * gamma) * (2.0 / MF_PI) * atan(Bt * Ct * alphat)));
    Et = min1(Et);                                                            /* 4.E44 */
    Br = P(QBZ9) * P(LKY) / LMUY + P(QBZ10) * y.By * y.Cy;                    /* 4.E45 */
    sgn_vx = Vx > 0.0 ? 1.0 : (Vx < 0.0 ? -1.0 : 0.0);
    Dr = (Fz_low * R0 * ((P(QDZ6) + P(QDZ7) * dfz) * P(LRES)
                         + ((P(QDZ8) + P(QDZ9) * dfz) * (1.0 + P(PPZ2) * dpi)
                            + (P(QDZ10) + P(QDZ11) * dfz) * fabs(gamma)) * gamma * P(LKZC))
          * LMUY * sgn_vx * cos(alpha));                                      /* 4.E47 */
    ratio2 = sq(Kxk / Kya_p) * kappa * kappa;
    alphar_eq = atan(sqrt(sq(tan(alphar)) + ratio2)) * sgn1(alphar);         /* 4.E78 */
    alphat_eq = atan(sqrt(sq(tan(alphat)) + ratio2)) * sgn1(alphat);         /* 4.E77 */
    s = R0 * (P(SSZ1) + P(SSZ2) * (Fy / Fz0) + (P(SSZ3) + P(SSZ4) * dfz) * gamma)
        * P(LS);                                                              /* 4.E76 */
    Mzr = Dr * cos_atan(Br * alphar_eq) * red;                               /* 4.E75 (Cr = 1) */
    t = (Dt * cos(Ct * atan(Bt * alphat_eq - Et * (Bt * alphat_eq - atan(Bt * alphat_eq))))
         * cos_alpha_p * P(LFZO) * red);                                      /* 4.E73 */
    if (mf52) {
        Mz = -t * (Fy - SVyk) + Mzr + s * Fx;
    } else {
        double Fy0_g0 = fy0(p, Fz, dfz, dpi, alpha, 0.0, red, mf52).Fy0;
        Mz = -t * (Gyk * Fy0_g0) + Mzr + s * Fx;                              /* 4.E71-4.E74 */
    }

    out[RTMBS_MF_O_FX] = Fx;
    out[RTMBS_MF_O_FY] = Fy;
    out[RTMBS_MF_O_MZ] = Mz;
    out[RTMBS_MF_O_T] = t;
    out[RTMBS_MF_O_MUX] = mux;
    out[RTMBS_MF_O_MUY] = y.muy;
    out[RTMBS_MF_O_KYA] = y.Kya;
    out[RTMBS_MF_O_KXK] = Kxk;
    if (!full) return;

    mx_my(p, uFz, Fz, gamma, dpi, press, Vx, kappa_in, Fx, Fy, mf52, &Mx, &My);

    /* effective rolling radius and relaxation lengths */
    Re = rtmbs_effective_rolling_radius(p, uFz, kappa_in, Vx, dpi_raw, 0);
    if (mf52) {
        sig_k = ((P(PTX1) + P(PTX2) * dfz) * exp(-P(PTX3) * dfz)
                 * P(LSGKP) * R0 * Fz / Fz0);
        sig_a = (P(PTY1) * sin(2.0 * atan(Fz / (P(PTY2) * Fz0p)))
                 * (1.0 - P(PKY3) * fabs(gamma)) * R0 * P(LFZO) * P(LSGAL));
    } else {
        double cx = (P(LONGITUDINAL_STIFFNESS) * (1.0 + P(PCFX1) * dfz + P(PCFX2) * dfz * dfz)
                     * (1.0 + P(PCFX3) * dpi));
        double cy = (P(LATERAL_STIFFNESS) * (1.0 + P(PCFY1) * dfz + P(PCFY2) * dfz * dfz)
                     * (1.0 + P(PCFY3) * dpi));
        sig_k = cx != 0.0 ? fabs(Kxk / cx) : NAN;
        sig_a = cy != 0.0 ? fabs(y.Kya / cy) : NAN;
    }
    out[RTMBS_MF_O_MX] = Mx;
    out[RTMBS_MF_O_MY] = My;
    out[RTMBS_MF_O_RE] = Re;
    out[RTMBS_MF_O_SIGK] = sig_k;
    out[RTMBS_MF_O_SIGA] = sig_a;
}

/* -- dual numbers (value, d/dFz, d/dkappa, d/dalpha, d/dgamma, d/dVx) ------------------------
 * One helper per operation applies the chain rule (magic_formula._d*). */
typedef rtmbs_dual dual;

static dual dc(double v) {
    dual r = {{v, 0.0, 0.0, 0.0, 0.0, 0.0}};
    return r;
}

static dual dvar(double v, int lane) {
    dual r = {{v, 0.0, 0.0, 0.0, 0.0, 0.0}};
    r.v[lane] = 1.0;
    return r;
}

/* chain rule of a function of one argument: value v, slope k at a.v[0] */
static dual dfun(dual a, double v, double k) {
    dual r;
    int i;
    r.v[0] = v;
    for (i = 1; i < 6; i++) r.v[i] = k * a.v[i];
    return r;
}

static dual dadd(dual a, dual b) {
    int i;
    for (i = 0; i < 6; i++) a.v[i] = a.v[i] + b.v[i];
    return a;
}

static dual dsub(dual a, dual b) {
    int i;
    for (i = 0; i < 6; i++) a.v[i] = a.v[i] - b.v[i];
    return a;
}

/* a + s, s a float */
static dual dadds(dual a, double s) {
    a.v[0] = a.v[0] + s;
    return a;
}

/* s - a, s a float */
static dual dsubs(double s, dual a) {
    int i;
    a.v[0] = s - a.v[0];
    for (i = 1; i < 6; i++) a.v[i] = -a.v[i];
    return a;
}

static dual dneg(dual a) {
    int i;
    for (i = 0; i < 6; i++) a.v[i] = -a.v[i];
    return a;
}

static dual dmul(dual a, dual b) {
    dual r;
    int i;
    r.v[0] = a.v[0] * b.v[0];
    for (i = 1; i < 6; i++) r.v[i] = a.v[i] * b.v[0] + a.v[0] * b.v[i];
    return r;
}

/* a * s, s a float */
static dual dmuls(dual a, double s) {
    int i;
    for (i = 0; i < 6; i++) a.v[i] = a.v[i] * s;
    return a;
}

static dual ddiv(dual a, dual b) {
    dual r;
    const double q = a.v[0] / b.v[0];
    const double rb = 1.0 / b.v[0];
    int i;
    r.v[0] = q;
    for (i = 1; i < 6; i++) r.v[i] = (a.v[i] - q * b.v[i]) * rb;
    return r;
}

/* a / s, s a float */
static dual ddivs(dual a, double s) {
    int i;
    for (i = 0; i < 6; i++) a.v[i] = a.v[i] / s;
    return a;
}

/* c0 + c1 d */
static dual dlin(dual d, double c0, double c1) { return dfun(d, c0 + c1 * d.v[0], c1); }

/* c0 + c1 d + c2 d^2 */
static dual dquad(dual d, double c0, double c1, double c2) {
    return dfun(d, c0 + c1 * d.v[0] + c2 * d.v[0] * d.v[0], c1 + 2.0 * c2 * d.v[0]);
}

static dual dsq(dual a) { return dfun(a, a.v[0] * a.v[0], 2.0 * a.v[0]); }

static dual dsin(dual a) { return dfun(a, sin(a.v[0]), cos(a.v[0])); }

static dual dcos(dual a) { return dfun(a, cos(a.v[0]), -sin(a.v[0])); }

static dual datan(dual a) { return dfun(a, atan(a.v[0]), 1.0 / (1.0 + a.v[0] * a.v[0])); }

/* cos(atan(a)); derivative -a cos^3(atan a) */
static dual dcosatan(dual a) {
    const double c = cos_atan(a.v[0]);
    return dfun(a, c, -a.v[0] * c * c * c);
}

static dual dtan(dual a) {
    const double t = tan(a.v[0]);
    return dfun(a, t, 1.0 + t * t);
}

static dual dexp(dual a) {
    const double e = exp(a.v[0]);
    return dfun(a, e, e);
}

/* sqrt(a); zero derivative at a = 0 (the callers' arguments are sums of squares there) */
static dual dsqrt(dual a) {
    const double r = sqrt(a.v[0]);
    return dfun(a, r, r > 0.0 ? 0.5 / r : 0.0);
}

/* a ** c, c a float; zero derivative at a <= 0 */
static dual dpow(dual a, double c) {
    const double v = pow(a.v[0], c);
    return dfun(a, v, a.v[0] > 0.0 ? c * v / a.v[0] : 0.0);
}

/* |a|; zero derivative at a = 0 (the mean of the one-sided slopes) */
static dual dabs(dual a) {
    if (a.v[0] > 0.0) return a;
    if (a.v[0] < 0.0) return dneg(a);
    return dc(0.0);
}

/* min(a, 1) */
static dual dmin1(dual a) { return a.v[0] <= 1.0 ? a : dc(1.0); }

/* clip; a clipped value is a constant */
static dual dclip(dual a, double lo, double hi) {
    if (a.v[0] < lo) return dc(lo);
    if (a.v[0] > hi) return dc(hi);
    return a;
}

/* the Magic Formula on dual numbers (C a float) */
static dual dmf(dual B, double C, dual D, dual E, dual x) {
    const dual bx = dmul(B, x);
    return dmul(D, dsin(dmuls(datan(dsub(bx, dmul(E, dsub(bx, datan(bx))))), C)));
}

/* cos(C atan(B x - E (B x - atan(B x)))) (the weighting functions 4.E51-4.E60), C a float */
static dual dcos_mf(double C, dual B, dual E, dual x) {
    const dual bx = dmul(B, x);
    return dcos(dmuls(datan(dsub(bx, dmul(E, dsub(bx, datan(bx))))), C));
}

/* cornering stiffness Kya, eq. 4.E25 */
static dual dkya(const double* p, dual Fz, double dpi, dual gamma) {
    const double Fz0p = P(LFZO) * P(FNOMIN);
    const dual ka = dmuls(dsubs(1.0, dmuls(dabs(gamma), P(PKY3))),
                          P(PKY1) * Fz0p * (1.0 + P(PPY1) * dpi));
    const dual den = dmuls(dadds(dmuls(dsq(gamma), P(PKY5)), P(PKY2)), 1.0 + P(PPY2) * dpi);
    const dual sk = dsin(dmuls(datan(ddiv(ddivs(Fz, Fz0p), den)), P(PKY4)));
    return dmuls(dmul(sk, ka), P(LKY));
}

/* slip stiffness Kxk, eq. 4.E15 */
static dual dkxk(const double* p, dual Fz, dual dfz, double dpi) {
    return dmuls(dmuls(dmul(dmul(Fz, dlin(dfz, P(PKX1), P(PKX2))), dexp(dmuls(dfz, P(PKX3)))),
                       1.0 + P(PPX1) * dpi + P(PPX2) * dpi * dpi),
                 P(LKX));
}

/* fy0 on dual numbers (Cy is a constant) */
typedef struct dfy0_result_ {
    dual Fy0, muy, Kya, SHy, SVy, By;
    double Cy;
} dfy0_result;

static dfy0_result dfy0(const double* p, dual Fz, dual dfz, double dpi, dual alpha, dual gamma,
                        dual red, int mf52) {
    dfy0_result o;
    const dual g2 = dsq(gamma);
    const dual Kya = dkya(p, Fz, dpi, gamma);                                 /* 4.E25 */
    const dual SVyg = dmuls(dmuls(dmul(dmul(Fz, dlin(dfz, P(PVY3), P(PVY4))), gamma), P(LKYC)),
                            P(LMUY));                                         /* 4.E28 */
    const dual SHy0 = dmuls(dlin(dfz, P(PHY1), P(PHY2)), P(LHY));
    dual SHy, SVy, alphay, muy, Dy, Ey, By;
    double Cy;
    if (mf52) {
        SHy = dadd(SHy0, dmuls(gamma, P(PHY3) * P(LKYC)));
    } else {
        const dual Kyg0 = dmuls(dmuls(dmul(Fz, dlin(dfz, P(PKY6), P(PKY7))), 1.0 + P(PPY5) * dpi),
                                P(LKYC));                                     /* 4.E30 */
        SHy = dadd(SHy0, ddiv(dsub(dmul(Kyg0, gamma), SVyg),
                              dadds(Kya, EPS * sgn1(Kya.v[0]))));            /* 4.E27 */
    }
    SVy = dadd(dmuls(dmuls(dmul(Fz, dlin(dfz, P(PVY1), P(PVY2))), P(LVY)), P(LMUY)),
               SVyg);                                                         /* 4.E29 */
    SHy = dmul(SHy, red);
    SVy = dmul(SVy, red);
    alphay = dadd(alpha, SHy);                                                /* 4.E20 */
    Cy = P(PCY1) * P(LCY);                                                    /* 4.E21 */
    muy = dmuls(dmul(dmuls(dlin(dfz, P(PDY1), P(PDY2)),
                           1.0 + P(PPY3) * dpi + P(PPY4) * dpi * dpi),
                     dsubs(1.0, dmuls(g2, P(PDY3)))),
                P(LMUY));                                                     /* 4.E23 */
    Dy = dmul(muy, Fz);                                                       /* 4.E22 */
    Ey = dmuls(dmul(dlin(dfz, P(PEY1), P(PEY2)),
                    dsub(dadds(dmuls(g2, P(PEY5)), 1.0),
                         dmuls(dlin(gamma, P(PEY3), P(PEY4)), sgn1(alphay.v[0])))),
               P(LEY));                                                       /* 4.E24 */
    Ey = dmin1(Ey);
    By = ddiv(Kya, dadds(dmuls(Dy, Cy), EPS * sgn1(Dy.v[0])));                /* 4.E26 */
    o.Fy0 = dadd(dmf(By, Cy, Dy, Ey, alphay), SVy);                           /* 4.E19 */
    o.muy = muy;
    o.Kya = Kya;
    o.SHy = SHy;
    o.SVy = SVy;
    o.By = By;
    o.Cy = Cy;
    return o;
}

/* sgn(x) atan(sqrt(tan(x)^2 + ratio2)) (eqs. 4.E77-4.E78); where the root vanishes the result
 * is taken as x (exact along x, the mean of the one-sided slopes along ratio2) */
static dual datan_eq(dual x, dual ratio2) {
    const dual tx = dtan(x);
    const dual u = dadd(dsq(tx), ratio2);
    dual e;
    if (u.v[0] == 0.0) {
        x.v[0] = 0.0;
        return x;
    }
    e = datan(dsqrt(u));
    return x.v[0] >= 0.0 ? e : dneg(e);
}

/* mx_my on dual numbers (Mx: TNO form of 4.E69; My: Besselink et al. eq. A48) */
static void dmx_my(const double* p, dual uFz, dual Fz, dual gamma, double dpi, double press,
                   dual vx, dual kappa_in, dual Fx, dual Fy, int mf52, dual* Mx_out,
                   dual* My_out) {
    const double R0 = P(UNLOADED_RADIUS), Fz0 = P(FNOMIN), VXLOW = P(VXLOW);
    dual FzMx, A, ag, B, Mx, FzMy, vr, c, My, high, low;
    FzMx = Fz.v[0] < P(FZMIN) ? dmul(Fz, dsq(ddivs(Fz, P(FZMIN)))) : Fz;
    A = dadds(dmuls(gamma, -P(QSX2) * (1.0 + P(PPMX1) * dpi)), P(QSX1) * P(LVMX));
    A = dadd(A, dmuls(Fy, P(QSX3) / Fz0));
    A = dadd(A, dmul(dmuls(dcos(dmuls(datan(dsq(dmuls(FzMx, P(QSX6) / Fz0))), P(QSX5))),
                           P(QSX4)),
                     dsin(dadd(dmuls(gamma, P(QSX7)),
                               dmuls(datan(dmuls(Fy, P(QSX9) / Fz0)), P(QSX8))))));
    A = dadd(A, dmul(dmuls(datan(dmuls(FzMx, P(QSX11) / Fz0)), P(QSX10)), gamma));
    ag = dabs(gamma);
    B = dsub(dmul(Fy, dadds(dmuls(ag, P(QSX14)), P(QSX13))),
             dmuls(dmul(dmul(FzMx, gamma), ag), P(QSX12)));
    Mx = dadd(dmuls(dmul(FzMx, A), R0 * P(LMX)), dmuls(B, R0 * P(LMX)));

    FzMy = uFz.v[0] < P(FZMIN) ? dmul(uFz, ddivs(uFz, P(FZMIN))) : uFz;
    vr = ddivs(vx, P(LONGVL));
    c = dadd(dadd(dadds(dmuls(Fx, P(QSY2) / Fz0), P(QSY1)), dmuls(dabs(vr), P(QSY3))),
             dmuls(dsq(dsq(vr)), P(QSY4)));
    if (mf52) {
        My = dmuls(dmul(FzMy, c), -R0 * P(LMY));
    } else {
        c = dadd(c, dmul(dadds(dmuls(FzMy, P(QSY6) / Fz0), P(QSY5)), dsq(gamma)));
        My = dmuls(dmul(c, dpow(ddivs(FzMy, Fz0), P(QSY7))),
                   -R0 * Fz0 * P(LMY) * pow(press / P(NOMPRES), P(QSY8)));
    }
    *Mx_out = Mx;
    if (vx.v[0] == 0.0) {
        *My_out = dc(0.0);
        return;
    }
    if (vx.v[0] < 0.0) My = dneg(My);
    high = dadds(ddiv(dc(VXLOW), dabs(vx)), -1.0); /* smooth sign change near kappa = -1 */
    low = dsubs(-1.0 - VXLOW, high);
    if (low.v[0] <= kappa_in.v[0] && kappa_in.v[0] <= high.v[0]) {
        const dual x = ddiv(dadds(kappa_in, 1.0), dadds(high, 1.0));
        My = dmul(My, dsin(dmuls(x, 0.5 * MF_PI)));
    } else if (kappa_in.v[0] < low.v[0]) {
        My = dneg(My);
    }
    *My_out = My;
}

void rtmbs_mf_dual(const double* p, double Fz_in, double kappa_in, double alpha_in,
                   double gamma_in, double Vx, int slip_reduction, int moments, double kink_band,
                   rtmbs_dual* out) {
    const int mf52 = P(FAMILY) == RTMBS_MF_FAMILY_MF52;
    const double R0 = P(UNLOADED_RADIUS), Fz0 = P(FNOMIN), VXLOW = P(VXLOW);
    dual uFz, kappa_raw, kappa, alpha, vx, red, avx, vx_r, speed_sum, gamma, Fz, Fz_low;
    dual dfz, Vsy, Vc, cos_alpha_p, g2, mux, Dx, Kxk, Bx, SHx, SVx, kappax, Ex, Fx0;
    dual Exa, SHxa, Bxa, alphas, Gxa, Fx, DVyk, SVyk, SHyk, Eyk, Byk, kappas, Gyk, Fy;
    dual Kya_p, alphar, SHt, alphat, Bt, Dt, Et, Br, Dr_g, Dr, ratio2, alphar_eq, alphat_eq, s,
        Mzr, t, Mz;
    dfy0_result y;
    double press, Fz0p, dpi, LMUX, LMUY, Cx, Cxa, Ct, sgn_vx;

    /* inputs: limits and low-speed reductions */
    uFz = Fz_in >= 0.0 ? dvar(Fz_in, 1) : dc(0.0);
    kappa_raw = dvar(kappa_in, 2);
    kappa = kappa_raw;
    alpha = dvar(alpha_in, 3);
    vx = dvar(Vx, 5);
    press = P(INFLPRES);
    red = dc(1.0);
    avx = dabs(vx);
    vx_r = fabs(Vx) < kink_band ? dc(Vx) : vx; /* Vx in the slip reductions */
    if (fabs(Vx) <= VXLOW) {
        red = dsubs(1.0, dmuls(dadds(dcos(ddivs(dmuls(vx, MF_PI), VXLOW)), 1.0), 0.5));
        if (slip_reduction) kappa = ddivs(dmul(kappa, dabs(vx_r)), VXLOW);
    }
    speed_sum = dadd(dabs(dmul(dtan(alpha), vx_r)), dabs(vx_r));
    if (slip_reduction && speed_sum.v[0] < VXLOW) alpha = ddivs(dmul(alpha, speed_sum), VXLOW);
    alpha = dclip(alpha, P(ALPMIN), P(ALPMAX));
    gamma = dclip(dvar(gamma_in, 4), P(CAMMIN), P(CAMMAX));
    Fz = dclip(uFz, 0.0, P(FZMAX));
    kappa = dclip(kappa, P(KPUMIN), P(KPUMAX));
    press = clip(press, P(PRESMIN), P(PRESMAX));
    Fz_low = Fz.v[0] >= P(FZMIN) ? Fz : dc(P(FZMIN));
    if (Fz.v[0] <= 0.0) Fz_low = dc(0.0);

    /* basic quantities, eqs. 4.E1-4.E8 */
    Fz0p = P(LFZO) * Fz0;                                                     /* 4.E1 */
    dfz = ddivs(dadds(Fz, -Fz0p), Fz0p);                                      /* 4.E2a */
    dpi = (press - P(NOMPRES)) / P(NOMPRES);                                  /* 4.E2b */
    Vsy = dmul(dtan(alpha), avx);
    Vc = dsqrt(dadd(dsq(Vsy), dsq(vx)));
    cos_alpha_p = dclip(ddiv(vx, dadds(Vc, EPS)), -1.0, 1.0);                 /* cos of 4.E6 */
    LMUX = P(LMUX);
    LMUY = P(LMUY);
    g2 = dsq(gamma);

    /* pure longitudinal slip, eqs. 4.E9-4.E18 */
    Cx = P(PCX1) * P(LCX);                                                    /* 4.E11 */
    mux = dmuls(dmul(dmuls(dlin(dfz, P(PDX1), P(PDX2)),
                           1.0 + P(PPX3) * dpi + P(PPX4) * dpi * dpi),
                     dsubs(1.0, dmuls(g2, P(PDX3)))),
                LMUX);                                                        /* 4.E13 */
    Dx = dmul(mux, Fz);                                                       /* 4.E12 */
    Kxk = dkxk(p, Fz, dfz, dpi);                                              /* 4.E15 */
    Bx = ddiv(Kxk, dadds(dmuls(Dx, Cx), EPS * sgn1(Dx.v[0])));                /* 4.E16 */
    SHx = dmul(dmuls(dlin(dfz, P(PHX1), P(PHX2)), P(LHX)), red);              /* 4.E17 */
    SVx = dmul(dmuls(dmuls(dmul(Fz, dlin(dfz, P(PVX1), P(PVX2))), P(LVX)), LMUX),
               red);                                                          /* 4.E18 */
    kappax = dadd(kappa, SHx);                                                /* 4.E10 */
    Ex = dmuls(dmuls(dquad(dfz, P(PEX1), P(PEX2), P(PEX3)), 1.0 - P(PEX4) * sgn1(kappax.v[0])),
               P(LEX));                                                       /* 4.E14 */
    Ex = dmin1(Ex);
    Fx0 = dadd(dmf(Bx, Cx, Dx, Ex, kappax), SVx);                             /* 4.E9 */
    if (Vx < 0.0) Fx0 = dneg(Fx0);

    /* pure lateral slip, eqs. 4.E19-4.E30 */
    y = dfy0(p, Fz, dfz, dpi, alpha, gamma, red, mf52);

    /* combined slip, eqs. 4.E50-4.E67 */
    Cxa = P(RCX1);                                                            /* 4.E55 */
    Exa = dmin1(dlin(dfz, P(REX1), P(REX2)));                                 /* 4.E56 */
    SHxa = dc(P(RHX1));                                                       /* 4.E57 */
    Bxa = dmuls(dmul(dcosatan(dmuls(kappa, P(RBX2))), dadds(dmuls(g2, P(RBX3)), P(RBX1))),
                P(LXAL));                                                     /* 4.E54 */
    alphas = dadds(alpha, P(RHX1));                                           /* 4.E53 */
    Gxa = ddiv(dcos_mf(Cxa, Bxa, Exa, alphas), dcos_mf(Cxa, Bxa, Exa, SHxa)); /* 4.E51 */
    Fx = dmul(Gxa, Fx0);                                                      /* 4.E50 */

    DVyk = dmul(dmul(dmul(y.muy, Fz), dadd(dlin(dfz, P(RVY1), P(RVY2)), dmuls(gamma, P(RVY3)))),
                dcosatan(dmuls(alpha, P(RVY4))));                             /* 4.E67 */
    SVyk = dmul(dmuls(dmul(DVyk, dsin(dmuls(datan(dmuls(kappa, P(RVY6))), P(RVY5)))), P(LVYKA)),
                red);                                                         /* 4.E66 */
    SHyk = dlin(dfz, P(RHY1), P(RHY2));                                       /* 4.E65 */
    Eyk = dmin1(dlin(dfz, P(REY1), P(REY2)));                                 /* 4.E64 */
    Byk = dmuls(dmul(dcosatan(dmuls(dadds(alpha, -P(RBY3)), P(RBY2))),
                     dadds(dmuls(g2, P(RBY4)), P(RBY1))),
                P(LYKA));                                                     /* 4.E62 */
    kappas = dadd(kappa, SHyk);                                               /* 4.E61 */
    Gyk = ddiv(dcos_mf(P(RCY1), Byk, Eyk, kappas), dcos_mf(P(RCY1), Byk, Eyk, SHyk)); /* 4.E59 */
    Fy = dadd(dmul(Gyk, y.Fy0), SVyk);                                        /* 4.E58 */

    /* aligning moment, eqs. 4.E31-4.E49 and 4.E71-4.E78 */
    Kya_p = dadds(y.Kya, EPS * sgn1(y.Kya.v[0]));                             /* 4.E39 */
    alphar = dadd(dadd(alpha, y.SHy), ddiv(y.SVy, Kya_p));                    /* 4.E37, 4.E38 */
    SHt = dadd(dlin(dfz, P(QHZ1), P(QHZ2)), dmul(dlin(dfz, P(QHZ3), P(QHZ4)), gamma)); /* 4.E35 */
    alphat = dadd(alpha, SHt);                                                /* 4.E34 */
    Bt = ddivs(dmuls(dmul(dquad(dfz, P(QBZ1), P(QBZ2), P(QBZ3)),
                          dadd(dadds(dmuls(gamma, P(QBZ4)), 1.0), dmuls(dabs(gamma), P(QBZ5)))),
                     P(LKY)),
               LMUY);                                                         /* 4.E40 */
    Ct = P(QCZ1);                                                             /* 4.E41 */
    Dt = dmul(dmuls(dlin(dfz, P(QDZ1), P(QDZ2)), 1.0 - P(PPZ1) * dpi),
              dadd(dadds(dmuls(gamma, P(QDZ3)), 1.0), dmuls(g2, P(QDZ4))));
    Dt = dmuls(dmuls(dmul(Dt, Fz_low), R0 / Fz0p), P(LTR));                   /* 4.E43 */
    Et = dmul(dquad(dfz, P(QEZ1), P(QEZ2), P(QEZ3)),
              dadds(dmul(datan(dmul(dmuls(Bt, Ct), alphat)),
                         dmuls(dlin(gamma, P(QEZ4), P(QEZ5)), 2.0 / MF_PI)),
                    1.0));
    Et = dmin1(Et);                                                           /* 4.E44 */
    Br = dadds(dmuls(dmuls(y.By, P(QBZ10)), y.Cy), P(QBZ9) * P(LKY) / LMUY);  /* 4.E45 */
    sgn_vx = Vx > 0.0 ? 1.0 : (Vx < 0.0 ? -1.0 : 0.0);
    Dr_g = dadd(dmuls(dlin(dfz, P(QDZ8), P(QDZ9)), 1.0 + P(PPZ2) * dpi),
                dmul(dlin(dfz, P(QDZ10), P(QDZ11)), dabs(gamma)));
    Dr = dmul(dmuls(Fz_low, R0), dadd(dmuls(dlin(dfz, P(QDZ6), P(QDZ7)), P(LRES)),
                                      dmuls(dmul(Dr_g, gamma), P(LKZC))));
    Dr = dmul(dmuls(dmuls(Dr, LMUY), sgn_vx), dcos(alpha));                   /* 4.E47 */
    ratio2 = dmul(dmul(dsq(ddiv(Kxk, Kya_p)), kappa), kappa);
    alphar_eq = datan_eq(alphar, ratio2);                                     /* 4.E78 */
    alphat_eq = datan_eq(alphat, ratio2);                                     /* 4.E77 */
    s = dmuls(dmuls(dadd(dadds(dmuls(ddivs(Fy, Fz0), P(SSZ2)), P(SSZ1)),
                         dmul(dlin(dfz, P(SSZ3), P(SSZ4)), gamma)),
                    R0),
              P(LS));                                                         /* 4.E76 */
    Mzr = dmul(dmul(Dr, dcosatan(dmul(Br, alphar_eq))), red);                 /* 4.E75 (Cr = 1) */
    t = dmul(dmuls(dmul(dmul(Dt, dcos_mf(Ct, Bt, Et, alphat_eq)), cos_alpha_p), P(LFZO)),
             red);                                                            /* 4.E73 */
    if (mf52) {
        Mz = dadd(dadd(dneg(dmul(t, dsub(Fy, SVyk))), Mzr), dmul(s, Fx));
    } else {
        const dual Fy0_g0 = dfy0(p, Fz, dfz, dpi, alpha, dc(0.0), red, mf52).Fy0;
        Mz = dadd(dadd(dneg(dmul(t, dmul(Gyk, Fy0_g0))), Mzr), dmul(s, Fx)); /* 4.E71-4.E74 */
    }
    out[0] = Fx;
    out[1] = Fy;
    out[2] = Mz;
    if (!moments) {
        out[3] = dc(0.0);
        out[4] = dc(0.0);
        return;
    }
    dmx_my(p, uFz, Fz, gamma, dpi, press, vx, kappa_raw, Fx, Fy, mf52, &out[3], &out[4]);
}

void rtmbs_mf_force_partials(const double* p, double Fz_in, double kappa_in, double alpha_in,
                             double gamma_in, double Vx, double* out, int slip_reduction) {
    rtmbs_dual r[5];
    rtmbs_mf_dual(p, Fz_in, kappa_in, alpha_in, gamma_in, Vx, slip_reduction, 0, 0.0, r);
    out[RTMBS_MF_D_FX] = r[0].v[0];
    out[RTMBS_MF_D_FY] = r[1].v[0];
    out[RTMBS_MF_D_MZ] = r[2].v[0];
    out[RTMBS_MF_D_FX_FZ] = r[0].v[1];
    out[RTMBS_MF_D_FX_K] = r[0].v[2];
    out[RTMBS_MF_D_FX_A] = r[0].v[3];
    out[RTMBS_MF_D_FY_FZ] = r[1].v[1];
    out[RTMBS_MF_D_FY_K] = r[1].v[2];
    out[RTMBS_MF_D_FY_A] = r[1].v[3];
    out[RTMBS_MF_D_MZ_FZ] = r[2].v[1];
    out[RTMBS_MF_D_MZ_K] = r[2].v[2];
    out[RTMBS_MF_D_MZ_A] = r[2].v[3];
}

void rtmbs_relaxation_lengths_dual(const double* p, double Fz_in, double gamma_in,
                                   rtmbs_dual* sig_k, rtmbs_dual* sig_a) {
    const double Fz0 = P(FNOMIN), R0 = P(UNLOADED_RADIUS);
    const dual uFz = Fz_in >= 0.0 ? dvar(Fz_in, 1) : dc(0.0);
    const dual Fz = dclip(uFz, 0.0, P(FZMAX));
    const dual gamma = dclip(dvar(gamma_in, 4), P(CAMMIN), P(CAMMAX));
    const double press = clip(P(INFLPRES), P(PRESMIN), P(PRESMAX));
    const double dpi = (press - P(NOMPRES)) / P(NOMPRES);
    const double Fz0p = P(LFZO) * Fz0;
    const dual dfz = ddivs(dadds(Fz, -Fz0p), Fz0p);
    dual cx, cy;
    if (P(FAMILY) == RTMBS_MF_FAMILY_MF52) {
        *sig_k = ddivs(dmuls(dmul(dmul(dlin(dfz, P(PTX1), P(PTX2)), dexp(dmuls(dfz, -P(PTX3)))),
                                  Fz),
                             P(LSGKP) * R0),
                       Fz0);
        *sig_a = dmuls(dmul(dsin(dmuls(datan(ddivs(Fz, P(PTY2) * Fz0p)), 2.0)),
                            dsubs(1.0, dmuls(dabs(gamma), P(PKY3)))),
                       P(PTY1) * R0 * P(LFZO) * P(LSGAL));
        return;
    }
    cx = dmuls(dquad(dfz, 1.0, P(PCFX1), P(PCFX2)),
               P(LONGITUDINAL_STIFFNESS) * (1.0 + P(PCFX3) * dpi));
    cy = dmuls(dquad(dfz, 1.0, P(PCFY1), P(PCFY2)), P(LATERAL_STIFFNESS) * (1.0 + P(PCFY3) * dpi));
    *sig_k = cx.v[0] != 0.0 ? dabs(ddiv(dkxk(p, Fz, dfz, dpi), cx)) : dc(NAN);
    *sig_a = cy.v[0] != 0.0 ? dabs(ddiv(dkya(p, Fz, dpi, gamma), cy)) : dc(NAN);
}
