/* adams.c -- AB3 (y_{n+1} = y_n + h/12 (23 f_n - 16 f_{n-1} + 5 f_{n-2})) and the pieces of its
 * RK4 start, the operations of rtmbs.solvers.adams (_accel, _ab3_update, _rk4_point) in order. */
#include "adams.h"
#include "dense_lu.h"

double rtmbs_ab3_accel(const double* M, double* LU, int64_t* piv, int factor, const double* Q,
                       double* out, int64_t n) {
    double ok = 1.0;
    int64_t i;
    if (factor) {
        for (i = 0; i < n * n; i++) LU[i] = M[i];
        ok = rtmbs_dense_lu_factor(LU, piv, n);
    }
    for (i = 0; i < n; i++) out[i] = Q[i];
    rtmbs_dense_lu_solve(LU, piv, out, n);
    return ok;
}

void rtmbs_ab3_update(double h, const double* F, int64_t k, double* q, double* v, int64_t n) {
    const double* f0 = F + 2 * n * (k % 3);       /* f_n */
    const double* f1 = F + 2 * n * ((k + 2) % 3); /* f_{n-1} */
    const double* f2 = F + 2 * n * ((k + 1) % 3); /* f_{n-2} */
    const double c = h / 12.0;
    int64_t j;
    for (j = 0; j < n; j++) {
        q[j] += c * (23.0 * f0[j] - 16.0 * f1[j] + 5.0 * f2[j]);
        v[j] += c * (23.0 * f0[n + j] - 16.0 * f1[n + j] + 5.0 * f2[n + j]);
    }
}

void rtmbs_rk4_point(double c, const double* q, const double* v, const double* Kq,
                     const double* Kv, double* qs, double* vs, int64_t n) {
    int64_t j;
    for (j = 0; j < n; j++) {
        qs[j] = q[j] + c * Kq[j];
        vs[j] = v[j] + c * Kv[j];
    }
}
