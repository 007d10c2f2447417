/* base.h -- helpers shared by the force elements (rtmbs.kernels.elements.base). */
#ifndef RTMBS_ELEMENTS_BASE_H
#define RTMBS_ELEMENTS_BASE_H

#include "../stages.h"

/* -- 3-vectors and 3 x 3 matrices (row-major): cross, dot, matvec,
 * skew ---------------------------------------------- */
static inline void rtmbs_el_cross(const double* a, const double* b, double* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}
static inline double rtmbs_el_dot(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}
static inline void rtmbs_el_matvec(const double* A, const double* x, double* out) {
    int i;
    for (i = 0; i < 3; i++) out[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}
static inline void rtmbs_el_skew(const double* v, double* out) {
    out[0] = 0.0; out[1] = -v[2]; out[2] = v[1];
    out[3] = v[2]; out[4] = 0.0; out[5] = -v[0];
    out[6] = -v[1]; out[7] = v[0]; out[8] = 0.0;
}

/* Row r of the 3-vector scratch d->tmp (32 x 3) and slice s of the 3 x 3 scratch d->S (20). */
#define RTMBS_TMP(d, r) ((d)->tmp + 3 * (r))
#define RTMBS_S(d, s) ((d)->S + 9 * (s))

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

/* Dd = dd/dx = d(ddot)/dv = [-I, ~sg_i, I, -~sg_j]; Ddd = d(ddot)/dx = [0, ~w_i ~sg_i, 0,
 * -~w_j ~sg_j] (3 x 12 each; S slices 0-3 scratch). */
void rtmbs_line_jacobians(const double* sgi, const double* sgj, const double* wi, const double* wj,
                          double* Dd, double* Ddd, double* S);

/* The vector fv e (e = par[0..2], rotating with body j if par[3] != 0) as the force or, with
 * torque != 0, the couple, and its one Jacobian d(A e)/dpi_j = -~(A e) of a body-fixed
 * direction; returns fv (rtmbs.kernels.elements.force.applied; force.c, torque.c). */
double rtmbs_applied(rtmbs_data* d, int torque, int64_t bj, int with_jac, double fv,
                     const double* par);

/* Marker_i z of element k in global axes into tmp row 12 and the relative angular velocity
 * w_j - w_i into tmp row 11 (rtmbs.kernels.elements.joint_torque.axis_and_rate). */
void rtmbs_axis_and_rate(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi, int64_t bj);

/* tau = T z about the unit axis z fixed in body i, T depending on Om = z . w (w = w_j - w_i)
 * with dT/dOm = Tp: dtau/dpi_i = -T ~z + Tp z (z x w)^T, dtau/dw_j = -dtau/dw_i = Tp z z^T
 * (rtmbs.kernels.elements.joint_torque.axial_torque; joint_torque.c, brake.c, torsion_spring.c). */
void rtmbs_axial_torque(rtmbs_data* d, double T, double Tp, int with_jac, const double* z,
                        const double* w);

#endif /* RTMBS_ELEMENTS_BASE_H */
