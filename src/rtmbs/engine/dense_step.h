/* dense_step.h -- the stages every dense step of a provider (providers/provider.h: the planar
 * truck) shares (dense_step.c): its buffers and data, the counted evaluation, the assembly and
 * factorisation of a KKT matrix on dense matrices (the engine's dense LU), its solves, the
 * projection of Carpinelli 2016 eq. 30 with given factors. li-euler's (li_euler_dense.c) and
 * generalized-alpha's (alpha_dense.c) steps are made of them; their rollout is dense_rollout.c. */
#ifndef RTMBS_DENSE_STEP_H
#define RTMBS_DENSE_STEP_H

#include "li_euler.h"
#include "providers/provider.h"

/* A step's buffers, made once (the solvers' dense arrays): ws0, ws1 dense protocol workspaces
 * (rtmbs_workspace_size(n, m)); K, P ((n + m) x (n + m), row-major) the step's KKT matrix and a
 * second one, factored in place; piv, ppiv (n + m) their row swaps; vec the step's vectors (its
 * length and layout are the step's: RTMBS_LI_EULER_VEC, RTMBS_ALPHA_VEC), lambda at its end. */
typedef struct rtmbs_dense_work_ {
    double *ws0, *ws1, *K, *P, *vec;
    int64_t *piv, *ppiv;
} rtmbs_dense_work;

/* The data of a provider's step: d->counter and d->warning point at the caller's counter
 * (RTMBS_COUNTSLOTS) and warning (RTMBS_WARNSLOTS x 3) tables, every other field is NULL (a
 * provider has no compiled model's data). */
void rtmbs_provider_data(rtmbs_data* d, double* counter, double* warning);

/* The fields of a dense protocol workspace (provider.h), as views. */
typedef struct rtmbs_dense_ws_ {
    double *M, *Q, *phi, *phiq, *phit, *Jq, *Jqd;
} rtmbs_dense_ws;
void rtmbs_dense_views(double* ws, int64_t n, int64_t m, rtmbs_dense_ws* v);

/* One evaluation of the provider into ws, counted. */
rtmbs_status rtmbs_dense_evaluate(const rtmbs_provider* p, rtmbs_data* d, double t,
                                  const double* q, const double* qd, int64_t what, double* ws);

/* An evaluation that did not succeed: a state outside the model's domain is a failed step
 * (diag[0] = 0, warned as non-finite; returns RTMBS_OK), any other status the step's. */
rtmbs_status rtmbs_dense_failed(rtmbs_data* d, rtmbs_status s, double t, double* diag);

/* K = [M - cd Jqdot - c Jq (M alone without with_jac), s Phi_top^T; Phi_bottom, 0]
 * (rtmbs.solvers.dense.iteration_matrix, kkt_assemble; v the workspace holding M, Jq, Jqdot). */
void rtmbs_dense_assemble(double* K, const rtmbs_dense_ws* v, int with_jac, double cd, double c,
                          const double* top, double s, const double* bottom, int64_t n,
                          int64_t m);

/* The LU of the N x N matrix K in place, counted (a factorisation, its multiply-adds); a zero
 * pivot warned. Returns the pivot ratio (0: a zero pivot). */
double rtmbs_dense_factor(rtmbs_data* d, double* K, int64_t* piv, int64_t N, double t);

/* K x = b in place with the factors (K, piv), counted (a solve, its multiply-adds). */
void rtmbs_dense_solve(rtmbs_data* d, const double* K, const int64_t* piv, double* b, int64_t N);

/* The projection of eq. 30 with the factors (K, piv): K [x; mu] = [0; -Phi] solved in prhs
 * (n + m), dq += x (rtmbs.solvers.dense.kkt_correction). */
void rtmbs_dense_correction(rtmbs_data* d, const double* K, const int64_t* piv, const double* phi,
                            double* prhs, double* dq, int64_t n, int64_t m);

#endif /* RTMBS_DENSE_STEP_H */
