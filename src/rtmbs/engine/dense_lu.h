/* dense_lu.h -- LU with partial pivoting of small dense matrices (dense_lu.c;
 * rtmbs.solvers.linalg lu_factor, lu_solve): the n x n systems of the ODE integrators
 * (rosenbrock.c, adams.c) and the KKT matrices of the dense li-euler step (li_euler_dense.c).
 * Row-major arrays. */
#ifndef RTMBS_DENSE_LU_H
#define RTMBS_DENSE_LU_H

#include <stdint.h>

/* LU of the n x n matrix a in place; piv[k] is the row swapped with row k. Returns the pivot
 * ratio min|u_kk| / max|u_kk| (0.0 when a pivot is exactly zero; 1.0 for n = 0). */
double rtmbs_dense_lu_factor(double* a, int64_t* piv, int64_t n);

/* Solve A x = b in place in b with the factors of rtmbs_dense_lu_factor. */
void rtmbs_dense_lu_solve(const double* lu, const int64_t* piv, double* b, int64_t n);

/* Multiply-adds (and divisions) of rtmbs_dense_lu_factor, (n^3 - n) / 3, and of one
 * rtmbs_dense_lu_solve, n^2, on an n x n matrix: the counts as written (a row update the
 * factorisation skips for a zero multiplier still counted, so that the count is fixed). */
int64_t rtmbs_dense_lu_flops_factor(int64_t n);
int64_t rtmbs_dense_lu_flops_solve(int64_t n);

#endif /* RTMBS_DENSE_LU_H */
