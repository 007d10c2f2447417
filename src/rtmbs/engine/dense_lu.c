/* dense_lu.c -- LU with partial pivoting of a small dense matrix and its solve
 * (rtmbs.solvers.linalg lu_factor, lu_solve: the same operations in the same order). */
#include <math.h>

#include "dense_lu.h"

double rtmbs_dense_lu_factor(double* a, int64_t* piv, int64_t n) {
    double umax = 0.0, umin = HUGE_VAL, amax, v, inv, lik, tmp;
    int64_t i, j, k, p;
    for (k = 0; k < n; k++) {
        p = k;
        amax = fabs(a[k * n + k]);
        for (i = k + 1; i < n; i++) {
            v = fabs(a[i * n + k]);
            if (v > amax) {
                amax = v;
                p = i;
            }
        }
        piv[k] = p;
        if (p != k)
            for (j = 0; j < n; j++) {
                tmp = a[k * n + j];
                a[k * n + j] = a[p * n + j];
                a[p * n + j] = tmp;
            }
        if (amax > umax) umax = amax;
        if (amax < umin) umin = amax;
        if (amax == 0.0) continue;
        inv = 1.0 / a[k * n + k];
        for (i = k + 1; i < n; i++) {
            lik = a[i * n + k];
            if (lik != 0.0) {
                lik *= inv;
                a[i * n + k] = lik;
                for (j = k + 1; j < n; j++) a[i * n + j] -= lik * a[k * n + j];
            }
        }
    }
    if (n == 0) return 1.0;
    if (umax == 0.0) return 0.0;
    return umin / umax;
}

void rtmbs_dense_lu_solve(const double* lu, const int64_t* piv, double* b, int64_t n) {
    double s, tmp;
    int64_t i, j, k, p;
    for (k = 0; k < n; k++) {
        p = piv[k];
        if (p != k) {
            tmp = b[k];
            b[k] = b[p];
            b[p] = tmp;
        }
    }
    for (i = 0; i < n; i++) {
        s = b[i];
        for (j = 0; j < i; j++) s -= lu[i * n + j] * b[j];
        b[i] = s;
    }
    for (i = n - 1; i >= 0; i--) {
        s = b[i];
        for (j = i + 1; j < n; j++) s -= lu[i * n + j] * b[j];
        b[i] = s / lu[i * n + i];
    }
}

int64_t rtmbs_dense_lu_flops_factor(int64_t n) { return (n * n * n - n) / 3; }

int64_t rtmbs_dense_lu_flops_solve(int64_t n) { return n * n; }
