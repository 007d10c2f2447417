/* dense_rollout.h -- many dense steps of a provider (li_euler_dense.h, alpha_dense.h) in one
 * call (dense_rollout.c): the step chosen in one switch, in the loop every fixed-step rollout
 * shares (fixed_rollout.c). */
#ifndef RTMBS_DENSE_ROLLOUT_H
#define RTMBS_DENSE_ROLLOUT_H

#include "alpha_dense.h"
#include "li_euler_dense.h"

/* the dense steps */
#define RTMBS_DENSE_LI_EULER 0 /* rtmbs_li_euler_dense_step, opt an rtmbs_li_euler_options */
#define RTMBS_DENSE_ALPHA 1    /* rtmbs_alpha_dense_step, opt an rtmbs_alpha_options */

/* The rollout `ro` (li_euler.h; no input channels: RTMBS_ERR_ARGUMENT otherwise) of the dense
 * step `method` (RTMBS_DENSE_*) with its options opt; every saved row takes lambda (the end of
 * w->vec) and the provider's outputs ro->oidx. A failed or diverging step puts q, qd back to the
 * last good step. *done gets the number of good steps. */
rtmbs_status rtmbs_dense_rollout(const rtmbs_provider* p, rtmbs_data* d,
                                 const rtmbs_dense_work* w, double* q, double* qd, int method,
                                 const void* opt, const rtmbs_rollout* ro, int64_t* done);

#endif /* RTMBS_DENSE_ROLLOUT_H */
