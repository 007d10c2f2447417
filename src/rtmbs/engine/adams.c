/* adams.c -- AB3 (y_{n+1} = y_n + h/12 (23 f_n - 16 f_{n-1} + 5 f_{n-2})) and the pieces of its
 * RK4 start, the operations of rtmbs.solvers.adams (_accel, _ab3_update, _rk4_point) in order. */
#include "adams.h"
#include "dense_lu.h"
#include "stages.h"

double rtmbs_ab3_accel(const double* M, double* LU, int64_t* piv, int factor, const double* Q,
                       double* out, int64_t n) {
    double ok = 1.0;
    int64_t i;
    if (factor) {
        for (i = 0; i < n * n; i++) LU[i] = M[i];
        ok = rtmbs_dense_lu_factor(LU, piv, n);
    }
    for (i = 0; i < n; i++) out[i] = Q[i];
    rtmbs_dense_lu_solve(LU, piv, out, n);
    return ok;
}

void rtmbs_ab3_update(double h, const double* F, int64_t k, double* q, double* v, int64_t n) {
    const double* f0 = F + 2 * n * (k % 3);       /* f_n */
    const double* f1 = F + 2 * n * ((k + 2) % 3); /* f_{n-1} */
    const double* f2 = F + 2 * n * ((k + 1) % 3); /* f_{n-2} */
    const double c = h / 12.0;
    int64_t j;
    for (j = 0; j < n; j++) {
        q[j] += c * (23.0 * f0[j] - 16.0 * f1[j] + 5.0 * f2[j]);
        v[j] += c * (23.0 * f0[n + j] - 16.0 * f1[n + j] + 5.0 * f2[n + j]);
    }
}

void rtmbs_rk4_point(double c, const double* q, const double* v, const double* Kq,
                     const double* Kv, double* qs, double* vs, int64_t n) {
    int64_t j;
    for (j = 0; j < n; j++) {
        qs[j] = q[j] + c * Kq[j];
        vs[j] = v[j] + c * Kv[j];
    }
}

/* (outq, outv) = f(t, q, v) = (v, M^-1 Q) (AB3._f); *ok cleared by a failed factorisation */
static rtmbs_status f_eval(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_ab3_work* w, double t,
                           const double* q, const double* v, double* outq, double* outv,
                           int constant_mass, int* ok) {
    const int64_t n = mdl->size.nq;
    int64_t i;
    rtmbs_status s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_Q | (constant_mass ? 0 : RTMBS_EVAL_M), t,
                                    q, v, w->ws, rtmbs_workspace_size(n, 0));
    if (s != RTMBS_OK) return s;
    if (rtmbs_ab3_accel(w->ws, w->LU, w->piv, !constant_mass, w->ws + n * n, outv, n) == 0.0)
        *ok = 0;
    if (!constant_mass) rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
    rtmbs_count(d, RTMBS_CNT_SOLVE, 1);
    for (i = 0; i < n; i++) outq[i] = v[i];
    return RTMBS_OK;
}

rtmbs_status rtmbs_ab3_step(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_ab3_work* w, double* q,
                            double* v, double t, double h, int64_t k, int constant_mass,
                            int* ok) {
    const int64_t n = mdl->size.nq;
    double* f = w->F + 2 * n * (k % 3);
    double* K = w->K;
    static const double cs[3] = {0.5, 0.5, 1.0};
    double c6;
    int64_t i, j;
    rtmbs_status s;
    *ok = 1;
    if (mdl->size.nc != 0 || k < 0) return RTMBS_ERR_ARGUMENT; /* (an ODE method) */
    s = f_eval(mdl, d, w, t, q, v, f, f + n, constant_mass, ok);
    if (s != RTMBS_OK) return s;
    if (k >= 2) {
        rtmbs_ab3_update(h, w->F, k, q, v, n);
    } else { /* classical RK4 (AB3._rk4), K1 = f_n */
        for (j = 0; j < 2 * n; j++) K[j] = f[j];
        for (i = 1; i < 4; i++) {
            rtmbs_rk4_point(cs[i - 1] * h, q, v, K + 2 * n * (i - 1), K + 2 * n * (i - 1) + n,
                            w->qs, w->vs, n);
            s = f_eval(mdl, d, w, t + cs[i - 1] * h, w->qs, w->vs, K + 2 * n * i,
                       K + 2 * n * i + n, constant_mass, ok);
            if (s != RTMBS_OK) return s;
        }
        c6 = h / 6.0; /* q += h/6 (K1 + 2 K2 + 2 K3 + K4), the same for v */
        for (j = 0; j < n; j++)
            q[j] += c6 * (K[j] + 2.0 * K[2 * n + j] + 2.0 * K[4 * n + j] + K[6 * n + j]);
        for (j = n; j < 2 * n; j++)
            v[j - n] += c6 * (K[j] + 2.0 * K[2 * n + j] + 2.0 * K[4 * n + j] + K[6 * n + j]);
    }
    rtmbs_count(d, RTMBS_CNT_STEP, 1);
    return RTMBS_OK;
}
