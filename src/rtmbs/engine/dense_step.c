/* dense_step.c -- the stages every dense step of a provider shares (dense_step.h): li-euler's
 * (li_euler_dense.c) and generalized-alpha's (alpha_dense.c). The arithmetic of
 * rtmbs.solvers.dense in its order; numpy's matrix-vector products (BLAS) are plain loops in the
 * steps, so the two agree to round-off, not bit for bit. */
#include <string.h>

#include "dense_lu.h"
#include "dense_step.h"
#include "fixed_rollout.h"

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

/* -- the rollout: a dense step in the loop every fixed-step rollout shares (fixed_rollout.c) */

typedef struct dense_call_ {
    const rtmbs_provider* p;
    const rtmbs_dense_work* w;
    const void* opt;
    rtmbs_dense_step_fn step;
} dense_call;

static rtmbs_status dense_step(const rtmbs_step_args* a, double t, int* ok) {
    const dense_call* c = (const dense_call*)a->opt;
    return c->step(c->p, a->d, c->w, a->q, a->qd, t, c->opt, ok);
}

static rtmbs_status dense_outputs(const rtmbs_step_args* a, double t, const int64_t* oidx,
                                  int64_t nout, double* out) {
    const rtmbs_provider* p = ((const dense_call*)a->opt)->p;
    if (!p->outputs) return RTMBS_ERR_ARGUMENT;
    return p->outputs(p->ctx, t, a->q, a->qd, oidx, nout, out);
}

rtmbs_status rtmbs_dense_rollout(const rtmbs_provider* p, rtmbs_data* d,
                                 const rtmbs_dense_work* w, double* q, double* qd,
                                 const void* opt, rtmbs_dense_step_fn step, const double* lam,
                                 double h, const rtmbs_rollout* ro, int64_t* done) {
    const dense_call c = {p, w, opt, step};
    rtmbs_model sizes; /* (a provider has no compiled model: the loop reads its sizes) */
    rtmbs_step_args a = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL};
    *done = 0;
    if (ro->nchan != 0) return RTMBS_ERR_ARGUMENT;
    memset(&sizes, 0, sizeof(sizes));
    sizes.size.nq = p->n;
    sizes.size.nc = p->m;
    a.mdl = &sizes;
    a.d = d;
    a.vec = w->vec;
    a.q = q;
    a.qd = qd;
    a.opt = &c;
    a.outputs = dense_outputs;
    return rtmbs_fixed_rollout(&a, dense_step, lam, h, ro, done);
}
