/* contact.h -- contact building blocks of the tyre force element (Carpinelli 2015 secs. 4.3.1, 4.3.2,
 * 4.3.4; rtmbs.vehicle.tyre.contact): 2-point follower enveloping, slip quantities, the single
 * contact point transient model with relaxation lengths and its low-speed damping.
 *
 * Sign of alpha: eqs. 4.16 and 4.23-4.24 give alpha > 0 for a wheel sliding towards -y; pass
 * -alpha to the Magic Formula (ISO-W data), docs/tyre.md "Sign conventions".
 */
#ifndef RTMBS_TYRE_CONTACT_H
#define RTMBS_TYRE_CONTACT_H

/* floor on the relaxation lengths (m): an unloaded tyre's slips stay finite */
#define RTMBS_SIGMA_MIN 1e-3

/* Effective road plane of the 2-point follower model (Fig. 4.12): plane angle *beta, height
 * *h_eff; returns the radial deflection rho = r_free - r (eq. 4.14). */
double rtmbs_two_point_follower(double h_front, double h_rear, double z_centre, double r_free,
                                double lf, double* beta, double* h_eff);

/* Longitudinal slip *kappa (eq. 4.15) and slip angle *alpha (eq. 4.16), denominators bounded
 * below by v_min. */
void rtmbs_slip_quantities(double Vx, double Vy, double omega, double r_eff, double v_min,
                           double* kappa, double* alpha);

/* Rates of the carcass deflections (eq. 4.23). */
void rtmbs_transient_rates(double u, double v, double Vsx, double Vsy, double Vx,
                           double sigma_kappa, double sigma_alpha, double* du, double* dv);

/* Exact exponential step of (u, v) over h with constant inputs (eq. 4.23); in place. */
void rtmbs_transient_step(double* u, double* v, double Vsx, double Vsy, double Vx,
                          double sigma_kappa, double sigma_alpha, double h);

/* Transient slips of eq. 4.24. */
void rtmbs_transient_slips(double u, double v, double sigma_kappa, double sigma_alpha, double Vx,
                           double* kappa, double* alpha);

/* Low-speed damping weight w(Vx) and its slope *dw. */
double rtmbs_lowspeed_weight(double Vx, double vxlow, double* dw);

/* Coefficients of the exact step x_h = e x - phi V_s: out = (e, phi, de/dspeed, dphi/dspeed). */
void rtmbs_lag_coefficients(double speed, double sigma, double h, double* out);

/* Transient slips with the low-speed damping of the deflections at the end of a step h:
 * out = (kappa', alpha', dkappa'/dVsx, dkappa'/dVx, dkappa'/dsigma_kappa, dalpha'/dVsy,
 * dalpha'/dVx, dalpha'/dsigma_alpha). */
void rtmbs_transient_slips_lowspeed(double u, double v, double Vsx, double Vsy, double Vx,
                                    double sigma_kappa, double sigma_alpha, double vxlow,
                                    double h, double* out);

#endif /* RTMBS_TYRE_CONTACT_H */
