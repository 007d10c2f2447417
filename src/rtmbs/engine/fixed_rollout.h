/* fixed_rollout.h -- many steps of any fixed-step integrator in one call (fixed_rollout.c): the
 * loop of rtmbs.solvers.rollout's compiled rollouts (before_step, end_step) around a step given
 * as a function, for the integrators whose rollout is not rollout.c's li-euler one. */
#ifndef RTMBS_FIXED_ROLLOUT_H
#define RTMBS_FIXED_ROLLOUT_H

#include "li_euler.h"

/* The arguments of a fixed-step integrator's step, as its rollout binds them; each integrator
 * reads those its step takes (kkt2: li-euler's second KKT; midx, diag: generalized-alpha's; opt:
 * its options struct). outputs: the named outputs after a step at (t, q, qd) into out, NULL for
 * those of the compiled model (rtmbs_step_outputs in w1); a provider's step (li_euler_dense.c)
 * gives its own, and a model struct holding only its sizes. */
typedef struct rtmbs_step_args_ {
    const rtmbs_model* mdl;
    rtmbs_data* d;
    double *w0, *w1, *vec, *q, *qd, *diag;
    rtmbs_kkt *kkt, *kkt2;
    const uint32_t* midx;
    const void* opt;
    rtmbs_status (*outputs)(const struct rtmbs_step_args_* a, double t, const int64_t* oidx,
                            int64_t nout, double* out);
} rtmbs_step_args;

/* One step at time t with the arguments a (q, qd, the extra states advanced in place); *ok = 0
 * for a failed step (a factorisation's pivot ratio 0). */
typedef rtmbs_status (*rtmbs_step_fn)(const rtmbs_step_args* a, double t, int* ok);

/* The rollout `ro` (li_euler.h) of `step`, steps of h: every saved row takes lam (m) and the
 * outputs evaluated in the packed workspace a->w1; a failed or diverging step puts q, qd and the
 * extra states back to the last good step. *done gets the number of good steps. */
rtmbs_status rtmbs_fixed_rollout(const rtmbs_step_args* a, rtmbs_step_fn step, const double* lam,
                                 double h, const rtmbs_rollout* ro, int64_t* done);

#endif /* RTMBS_FIXED_ROLLOUT_H */
