/* generalized_alpha.h -- the generalized-alpha step and its rollout (generalized_alpha.c). */
#ifndef RTMBS_GENERALIZED_ALPHA_H
#define RTMBS_GENERALIZED_ALPHA_H

#include "li_euler.h"

/* stabilisations (rtmbs.solvers.compiled_alpha STAB_*) */
#define RTMBS_ALPHA_STAB_NONE 0
#define RTMBS_ALPHA_STAB_VELOCITY 1   /* velocity correction with the step's factors */
#define RTMBS_ALPHA_STAB_PROJECTION 2 /* [M Phi_q^T; Phi_q 0] at q1: positions, then velocities */

/* solves of the velocity correction with the step's factors (compiled_alpha.VELOCITY_PASSES) */
#define RTMBS_ALPHA_VELOCITY_PASSES 2
/* values below this are set to 0 when a step is committed (compiled_alpha.FLUSH: the alpha_m
 * recursion would otherwise drift into subnormal numbers, ~100x slower arithmetic) */
#define RTMBS_ALPHA_FLUSH 1e-80

typedef struct rtmbs_alpha_options_ {
    double h;                /* step, s */
    double am, af, g, b;     /* alpha_m, alpha_f, gamma, beta (Chung & Hulbert 1993) */
    int64_t jac_what;        /* RTMBS_EVAL_JAC or RTMBS_EVAL_JACS: Jacobians of the iteration matrix */
    int64_t niter;           /* simplified Newton corrections (>= 1) */
    int stab;                /* RTMBS_ALPHA_STAB_* */
    const rtmbs_rows* rows;  /* the rows solved with (stages.h); NULL: every row of the model */
} rtmbs_alpha_options;

/* Length of the step's vector buffer `vec`: q1 (n) | qdot1 (n) | qddot1 (n) | a1 (n) | a (n) |
 * qddot (n) | rhs (n + m) | lambda1 (m) | lambda (m). a, qddot and lambda are the solver's state
 * between steps. */
#define RTMBS_ALPHA_VEC(n, m) (7 * (n) + 3 * (m))
/* The same with a row map of m of the model's mf rows (m the kept rows, the vectors above of
 * that size): the kept rows' Phi and Phi_t (m each) and lambda over the model's rows (mf, 0 on
 * the left-out rows) follow. */
#define RTMBS_ALPHA_VEC_ROWS(n, m, mf) (RTMBS_ALPHA_VEC(n, m) + 2 * (m) + (mf))

/* Length of `vec` for the model's n, mf rows and the row map (NULL: none); lambda over the
 * model's rows is its last mf values (a rollout's saved multipliers). */
int64_t rtmbs_alpha_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows);

/* The vectors of `vec`, as views (rtmbs_alpha_views). */
typedef struct rtmbs_alpha_vectors_ {
    double *q1, *v1, *qdd1, *a1, *a, *qdd, *rhs, *lam1, *lam;
} rtmbs_alpha_vectors;
void rtmbs_alpha_views(double* vec, int64_t n, int64_t m, rtmbs_alpha_vectors* v);

/* The stages of a step the sparse (generalized_alpha.c) and dense (alpha_dense.c) steps share:
 * the predictor qdd1 = qdd: a1, qd1, q1 from the generalized-alpha relations
 * (rtmbs.solvers.generalized_alpha._predict); the commit a <- ((1 - af) qdd1 + af qdd -
 * am a)/(1 - am), q, qd, qdd, lambda <- q1, qd1, qdd1, lambda1, tiny values flushed to 0
 * (RTMBS_ALPHA_FLUSH; _finish). */
void rtmbs_alpha_predict(const double* q, const double* qd, const rtmbs_alpha_options* o,
                         rtmbs_alpha_vectors* v, int64_t n);
void rtmbs_alpha_finish(double* q, double* qd, const rtmbs_alpha_options* o,
                        rtmbs_alpha_vectors* v, int64_t n, int64_t m);

/* One generalized-alpha step (Arnold & Bruls 2007; rtmbs.solvers.generalized_alpha): predictor,
 * opt->niter simplified Newton corrections with the iteration matrix
 * [M - s gamma' Jqdot - s Jq, Phi_q^T; Phi_q, 0] factored at the first, the stabilisation, the
 * commit of q, qd, a, qddot, lambda, the extra states. Every evaluation goes into the packed
 * workspace w0. kkt: the iteration matrix's plan and storage; pkkt the
 * projection matrix's (STAB_PROJECTION; else any); midx a PackedKKTMap of M's and Phi_q's
 * patterns (the products). diag = (pivot ratio, largest multiplier of the iteration matrix, the
 * same of the projection matrix (1, 0 without it)); *finite = q and qd finite. The step failed
 * if a ratio is 0 or the state is not finite (q, qd then not to be trusted). With opt->rows
 * (a model with redundant rows, rtmbs.solvers.redundancy) m is the number of kept rows: the
 * KKT maps and midx hold their Phi_q entries, the right-hand sides read their Phi and Phi_t,
 * every evaluation checks the left-out rows (rtmbs_evaluate_rows) and the committed lambda is
 * also written over the model's rows at the end of vec. */
rtmbs_status rtmbs_alpha_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0, rtmbs_kkt* kkt,
                              rtmbs_kkt* pkkt, const uint32_t* midx, double* vec, double* q,
                              double* qd, double t, const rtmbs_alpha_options* opt,
                              double diag[4], int* finite);

/* rtmbs_alpha_step, then the named outputs (oidx, nout) into out, evaluated in w1: at
 * (t + h, q+, qdot+) after a good step (left as they were after a failed one), or with at_start
 * at (t, q, qdot) before the step with the deflections of the step's end (Solver.step_outputs). */
rtmbs_status rtmbs_alpha_step_outputs(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                      double* w1, rtmbs_kkt* kkt, rtmbs_kkt* pkkt,
                                      const uint32_t* midx, double* vec, double* q, double* qd,
                                      double t, const rtmbs_alpha_options* opt,
                                      const int64_t* oidx, int64_t nout, double* out,
                                      int at_start, double diag[4], int* finite);

/* The rollout `ro` (li_euler.h) of generalized-alpha steps
 * (compiled_alpha._generalized_alpha_rollout); diag takes the last step's factor statistics. A
 * failed or diverging step puts q, qd and the extra states back to the last good step (a, qddot,
 * lambda are left as that step made them, as after a failed step). *done gets the number of good
 * steps. */
rtmbs_status rtmbs_alpha_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                 rtmbs_kkt* kkt, rtmbs_kkt* pkkt, const uint32_t* midx,
                                 double* vec, double* q, double* qd,
                                 const rtmbs_alpha_options* opt, const rtmbs_rollout* ro,
                                 double diag[4], int64_t* done);

#endif /* RTMBS_GENERALIZED_ALPHA_H */
