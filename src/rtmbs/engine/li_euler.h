/* li_euler.h -- the linearly implicit Euler step and its rollout (li_euler.c, rollout.c). */
#ifndef RTMBS_LI_EULER_H
#define RTMBS_LI_EULER_H

#include "sparse_lu.h"
#include "stages.h"

/* One KKT matrix of a step: ib the LU plan and idx the PackedKKTMap index into the packed
 * workspaces (uint32, constant: rtmbs.solvers.sparse), fb its values, factors and statistics (one
 * per run). */
typedef struct rtmbs_kkt_ {
    const uint32_t* ib;
    double* fb;
    const uint32_t* idx;
} rtmbs_kkt;

/* stabilisations (rtmbs.solvers.compiled_step STAB_*) */
#define RTMBS_STAB_NONE 0
#define RTMBS_STAB_PROJECT 1   /* eq. 30 with the factors of eq. 22 (projection="step") */
#define RTMBS_STAB_BAUMGARTE 2 /* index-2 Baumgarte */
#define RTMBS_STAB_MASS 3      /* eq. 30 with its own KKT (projection="mass") */
#define RTMBS_STAB_GGL 4       /* GGL positions */

typedef struct rtmbs_li_euler_options_ {
    double h;         /* step, s */
    int64_t jac_what; /* RTMBS_EVAL_JAC or RTMBS_EVAL_JACS: which Jacobians enter eq. 22 */
    int implicit;     /* 1: q+ = q + h qdot+ (implicit position update), 0: q + h qdot */
    int stab;         /* RTMBS_STAB_* */
    int niter;        /* projection solves (PROJECT) or GGL corrections (GGL) */
    double gamma;     /* Baumgarte's gamma_B (negative: 1/h) */
    const rtmbs_rows* rows; /* the rows solved with; NULL: every row of the model */
} rtmbs_li_euler_options;

/* Length of the step's vector buffer `vec` (m rows solved with). */
#define RTMBS_LI_EULER_VEC(n, m) (3 * ((n) + (m)) + 3 * (n) + 2 * (m))
/* The same with a row map of m of the model's mf rows: the kept rows' Phi and Phi_t (m each)
 * and lambda over the model's rows (mf, 0 on the left-out rows) follow. */
#define RTMBS_LI_EULER_VEC_ROWS(n, m, mf) (RTMBS_LI_EULER_VEC(n, m) + 2 * (m) + (mf))

/* Length of `vec` for the model's n, mf rows and the row map (NULL: none), and where lambda over
 * the model's rows starts in it (a rollout's saved multipliers). */
int64_t rtmbs_li_euler_vec_size(int64_t n, int64_t mf, const rtmbs_rows* rows);
int64_t rtmbs_li_euler_lambda_offset(int64_t n, int64_t mf, const rtmbs_rows* rows);

/* One step of Algorithm 1 (Carpinelli 2016, eq. 22 + the stabilisation): q, qd updated in place,
 * lambda at the end of vec (with opt->rows: lambda of the kept rows at the end of the first
 * RTMBS_LI_EULER_VEC(n, nkept) values, over the model's rows at rtmbs_li_euler_lambda_offset).
 * w0, w1: packed workspaces; kkt: eq. 22's plan and storage (with opt->rows: its Phi_q entries
 * those of the kept rows); kkt2 the second KKT (MASS, GGL; may equal kkt otherwise).
 * out0[k] = data[oidx0[k]] right after the evaluation at t. diag = (pivot ratio, largest
 * multiplier of eq. 22, the same of the second KKT): a ratio of 0 is a failed step (q, qd not to be trusted). */
rtmbs_status rtmbs_li_euler_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                 rtmbs_kkt* kkt, rtmbs_kkt* kkt2, double* vec, double* q,
                                 double* qd, double t, const rtmbs_li_euler_options* opt,
                                 const int64_t* oidx0, int64_t nout0, double* out0,
                                 double diag[4]);

/* The named outputs at (t, q, qd) after a step (extra-state step h hidden while evaluated). */
rtmbs_status rtmbs_step_outputs(const rtmbs_model* mdl, rtmbs_data* d, double t, const double* q,
                                const double* qd, double* w, const int64_t* oidx, int64_t nout,
                                double* out);

/* Where a rollout puts its results: row r of each array (NULL: not kept). */
typedef struct rtmbs_rollout_rows_ {
    double* t;       /* (rows) */
    double* q;       /* (rows, n) */
    double* qd;      /* (rows, n) */
    double* qd_prev; /* (rows, n): qdot before the step */
    double* lam;     /* (rows, m) */
    double* y;       /* (rows, nout) */
    double* x;       /* (rows, nx) */
} rtmbs_rollout_rows;

/* What a rollout is asked to do and where its results go (rtmbs.solvers.rollout
 * .run_rollout_kernel's arguments): n_steps steps from step i0 (time t_origin + i h before step
 * i); before step k the input channels chan (input-function rows) take inputs[k * nchan + c];
 * every `every`-th step saves a row of `rows` and its outputs (oidx, nout). q_good, qd_good,
 * x_good: scratch for the state of the last good step. */
typedef struct rtmbs_rollout_ {
    double t_origin;
    int64_t i0, n_steps, every, nchan, nout;
    const int64_t *chan, *oidx;
    const double* inputs;
    rtmbs_rollout_rows rows;
    double *q_good, *qd_good, *x_good;
} rtmbs_rollout;

/* The rollout `ro` of li-euler steps. A failed or diverging step puts q, qd and the extra states
 * back to the last good step. *done gets the number of good steps. */
rtmbs_status rtmbs_li_euler_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0, double* w1,
                                    rtmbs_kkt* kkt, rtmbs_kkt* kkt2, double* vec, double* q,
                                    double* qd, const rtmbs_li_euler_options* opt,
                                    const rtmbs_rollout* ro, int64_t* done);

#endif /* RTMBS_LI_EULER_H */
