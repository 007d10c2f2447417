/* bushing.c -- six-component bushing between two markers (Carpinelli 2015 sec. 4.2.3): stiffness and
 * damping per axis of marker_i on the translation u = B^T d and the small rotation
 * theta = vee(skew(R)), R = B^T B_j (B = A_i C_i, B_j = A_j C_j), with preloads; named outputs:
 * force and torque on body j in marker_i axes. Per axis a the force on j is
 * f_a = -F_a(u_a) - D_a(udot_a) + F0_a (torque alike with theta, thetadot), F_a(u) = k_a u or a
 * table, D_a(udot) = c_a udot or a table; the Jacobians use the local slopes
 * (rtmbs.kernels.elements.bushing). */
#include <math.h>

#include "../functions.h"
#include "base.h"
#include "elements.h"

/* par: translational stiffness (3), damping (3), rotational stiffness (3), damping (3), preload
 * force (3), preload torque (3), all in marker_i axes; then the table index (-1: none) of each
 * of the 12 characteristics in the same order; par[NTAB]: how many tables (0: the linear
 * bushing, a path without table look-ups) */
enum { KT = 0, CT = 3, KR = 6, CR = 9, F0 = 12, T0 = 15, TAB = 18, NTAB = 30 };

/* Column col of B diag(-k) X[0:3] + B diag(-c) X[3:6] (- skew on dpi_i when with_skew) into
 * out_x and of B diag(-c) X[vrow:vrow+3] into out_v, with the (local) stiffnesses kv and
 * dampings cv of one bushing part (X: 9 x 12, B and skew: 3 x 3, out: 3 x 12). */
static void bushing_column(const double* B, const double* X, int col, const double* kv,
                           const double* cv, int vrow, const double* skew, int with_skew,
                           double* out_x, double* out_v) {
    double y0 = -kv[0] * X[col] - cv[0] * X[36 + col];
    double y1 = -kv[1] * X[12 + col] - cv[1] * X[48 + col];
    double y2 = -kv[2] * X[24 + col] - cv[2] * X[60 + col];
    double z0 = -cv[0] * X[12 * vrow + col];
    double z1 = -cv[1] * X[12 * (vrow + 1) + col];
    double z2 = -cv[2] * X[12 * (vrow + 2) + col];
    double sx;
    int a;
    for (a = 0; a < 3; a++) {
        sx = B[3 * a] * y0 + B[3 * a + 1] * y1 + B[3 * a + 2] * y2;
        if (with_skew) sx -= skew[3 * a + col - 3];
        out_x[12 * a + col] = sx;
        out_v[12 * a + col] = B[3 * a] * z0 + B[3 * a + 1] * z1 + B[3 * a + 2] * z2;
    }
}

/* Value and slope of one characteristic: par[lin] x, or its table par[tab] when given. */
static double characteristic(const rtmbs_model* m, double x, const double* par, int lin, int tab,
                             double* slope) {
    int64_t j = (int64_t)par[tab];
    if (j < 0) {
        *slope = par[lin];
        return par[lin] * x;
    }
    return rtmbs_table_eval(x, m->tab_x, m->tab_y, m->tab_adr[j], m->tab_len[j], slope);
}

/* One axis of the law: -(F_k(x) + F_c(xdot)) + F0, F_k and F_c linear (par[k], par[c]) or the
 * tables tab and tab + 3; their slopes into *sk, *sc. */
static double axis_law(const rtmbs_model* m, const double* par, int tables, double x, double xd,
                       int k, int c, int tab, int f0, double* sk, double* sc) {
    double Fk, Fc;
    *sk = par[k];
    *sc = par[c];
    if (!tables) return -(par[k] * x + par[c] * xd) + par[f0];
    Fk = characteristic(m, x, par, k, tab, sk);
    Fc = characteristic(m, xd, par, c, tab + 3, sc);
    return -(Fk + Fc) + par[f0];
}

RTMBS_ELEMENT_KERNEL(rtmbs_element_bushing) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    const double* rot = m->frc_rot + 18 * k;
    const double* Ai = d->kin_A + 9 * bi;
    const double* Aj = d->kin_A + 9 * bj;
    const double* wi = d->kin_w + 3 * bi;
    const double* wj = d->kin_w + 3 * bj;
    const double* dv = RTMBS_TMP(d, 8);
    const double* dd = RTMBS_TMP(d, 9);
    double *w = RTMBS_TMP(d, 11), *v1 = RTMBS_TMP(d, 12), *v2 = RTMBS_TMP(d, 13);
    double *ul = RTMBS_TMP(d, 14), *udl = RTMBS_TMP(d, 15), *fl = RTMBS_TMP(d, 16);
    double *th = RTMBS_TMP(d, 17), *thd = RTMBS_TMP(d, 18), *tl = RTMBS_TMP(d, 19);
    double *Om = RTMBS_TMP(d, 20), *oml = RTMBS_TMP(d, 21), *Rw = RTMBS_TMP(d, 22);
    double *ba = RTMBS_TMP(d, 24), *cr = RTMBS_TMP(d, 25), *cr2 = RTMBS_TMP(d, 26);
    /* local slopes (Jacobians) */
    double *skt = RTMBS_TMP(d, 27), *sct = RTMBS_TMP(d, 28), *skr = RTMBS_TMP(d, 29),
           *scr = RTMBS_TMP(d, 30);
    double *B = RTMBS_S(d, 4), *Bj = RTMBS_S(d, 5), *R = RTMBS_S(d, 6), *Th = RTMBS_S(d, 7);
    double *Z = RTMBS_S(d, 14), *TB = RTMBS_S(d, 15);
    double* X = d->X;
    double s1, s2, trR, out, dth, zb, tw;
    int a, b, c, col, kk, tables;
    (void)fv;
    /* marker frames B = A_i C_i, Bj = A_j C_j */
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            s1 = 0.0;
            s2 = 0.0;
            for (c = 0; c < 3; c++) {
                s1 += Ai[3 * a + c] * rot[3 * c + b];
                s2 += Aj[3 * a + c] * rot[9 + 3 * c + b];
            }
            B[3 * a + b] = s1;
            Bj[3 * a + b] = s2;
        }
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            s1 = 0.0;
            for (c = 0; c < 3; c++) s1 += B[3 * c + a] * Bj[3 * c + b];
            R[3 * a + b] = s1;
        }
    /* translation: u = B^T d, udot = B^T (ddot - w_i x d) */
    rtmbs_el_cross(wi, dv, v1);
    for (c = 0; c < 3; c++) w[c] = dd[c] - v1[c];
    tables = par[NTAB] != 0.0;
    for (a = 0; a < 3; a++) {
        ul[a] = B[a] * dv[0] + B[3 + a] * dv[1] + B[6 + a] * dv[2];
        udl[a] = B[a] * w[0] + B[3 + a] * w[1] + B[6 + a] * w[2];
        fl[a] = axis_law(m, par, tables, ul[a], udl[a], KT + a, CT + a, TAB + a, F0 + a, &skt[a],
                         &sct[a]);
    }
    rtmbs_el_matvec(B, fl, d->f);
    /* rotation: theta = vee(skew(R)), thetadot = Theta B^T Om with Theta = (tr R I - R) / 2 */
    th[0] = 0.5 * (R[7] - R[5]);
    th[1] = 0.5 * (R[2] - R[6]);
    th[2] = 0.5 * (R[3] - R[1]);
    trR = R[0] + R[4] + R[8];
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) Th[3 * a + b] = 0.5 * ((a == b ? trR : 0.0) - R[3 * a + b]);
    for (c = 0; c < 3; c++) Om[c] = wj[c] - wi[c];
    for (a = 0; a < 3; a++) oml[a] = B[a] * Om[0] + B[3 + a] * Om[1] + B[6 + a] * Om[2];
    rtmbs_el_matvec(Th, oml, thd);
    for (a = 0; a < 3; a++) {
        tl[a] = axis_law(m, par, tables, th[a], thd[a], KR + a, CR + a, TAB + 6 + a, T0 + a,
                         &skr[a], &scr[a]);
    }
    rtmbs_el_matvec(B, tl, d->tau);
    out = sqrt(rtmbs_el_dot(d->f, d->f));
    for (c = 0; c < 3; c++) { /* force and torque on body j in marker_i axes (named outputs) */
        outs[c] = fl[c];
        outs[3 + c] = tl[c];
    }
    if (!with_jac) return out;
    /* X rows 0-2: du_l/dx = B^T [-I, ~arm_i, I, -~sg_j], rows 3-5: dudot_l/dx (without the dB
     * term on dpi_i, below) = B^T [~w_i, ~w, -~w_i, (~w_i - ~w_j) ~sg_j], rows 6-8: dudot_l/dv =
     * rows 0-2; row a of B^T ~v is (b_a x v)^T with b_a = B[:, a] */
    for (c = 0; c < 3; c++) v2[c] = wi[c] - wj[c];
    for (a = 0; a < 3; a++) {
        for (c = 0; c < 3; c++) {
            X[12 * a + c] = -B[3 * c + a];
            X[12 * a + 6 + c] = B[3 * c + a];
            X[12 * (3 + a) + 6 + c] = 0.0;
        }
        ba[0] = B[a];
        ba[1] = B[3 + a];
        ba[2] = B[6 + a];
        rtmbs_el_cross(ba, d->arm_i, cr);
        for (c = 0; c < 3; c++) X[12 * a + 3 + c] = cr[c];
        rtmbs_el_cross(ba, d->sgj, cr);
        for (c = 0; c < 3; c++) X[12 * a + 9 + c] = -cr[c];
        rtmbs_el_cross(ba, wi, cr);
        for (c = 0; c < 3; c++) {
            X[12 * (3 + a) + c] = cr[c];
            X[12 * (3 + a) + 6 + c] = -cr[c];
        }
        rtmbs_el_cross(ba, w, cr);
        for (c = 0; c < 3; c++) X[12 * (3 + a) + 3 + c] = cr[c];
        rtmbs_el_cross(ba, v2, cr2);
        rtmbs_el_cross(cr2, d->sgj, cr);
        for (c = 0; c < 3; c++) X[12 * (3 + a) + 9 + c] = cr[c];
    }
    /* df/dx = -~f [0, I, 0, 0] + B diag(-kt) du/dx + B diag(-ct) dudot/dx ; df/dv = B diag(-ct)
     * dudot/dv with dudot/dv = du/dx (rows 0-2 of X); the columns of dr_j are minus those of dr_i */
    rtmbs_el_skew(d->f, RTMBS_S(d, 13));
    for (col = 0; col < 12; col++)
        if (!(6 <= col && col < 9))
            bushing_column(B, X, col, skt, sct, 0, RTMBS_S(d, 13), 3 <= col && col < 6, d->dfdx,
                           d->dfdv);
    for (a = 0; a < 3; a++)
        for (c = 0; c < 3; c++) {
            d->dfdx[12 * a + 6 + c] = -d->dfdx[12 * a + c];
            d->dfdv[12 * a + 6 + c] = -d->dfdv[12 * a + c];
        }
    /* rotation: dtheta/dx = Theta B^T [0, -I, 0, I]; dthetadot/dx = Z B^T [0, -I, 0, I]
     * + Theta B^T ~Om [0, I, 0, 0] with Z e_k = Theta (~e_k R) w_l; dthetadot/dv = Theta B^T
     * [0, -I, 0, I] */
    rtmbs_el_matvec(R, oml, Rw);
    /* tr(~e_k R) = -2 theta_k and e_k x R w = -(~(R w))[:, k] */
    rtmbs_el_skew(Rw, RTMBS_S(d, 16));
    for (kk = 0; kk < 3; kk++)
        for (a = 0; a < 3; a++) Z[3 * a + kk] = -th[kk] * oml[a] + 0.5 * RTMBS_S(d, 16)[3 * a + kk];
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            s1 = 0.0;
            for (c = 0; c < 3; c++) s1 += Th[3 * a + c] * B[3 * b + c];
            TB[3 * a + b] = s1; /* Theta B^T */
        }
    rtmbs_el_skew(Om, RTMBS_S(d, 16));
    rtmbs_el_skew(d->tau, RTMBS_S(d, 17));
    for (a = 0; a < 3; a++)
        for (b = 0; b < 3; b++) {
            dth = TB[3 * a + b]; /* dtheta/dpi_j ; -dtheta/dpi_i */
            zb = 0.0;
            tw = 0.0;
            for (c = 0; c < 3; c++) {
                zb += Z[3 * a + c] * B[3 * b + c];
                tw += TB[3 * a + c] * RTMBS_S(d, 16)[3 * c + b];
            }
            X[12 * a + 3 + b] = -dth;
            X[12 * a + 9 + b] = dth;
            X[12 * (3 + a) + 3 + b] = -zb + tw;
            X[12 * (3 + a) + 9 + b] = zb;
            X[12 * (6 + a) + 3 + b] = -dth;
            X[12 * (6 + a) + 9 + b] = dth;
        }
    for (col = 0; col < 12; col++) {
        if (col < 3 || (6 <= col && col < 9)) { /* no dependence on the positions */
            for (a = 0; a < 3; a++) {
                d->dtdx[12 * a + col] = 0.0;
                d->dtdv[12 * a + col] = 0.0;
            }
        } else {
            bushing_column(B, X, col, skr, scr, 6, RTMBS_S(d, 17), col < 6, d->dtdx, d->dtdv);
        }
    }
    return out;
}
