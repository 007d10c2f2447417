/* partition_choice.h -- the choices Algorithm 2's rebase makes between two steps (coordinate
 * partitioning of Phi_q, the threshold row pivots of Phi_u's analysis), in C so that a rebase
 * costs what it cost in numba. Not part of a step: the caller gives every work array. */
#ifndef RTMBS_PARTITION_CHOICE_H
#define RTMBS_PARTITION_CHOICE_H

#include <stdint.h>

/* Gaussian elimination with rook pivoting of phiq (m x n, row-major; copied into w, m x n) to
 * choose the dependent coordinates (Garcia de Jalon & Bayo 1994, sec. 5.3; Foster 1997): each
 * pivot the largest entry of its row and of its column in the remaining block, replaced by the
 * block's first largest entry where it is below 1e-2 of its column's largest in phiq. On return
 * cols[:m] are the pivot columns, cols[m:] the others, each group ascending. colmax: n of work.
 * Returns min/max of the pivots' magnitudes (0: rank deficient; 1 when m = 0). */
double rtmbs_select_partition(const double* phiq, double* w, int64_t* cols, double* colmax,
                              int64_t m, int64_t n);

/* Row order for the column order pcol of the N x N matrix with ne entries (rows, cols, vals):
 * dense Gaussian elimination with threshold partial pivoting, choosing among the rows whose entry
 * is at least thresh times the column's largest the one with the fewest non-zeros (as SuperLU's
 * threshold pivoting). prow[k]: the row at position k; -1 from the first zero column on (then
 * returns -1, else 0). Work: A (N*N), nz (N*N), count, used, icol, jlist (N each). */
int rtmbs_threshold_rows(const int64_t* rows, const int64_t* cols, const double* vals, int64_t ne,
                         const int64_t* pcol, double thresh, int64_t N, int64_t* prow, double* A,
                         uint8_t* nz, int64_t* count, uint8_t* used, int64_t* icol,
                         int64_t* jlist);

#endif
