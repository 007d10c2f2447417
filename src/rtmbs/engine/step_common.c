/* step_common.c -- what every step and rollout shares: the divergence test, keeping and putting
 * back the last good state, counting the LU work. */
#include <math.h>
#include <string.h>

#include "sparse_lu.h"
#include "stages.h"

int64_t rtmbs_first_diverged(const double* q, const double* qd, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++) /* (a NaN fails both comparisons) */
        if (!(q[i] < RTMBS_DIVERGENCE_LIMIT && q[i] > -RTMBS_DIVERGENCE_LIMIT &&
              qd[i] < RTMBS_DIVERGENCE_LIMIT && qd[i] > -RTMBS_DIVERGENCE_LIMIT))
            return i;
    return -1;
}

int64_t rtmbs_first_nonfinite(const double* q, const double* qd, int64_t n) {
    int64_t i;
    for (i = 0; i < n; i++)
        if (!isfinite(q[i]) || !isfinite(qd[i])) return i;
    return -1;
}

int rtmbs_diverged(const double* q, const double* qd, int64_t n) {
    return rtmbs_first_diverged(q, qd, n) >= 0;
}

void rtmbs_check_factors(rtmbs_data* d, const uint32_t* ib, const double* fb, double ratio,
                         double t) {
    const double* stats = fb + (size_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ] +
                          4 * (size_t)ib[RTMBS_LU_H_N] + ib[RTMBS_LU_H_NC];
    if (ratio == 0.0)
        rtmbs_warn(d, RTMBS_WARN_SINGULAR, -1, t);
    else if (stats[RTMBS_LU_S_FLAG] != 0.0)
        rtmbs_warn(d, RTMBS_WARN_GROWTH, (int64_t)stats[RTMBS_LU_S_ROW], t);
}

void rtmbs_check_left_out(rtmbs_data* d, const int64_t* kept, int64_t nkept, const int64_t* left,
                          int64_t nleft, const double* phi, double t) {
    double kmax = 0.0, bound, a;
    int64_t i, last = -1;
    for (i = 0; i < nkept; i++) { /* (a NaN stays: the bound is then NaN, as numpy's max) */
        a = fabs(phi[kept[i]]);
        if (a > kmax || isnan(a)) kmax = a;
    }
    bound = RTMBS_LEFT_OUT_ATOL + RTMBS_LEFT_OUT_FACTOR * kmax;
    for (i = 0; i < nleft; i++) {
        a = fabs(phi[left[i]]);
        if (a > bound || isnan(a)) {
            if (!(a <= d->left_worst[0])) {
                d->left_worst[0] = a;
                d->left_worst[1] = (double)left[i];
            }
            last = left[i];
        }
    }
    if (last >= 0) rtmbs_warn(d, RTMBS_WARN_REDUNDANT, last, t);
}

int64_t rtmbs_rows_bind(rtmbs_rows* r, const int64_t* map, int64_t len, int64_t m) {
    int64_t i, k = 0, l = 0;
    if (len < 2 || map[0] < 0 || map[1] < 0 || map[0] + map[1] != m || len != 2 + m) return -2;
    r->nkept = map[0];
    r->nleft = map[1];
    r->kept = map + 2;
    r->left = map + 2 + r->nkept;
    for (i = 0; i < m; i++) /* each row once, both lists increasing */
        if (k < r->nkept && r->kept[k] == i)
            k++;
        else if (l < r->nleft && r->left[l] == i)
            l++;
        else
            return i;
    return -1;
}

rtmbs_status rtmbs_evaluate_rows(const rtmbs_model* mdl, rtmbs_data* d, int64_t what, double t,
                                 const double* q, const double* qd, double* w,
                                 const rtmbs_packed_offsets* o, const rtmbs_rows* map,
                                 double* phi, double* phit, double* gamma) {
    rtmbs_status s = rtmbs_evaluate(mdl, d, RTMBS_EVAL_PACKED | what, t, q, qd, w, o->size);
    int64_t i;
    if (s != RTMBS_OK || !map || !(what & (RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ))) return s;
    rtmbs_check_left_out(d, map->kept, map->nkept, map->left, map->nleft, w + o->phi, t);
    if (phi)
        for (i = 0; i < map->nkept; i++) phi[i] = w[o->phi + map->kept[i]];
    if (phit)
        for (i = 0; i < map->nkept; i++) phit[i] = w[o->phit + map->kept[i]];
    if (gamma && (what & RTMBS_EVAL_GAMMA))
        for (i = 0; i < map->nkept; i++) gamma[i] = w[o->gamma + map->kept[i]];
    return s;
}

void rtmbs_rows_expand(const rtmbs_rows* map, const double* lam, double* full) {
    int64_t i;
    for (i = 0; i < map->nleft; i++) full[map->left[i]] = 0.0;
    for (i = 0; i < map->nkept; i++) full[map->kept[i]] = lam[i];
}

void rtmbs_copy_state(const double* q, const double* qd, const double* x, double* q_to,
                      double* qd_to, double* x_to, int64_t n, int64_t nx) {
    memcpy(q_to, q, (size_t)n * sizeof(double));
    memcpy(qd_to, qd, (size_t)n * sizeof(double));
    if (nx) memcpy(x_to, x, (size_t)nx * sizeof(double));
}

void rtmbs_count_lu(rtmbs_data* d, const uint32_t* ib, double* fb, int factor,
                    int64_t solves) {
    const double* flag = fb + (size_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ] +
                         4 * (size_t)ib[RTMBS_LU_H_N] + ib[RTMBS_LU_H_NC] + RTMBS_LU_S_FLAG;
    /* the refactorisation's multiply-adds, counted from its plan once (the LU's statistics keep
     * the count; rtmbs_lu_flops_refactor walks the plan: 4 % of a sedan step if done each time) */
    double* ops = fb + (flag - fb) - RTMBS_LU_S_FLAG + RTMBS_LU_S_OPS;
    if (factor) {
        if (*ops <= 0.0) *ops = (double)rtmbs_lu_flops_refactor(ib);
        rtmbs_count(d, RTMBS_CNT_FACTOR, 1);
        rtmbs_count(d, RTMBS_CNT_FLOP, (int64_t)*ops);
    }
    if (solves) {
        rtmbs_count(d, RTMBS_CNT_SOLVE, solves);
        rtmbs_count(d, RTMBS_CNT_FLOP, solves * rtmbs_lu_flops_solve(ib, *flag != 0.0));
    }
}

int rtmbs_li_euler_update(rtmbs_data* d, double* q, double* qd, double* dq, const double* qk,
                          const double* rhs, double h, int implicit, double* lam, int64_t n,
                          int64_t m, double t) {
    int64_t i;
    for (i = 0; i < n; i++) {
        if (qk)
            dq[i] = qk[i] - q[i];
        else if (implicit)
            dq[i] = h * (qd[i] + rhs[i]);
        q[i] += dq[i];
        qd[i] += rhs[i];
    }
    i = rtmbs_first_nonfinite(q, qd, n); /* a finite matrix may still give a non-finite state */
    if (i >= 0) {
        rtmbs_warn(d, RTMBS_WARN_NONFINITE, i, t);
        return 0;
    }
    for (i = 0; i < m; i++) lam[i] = rhs[n + i];
    return 1;
}
