/* torsion_spring.c -- linear torsion spring-damper about marker_i z between two bodies: torque
 * tau = T z on body j (-tau on i), T = -k delta - c Om + T0 f(t), delta = theta - theta0 wrapped
 * into [-pi, pi), theta = atan2(y_i . x_j, x_i . x_j), Om = z . (w_j - w_i); with
 * a = x_i . x_j, b = y_i . x_j: dtheta/dpi_i = g = [a (y_i x x_j) - b (x_i x x_j)] / (a^2 + b^2)
 * = -dtheta/dpi_j (rtmbs.kernels.elements.torsion_spring; docs/extending.md). */
#include <math.h>

#include "base.h"
#include "elements.h"

/* par: stiffness k, damping c, initial angle theta0, preload torque T0 */
enum { K, C, TH0, T0 };

#define RTMBS_PI 3.141592653589793

RTMBS_ELEMENT_KERNEL(rtmbs_element_torsion_spring) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    const double* rot = m->frc_rot + 18 * k;
    const double* z = RTMBS_TMP(d, 12);
    const double* w = RTMBS_TMP(d, 11);
    double* xi = RTMBS_TMP(d, 14);
    double* yi = RTMBS_TMP(d, 15);
    double* xj = RTMBS_TMP(d, 16);
    double* g = RTMBS_TMP(d, 17);
    double* c1 = RTMBS_TMP(d, 18);
    double al, be, dl, Om, T, rho2, kz;
    int a, b, c;
    (void)outs;
    rtmbs_axis_and_rate(m, d, k, bi, bj);
    rtmbs_marker_axis(m, d, bi, rot, 0, xi);
    rtmbs_marker_axis(m, d, bi, rot, 1, yi);
    rtmbs_marker_axis(m, d, bj, rot + 9, 0, xj);
    al = xi[0] * xj[0] + xi[1] * xj[1] + xi[2] * xj[2];
    be = yi[0] * xj[0] + yi[1] * xj[1] + yi[2] * xj[2];
    dl = atan2(be, al) - par[TH0];
    dl -= 2.0 * RTMBS_PI * floor((dl + RTMBS_PI) / (2.0 * RTMBS_PI));
    Om = z[0] * w[0] + z[1] * w[1] + z[2] * w[2];
    T = -par[K] * dl - par[C] * Om + par[T0] * fv;
    rtmbs_axial_torque(d, T, -par[C], with_jac, z, w);
    if (with_jac) { /* the stiffness through theta: dtau/dpi_i += -k z g^T, dtau/dpi_j = k z g^T */
        rho2 = al * al + be * be;
        if (rho2 < 1e-30) rho2 = 1e-30;
        rtmbs_el_cross(yi, xj, g);
        rtmbs_el_cross(xi, xj, c1);
        for (c = 0; c < 3; c++) g[c] = (al * g[c] - be * c1[c]) / rho2;
        for (a = 0; a < 3; a++)
            for (b = 0; b < 3; b++) {
                kz = par[K] * z[a] * g[b];
                d->dtdx[12 * a + 3 + b] -= kz;
                d->dtdx[12 * a + 9 + b] = kz;
            }
    }
    return T;
}
