/* rotations.c -- orientation coordinates and their kinematics (codes: rtmbs.kernels.codes ROT_*).
 *
 * Two choices per body (RTMBS_ROT_*):
 *  - Euler parameters p = (e0, e1, e2, e3) (Carpinelli 2015 eqs. 4.4-4.8): A = (2 e0^2 - 1) I
 *    + 2 (e e^T + e0 e~), omega = 2 E(p) pdot with E = [-e, e~ + e0 I]; p^T p = 1 is a constraint.
 *  - zxz Euler angles p = (phi, theta, psi) (Pękal & Frączek 2016 sec. 2.1): A = Rz(phi) Rx(theta) Rz(psi),
 *    omega = G(phi, theta) pdot; singular at sin theta = 0.
 * Layouts (row-major): A 3x3, G 3x4, dG 4x3x4 (dG[k] = dG/dp_k), W 3x4, alpha 3, dadp and dadpd
 * 3x4, d2G 4x4x3x4; columns beyond the body's number of coordinates are zero.
 */
#include <math.h>

#include "stages.h"

/* A = R(p/|p|): the rotation matrix of the normalised Euler parameters, so that A does not change
 * along p (docs/solvers.md, "Euler parameters"); at |p| = 1 Carpinelli 2015 eq. 4.6. */
void rtmbs_ep_to_matrix(const double* p, double* A) {
    const double e0 = p[0], e1 = p[1], e2 = p[2], e3 = p[3];
    const double s = 2.0 / (e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3);
    A[0] = s * (e0 * e0 + e1 * e1) - 1.0;
    A[1] = s * (e1 * e2 - e0 * e3);
    A[2] = s * (e1 * e3 + e0 * e2);
    A[3] = s * (e1 * e2 + e0 * e3);
    A[4] = s * (e0 * e0 + e2 * e2) - 1.0;
    A[5] = s * (e2 * e3 - e0 * e1);
    A[6] = s * (e1 * e3 - e0 * e2);
    A[7] = s * (e2 * e3 + e0 * e1);
    A[8] = s * (e0 * e0 + e3 * e3) - 1.0;
}

/* out (3x4) = scale E(p), E = [-e, e~ + e0 I] */
void rtmbs_ep_E(double e0, double e1, double e2, double e3, double* out, double scale) {
    out[0] = -e1 * scale;
    out[1] = e0 * scale;
    out[2] = -e3 * scale;
    out[3] = e2 * scale;
    out[4] = -e2 * scale;
    out[5] = e3 * scale;
    out[6] = e0 * scale;
    out[7] = -e1 * scale;
    out[8] = -e3 * scale;
    out[9] = -e2 * scale;
    out[10] = e1 * scale;
    out[11] = e0 * scale;
}

void rtmbs_zxz_to_matrix(const double* p, double* A) {
    const double c1 = cos(p[0]), s1 = sin(p[0]);
    const double c2 = cos(p[1]), s2 = sin(p[1]);
    const double c3 = cos(p[2]), s3 = sin(p[2]);
    A[0] = c1 * c3 - s1 * c2 * s3;
    A[1] = -c1 * s3 - s1 * c2 * c3;
    A[2] = s1 * s2;
    A[3] = s1 * c3 + c1 * c2 * s3;
    A[4] = -s1 * s3 + c1 * c2 * c3;
    A[5] = -c1 * s2;
    A[6] = s2 * s3;
    A[7] = s2 * c3;
    A[8] = c2;
}

/* G of zxz angles (3x4, the first three columns): omega = G pdot */
static void zxz_G(double phi, double th, double* G) {
    const double c1 = cos(phi), s1 = sin(phi);
    const double c2 = cos(th), s2 = sin(th);
    G[0] = 0.0;
    G[1] = c1;
    G[2] = s1 * s2;
    G[4] = 0.0;
    G[5] = s1;
    G[6] = -c1 * s2;
    G[8] = 1.0;
    G[9] = 0.0;
    G[10] = c2;
}

/* dG[k] = dG/dp_k (k = phi, theta, psi), 4x3x4 */
static void zxz_dG(double phi, double th, double* dG) {
    const double c1 = cos(phi), s1 = sin(phi);
    const double c2 = cos(th), s2 = sin(th);
    int i;
    for (i = 0; i < 48; i++) dG[i] = 0.0;
#define DG(k, a, l) dG[12 * (k) + 4 * (a) + (l)]
    DG(0, 0, 1) = -s1;
    DG(0, 0, 2) = c1 * s2;
    DG(0, 1, 1) = c1;
    DG(0, 1, 2) = s1 * s2;
    DG(1, 0, 2) = s1 * c2;
    DG(1, 1, 2) = -c1 * c2;
    DG(1, 2, 2) = -s2;
#undef DG
}

/* d2G[k, l] = d2G/dp_k dp_l, 4x4x3x4 */
static void zxz_d2G(double phi, double th, double* d2G) {
    const double c1 = cos(phi), s1 = sin(phi);
    const double c2 = cos(th), s2 = sin(th);
    int i;
    for (i = 0; i < 192; i++) d2G[i] = 0.0;
#define D2G(k, l, a, c) d2G[48 * (k) + 12 * (l) + 4 * (a) + (c)]
    D2G(0, 0, 0, 1) = -c1;
    D2G(0, 0, 0, 2) = -s1 * s2;
    D2G(0, 0, 1, 1) = -s1;
    D2G(0, 0, 1, 2) = c1 * s2;
    D2G(0, 1, 0, 2) = c1 * c2;
    D2G(0, 1, 1, 2) = s1 * c2;
    D2G(1, 0, 0, 2) = c1 * c2;
    D2G(1, 0, 1, 2) = s1 * c2;
    D2G(1, 1, 0, 2) = -s1 * s2;
    D2G(1, 1, 1, 2) = c1 * s2;
    D2G(1, 1, 2, 2) = -c2;
#undef D2G
}

void rtmbs_rotation_matrix(int64_t rtype, const double* p, double* A) {
    if (rtype == RTMBS_ROT_EP)
        rtmbs_ep_to_matrix(p, A);
    else
        rtmbs_zxz_to_matrix(p, A);
}

/* A, G, dG, W = [dG/dp_k pdot]_k, alpha = Gdot pdot (omegadot = G pddot + alpha; zero for Euler
 * parameters), dalpha/dp and dalpha/dpdot for one body; d2G is scratch. */
void rtmbs_rotation_data(int64_t rtype, const double* p, const double* pd, double* A, double* G,
                         double* dG, double* W, double* alpha, double* dadp, double* dadpd,
                         double* d2G) {
    int nr, a, k, l, mm;
    rtmbs_rotation_matrix(rtype, p, A);
    if (rtype == RTMBS_ROT_EP) {
        rtmbs_ep_E(p[0], p[1], p[2], p[3], G, 2.0);
        for (k = 0; k < 4; k++) /* E is linear in p: d(2E)/dp_k = 2E(unit_k) */
            rtmbs_ep_E(k == 0 ? 1.0 : 0.0, k == 1 ? 1.0 : 0.0, k == 2 ? 1.0 : 0.0,
                       k == 3 ? 1.0 : 0.0, dG + 12 * k, 2.0);
        for (a = 0; a < 3; a++) alpha[a] = 0.0;
        for (a = 0; a < 12; a++) {
            dadp[a] = 0.0;
            dadpd[a] = 0.0;
        }
        nr = 4;
    } else {
        G[3] = 0.0;
        G[7] = 0.0;
        G[11] = 0.0;
        zxz_G(p[0], p[1], G);
        zxz_dG(p[0], p[1], dG);
        zxz_d2G(p[0], p[1], d2G);
        nr = 3;
        for (a = 0; a < 3; a++) {
            alpha[a] = 0.0;
            for (mm = 0; mm < 4; mm++) {
                dadp[4 * a + mm] = 0.0;
                dadpd[4 * a + mm] = 0.0;
            }
        }
        /* alpha = sum_k pdot_k dG/dp_k pdot; dalpha/dpdot = W + Gdot;
         * dalpha/dp_m = sum_k pdot_k d2G/dp_k dp_m pdot */
        for (a = 0; a < 3; a++) {
            for (k = 0; k < 3; k++)
                for (l = 0; l < 3; l++) {
                    alpha[a] += pd[k] * dG[12 * k + 4 * a + l] * pd[l];
                    for (mm = 0; mm < 3; mm++)
                        dadp[4 * a + mm] += pd[k] * d2G[48 * k + 12 * mm + 4 * a + l] * pd[l];
                }
            for (mm = 0; mm < 3; mm++) {
                double s = 0.0;
                for (l = 0; l < 3; l++)
                    s += dG[12 * mm + 4 * a + l] * pd[l] + pd[l] * dG[12 * l + 4 * a + mm];
                dadpd[4 * a + mm] = s;
            }
        }
    }
    for (a = 0; a < 3; a++)
        for (k = 0; k < 4; k++) {
            double s = 0.0;
            if (k < nr)
                for (l = 0; l < nr; l++) s += dG[12 * k + 4 * a + l] * pd[l];
            W[4 * a + k] = s;
        }
}
