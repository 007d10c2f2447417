/* stop.c -- bump / rebound stop along the line of two marker origins: tension
 * F = -k (L_min - L)^e + c Ldot below L_min, k (L - L_max)^e + c Ldot above L_max, zero between
 * (rtmbs.kernels.elements.stop). */
#include <math.h>

#include "base.h"
#include "elements.h"

/* par: min length, max length, stiffness k, exponent e, damping c */
enum { LMIN, LMAX, K, EXP, C };

RTMBS_ELEMENT_KERNEL(rtmbs_element_stop) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    double L, Ld, Lmin, Lmax, k_s, ex, c_d, F = 0.0, FL = 0.0, FLd = 0.0, pen;
    (void)fv;
    (void)outs;
    if (with_jac) rtmbs_zero_jacobians(d, 0, 1);
    L = rtmbs_line_length(d, &Ld);
    Lmin = par[LMIN]; Lmax = par[LMAX]; k_s = par[K]; ex = par[EXP]; c_d = par[C];
    if (L < Lmin) {
        pen = Lmin - L;
        F = -k_s * pow(pen, ex) + c_d * Ld;
        FL = k_s * ex * pow(pen, ex - 1.0);
        FLd = c_d;
    } else if (L > Lmax) {
        pen = L - Lmax;
        F = k_s * pow(pen, ex) + c_d * Ld;
        FL = k_s * ex * pow(pen, ex - 1.0);
        FLd = c_d;
    }
    rtmbs_line_force(d, F, FL, FLd, L, RTMBS_TMP(d, 10), Ld, with_jac, bi, bj);
    return F;
}
