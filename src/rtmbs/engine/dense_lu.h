/* dense_lu.h -- LU with partial pivoting of small dense matrices (dense_lu.c;
 * rtmbs.solvers.linalg lu_factor, lu_solve): the n x n systems of the ODE integrators
 * (rosenbrock.c, adams.c). Row-major arrays. */
#ifndef RTMBS_DENSE_LU_H
#define RTMBS_DENSE_LU_H

#include <stdint.h>

/* LU of the n x n matrix a in place; piv[k] is the row swapped with row k. Returns the pivot
 * ratio min|u_kk| / max|u_kk| (0.0 when a pivot is exactly zero; 1.0 for n = 0). */
double rtmbs_dense_lu_factor(double* a, int64_t* piv, int64_t n);

/* Solve A x = b in place in b with the factors of rtmbs_dense_lu_factor. */
void rtmbs_dense_lu_solve(const double* lu, const int64_t* piv, double* b, int64_t n);

#endif /* RTMBS_DENSE_LU_H */
