/* alpha_dense.h -- the generalized-alpha step (Arnold & Bruls 2007) on dense matrices, for a
 * provider of the evaluation interface (providers/provider.h: the planar truck) (alpha_dense.c;
 * its rollout: dense_rollout.h), made of the dense stages (dense_step.h) and the predictor and
 * commit of the sparse step (generalized_alpha.h). */
#ifndef RTMBS_ALPHA_DENSE_H
#define RTMBS_ALPHA_DENSE_H

#include "dense_step.h"
#include "generalized_alpha.h"

/* One step from (t, q, qd) with the options opt (generalized_alpha.h): q, qd updated in place,
 * a, qddot, lambda in w->vec (RTMBS_ALPHA_VEC(n, m): the solver's state between steps);
 * rtmbs.solvers.generalized_alpha's dense step operation for operation (its matrix-vector
 * products as plain loops). Every evaluation goes into w->ws0; K takes the iteration matrix, P
 * the projection matrix (RTMBS_ALPHA_STAB_PROJECTION); ws1 is not used. diag = (pivot ratio of
 * the iteration matrix, of the projection matrix or 1): a ratio of 0 is a failed step (a zero
 * pivot, or an evaluation outside the model's domain: q, qd, a, qddot, lambda then unchanged; a
 * non-finite state). Counted in d: evaluations, factorisations, solves, the LU's multiply-adds,
 * the step (rtmbs_step_end); trouble in d's warnings. */
rtmbs_status rtmbs_alpha_dense_step(const rtmbs_provider* p, rtmbs_data* d,
                                    const rtmbs_dense_work* w, double* q, double* qd, double t,
                                    const rtmbs_alpha_options* opt, double diag[2]);

#endif /* RTMBS_ALPHA_DENSE_H */
