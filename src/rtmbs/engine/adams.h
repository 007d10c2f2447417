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

#endif /* RTMBS_ADAMS_H */
