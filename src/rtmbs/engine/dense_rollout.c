/* dense_rollout.c -- many dense steps of a provider in one call (dense_rollout.h). */
#include <string.h>

#include "dense_rollout.h"
#include "fixed_rollout.h"

typedef struct dense_call_ {
    const rtmbs_provider* p;
    const rtmbs_dense_work* w;
    int method;
    const void* opt;
} dense_call;

static rtmbs_status dense_step(const rtmbs_step_args* a, double t, int* ok) {
    const dense_call* c = (const dense_call*)a->opt;
    double diag[2];
    rtmbs_status s;
    switch (c->method) {
        case RTMBS_DENSE_ALPHA:
            s = rtmbs_alpha_dense_step(c->p, a->d, c->w, a->q, a->qd, t,
                                       (const rtmbs_alpha_options*)c->opt, diag);
            break;
        default:
            s = rtmbs_li_euler_dense_step(c->p, a->d, c->w, a->q, a->qd, t,
                                          (const rtmbs_li_euler_options*)c->opt, diag);
    }
    *ok = diag[0] != 0.0 && diag[1] != 0.0;
    return s;
}

static rtmbs_status dense_outputs(const rtmbs_step_args* a, double t, const int64_t* oidx,
                                  int64_t nout, double* out) {
    const rtmbs_provider* p = ((const dense_call*)a->opt)->p;
    if (!p->outputs) return RTMBS_ERR_ARGUMENT;
    return p->outputs(p->ctx, t, a->q, a->qd, oidx, nout, out);
}

rtmbs_status rtmbs_dense_rollout(const rtmbs_provider* p, rtmbs_data* d,
                                 const rtmbs_dense_work* w, double* q, double* qd, int method,
                                 const void* opt, const rtmbs_rollout* ro, int64_t* done) {
    const int alpha = method == RTMBS_DENSE_ALPHA;
    const dense_call c = {p, w, method, opt};
    const int64_t nvec = alpha ? RTMBS_ALPHA_VEC(p->n, p->m) : RTMBS_LI_EULER_VEC(p->n, p->m);
    const double h = alpha ? ((const rtmbs_alpha_options*)opt)->h
                           : ((const rtmbs_li_euler_options*)opt)->h;
    rtmbs_model sizes; /* (a provider has no compiled model: the loop reads its sizes) */
    rtmbs_step_args a = {NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL,
                         NULL};
    *done = 0;
    if (ro->nchan != 0 || (method != RTMBS_DENSE_LI_EULER && !alpha)) return RTMBS_ERR_ARGUMENT;
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
    return rtmbs_fixed_rollout(&a, dense_step, w->vec + nvec - p->m, h, ro, done);
}
