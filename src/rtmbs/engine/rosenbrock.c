/* rosenbrock.c -- the stages of GRK4T (Kaps and Rentrop 1979) in the transformed form of Hairer's
 * ROS4 with mass matrix (Hairer-Wanner IV.7, eq. 7.25), partitioned as seed 001 eqs. 3-4:
 *
 *   A = M - h gamma dQ/dv - (h gamma)^2 dQ/dq,
 *   A u_v = h gamma (Q_s + h d_i Q_t + M sum c_ij/h u_v,j) + (h gamma)^2 dQ/dq r_q,
 *   r_q = v_s + sum c_ij/h u_q,j,   u_q = h gamma (r_q + u_v),   y+ = y + sum b_i u_i.
 *
 * The operations of rtmbs.solvers.rosenbrock (_grk_factor, _grk_stage, _mass_scale) in order. */
#include "dense_lu.h"
#include "rosenbrock.h"

/* GRK4T (rosenbrock.py A*, C*, B*, D*) */
#define A21 2.0
#define A31 4.524708207373116
#define A32 4.163528788597648
#define C21 -5.071675338776316
#define C31 6.020152728650786
#define C32 0.1597506846727117
#define C41 -1.856343618686113
#define C42 -8.505380858179826
#define C43 -2.084075136023187
#define B1 3.957503746640777
#define B2 4.624892388363313
#define B3 0.6174772638750108
#define B4 1.282612945269037
#define D1 0.231
#define D2 -0.03962966775244303
#define D3 0.5507789395789127
#define D4 -0.05535098457052764

int rtmbs_grk_factor(double h, const double* M, const double* Jq, const double* Jqd, double* LU,
                     int64_t* piv, int64_t n) {
    const double hg = h * RTMBS_GRK_GAMMA;
    int64_t i;
    for (i = 0; i < n * n; i++) LU[i] = M[i] - hg * Jqd[i] - hg * hg * Jq[i];
    return rtmbs_dense_lu_factor(LU, piv, n) > 0.0;
}

/* u_q (p = 0) or u_v (p = 1) of stage s, entry k */
#define UQ(s, k) U[(2 * (s)) * n + (k)]
#define UV(s, k) U[(2 * (s) + 1) * n + (k)]

void rtmbs_grk_stage(int64_t i, double h, const double* M, const double* LU, const int64_t* piv,
                     const double* Jq, const double* Qs, const double* Qt, double* U, double* q,
                     double* v, const double* vin, double* qs, double* vs, double* rq, double* rv,
                     int64_t n) {
    const double hg = h * RTMBS_GRK_GAMMA;
    const double d = i == 0 ? D1 : i == 1 ? D2 : i == 2 ? D3 : D4;
    double cq, cv, acc;
    int64_t j, k;
    /* r_q = v_s + sum c_ij/h u_q,j; w = sum c_ij/h u_v,j (times M below) */
    for (k = 0; k < n; k++) {
        cq = 0.0;
        cv = 0.0;
        if (i == 1) {
            cq = C21 * UQ(0, k);
            cv = C21 * UV(0, k);
        } else if (i == 2) {
            cq = C31 * UQ(0, k) + C32 * UQ(1, k);
            cv = C31 * UV(0, k) + C32 * UV(1, k);
        } else if (i == 3) {
            cq = C41 * UQ(0, k) + C42 * UQ(1, k) + C43 * UQ(2, k);
            cv = C41 * UV(0, k) + C42 * UV(1, k) + C43 * UV(2, k);
        }
        rq[k] = vin[k] + cq / h;
        rv[k] = cv / h;
    }
    /* A u_v = h gamma (Q_s + h d Q_t + M w) + (h gamma)^2 Jq r_q */
    for (k = 0; k < n; k++) {
        acc = Qs[k] + h * d * Qt[k];
        for (j = 0; j < n; j++) acc += M[k * n + j] * rv[j] + hg * Jq[k * n + j] * rq[j];
        UV(i, k) = hg * acc;
    }
    rtmbs_dense_lu_solve(LU, piv, &UV(i, 0), n);
    for (k = 0; k < n; k++) UQ(i, k) = hg * (rq[k] + UV(i, k));
    if (i == 0) {
        for (k = 0; k < n; k++) {
            qs[k] = q[k] + A21 * UQ(0, k);
            vs[k] = v[k] + A21 * UV(0, k);
        }
    } else if (i == 1) {
        for (k = 0; k < n; k++) {
            qs[k] = q[k] + A31 * UQ(0, k) + A32 * UQ(1, k);
            vs[k] = v[k] + A31 * UV(0, k) + A32 * UV(1, k);
        }
    } else if (i == 3) {
        for (k = 0; k < n; k++) {
            q[k] += B1 * UQ(0, k) + B2 * UQ(1, k) + B3 * UQ(2, k) + B4 * UQ(3, k);
            v[k] += B1 * UV(0, k) + B2 * UV(1, k) + B3 * UV(2, k) + B4 * UV(3, k);
        }
    }
}

int rtmbs_grk_mass_scale(const double* Mn, const double* Ms, double* LUm, int64_t* pivm,
                         double* Qs, double* tmp, int64_t n) {
    double acc;
    int64_t i, j;
    int ok;
    for (i = 0; i < n * n; i++) LUm[i] = Ms[i];
    ok = rtmbs_dense_lu_factor(LUm, pivm, n) > 0.0;
    rtmbs_dense_lu_solve(LUm, pivm, Qs, n);
    for (i = 0; i < n; i++) {
        acc = 0.0;
        for (j = 0; j < n; j++) acc += Mn[i * n + j] * Qs[j];
        tmp[i] = acc;
    }
    for (i = 0; i < n; i++) Qs[i] = tmp[i];
    return ok;
}
