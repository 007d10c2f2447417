/* forces.c -- force elements in virtual coordinates and their mapping to q.
 *
 * Every element produces, in virtual coordinates of its two bodies i, j, a force f on body j at
 * the point P_j (and -f on body i at the same point) and a couple tau on j (-tau on i), with
 * df/dx, df/dv, dtau/dx, dtau/dv (3 x 12, x = (dr_i, dpi_i, dr_j, dpi_j) at fixed global
 * velocities). They are added to 6 x 6 blocks per body pair, and each block is mapped once to
 * Q and its Jacobians in q through L = blockdiag(I, G) (Carpinelli 2015 sec. 4.2; Carpinelli 2016 eqs. 1, 3).
 * Single-body loads use the ground (index nbody) as body i.
 */
#include "elements/elements.h"
#include "functions.h"
#include "stages.h"

/* Global arm sg = A s, point rp and its velocity vp (no bias acceleration: forces) */
static void point_pv(const rtmbs_data* d, int64_t b, const double* s_loc, double* sg, double* rp,
                     double* vp) {
    const double* A = d->kin_A + 9 * b;
    const double* w = d->kin_w + 3 * b;
    const double* rd = d->kin_rd + 3 * b;
    int c;
    for (c = 0; c < 3; c++) sg[c] = A[3 * c] * s_loc[0] + A[3 * c + 1] * s_loc[1] + A[3 * c + 2] * s_loc[2];
    vp[0] = rd[0] + w[1] * sg[2] - w[2] * sg[1];
    vp[1] = rd[1] + w[2] * sg[0] - w[0] * sg[2];
    vp[2] = rd[2] + w[0] * sg[1] - w[1] * sg[0];
    for (c = 0; c < 3; c++) rp[c] = d->kin_r[3 * b + c] + sg[c];
}

/* Force f at P_j, couple tau and (with with_jac) their Jacobians of element k into the data
 * (d->f, d->tau, d->dfdx ...): the points, their velocities and the input function's value here,
 * the rest by the element's kernel (elements/). *value gets the element's main output (force or
 * torque) and the kernel fills the rest of its frc_out row. RTMBS_ERR_UNSUPPORTED (with f = tau
 * = 0, *value = 0, the kernel not run) when the build has no kernel for the element's type. */
rtmbs_status rtmbs_element_forces(const rtmbs_model* m, rtmbs_data* d, int64_t k, double t,
                                  int with_jac, double* value) {
    const int64_t bi = m->frc_body[2 * k];
    const int64_t bj = m->frc_body[2 * k + 1];
    const int64_t* fun = m->frc_fun + m->frc_fun_dim[1] * k;
    const rtmbs_element_kernel kernel = rtmbs_element_kernel_of(m->frc_type[k]);
    const double* sloc = m->frc_vec + m->frc_vec_dim[1] * m->frc_vec_dim[2] * k;
    double* tmp = d->tmp;
    double *sgi = tmp, *rpi = tmp + 3, *vpi = tmp + 6;
    double *rpj = tmp + 15, *vpj = tmp + 18;
    double *dv = tmp + 24, *ddv = tmp + 27;
    double fv = 1.0, f1, f2;
    int c;
    for (c = 0; c < 3; c++) {
        d->f[c] = 0.0;
        d->tau[c] = 0.0;
    }
    *value = 0.0;
    point_pv(d, bi, sloc, sgi, rpi, vpi);
    point_pv(d, bj, sloc + 3, d->sgj, rpj, vpj);
    for (c = 0; c < 3; c++) {
        dv[c] = rpj[c] - rpi[c];
        ddv[c] = vpj[c] - vpi[c];
        d->arm_i[c] = dv[c] + sgi[c];
    }
    if (fun[0] >= 0) rtmbs_fun_eval(m, d, fun[0], t, &fv, &f1, &f2);
    if (!kernel) return RTMBS_ERR_UNSUPPORTED;
    *value = kernel(m, d, k, bi, bj, with_jac, fv, d->frc_out + RTMBS_NFOUT * k + 1);
    return RTMBS_OK;
}

/* K += sg [d; a x d + t] over the six columns of one block: d the 3 x 6 block of an element's
 * force Jacobian (rows of stride 12, as dfdx), t its torque's, a the arm. */
static void add_block(double* K, double sg, double a0, double a1, double a2, const double* d,
                      const double* t) {
    int c;
    for (c = 0; c < 6; c++) {
        const double d0 = d[c], d1 = d[12 + c], d2 = d[24 + c];
        K[c] += sg * d0;
        K[6 + c] += sg * d1;
        K[12 + c] += sg * d2;
        K[18 + c] += sg * (a1 * d2 - a2 * d1 + t[c]);
        K[24 + c] += sg * (a2 * d0 - a0 * d2 + t[12 + c]);
        K[30 + c] += sg * (a0 * d1 - a1 * d0 + t[24 + c]);
    }
}

/* Add element k's force f (at P_j on j, -f on i) and couple tau to the virtual forces vQ (per
 * body: force, torque, and again the torque if the Jacobian counts it) and, with with_jac, its
 * Jacobians to the 6 x 6 virtual blocks vK = dQ_x/dx, vC = dQ_x/dv of its body pairs.
 * Q_x,a = T_a [f; tau] with T_i = -[[I, 0], [arm_i~, I]], T_j = [[I, 0], [sg_j~, I]], so
 * K_ab = T_a D_b + X_ab and C_ab = T_a E_b with D = [df/dx; dtau/dx], E = [df/dv; dtau/dv] and
 * the arm terms X_i = f~ darm_i/dx = f~ [-I, 0, I, -sg_j~], X_jj = f~ sg_j~ on (pi_j, pi_j). */
void rtmbs_accumulate_element(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi,
                              int64_t bj, int with_jac, int torque_only) {
    const double *f = d->f, *tau = d->tau, *arm_i = d->arm_i, *sgj = d->sgj;
    const double *dfdx = d->dfdx, *dfdv = d->dfdv, *dtdx = d->dtdx, *dtdv = d->dtdv;
    const int64_t* fb = m->frc_blk + 4 * k;
    const double f0 = f[0], f1 = f[1], f2 = f[2];
    const double t0 = tau[0], t1 = tau[1], t2 = tau[2];
    const double ai0 = arm_i[0], ai1 = arm_i[1], ai2 = arm_i[2];
    const double sj0 = sgj[0], sj1 = sgj[1], sj2 = sgj[2];
    double* vQi = d->vQ + 9 * bi;
    double* vQj = d->vQ + 9 * bj;
    double fs;
    int sa, sb, r, c, pass;
    vQi[0] -= f0;
    vQi[1] -= f1;
    vQi[2] -= f2;
    vQi[3] -= ai1 * f2 - ai2 * f1 + t0;
    vQi[4] -= ai2 * f0 - ai0 * f2 + t1;
    vQi[5] -= ai0 * f1 - ai1 * f0 + t2;
    vQj[0] += f0;
    vQj[1] += f1;
    vQj[2] += f2;
    vQj[3] += sj1 * f2 - sj2 * f1 + t0;
    vQj[4] += sj2 * f0 - sj0 * f2 + t1;
    vQj[5] += sj0 * f1 - sj1 * f0 + t2;
    if (!with_jac) return;
    /* the torques whose (dG^T/dp) tau term the Jacobian counts */
    vQi[6] -= ai1 * f2 - ai2 * f1 + t0;
    vQi[7] -= ai2 * f0 - ai0 * f2 + t1;
    vQi[8] -= ai0 * f1 - ai1 * f0 + t2;
    vQj[6] += sj1 * f2 - sj2 * f1 + t0;
    vQj[7] += sj2 * f0 - sj0 * f2 + t1;
    vQj[8] += sj0 * f1 - sj1 * f0 + t2;
    if (torque_only) { /* f = 0 and tau depends on the rotations and angular velocities only */
        for (sa = 0; sa < 2; sa++) {
            const double sg = sa == 0 ? -1.0 : 1.0;
            for (sb = 0; sb < 2; sb++) {
                const int64_t blk = fb[2 * sa + sb];
                double *K, *C;
                const int c0 = 6 * sb;
                if (blk < 0) continue;
                K = d->vK + 36 * blk;
                C = d->vC + 36 * blk;
                for (r = 0; r < 3; r++)
                    for (c = 3; c < 6; c++) {
                        K[6 * (3 + r) + c] += sg * dtdx[12 * r + c0 + c];
                        C[6 * (3 + r) + c] += sg * dtdv[12 * r + c0 + c];
                    }
            }
        }
        return;
    }
    for (sa = 0; sa < 2; sa++) {
        const double sg = sa == 0 ? -1.0 : 1.0;
        const double a0 = sa == 0 ? ai0 : sj0, a1 = sa == 0 ? ai1 : sj1, a2 = sa == 0 ? ai2 : sj2;
        for (sb = 0; sb < 2; sb++) {
            const int64_t blk = fb[2 * sa + sb];
            const int c0 = 6 * sb;
            double *K, *C;
            if (blk < 0) continue;
            K = d->vK + 36 * blk;
            C = d->vC + 36 * blk;
            add_block(K, sg, a0, a1, a2, dfdx + c0, dtdx + c0);
            add_block(C, sg, a0, a1, a2, dfdv + c0, dtdv + c0);
        }
    }
    /* arm terms: +-f~ on (pi_i, r_i), (pi_i, r_j); f~ sg_j~ = sg_j f^T - (f . sg_j) I on
     * (pi_i, pi_j), (pi_j, pi_j) */
    for (pass = 0; pass < 2; pass++) {
        const int64_t blk = pass == 0 ? fb[0] : fb[1];
        const double sg = pass == 0 ? -1.0 : 1.0;
        if (blk >= 0) {
            double* K = d->vK + 36 * blk;
            K[18 + 1] -= sg * f2;
            K[18 + 2] += sg * f1;
            K[24 + 0] += sg * f2;
            K[24 + 2] -= sg * f0;
            K[30 + 0] -= sg * f1;
            K[30 + 1] += sg * f0;
        }
    }
    fs = f0 * sj0 + f1 * sj1 + f2 * sj2;
    for (pass = 0; pass < 2; pass++) {
        const int64_t blk = pass == 0 ? fb[1] : fb[3];
        const double sg = pass == 0 ? -1.0 : 1.0;
        if (blk >= 0) {
            double* K = d->vK + 36 * blk;
            for (r = 0; r < 3; r++)
                for (c = 0; c < 3; c++)
                    K[6 * (3 + r) + 3 + c] += sg * (sgj[r] * f[c] - (r == c ? fs : 0.0));
        }
    }
}

static double rdot(const double* K, int r, int c0, double g0, double g1, double g2) {
    return K[6 * r + c0] * g0 + K[6 * r + c0 + 1] * g1 + K[6 * r + c0 + 2] * g2;
}

/* Jq_ab = L_a^T (K L_b + C_omega W_b), Jqdot_ab = L_a^T C L_b for one 6 x 6 virtual block at
 * row qa, column qb of Jq, Jqd (row stride ld), one column of L_b at a time. */
static void map_block(const double* K, const double* C, const double* Ga, const double* Gb,
                      const double* Wb, int64_t qa, int64_t qb, int nra, int nrb, double* Jq,
                      double* Jqd, int64_t ld) {
    int col, kk;
    for (col = 0; col < 3 + nrb; col++) {
        double k0, k1, k2, k3, k4, k5, c0, c1, c2, c3, c4, c5;
        const int64_t j = qb + col;
        if (col < 3) {
            k0 = K[col]; k1 = K[6 + col]; k2 = K[12 + col];
            k3 = K[18 + col]; k4 = K[24 + col]; k5 = K[30 + col];
            c0 = C[col]; c1 = C[6 + col]; c2 = C[12 + col];
            c3 = C[18 + col]; c4 = C[24 + col]; c5 = C[30 + col];
        } else {
            const int l = col - 3;
            const double g0 = Gb[l], g1 = Gb[4 + l], g2 = Gb[8 + l];
            const double w0 = Wb[l], w1 = Wb[4 + l], w2 = Wb[8 + l];
            c0 = rdot(C, 0, 3, g0, g1, g2);
            c1 = rdot(C, 1, 3, g0, g1, g2);
            c2 = rdot(C, 2, 3, g0, g1, g2);
            c3 = rdot(C, 3, 3, g0, g1, g2);
            c4 = rdot(C, 4, 3, g0, g1, g2);
            c5 = rdot(C, 5, 3, g0, g1, g2);
            k0 = rdot(K, 0, 3, g0, g1, g2) + rdot(C, 0, 3, w0, w1, w2);
            k1 = rdot(K, 1, 3, g0, g1, g2) + rdot(C, 1, 3, w0, w1, w2);
            k2 = rdot(K, 2, 3, g0, g1, g2) + rdot(C, 2, 3, w0, w1, w2);
            k3 = rdot(K, 3, 3, g0, g1, g2) + rdot(C, 3, 3, w0, w1, w2);
            k4 = rdot(K, 4, 3, g0, g1, g2) + rdot(C, 4, 3, w0, w1, w2);
            k5 = rdot(K, 5, 3, g0, g1, g2) + rdot(C, 5, 3, w0, w1, w2);
        }
        Jq[ld * qa + j] = k0;
        Jq[ld * (qa + 1) + j] = k1;
        Jq[ld * (qa + 2) + j] = k2;
        Jqd[ld * qa + j] = c0;
        Jqd[ld * (qa + 1) + j] = c1;
        Jqd[ld * (qa + 2) + j] = c2;
        for (kk = 0; kk < nra; kk++) {
            Jq[ld * (qa + 3 + kk) + j] = Ga[kk] * k3 + Ga[4 + kk] * k4 + Ga[8 + kk] * k5;
            Jqd[ld * (qa + 3 + kk) + j] = Ga[kk] * c3 + Ga[4 + kk] * c4 + Ga[8 + kk] * c5;
        }
    }
}

/* map_block for a block with rotation terms only (inertia, torques): the translational rows
 * and columns are written as zeros. */
static void map_rotation_block(const double* K, const double* C, const double* Ga,
                               const double* Gb, const double* Wb, int64_t qa, int64_t qb,
                               int nra, int nrb, double* Jq, double* Jqd, int64_t ld) {
    int r, col, kk, l;
    for (r = 0; r < 3; r++)
        for (col = 0; col < 3 + nrb; col++) {
            Jq[ld * (qa + r) + qb + col] = 0.0;
            Jqd[ld * (qa + r) + qb + col] = 0.0;
        }
    for (kk = 0; kk < nra; kk++)
        for (col = 0; col < 3; col++) {
            Jq[ld * (qa + 3 + kk) + qb + col] = 0.0;
            Jqd[ld * (qa + 3 + kk) + qb + col] = 0.0;
        }
    for (l = 0; l < nrb; l++) {
        const double g0 = Gb[l], g1 = Gb[4 + l], g2 = Gb[8 + l];
        const double w0 = Wb[l], w1 = Wb[4 + l], w2 = Wb[8 + l];
        const double c3 = rdot(C, 3, 3, g0, g1, g2);
        const double c4 = rdot(C, 4, 3, g0, g1, g2);
        const double c5 = rdot(C, 5, 3, g0, g1, g2);
        const double k3 = rdot(K, 3, 3, g0, g1, g2) + rdot(C, 3, 3, w0, w1, w2);
        const double k4 = rdot(K, 4, 3, g0, g1, g2) + rdot(C, 4, 3, w0, w1, w2);
        const double k5 = rdot(K, 5, 3, g0, g1, g2) + rdot(C, 5, 3, w0, w1, w2);
        const int64_t j = qb + 3 + l;
        for (kk = 0; kk < nra; kk++) {
            Jq[ld * (qa + 3 + kk) + j] = Ga[kk] * k3 + Ga[4 + kk] * k4 + Ga[8 + kk] * k5;
            Jqd[ld * (qa + 3 + kk) + j] = Ga[kk] * c3 + Ga[4 + kk] * c4 + Ga[8 + kk] * c5;
        }
    }
}

/* Zero the virtual Jacobian blocks the elements (and, without stiff_only, the inertia terms)
 * accumulate into; with stiff_only only those a stiff element writes. */
void rtmbs_virtual_blocks_to_clear(const rtmbs_model* m, rtmbs_data* d, int stiff_only) {
    int64_t blk;
    int e;
    for (blk = 0; blk < m->size.nblk; blk++) {
        if (stiff_only && m->blk_pair[4 * blk + 3] == 0) continue;
        for (e = 0; e < 36; e++) {
            d->vK[36 * blk + e] = 0.0;
            d->vC[36 * blk + e] = 0.0;
        }
    }
}

/* Q_q = L^T Q_x per body and, with what_jac, Jq_ab = L_a^T (K_ab L_b + C_ab,omega W_b)
 * + delta_ab [(dG^T/dp) tau_b + direct p-terms], Jqdot_ab = L_a^T C_ab L_b for every block,
 * with L = blockdiag(I, G) (Carpinelli 2015 sec. 4.2; Carpinelli 2016 eqs. 1, 3). Every block is written (not
 * added); with stiff_only a block no stiff element writes (blk_pair[k][3] = 0) is written as
 * zeros. packed: block k at rows SEG k, columns 0 of Jq, Jqd (row stride SEG), else at the
 * bodies' coordinates (row stride ld = n). */
void rtmbs_map_virtual_blocks(const rtmbs_model* m, rtmbs_data* d, int what_jac, int stiff_only,
                              int packed, double* Q, double* Jq, double* Jqd, int64_t ld) {
    const int64_t nb = m->size.nbody;
    int64_t b, blk;
    int c, l, kk, r, col;
    for (b = 0; b < nb; b++) {
        const int64_t a = m->body_qadr[b];
        const double* G = d->kin_G + 12 * b;
        const double* vQ = d->vQ + 9 * b;
        const int nr = m->body_rtype[b] == RTMBS_ROT_EP ? 4 : 3;
        for (c = 0; c < 3; c++) Q[a + c] = vQ[c];
        for (l = 0; l < nr; l++) Q[a + 3 + l] = G[l] * vQ[3] + G[4 + l] * vQ[4] + G[8 + l] * vQ[5];
    }
    if (!what_jac) return;
    for (blk = 0; blk < m->size.nblk; blk++) {
        const int64_t ba = m->blk_pair[4 * blk];
        const int64_t bb = m->blk_pair[4 * blk + 1];
        const int64_t qa = packed ? RTMBS_SEG * blk : m->body_qadr[ba];
        const int64_t qb = packed ? 0 : m->body_qadr[bb];
        const int nra = m->body_rtype[ba] == RTMBS_ROT_EP ? 4 : 3;
        const int nrb = m->body_rtype[bb] == RTMBS_ROT_EP ? 4 : 3;
        const double* Ga = d->kin_G + 12 * ba;
        const double* K = d->vK + 36 * blk;
        const double* C = d->vC + 36 * blk;
        const double* dG;
        double T0, T1, T2;
        if (stiff_only && m->blk_pair[4 * blk + 3] == 0) { /* no stiff term: zero */
            if (packed) { /* (the whole SEG x SEG block, contiguous) */
                for (c = 0; c < RTMBS_SEG * RTMBS_SEG; c++) {
                    Jq[RTMBS_SEG * qa + c] = 0.0;
                    Jqd[RTMBS_SEG * qa + c] = 0.0;
                }
                continue;
            }
            for (r = 0; r < 3 + nra; r++)
                for (col = 0; col < 3 + nrb; col++) {
                    Jq[ld * (qa + r) + qb + col] = 0.0;
                    Jqd[ld * (qa + r) + qb + col] = 0.0;
                }
            continue;
        }
        if (m->blk_pair[4 * blk + 2] == 0) /* rotation terms only */
            map_rotation_block(K, C, Ga, d->kin_G + 12 * bb, d->kin_W + 12 * bb, qa, qb, nra, nrb,
                               Jq, Jqd, ld);
        else
            map_block(K, C, Ga, d->kin_G + 12 * bb, d->kin_W + 12 * bb, qa, qb, nra, nrb, Jq, Jqd,
                      ld);
        if (ba != bb) continue;
        /* (dG^T/dp_k) tau with the body's virtual torque of the counted terms, and the direct
         * p-terms */
        T0 = d->vQ[9 * ba + 6];
        T1 = d->vQ[9 * ba + 7];
        T2 = d->vQ[9 * ba + 8];
        dG = d->kin_dG + 48 * ba;
        for (l = 0; l < nra; l++)
            for (kk = 0; kk < nra; kk++)
                Jq[ld * (qa + 3 + l) + qb + 3 + kk] +=
                    dG[12 * kk + l] * T0 + dG[12 * kk + 4 + l] * T1 + dG[12 * kk + 8 + l] * T2;
        if (m->body_rtype[ba] != RTMBS_ROT_EP) {
            const double* vP = d->vP + 24 * ba;
            for (l = 0; l < nra; l++)
                for (kk = 0; kk < nra; kk++) {
                    double s = 0.0, sv = 0.0;
                    for (c = 0; c < 3; c++) {
                        s += Ga[4 * c + l] * vP[4 * c + kk];
                        sv += Ga[4 * c + l] * vP[12 + 4 * c + kk];
                    }
                    Jq[ld * (qa + 3 + l) + qb + 3 + kk] += s;
                    Jqd[ld * (qa + 3 + l) + qb + 3 + kk] += sv;
                }
        }
    }
}
