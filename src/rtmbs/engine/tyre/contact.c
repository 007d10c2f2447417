/* contact.c -- 2-point follower, slips and the transient single contact point model
 * (Carpinelli 2015 secs. 4.3.1-4.3.4; rtmbs.vehicle.tyre.contact, docs/tyre.md "Transient model at
 * low speed"). */
#include <math.h>

#include "contact.h"

#define CONTACT_PI 3.14159265358979323846

/* sigma with the floor RTMBS_SIGMA_MIN */
static double relaxation_length(double sigma) {
    return sigma > RTMBS_SIGMA_MIN ? sigma : RTMBS_SIGMA_MIN;
}

double rtmbs_two_point_follower(double h_front, double h_rear, double z_centre, double r_free,
                                double lf, double* beta, double* h_eff) {
    /* volatile: gcc without errno handling folds cos(atan(x)) into 1/sqrt(x x + 1), which
     * differs in the last bits from the numba kernels; this keeps the two libm calls */
    volatile double b = atan((h_front - h_rear) / (2.0 * lf));
    const double h = 0.5 * (h_front + h_rear);
    const double r = (z_centre - h) * cos(b);
    *beta = b;
    *h_eff = h;
    return r_free - r;
}

void rtmbs_slip_quantities(double Vx, double Vy, double omega, double r_eff, double v_min,
                           double* kappa, double* alpha) {
    const double a = fabs(Vx);
    const double d = a > v_min ? a : v_min;
    const double sx = Vx >= 0.0 ? d : -d;
    *kappa = -(Vx - omega * r_eff) / sx;
    *alpha = atan(-Vy / d);
}

void rtmbs_transient_rates(double u, double v, double Vsx, double Vsy, double Vx,
                           double sigma_kappa, double sigma_alpha, double* du, double* dv) {
    const double a = fabs(Vx);
    *du = -Vsx - a * u / relaxation_length(sigma_kappa);
    *dv = -Vsy - a * v / relaxation_length(sigma_alpha);
}

/* exact solution of dx/dt = rate_in - lam x over h for constant rate_in, lam >= 0 */
static double lag_step(double x, double rate_in, double lam, double h) {
    double decay;
    if (lam * h < 1e-12) return x + h * (rate_in - lam * x);
    decay = exp(-lam * h);
    return x * decay + rate_in * (-expm1(-lam * h)) / lam;
}

/* one deflection over the step: the lag of eq. 4.23, or 0 for an unloaded tyre (sigma = 0) */
static double relax(double x, double rate_in, double speed, double sigma, double h) {
    if (!(sigma > 0.0)) return 0.0;
    return lag_step(x, rate_in, speed / relaxation_length(sigma), h);
}

void rtmbs_transient_step(double* u, double* v, double Vsx, double Vsy, double Vx,
                          double sigma_kappa, double sigma_alpha, double h) {
    const double a = fabs(Vx);
    const double un = relax(*u, -Vsx, a, sigma_kappa, h);
    const double vn = relax(*v, -Vsy, a, sigma_alpha, h);
    *u = un;
    *v = vn;
}

void rtmbs_transient_slips(double u, double v, double sigma_kappa, double sigma_alpha, double Vx,
                           double* kappa, double* alpha) {
    const double s = Vx >= 0.0 ? 1.0 : -1.0;
    *kappa = s * u / relaxation_length(sigma_kappa);
    *alpha = v / relaxation_length(sigma_alpha);
}

double rtmbs_lowspeed_weight(double Vx, double vxlow, double* dw) {
    double a;
    if (fabs(Vx) >= vxlow) {
        *dw = 0.0;
        return 0.0;
    }
    a = CONTACT_PI / vxlow;
    *dw = -0.5 * a * sin(a * Vx);
    return 0.5 * (1.0 + cos(a * Vx));
}

void rtmbs_lag_coefficients(double speed, double sigma, double h, double* out) {
    const double lam = speed / sigma;
    const double x = lam * h;
    double e, phi, de, dphi;
    if (x < 1e-8) { /* series: same operation count as the exponential branch */
        e = 1.0 - x;
        phi = h * (1.0 - 0.5 * x);
        de = -h;
        dphi = -0.5 * h * h;
    } else {
        e = exp(-x);
        phi = -expm1(-x) / lam;
        de = -h * e;
        dphi = (h * e - phi) / lam;
    }
    out[0] = e;
    out[1] = phi;
    out[2] = de / sigma;
    out[3] = dphi / sigma;
}

/* (slip, d/dV_s, d/dVx at fixed V_s, d/dsigma) of one direction of the damped transient slips
 * (d/dsigma = 0 below the floor) */
static void damped_slip(double x, double Vs, double Vx, double sigma, double vxlow, double h,
                        double* out) {
    const int floored = !(sigma > RTMBS_SIGMA_MIN);
    double s, av, w, dw, lc[4], e, phi, de, dphi, xe, tau, a, slip, d_vs, d_vx, d_sigma;
    sigma = relaxation_length(sigma);
    s = Vx >= 0.0 ? 1.0 : -1.0;
    av = fabs(Vx);
    w = rtmbs_lowspeed_weight(Vx, vxlow, &dw);
    rtmbs_lag_coefficients(av, sigma, h, lc);
    e = lc[0];
    phi = lc[1];
    de = lc[2];
    dphi = lc[3];
    xe = e * x - phi * Vs;           /* deflection at the step's end (eq. 4.23, exact step) */
    tau = w * sigma / vxlow;         /* damping time of the deflection */
    a = 1.0 - w * av / vxlow;        /* 1 - tau |Vx| / sigma */
    slip = (a * xe - tau * Vs) / sigma;
    d_vs = (-a * phi - tau) / sigma;
    d_vx = (-(dw * av + w * s) / vxlow * xe + a * s * (de * x - dphi * Vs)
            - dw * sigma / vxlow * Vs) / sigma;
    d_sigma = (-a * (de * x - dphi * Vs) * av / sigma - w / vxlow * Vs - slip) / sigma;
    out[0] = slip;
    out[1] = d_vs;
    out[2] = d_vx;
    out[3] = floored ? 0.0 : d_sigma;
}

void rtmbs_transient_slips_lowspeed(double u, double v, double Vsx, double Vsy, double Vx,
                                    double sigma_kappa, double sigma_alpha, double vxlow,
                                    double h, double* out) {
    const double s = Vx >= 0.0 ? 1.0 : -1.0;
    double k[4], a[4];
    damped_slip(u, Vsx, Vx, sigma_kappa, vxlow, h, k);
    damped_slip(v, Vsy, Vx, sigma_alpha, vxlow, h, a);
    out[0] = s * k[0];
    out[1] = a[0];
    out[2] = s * k[1];
    out[3] = s * k[2];
    out[4] = s * k[3];
    out[5] = a[1];
    out[6] = a[2];
    out[7] = a[3];
}
