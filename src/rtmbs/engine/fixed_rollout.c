/* fixed_rollout.c -- the rollout loop of rtmbs.solvers.rollout (before_step, end_step) around any
 * fixed-step integrator's step: inputs per step, results every `every` steps, a failed or
 * diverging step undone. */
#include <string.h>

#include "fixed_rollout.h"

rtmbs_status rtmbs_fixed_rollout(const rtmbs_step_args* a, rtmbs_step_fn step, const double* lam,
                                 double h, const rtmbs_rollout* ro, int64_t* done) {
    const rtmbs_model* mdl = a->mdl;
    rtmbs_data* d = a->d;
    double *q = a->q, *qd = a->qd;
    const int64_t n = mdl->size.nq, m = mdl->size.nc, nx = mdl->size.nx;
    const int64_t i0 = ro->i0, every = ro->every, nchan = ro->nchan, nout = ro->nout;
    const double t_origin = ro->t_origin, *inputs = ro->inputs;
    const int64_t* chan = ro->chan;
    const rtmbs_rollout_rows* rows = &ro->rows;
    double* x = nx ? d->xstate + 1 : NULL; /* (after the step's h) */
    int64_t k, c, r;
    int ok;
    rtmbs_status s;
    *done = 0;
    for (k = 0; k < ro->n_steps; k++) {
        int save = (k + 1) % every == 0;
        double t = t_origin + (double)(i0 + k) * h;
        r = (k + 1) / every - 1;
        for (c = 0; c < nchan; c++) d->fun_par[RTMBS_NFUNPAR * chan[c]] = inputs[k * nchan + c];
        rtmbs_copy_state(q, qd, x, ro->q_good, ro->qd_good, ro->x_good, n, nx);
        if (save && rows->qd_prev) memcpy(rows->qd_prev + r * n, qd, (size_t)n * sizeof(double));
        s = step(a, t, &ok);
        if (s != RTMBS_OK) return s;
        if (!ok || rtmbs_diverged(q, qd, n)) {
            if (ok) rtmbs_warn(d, RTMBS_WARN_NONFINITE, rtmbs_first_diverged(q, qd, n), t);
            rtmbs_copy_state(ro->q_good, ro->qd_good, ro->x_good, q, qd, x, n, nx);
            return RTMBS_OK;
        }
        t = t_origin + (double)(i0 + k + 1) * h;
        if (save) {
            if (rows->t) rows->t[r] = t;
            if (rows->q) memcpy(rows->q + r * n, q, (size_t)n * sizeof(double));
            if (rows->qd) memcpy(rows->qd + r * n, qd, (size_t)n * sizeof(double));
            if (rows->lam && m) memcpy(rows->lam + r * m, lam, (size_t)m * sizeof(double));
            if (rows->x && nx) memcpy(rows->x + r * nx, x, (size_t)nx * sizeof(double));
            if (nout && rows->y) {
                s = a->outputs ? a->outputs(a, t, ro->oidx, nout, rows->y + r * nout)
                               : rtmbs_step_outputs(mdl, d, t, q, qd, a->w1, ro->oidx, nout,
                                                    rows->y + r * nout);
                if (s != RTMBS_OK) return s;
            }
        }
        *done = k + 1;
    }
    return RTMBS_OK;
}
