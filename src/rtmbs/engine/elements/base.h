/* base.h -- helpers shared by the force elements (rtmbs.kernels.elements.base). */
#ifndef RTMBS_ELEMENTS_BASE_H
#define RTMBS_ELEMENTS_BASE_H

#include "../stages.h"

/* Clear the force (force != 0) and couple (torque != 0) Jacobians an element does not write. */
void rtmbs_zero_jacobians(rtmbs_data* d, int force, int torque);

/* out = A_b C[:, col]: a marker axis in global coordinates (C: 3 x 3 marker axes, body axes). */
void rtmbs_marker_axis(const rtmbs_model* m, const rtmbs_data* d, int64_t b, const double* C,
                       int col, double* out);

/* Length L = |d| (at least 1e-12) of d = tmp row 8, unit direction u = d / L into tmp row 10;
 * returns L and sets *Ld = u . ddot (tmp row 9). */
double rtmbs_line_length(rtmbs_data* d, double* Ld);

/* f = -F u along the unit line u of the two points, F(L, Ldot) with dF/dL = FL, dF/dLdot = FLd
 * (tension positive), and with with_jac its Jacobians (rtmbs.kernels.elements.base.line_force). */
void rtmbs_line_force(rtmbs_data* d, double F, double FL, double FLd, double L, const double* u,
                      double Ld, int with_jac, int64_t bi, int64_t bj);

#endif /* RTMBS_ELEMENTS_BASE_H */
