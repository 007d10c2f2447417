/* synthesis_common.c -- linear algebra and forces shared by the synthesis providers. */
#include "synthesis_common.h"

#include <math.h>

#include "../dense_lu.h"
#include "../functions.h"

void rtmbs_syn_mm3(const double* a, const double* b, double* c) {
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            c[3 * i + j] = a[3 * i] * b[j] + a[3 * i + 1] * b[3 + j] + a[3 * i + 2] * b[6 + j];
}

void rtmbs_syn_mmt3(const double* a, const double* b, double* c) {
    int i, j;
    for (i = 0; i < 3; i++)
        for (j = 0; j < 3; j++)
            c[3 * i + j] = a[3 * i] * b[3 * j] + a[3 * i + 1] * b[3 * j + 1]
                           + a[3 * i + 2] * b[3 * j + 2];
}

void rtmbs_syn_mv3(const double* a, const double* x, double* y) {
    int i;
    for (i = 0; i < 3; i++) y[i] = a[3 * i] * x[0] + a[3 * i + 1] * x[1] + a[3 * i + 2] * x[2];
}

void rtmbs_syn_mtv3(const double* a, const double* x, double* y) {
    int i;
    for (i = 0; i < 3; i++) y[i] = a[i] * x[0] + a[3 + i] * x[1] + a[6 + i] * x[2];
}

void rtmbs_syn_cross(const double* a, const double* b, double* c) {
    c[0] = a[1] * b[2] - a[2] * b[1];
    c[1] = a[2] * b[0] - a[0] * b[2];
    c[2] = a[0] * b[1] - a[1] * b[0];
}

double rtmbs_syn_dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

void rtmbs_syn_skew(const double* v, double* S) {
    S[0] = 0.0; S[1] = -v[2]; S[2] = v[1];
    S[3] = v[2]; S[4] = 0.0; S[5] = -v[0];
    S[6] = -v[1]; S[7] = v[0]; S[8] = 0.0;
}

rtmbs_status rtmbs_syn_solve(double* a, int64_t* piv, double* b, int64_t n) {
    if (!(rtmbs_dense_lu_factor(a, piv, n) > 0.0)) return RTMBS_ERR_SINGULAR;
    rtmbs_dense_lu_solve(a, piv, b, n);
    return RTMBS_OK;
}

rtmbs_status rtmbs_syn_forces_check(const int64_t* kind, const int64_t* bi, const int64_t* bj,
                                    const int64_t* adr, const int64_t* len, int64_t nf,
                                    int64_t nb, int64_t nops) {
    int64_t e;
    for (e = 0; e < nf; e++) {
        if (kind[e] < 0) continue;
        if (kind[e] > 1 || bi[e] < -2 || bi[e] == -1 || bi[e] > nb || bj[e] < -2 || bj[e] == -1
            || bj[e] > nb || adr[e] < 0 || len[e] < 0 || adr[e] + len[e] > nops)
            return RTMBS_ERR_ARGUMENT;
    }
    return RTMBS_OK;
}

void rtmbs_syn_forces_gf(const rtmbs_syn_forces* fe, double t, const double* q, const double* qd,
                         int64_t nb, int64_t nbase, const double* rg, const double* Ag,
                         const double* rdg, const double* wg, const double* mass, double m0,
                         const double* r0i, const double* S, const double* A0, const double* grav,
                         const double* w0, double* gf, double* Q0) {
    double r0[3], v0[3], P[2][3], V[2][3], sg[3], tmp[3], dv[3], ddv[3], Fi[3], F[3];
    double L, Ld, T, mag, d1, d2;
    int64_t e, k, kk, j;
    int i, side;
    for (i = 0; i < 3; i++) {
        r0[i] = r0i[i];
        v0[i] = 0.0;
        for (j = 0; j < nbase; j++) {
            r0[i] += S[nbase * i + j] * q[j];
            v0[i] += S[nbase * i + j] * qd[j];
        }
    }
    for (i = 0; i < 6; i++) Q0[i] = 0.0;
    for (i = 0; i < 3; i++) Q0[i] = m0 * grav[i];
    for (k = 0; k < nb; k++)
        for (i = 0; i < 6; i++) gf[6 * k + i] = i < 3 ? mass[k] * grav[i] : 0.0;
    for (e = 0; e < fe->nf; e++) {
        if (fe->kind[e] < 0) continue;          /* padding (stacked subsystems) */
        for (side = 0; side < 2; side++) {
            const double* s = side == 0 ? fe->si + 3 * e : fe->sj + 3 * e;
            kk = side == 0 ? fe->bi[e] : fe->bj[e];
            for (i = 0; i < 3; i++) {
                P[side][i] = 0.0;
                V[side][i] = 0.0;
            }
            if (kk == -2) {
                for (i = 0; i < 3; i++) P[side][i] = s[i];
            } else if (kk == nb) {
                rtmbs_syn_mv3(A0, s, sg);
                rtmbs_syn_cross(w0, sg, tmp);
                for (i = 0; i < 3; i++) {
                    P[side][i] = r0[i] + sg[i];
                    V[side][i] = v0[i] + tmp[i];
                }
            } else {
                rtmbs_syn_mv3(Ag + 9 * kk, s, sg);
                rtmbs_syn_cross(wg + 3 * kk, sg, tmp);
                for (i = 0; i < 3; i++) {
                    P[side][i] = r0[i] + rg[3 * kk + i] + sg[i];
                    V[side][i] = v0[i] + rdg[3 * kk + i] + tmp[i];
                }
            }
        }
        if (fe->kind[e] == 0) {
            for (i = 0; i < 3; i++) {
                dv[i] = P[1][i] - P[0][i];
                ddv[i] = V[1][i] - V[0][i];
            }
            L = sqrt(rtmbs_syn_dot3(dv, dv));
            Ld = rtmbs_syn_dot3(dv, ddv) / L;
            T = fe->par[5 * e] * (L - fe->par[5 * e + 2]) + fe->par[5 * e + 1] * Ld
                + fe->par[5 * e + 3];
            for (i = 0; i < 3; i++) Fi[i] = (T / L) * dv[i];   /* on i; -Fi on j */
        } else {
            mag = fe->par[5 * e + 4];
            if (fe->len[e] > 0) rtmbs_expr_eval(t, fe->ops, fe->args, fe->adr[e], fe->len[e], &mag,
                                                &d1, &d2);
            for (i = 0; i < 3; i++) Fi[i] = -mag * fe->dir[3 * e + i];   /* f(t) e acts on j */
        }
        for (side = 0; side < 2; side++) {
            const double* s = side == 0 ? fe->si + 3 * e : fe->sj + 3 * e;
            if (fe->kind[e] == 1 && side == 0) continue;
            kk = side == 0 ? fe->bi[e] : fe->bj[e];
            for (i = 0; i < 3; i++) F[i] = side == 0 ? Fi[i] : -Fi[i];
            if (kk == nb) {
                rtmbs_syn_mv3(A0, s, sg);
                rtmbs_syn_cross(sg, F, tmp);       /* about the CG, global axes */
                for (i = 0; i < 3; i++) {
                    Q0[i] += F[i];
                    Q0[3 + i] += tmp[i];
                }
            } else if (kk >= 0) {
                rtmbs_syn_mv3(Ag + 9 * kk, s, sg);
                rtmbs_syn_cross(sg, F, tmp);
                for (i = 0; i < 3; i++) {
                    gf[6 * kk + i] += F[i];
                    gf[6 * kk + 3 + i] += tmp[i];
                }
            }
        }
    }
}

int64_t rtmbs_syn_workspace_work(int64_t n) {
    return n * n + 5 * n;
}

rtmbs_status rtmbs_syn_workspace(rtmbs_syn_eval eval, const rtmbs_syn_call* c, int64_t n,
                                 double t, const double* q, const double* qd, double eps, int what,
                                 double* work, double* ws) {
    double *M = ws, *Q = ws + n * n, *Jq = Q + n, *Jqd = Jq + n * n;
    double *Mt = work, *Q0 = Mt + n * n, *Qt = Q0 + n, *qdd = Qt + n, *x = qdd + n, *xd = x + n;
    double e;
    int64_t i, k;
    int side;
    rtmbs_status st;
    if ((st = eval(c, t, q, qd, Mt, Q0, qdd)) != RTMBS_OK) return st;
    if (what & RTMBS_EVAL_M)
        for (i = 0; i < n * n; i++) M[i] = Mt[i];
    if (what & RTMBS_EVAL_Q)
        for (i = 0; i < n; i++) Q[i] = Q0[i];
    if (!(what & (RTMBS_EVAL_JAC | RTMBS_EVAL_JACS))) return RTMBS_OK;
    for (i = 0; i < n; i++) {
        x[i] = q[i];
        xd[i] = qd[i];
    }
    for (k = 0; k < n; k++)
        for (side = 0; side < 2; side++) {
            double* v = side == 0 ? x : xd;
            double* J = side == 0 ? Jq : Jqd;
            const double v0 = v[k];
            e = eps * (fabs(v0) > 1.0 ? fabs(v0) : 1.0);
            v[k] = v0 + e;
            st = eval(c, t, x, xd, Mt, Qt, qdd);
            v[k] = v0;
            if (st != RTMBS_OK) return st;
            for (i = 0; i < n; i++) J[n * i + k] = (Qt[i] - Q0[i]) / e;
        }
    return eval(c, t, q, qd, Mt, Qt, qdd);
}

rtmbs_status rtmbs_syn_take_tail(const double* par, int64_t npar, int64_t f, int64_t ne,
                                 int64_t nops, int64_t nbase, rtmbs_syn_tail* t) {
    t->fsi = par + f;
    t->fsj = t->fsi + ne * 3;
    t->fdir = t->fsj + ne * 3;
    t->fpar = t->fdir + ne * 3;
    t->fops = t->fpar + ne * 5;
    t->fargs = t->fops + nops;
    f += ne * 14 + 2 * nops;
    if (npar < f + 1 + 9 + 3 + 6 * nbase + 9 + 3) return RTMBS_ERR_SIZE;
    t->m0 = par[f];
    t->J0 = par + f + 1;
    t->r0i = t->J0 + 9;
    t->S = t->r0i + 3;
    t->A0 = t->S + 6 * nbase;
    t->grav = t->A0 + 9;
    return RTMBS_OK;
}
