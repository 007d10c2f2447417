/* rosenbrock.c -- the stages of GRK4T (Kaps and Rentrop 1979) in the transformed form of Hairer's
 * ROS4 with mass matrix (Hairer-Wanner IV.7, eq. 7.25), partitioned as Truck benchmark eqs. 3-4:
 *
 *   A = M - h gamma dQ/dv - (h gamma)^2 dQ/dq,
 *   A u_v = h gamma (Q_s + h d_i Q_t + M sum c_ij/h u_v,j) + (h gamma)^2 dQ/dq r_q,
 *   r_q = v_s + sum c_ij/h u_q,j,   u_q = h gamma (r_q + u_v),   y+ = y + sum b_i u_i.
 *
 * The operations of rtmbs.solvers.rosenbrock (_grk_factor, _grk_stage, _mass_scale) in order. */
#include <math.h>

#include "dense_lu.h"
#include "rosenbrock.h"
#include "stages.h"

/* GRK4T (rosenbrock.py A*, C*, B*, D*) */
#define A21 2.0
#define A31 4.524708207373116
#define A32 4.163528788597648
#define C21 -5.071675338776316
#define C31 6.020152728650786
#define C32 0.1597506846727117
#define C41 -1.856343618686113
#define C42 -8.505380858179826
#define C43 -2.084075136023187
#define B1 3.957503746640777
#define B2 4.624892388363313
#define B3 0.6174772638750108
#define B4 1.282612945269037
#define D1 0.231
#define D2 -0.03962966775244303
#define D3 0.5507789395789127
#define D4 -0.05535098457052764
#define C2 0.462
#define C3 0.8802083333333334

int rtmbs_grk_factor(double h, const double* M, const double* Jq, const double* Jqd, double* LU,
                     int64_t* piv, int64_t n) {
    const double hg = h * RTMBS_GRK_GAMMA;
    int64_t i;
    for (i = 0; i < n * n; i++) LU[i] = M[i] - hg * Jqd[i] - hg * hg * Jq[i];
    return rtmbs_dense_lu_factor(LU, piv, n) > 0.0;
}

/* u_q (p = 0) or u_v (p = 1) of stage s, entry k */
#define UQ(s, k) U[(2 * (s)) * n + (k)]
#define UV(s, k) U[(2 * (s) + 1) * n + (k)]

void rtmbs_grk_stage(int64_t i, double h, const double* M, const double* LU, const int64_t* piv,
                     const double* Jq, const double* Qs, const double* Qt, double* U, double* q,
                     double* v, const double* vin, double* qs, double* vs, double* rq, double* rv,
                     int64_t n) {
    const double hg = h * RTMBS_GRK_GAMMA;
    const double d = i == 0 ? D1 : i == 1 ? D2 : i == 2 ? D3 : D4;
    double cq, cv, acc;
    int64_t j, k;
    /* r_q = v_s + sum c_ij/h u_q,j; w = sum c_ij/h u_v,j (times M below) */
    for (k = 0; k < n; k++) {
        cq = 0.0;
        cv = 0.0;
        if (i == 1) {
            cq = C21 * UQ(0, k);
            cv = C21 * UV(0, k);
        } else if (i == 2) {
            cq = C31 * UQ(0, k) + C32 * UQ(1, k);
            cv = C31 * UV(0, k) + C32 * UV(1, k);
        } else if (i == 3) {
            cq = C41 * UQ(0, k) + C42 * UQ(1, k) + C43 * UQ(2, k);
            cv = C41 * UV(0, k) + C42 * UV(1, k) + C43 * UV(2, k);
        }
        rq[k] = vin[k] + cq / h;
        rv[k] = cv / h;
    }
    /* A u_v = h gamma (Q_s + h d Q_t + M w) + (h gamma)^2 Jq r_q */
    for (k = 0; k < n; k++) {
        acc = Qs[k] + h * d * Qt[k];
        for (j = 0; j < n; j++) acc += M[k * n + j] * rv[j] + hg * Jq[k * n + j] * rq[j];
        UV(i, k) = hg * acc;
    }
    rtmbs_dense_lu_solve(LU, piv, &UV(i, 0), n);
    for (k = 0; k < n; k++) UQ(i, k) = hg * (rq[k] + UV(i, k));
    if (i == 0) {
        for (k = 0; k < n; k++) {
            qs[k] = q[k] + A21 * UQ(0, k);
            vs[k] = v[k] + A21 * UV(0, k);
        }
    } else if (i == 1) {
        for (k = 0; k < n; k++) {
            qs[k] = q[k] + A31 * UQ(0, k) + A32 * UQ(1, k);
            vs[k] = v[k] + A31 * UV(0, k) + A32 * UV(1, k);
        }
    } else if (i == 3) {
        for (k = 0; k < n; k++) {
            q[k] += B1 * UQ(0, k) + B2 * UQ(1, k) + B3 * UQ(2, k) + B4 * UQ(3, k);
            v[k] += B1 * UV(0, k) + B2 * UV(1, k) + B3 * UV(2, k) + B4 * UV(3, k);
        }
    }
}

int rtmbs_grk_mass_scale(const double* Mn, const double* Ms, double* LUm, int64_t* pivm,
                         double* Qs, double* tmp, int64_t n) {
    double acc;
    int64_t i, j;
    int ok;
    for (i = 0; i < n * n; i++) LUm[i] = Ms[i];
    ok = rtmbs_dense_lu_factor(LUm, pivm, n) > 0.0;
    rtmbs_dense_lu_solve(LUm, pivm, Qs, n);
    for (i = 0; i < n; i++) {
        acc = 0.0;
        for (j = 0; j < n; j++) acc += Mn[i * n + j] * Qs[j];
        tmp[i] = acc;
    }
    for (i = 0; i < n; i++) Qs[i] = tmp[i];
    return ok;
}

/* Q at a stage argument into ws_s (scaled by M_n M_s^-1 when M depends on q):
 * GRK4T._stage_forces */
static rtmbs_status stage_forces(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_grk4t_work* w,
                                 double t, const rtmbs_grk4t_options* opt, int64_t n,
                                 int64_t nw, double** Qs) {
    rtmbs_status s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_Q | (opt->constant_mass ? 0 : RTMBS_EVAL_M),
                                    t, w->qs, w->vs, w->ws_s, nw);
    if (s != RTMBS_OK) return s;
    *Qs = w->ws_s + n * n;
    if (!opt->constant_mass) {
        rtmbs_grk_mass_scale(w->Mn, w->ws_s, w->LUm, w->pivm, *Qs, w->tmp, n);
        rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
        rtmbs_count(d, RTMBS_CNT_SOLVE, 1);
    }
    return RTMBS_OK;
}

rtmbs_status rtmbs_grk4t_step(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_grk4t_work* w,
                              double* q, double* v, double t, const rtmbs_grk4t_options* opt,
                              int* ok) {
    const int64_t n = mdl->size.nq, m = mdl->size.nc;
    const int64_t nw = rtmbs_workspace_size(n, m);
    const double h = opt->h;
    const double* M = w->ws;          /* dense workspace: M (n x n), Q, ..., Jq, Jqd */
    const double* Q0 = w->ws + n * n;
    const double* Jq = w->ws + n * n + n; /* (m = 0: Phi, Phi_q, Phi_t, gamma are empty) */
    const double* Jqd = Jq + n * n;
    double* Qs;
    double dt, inv;
    int64_t i;
    rtmbs_status s;
    *ok = 0;
    if (m != 0) return RTMBS_ERR_ARGUMENT; /* (an ODE method) */
    s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_Q | opt->jac_what | (opt->constant_mass ? 0 : RTMBS_EVAL_M),
                       t, q, v, w->ws, nw);
    if (s != RTMBS_OK) return s;
    if (!opt->constant_mass)
        for (i = 0; i < n * n; i++) w->Mn[i] = M[i];
    if (!opt->freeze_jq)
        for (i = 0; i < n * n; i++) w->Jq[i] = Jq[i];
    if (opt->time_derivative) { /* dQ/dt by a forward difference */
        dt = 1e-7 * (fabs(t) > 1.0 ? fabs(t) : 1.0);
        s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_Q, t + dt, q, v, w->ws_t, nw);
        if (s != RTMBS_OK) return s;
        inv = 1.0 / dt;
        for (i = 0; i < n; i++) w->Qt[i] = (w->ws_t[n * n + i] - Q0[i]) * inv;
    }
    rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
    if (!rtmbs_grk_factor(h, w->Mn, w->Jq, Jqd, w->LU, w->piv, n)) {
        rtmbs_count(d, RTMBS_CNT_STEP, 1);
        return RTMBS_OK;
    }
    rtmbs_grk_stage(0, h, w->Mn, w->LU, w->piv, w->Jq, Q0, w->Qt, w->U, q, v, v, w->qs, w->vs,
                    w->rq, w->rv, n);
    s = stage_forces(mdl, d, w, t + C2 * h, opt, n, nw, &Qs);
    if (s != RTMBS_OK) return s;
    rtmbs_grk_stage(1, h, w->Mn, w->LU, w->piv, w->Jq, Qs, w->Qt, w->U, q, v, w->vs, w->qs,
                    w->vs, w->rq, w->rv, n);
    s = stage_forces(mdl, d, w, t + C3 * h, opt, n, nw, &Qs);
    if (s != RTMBS_OK) return s;
    rtmbs_grk_stage(2, h, w->Mn, w->LU, w->piv, w->Jq, Qs, w->Qt, w->U, q, v, w->vs, w->qs,
                    w->vs, w->rq, w->rv, n);
    rtmbs_grk_stage(3, h, w->Mn, w->LU, w->piv, w->Jq, Qs, w->Qt, w->U, q, v, w->vs, w->qs,
                    w->vs, w->rq, w->rv, n);
    rtmbs_count(d, RTMBS_CNT_SOLVE, 4);
    rtmbs_count(d, RTMBS_CNT_STEP, 1);
    *ok = 1;
    return RTMBS_OK;
}
