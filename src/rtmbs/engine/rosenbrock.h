/* rosenbrock.h -- the stages of GRK4T (Kaps and Rentrop 1979), fixed step, for ODE models (m = 0)
 * in the partitioned form of seed 001 eqs. 3-4 (rosenbrock.c; rtmbs.solvers.rosenbrock).
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

#endif /* RTMBS_ROSENBROCK_H */
