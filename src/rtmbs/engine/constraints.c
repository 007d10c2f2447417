/* constraints.c -- constraint primitives and their scatter into Phi, Phi_q, gamma (codes:
 * rtmbs.kernels.codes PRIM_*).
 *
 * Constraints are written in virtual coordinates x_b = (dr, dpi) of the two bodies of a
 * primitive (D = dPhi/dx, 12 columns: body i, then body j) and mapped to q with
 * L_b = blockdiag(I, G_b): Phi_q = D L, gamma = -(beta + D_pi alpha) with
 * Phiddot = D vdot + beta (Carpinelli 2015 sec. 4.2; Carpinelli 2016 eq. 23).
 *
 * Primitives (RTMBS_PRIM_*): SPH r_Pj - r_Pi = 0 (3 rows); DOT1 a_i^T a_j = 0; DOT2
 * a_i^T (r_Pj - r_Pi) - s(t) = 0; DIST d^T d - L(t)^2 = 0; ROTDRV cos th(t) (b_i^T a_j)
 * - sin th(t) (a_i^T a_j) = 0; CPL one term c (s - s0) of a coupler row sum_k c_k (s_k - s_k0)
 * = 0 (consecutive terms share a row; the D row and bias of coupler term e live in Dx / beta
 * row nc + e). Marker vectors of a primitive: prim_vec rows 0 s_i, 1 s_j, 2 a_i, 3 a_j, 4 b_i,
 * 5 (c, s0, P) of a coupler term.
 */
#include <math.h>

#include "functions.h"
#include "stages.h"

static void cross(const double* a, const double* b, double* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

static double dot(const double* a, const double* b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

static void matvec(const double* A, const double* x, double* out) {
    int i;
    for (i = 0; i < 3; i++) out[i] = A[3 * i] * x[0] + A[3 * i + 1] * x[1] + A[3 * i + 2] * x[2];
}

/* Dx[r0:r0+3, c0:c0+3] = sg v~ */
static void skew_into(double* Dx, int64_t r0, int c0, const double* v, double sg) {
    double* D = Dx + 12 * r0 + c0;
    D[0] = 0.0;
    D[1] = -sg * v[2];
    D[2] = sg * v[1];
    D[12] = sg * v[2];
    D[13] = 0.0;
    D[14] = -sg * v[0];
    D[24] = -sg * v[1];
    D[25] = sg * v[0];
    D[26] = 0.0;
}

/* Global arm sg = A s, point rp; with vel its velocity vp and bias acceleration
 * omega x (omega x sg) (tmp: 3 scratch) */
static void point(const rtmbs_data* d, int64_t b, const double* s_loc, double* sg, double* rp,
                  double* vp, double* ab, double* tmp, int vel) {
    int k;
    matvec(d->kin_A + 9 * b, s_loc, sg);
    for (k = 0; k < 3; k++) rp[k] = d->kin_r[3 * b + k] + sg[k];
    if (vel) {
        cross(d->kin_w + 3 * b, sg, tmp);
        for (k = 0; k < 3; k++) vp[k] = d->kin_rd[3 * b + k] + tmp[k];
        cross(d->kin_w + 3 * b, tmp, ab);
    }
}

/* Global body-fixed vector ag; with vel its rate omega x ag and bias omega x (omega x ag) */
static void vector(const rtmbs_data* d, int64_t b, const double* a_loc, double* ag, double* ad,
                   double* ab, int vel) {
    matvec(d->kin_A + 9 * b, a_loc, ag);
    if (vel) {
        cross(d->kin_w + 3 * b, ag, ad);
        cross(d->kin_w + 3 * b, ad, ab);
    }
}

/* Dx[row, col:col+6] += c v^T [I, -sg~] = c [v^T, (sg x v)^T] */
static void add_vec_point_jac(double* Dx, int64_t row, int col, double c, const double* v,
                              const double* sg) {
    double* D = Dx + 12 * row + col;
    D[0] += c * v[0];
    D[1] += c * v[1];
    D[2] += c * v[2];
    D[3] += c * (sg[1] * v[2] - sg[2] * v[1]);
    D[4] += c * (sg[2] * v[0] - sg[0] * v[2]);
    D[5] += c * (sg[0] * v[1] - sg[1] * v[0]);
}

/* Add c (s - s0) of one coupler term to phi[r0] (wrapped into [-P/2, P/2) when P > 0); with
 * with_d its D row (times c) into Dx row dr, with with_bias its bias (times c) into beta[dr].
 * Rotation (s = theta = atan2(beta, alpha), alpha = x_i^T x_j, beta = y_i^T x_j):
 * dtheta/dpi_i = [alpha (y_i x x_j) - beta (x_i x x_j)] / rho^2 = -dtheta/dpi_j and
 * thetaddot = D vdot + (alpha b_beta - beta b_alpha) / rho^2 - 2 thetadot (alpha alphadot
 * + beta betadot) / rho^2 (b_alpha, b_beta: the dot-1 biases, rho^2 = alpha^2 + beta^2).
 * Translation (s = z_i^T (r_Pj - r_Pi)): the dot-2 row with a_i = z_i and s(t) = 0. */
static void coupler_term(rtmbs_data* d, int rotation, int64_t bi, int64_t bj, const double* v,
                         double* phi, int64_t r0, int64_t dr, int with_d, int with_bias) {
    const double c = v[15], s0 = v[16], per = v[17];
    const int vel = with_bias;
    double* tmp = d->tmp;
    double* Dx = d->Dx + 12 * dr;
    double *xi = tmp + 3 * 21, *xid = tmp + 3 * 22, *xib = tmp + 3 * 23;
    double *xj = tmp + 3 * 24, *xjd = tmp + 3 * 25, *xjb = tmp + 3 * 26;
    double *yi = tmp + 3 * 27, *yid = tmp + 3 * 28, *yib = tmp + 3 * 29;
    double *g = tmp + 3 * 30, *u = tmp + 3 * 31;
    double bias = 0.0, val, x;
    int e;
    if (with_d)
        for (e = 0; e < 12; e++) Dx[e] = 0.0;
    if (rotation) {
        double al, be, rho2;
        vector(d, bi, v + 6, xi, xid, xib, vel);
        vector(d, bi, v + 12, yi, yid, yib, vel);
        vector(d, bj, v + 9, xj, xjd, xjb, vel);
        al = dot(xi, xj);
        be = dot(yi, xj);
        rho2 = al * al + be * be;
        if (rho2 < 1e-30) rho2 = 1e-30;
        val = atan2(be, al);
        if (with_bias) {
            const double ald = dot(xid, xj) + dot(xi, xjd);
            const double bed = dot(yid, xj) + dot(yi, xjd);
            const double ba = dot(xib, xj) + 2.0 * dot(xid, xjd) + dot(xi, xjb);
            const double bb = dot(yib, xj) + 2.0 * dot(yid, xjd) + dot(yi, xjb);
            const double thd = (al * bed - be * ald) / rho2;
            bias = (al * bb - be * ba) / rho2 - 2.0 * thd * (al * ald + be * bed) / rho2;
        }
        if (with_d) {
            cross(yi, xj, g);
            cross(xi, xj, u);
            for (e = 0; e < 3; e++) {
                const double ge = c * (al * g[e] - be * u[e]) / rho2;
                Dx[3 + e] = ge;
                Dx[9 + e] = -ge;
            }
        }
    } else {
        double *sgi = tmp, *rpi = tmp + 3, *vpi = tmp + 6, *abi = tmp + 9;
        double *sgj = tmp + 12, *rpj = tmp + 15, *vpj = tmp + 18, *abj = tmp + 21;
        double *dd_ = tmp + 3 * 14, *ddd = tmp + 3 * 15, *w = tmp + 3 * 16;
        point(d, bi, v, sgi, rpi, vpi, abi, w, vel);
        point(d, bj, v + 3, sgj, rpj, vpj, abj, w, vel);
        for (e = 0; e < 3; e++) {
            dd_[e] = rpj[e] - rpi[e];
            if (vel) ddd[e] = vpj[e] - vpi[e];
        }
        vector(d, bi, v + 6, xi, xid, xib, vel); /* z_i */
        val = dot(xi, dd_);
        if (with_bias) {
            bias = dot(xib, dd_) + 2.0 * dot(xid, ddd);
            for (e = 0; e < 3; e++) bias += xi[e] * (abj[e] - abi[e]);
        }
        if (with_d) {
            for (e = 0; e < 3; e++) w[e] = dd_[e] + sgi[e];
            cross(xi, w, g);
            cross(xi, sgj, u);
            for (e = 0; e < 3; e++) {
                Dx[e] = -c * xi[e];
                Dx[3 + e] = c * g[e];
                Dx[6 + e] = c * xi[e];
                Dx[9 + e] = -c * u[e];
            }
        }
    }
    if (with_bias) d->beta[dr] = c * bias;
    x = phi[r0] + c * (val - s0);
    if (per > 0.0) x -= per * floor(x / per + 0.5);
    phi[r0] = x;
}

/* Phi, Phi_t and, with with_d, D = dPhi/dx into d->Dx, with with_bias the bias beta of
 * Phiddot = D vdot + beta (time terms folded into beta; needs the bodies' velocities), for every
 * primitive row. Scratch: tmp rows 0..31. */
void rtmbs_constraint_rows(const rtmbs_model* m, rtmbs_data* d, double t, double* phi,
                           double* phit, int with_d, int with_bias) {
    const int64_t npr = m->size.nprim;
    const int64_t vstride = m->prim_vec_dim[1] * m->prim_vec_dim[2];
    const int64_t pstride = m->prim_par_dim[1];
    double* tmp = d->tmp;
    double* Dx = d->Dx;
    double* beta = d->beta;
    double *sgi = tmp, *rpi = tmp + 3, *vpi = tmp + 6, *abi = tmp + 9;
    double *sgj = tmp + 12, *rpj = tmp + 15, *vpj = tmp + 18, *abj = tmp + 21;
    double *ai = tmp + 24, *adi = tmp + 27, *abai = tmp + 30;
    double *aj = tmp + 33, *adj = tmp + 36, *abaj = tmp + 39;
    double *dv = tmp + 42, *ddv = tmp + 45, *w = tmp + 48, *c1 = tmp + 51;
    double *bi_ = tmp + 54, *bdi = tmp + 57, *bbi = tmp + 60;
    const int vel = with_bias;
    int64_t aux = m->size.nc; /* Dx / beta row of the next coupler term */
    int64_t k, r;
    int c, e;
    for (k = 0; k < npr; k++) {
        const int64_t ty = m->prim_type[k];
        const int64_t r0 = m->prim_row[k];
        const int64_t bi = m->prim_body[2 * k];
        const int64_t bj = m->prim_body[2 * k + 1];
        const double* v = m->prim_vec + vstride * k;
        const int64_t f = m->prim_fun[k];
        double fv = 0.0, fd = 0.0, fdd = 0.0;
        int64_t nrow;
        if (ty == RTMBS_PRIM_CPL) {
            if (k == 0 || m->prim_type[k - 1] != RTMBS_PRIM_CPL || m->prim_row[k - 1] != r0) {
                phi[r0] = 0.0;
                phit[r0] = 0.0;
            }
            coupler_term(d, m->prim_par[pstride * k] != 0.0, bi, bj, v, phi, r0, aux, with_d,
                         with_bias);
            aux++;
            continue;
        }
        if (f >= 0) rtmbs_fun_eval(m, d, f, t, &fv, &fd, &fdd);
        nrow = ty == RTMBS_PRIM_SPH ? 3 : 1;
        for (r = r0; r < r0 + nrow; r++) {
            phit[r] = 0.0;
            if (with_bias) beta[r] = 0.0;
            if (with_d && ty != RTMBS_PRIM_SPH) /* (spherical rows write all 12 entries below) */
                for (c = 0; c < 12; c++) Dx[12 * r + c] = 0.0;
        }
        if (ty == RTMBS_PRIM_SPH || ty == RTMBS_PRIM_DOT2 || ty == RTMBS_PRIM_DIST) {
            point(d, bi, v, sgi, rpi, vpi, abi, w, vel);
            point(d, bj, v + 3, sgj, rpj, vpj, abj, w, vel);
            for (c = 0; c < 3; c++) {
                dv[c] = rpj[c] - rpi[c];
                if (vel) ddv[c] = vpj[c] - vpi[c];
            }
        }
        if (ty == RTMBS_PRIM_SPH) {
            for (c = 0; c < 3; c++) {
                r = r0 + c;
                phi[r] = dv[c];
                if (with_bias) beta[r] = abj[c] - abi[c];
                if (with_d)
                    for (e = 0; e < 3; e++) {
                        Dx[12 * r + e] = e == c ? -1.0 : 0.0;
                        Dx[12 * r + 6 + e] = e == c ? 1.0 : 0.0;
                    }
            }
            if (with_d) { /* dd/dpi_i = sg_i~, dd/dpi_j = -sg_j~ (dr_P = dr - sg~ dpi) */
                skew_into(Dx, r0, 3, sgi, 1.0);
                skew_into(Dx, r0, 9, sgj, -1.0);
            }
        } else if (ty == RTMBS_PRIM_DOT1) {
            vector(d, bi, v + 6, ai, adi, abai, vel);
            vector(d, bj, v + 9, aj, adj, abaj, vel);
            phi[r0] = dot(ai, aj);
            if (with_d) {
                cross(ai, aj, c1);
                for (c = 0; c < 3; c++) {
                    Dx[12 * r0 + 3 + c] = c1[c];
                    Dx[12 * r0 + 9 + c] = -c1[c];
                }
            }
            if (with_bias) beta[r0] = dot(abai, aj) + 2.0 * dot(adi, adj) + dot(ai, abaj);
        } else if (ty == RTMBS_PRIM_DOT2) {
            vector(d, bi, v + 6, ai, adi, abai, vel);
            phi[r0] = dot(ai, dv) - fv;
            phit[r0] = -fd;
            if (with_d) {
                /* D_ri = -a_i^T, D_pii = (a_i x (d + sg_i))^T, D_rj = a_i^T, D_pij = -(a_i x sg_j)^T */
                for (c = 0; c < 3; c++) w[c] = dv[c] + sgi[c];
                cross(ai, w, c1);
                for (c = 0; c < 3; c++) {
                    Dx[12 * r0 + c] = -ai[c];
                    Dx[12 * r0 + 3 + c] = c1[c];
                    Dx[12 * r0 + 6 + c] = ai[c];
                }
                cross(ai, sgj, c1);
                for (c = 0; c < 3; c++) Dx[12 * r0 + 9 + c] = -c1[c];
            }
            if (with_bias) {
                double s = 0.0;
                for (c = 0; c < 3; c++) s += ai[c] * (abj[c] - abi[c]);
                beta[r0] = dot(abai, dv) + 2.0 * dot(adi, ddv) + s - fdd;
            }
        } else if (ty == RTMBS_PRIM_DIST) {
            double L = m->prim_par[pstride * k], Ld = 0.0, Ldd = 0.0;
            if (f >= 0) {
                L = fv;
                Ld = fd;
                Ldd = fdd;
            }
            phi[r0] = dot(dv, dv) - L * L;
            phit[r0] = -2.0 * L * Ld;
            if (with_d) {
                add_vec_point_jac(Dx, r0, 6, 2.0, dv, sgj);
                add_vec_point_jac(Dx, r0, 0, -2.0, dv, sgi);
            }
            if (with_bias) {
                double s = 0.0;
                for (c = 0; c < 3; c++) s += dv[c] * (abj[c] - abi[c]);
                beta[r0] = 2.0 * dot(ddv, ddv) + 2.0 * s - 2.0 * (Ld * Ld + L * Ldd);
            }
        } else { /* RTMBS_PRIM_ROTDRV: cos th (b_i . a_j) - sin th (a_i . a_j) */
            double co, si, p1, p2;
            vector(d, bi, v + 6, ai, adi, abai, vel);
            vector(d, bi, v + 12, bi_, bdi, bbi, vel);
            vector(d, bj, v + 9, aj, adj, abaj, vel);
            co = cos(fv);
            si = sin(fv);
            p1 = dot(bi_, aj);
            p2 = dot(ai, aj);
            phi[r0] = co * p1 - si * p2;
            phit[r0] = -fd * (si * p1 + co * p2);
            if (with_d) {
                cross(bi_, aj, c1);
                for (c = 0; c < 3; c++) {
                    Dx[12 * r0 + 3 + c] += co * c1[c];
                    Dx[12 * r0 + 9 + c] -= co * c1[c];
                }
                cross(ai, aj, c1);
                for (c = 0; c < 3; c++) {
                    Dx[12 * r0 + 3 + c] -= si * c1[c];
                    Dx[12 * r0 + 9 + c] += si * c1[c];
                }
            }
            if (with_bias) {
                const double p1d = dot(bdi, aj) + dot(bi_, adj);
                const double p2d = dot(adi, aj) + dot(ai, adj);
                const double b1 = dot(bbi, aj) + 2.0 * dot(bdi, adj) + dot(bi_, abaj);
                const double b2 = dot(abai, aj) + 2.0 * dot(adi, adj) + dot(ai, abaj);
                beta[r0] = (co * b1 - si * b2 - 2.0 * fd * (si * p1d + co * p2d)
                            - fdd * (si * p1 + co * p2) - fd * fd * (co * p1 - si * p2));
            }
        }
    }
}

/* Row r of Phi_q (row stride ld) on one body from column a: [D_r, D_pi G] (D from Dx row dr);
 * with add, added to what the row holds (coupler terms share a row of the dense Phi_q). */
static inline void phiq_row(double* phiq, int64_t ld, int64_t r, int64_t a, const double* Dxr, int c0,
                     double d0, double d1, double d2, const double* G, int nr, int add) {
    double* row = phiq + ld * r + a;
    int l;
    if (add) {
        row[0] += Dxr[c0];
        row[1] += Dxr[c0 + 1];
        row[2] += Dxr[c0 + 2];
        for (l = 0; l < nr; l++) row[3 + l] += d0 * G[l] + d1 * G[4 + l] + d2 * G[8 + l];
    } else {
        row[0] = Dxr[c0];
        row[1] = Dxr[c0 + 1];
        row[2] = Dxr[c0 + 2];
        for (l = 0; l < nr; l++) row[3 + l] = d0 * G[l] + d1 * G[4 + l] + d2 * G[8 + l];
    }
}

/* Phi_q row pr = D L of primitive k from Dx row dr, side by side (dense: at the body's columns;
 * packed: side s at column SEG s); returns its gamma = -(beta + D_pi alpha). */
static inline double row_sides(const rtmbs_model* m, const rtmbs_data* d, int64_t k, int64_t pr,
                        int64_t dr, int add, int packed, int with_phiq, const double* q,
                        double* phiq, int64_t ld) {
    const double* Dxr = d->Dx + 12 * dr;
    double g = -d->beta[dr];
    int side;
    for (side = 0; side < 2; side++) {
        const int64_t b = m->prim_body[2 * k + side];
        const int64_t a = m->body_qadr[b];
        int64_t pa;
        int c0;
        double d0, d1, d2;
        const double* G;
        if (a < 0) continue;
        pa = packed ? RTMBS_SEG * side : a;
        c0 = 6 * side;
        d0 = Dxr[c0 + 3];
        d1 = Dxr[c0 + 4];
        d2 = Dxr[c0 + 5];
        G = d->kin_G + 12 * b;
        if (m->body_rtype[b] == RTMBS_ROT_EP) { /* alpha = 0 */
            if (with_phiq) { /* Phi sees R(p/|p|): dpi/dp = 2E(p)/|p|^2, exact in every direction */
                const double s = 1.0 / (q[a + 3] * q[a + 3] + q[a + 4] * q[a + 4] +
                                        q[a + 5] * q[a + 5] + q[a + 6] * q[a + 6]);
                phiq_row(phiq, ld, pr, pa, Dxr, c0, s * d0, s * d1, s * d2, G, 4, add);
            }
        } else {
            const double* al = d->kin_alpha + 3 * b;
            if (with_phiq) phiq_row(phiq, ld, pr, pa, Dxr, c0, d0, d1, d2, G, 3, add);
            g -= d0 * al[0] + d1 * al[1] + d2 * al[2];
        }
    }
    return g;
}

/* Phi_q = D L and gamma = -(beta + D_pi alpha) for the primitive rows (each only when `what`
 * asks for it); Euler-parameter normalisation rows (Phi, gamma always, Phi_q when asked).
 * Phi_q has row stride ld (dense: n; packed: 2 SEG, m1 rows: row r, coupler term e at row
 * nc + e, a normalisation row with its body's p at columns 3..6). */
void rtmbs_scatter_constraints(const rtmbs_model* m, rtmbs_data* d, int64_t what, const double* q,
                               const double* qd, double* phi, double* phiq, int64_t ld,
                               double* gamma) {
    const int with_phiq = (what & RTMBS_EVAL_PHIQ) != 0;
    const int with_gamma = (what & RTMBS_EVAL_GAMMA) != 0;
    const int packed = (what & RTMBS_EVAL_PACKED) != 0;
    const int64_t npr = (with_phiq || with_gamma) ? m->size.nprim : 0; /* Phi only: written */
    const int64_t nb = m->size.nbody;
    int64_t aux = m->size.nc; /* Dx / beta row of the next coupler term */
    int64_t k, r, b;
    int l;
    for (k = 0; k < npr; k++) {
        const int64_t r0 = m->prim_row[k];
        int64_t nrow;
        if (m->prim_type[k] == RTMBS_PRIM_CPL) { /* accumulate the terms of a coupler row */
            double g;
            if (k == 0 || m->prim_type[k - 1] != RTMBS_PRIM_CPL || m->prim_row[k - 1] != r0) {
                gamma[r0] = 0.0;
                if (with_phiq && !packed)
                    for (l = 0; l < ld; l++) phiq[ld * r0 + l] = 0.0;
            }
            g = row_sides(m, d, k, packed ? aux : r0, aux, !packed, packed, with_phiq, q, phiq, ld);
            if (with_gamma) gamma[r0] += g;
            aux++;
            continue;
        }
        nrow = m->prim_type[k] == RTMBS_PRIM_SPH ? 3 : 1;
        for (r = r0; r < r0 + nrow; r++) {
            const double g = row_sides(m, d, k, r, r, 0, packed, with_phiq, q, phiq, ld);
            if (with_gamma) gamma[r] = g;
        }
    }
    for (b = 0; b < nb; b++) {
        const int64_t a = m->body_qadr[b] + 3;
        const int64_t pa = packed ? 3 : a;
        double s = 0.0, sd = 0.0;
        r = m->body_eprow[b];
        if (r < 0) continue;
        for (l = 0; l < 4; l++) {
            s += q[a + l] * q[a + l];
            sd += qd[a + l] * qd[a + l];
            if (with_phiq) phiq[ld * r + pa + l] = 2.0 * q[a + l];
        }
        phi[r] = s - 1.0;
        gamma[r] = -2.0 * sd;
    }
}
