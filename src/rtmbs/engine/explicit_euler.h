/* explicit_euler.h -- explicit Euler on the index-1 form (explicit_euler.c; Carpinelli 2016 eqs. 11-12,
 * 14): the step and its rollout on the sparse path of a compiled Cartesian model. */
#ifndef RTMBS_EXPLICIT_EULER_H
#define RTMBS_EXPLICIT_EULER_H

#include "fixed_rollout.h"
#include "li_euler.h"

/* stab: RTMBS_STAB_NONE, RTMBS_STAB_BAUMGARTE (index 1, eq. 4) or RTMBS_STAB_PROJECT (eq. 30 with
 * the factors of eq. 12) -- rtmbs.solvers.compiled_explicit.STAB */
typedef struct rtmbs_explicit_options_ {
    double h;     /* step, s */
    int stab;     /* RTMBS_STAB_* */
    double alpha; /* Baumgarte's alpha, 1/s */
    double beta;  /* Baumgarte's beta, 1/s */
    int semi;     /* 1: q+ = q + h qdot+ (semi-implicit, symplectic Euler), 0: q + h qdot (eq. 11) */
    const rtmbs_rows* rows; /* the rows solved with (stages.h); NULL: every row of the model */
} rtmbs_explicit_options;

/* Length of the step's vector buffer `vec`: rhs = [qdd; lambda] (n + m) | projection rhs (n + m) |
 * dq (n) | q + dq (n) (compiled_explicit.vector_size). */
#define RTMBS_EXPLICIT_EULER_VEC(n, m) (2 * ((n) + (m)) + 2 * (n))
/* The same with a row map of m of the model's mf rows: the kept rows' Phi, Phi_t and gamma (m
 * each) and lambda over the model's rows (mf, 0 on the left-out rows) follow. */
#define RTMBS_EXPLICIT_EULER_VEC_ROWS(n, m, mf) (RTMBS_EXPLICIT_EULER_VEC(n, m) + 3 * (m) + (mf))

/* Length of `vec` for the model's n, mf rows and the row map (NULL: none), and where lambda over
 * the model's rows starts in it (a rollout's saved multipliers). */
int64_t rtmbs_explicit_euler_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows);
int64_t rtmbs_explicit_euler_lambda_offset(int64_t n, int64_t mf, const rtmbs_rows* rows);

/* One step (rtmbs.solvers.explicit): q, qd updated in place, lambda = vec[n:n+m] (with
 * opt->rows, a model with redundant rows: m kept rows, the KKT map holding their Phi_q entries,
 * the right-hand sides their gamma, Phi_t, Phi, every evaluation checking the left-out rows, and
 * lambda also over the model's rows at rtmbs_explicit_euler_lambda_offset);
 * w0, w1 packed workspaces; kkt the factors of [M Phi_q^T; Phi_q 0]; out0[k] = data[oidx0[k]]
 * right after the evaluation at t. diag = (pivot ratio, largest multiplier): a ratio of 0 is a
 * failed step (the step is still finished, as numba finishes it; q, qd not to be trusted). */
rtmbs_status rtmbs_explicit_euler_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                       double* w1, rtmbs_kkt* kkt, double* vec, double* q,
                                       double* qd, double t, const rtmbs_explicit_options* opt,
                                       const int64_t* oidx0, int64_t nout0, double* out0,
                                       double diag[2]);

/* The rollout `ro` of explicit-Euler steps (compiled_explicit._explicit_euler_rollout) through
 * rtmbs_fixed_rollout. */
rtmbs_status rtmbs_explicit_euler_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                          double* w1, rtmbs_kkt* kkt, double* vec, double* q,
                                          double* qd, const rtmbs_explicit_options* opt,
                                          const rtmbs_rollout* ro, int64_t* done);

#endif /* RTMBS_EXPLICIT_EULER_H */
