/* rosenbrock.h -- the stages of GRK4T (Kaps and Rentrop 1979), fixed step, for ODE models (m = 0)
 * in the partitioned form of the truck benchmark eqs. 3-4 (rosenbrock.c; rtmbs.solvers.rosenbrock).
 * Row-major dense arrays: M, Jq, Jqd, LU (n x n), U (4 x 2 x n: u_q, u_v of each stage). */
#ifndef RTMBS_ROSENBROCK_H
#define RTMBS_ROSENBROCK_H

#include <stdint.h>

/* gamma of GRK4T (rosenbrock.GAMMA) */
#define RTMBS_GRK_GAMMA 0.231

/* A = M - h gamma dQ/dv - (h gamma)^2 dQ/dq factored in place into LU (rosenbrock._grk_factor).
 * Returns 1, or 0 when singular (pivot ratio 0). */
int rtmbs_grk_factor(double h, const double* M, const double* Jq, const double* Jqd, double* LU,
                     int64_t* piv, int64_t n);

/* Stage i (0..3) with the forces Qs at its argument (., vin): u_i into U[i], then the next
 * stage's argument into (qs, vs) or, after the last stage, the new state into (q, v)
 * (rosenbrock._grk_stage; rq, rv scratch of length n). */
void rtmbs_grk_stage(int64_t i, double h, const double* M, const double* LU, const int64_t* piv,
                     const double* Jq, const double* Qs, const double* Qt, double* U, double* q,
                     double* v, const double* vin, double* qs, double* vs, double* rq, double* rv,
                     int64_t n);

/* Qs <- M(q_n) M(q_s)^-1 Qs (rosenbrock._mass_scale; LUm, pivm, tmp scratch). Returns 1, or 0
 * when M(q_s) is singular. */
int rtmbs_grk_mass_scale(const double* Mn, const double* Ms, double* LUm, int64_t* pivm,
                         double* Qs, double* tmp, int64_t n);

/* -- the whole step on a compiled Cartesian model (m = 0) ----------------------------------- */
#include "rtmbs.h"

typedef struct rtmbs_grk4t_options_ {
    double h;            /* step, s */
    int64_t jac_what;    /* RTMBS_EVAL_JAC or RTMBS_EVAL_JACS: which force Jacobians enter J */
    int freeze_jq;       /* 1: dQ/dq kept from the reset (Jq not updated) */
    int time_derivative; /* 1: dQ/dt by a forward difference (one more evaluation) */
    int constant_mass;   /* 1: M(q_n) kept from the reset, no mass scaling at the stages */
} rtmbs_grk4t_options;

/* Scratch and history of the step (rtmbs.solvers.rosenbrock.GRK4T's arrays): ws, ws_t, ws_s dense
 * workspaces (rtmbs_workspace_size), Mn, Jq, LU, LUm (n x n), piv, pivm (n), U (4 x 2 x n), Qt,
 * qs, vs, rq, rv, tmp (n). */
typedef struct rtmbs_grk4t_work_ {
    double *ws, *ws_t, *ws_s, *Mn, *Jq, *LU, *LUm, *U, *Qt, *qs, *vs, *rq, *rv, *tmp;
    int64_t *piv, *pivm;
} rtmbs_grk4t_work;

/* One GRK4T step from (t, q, v) (GRK4T._step_impl): q, v updated in place; *ok = 0 when A is
 * singular (q, v then unchanged). Evaluations counted by rtmbs_evaluate; factorisations and
 * solves counted here (RTMBS_CNT_FACTOR, RTMBS_CNT_SOLVE), and the step. */
rtmbs_status rtmbs_grk4t_step(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_grk4t_work* w,
                              double* q, double* v, double t, const rtmbs_grk4t_options* opt,
                              int* ok);

#endif /* RTMBS_ROSENBROCK_H */
