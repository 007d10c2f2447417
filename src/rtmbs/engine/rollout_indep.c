/* rollout_indep.c -- many steps of Algorithm 2 in one call (rtmbs.solvers.rollout_indep
 * ._li_euler_indep_rollout): inputs per step, results every `every` steps, a failed or diverging
 * step undone; a step whose pivot check of Phi_u fails (REBASE) ends the call, for the caller to
 * choose the partition again. */
#include <string.h>

#include "li_euler_indep.h"

rtmbs_status rtmbs_li_euler_indep_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                          double* w1, const rtmbs_partition* basis,
                                          const uint32_t* aidx, const rtmbs_kkt* proj_kkt,
                                          double* vec, int64_t* hpiv, double* q, double* qd,
                                          const rtmbs_indep_options* opt, int64_t k0,
                                          const rtmbs_rollout* ro, rtmbs_indep_stop* stop) {
    const int64_t n = mdl->size.nq, m = mdl->size.nc, nx = mdl->size.nx, f = n - m;
    const double h = opt->h;
    const int64_t na = aidx[0], n_steps = ro->n_steps, every = ro->every, nchan = ro->nchan;
    const int64_t i0 = ro->i0, nout = ro->nout;
    const double t_origin = ro->t_origin, *inputs = ro->inputs;
    const int64_t* chan = ro->chan;
    const rtmbs_rollout_rows* rows = &ro->rows;
    /* lambda: the view of vec after Rn, AR, H, Aval, 10 n-vectors, dzd, zd, zero_m */
    const double* lam = vec + 2 * n * f + f * f + na + 10 * n + 2 * f + m;
    double* x = d->xstate + 1;
    double* diag = stop->diag;
    int* code = &stop->code;
    int64_t k, c, r;
    int save;
    rtmbs_status s;
    stop->nchanged = 0;
    *code = RTMBS_INDEP_OK;
    for (k = k0; k < n_steps; k++) {
        double t = t_origin + (double)(i0 + k) * h;
        save = (k + 1) % every == 0;
        r = (k + 1) / every - 1;
        for (c = 0; c < nchan; c++) d->fun_par[RTMBS_NFUNPAR * chan[c]] = inputs[k * nchan + c];
        rtmbs_copy_state(q, qd, x, ro->q_good, ro->qd_good, ro->x_good, n, nx);
        if (save) memcpy(rows->qd_prev + r * n, qd, (size_t)n * sizeof(double));
        s = rtmbs_li_euler_indep_step(mdl, d, w0, w1, basis, aidx, proj_kkt, vec, hpiv, q, qd, t,
                                      opt, NULL, 0, NULL, code, diag);
        if (s != RTMBS_OK) return s;
        if (*code & RTMBS_INDEP_CHANGED) stop->nchanged += 1;
        if (*code & RTMBS_INDEP_REBASE) {
            stop->k_end = k;
            return RTMBS_OK;
        }
        if (!((*code & RTMBS_INDEP_OK) && diag[0] > 0.0) || rtmbs_diverged(q, qd, n)) {
            rtmbs_copy_state(ro->q_good, ro->qd_good, ro->x_good, q, qd, x, n, nx);
            stop->k_end = k;
            return RTMBS_OK;
        }
        if (save) {
            t = t_origin + (double)(i0 + k + 1) * h;
            rows->t[r] = t;
            memcpy(rows->q + r * n, q, (size_t)n * sizeof(double));
            memcpy(rows->qd + r * n, qd, (size_t)n * sizeof(double));
            if (m) memcpy(rows->lam + r * m, lam, (size_t)m * sizeof(double));
            if (nx) memcpy(rows->x + r * nx, x, (size_t)nx * sizeof(double));
            if (nout) {
                s = rtmbs_step_outputs(mdl, d, t, q, qd, w1, ro->oidx, nout, rows->y + r * nout);
                if (s != RTMBS_OK) return s;
            }
        }
    }
    stop->k_end = n_steps;
    *code = RTMBS_INDEP_OK;
    return RTMBS_OK;
}
