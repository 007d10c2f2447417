/* adams.h -- the explicit 3-step Adams-Bashforth method (AB3) with an RK4 start, fixed step, for
 * ODE models (m = 0) (adams.c; rtmbs.solvers.adams). F: the derivative history (3 x 2 x n),
 * F[(k - j) % 3] = f_{n-j} = (qdot, vdot); row-major dense arrays. */
#ifndef RTMBS_ADAMS_H
#define RTMBS_ADAMS_H

#include <stdint.h>

/* out = M^-1 Q, M factored into LU first when `factor` (adams._accel). Returns the pivot ratio of
 * that factorisation (0: singular), 1.0 when not factored. */
double rtmbs_ab3_accel(const double* M, double* LU, int64_t* piv, int factor, const double* Q,
                       double* out, int64_t n);

/* y_{n+1} = y_n + h/12 (23 f_n - 16 f_{n-1} + 5 f_{n-2}) with f_n = F[k % 3] (adams._ab3_update) */
void rtmbs_ab3_update(double h, const double* F, int64_t k, double* q, double* v, int64_t n);

/* qs = q + c Kq, vs = v + c Kv (adams._rk4_point) */
void rtmbs_rk4_point(double c, const double* q, const double* v, const double* Kq,
                     const double* Kv, double* qs, double* vs, int64_t n);

/* -- the whole step on a compiled Cartesian model (m = 0) ----------------------------------- */
#include "rtmbs.h"

/* Scratch and history (rtmbs.solvers.adams.AB3's arrays): ws a dense workspace (its M kept from
 * the reset when the mass is constant), LU (n x n), piv (n), F (3 x 2 x n: the history), K
 * (4 x 2 x n: RK4 stages), qs, vs (n). */
typedef struct rtmbs_ab3_work_ {
    double *ws, *LU, *F, *K, *qs, *vs;
    int64_t* piv;
} rtmbs_ab3_work;

/* Step k (from 0 at the reset) from (t, q, v) (AB3._step_impl): f_n into the history, then RK4
 * for k < 2, AB3 after; q, v updated in place. *ok = 0 when a factorisation of M failed (pivot
 * ratio 0). constant_mass: M and its factors kept from the reset. Factorisations and solves
 * counted, and the step. */
rtmbs_status rtmbs_ab3_step(const rtmbs_model* mdl, rtmbs_data* d, rtmbs_ab3_work* w, double* q,
                            double* v, double t, double h, int64_t k, int constant_mass,
                            int* ok);

#endif /* RTMBS_ADAMS_H */
