/* sparse_lu.c -- numeric LU with a fixed pattern, ordering and pivot sequence, and its solves
 * (rtmbs.solvers.sparse: lu_refactor, lu_solve_sp, lu_solve_t_sp, lu_solve_multi_sp,
 * lu_pivot_range_sp, lu_rereference).
 *
 * The factor eliminates row by row (IKJ order, dense accumulator w of length N) with the pivot
 * sequence of the analysis; each row's updates run over runs of contiguous columns, and two to
 * four consecutive rows of a supernode (paired rows) are taken in one pass: the same
 * multiply-adds in the same order as entry by entry. Static pivoting (SuperLU_DIST): a pivot below
 * RTMBS_LU_PIVOT_REL times its reference is raised to that bound with its sign; then, or when a
 * multiplier exceeds the growth limit, the factors are flagged and every solve adds
 * RTMBS_LU_NREFINE steps of iterative refinement against the unperturbed entries. The order of the
 * floating-point operations is that of the numba kernels (no FMA: -ffp-contract=off), so the
 * factors and solutions are the same bits.
 */
#include <math.h>

#include "sparse_lu.h"

/* the parts of ib and fb (sparse.py _views, _extras, _uinv, _runs, _paired, row_entries) */
typedef struct lu_view_ {
    uint32_t N, ne, nnz, nc, nrun, nfill;
    const uint32_t *ptr, *diag, *col, *amap, *prow, *pcol, *rows, *cols, *cdst, *csrc;
    const uint32_t *urptr, *rc0, *rlen, *paired, *fptr, *fcol, *eptr, *ecol, *eidx;
    double *ax, *lu, *w, *pref, *b0, *r, *cval, *stats, *uinv;
} lu_view;

static void lu_views(const uint32_t* ib, double* fb, lu_view* v) {
    uint32_t N = ib[RTMBS_LU_H_N], ne = ib[RTMBS_LU_H_NE], nnz = ib[RTMBS_LU_H_NNZ];
    uint32_t nc = ib[RTMBS_LU_H_NC];
    size_t o = (size_t)ne + nnz + N;
    v->N = N;
    v->ne = ne;
    v->nnz = nnz;
    v->nc = nc;
    v->nrun = ib[RTMBS_LU_H_NRUN];
    v->nfill = ib[RTMBS_LU_H_NFILL];
    v->ptr = ib + ib[RTMBS_LU_H_PTR];
    v->diag = ib + ib[RTMBS_LU_H_DIAG];
    v->col = ib + ib[RTMBS_LU_H_COL];
    v->amap = ib + ib[RTMBS_LU_H_AMAP];
    v->prow = ib + ib[RTMBS_LU_H_PROW];
    v->pcol = ib + ib[RTMBS_LU_H_PCOL];
    v->rows = ib + ib[RTMBS_LU_H_ROWS];
    v->cols = ib + ib[RTMBS_LU_H_COLS];
    v->cdst = ib + ib[RTMBS_LU_H_CDST];
    v->csrc = ib + ib[RTMBS_LU_H_CSRC];
    v->urptr = ib + ib[RTMBS_LU_H_URPTR];
    v->rc0 = ib + ib[RTMBS_LU_H_RC0];
    v->rlen = ib + ib[RTMBS_LU_H_RLEN];
    v->paired = ib + ib[RTMBS_LU_H_PAIRED];
    v->fptr = ib + ib[RTMBS_LU_H_FPTR];
    v->fcol = ib + ib[RTMBS_LU_H_FCOL];
    v->eptr = ib + ib[RTMBS_LU_H_EPTR];
    v->ecol = ib + ib[RTMBS_LU_H_ECOL];
    v->eidx = ib + ib[RTMBS_LU_H_EIDX];
    if (!fb) { /* (the index only: rtmbs_lu_check) */
        v->ax = v->lu = v->w = v->pref = v->b0 = v->r = v->cval = v->stats = v->uinv = NULL;
        return;
    }
    v->ax = fb;
    v->lu = fb + ne;
    v->w = fb + ne + nnz;
    v->pref = fb + o;
    v->b0 = fb + o + N;
    v->r = fb + o + 2 * (size_t)N;
    v->cval = fb + o + 3 * (size_t)N;
    v->stats = fb + o + 3 * (size_t)N + nc;
    v->uinv = fb + o + 3 * (size_t)N + nc + RTMBS_LU_S_LEN;
}

int64_t rtmbs_lu_fb_size(const uint32_t* ib) {
    return (int64_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ] + 5 * (int64_t)ib[RTMBS_LU_H_N]
           + ib[RTMBS_LU_H_NC] + RTMBS_LU_S_LEN;
}

/* -- checks ------------------------------------------------------------------------------------ */
static int part_ok(const uint32_t* ib, int64_t nib, int slot, int64_t len) {
    return (int64_t)ib[slot] >= RTMBS_LU_H_LEN && (int64_t)ib[slot] + len <= nib;
}

static int below(const uint32_t* a, int64_t n, int64_t bound) {
    int64_t i;
    for (i = 0; i < n; i++)
        if ((int64_t)a[i] >= bound) return 0;
    return 1;
}

rtmbs_status rtmbs_lu_check(const uint32_t* ib, int64_t nib, int64_t nfb, int full) {
    int64_t N, ne, nnz, nc, nrun, nfill, i, k, p, r, t;
    lu_view v;
    if (nib < RTMBS_LU_H_LEN) return RTMBS_ERR_SIZE;
    N = ib[RTMBS_LU_H_N];
    ne = ib[RTMBS_LU_H_NE];
    nnz = ib[RTMBS_LU_H_NNZ];
    nc = ib[RTMBS_LU_H_NC];
    nrun = ib[RTMBS_LU_H_NRUN];
    nfill = ib[RTMBS_LU_H_NFILL];
    if (!part_ok(ib, nib, RTMBS_LU_H_PTR, N + 1) || !part_ok(ib, nib, RTMBS_LU_H_DIAG, N)
        || !part_ok(ib, nib, RTMBS_LU_H_COL, nnz) || !part_ok(ib, nib, RTMBS_LU_H_AMAP, ne)
        || !part_ok(ib, nib, RTMBS_LU_H_PROW, N) || !part_ok(ib, nib, RTMBS_LU_H_PCOL, N)
        || !part_ok(ib, nib, RTMBS_LU_H_ROWS, ne) || !part_ok(ib, nib, RTMBS_LU_H_COLS, ne)
        || !part_ok(ib, nib, RTMBS_LU_H_CDST, nc) || !part_ok(ib, nib, RTMBS_LU_H_CSRC, nc)
        || !part_ok(ib, nib, RTMBS_LU_H_URPTR, N + 1) || !part_ok(ib, nib, RTMBS_LU_H_RC0, nrun)
        || !part_ok(ib, nib, RTMBS_LU_H_RLEN, nrun) || !part_ok(ib, nib, RTMBS_LU_H_PAIRED, N)
        || !part_ok(ib, nib, RTMBS_LU_H_FPTR, N + 1) || !part_ok(ib, nib, RTMBS_LU_H_FCOL, nfill)
        || !part_ok(ib, nib, RTMBS_LU_H_EPTR, 2 * N + 1) || !part_ok(ib, nib, RTMBS_LU_H_ECOL, ne)
        || !part_ok(ib, nib, RTMBS_LU_H_EIDX, ne))
        return RTMBS_ERR_LAYOUT;
    if (nfb != rtmbs_lu_fb_size(ib)) return RTMBS_ERR_SIZE;
    if (!full) return RTMBS_OK;
    lu_views(ib, NULL, &v);
    /* row storage: ascending columns, the diagonal in each row, L part left of it */
    if (v.ptr[0] != 0 || (int64_t)v.ptr[N] != nnz) return RTMBS_ERR_ARGUMENT;
    for (i = 0; i < N; i++)
        if (v.ptr[i + 1] <= v.ptr[i]) return RTMBS_ERR_ARGUMENT;
    for (i = 0; i < N; i++) {
        if (v.diag[i] < v.ptr[i] || v.diag[i] >= v.ptr[i + 1] || v.col[v.diag[i]] != (uint32_t)i)
            return RTMBS_ERR_ARGUMENT;
        for (p = v.ptr[i]; p < (int64_t)v.ptr[i + 1]; p++)
            if (v.col[p] >= N || (p > (int64_t)v.ptr[i] && v.col[p] <= v.col[p - 1]))
                return RTMBS_ERR_ARGUMENT;
    }
    if (!below(v.amap, ne, nnz) || !below(v.prow, N, N) || !below(v.pcol, N, N)
        || !below(v.rows, ne, N) || !below(v.cols, ne, N) || !below(v.cdst, nc, N)
        || !below(v.csrc, nc, N) || !below(v.fcol, nfill, N) || !below(v.ecol, ne, N)
        || !below(v.eidx, ne, ne))
        return RTMBS_ERR_ARGUMENT;
    /* each row's zeros and entries (sparse.py row_entries): ranges in order, covering the parts */
    if (v.fptr[0] != 0 || (int64_t)v.fptr[N] != nfill || v.eptr[0] != 0
        || (int64_t)v.eptr[2 * N] != ne)
        return RTMBS_ERR_ARGUMENT;
    for (i = 0; i < N; i++)
        if (v.fptr[i + 1] < v.fptr[i]) return RTMBS_ERR_ARGUMENT;
    for (i = 0; i < 2 * N; i++)
        if (v.eptr[i + 1] < v.eptr[i]) return RTMBS_ERR_ARGUMENT;
    /* runs: each row's U part, in order (sparse.py _column_runs_nb) */
    if (v.urptr[0] != 0 || (int64_t)v.urptr[N] != nrun) return RTMBS_ERR_ARGUMENT;
    for (k = 0; k < N; k++)
        if (v.urptr[k + 1] < v.urptr[k]) return RTMBS_ERR_ARGUMENT;
    for (k = 0; k < N; k++) {
        p = v.diag[k] + 1;
        for (r = v.urptr[k]; r < (int64_t)v.urptr[k + 1]; r++)
            for (t = 0; t < (int64_t)v.rlen[r]; t++, p++)
                if (p >= (int64_t)v.ptr[k + 1] || (int64_t)v.col[p] != (int64_t)v.rc0[r] + t)
                    return RTMBS_ERR_ARGUMENT;
        if (p != (int64_t)v.ptr[k + 1]) return RTMBS_ERR_ARGUMENT;
    }
    /* paired rows: row k's U part is k + 1 followed by row k + 1's (sparse.py _paired_rows_nb) */
    for (k = 0; k < N; k++) {
        int64_t a0, a1, b0, b1;
        if (!v.paired[k]) continue;
        if (k + 1 >= N) return RTMBS_ERR_ARGUMENT;
        a0 = v.diag[k] + 1;
        a1 = v.ptr[k + 1];
        b0 = v.diag[k + 1] + 1;
        b1 = v.ptr[k + 2];
        if (a1 - a0 != b1 - b0 + 1 || v.col[a0] != (uint32_t)(k + 1)) return RTMBS_ERR_ARGUMENT;
        for (t = 0; t < b1 - b0; t++)
            if (v.col[a0 + 1 + t] != v.col[b0 + t]) return RTMBS_ERR_ARGUMENT;
    }
    return RTMBS_OK;
}

/* -- factor ----------------------------------------------------------------------------------- */

/* Python's max(a, b): keep a unless b > a (NaN never replaces, as numba's builtin max) */
static inline double pymax(double a, double b) { return b > a ? b : a; }

/* l_i,k+1 and l_i,k+2 of a group of supernode rows k, k + 1, k + 2, ... (sparse.py _lead_pair) */
static inline void lead_pair(double* restrict w, const double* restrict lu,
                             const double* restrict uinv, double lik, size_t k, size_t dk,
                             size_t d1, double* l1, double* l2) {
    size_t k1 = k + 1, k2 = k + 2;
    w[k1] = w[k1] - lik * lu[dk + 1];
    *l1 = w[k1] * uinv[k1];
    w[k1] = *l1;
    w[k2] = (w[k2] - lik * lu[dk + 2]) - *l1 * lu[d1 + 1];
    *l2 = w[k2] * uinv[k2];
    w[k2] = *l2;
}

double rtmbs_lu_refactor(const uint32_t* ib, double* fb, double* growth) {
    lu_view v;
    size_t N, i, p, p0, p1, d, k, dk, r, j, c0, ln; /* (size_t: the run loops vectorise) */
    double umax = 0.0, umin = INFINITY, lmax = 0.0, lik, a, u, bound, piv;
    int64_t nperturbed = 0;
    int bad = 0, flagged;
    /* (restrict: w, lu and uinv are disjoint parts of fb; the run loops vectorise) */
    double *restrict w, *restrict lu, *restrict uinv;
    const uint32_t *ptr, *diag, *col, *paired, *urptr, *rc0, *rlen;
    lu_views(ib, fb, &v);
    N = v.N;
    w = v.w;
    lu = v.lu;
    uinv = v.uinv;
    ptr = v.ptr;
    diag = v.diag;
    col = v.col;
    paired = v.paired;
    urptr = v.urptr;
    rc0 = v.rc0;
    rlen = v.rlen;
    for (i = 0; i < N; i++) {
        p0 = ptr[i];
        p1 = ptr[i + 1];
        d = diag[i];
        /* row i of the matrix into w straight from the entries (no pass over the whole storage):
         * its zeros, its entries (one per position), the entries of shared positions added */
        for (p = v.fptr[i]; p < v.fptr[i + 1]; p++) w[v.fcol[p]] = 0.0;
        for (p = v.eptr[2 * i]; p < v.eptr[2 * i + 1]; p++) w[v.ecol[p]] = v.ax[v.eidx[p]];
        for (p = v.eptr[2 * i + 1]; p < v.eptr[2 * i + 2]; p++) w[v.ecol[p]] += v.ax[v.eidx[p]];
        p = p0;
        while (p < d) {
            k = col[p];
            dk = diag[k];
            lik = w[k] * uinv[k];
            w[k] = lik;
            a = fabs(lik);
            if (a > lmax) lmax = a;
            if (p + 3 < d && paired[k] != 0 && paired[k + 1] != 0 && paired[k + 2] != 0
                && col[p + 3] == k + 3) {
                /* four rows of a supernode in one pass: columns k + 1 .. k + 3 take the updates
                 * of the rows before them in turn, then every column of row k + 3's runs takes
                 * the four updates in the order of k */
                size_t k3 = k + 3, d1 = diag[k + 1], d2 = diag[k + 2], d3 = diag[k3];
                size_t r0, r1, r2, r3;
                double l1, l2, l3;
                lead_pair(w, lu, uinv, lik, k, dk, d1, &l1, &l2);
                w[k3] = ((w[k3] - lik * lu[dk + 3]) - l1 * lu[d1 + 2]) - l2 * lu[d2 + 1];
                l3 = w[k3] * uinv[k3];
                w[k3] = l3;
                a = pymax(pymax(fabs(l1), fabs(l2)), fabs(l3));
                if (a > lmax) lmax = a;
                r0 = dk + 4;
                r1 = d1 + 3;
                r2 = d2 + 2;
                r3 = d3 + 1;
                for (r = urptr[k3]; r < urptr[k3 + 1]; r++) {
                    c0 = rc0[r];
                    ln = rlen[r];
                    for (j = 0; j < ln; j++)
                        w[c0 + j] = (((w[c0 + j] - lik * lu[r0 + j]) - l1 * lu[r1 + j])
                                     - l2 * lu[r2 + j]) - l3 * lu[r3 + j];
                    r0 += ln;
                    r1 += ln;
                    r2 += ln;
                    r3 += ln;
                }
                p += 4;
                continue;
            }
            if (p + 2 < d && paired[k] != 0 && paired[k + 1] != 0 && col[p + 2] == k + 2) {
                /* three rows (as four) */
                size_t k2 = k + 2, d1 = diag[k + 1], d2 = diag[k2];
                size_t r0, r1, r2;
                double l1, l2;
                lead_pair(w, lu, uinv, lik, k, dk, d1, &l1, &l2);
                a = pymax(fabs(l1), fabs(l2));
                if (a > lmax) lmax = a;
                r0 = dk + 3;
                r1 = d1 + 2;
                r2 = d2 + 1;
                for (r = urptr[k2]; r < urptr[k2 + 1]; r++) {
                    c0 = rc0[r];
                    ln = rlen[r];
                    for (j = 0; j < ln; j++)
                        w[c0 + j] = ((w[c0 + j] - lik * lu[r0 + j]) - l1 * lu[r1 + j])
                                    - l2 * lu[r2 + j];
                    r0 += ln;
                    r1 += ln;
                    r2 += ln;
                }
                p += 3;
                continue;
            }
            if (p + 1 < d && paired[k] != 0 && col[p + 1] == k + 1) {
                /* rows k and k + 1 of a supernode in one pass: w_{k+1} takes row k's update,
                 * gives l_i,k+1, then every column of row k + 1's runs takes both updates */
                size_t k1 = k + 1, d1 = diag[k1], rr, r1;
                double l1;
                w[k1] = w[k1] - lik * lu[dk + 1];
                l1 = w[k1] * uinv[k1];
                w[k1] = l1;
                a = fabs(l1);
                if (a > lmax) lmax = a;
                rr = dk + 2;
                r1 = d1 + 1;
                for (r = urptr[k1]; r < urptr[k1 + 1]; r++) {
                    c0 = rc0[r];
                    ln = rlen[r];
                    for (j = 0; j < ln; j++)
                        w[c0 + j] = (w[c0 + j] - lik * lu[rr + j]) - l1 * lu[r1 + j];
                    rr += ln;
                    r1 += ln;
                }
                p += 2;
                continue;
            }
            /* row k's U part run by run (the same multiply-adds in the same order as entry by
             * entry) */
            {
                size_t rr = dk + 1;
                for (r = urptr[k]; r < urptr[k + 1]; r++) {
                    c0 = rc0[r];
                    ln = rlen[r];
                    for (j = 0; j < ln; j++) w[c0 + j] = w[c0 + j] - lik * lu[rr + j];
                    rr += ln;
                }
            }
            p += 1;
        }
        for (p = p0; p < p1; p++) lu[p] = w[col[p]];
        piv = w[i]; /* (= lu[d], read where it was formed, not back from the copy) */
        u = fabs(piv);
        if (!(u < INFINITY)) bad = 1; /* NaN or infinite pivot: no factors */
        bound = RTMBS_LU_PIVOT_REL * v.pref[i];
        if (u < bound) { /* static pivot: keep the sign, raise the magnitude (NaN passes) */
            piv = piv < 0.0 ? -bound : bound;
            lu[d] = piv;
            u = bound;
            nperturbed += 1;
            v.stats[RTMBS_LU_S_ROW] = (double)v.prow[i];
        }
        uinv[i] = 1.0 / piv;
        if (u > umax) umax = u;
        if (u < umin) umin = u;
    }
    flagged = nperturbed > 0 || lmax > v.stats[RTMBS_LU_S_GROWTH_LIMIT];
    v.stats[RTMBS_LU_S_FLAG] = flagged ? 1.0 : 0.0;
    if (flagged) v.stats[RTMBS_LU_S_COUNT] += 1.0;
    if (N == 0) {
        *growth = 0.0;
        return 1.0;
    }
    *growth = lmax;
    if (bad || !(umin > 0.0) || !(umax < INFINITY) || !(lmax < INFINITY)) return 0.0;
    return umin / umax;
}

void rtmbs_lu_pivot_range(const uint32_t* ib, const double* fb, double* lo, double* hi) {
    const uint32_t* diag = ib + ib[RTMBS_LU_H_DIAG];
    const double* lu = fb + ib[RTMBS_LU_H_NE];
    uint32_t k, N = ib[RTMBS_LU_H_N];
    double u;
    *lo = INFINITY;
    *hi = 0.0;
    for (k = 0; k < N; k++) {
        u = fabs(lu[diag[k]]);
        if (u < *lo) *lo = u;
        if (u > *hi) *hi = u;
    }
}

/* -- solves ------------------------------------------------------------------------------------ */

/* sum of lu[p] w[col[p]] over p0 <= p < p1 in four interleaved partial sums (sparse.py _dot4) */
static inline double dot4(const double* lu, const double* w, const uint32_t* col, uint32_t p0,
                          uint32_t p1) {
    double s0 = 0.0, s1 = 0.0, s2 = 0.0, s3 = 0.0;
    uint32_t p = p0;
    while (p + 4 <= p1) {
        s0 += lu[p] * w[col[p]];
        s1 += lu[p + 1] * w[col[p + 1]];
        s2 += lu[p + 2] * w[col[p + 2]];
        s3 += lu[p + 3] * w[col[p + 3]];
        p += 4;
    }
    while (p < p1) {
        s0 += lu[p] * w[col[p]];
        p += 1;
    }
    return (s0 + s1) + (s2 + s3);
}

/* b <- U^-1 L^-1 b with the row and column permutations. Each row's term on the unknown solved
 * just before it (forward: its last L entry, the largest column; back: its first U entry, the
 * smallest) is taken last, after the others' sum: a row waits for the row before it only for one
 * multiply and one subtraction, not for the whole sum (the sweeps are bound by that chain). */
static void substitute(const lu_view* v, double* b) {
    uint32_t i, j, p, N = v->N;
    const double* lu = v->lu;
    const uint32_t* col = v->col;
    double* w = v->w;
    double x;
    for (i = 0; i < N; i++) {
        p = v->diag[i];
        x = b[v->prow[i]];
        if (p > v->ptr[i]) {
            p--;
            x = (x - dot4(lu, w, col, v->ptr[i], p)) - lu[p] * w[col[p]];
        }
        w[i] = x;
    }
    for (i = N; i-- > 0;) {
        p = v->diag[i] + 1;
        x = w[i];
        if (p < v->ptr[i + 1])
            x = (x - dot4(lu, w, col, p + 1, v->ptr[i + 1])) - lu[p] * w[col[p]];
        w[i] = x * v->uinv[i];
    }
    for (j = 0; j < N; j++) b[v->pcol[j]] = w[j];
}

/* b <- (LU)^-T b with the permutations (sparse.py _substitute_t) */
static void substitute_t(const lu_view* v, double* b) {
    uint32_t i, j, p, d, N = v->N;
    double *w = v->w, x;
    for (j = 0; j < N; j++) w[j] = b[v->pcol[j]];
    for (i = 0; i < N; i++) { /* U^T v = w (column sweep over the rows of U) */
        d = v->diag[i];
        x = w[i] * v->uinv[i];
        w[i] = x;
        for (p = d + 1; p < v->ptr[i + 1]; p++) w[v->col[p]] -= v->lu[p] * x;
    }
    for (i = N; i-- > 0;) { /* L^T z = v */
        x = w[i];
        for (p = v->ptr[i]; p < v->diag[i]; p++) w[v->col[p]] -= v->lu[p] * x;
    }
    for (i = 0; i < N; i++) b[v->prow[i]] = w[i];
}

static void sub(const lu_view* v, double* b, int transpose) {
    if (transpose)
        substitute_t(v, b);
    else
        substitute(v, b);
}

/* A x = b (or A^T x = b) in place; flagged factors: NREFINE steps of iterative refinement
 * against the entry values ax (sparse.py _solve_refined) */
static void solve_refined(const lu_view* v, double* b, int transpose) {
    uint32_t i, e, N = v->N;
    int it;
    if (v->stats[RTMBS_LU_S_FLAG] == 0.0) {
        sub(v, b, transpose);
        return;
    }
    for (i = 0; i < N; i++) v->b0[i] = b[i];
    sub(v, b, transpose);
    for (it = 0; it < RTMBS_LU_NREFINE; it++) {
        for (i = 0; i < N; i++) v->r[i] = v->b0[i];
        if (transpose)
            for (e = 0; e < v->ne; e++) v->r[v->cols[e]] -= v->ax[e] * b[v->rows[e]];
        else
            for (e = 0; e < v->ne; e++) v->r[v->rows[e]] -= v->ax[e] * b[v->cols[e]];
        sub(v, v->r, transpose);
        for (i = 0; i < N; i++) b[i] += v->r[i];
    }
}

void rtmbs_lu_solve(const uint32_t* ib, double* fb, double* b) {
    lu_view v;
    uint32_t c;
    lu_views(ib, fb, &v);
    for (c = 0; c < v.nc; c++) b[v.cdst[c]] += v.cval[c] * b[v.csrc[c]];
    solve_refined(&v, b, 0);
}

void rtmbs_lu_solve_t(const uint32_t* ib, double* fb, double* b) {
    lu_view v;
    uint32_t c;
    lu_views(ib, fb, &v);
    solve_refined(&v, b, 1);
    for (c = 0; c < v.nc; c++) b[v.csrc[c]] += v.cval[c] * b[v.cdst[c]];
}

void rtmbs_lu_solve_multi(const uint32_t* ib, double* fb, double* X, double* W, int64_t k) {
    lu_view v;
    uint32_t i, j, p, d, r, N;
    int64_t c;
    double l, inv;
    lu_views(ib, fb, &v);
    N = v.N;
    if (v.stats[RTMBS_LU_S_FLAG] != 0.0) { /* flagged: refined solves, one column each (the
                                              column gathered into W: the same arithmetic) */
        for (c = 0; c < k; c++) {
            for (i = 0; i < N; i++) W[i] = X[(size_t)i * k + c];
            rtmbs_lu_solve(ib, fb, W);
            for (i = 0; i < N; i++) X[(size_t)i * k + c] = W[i];
        }
        return;
    }
    for (i = 0; i < N; i++) {
        double* wi = W + (size_t)i * k;
        r = v.prow[i];
        for (c = 0; c < k; c++) wi[c] = X[(size_t)r * k + c];
        for (p = v.ptr[i]; p < v.diag[i]; p++) {
            const double* wj = W + (size_t)v.col[p] * k;
            l = v.lu[p];
            for (c = 0; c < k; c++) wi[c] -= l * wj[c];
        }
    }
    for (i = N; i-- > 0;) {
        double* wi = W + (size_t)i * k;
        d = v.diag[i];
        for (p = d + 1; p < v.ptr[i + 1]; p++) {
            const double* wj = W + (size_t)v.col[p] * k;
            l = v.lu[p];
            for (c = 0; c < k; c++) wi[c] -= l * wj[c];
        }
        inv = v.uinv[i];
        for (c = 0; c < k; c++) wi[c] *= inv;
    }
    for (j = 0; j < N; j++) {
        r = v.pcol[j];
        for (c = 0; c < k; c++) X[(size_t)r * k + c] = W[(size_t)j * k + c];
    }
}

int rtmbs_lu_rereference(const uint32_t* ib, double* fb) {
    lu_view v;
    uint32_t i;
    int s, ok = 1;
    double limit, u, growth;
    lu_views(ib, fb, &v);
    limit = v.stats[RTMBS_LU_S_GROWTH_LIMIT];
    for (i = 0; i < v.N; i++) v.pref[i] = 0.0;
    v.stats[RTMBS_LU_S_GROWTH_LIMIT] = INFINITY;
    (void)rtmbs_lu_refactor(ib, fb, &growth);
    for (i = 0; i < v.N; i++) {
        u = fabs(v.lu[v.diag[i]]);
        if (!(u > 0.0 && u < INFINITY)) ok = 0;
        v.pref[i] = u;
    }
    for (s = 0; s < RTMBS_LU_S_LEN; s++)
        if (s != RTMBS_LU_S_OPS) v.stats[s] = 0.0; /* (the plan's work count stays) */
    v.stats[RTMBS_LU_S_GROWTH_LIMIT] = limit;
    return ok;
}

/* -- work counts ------------------------------------------------------------------------------- */
int64_t rtmbs_lu_flops_refactor(const uint32_t* ib) {
    const uint32_t *ptr = ib + ib[RTMBS_LU_H_PTR], *diag = ib + ib[RTMBS_LU_H_DIAG];
    const uint32_t* col = ib + ib[RTMBS_LU_H_COL];
    uint32_t i, p, k, N = ib[RTMBS_LU_H_N];
    int64_t tot = 0;
    /* per multiplier l_ik: one multiply by 1/u_kk and one multiply-add per entry of row k's U
     * part (sparse.py _flops; the grouped passes do the same operations) */
    for (i = 0; i < N; i++)
        for (p = ptr[i]; p < diag[i]; p++) {
            k = col[p];
            tot += 1 + (int64_t)(ptr[k + 1] - diag[k] - 1);
        }
    return tot;
}

int64_t rtmbs_lu_flops_solve(const uint32_t* ib, int flagged) {
    /* couplings; forward (L entries) and back (U entries, and the N reciprocal pivots) */
    int64_t nsub = ib[RTMBS_LU_H_NNZ], ne = ib[RTMBS_LU_H_NE], nc = ib[RTMBS_LU_H_NC];
    if (!flagged) return nc + nsub;
    return nc + (1 + RTMBS_LU_NREFINE) * nsub + RTMBS_LU_NREFINE * ne;
}
