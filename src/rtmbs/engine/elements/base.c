/* base.c -- helpers shared by the force elements (rtmbs.kernels.elements.base, and the helpers
 * force.py and joint_torque.py share with torque, brake and torsion-spring). */
#include <math.h>

#include "base.h"

static void zero(double* a, int n) {
    int i;
    for (i = 0; i < n; i++) a[i] = 0.0;
}

void rtmbs_zero_jacobians(rtmbs_data* d, int force, int torque) {
    if (force) {
        zero(d->dfdx, 36);
        zero(d->dfdv, 36);
    }
    if (torque) {
        zero(d->dtdx, 36);
        zero(d->dtdv, 36);
    }
}

void rtmbs_line_jacobians(const double* sgi, const double* sgj, const double* wi, const double* wj,
                          double* Dd, double* Ddd, double* S) {
    double *S0 = S, *S1 = S + 9, *S2 = S + 18, *S3 = S + 27;
    double si, sj;
    int a, b, c;
    zero(Dd, 36);
    zero(Ddd, 36);
    rtmbs_el_skew(sgi, S0);
    rtmbs_el_skew(sgj, S1);
    rtmbs_el_skew(wi, S2);
    rtmbs_el_skew(wj, S3);
    for (a = 0; a < 3; a++) {
        Dd[12 * a + a] = -1.0;
        Dd[12 * a + 6 + a] = 1.0;
        for (b = 0; b < 3; b++) {
            Dd[12 * a + 3 + b] = S0[3 * a + b];
            Dd[12 * a + 9 + b] = -S1[3 * a + b];
            si = 0.0;
            sj = 0.0;
            for (c = 0; c < 3; c++) {
                si += S2[3 * a + c] * S0[3 * c + b];
                sj += S3[3 * a + c] * S1[3 * c + b];
            }
            Ddd[12 * a + 3 + b] = si;
            Ddd[12 * a + 9 + b] = -sj;
        }
    }
}

/* f = -F u; with P = (I - u u^T)/L: du/dx = P Dd, dL/dx = u^T Dd, dLdot/dx = (P ddot)^T Dd +
 * u^T Ddd, dLdot/dv = u^T Dd (Carpinelli 2015 sec. 4.2). */
void rtmbs_line_force(rtmbs_data* d, double F, double FL, double FLd, double L, const double* u,
                      double Ld, int with_jac, int64_t bi, int64_t bj) {
    const double* dd = RTMBS_TMP(d, 9);
    double* v1 = RTMBS_TMP(d, 12);
    double gL, gLd, gu;
    int c, col;
    for (c = 0; c < 3; c++) d->f[c] = -F * u[c];
    if (!with_jac) return;
    rtmbs_line_jacobians(RTMBS_TMP(d, 0), d->sgj, d->kin_w + 3 * bi, d->kin_w + 3 * bj, d->Dd,
                         d->Ddd, d->S);
    for (c = 0; c < 3; c++) v1[c] = (dd[c] - u[c] * Ld) / L; /* P ddot */
    for (col = 0; col < 12; col++) {
        gL = 0.0;
        gLd = 0.0;
        for (c = 0; c < 3; c++) {
            gL += u[c] * d->Dd[12 * c + col];
            gLd += v1[c] * d->Dd[12 * c + col] + u[c] * d->Ddd[12 * c + col];
        }
        for (c = 0; c < 3; c++) {
            gu = (d->Dd[12 * c + col] - u[c] * gL) / L;
            d->dfdx[12 * c + col] = -(FL * u[c] * gL + FLd * u[c] * gLd + F * gu);
            d->dfdv[12 * c + col] = -FLd * u[c] * gL;
        }
    }
}

double rtmbs_line_length(rtmbs_data* d, double* Ld) {
    const double* dv = RTMBS_TMP(d, 8);
    const double* dd = RTMBS_TMP(d, 9);
    double* u = RTMBS_TMP(d, 10);
    double L = sqrt(dv[0] * dv[0] + dv[1] * dv[1] + dv[2] * dv[2]);
    int c;
    if (L < 1e-12) L = 1e-12;
    for (c = 0; c < 3; c++) u[c] = dv[c] / L;
    *Ld = u[0] * dd[0] + u[1] * dd[1] + u[2] * dd[2];
    return L;
}

void rtmbs_marker_axis(const rtmbs_model* m, const rtmbs_data* d, int64_t b, const double* C,
                       int col, double* out) {
    const double* A = d->kin_A + 9 * b;
    int c;
    (void)m;
    for (c = 0; c < 3; c++)
        out[c] = A[3 * c] * C[col] + A[3 * c + 1] * C[3 + col] + A[3 * c + 2] * C[6 + col];
}

double rtmbs_applied(rtmbs_data* d, int torque, int64_t bj, int with_jac, double fv,
                     const double* par) {
    double* v1 = RTMBS_TMP(d, 12);
    double* v2 = RTMBS_TMP(d, 13);
    double *vec, *dvx, *S0 = RTMBS_S(d, 0);
    int a, b, c;
    if (with_jac) rtmbs_zero_jacobians(d, 1, 1);
    for (c = 0; c < 3; c++) v1[c] = par[c];
    if (par[3] != 0.0)
        rtmbs_el_matvec(d->kin_A + 9 * bj, v1, v2);
    else
        for (c = 0; c < 3; c++) v2[c] = v1[c];
    vec = torque ? d->tau : d->f;
    for (c = 0; c < 3; c++) vec[c] = fv * v2[c];
    if (with_jac && par[3] != 0.0) {
        rtmbs_el_skew(vec, S0);
        dvx = torque ? d->dtdx : d->dfdx;
        for (a = 0; a < 3; a++)
            for (b = 0; b < 3; b++) dvx[12 * a + 9 + b] = -S0[3 * a + b];
    }
    return fv;
}

void rtmbs_axis_and_rate(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi, int64_t bj) {
    double* z = RTMBS_TMP(d, 12);
    double* w = RTMBS_TMP(d, 11);
    int c;
    rtmbs_marker_axis(m, d, bi, m->frc_rot + 18 * k, 2, z);
    for (c = 0; c < 3; c++) w[c] = d->kin_w[3 * bj + c] - d->kin_w[3 * bi + c];
}

void rtmbs_axial_torque(rtmbs_data* d, double T, double Tp, int with_jac, const double* z,
                        const double* w) {
    double* v2 = RTMBS_TMP(d, 13);
    double* S0 = RTMBS_S(d, 0);
    int a, b, c;
    for (c = 0; c < 3; c++) d->tau[c] = T * z[c];
    if (!with_jac) return;
    rtmbs_zero_jacobians(d, 1, 1);
    rtmbs_el_skew(z, S0);
    rtmbs_el_cross(z, w, v2);
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            d->dtdx[12 * a + 3 + b] = -T * S0[3 * a + b] + Tp * z[a] * v2[b];
            d->dtdv[12 * a + 3 + b] = -Tp * z[a] * z[b];
            d->dtdv[12 * a + 9 + b] = Tp * z[a] * z[b];
        }
}
