/* partition.c -- the kernels of Algorithm 2's coordinate partitioning (Carpinelli 2016, eq. 24:
 * T = [S R] = [Phi_q; B]^-1 with B = rows of the identity at the independent coordinates v):
 * R = [-Phi_u^-1 Phi_v; I], S = [Phi_u^-1; 0], only Phi_u (m x m) factorised on its fixed pattern
 * (rtmbs.solvers.basis _p_factor, _p_R_Sc, _p_velocity, _p_zd, _p_lambda, _p_project_T), and the
 * dense LU of the reduced matrix H (rtmbs.solvers.linalg lu_factor, lu_solve). The operations of
 * the numba kernels in their order (they are compiled without fastmath: the same bits).
 */
#include <math.h>

#include "li_euler_indep.h"

void rtmbs_phiq_reader_make(const uint32_t* idx, const double* w, rtmbs_phiq_reader* r) {
    /* (storage.phiq_index: idx = [nA, nz, nzi, dJ, a_i, a_j, a_M, a_J, z_r, z_c, z_ptr, ...]) */
    const size_t na = idx[0], nz = idx[1];
    r->w = w;
    r->zptr = idx + 4 + 4 * na + 2 * nz;
    r->zidx = r->zptr + nz + 1;
}

/* Phi_q entry e: its terms summed in order (sparse._phiq_value) */
static double phiq_at(const rtmbs_phiq_reader* r, uint32_t e) {
    uint32_t k, k1 = r->zptr[e + 1];
    double v = r->w[r->zidx[r->zptr[e]]];
    for (k = r->zptr[e] + 1; k < k1; k++) v += r->w[r->zidx[k]];
    return v;
}

/* the parts of pidx (basis._pidx_parts) */
typedef struct pidx_view_ {
    uint32_t nu, nv, f;
    const uint32_t *ur, *uk, *ue, *vr, *vj, *ve, *vptr;
} pidx_view;

static void pidx_parts(const uint32_t* pidx, pidx_view* p) {
    size_t o = 3;
    p->nu = pidx[0];
    p->nv = pidx[1];
    p->f = pidx[2];
    p->ur = pidx + o;
    p->uk = p->ur + p->nu;
    p->ue = p->uk + p->nu;
    o += 3 * (size_t)p->nu;
    p->vr = pidx + o;
    p->vj = p->vr + p->nv;
    p->ve = p->vj + p->nv;
    p->vptr = p->ve + p->nv;
}

void rtmbs_partition_factor(rtmbs_data* d, const rtmbs_partition* b, const rtmbs_phiq_reader* pq,
                            int64_t m, double out[3]) {
    pidx_view p;
    uint32_t e;
    double v, big = 0.0, ratio, growth, umin, umax;
    pidx_parts(b->pidx, &p);
    for (e = 0; e < p.nu; e++) { /* (f_set: the entry values at the start of fb) */
        v = phiq_at(pq, p.ue[e]);
        b->fb[e] = v;
        if (fabs(v) > big) big = fabs(v);
    }
    for (e = 0; e < p.nv; e++) {
        v = fabs(phiq_at(pq, p.ve[e]));
        if (v > big) big = v;
    }
    ratio = rtmbs_lu_refactor(b->ib, b->fb, &growth);
    rtmbs_count_lu(d, b->ib, b->fb, 1, 0);
    /* (basis._p_ratio: measured against the whole Phi_q, so that a singular Phi_u of size 1
     * shows too) */
    out[1] = ratio;
    out[2] = growth;
    if (ratio == 0.0) {
        out[0] = 0.0;
        out[1] = 0.0;
        return;
    }
    rtmbs_lu_pivot_range(b->ib, b->fb, &umin, &umax);
    if (umax > big) big = umax;
    out[0] = m == 0 ? 1.0 : umin / big;
}

void rtmbs_partition_R_Sc(rtmbs_data* d, const rtmbs_partition* b, const rtmbs_phiq_reader* pq,
                          const double* gamma, double* Rn, double* Sc, int64_t n, int64_t m) {
    const int64_t f = n - m, k1 = f + 1;
    pidx_view p;
    uint32_t e;
    int64_t i, j, k, ck;
    double* X = b->X;
    pidx_parts(b->pidx, &p);
    for (i = 0; i < m; i++) {
        for (j = 0; j < f; j++) X[i * k1 + j] = 0.0;
        X[i * k1 + f] = gamma[i];
    }
    for (e = 0; e < p.nv; e++) X[(int64_t)p.vr[e] * k1 + p.vj[e]] = phiq_at(pq, p.ve[e]);
    rtmbs_lu_solve_multi(b->ib, b->fb, X, b->W, k1);
    rtmbs_count_lu(d, b->ib, b->fb, 0, k1);
    for (k = 0; k < m; k++) {
        ck = b->cols[k];
        for (j = 0; j < f; j++) Rn[ck * f + j] = -X[k * k1 + j];
        Sc[ck] = X[k * k1 + f];
    }
    for (k = 0; k < f; k++) {
        ck = b->cols[m + k];
        for (j = 0; j < f; j++) Rn[ck * f + j] = k == j ? 1.0 : 0.0;
        Sc[ck] = 0.0;
    }
}

void rtmbs_partition_velocity(rtmbs_data* d, const rtmbs_partition* b,
                              const rtmbs_phiq_reader* pq, const double* phit, const double* phi,
                              double gb, const double* zd, double* qd, int64_t n, int64_t m) {
    const int64_t f = n - m;
    pidx_view p;
    uint32_t e;
    int64_t i, k;
    double* tmp = b->tmp;
    pidx_parts(b->pidx, &p);
    for (i = 0; i < m; i++) tmp[i] = -phit[i] - gb * phi[i];
    for (e = 0; e < p.nv; e++) tmp[p.vr[e]] -= phiq_at(pq, p.ve[e]) * zd[p.vj[e]];
    rtmbs_lu_solve(b->ib, b->fb, tmp);
    rtmbs_count_lu(d, b->ib, b->fb, 0, 1);
    for (k = 0; k < m; k++) qd[b->cols[k]] = tmp[k];
    for (k = 0; k < f; k++) qd[b->cols[m + k]] = zd[k];
}

void rtmbs_partition_zd(const rtmbs_partition* b, const double* qd, double* zd, int64_t n,
                        int64_t m) {
    int64_t k;
    for (k = 0; k < n - m; k++) zd[k] = qd[b->cols[m + k]];
}

void rtmbs_partition_lambda(rtmbs_data* d, const rtmbs_partition* b, const double* x, double* lam,
                            double h, int64_t m) {
    int64_t k;
    double* tmp = b->tmp;
    for (k = 0; k < m; k++) tmp[k] = x[b->cols[k]];
    rtmbs_lu_solve_t(b->ib, b->fb, tmp);
    rtmbs_count_lu(d, b->ib, b->fb, 0, 1);
    for (k = 0; k < m; k++) lam[k] = tmp[k] / h;
}

void rtmbs_partition_project_T(rtmbs_data* d, const rtmbs_partition* b, const double* phi,
                               double* dq, int64_t m) {
    int64_t k;
    double* tmp = b->tmp;
    for (k = 0; k < m; k++) tmp[k] = -phi[k];
    rtmbs_lu_solve(b->ib, b->fb, tmp);
    rtmbs_count_lu(d, b->ib, b->fb, 0, 1);
    for (k = 0; k < m; k++) dq[b->cols[k]] += tmp[k];
}
