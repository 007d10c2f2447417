/* rollout.c -- li-euler's many steps in one call (rtmbs.solvers.rollout._li_euler_rollout): its
 * step bound to the loop every fixed-step rollout shares (fixed_rollout.c). */
#include "fixed_rollout.h"

static rtmbs_status li_euler_step(const rtmbs_step_args* c, double t, int* ok) {
    double diag[4];
    rtmbs_status s = rtmbs_li_euler_step(c->mdl, c->d, c->w0, c->w1, c->kkt, c->kkt2, c->vec, c->q,
                                         c->qd, t, (const rtmbs_li_euler_options*)c->opt, NULL, 0,
                                         NULL, diag);
    *ok = diag[0] != 0.0 && diag[2] != 0.0;
    return s;
}

rtmbs_status rtmbs_li_euler_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                    rtmbs_kkt* kkt, rtmbs_kkt* kkt2, double* vec, double* q,
                                    double* qd, const rtmbs_li_euler_options* opt,
                                    const rtmbs_rollout* ro, int64_t* done) {
    const int64_t n = mdl->size.nq, m = mdl->size.nc;
    const rtmbs_step_args a = {mdl, d, w0, w1, vec, q, qd, NULL, kkt, kkt2, NULL, opt, NULL};
    /* (lambda over the model's rows: with a row map, 0 on the left-out ones) */
    const double* lam = vec + rtmbs_li_euler_lambda_offset(n, m, opt->rows);
    return rtmbs_fixed_rollout(&a, li_euler_step, lam, opt->h, ro, done);
}
