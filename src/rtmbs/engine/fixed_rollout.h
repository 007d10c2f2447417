/* fixed_rollout.h -- many steps of any fixed-step integrator in one call (fixed_rollout.c): the
 * loop of rtmbs.solvers.rollout's compiled rollouts (before_step, end_step) around a step given
 * as a function, for the integrators whose rollout is not rollout.c's li-euler one. */
#ifndef RTMBS_FIXED_ROLLOUT_H
#define RTMBS_FIXED_ROLLOUT_H

#include "li_euler.h"

/* One step at time t of an integrator bound in ctx (q, qd, the extra states advanced in place);
 * *ok = 0 for a failed step (a factorisation's pivot ratio 0). */
typedef rtmbs_status (*rtmbs_step_fn)(void* ctx, double t, int* ok);

/* n_steps steps of `step` from step i0 (time t_origin + i h before step i); before step k the
 * input channels chan take inputs[k * nchan + c]; every `every`-th step saves row r of `rows`
 * (t, q, qd, qd before the step, lam (m), the extra states) and the outputs oidx evaluated in the
 * packed workspace w; a failed or diverging step puts q, qd and the extra states back to the last
 * good step (scratch: q_good, qd_good, x_good). *done gets the number of good steps. */
rtmbs_status rtmbs_fixed_rollout(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_step_fn step,
                                 void* ctx, double* q, double* qd, const double* lam, double* w,
                                 double t_origin, int64_t i0, double h, int64_t n_steps,
                                 int64_t every, const int64_t* chan, int64_t nchan,
                                 const double* inputs, const int64_t* oidx, int64_t nout,
                                 rtmbs_rollout_rows* rows, double* q_good, double* qd_good,
                                 double* x_good, int64_t* done);

#endif /* RTMBS_FIXED_ROLLOUT_H */
