/* generalized_alpha.c -- the generalized-alpha step (Chung & Hulbert 1993, index-3 form of
 * Arnold & Bruls 2007) and its rollout on the sparse path.
 *
 * One step, as stages (rtmbs.solvers.generalized_alpha, bound from Python by binding/py_bound.c):
 *   predictor qdd1 = qdd: a1, qd1, q1 from the generalized-alpha relations
 *   niter simplified Newton corrections (Bottasso, Dopico & Trainelli 2008 scaling s = 1/beta'):
 *     evaluate M, Q, Phi, Phi_q at (t + h, q1, qd1) (the first with the force Jacobians)
 *     [M - s gamma' Jqdot - s Jq, Phi_q^T; Phi_q, 0] gathered and factored at the first (kkt.c)
 *     [dq; s dlam] = -K^-1 [s (M qdd1 - Q + Phi_q^T lam1); Phi]   q1, qd1, qdd1, lam1 corrected
 *   stabilisation: velocity (VELOCITY_PASSES solves of [0; -(Phi_q qd1 + Phi_t)] with the step's
 *   factors), projection ([M Phi_q^T; Phi_q 0] at q1: positions (Carpinelli 2016 eq. 30), velocities),
 *   or none
 *   commit a, q, qd, qdd, lambda (tiny values flushed to 0); extra states (extra_states.c)
 *
 * The arithmetic of the numba kernels operation for operation (they are not fastmath: the same
 * bits, given the same evaluations). The products M qdd1, Phi_q^T lam1, Phi_q qd1 go over the
 * entries of midx (a PackedKKTMap of M's and Phi_q's patterns) in their order.
 *
 * A model whose Phi_q is rank deficient (redundant joints) is solved with its kept rows only
 * (opt->rows, as li_euler.c): m is then the number of kept rows, every evaluation checks the
 * left-out rows and copies the kept rows of Phi and Phi_t to the end of `vec`: | Phi kept (m) |
 * Phi_t kept (m) | lambda over the model's rows (mf). Without a row map nothing is copied.
 */
#include <math.h>

#include "fixed_rollout.h"
#include "generalized_alpha.h"

void rtmbs_alpha_views(double* vec, int64_t n, int64_t m, rtmbs_alpha_vectors* v) {
    const int64_t N = n + m;
    v->q1 = vec;
    v->v1 = vec + n;
    v->qdd1 = vec + 2 * n;
    v->a1 = vec + 3 * n;
    v->a = vec + 4 * n;
    v->qdd = vec + 5 * n;
    v->rhs = vec + 6 * n;
    v->lam1 = vec + 6 * n + N;
    v->lam = vec + 6 * n + N + m;
}

void rtmbs_alpha_predict(const double* q, const double* qd, const rtmbs_alpha_options* o,
                         rtmbs_alpha_vectors* v, int64_t n) {
    const double h = o->h, h2 = h * h, am = o->am, g = o->g, b = o->b;
    int64_t i;
    for (i = 0; i < n; i++) {
        v->qdd1[i] = v->qdd[i];
        v->a1[i] = (v->qdd[i] - am * v->a[i]) / (1.0 - am);
        v->v1[i] = qd[i] + h * ((1.0 - g) * v->a[i] + g * v->a1[i]);
        v->q1[i] = q[i] + h * qd[i] + h2 * ((0.5 - b) * v->a[i] + b * v->a1[i]);
    }
}

/* The end of a Newton correction, rhs[:n] holding Q - M qdd1 - Phi_q^T lam1: rhs = [s rhs[:n];
 * -Phi] solved with the iteration matrix; q1 += dq, qd1 += gamma' dq, qdd1 += beta' dq,
 * lam1 += (s dlam)/s (newton_end, _correct). */
static void newton_end(rtmbs_data* d, rtmbs_kkt* kkt, const double* phi, double s, double gp,
                       double bp, rtmbs_alpha_vectors* v, int64_t n, int64_t m) {
    double* rhs = v->rhs;
    int64_t i;
    for (i = 0; i < n; i++) rhs[i] *= s;
    for (i = 0; i < m; i++) rhs[n + i] = -phi[i];
    rtmbs_lu_solve(kkt->ib, kkt->fb, rhs);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
    for (i = 0; i < n; i++) {
        const double dq = rhs[i];
        v->q1[i] += dq;
        v->v1[i] += gp * dq;
        v->qdd1[i] += bp * dq;
    }
    for (i = 0; i < m; i++) v->lam1[i] += rhs[n + i] / s;
}

/* qd1 += the velocity part of K^-1 [0; -(Phi_q qd1 + Phi_t)], Phi_q and Phi_t from w
 * (_velocity_packed) */
static void velocity(rtmbs_data* d, rtmbs_kkt* kkt, const uint32_t* midx, const double* w,
                     const double* phit, double* v1, double* rhs, int64_t n, int64_t m) {
    int64_t i;
    for (i = 0; i < n; i++) rhs[i] = 0.0;
    for (i = 0; i < m; i++) rhs[n + i] = -phit[i];
    rtmbs_kkt_sub_phiq_times(midx, w, v1, rhs + n);
    rtmbs_lu_solve(kkt->ib, kkt->fb, rhs);
    rtmbs_count_lu(d, kkt->ib, kkt->fb, 0, 1);
    for (i = 0; i < n; i++) v1[i] += rhs[i];
}

int64_t rtmbs_alpha_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows) {
    return rows ? RTMBS_ALPHA_VEC_ROWS(n, rows->nkept, mf) : RTMBS_ALPHA_VEC(n, mf);
}

static double flushed(double x) { return fabs(x) < RTMBS_ALPHA_FLUSH ? 0.0 : x; }

void rtmbs_alpha_finish(double* q, double* qd, const rtmbs_alpha_options* o,
                        rtmbs_alpha_vectors* v, int64_t n, int64_t m) {
    const double am = o->am, af = o->af;
    int64_t i;
    for (i = 0; i < n; i++) {
        v->a[i] = flushed(((1.0 - af) * v->qdd1[i] + af * v->qdd[i] - am * v->a[i]) / (1.0 - am));
        q[i] = flushed(v->q1[i]);
        qd[i] = flushed(v->v1[i]);
        v->qdd[i] = flushed(v->qdd1[i]);
    }
    for (i = 0; i < m; i++) v->lam[i] = flushed(v->lam1[i]);
}

static int all_finite(const double* x, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!isfinite(x[i])) return 0;
    return 1;
}

rtmbs_status rtmbs_alpha_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0, rtmbs_kkt* kkt,
                              rtmbs_kkt* pkkt, const uint32_t* midx, double* vec, double* q,
                              double* qd, double t, const rtmbs_alpha_options* opt,
                              double diag[4], int* finite) {
    const rtmbs_rows* map = opt->rows;
    const int64_t n = mdl->size.nq, mf = mdl->size.nc, m = map ? map->nkept : mf;
    const double h = opt->h;
    /* (c, c_d, s, gamma', beta') as GeneralizedAlpha._scales */
    const double bp = (1.0 - opt->am) / (opt->b * h * h * (1.0 - opt->af));
    const double gp = opt->g / (opt->b * h);
    const double s = 1.0 / bp;
    const double t1 = t + h;
    const int64_t what = RTMBS_EVAL_M | RTMBS_EVAL_Q | RTMBS_EVAL_PHI | (m ? RTMBS_EVAL_PHIQ : 0);
    /* (with a row map, the kept rows of Phi and Phi_t copied after the vectors) */
    double* phik = map ? vec + RTMBS_ALPHA_VEC(n, m) : NULL;
    double* phitk = map ? phik + m : NULL;
    rtmbs_packed_offsets o;
    rtmbs_alpha_vectors v;
    double snap[RTMBS_CNT_STEP];
    const double *Q, *phi, *phit;
    double ratio = 1.0, growth = 0.0, ratio2 = 1.0, growth2 = 0.0;
    int64_t i, k;
    rtmbs_status st;

    rtmbs_step_begin(d, snap);
    rtmbs_packed_workspace(&mdl->size, &o);
    Q = w0 + o.Q;
    phi = map ? phik : w0 + o.phi;
    phit = map ? phitk : w0 + o.phit;
    rtmbs_alpha_views(vec, n, m, &v);
    if (mdl->size.nx > 0) d->xstate[0] = h;
    rtmbs_alpha_predict(q, qd, opt, &v, n);
    for (i = 0; i < m; i++) v.lam1[i] = v.lam[i];
    for (k = 0; k < opt->niter; k++) {
        st = rtmbs_evaluate_rows(mdl, d, k == 0 ? what | opt->jac_what : what, t1, v.q1, v.v1,
                                 w0, &o, map, phik, phitk, NULL);
        if (st != RTMBS_OK) return st;
        if (k == 0) {
            ratio = rtmbs_kkt_values_packed(kkt->ib, kkt->fb, kkt->idx, w0, s, s * gp, 1.0, w0,
                                            &growth);
            rtmbs_count_lu(d, kkt->ib, kkt->fb, 1, 0);
        }
        for (i = 0; i < n; i++) v.rhs[i] = Q[i];
        rtmbs_kkt_sub_mass_times(midx, w0, v.qdd1, v.rhs);
        rtmbs_kkt_sub_phiq_transpose_times(midx, w0, v.lam1, v.rhs);
        newton_end(d, kkt, phi, s, gp, bp, &v, n, m);
    }
    if (opt->stab == RTMBS_ALPHA_STAB_VELOCITY) { /* Phi_q, Phi_t at q1; the step's factors */
        st = rtmbs_evaluate_rows(mdl, d, RTMBS_EVAL_PHIQ, t1, v.q1, v.v1, w0, &o, map, phik,
                                 phitk, NULL);
        if (st != RTMBS_OK) return st;
        for (k = 0; k < RTMBS_ALPHA_VELOCITY_PASSES; k++)
            velocity(d, kkt, midx, w0, phit, v.v1, v.rhs, n, m);
    } else if (opt->stab == RTMBS_ALPHA_STAB_PROJECTION) { /* [M Phi_q^T; Phi_q 0] at q1 */
        st = rtmbs_evaluate_rows(mdl, d, RTMBS_EVAL_M | RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ, t1,
                                 v.q1, v.v1, w0, &o, map, phik, phitk, NULL);
        if (st != RTMBS_OK) return st;
        ratio2 = rtmbs_kkt_values_packed(pkkt->ib, pkkt->fb, pkkt->idx, w0, 0.0, 0.0, 1.0, w0,
                                         &growth2);
        rtmbs_count_lu(d, pkkt->ib, pkkt->fb, 1, 0);
        /* positions: K [x; mu] = [0; -Phi], q1 += x (factorisation.py kkt_correction) */
        for (i = 0; i < n; i++) v.rhs[i] = 0.0;
        for (i = 0; i < m; i++) v.rhs[n + i] = -phi[i];
        rtmbs_lu_solve(pkkt->ib, pkkt->fb, v.rhs);
        rtmbs_count_lu(d, pkkt->ib, pkkt->fb, 0, 1);
        for (i = 0; i < n; i++) v.q1[i] += v.rhs[i];
        velocity(d, pkkt, midx, w0, phit, v.v1, v.rhs, n, m);
    }
    rtmbs_alpha_finish(q, qd, opt, &v, n, m);
    if (map) rtmbs_rows_expand(map, v.lam, vec + rtmbs_alpha_vec_size(n, mf, map) - mf);
    diag[0] = ratio;
    diag[1] = growth;
    diag[2] = ratio2;
    diag[3] = growth2;
    *finite = all_finite(q, n) && all_finite(qd, n);
    if (mdl->size.nx > 0) { /* (the Phi_q and M evaluations write no element outputs) */
        st = rtmbs_advance_extra_states(mdl, d, h);
        if (st != RTMBS_OK) return st;
    }
    rtmbs_step_end(d, snap); /* (the step's counts: cost_changes, last_step) */
    return RTMBS_OK;
}

rtmbs_status rtmbs_alpha_step_outputs(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                      double* w1, rtmbs_kkt* kkt, rtmbs_kkt* pkkt,
                                      const uint32_t* midx, double* vec, double* q, double* qd,
                                      double t, const rtmbs_alpha_options* opt,
                                      const int64_t* oidx, int64_t nout, double* out,
                                      int at_start, double diag[4], int* finite) {
    rtmbs_status st;
    rtmbs_packed_offsets o;
    if (at_start && nout) { /* at (t, q, qdot) with the deflections of the step's end */
        const double h0 = d->xstate[0];
        rtmbs_packed_workspace(&mdl->size, &o);
        d->xstate[0] = opt->h;
        st = rtmbs_outputs(mdl, d, t, q, qd, w1, o.size, oidx, nout, out);
        d->xstate[0] = h0;
        if (st != RTMBS_OK) return st;
    }
    st = rtmbs_alpha_step(mdl, d, w0, kkt, pkkt, midx, vec, q, qd, t, opt, diag, finite);
    if (st != RTMBS_OK) return st;
    if (diag[0] > 0.0 && diag[2] > 0.0 && *finite && nout && !at_start)
        st = rtmbs_step_outputs(mdl, d, t + opt->h, q, qd, w1, oidx, nout, out);
    return st;
}

/* -- the rollout (compiled_alpha._generalized_alpha_rollout): the step bound to the loop every
 * fixed-step rollout shares (fixed_rollout.c) ------------------------------------------------ */

static rtmbs_status alpha_step(const rtmbs_step_args* c, double t, int* ok) {
    int finite;
    rtmbs_status s = rtmbs_alpha_step(c->mdl, c->d, c->w0, c->kkt, c->kkt2, c->midx, c->vec, c->q,
                                      c->qd, t, (const rtmbs_alpha_options*)c->opt, c->diag,
                                      &finite);
    *ok = c->diag[0] > 0.0 && c->diag[2] > 0.0 && finite;
    return s;
}

rtmbs_status rtmbs_alpha_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                 rtmbs_kkt* kkt, rtmbs_kkt* pkkt, const uint32_t* midx,
                                 double* vec, double* q, double* qd,
                                 const rtmbs_alpha_options* opt, const rtmbs_rollout* ro,
                                 double diag[4], int64_t* done) {
    const int64_t mf = mdl->size.nc;
    const rtmbs_step_args a = {mdl, d, w0, w1, vec, q, qd, diag, kkt, pkkt, midx, opt, NULL};
    /* (lambda over the model's rows: with a row map, 0 on the left-out ones) */
    return rtmbs_fixed_rollout(&a, alpha_step, vec + rtmbs_alpha_vec_size(mdl->size.nq, mf,
                                                                        opt->rows) - mf,
                               opt->h, ro, done);
}
