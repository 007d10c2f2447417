/* dense_step.c -- the stages every dense step of a provider shares (dense_step.h): li-euler's
 * (li_euler_dense.c) and generalized-alpha's (alpha_dense.c). The arithmetic of
 * rtmbs.solvers.dense in its order; numpy's matrix-vector products (BLAS) are plain loops in the
 * steps, so the two agree to round-off, not bit for bit. */
#include <string.h>

#include "dense_lu.h"
#include "dense_step.h"

void rtmbs_dense_views(double* ws, int64_t n, int64_t m, rtmbs_dense_ws* v) {
    v->M = ws;
    v->Q = v->M + n * n;
    v->phi = v->Q + n;
    v->phiq = v->phi + m;
    v->phit = v->phiq + m * n;
    v->Jq = v->phit + 2 * m; /* (after gamma) */
    v->Jqd = v->Jq + n * n;
}

void rtmbs_provider_data(rtmbs_data* d, double* counter, double* warning) {
    memset(d, 0, sizeof(*d));
    d->counter = counter;
    d->warning = warning;
}

rtmbs_status rtmbs_dense_evaluate(const rtmbs_provider* p, rtmbs_data* d, double t,
                                  const double* q, const double* qd, int64_t what, double* ws) {
    rtmbs_count(d, RTMBS_CNT_EVAL, 1);
    return p->evaluate(p->ctx, t, q, qd, (int)what, ws);
}

rtmbs_status rtmbs_dense_failed(rtmbs_data* d, rtmbs_status s, double t, double* diag) {
    diag[0] = 0.0;
    if (s != RTMBS_ERR_NONFINITE) return s;
    rtmbs_warn(d, RTMBS_WARN_NONFINITE, -1, t);
    return RTMBS_OK;
}

void rtmbs_dense_assemble(double* K, const rtmbs_dense_ws* v, int with_jac, double cd, double c,
                          const double* top, double s, const double* bottom, int64_t n,
                          int64_t m) {
    const int64_t N = n + m;
    int64_t i, j, k;
    for (i = 0; i < n; i++) {
        for (j = 0; j < n; j++)
            K[i * N + j] = with_jac ? (v->Jqd[i * n + j] * -cd + v->M[i * n + j]) -
                                          c * v->Jq[i * n + j]
                                    : v->M[i * n + j];
        for (k = 0; k < m; k++) K[i * N + n + k] = s * top[k * n + i];
    }
    for (k = 0; k < m; k++) {
        for (j = 0; j < n; j++) K[(n + k) * N + j] = bottom[k * n + j];
        for (j = 0; j < m; j++) K[(n + k) * N + n + j] = 0.0;
    }
}

double rtmbs_dense_factor(rtmbs_data* d, double* K, int64_t* piv, int64_t N, double t) {
    double ratio = rtmbs_dense_lu_factor(K, piv, N);
    rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
    rtmbs_count(d, RTMBS_CNT_FLOP, rtmbs_dense_lu_flops_factor(N));
    if (ratio == 0.0) rtmbs_warn(d, RTMBS_WARN_SINGULAR, -1, t);
    return ratio;
}

void rtmbs_dense_solve(rtmbs_data* d, const double* K, const int64_t* piv, double* b, int64_t N) {
    rtmbs_dense_lu_solve(K, piv, b, N);
    rtmbs_count(d, RTMBS_CNT_SOLVE, 1);
    rtmbs_count(d, RTMBS_CNT_FLOP, rtmbs_dense_lu_flops_solve(N));
}

void rtmbs_dense_correction(rtmbs_data* d, const double* K, const int64_t* piv, const double* phi,
                            double* prhs, double* dq, int64_t n, int64_t m) {
    int64_t i;
    for (i = 0; i < n; i++) prhs[i] = 0.0;
    for (i = 0; i < m; i++) prhs[n + i] = -phi[i];
    rtmbs_dense_solve(d, K, piv, prhs, n + m);
    for (i = 0; i < n; i++) dq[i] += prhs[i];
}
