/* li_euler.c -- the linearly implicit Euler step (Carpinelli 2016, Algorithm 1) on the sparse path.
 *
 * One step, as stages:
 *   evaluate at (t, q, qdot): M, Q, Jq, Jqdot, Phi_q                       (evaluate.c)
 *   predictor q_p = q + h qdot; Phi_q(q_p) (and Phi(q_p))                  (evaluate.c)
 *   eq. 22: [M - h Jqdot - h^2 Jq, h Phi_q(q)^T; Phi_q(q_p), 0] [dqdot; lambda]
 *          = [h Q + h^2 Jq qdot; -(cv (Phi_q(q_p) qdot + Phi_t) + gb Phi(q_p))]  (kkt.c, sparse_lu.c)
 *   stabilisation: projection with the factors of eq. 22 (eq. 30, projection="step"), its own KKT
 *   (projection="mass"), index-2 Baumgarte, or GGL positions (Gear 1985)
 *   update q, qdot; extra states (transient tyres)                         (extra_states.c)
 *
 * Called from Python as a bound step (binding/py_bound.c) or inside its rollout (rollout.c).
 * `vec` packs the step's vectors: rhs (n + m) | projection rhs (n + m) | tmp (n + m) | dq (n) |
 * q_p (n) | GGL positions (n) | GGL eta (m) | lambda (m).
 *
 * A model whose Phi_q is rank deficient (redundant joints) is solved with its kept rows only
 * (opt->rows, rtmbs.solvers.redundancy): m is then the number of kept rows, the KKT maps hold
 * their Phi_q entries, every evaluation checks the left-out rows (rtmbs_check_left_out) and
 * copies the kept rows of Phi and Phi_t of w1 to the end of `vec`: | Phi kept (m) |
 * Phi_t kept (m) | lambda over the model's rows (mf). Without a row map nothing is copied.
 */
#include "li_euler.h"
#include "sensors.h"

int64_t rtmbs_li_euler_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows) {
    return rows ? RTMBS_LI_EULER_VEC_ROWS(n, rows->nkept, mf) : RTMBS_LI_EULER_VEC(n, mf);
}

int64_t rtmbs_li_euler_lambda_offset(int64_t n, int64_t mf, const rtmbs_rows* rows) {
    return rtmbs_li_euler_vec_size(n, mf, rows) - mf;
}

/* The rows of Phi (and Phi_t) of w1 the step reads: the packed workspace's, or with a row map the
 * kept rows copied to phik, phitk. */
typedef struct step_rows_ {
    const rtmbs_rows* map;
    double *phik, *phitk;
    const double *phi1, *phit1; /* what the step reads: (m) */
} step_rows;

/* An evaluation of `what` into the packed workspace w (rtmbs_evaluate_rows); for w1 with a row
 * map, the kept rows of Phi and Phi_t copied to r->phik, r->phitk. */
static rtmbs_status evaluate(const rtmbs_model* mdl, rtmbs_data* d, int64_t what, double t,
                             const double* q, const double* qd, double* w,
                             const rtmbs_packed_offsets* o, const step_rows* r, int w1) {
    return rtmbs_evaluate_rows(mdl, d, what, t, q, qd, w, o, r->map, w1 ? r->phik : NULL,
                               w1 ? r->phitk : NULL, NULL);
}

/* eq. 22 from the packed workspaces: gather and factor, form the right-hand side, solve. */
static double factor_solve(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_kkt* kkt, const double* w0,
                           const double* w1, const rtmbs_packed_offsets* o, const step_rows* r,
                           int64_t m, const double* qd, double gb, double cv, double h, double t,
                           double* rhs, double* tmp, double* growth) {
    const int64_t n = mdl->size.nq;
    const double* Q = w0 + o->Q;
    const double* phit1 = r->phit1;
    const double* phi1 = r->phi1;
    double* jx = tmp;
    double* phix = tmp + n;
    double ratio;
    int64_t i;
    ratio = rtmbs_kkt_values_products_packed(kkt->ib, kkt->fb, kkt->idx, w0, h * h, h, h, w1, qd,
                                             jx, n, phix, cv != 0.0 ? m : 0, growth);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 1, 0);
    rtmbs_check_factors(d, kkt->ib, kkt->fb, ratio, t);
    if (ratio == 0.0) return ratio;
    for (i = 0; i < n; i++) rhs[i] = h * Q[i] + h * h * jx[i];
    if (cv != 0.0)
        for (i = 0; i < m; i++) rhs[n + i] = -(cv * (phix[i] + phit1[i]) + gb * phi1[i]);
    else
        for (i = 0; i < m; i++) rhs[n + i] = -(gb * phi1[i]);
    rtmbs_lu_solve(kkt->ib, kkt->fb, rhs);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
    return ratio;
}

/* GGL positions (Gear, Gupta and Leimkuhler 1985): a simplified Newton correction of qk with
 * the factors of [M h Phi_q(q)^T; Phi_q(q_p) 0]: rhs = M (qk - q_p), tmp = Phi_q(q)^T eta. */
static void ggl_newton(rtmbs_data* d, rtmbs_kkt* kkt, const double* w0, double h, const double* qp,
                       double* qk, double* eta, const double* phi, double* rhs, double* tmp,
                       int64_t n, int64_t m) {
    int64_t i;
    for (i = 0; i < n; i++) tmp[i] = qk[i] - qp[i];
    rtmbs_kkt_mass_times(kkt->idx, w0, tmp, rhs, n);         /* rhs[:n] = M (qk - qp) */
    rtmbs_kkt_phiq_transpose_times(kkt->idx, w0, eta, tmp, n); /* tmp[:n] = Phi_q^T eta */
    for (i = 0; i < n; i++) rhs[i] = -(rhs[i] + h * tmp[i]);
    for (i = 0; i < m; i++) rhs[n + i] = -phi[i];
    rtmbs_lu_solve(kkt->ib, kkt->fb, rhs);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
    for (i = 0; i < n; i++) qk[i] += rhs[i];
    for (i = 0; i < m; i++) eta[i] += rhs[n + i];
}

rtmbs_status rtmbs_li_euler_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                 rtmbs_kkt* kkt, rtmbs_kkt* kkt2, double* vec, double* q,
                                 double* qd, double t, const rtmbs_li_euler_options* opt,
                                 const int64_t* oidx0, int64_t nout0, double* out0,
                                 double diag[4]) {
    const rtmbs_rows* map = opt->rows;
    const int64_t n = mdl->size.nq, mf = mdl->size.nc, m = map ? map->nkept : mf, N = n + m;
    const double h = opt->h;
    const int stab = opt->stab;
    double* rhs = vec;
    double* prhs = vec + N;
    double* tmp = vec + 2 * N;
    double* dq = vec + 3 * N;
    double* qp = vec + 3 * N + n;
    double* qk = vec + 3 * N + 2 * n;
    double* eta = vec + 3 * N + 3 * n;
    double* lam = vec + 3 * N + 3 * n + m;
    step_rows r;
    rtmbs_packed_offsets o;
    double snap[RTMBS_CNT_STEP];
    int extra = mdl->size.nx > 0;
    int project, ggl;
    double gb = 0.0, cv = 1.0, ratio, growth = 0.0, ratio2 = 1.0, growth2 = 0.0;
    int64_t i, k;
    rtmbs_status s;

    rtmbs_step_begin(d, snap);
    rtmbs_packed_workspace(&mdl->size, &o);
    r.map = map;
    r.phik = map ? vec + RTMBS_LI_EULER_VEC(n, m) : NULL;
    r.phitk = map ? r.phik + m : NULL;
    r.phi1 = map ? r.phik : w1 + o.phi;
    r.phit1 = map ? r.phitk : w1 + o.phit;
    if (extra) d->xstate[0] = h;
    s = evaluate(mdl, d, RTMBS_EVAL_M | RTMBS_EVAL_Q | opt->jac_what | (m ? RTMBS_EVAL_PHIQ : 0), t,
                 q, qd, w0, &o, &r, 0);
    if (s != RTMBS_OK) return s;
    rtmbs_gather_outputs(mdl, d, t, oidx0, nout0, out0);
    for (i = 0; i < n; i++) {
        dq[i] = h * qd[i];
        qp[i] = q[i] + dq[i];
    }
    project = (stab == RTMBS_STAB_PROJECT || stab == RTMBS_STAB_MASS) && m > 0;
    ggl = stab == RTMBS_STAB_GGL && m > 0;
    if (ggl) { /* GGL positions from the predictor q_p, then Phi_q at them */
        for (i = 0; i < n; i++) qk[i] = qp[i];
        for (i = 0; i < m; i++) eta[i] = 0.0;
        s = evaluate(mdl, d, RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, t + h, qp, qd, w1, &o, &r, 1);
        if (s != RTMBS_OK) return s;
        ratio2 = rtmbs_kkt_values_packed(kkt2->ib, kkt2->fb, kkt2->idx, w0, 0.0, 0.0, h, w1,
                                         &growth2);
        rtmbs_count_lu(d, kkt2->ib, kkt2->fb, 1, 0);
        rtmbs_check_factors(d, kkt2->ib, kkt2->fb, ratio2, t);
        for (k = 0; k < opt->niter; k++) {
            if (k > 0) {
                s = evaluate(mdl, d, RTMBS_EVAL_PHI, t + h, qk, qd, w1, &o, &r, 1);
                if (s != RTMBS_OK) return s;
            }
            ggl_newton(d, kkt2, w0, h, qp, qk, eta, r.phi1, prhs, tmp, n, m);
        }
        s = evaluate(mdl, d, RTMBS_EVAL_PHIQ, t + h, qk, qd, w1, &o, &r, 1);
        if (s != RTMBS_OK) return s;
    } else if (m) {
        int baumgarte = stab == RTMBS_STAB_BAUMGARTE;
        s = evaluate(mdl, d, RTMBS_EVAL_PHIQ |
                                 ((project || opt->implicit || baumgarte) ? RTMBS_EVAL_PHI : 0),
                     t + h, qp, qd, w1, &o, &r, 1);
        if (s != RTMBS_OK) return s;
        if (opt->implicit) {
            gb = 1.0 / h;
            cv = 0.0;
        } else if (baumgarte) {
            gb = opt->gamma < 0.0 ? 1.0 / h : opt->gamma;
        }
    }
    ratio = factor_solve(mdl, d, kkt, w0, w1, &o, &r, m, qd, gb, cv, h, t, rhs, tmp, &growth);
    diag[0] = ratio;
    diag[1] = growth;
    diag[2] = ratio2;
    diag[3] = growth2;
    if (ratio == 0.0) return RTMBS_OK; /* the caller reads the ratio: a failed step */
    if (project) {
        if (opt->implicit) /* the new positions q + h (qdot + dqdot) */
            for (i = 0; i < n; i++) dq[i] = h * (qd[i] + rhs[i]);
        if (stab == RTMBS_STAB_MASS) { /* eq. 30 as written: its own KKT at the new positions */
            if (opt->implicit) {
                for (i = 0; i < n; i++) qp[i] = q[i] + dq[i];
                s = evaluate(mdl, d, RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, t + h, qp, qd, w1, &o, &r,
                             1);
                if (s != RTMBS_OK) return s;
            }
            ratio2 = rtmbs_project_kkt(kkt2->ib, kkt2->fb, kkt2->idx, w0, w1, r.phi1, m, h, prhs,
                                       dq, n, &growth2);
            rtmbs_count_lu(d, kkt2->ib, kkt2->fb, 1, 1);
            rtmbs_check_factors(d, kkt2->ib, kkt2->fb, ratio2, t);
            diag[2] = ratio2;
            diag[3] = growth2;
        }
        for (k = 0; k < (stab == RTMBS_STAB_PROJECT ? opt->niter : 0); k++) {
            if (opt->implicit || k > 0) { /* Phi at the (corrected) new positions */
                for (i = 0; i < n; i++) qp[i] = q[i] + dq[i];
                s = evaluate(mdl, d, RTMBS_EVAL_PHI, t + h, qp, qd, w1, &o, &r, 1);
                if (s != RTMBS_OK) return s;
            }
            for (i = 0; i < n; i++) prhs[i] = 0.0;
            for (i = 0; i < m; i++) prhs[n + i] = -r.phi1[i];
            rtmbs_lu_solve(kkt->ib, kkt->fb, prhs);
            rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
            for (i = 0; i < n; i++) dq[i] += prhs[i];
        }
    }
    if (!rtmbs_li_euler_update(d, q, qd, dq, ggl ? qk : NULL, rhs, h,
                               opt->implicit && !project && !ggl, lam, n, m, t)) {
        diag[0] = 0.0; /* a failed step */
        return RTMBS_OK;
    }
    if (map) /* lambda over the model's rows: 0 on the left-out ones */
        rtmbs_rows_expand(map, lam, vec + rtmbs_li_euler_lambda_offset(n, mf, map));
    if (extra) { /* (the Phi evaluations at q_p write no element outputs: those at t are used) */
        s = rtmbs_advance_extra_states(mdl, d, h);
        if (s != RTMBS_OK) return s;
    }
    rtmbs_step_end(d, snap);
    return RTMBS_OK;
}

rtmbs_status rtmbs_step_outputs(const rtmbs_model* mdl, rtmbs_data* d, double t, const double* q,
                                const double* qd, double* w, const int64_t* oidx, int64_t nout,
                                double* out) {
    /* the outputs after a step at the deflections it advanced (xstate[0] = 0 while evaluated) */
    double h = d->xstate[0];
    rtmbs_status s;
    rtmbs_packed_offsets o;
    rtmbs_packed_workspace(&mdl->size, &o);
    d->xstate[0] = 0.0;
    s = rtmbs_outputs(mdl, d, t, q, qd, w, o.size, oidx, nout, out);
    d->xstate[0] = h;
    return s;
}
