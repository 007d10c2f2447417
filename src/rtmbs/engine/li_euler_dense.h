/* li_euler_dense.h -- the linearly implicit Euler step (Carpinelli 2016, Algorithm 1) on dense
 * matrices, for a provider of the evaluation interface (providers/provider.h: the planar truck)
 * (li_euler_dense.c; its rollout: dense_rollout.h), made of the dense stages (dense_step.h).
 * w: the KKT matrix of eq. 22 in K, the second one (projection="mass", GGL) in P; vec
 * (RTMBS_LI_EULER_VEC(n, m)) the vectors, in li_euler.c's layout, lambda at its end. */
#ifndef RTMBS_LI_EULER_DENSE_H
#define RTMBS_LI_EULER_DENSE_H

#include "dense_step.h"

/* One step of Algorithm 1 (eq. 22 + the stabilisation of opt->stab, li_euler.h) from (t, q, qd):
 * q, qd updated in place, lambda at the end of w->vec; rtmbs.solvers.li_euler's dense step
 * operation for operation (its matrix-vector products as plain loops). diag = (pivot ratio of
 * eq. 22, of the second KKT or 1): a ratio of 0 is a failed step (a zero pivot of eq. 22, or an
 * evaluation outside the model's domain: q, qd then unchanged; a non-finite state). Counted in d:
 * evaluations, factorisations, solves, the LU's multiply-adds, the step (rtmbs_step_end); trouble
 * in d's warnings. */
rtmbs_status rtmbs_li_euler_dense_step(const rtmbs_provider* p, rtmbs_data* d,
                                       const rtmbs_dense_work* w, double* q, double* qd, double t,
                                       const rtmbs_li_euler_options* opt, double diag[2]);

#endif /* RTMBS_LI_EULER_DENSE_H */
