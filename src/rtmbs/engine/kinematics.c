/* kinematics.c -- positions, rotations and velocities of the bodies, and
 * their accelerations. */
#include "stages.h"

/* Positions, rotation matrices, angular velocities and orientation maps of all bodies into the
 * data's kin_* fields. Without `velocities` (an evaluation of Phi, Phi_q only) the
 * Euler-parameter bodies get r, A and G only: their rdot, omega, W keep what an earlier
 * evaluation left. For Euler-parameter bodies kin_dG (constant), kin_alpha, kin_dadp and
 * kin_dadpd (zero) are set once when the data is made and not written here. The last slot
 * (index nbody) is the ground: at rest at the origin. */
void rtmbs_body_kinematics(const rtmbs_model* m, rtmbs_data* d, const double* q, const double* qd,
                           int velocities) {
    const int64_t nb = m->size.nbody;
    int64_t b;
    int k, l;
    for (b = 0; b < nb; b++) {
        const int64_t a = m->body_qadr[b];
        const int64_t rt = m->body_rtype[b];
        const int nr = rt == RTMBS_ROT_EP ? 4 : 3;
        double* G = d->kin_G + 12 * b;
        for (k = 0; k < 3; k++) d->kin_r[3 * b + k] = q[a + k];
        if (rt == RTMBS_ROT_EP) { /* dG/dp constant, alpha = 0, W = d(2E pdot)/dp = -2E(pdot) */
            rtmbs_ep_to_matrix(q + a + 3, d->kin_A + 9 * b);
            rtmbs_ep_E(q[a + 3], q[a + 4], q[a + 5], q[a + 6], G, 2.0);
            if (!velocities) continue;
            rtmbs_ep_E(qd[a + 3], qd[a + 4], qd[a + 5], qd[a + 6], d->kin_W + 12 * b, -2.0);
        } else {
            rtmbs_rotation_data(rt, q + a + 3, qd + a + 3, d->kin_A + 9 * b, G, d->kin_dG + 48 * b,
                                d->kin_W + 12 * b, d->kin_alpha + 3 * b, d->kin_dadp + 12 * b,
                                d->kin_dadpd + 12 * b, d->d2G);
        }
        for (k = 0; k < 3; k++) d->kin_rd[3 * b + k] = qd[a + k];
        for (k = 0; k < 3; k++) {
            double s = 0.0;
            for (l = 0; l < nr; l++) s += G[4 * k + l] * qd[a + 3 + l];
            d->kin_w[3 * b + k] = s;
        }
    }
    for (k = 0; k < 3; k++) {
        d->kin_r[3 * nb + k] = 0.0;
        d->kin_rd[3 * nb + k] = 0.0;
        d->kin_w[3 * nb + k] = 0.0;
        d->kin_alpha[3 * nb + k] = 0.0;
        for (l = 0; l < 3; l++) d->kin_A[9 * nb + 3 * k + l] = k == l ? 1.0 : 0.0;
    }
}

/* Per body the acceleration of the centre of mass rddot and the angular acceleration
 * omegadot = G pddot + alpha (global axes): six values per body into out (6 nbody). The
 * kinematics in the data are not touched (one body's scratch lives on the stack). */
void rtmbs_body_accelerations(const rtmbs_model* m, const double* q, const double* qd,
                              const double* qdd, double* out) {
    const int64_t nb = m->size.nbody;
    double A[9], G[12], dG[48], W[12], alpha[3], dadp[12], dadpd[12], d2G[192];
    int64_t b;
    int k, l;
    for (b = 0; b < nb; b++) {
        const int64_t a = m->body_qadr[b];
        const int nr = m->body_rtype[b] == RTMBS_ROT_EP ? 4 : 3;
        rtmbs_rotation_data(m->body_rtype[b], q + a + 3, qd + a + 3, A, G, dG, W, alpha, dadp,
                            dadpd, d2G);
        for (k = 0; k < 3; k++) {
            double s;
            out[6 * b + k] = qdd[a + k];
            s = alpha[k];
            for (l = 0; l < nr; l++) s += G[4 * k + l] * qdd[a + 3 + l];
            out[6 * b + 3 + k] = s;
        }
    }
}
