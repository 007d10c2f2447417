/* partition_choice.c -- coordinate partitioning and threshold row pivots for Algorithm 2's rebase
 * (partition_choice.h): the operations of rtmbs.solvers.linalg.select_partition and
 * rtmbs.solvers.sparse.threshold_rows in their order. */
#include "partition_choice.h"

#include <math.h>

static void sort_range(int64_t* a, int64_t lo, int64_t hi) {
    int64_t i, j, key;
    for (i = lo + 1; i < hi; i++) {
        key = a[i];
        for (j = i - 1; j >= lo && a[j] > key; j--) a[j + 1] = a[j];
        a[j + 1] = key;
    }
}

double rtmbs_select_partition(const double* phiq, double* w, int64_t* cols, double* colmax,
                              int64_t m, int64_t n) {
    int64_t i, j, k, bi, bj, ri, tc;
    double best, v, mx, inv, lik, tmp, pmax = 0.0, pmin = INFINITY;
    int moved;
    for (j = 0; j < n; j++) {
        cols[j] = j;
        colmax[j] = 0.0;
    }
    for (i = 0; i < m * n; i++) w[i] = phiq[i];
    for (i = 0; i < m; i++)
        for (j = 0; j < n; j++)
            if (fabs(phiq[i * n + j]) > colmax[j]) colmax[j] = fabs(phiq[i * n + j]);
    for (k = 0; k < m; k++) {
        bj = k; /* the remaining column largest in phiq */
        for (j = k + 1; j < n; j++)
            if (colmax[cols[j]] > colmax[cols[bj]]) bj = j;
        bi = k;
        best = 0.0;
        for (i = k; i < m; i++)
            if (fabs(w[i * n + bj]) > best) {
                best = fabs(w[i * n + bj]);
                bi = i;
            }
        moved = best > 0.0;
        while (moved) { /* the largest of row bi, then of column bj */
            moved = 0;
            for (j = k; j < n; j++)
                if ((v = fabs(w[bi * n + j])) > best) {
                    best = v;
                    bj = j;
                    moved = 1;
                }
            for (i = k; i < m; i++)
                if ((v = fabs(w[i * n + bj])) > best) {
                    best = v;
                    bi = i;
                    moved = 1;
                }
        }
        if (best < 1e-2 * colmax[cols[bj]]) { /* a small rook pivot: the block's first largest */
            ri = -1;
            mx = best;
            for (i = k; i < m; i++)
                for (j = k; j < n; j++)
                    if ((v = fabs(w[i * n + j])) > mx) {
                        mx = v;
                        ri = i;
                    }
            if (ri >= 0) {
                for (j = k; j < n; j++)
                    if (fabs(w[ri * n + j]) == mx) break;
                best = mx;
                bi = ri;
                bj = j;
            }
        }
        if (bi != k)
            for (j = k; j < n; j++) {
                tmp = w[k * n + j];
                w[k * n + j] = w[bi * n + j];
                w[bi * n + j] = tmp;
            }
        if (bj != k) {
            tc = cols[k];
            cols[k] = cols[bj];
            cols[bj] = tc;
            for (i = k; i < m; i++) {
                tmp = w[i * n + k];
                w[i * n + k] = w[i * n + bj];
                w[i * n + bj] = tmp;
            }
        }
        if (best > pmax) pmax = best;
        if (best < pmin) pmin = best;
        inv = best != 0.0 ? 1.0 / w[k * n + k] : 0.0;
        for (i = k + 1; i < m; i++) {
            if (w[i * n + k] == 0.0) continue;
            lik = w[i * n + k] * inv;
            if (best != 0.0 && lik != 0.0)
                for (j = k + 1; j < n; j++) w[i * n + j] -= lik * w[k * n + j];
        }
    }
    sort_range(cols, 0, m);
    sort_range(cols, m, n);
    if (m == 0) return 1.0;
    if (pmax == 0.0) return 0.0;
    return pmin / pmax;
}

int rtmbs_threshold_rows(const int64_t* rows, const int64_t* cols, const double* vals, int64_t ne,
                         const int64_t* pcol, double thresh, int64_t N, int64_t* prow, double* A,
                         uint8_t* nz, int64_t* count, uint8_t* used, int64_t* icol,
                         int64_t* jlist) {
    int64_t e, i, j, k, t, nj, best;
    double big, inv, lik;
    for (j = 0; j < N; j++) {
        icol[pcol[j]] = j;
        prow[j] = -1;
        count[j] = 0;
        used[j] = 0;
    }
    for (i = 0; i < N * N; i++) {
        A[i] = 0.0;
        nz[i] = 0;
    }
    for (e = 0; e < ne; e++) {
        A[rows[e] * N + icol[cols[e]]] += vals[e];
        nz[rows[e] * N + icol[cols[e]]] = 1;
    }
    for (i = 0; i < N; i++)
        for (j = 0; j < N; j++) count[i] += nz[i * N + j];
    for (k = 0; k < N; k++) {
        big = 0.0;
        for (i = 0; i < N; i++)
            if (!used[i] && fabs(A[i * N + k]) > big) big = fabs(A[i * N + k]);
        if (big == 0.0) return -1;
        best = -1;
        for (i = 0; i < N; i++)
            if (!used[i] && fabs(A[i * N + k]) >= thresh * big && (best < 0 || count[i] < count[best]))
                best = i;
        used[best] = 1;
        prow[k] = best;
        inv = 1.0 / A[best * N + k];
        nj = 0;
        for (j = k + 1; j < N; j++)
            if (nz[best * N + j]) jlist[nj++] = j;
        for (i = 0; i < N; i++) {
            if (used[i] || A[i * N + k] == 0.0) continue;
            lik = A[i * N + k] * inv;
            for (t = 0; t < nj; t++) {
                j = jlist[t];
                A[i * N + j] -= lik * A[best * N + j];
                if (!nz[i * N + j]) {
                    nz[i * N + j] = 1;
                    count[i]++;
                }
            }
        }
    }
    return 0;
}
