/* explicit_euler.c -- explicit Euler on the index-1 form (Carpinelli 2016 eqs. 11-12, 14), the non-stiff
 * baseline, on the sparse path (rtmbs.solvers.compiled_explicit):
 *
 *   evaluate at (t, q, qdot): M, Q, Phi_q, Phi_t, gamma [, Phi]             (evaluate.c)
 *   eq. 12: [M Phi_q^T; Phi_q 0][qdd; lambda] = [Q; gamma]                   (kkt.c, sparse_lu.c)
 *           (Baumgarte, eq. 4: gamma - 2 alpha (Phi_q qdot + Phi_t) - beta^2 Phi)
 *   dq = h qdot (eq. 11), or h (qdot + h qdd) (semi-implicit)
 *   projection (eq. 30) with the same factors: Phi at (t + h, q + dq)
 *   q += dq, qdot += h qdd; extra states (transient tyres)                  (extra_states.c)
 *
 * Called from Python as a bound step (binding/py_bound.c) or inside its rollout.
 *
 * A model whose Phi_q is rank deficient (redundant joints) is solved with its kept rows only
 * (opt->rows, as li_euler.c): every evaluation checks the left-out rows and copies the kept rows
 * of Phi, Phi_t and gamma to the end of `vec`: | Phi kept (m) | Phi_t kept (m) | gamma kept (m) |
 * lambda over the model's rows (mf). Without a row map nothing is copied.
 */
#include "explicit_euler.h"
#include "sensors.h"

/* out = gamma - 2 alpha (Phi_q qdot + Phi_t) - beta^2 Phi (eq. 4), Phi_q read from the packed
 * workspace w through the PackedKKTMap index idx ([na, nz, nzi, dj, ai, aj, am, aq, zr, zc, zptr,
 * zidx, ...]: sparse.py _packed_parts); each row's sum from Phi_t over its columns ascending
 * (compiled_explicit._baumgarte_packed). */
static void baumgarte_packed(const uint32_t* idx, const double* w, const double* qd,
                             const double* gamma, const double* phit, const double* phi,
                             double alpha, double beta, double* out, int64_t m) {
    const size_t na = idx[0], nz = idx[1];
    const uint32_t* zr = idx + 4 + 4 * na;
    const uint32_t* zc = zr + nz;
    const uint32_t* zptr = zc + nz;
    const uint32_t* zidx = zptr + nz + 1;
    const double b2 = beta * beta;
    size_t e, k;
    int64_t i;
    for (i = 0; i < m; i++) out[i] = phit[i];
    for (e = 0; e < nz; e++) { /* (sparse.py _phiq_value: the terms of a coupler row in order) */
        double v = w[zidx[zptr[e]]];
        for (k = zptr[e] + 1; k < zptr[e + 1]; k++) v += w[zidx[k]];
        out[zr[e]] += v * qd[zc[e]];
    }
    for (i = 0; i < m; i++) out[i] = gamma[i] - 2.0 * alpha * out[i] - b2 * phi[i];
}

int64_t rtmbs_explicit_euler_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows) {
    return rows ? RTMBS_EXPLICIT_EULER_VEC_ROWS(n, rows->nkept, mf)
                : RTMBS_EXPLICIT_EULER_VEC(n, mf);
}

int64_t rtmbs_explicit_euler_lambda_offset(int64_t n, int64_t mf, const rtmbs_rows* rows) {
    return rows ? rtmbs_explicit_euler_vec_size(n, mf, rows) - mf : n;
}

rtmbs_status rtmbs_explicit_euler_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                       double* w1, rtmbs_kkt* kkt, double* vec, double* q,
                                       double* qd, double t, const rtmbs_explicit_options* opt,
                                       const int64_t* oidx0, int64_t nout0, double* out0,
                                       double diag[2]) {
    const rtmbs_rows* map = opt->rows;
    const int64_t n = mdl->size.nq, mf = mdl->size.nc, m = map ? map->nkept : mf, N = n + m;
    const double h = opt->h;
    /* (with a row map, the kept rows of Phi, Phi_t and gamma copied after the vectors) */
    double* phik = map ? vec + RTMBS_EXPLICIT_EULER_VEC(n, m) : NULL;
    double* phitk = map ? phik + m : NULL;
    double* gammak = map ? phik + 2 * m : NULL;
    const double *phi, *phit, *gamma;
    double* rhs = vec;
    double* prhs = vec + N;
    double* dq = vec + 2 * N;
    double* qp = vec + 2 * N + n;
    const int extra = mdl->size.nx > 0;
    const int baumgarte = opt->stab == RTMBS_STAB_BAUMGARTE && m > 0;
    rtmbs_packed_offsets o;
    double growth = 0.0;
    double snap[RTMBS_CNT_STEP];
    int64_t i;
    rtmbs_status s;

    rtmbs_step_begin(d, snap);
    rtmbs_packed_workspace(&mdl->size, &o);
    phi = map ? phik : w0 + o.phi;
    phit = map ? phitk : w0 + o.phit;
    gamma = map ? gammak : w0 + o.gamma;
    if (extra) d->xstate[0] = h; /* (transient tyres: their deflections at the step's end) */
    s = rtmbs_evaluate_rows(mdl, d, RTMBS_EVAL_M | RTMBS_EVAL_Q |
                                        (m ? RTMBS_EVAL_PHIQ | RTMBS_EVAL_GAMMA : 0) |
                                        (baumgarte ? RTMBS_EVAL_PHI : 0),
                            t, q, qd, w0, &o, map, phik, phitk, gammak);
    if (s != RTMBS_OK) return s;
    rtmbs_gather_outputs(mdl, d, t, oidx0, nout0, out0);
    /* [M Phi_q^T; Phi_q 0][qdd; lambda] = [Q; gamma] (eq. 12) */
    diag[0] = rtmbs_kkt_values_packed(kkt->ib, kkt->fb, kkt->idx, w0, 0.0, 0.0, 1.0, w0, &growth);
    diag[1] = growth;
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 1, 0);
    for (i = 0; i < n; i++) rhs[i] = w0[o.Q + i];
    if (baumgarte)
        baumgarte_packed(kkt->idx, w0, qd, gamma, phit, phi, opt->alpha, opt->beta, rhs + n, m);
    else
        for (i = 0; i < m; i++) rhs[n + i] = gamma[i];
    rtmbs_lu_solve(kkt->ib, kkt->fb, rhs);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
    if (opt->semi)
        for (i = 0; i < n; i++) dq[i] = (qd[i] + h * rhs[i]) * h;
    else
        for (i = 0; i < n; i++) dq[i] = qd[i] * h;
    if (opt->stab == RTMBS_STAB_PROJECT && m > 0) { /* eq. 30 at q + dq with the same factors */
        for (i = 0; i < n; i++) qp[i] = q[i] + dq[i];
        s = rtmbs_evaluate_rows(mdl, d, RTMBS_EVAL_PHI, t + h, qp, qd, w1, &o, map, phik, NULL,
                                NULL);
        if (s != RTMBS_OK) return s;
        phi = map ? phik : w1 + o.phi;
        for (i = 0; i < n; i++) prhs[i] = 0.0;
        for (i = 0; i < m; i++) prhs[n + i] = -phi[i];
        rtmbs_lu_solve(kkt->ib, kkt->fb, prhs);
        rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
        for (i = 0; i < n; i++) dq[i] += prhs[i];
    }
    for (i = 0; i < n; i++) { /* eq. 11 */
        q[i] += dq[i];
        qd[i] += h * rhs[i];
    }
    if (map) /* lambda over the model's rows: 0 on the left-out ones */
        rtmbs_rows_expand(map, rhs + n, vec + rtmbs_explicit_euler_lambda_offset(n, mf, map));
    if (extra) { /* (the evaluation of Phi at q + dq writes no element outputs) */
        s = rtmbs_advance_extra_states(mdl, d, h);
        if (s != RTMBS_OK) return s;
    }
    rtmbs_step_end(d, snap); /* (the step's counts: cost_changes, last_step) */
    return RTMBS_OK;
}

/* the step as rtmbs_fixed_rollout calls it */
static rtmbs_status explicit_step(const rtmbs_step_args* c, double t, int* ok) {
    double diag[2];
    rtmbs_status s = rtmbs_explicit_euler_step(c->mdl, c->d, c->w0, c->w1, c->kkt, c->vec, c->q,
                                               c->qd, t, (const rtmbs_explicit_options*)c->opt,
                                               NULL, 0, NULL, diag);
    *ok = diag[0] > 0.0;
    return s;
}

rtmbs_status rtmbs_explicit_euler_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                          double* w1, rtmbs_kkt* kkt, double* vec, double* q,
                                          double* qd, const rtmbs_explicit_options* opt,
                                          const rtmbs_rollout* ro, int64_t* done) {
    const rtmbs_step_args a = {mdl, d, w0, w1, vec, q, qd, NULL, kkt, NULL, NULL, opt, NULL};
    /* (lambda over the model's rows: with a row map, 0 on the left-out ones) */
    return rtmbs_fixed_rollout(&a, explicit_step,
                               vec + rtmbs_explicit_euler_lambda_offset(mdl->size.nq, mdl->size.nc,
                                                                        opt->rows),
                               opt->h, ro, done);
}
