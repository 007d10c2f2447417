/* li_euler_dense.c -- the linearly implicit Euler step (Carpinelli 2016, Algorithm 1) on dense
 * matrices, for a provider of the evaluation interface (providers/provider.h: the planar truck).
 *
 * One step, as stages (li_euler.c's, with dense matrices and the engine's dense LU):
 *   evaluate at (t, q, qdot): M, Q, Jq, Jqdot, Phi_q                      (the provider)
 *   predictor q_p = q + h qdot; Phi_q(q_p) (and Phi(q_p))                 (the provider)
 *   eq. 22: K = [M - h Jqdot - h^2 Jq, h Phi_q(q)^T; Phi_q(q_p), 0] factored (dense_lu.c),
 *          K [dqdot; lambda] = [h Q + h^2 Jq qdot; -(cv (Phi_q(q_p) qdot + Phi_t) + gb Phi(q_p))]
 *   stabilisation: projection with the factors of eq. 22 (eq. 30, projection="step"), its own KKT
 *   [M, h Phi_q^T; Phi_q, 0] at the new positions (projection="mass"), index-2 Baumgarte, or GGL
 *   positions (Gear 1985)
 *   update q, qdot
 *
 * The arithmetic of rtmbs.solvers.li_euler's dense path (LIEuler._step_impl, _step_ggl) in its
 * order; numpy's matrix-vector products (BLAS) are plain loops here, so the two agree to
 * round-off, not bit for bit. `vec` is li_euler.c's: rhs (n + m) | projection rhs (n + m) |
 * tmp (n + m) | dq (n) | q_p (n) | GGL positions (n) | GGL eta (m) | lambda (m).
 */
#include "li_euler_dense.h"

/* One simplified Newton correction of the GGL positions with the factors of
 * P = [M, h Phi_q(q)^T; Phi_q(q_p), 0]: P [dq; deta] = -[M (qk - q_p) + h Phi_q(q)^T eta; Phi(qk)]
 * (rtmbs.solvers.li_euler._ggl_newton) */
static void ggl_newton(rtmbs_data* d, const double* P, const int64_t* ppiv,
                       const rtmbs_dense_ws* v0, double h, const double* qp, double* qk,
                       double* eta, const double* phi, double* rhs, double* tmp, int64_t n,
                       int64_t m) {
    double a, b;
    int64_t i, j;
    for (i = 0; i < n; i++) tmp[i] = qk[i] - qp[i];
    for (i = 0; i < n; i++) {
        a = 0.0;
        for (j = 0; j < n; j++) a += v0->M[i * n + j] * tmp[j];
        b = 0.0;
        for (j = 0; j < m; j++) b += v0->phiq[j * n + i] * eta[j];
        rhs[i] = -(a + h * b);
    }
    for (i = 0; i < m; i++) rhs[n + i] = -phi[i];
    rtmbs_dense_solve(d, P, ppiv, rhs, n + m);
    for (i = 0; i < n; i++) qk[i] += rhs[i];
    for (i = 0; i < m; i++) eta[i] += rhs[n + i];
}

/* rhs = [h Q + h^2 Jq qdot; -cv (Phi_q1 qdot + Phi_t1) - gb Phi_1] (rtmbs.solvers.li_euler._solve) */
static void eq22_rhs(const rtmbs_dense_ws* v0, const rtmbs_dense_ws* v1, const double* qd,
                     double gb, double cv, double h, double* rhs, int64_t n, int64_t m) {
    double acc;
    int64_t i, j;
    for (i = 0; i < n; i++) {
        acc = 0.0;
        for (j = 0; j < n; j++) acc += v0->Jq[i * n + j] * qd[j];
        rhs[i] = acc * (h * h) + h * v0->Q[i];
    }
    for (i = 0; i < m; i++) {
        acc = 0.0;
        for (j = 0; j < n; j++) acc += v1->phiq[i * n + j] * qd[j];
        acc = (acc + v1->phit[i]) * -cv;
        if (gb != 0.0) acc -= gb * v1->phi[i];
        rhs[n + i] = acc;
    }
}

rtmbs_status rtmbs_li_euler_dense_step(const rtmbs_provider* p, rtmbs_data* d,
                                       const rtmbs_dense_work* w, double* q, double* qd, double t,
                                       const rtmbs_li_euler_options* opt, double diag[2]) {
    const int64_t n = p->n, m = p->m, N = n + m;
    const double h = opt->h;
    const int stab = opt->stab;
    const int project = (stab == RTMBS_STAB_PROJECT || stab == RTMBS_STAB_MASS) && m > 0;
    const int ggl = stab == RTMBS_STAB_GGL && m > 0;
    const int baumgarte = stab == RTMBS_STAB_BAUMGARTE && m > 0;
    double* rhs = w->vec;
    double* prhs = rhs + N;
    double* tmp = rhs + 2 * N;
    double* dq = rhs + 3 * N;
    double* qp = dq + n;
    double* qk = qp + n;
    double* eta = qk + n;
    double* lam = eta + m;
    double snap[RTMBS_CNT_STEP];
    double gb = 0.0, cv = 1.0, ratio, ratio2 = 1.0;
    rtmbs_dense_ws v0, v1;
    int64_t i, k;
    rtmbs_status s;

    rtmbs_dense_views(w->ws0, n, m, &v0);
    rtmbs_dense_views(w->ws1, n, m, &v1);
    diag[1] = 1.0;
    rtmbs_step_begin(d, snap);
    s = rtmbs_dense_evaluate(p, d, t, q, qd, RTMBS_EVAL_M | RTMBS_EVAL_Q | opt->jac_what |
                                     (m ? RTMBS_EVAL_PHIQ : 0), w->ws0);
    if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
    for (i = 0; i < n; i++) {
        dq[i] = qd[i] * h;
        qp[i] = q[i] + dq[i];
    }
    if (ggl) { /* GGL positions from the predictor q_p, then Phi_q at them */
        for (i = 0; i < n; i++) qk[i] = qp[i];
        for (i = 0; i < m; i++) eta[i] = 0.0;
        s = rtmbs_dense_evaluate(p, d, t + h, qp, qd, RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, w->ws1);
        if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
        rtmbs_dense_assemble(w->P, &v0, 0, 0.0, 0.0, v0.phiq, h, v1.phiq, n, m);
        ratio2 = rtmbs_dense_factor(d, w->P, w->ppiv, N, t);
        for (k = 0; k < opt->niter; k++) {
            if (k > 0) {
                s = rtmbs_dense_evaluate(p, d, t + h, qk, qd, RTMBS_EVAL_PHI, w->ws1);
                if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
            }
            ggl_newton(d, w->P, w->ppiv, &v0, h, qp, qk, eta, v1.phi, prhs, tmp, n, m);
        }
        s = rtmbs_dense_evaluate(p, d, t + h, qk, qd, RTMBS_EVAL_PHIQ, w->ws1);
        if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
    } else if (m) {
        s = rtmbs_dense_evaluate(p, d, t + h, qp, qd, RTMBS_EVAL_PHIQ |
                     ((project || opt->implicit || baumgarte) ? RTMBS_EVAL_PHI : 0), w->ws1);
        if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
        if (opt->implicit) { /* the position form Phi(q_p) + h Phi_q dqdot = 0 */
            gb = 1.0 / h;
            cv = 0.0;
        } else if (baumgarte) {
            gb = opt->gamma < 0.0 ? 1.0 / h : opt->gamma;
        }
    }
    rtmbs_dense_assemble(w->K, &v0, 1, h, h * h, v0.phiq, h, v1.phiq, n, m);
    ratio = rtmbs_dense_factor(d, w->K, w->piv, N, t);
    diag[0] = ratio;
    diag[1] = ratio2;
    if (ratio == 0.0) return RTMBS_OK; /* the caller reads the ratio: a failed step */
    eq22_rhs(&v0, &v1, qd, gb, cv, h, rhs, n, m);
    rtmbs_dense_solve(d, w->K, w->piv, rhs, N);
    if (project) {
        if (opt->implicit) { /* Phi (and Phi_q) at the new positions q + h (qdot + dqdot) */
            for (i = 0; i < n; i++) {
                dq[i] = (qd[i] + rhs[i]) * h;
                qp[i] = q[i] + dq[i];
            }
            s = rtmbs_dense_evaluate(p, d, t + h, qp, qd, RTMBS_EVAL_PHI |
                         (stab == RTMBS_STAB_MASS ? RTMBS_EVAL_PHIQ : 0), w->ws1);
            if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
        }
        if (stab == RTMBS_STAB_MASS) { /* eq. 30 as written: its own KKT at the new positions */
            rtmbs_dense_assemble(w->P, &v0, 0, 0.0, 0.0, v1.phiq, h, v1.phiq, n, m);
            diag[1] = rtmbs_dense_factor(d, w->P, w->ppiv, N, t);
            rtmbs_dense_correction(d, w->P, w->ppiv, v1.phi, prhs, dq, n, m);
        } else {
            for (k = 0; k < opt->niter; k++) {
                if (k > 0) { /* Phi at the corrected positions */
                    for (i = 0; i < n; i++) qp[i] = q[i] + dq[i];
                    s = rtmbs_dense_evaluate(p, d, t + h, qp, qd, RTMBS_EVAL_PHI, w->ws1);
                    if (s != RTMBS_OK) return rtmbs_dense_failed(d, s, t, diag);
                }
                rtmbs_dense_correction(d, w->K, w->piv, v1.phi, prhs, dq, n, m);
            }
        }
    }
    if (!rtmbs_li_euler_update(d, q, qd, dq, ggl ? qk : NULL, rhs, h,
                               opt->implicit && !project && !ggl, lam, n, m, t)) {
        diag[0] = 0.0; /* a failed step */
        return RTMBS_OK;
    }
    rtmbs_step_end(d, snap);
    return RTMBS_OK;
}
