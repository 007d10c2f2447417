/* brake.c -- brake torque about marker_i z: T = -T_b(t) tanh(Om / omega_eps),
 * Om = z . (w_j - w_i), T_b the element's function (a smooth Coulomb law)
 * (rtmbs.kernels.elements.brake). */
#include <math.h>

#include "base.h"
#include "elements.h"

/* par: omega_eps */
enum { EPS };

RTMBS_ELEMENT_KERNEL(rtmbs_element_brake) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    const double* z = RTMBS_TMP(d, 12);
    const double* w = RTMBS_TMP(d, 11);
    double eps, Om_rel, th, T, Tp;
    (void)outs;
    rtmbs_axis_and_rate(m, d, k, bi, bj);
    eps = par[EPS];
    Om_rel = z[0] * w[0] + z[1] * w[1] + z[2] * w[2];
    th = tanh(Om_rel / eps);
    T = -fv * th;
    /* 1 - th^2 with one rounding (fma, as numba's contraction computes it): near saturation
     * (|th| -> 1) the plain difference loses the digits of the slope */
    Tp = -fv * fma(-th, th, 1.0) / eps;
    rtmbs_axial_torque(d, T, Tp, with_jac, z, w);
    return T;
}
