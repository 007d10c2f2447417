/* li_euler_indep.c -- Algorithm 2 (Carpinelli 2016: linearly implicit Euler in independent
 * coordinates, Carpinelli 2016 Table 2) for B = the coordinate partition, on packed workspaces.
 *
 * State (q, zd). With T = [S R] = [Phi_q; B]^-1 (eq. 24), b = -Phi_t [- gb Phi], c = gamma:
 *   qdot = S b + R zd                                                          (eq. 24)
 *   R^T A R dzd = R^T (h Q + h^2 Jq qdot) - R^T A h S c,  A = M - h Jqdot - h^2 Jq  (eq. 28)
 *   dqdot = h S c + R dzd (eq. 26);  h Phi_q^T lambda = h Q + h^2 Jq qdot - A dqdot  (eq. 18)
 *   dq = h (qdot + dqdot) or h qdot [+ projection, eq. 30];  q += dq, zd += dzd
 * then Phi_u at the new positions, its pivot check (a rebase below rebase_below: finished by the
 * caller) and qdot = S b + R zd.
 *
 * Called from Python as a bound step (binding/py_bound.c, py_indep.c) or inside its rollout
 * (rollout_indep.c).
 */
#include "li_euler_indep.h"
#include "sensors.h"

/* the step's vectors (compiled_indep._views) */
typedef struct indep_vec_ {
    double *Rn, *AR, *H, *Aval, *Sc, *r, *x, *w, *dqd, *dq, *qp, *qd_pred, *q_last, *qd_last;
    double *dzd, *zd, *zero_m, *lam, *prhs;
} indep_vec;

static void vec_views(double* vec, int64_t n, int64_t m, int64_t na, indep_vec* v) {
    const int64_t f = n - m;
    double* o = vec;
    v->Rn = o; o += n * f;
    v->AR = o; o += n * f;
    v->H = o; o += f * f;
    v->Aval = o; o += na;
    v->Sc = o; o += n;
    v->r = o; o += n;
    v->x = o; o += n;
    v->w = o; o += n;
    v->dqd = o; o += n;
    v->dq = o; o += n;
    v->qp = o; o += n;
    v->qd_pred = o; o += n;
    v->q_last = o; o += n;
    v->qd_last = o; o += n;
    v->dzd = o; o += f;
    v->zd = o; o += f;
    v->zero_m = o; o += m;
    v->lam = o; o += m;
    v->prhs = o;
}

/* the A entries of a PackedKKTMap index (sparse._packed_parts) */
typedef struct a_entries_ {
    uint32_t na, dj;
    const uint32_t *ai, *aj, *am, *aq;
} a_entries;

static void a_parts(const uint32_t* idx, a_entries* a) {
    a->na = idx[0];
    a->dj = idx[3];
    a->ai = idx + 4;
    a->aj = a->ai + a->na;
    a->am = a->aj + a->na;
    a->aq = a->am + a->na;
}

/* multiply-adds of the dense LU of a k x k matrix and of one solve (the loops' trip counts) */
static int64_t dense_flops_factor(int64_t k) {
    int64_t j, s = 0;
    for (j = 1; j < k; j++) s += j + j * j;
    return s;
}

/* Eq. 28 on the entries of A (reduced._reduced_entries): A into Aval, A R, H = R^T (A R) (zeros
 * of R skipped), factor, dzd; r = h Q + h^2 Jq qdot (kept for lambda); dqdot = h S c + R dzd.
 * Returns the pivot ratio of H. */
static double reduced_entries(rtmbs_data* d, const uint32_t* aidx, const double* buf,
                              const double* Q, const double* qd, double h, indep_vec* v,
                              int64_t* hpiv, int64_t n, int64_t f) {
    a_entries A;
    const double h2 = h * h;
    const double* Rn = v->Rn;
    double *AR = v->AR, *H = v->H, *r = v->r, *w = v->w, *dzd = v->dzd;
    double a, jq, ria, wi, s, hr;
    uint32_t e, i, j, k;
    int64_t ii, a_, b;
    a_parts(aidx, &A);
    for (ii = 0; ii < n; ii++) {
        r[ii] = 0.0;
        w[ii] = 0.0;
        for (b = 0; b < f; b++) AR[ii * f + b] = 0.0;
    }
    for (e = 0; e < A.na; e++) {
        i = A.ai[e];
        j = A.aj[e];
        k = A.aq[e];
        jq = buf[k];
        a = buf[A.am[e]] - h * buf[k + A.dj] - h2 * jq;
        v->Aval[e] = a;
        r[i] += jq * qd[j];
        w[i] += a * v->Sc[j];
        for (b = 0; b < f; b++) AR[(int64_t)i * f + b] += a * Rn[(int64_t)j * f + b];
    }
    for (a_ = 0; a_ < f * f; a_++) H[a_] = 0.0;
    for (ii = 0; ii < n; ii++)
        for (a_ = 0; a_ < f; a_++) {
            ria = Rn[ii * f + a_];
            if (ria != 0.0)
                for (b = 0; b < f; b++) H[a_ * f + b] += ria * AR[ii * f + b];
        }
    hr = rtmbs_dense_lu_factor(H, hpiv, f);
    rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
    rtmbs_count(d, RTMBS_CNT_FLOP, dense_flops_factor(f));
    for (ii = 0; ii < n; ii++) {
        r[ii] = h * Q[ii] + h2 * r[ii];
        w[ii] = r[ii] - h * w[ii];
    }
    for (a_ = 0; a_ < f; a_++) dzd[a_] = 0.0;
    for (ii = 0; ii < n; ii++) {
        wi = w[ii];
        for (a_ = 0; a_ < f; a_++) dzd[a_] += Rn[ii * f + a_] * wi;
    }
    rtmbs_dense_lu_solve(H, hpiv, dzd, f);
    rtmbs_count(d, RTMBS_CNT_SOLVE, 1);
    rtmbs_count(d, RTMBS_CNT_FLOP, f * f);
    for (ii = 0; ii < n; ii++) {
        s = h * v->Sc[ii];
        for (a_ = 0; a_ < f; a_++) s += Rn[ii * f + a_] * dzd[a_];
        v->dqd[ii] = s;
    }
    return hr;
}

/* x = r - A dqdot = h Phi_q^T lambda over the entries of A (eq. 18; reduced._lambda_rhs_entries) */
static void lambda_rhs(const uint32_t* aidx, const indep_vec* v, int64_t n) {
    a_entries A;
    uint32_t e;
    int64_t i;
    a_parts(aidx, &A);
    for (i = 0; i < n; i++) v->x[i] = v->r[i];
    for (e = 0; e < A.na; e++) v->x[A.ai[e]] -= v->Aval[e] * v->dqd[A.aj[e]];
}

static int same(const double* a, const double* b, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

rtmbs_status rtmbs_li_euler_indep_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                       double* w1, const rtmbs_partition* basis,
                                       const uint32_t* aidx, const rtmbs_kkt* proj_kkt,
                                       double* vec, int64_t* hpiv, double* q, double* qd, double t,
                                       const rtmbs_indep_options* opt, const int64_t* oidx0,
                                       int64_t nout0, double* out0, int* code, double diag[5]) {
    const int64_t n = mdl->size.nq, m = mdl->size.nc, f = n - m;
    const double h = opt->h, gb = opt->gb;
    const int extra = mdl->size.nx > 0;
    const int64_t what_end = RTMBS_EVAL_PACKED | RTMBS_EVAL_PHIQ | (gb != 0.0 ? RTMBS_EVAL_PHI : 0);
    rtmbs_packed_offsets o;
    rtmbs_phiq_reader pq;
    indep_vec v;
    const double *Q, *phi, *phit, *gamma, *phi1, *bphi;
    double fac[3], hr, pratio = 1.0, pgrowth = 0.0;
    int ok;
    int64_t i;
    rtmbs_status s;

    rtmbs_packed_workspace(&mdl->size, &o);
    vec_views(vec, n, m, aidx[0], &v);
    rtmbs_phiq_reader_make(aidx, w0, &pq);
    Q = w0 + o.Q;
    phi = w0 + o.phi;
    phit = w0 + o.phit;
    gamma = w0 + o.gamma;
    phi1 = w1 + o.phi;
    bphi = gb != 0.0 ? phi : v.zero_m;
    if (extra) d->xstate[0] = h;
    *code = 0;
    if (!(same(q, v.q_last, n) && same(qd, v.qd_last, n))) { /* the caller changed the state */
        if (nout0) { /* the outputs at the state given, not at the re-mapped qdot */
            s = rtmbs_outputs(mdl, d, t, q, qd, w1, o.size, oidx0, nout0, out0);
            if (s != RTMBS_OK) return s;
        }
        s = rtmbs_evaluate(mdl, d, what_end, t, q, qd, w0, o.size);
        if (s != RTMBS_OK) return s;
        rtmbs_partition_factor(d, basis, &pq, m, fac);
        rtmbs_partition_zd(basis, qd, v.zd, n, m);
        rtmbs_partition_velocity(d, basis, &pq, phit, bphi, gb, v.zd, qd, n, m);
        *code |= RTMBS_INDEP_CHANGED;
    }
    /* one evaluation at (t, q, qdot): M, Q, gamma and the Jacobians (Phi_q, Phi_t from the end
     * of the last step, at the same q) */
    s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_PACKED | RTMBS_EVAL_M | RTMBS_EVAL_Q | RTMBS_EVAL_GAMMA |
                                   opt->jac_what, t, q, qd, w0, o.size);
    if (s != RTMBS_OK) return s;
    if (!(*code & RTMBS_INDEP_CHANGED))
        rtmbs_gather_outputs(mdl, d, t, oidx0, nout0, out0);
    /* R, S c (eqs. 24-25), eq. 28, lambda (eq. 18); dq */
    rtmbs_partition_R_Sc(d, basis, &pq, gamma, v.Rn, v.Sc, n, m);
    hr = reduced_entries(d, aidx, w0, Q, qd, h, &v, hpiv, n, f);
    if (opt->multipliers) {
        lambda_rhs(aidx, &v, n);
        rtmbs_partition_lambda(d, basis, v.x, v.lam, h, m);
    }
    for (i = 0; i < n; i++) v.dq[i] = opt->implicit ? h * (qd[i] + v.dqd[i]) : h * qd[i];
    if (extra) { /* (the evaluations below write no element outputs: those at t are used) */
        s = rtmbs_advance_extra_states(mdl, d, h);
        if (s != RTMBS_OK) return s;
    }
    ok = hr > 0.0;
    if (opt->proj != RTMBS_INDEP_PROJ_NONE) { /* eq. 30 at q + dq */
        for (i = 0; i < n; i++) v.qp[i] = q[i] + v.dq[i];
        s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_PACKED | RTMBS_EVAL_PHI |
                                       (opt->proj == RTMBS_INDEP_PROJ_KKT ? RTMBS_EVAL_PHIQ : 0),
                           t + h, v.qp, qd, w1, o.size);
        if (s != RTMBS_OK) return s;
        if (opt->proj == RTMBS_INDEP_PROJ_KKT) {
            const uint32_t* ib = proj_kkt->ib;
            const double* flag = proj_kkt->fb + (size_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ] +
                                 4 * (size_t)ib[RTMBS_LU_H_N] + ib[RTMBS_LU_H_NC] + RTMBS_LU_S_FLAG;
            pratio = rtmbs_project_kkt(ib, proj_kkt->fb, proj_kkt->idx, w0, w1, phi1, m, h, v.prhs,
                                       v.dq, n, &pgrowth);
            rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
            rtmbs_count(d, RTMBS_CNT_SOLVE, 1);
            rtmbs_count(d, RTMBS_CNT_FLOP, rtmbs_lu_flops_refactor(ib) +
                                               rtmbs_lu_flops_solve(ib, *flag != 0.0));
            ok = ok && pratio > 0.0;
        } else {
            rtmbs_partition_project_T(d, basis, phi1, v.dq, m);
        }
    }
    /* Euler step of (q, zd) (Table 2), the predicted qdot + dqdot for a rebase */
    for (i = 0; i < n; i++) {
        q[i] += v.dq[i];
        v.qd_pred[i] = qd[i] + v.dqd[i];
    }
    for (i = 0; i < f; i++) v.zd[i] += v.dzd[i];
    /* Phi_u at the new positions, its pivot check, qdot = S b + R zd */
    s = rtmbs_evaluate(mdl, d, what_end, t + h, q, qd, w0, o.size);
    if (s != RTMBS_OK) return s;
    rtmbs_partition_factor(d, basis, &pq, m, fac);
    if (ok) *code |= RTMBS_INDEP_OK;
    diag[0] = fac[0];
    diag[1] = fac[1];
    diag[2] = fac[2];
    diag[3] = pratio;
    diag[4] = pgrowth;
    rtmbs_count(d, RTMBS_CNT_STEP, 1);
    if (fac[0] < opt->rebase_below) {
        *code |= RTMBS_INDEP_REBASE;
        return RTMBS_OK;
    }
    rtmbs_partition_velocity(d, basis, &pq, phit, bphi, gb, v.zd, qd, n, m);
    for (i = 0; i < n; i++) {
        v.q_last[i] = q[i];
        v.qd_last[i] = qd[i];
    }
    return RTMBS_OK;
}
