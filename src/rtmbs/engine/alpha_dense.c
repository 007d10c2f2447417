/* alpha_dense.c -- the generalized-alpha step (Chung & Hulbert 1993, index-3 form of Arnold &
 * Bruls 2007) on dense matrices, for a provider of the evaluation interface
 * (providers/provider.h: the planar truck).
 *
 * One step, as stages (generalized_alpha.c's, with dense matrices and the engine's dense LU):
 *   predictor qdd1 = qdd: a1, qd1, q1 from the generalized-alpha relations
 *   niter simplified Newton corrections (Bottasso, Dopico & Trainelli 2008 scaling s = 1/beta'):
 *     evaluate M, Q, Phi, Phi_q at (t + h, q1, qd1) (the first with the force Jacobians)
 *     K = [M - s gamma' Jqdot - s Jq, Phi_q^T; Phi_q, 0] assembled and factored at the first
 *     [dq; s dlam] = -K^-1 [s (M qdd1 - Q + Phi_q^T lam1); Phi]   q1, qd1, qdd1, lam1 corrected
 *   stabilisation: velocity (VELOCITY_PASSES solves of [0; -(Phi_q qd1 + Phi_t)] with the step's
 *   factors, Phi_q at q1), projection ([M Phi_q^T; Phi_q 0] at q1: positions (Carpinelli 2016
 *   eq. 30), then velocities), or none
 *   commit a, q, qd, qdd, lambda (tiny values flushed to 0)
 *
 * The arithmetic of rtmbs.solvers.generalized_alpha's dense path (GeneralizedAlpha._step_impl)
 * in its order; numpy's matrix-vector products (BLAS) are plain loops here, so the two agree to
 * round-off, not bit for bit.
 */
#include "alpha_dense.h"
#include "stages.h"

/* rhs = [s ((Q - M qdd1) - Phi_q^T lam1); -Phi] solved with the iteration matrix's factors;
 * q1 += dq, qd1 += gamma' dq, qdd1 += beta' dq, lam1 += (s dlam)/s
 * (rtmbs.solvers.generalized_alpha._newton) */
static void newton(rtmbs_data* d, const rtmbs_dense_work* w, const rtmbs_dense_ws* e, double s,
                   double gp, double bp, rtmbs_alpha_vectors* v, int64_t n, int64_t m) {
    double* rhs = v->rhs;
    double a, b, dq;
    int64_t i, j;
    for (i = 0; i < n; i++) {
        a = 0.0;
        for (j = 0; j < n; j++) a += e->M[i * n + j] * v->qdd1[j];
        b = 0.0;
        for (j = 0; j < m; j++) b += e->phiq[j * n + i] * v->lam1[j];
        rhs[i] = s * ((e->Q[i] - a) - b);
    }
    for (i = 0; i < m; i++) rhs[n + i] = -e->phi[i];
    rtmbs_dense_solve(d, w->K, w->piv, rhs, n + m);
    for (i = 0; i < n; i++) {
        dq = rhs[i];
        v->q1[i] += dq;
        v->v1[i] += gp * dq;
        v->qdd1[i] += bp * dq;
    }
    for (i = 0; i < m; i++) v->lam1[i] += rhs[n + i] / s;
}

/* qd1 += the velocity part of K^-1 [0; -(Phi_t + Phi_q qd1)] with the factors (K, piv)
 * (rtmbs.solvers.generalized_alpha._velocity) */
static void velocity(rtmbs_data* d, const double* K, const int64_t* piv, const rtmbs_dense_ws* e,
                     rtmbs_alpha_vectors* v, int64_t n, int64_t m) {
    double* rhs = v->rhs;
    double acc;
    int64_t i, j;
    for (i = 0; i < n; i++) rhs[i] = 0.0;
    for (i = 0; i < m; i++) {
        acc = 0.0;
        for (j = 0; j < n; j++) acc += e->phiq[i * n + j] * v->v1[j];
        rhs[n + i] = -e->phit[i] - acc;
    }
    rtmbs_dense_solve(d, K, piv, rhs, n + m);
    for (i = 0; i < n; i++) v->v1[i] += rhs[i];
}

rtmbs_status rtmbs_alpha_dense_step(const rtmbs_provider* p, rtmbs_data* d,
                                    const rtmbs_dense_work* w, double* q, double* qd, double t,
                                    const rtmbs_alpha_options* opt, double diag[2]) {
    const int64_t n = p->n, m = p->m, N = n + m;
    const double h = opt->h, t1 = t + h;
    /* (c, c_d, s, gamma', beta') as GeneralizedAlpha._scales: c = s, c_d = s gamma' */
    const double bp = (1.0 - opt->am) / (opt->b * h * h * (1.0 - opt->af));
    const double gp = opt->g / (opt->b * h);
    const double s = 1.0 / bp;
    const int64_t what = RTMBS_EVAL_M | RTMBS_EVAL_Q | RTMBS_EVAL_PHI | (m ? RTMBS_EVAL_PHIQ : 0);
    double snap[RTMBS_CNT_STEP];
    rtmbs_alpha_vectors v;
    rtmbs_dense_ws e;
    int64_t i, k;
    rtmbs_status st;

    rtmbs_dense_views(w->ws0, n, m, &e);
    rtmbs_alpha_views(w->vec, n, m, &v);
    diag[0] = diag[1] = 1.0;
    rtmbs_step_begin(d, snap);
    rtmbs_alpha_predict(q, qd, opt, &v, n);
    for (i = 0; i < m; i++) v.lam1[i] = v.lam[i];
    for (k = 0; k < opt->niter; k++) {
        st = rtmbs_dense_evaluate(p, d, t1, v.q1, v.v1, k == 0 ? what | opt->jac_what : what,
                                  w->ws0);
        if (st != RTMBS_OK) return rtmbs_dense_failed(d, st, t, diag);
        if (k == 0) {
            rtmbs_dense_assemble(w->K, &e, 1, s * gp, s, e.phiq, 1.0, e.phiq, n, m);
            diag[0] = rtmbs_dense_factor(d, w->K, w->piv, N, t);
            if (diag[0] == 0.0) return RTMBS_OK; /* the caller reads the ratio: a failed step */
        }
        newton(d, w, &e, s, gp, bp, &v, n, m);
    }
    if (opt->stab == RTMBS_ALPHA_STAB_VELOCITY && m) { /* Phi_q, Phi_t at q1; the step's factors */
        st = rtmbs_dense_evaluate(p, d, t1, v.q1, v.v1, RTMBS_EVAL_PHIQ, w->ws0);
        if (st != RTMBS_OK) return rtmbs_dense_failed(d, st, t, diag);
        for (k = 0; k < RTMBS_ALPHA_VELOCITY_PASSES; k++)
            velocity(d, w->K, w->piv, &e, &v, n, m);
    } else if (opt->stab == RTMBS_ALPHA_STAB_PROJECTION && m) { /* [M Phi_q^T; Phi_q 0] at q1 */
        st = rtmbs_dense_evaluate(p, d, t1, v.q1, v.v1,
                                  RTMBS_EVAL_M | RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, w->ws0);
        if (st != RTMBS_OK) return rtmbs_dense_failed(d, st, t, diag);
        rtmbs_dense_assemble(w->P, &e, 0, 0.0, 0.0, e.phiq, 1.0, e.phiq, n, m);
        diag[1] = rtmbs_dense_factor(d, w->P, w->ppiv, N, t);
        if (diag[1] == 0.0) return RTMBS_OK;
        rtmbs_dense_correction(d, w->P, w->ppiv, e.phi, v.rhs, v.q1, n, m);
        velocity(d, w->P, w->ppiv, &e, &v, n, m);
    }
    rtmbs_alpha_finish(q, qd, opt, &v, n, m);
    i = rtmbs_first_nonfinite(q, qd, n);
    if (i >= 0) {
        rtmbs_warn(d, RTMBS_WARN_NONFINITE, i, t);
        diag[0] = 0.0; /* a failed step */
        return RTMBS_OK;
    }
    rtmbs_step_end(d, snap);
    return RTMBS_OK;
}
