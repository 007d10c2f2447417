/* kkt.c -- the KKT matrix of Carpinelli 2016 eq. 22 (and of the projection, eq. 30) gathered from the
 * packed workspaces into the entries of the fixed-pattern LU (rtmbs.solvers.sparse:
 * _gather_packed, kkt_values_packed, kkt_values_products_packed, phiq_times, a_times;
 * rtmbs.solvers.storage: project_kkt).
 *
 * K = [M - cd Jqdot - c Jq, s Phi_q(w0)^T; Phi_q(w1), 0]; the rows of Phi_q within one block of M
 * (Euler-parameter normalisation rows) are added to A as alpha Phi_qr^T Phi_qr with
 * alpha = sum M_jj / sum Phi_qj^2 (augmented Lagrangian: A definite, the solution unchanged), and
 * alpha Phi_qj go to the couplings of the solve. The same operations in the same order as numba.
 */
#include "sparse_lu.h"

/* the parts of a PackedKKTMap index (sparse.py _packed_parts, _augmentation_at) */
typedef struct kkt_view_ {
    uint32_t na, nz, nzi, dj, ng, neb, npair;
    const uint32_t *ai, *aj, *am, *aq, *zr, *zc, *zptr, *zidx, *zmd;
    const uint32_t *gptr, *pptr, *eb, *pa;
    int64_t end; /* length of the index */
} kkt_view;

static void kkt_views(const uint32_t* idx, kkt_view* v) {
    int64_t o = 4;
    v->na = idx[0];
    v->nz = idx[1];
    v->nzi = idx[2];
    v->dj = idx[3];
    v->ai = idx + o; o += v->na;
    v->aj = idx + o; o += v->na;
    v->am = idx + o; o += v->na;
    v->aq = idx + o; o += v->na;
    v->zr = idx + o; o += v->nz;
    v->zc = idx + o; o += v->nz;
    v->zptr = idx + o; o += (int64_t)v->nz + 1;
    v->zidx = idx + o; o += v->nzi;
    v->zmd = idx + o; o += v->nz;
    v->ng = idx[o];
    v->neb = idx[o + 1];
    v->npair = idx[o + 2];
    o += 3;
    v->gptr = idx + o; o += (int64_t)v->ng + 1;
    v->pptr = idx + o; o += (int64_t)v->ng + 1;
    v->eb = idx + o; o += v->neb;
    v->pa = idx + o; o += v->npair;
    v->end = o;
}

rtmbs_status rtmbs_kkt_check(const uint32_t* ib, const uint32_t* idx, int64_t nidx, int64_t nw,
                             int full) {
    kkt_view v;
    int64_t o, e, g, N = ib[RTMBS_LU_H_N];
    uint32_t k;
    if (nidx < 4) return RTMBS_ERR_SIZE;
    o = 4 + 4 * (int64_t)idx[0] + 3 * (int64_t)idx[1] + 1 + idx[2] + idx[1];
    if (o + 3 > nidx) return RTMBS_ERR_SIZE;
    o += 3 + 2 * ((int64_t)idx[o] + 1) + idx[o + 1] + idx[o + 2];
    if (o != nidx) return RTMBS_ERR_SIZE;
    kkt_views(idx, &v);
    /* the factors' entries: A, s Phi_q^T, Phi_q; one coupling per augmented entry */
    if ((int64_t)v.na + 2 * (int64_t)v.nz != (int64_t)ib[RTMBS_LU_H_NE]
        || v.neb != ib[RTMBS_LU_H_NC])
        return RTMBS_ERR_SIZE;
    if (!full) return RTMBS_OK;
    for (e = 0; e < v.na; e++)
        if ((int64_t)v.ai[e] >= N || (int64_t)v.aj[e] >= N || (int64_t)v.am[e] >= nw
            || (int64_t)v.aq[e] + v.dj >= nw)
            return RTMBS_ERR_ARGUMENT;
    if (v.zptr[0] != 0 || v.zptr[v.nz] != v.nzi) return RTMBS_ERR_ARGUMENT;
    for (e = 0; e < v.nz; e++)
        if ((int64_t)v.zr[e] >= N || (int64_t)v.zc[e] >= N || (int64_t)v.zmd[e] >= nw
            || v.zptr[e + 1] <= v.zptr[e])
            return RTMBS_ERR_ARGUMENT;
    for (e = 0; e < v.nzi; e++)
        if ((int64_t)v.zidx[e] >= nw) return RTMBS_ERR_ARGUMENT;
    if (v.gptr[0] != 0 || v.gptr[v.ng] != v.neb || v.pptr[0] != 0 || v.pptr[v.ng] != v.npair)
        return RTMBS_ERR_ARGUMENT;
    for (g = 0; g < v.ng; g++) {
        uint32_t n = v.gptr[g + 1] - v.gptr[g];
        if (v.gptr[g + 1] < v.gptr[g] || v.pptr[g + 1] < v.pptr[g]
            || (int64_t)(v.pptr[g + 1] - v.pptr[g]) != (int64_t)n * n)
            return RTMBS_ERR_ARGUMENT;
    }
    for (k = 0; k < v.neb; k++)
        if (v.eb[k] >= v.nz) return RTMBS_ERR_ARGUMENT;
    for (k = 0; k < v.npair; k++)
        if (v.pa[k] >= v.na) return RTMBS_ERR_ARGUMENT;
    return RTMBS_OK;
}

/* the augmentation of group g's single-block rows (sparse.py _augment_group): alpha = sm / sum
 * phi^2 over its entries phi of the bottom Phi_q, alpha Phi_q^T Phi_q added to its A entries, the
 * couplings alpha phi into cval */
static void augment_group(const kkt_view* v, size_t g, double sm, const double* bottom,
                          double* ax, double* cval) {
    size_t e0 = v->gptr[g], e1 = v->gptr[g + 1], k1, k2, p;
    double sb = 0.0, alpha, a1;
    for (k1 = e0; k1 < e1; k1++) sb += bottom[v->eb[k1]] * bottom[v->eb[k1]];
    alpha = sb > 0.0 ? sm / sb : 0.0;
    p = v->pptr[g]; /* the pairs (k1, k2) of the row's entries, row-major */
    for (k1 = e0; k1 < e1; k1++) {
        a1 = alpha * bottom[v->eb[k1]];
        cval[k1] = a1;
        for (k2 = e0; k2 < e1; k2++) {
            ax[v->pa[p]] += a1 * bottom[v->eb[k2]];
            p++;
        }
    }
}

void rtmbs_kkt_gather_packed(const uint32_t* idx, const double* w0, double c, double cd, double s,
                             const double* w1, double* restrict ax, double* restrict cval,
                             const double* x, double* restrict jx, int64_t njx,
                             double* restrict phix, int64_t nphix) {
    /* (the loops split by case: each entry's value and each sum's order of terms as numba's one
     * pass, so the same bits; restrict: ax, cval, jx, phix are disjoint outputs) */
    kkt_view v;
    size_t e, k, g, na, nz;
    int64_t i;
    double sm;
    kkt_views(idx, &v);
    na = v.na;
    nz = v.nz;
    /* (the products Jq x and Phi_q x in the same passes as the entries they read: each sum's
     * terms in entry order, as in separate passes) */
    if (njx > 0) {
        for (i = 0; i < njx; i++) jx[i] = 0.0;
        if (c == 0.0 && cd == 0.0)
            for (e = 0; e < na; e++) {
                ax[e] = w0[v.am[e]];
                jx[v.ai[e]] += w0[v.aq[e]] * x[v.aj[e]];
            }
        else
            for (e = 0; e < na; e++) {
                double jq;
                k = v.aq[e];
                jq = w0[k];
                ax[e] = (w0[v.am[e]] - cd * w0[k + v.dj]) - c * jq;
                jx[v.ai[e]] += jq * x[v.aj[e]];
            }
    } else if (c == 0.0 && cd == 0.0)
        for (e = 0; e < na; e++) ax[e] = w0[v.am[e]];
    else
        for (e = 0; e < na; e++) {
            k = v.aq[e];
            ax[e] = (w0[v.am[e]] - cd * w0[k + v.dj]) - c * w0[k];
        }
    if (nphix > 0)
        for (i = 0; i < nphix; i++) phix[i] = 0.0;
    for (e = 0; e < nz; e++) { /* (sparse.py _phiq_value of w0 and of w1, in one loop) */
        size_t k0 = v.zptr[e], k1 = v.zptr[e + 1];
        double a0 = w0[v.zidx[k0]], a1 = w1[v.zidx[k0]];
        for (k = k0 + 1; k < k1; k++) {
            a0 += w0[v.zidx[k]];
            a1 += w1[v.zidx[k]];
        }
        ax[na + e] = s * a0;
        ax[na + nz + e] = a1;
        if (nphix > 0) phix[v.zr[e]] += a1 * x[v.zc[e]];
    }
    for (g = 0; g < v.ng; g++) {
        sm = 0.0;
        for (k = v.gptr[g]; k < v.gptr[g + 1]; k++) sm += w0[v.zmd[v.eb[k]]];
        augment_group(&v, g, sm, ax + na + nz, ax, cval);
    }
}

/* the couplings' values in fb (sparse.py _extras: after ax, lu, w, pref, b0, r) */
static double* lu_cval(const uint32_t* ib, double* fb) {
    return fb + (size_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ] + 4 * (size_t)ib[RTMBS_LU_H_N];
}

double rtmbs_kkt_values_packed(const uint32_t* ib, double* fb, const uint32_t* idx,
                               const double* w0, double c, double cd, double s, const double* w1,
                               double* growth) {
    rtmbs_kkt_gather_packed(idx, w0, c, cd, s, w1, fb, lu_cval(ib, fb), NULL, NULL, 0, NULL, 0);
    return rtmbs_lu_refactor(ib, fb, growth);
}

double rtmbs_kkt_values_products_packed(const uint32_t* ib, double* fb, const uint32_t* idx,
                                        const double* w0, double c, double cd, double s,
                                        const double* w1, const double* x, double* jx,
                                        int64_t njx, double* phix, int64_t nphix, double* growth) {
    rtmbs_kkt_gather_packed(idx, w0, c, cd, s, w1, fb, lu_cval(ib, fb), x, jx, njx, phix, nphix);
    return rtmbs_lu_refactor(ib, fb, growth);
}

int64_t rtmbs_kkt_flops_gather(const uint32_t* idx, int plain, int products, int with_phix) {
    kkt_view v;
    uint32_t g;
    int64_t n, tot;
    kkt_views(idx, &v);
    /* A: two multiply-adds per entry (none when plain: c = cd = 0), Jq x: one; s Phi_q and
     * Phi_q x: one each per entry; augmentation: sum phi^2, alpha phi, the pairs */
    tot = (plain ? 0 : 2 * (int64_t)v.na) + (products ? v.na : 0)
          + (int64_t)v.nz * (with_phix ? 2 : 1);
    for (g = 0; g < v.ng; g++) {
        n = v.gptr[g + 1] - v.gptr[g];
        tot += 2 * n + n * n;
    }
    return tot;
}

double rtmbs_project_kkt(const uint32_t* ib, double* fb, const uint32_t* pidx, const double* w0,
                         double* w1, const double* phi1, int64_t m, double h, double* rhs,
                         double* dq, int64_t n, double* growth) {
    kkt_view v;
    uint32_t e;
    int64_t i;
    double ratio;
    kkt_views(pidx, &v);
    /* M(q) with Phi_q(q + dq) (storage.py copy_mass): the M entries and the diagonals the
     * augmentation reads */
    for (e = 0; e < v.na; e++) w1[v.am[e]] = w0[v.am[e]];
    for (e = 0; e < v.nz; e++) w1[v.zmd[e]] = w0[v.zmd[e]];
    ratio = rtmbs_kkt_values_packed(ib, fb, pidx, w1, 0.0, 0.0, h, w1, growth);
    /* K [x; mu] = [0; -Phi], dq += x (factorisation.py kkt_correction) */
    for (i = 0; i < n; i++) rhs[i] = 0.0;
    for (i = 0; i < m; i++) rhs[n + i] = -phi1[i];
    rtmbs_lu_solve(ib, fb, rhs);
    for (i = 0; i < n; i++) dq[i] += rhs[i];
    return ratio;
}

void rtmbs_kkt_mass_times(const uint32_t* idx, const double* w0, const double* x, double* y,
                          int64_t n) {
    kkt_view v;
    uint32_t e;
    int64_t i;
    kkt_views(idx, &v);
    for (i = 0; i < n; i++) y[i] = 0.0;
    for (e = 0; e < v.na; e++) y[v.ai[e]] += w0[v.am[e]] * x[v.aj[e]];
}

void rtmbs_kkt_phiq_transpose_times(const uint32_t* idx, const double* w0, const double* x,
                                    double* y, int64_t n) {
    kkt_view v;
    uint32_t e, k;
    int64_t i;
    kkt_views(idx, &v);
    for (i = 0; i < n; i++) y[i] = 0.0;
    for (e = 0; e < v.nz; e++) { /* (sparse.py _phiq_value: the terms of a coupler row in order) */
        double a = w0[v.zidx[v.zptr[e]]];
        for (k = v.zptr[e] + 1; k < v.zptr[e + 1]; k++) a += w0[v.zidx[k]];
        y[v.zc[e]] += a * x[v.zr[e]];
    }
}

/* Phi_q entry e of w: its terms summed in order (sparse.py _phiq_value) */
static double phiq_value(const kkt_view* v, const double* w, uint32_t e) {
    uint32_t k;
    double a = w[v->zidx[v->zptr[e]]];
    for (k = v->zptr[e] + 1; k < v->zptr[e + 1]; k++) a += w[v->zidx[k]];
    return a;
}

void rtmbs_kkt_sub_mass_times(const uint32_t* idx, const double* w, const double* x, double* y) {
    kkt_view v;
    uint32_t e;
    kkt_views(idx, &v);
    for (e = 0; e < v.na; e++) y[v.ai[e]] -= w[v.am[e]] * x[v.aj[e]];
}

void rtmbs_kkt_sub_phiq_transpose_times(const uint32_t* idx, const double* w, const double* x,
                                        double* y) {
    kkt_view v;
    uint32_t e;
    kkt_views(idx, &v);
    for (e = 0; e < v.nz; e++) y[v.zc[e]] -= phiq_value(&v, w, e) * x[v.zr[e]];
}

void rtmbs_kkt_sub_phiq_times(const uint32_t* idx, const double* w, const double* x, double* y) {
    kkt_view v;
    uint32_t e;
    kkt_views(idx, &v);
    for (e = 0; e < v.nz; e++) y[v.zr[e]] -= phiq_value(&v, w, e) * x[v.zc[e]];
}

/* -- KKTMap on dense arrays (idx = [nA, nz, a_i, a_j, z_r, z_c, augmentation]) ---------------- */
void rtmbs_phiq_times(const uint32_t* idx, const double* phiq, int64_t ncol, const double* x,
                      double* y, int64_t ny) {
    uint32_t na = idx[0], nz = idx[1], e;
    const uint32_t *zr = idx + 2 + 2 * (size_t)na, *zc = zr + nz;
    int64_t i;
    for (i = 0; i < ny; i++) y[i] = 0.0;
    for (e = 0; e < nz; e++) y[zr[e]] += phiq[(size_t)zr[e] * ncol + zc[e]] * x[zc[e]];
}

void rtmbs_a_times(const uint32_t* idx, const double* J, int64_t ncol, const double* x, double* y,
                   int64_t ny) {
    uint32_t na = idx[0], e;
    const uint32_t *ai = idx + 2, *aj = ai + na;
    int64_t i;
    for (i = 0; i < ny; i++) y[i] = 0.0;
    for (e = 0; e < na; e++) y[ai[e]] += J[(size_t)ai[e] * ncol + aj[e]] * x[aj[e]];
}
