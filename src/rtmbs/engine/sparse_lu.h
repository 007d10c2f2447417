/* sparse_lu.h -- the fixed-pattern sparse LU and the KKT gathers (rtmbs.solvers.sparse).
 *
 * The analysis (ordering, fill, pivot sequence, runs of columns, supernode rows) is done once in
 * Python (SparseLU.analyse) and packed into one uint32 index `ib` and one double array `fb`; the
 * numeric refactorisation and the solves run here over those arrays, allocating nothing (static
 * pivoting, growth limit, fallback with iterative refinement: the module docstring of
 * rtmbs/solvers/sparse.py). Every function takes the arrays exactly as the numba kernels do.
 */
#ifndef RTMBS_SPARSE_LU_H
#define RTMBS_SPARSE_LU_H

#include <stdint.h>

#include "rtmbs.h"

/* header of ib (uint32): sizes, then the offset in ib of each part (sparse.py _H_*) */
enum {
    RTMBS_LU_H_N = 0, RTMBS_LU_H_NE, RTMBS_LU_H_NNZ, RTMBS_LU_H_PTR, RTMBS_LU_H_DIAG,
    RTMBS_LU_H_COL, RTMBS_LU_H_AMAP, RTMBS_LU_H_PROW, RTMBS_LU_H_PCOL, RTMBS_LU_H_ROWS,
    RTMBS_LU_H_COLS, RTMBS_LU_H_NC, RTMBS_LU_H_CDST, RTMBS_LU_H_CSRC, RTMBS_LU_H_NRUN,
    RTMBS_LU_H_URPTR, RTMBS_LU_H_RC0, RTMBS_LU_H_RLEN, RTMBS_LU_H_PAIRED, RTMBS_LU_H_NFILL,
    RTMBS_LU_H_FPTR, RTMBS_LU_H_FCOL, RTMBS_LU_H_EPTR, RTMBS_LU_H_ECOL, RTMBS_LU_H_EIDX,
    RTMBS_LU_H_LEN
};
/* statistics in fb (sparse.py _S_*): flagged (0/1), flagged factorisations since the analysis,
 * original row of the last raised pivot, largest multiplier before flagging */
enum { RTMBS_LU_S_FLAG = 0, RTMBS_LU_S_COUNT, RTMBS_LU_S_ROW, RTMBS_LU_S_GROWTH_LIMIT,
       RTMBS_LU_S_OPS, RTMBS_LU_S_LEN };

/* a pivot below this times its reference is raised to that bound (rtmbs.tolerances.PIVOT_REL) */
#define RTMBS_LU_PIVOT_REL 1e-8
/* refinement steps of a solve with flagged factors (sparse.py NREFINE) */
#define RTMBS_LU_NREFINE 2

/* Length of fb for the index ib: ax (ne) | lu (nnz) | w (N) | pivot references (N) | b0 (N) |
 * r (N) | couplings (nc) | statistics (RTMBS_LU_S_LEN) | reciprocal pivots (N). */
int64_t rtmbs_lu_fb_size(const uint32_t* ib);

/* Check the index ib (length nib) against itself and fb's length nfb: header, part offsets and
 * lengths, and (with `full`) every index value in range (O(size): once, when the factors are
 * bound, not per step). */
rtmbs_status rtmbs_lu_check(const uint32_t* ib, int64_t nib, int64_t nfb, int full);

/* Numeric LU of the entry values ax (in fb) with the fixed pattern and pivots of ib; static
 * pivoting of pivots below RTMBS_LU_PIVOT_REL times their reference; the fallback flag, count and
 * row written into fb's statistics (sparse.py lu_refactor). Returns the pivot ratio
 * min|u_kk| / max|u_kk| (0.0 for a non-finite or zero pivot) and the largest |l_ik| in *growth. */
double rtmbs_lu_refactor(const uint32_t* ib, double* fb, double* growth);

/* (min, max) of |u_kk| of the last refactorisation (sparse.py lu_pivot_range_sp). */
void rtmbs_lu_pivot_range(const uint32_t* ib, const double* fb, double* lo, double* hi);

/* Solve A x = b in place (the couplings b[dst] += c b[src] first; refined when flagged). */
void rtmbs_lu_solve(const uint32_t* ib, double* fb, double* b);
/* Solve A^T x = b in place (refined when flagged; the couplings' transpose after). */
void rtmbs_lu_solve_t(const uint32_t* ib, double* fb, double* b);
/* Solve A Y = X in place for X (N x k, row-major); W (N x k) work space. Flagged factors: one
 * refined solve per column (with the couplings, as sparse.py lu_solve_multi_sp). */
void rtmbs_lu_solve_multi(const uint32_t* ib, double* fb, double* X, double* W, int64_t k);

/* Reference pivots set to the pivots of the current values, statistics cleared (sparse.py
 * lu_rereference, Algorithm 2's rebase). Returns 0 when a pivot is zero or not finite, else 1. */
int rtmbs_lu_rereference(const uint32_t* ib, double* fb);

/* Multiply-adds (the loops' trip counts) of one refactorisation (the multipliers and the row
 * updates) and of one solve (couplings, forward and back substitution with the reciprocal
 * pivots; with `flagged`, the RTMBS_LU_NREFINE refinement steps too: residual and solve each). */
int64_t rtmbs_lu_flops_refactor(const uint32_t* ib);
int64_t rtmbs_lu_flops_solve(const uint32_t* ib, int flagged);

/* -- the KKT gathers from packed workspaces (kkt.c; sparse.py PackedKKTMap) ----------------------
 * idx packs [nA, nz, nzi, dJ, a_i, a_j, a_M, a_J, z_r, z_c, z_ptr, z_idx, z_Mdiag, augmentation].
 * K = [M - cd Jqdot - c Jq, s Phi_q(w0)^T; Phi_q(w1), 0] plus the augmentation of the single-block
 * rows (alpha Phi_qr^T Phi_qr into A, the couplings into fb). */

/* Check idx (length nidx) against the factors ib (entries and couplings) and the workspace
 * length nw (every flat index < nw; with `full` all values, else the header and lengths). */
rtmbs_status rtmbs_kkt_check(const uint32_t* ib, const uint32_t* idx, int64_t nidx, int64_t nw,
                             int full);

/* Gather the entries into ax and cval (sparse.py _gather_packed); with njx > 0 also
 * jx = Jq x over the A entries (length njx), with nphix > 0 phix = Phi_q(w1) x (length nphix). */
void rtmbs_kkt_gather_packed(const uint32_t* idx, const double* w0, double c, double cd, double s,
                             const double* w1, double* ax, double* cval, const double* x,
                             double* jx, int64_t njx, double* phix, int64_t nphix);

/* Gather into the factors' entry values, then refactor (sparse.py kkt_values_packed). Returns the
 * pivot ratio, the largest multiplier in *growth. */
double rtmbs_kkt_values_packed(const uint32_t* ib, double* fb, const uint32_t* idx,
                               const double* w0, double c, double cd, double s, const double* w1,
                               double* growth);

/* The same with jx = Jq x and (nphix > 0) phix = Phi_q(w1) x in the gather's passes
 * (sparse.py kkt_values_products_packed). */
double rtmbs_kkt_values_products_packed(const uint32_t* ib, double* fb, const uint32_t* idx,
                                        const double* w0, double c, double cd, double s,
                                        const double* w1, const double* x, double* jx,
                                        int64_t njx, double* phix, int64_t nphix, double* growth);

/* Multiply-adds of one gather (A entries unless plain (c = cd = 0), the products Jq x when
 * `products`, Phi_q x when `with_phix`, s Phi_q, the augmentation). */
int64_t rtmbs_kkt_flops_gather(const uint32_t* idx, int plain, int products, int with_phix);

/* The projection of Carpinelli 2016 eq. 30 from a step's packed buffers (storage.py project_kkt): M's
 * entries copied from w0 into w1, [M h Phi_q^T; Phi_q 0] at w1 gathered and factored, then
 * [x; mu] = K^-1 [0; -phi1] (rhs: n + m) and dq += x (n). Returns the pivot ratio. */
double rtmbs_project_kkt(const uint32_t* ib, double* fb, const uint32_t* pidx, const double* w0,
                         double* w1, const double* phi1, int64_t m, double h, double* rhs,
                         double* dq, int64_t n, double* growth);

/* y = M x over the A entries of a PackedKKTMap (M's values in w0), and y = Phi_q(w0)^T x over its
 * Phi_q entries: the products of a GGL correction (compiled_step._ggl_newton_packed), each sum in
 * the order of the entries. y: length n. */
void rtmbs_kkt_mass_times(const uint32_t* idx, const double* w0, const double* x, double* y,
                          int64_t n);
void rtmbs_kkt_phiq_transpose_times(const uint32_t* idx, const double* w0, const double* x,
                                    double* y, int64_t n);

/* y -= M x, y -= Phi_q(w)^T x and y -= Phi_q(w) x over the entries of a PackedKKTMap (M's and
 * Phi_q's patterns: rtmbs.solvers.storage.entry_index), one entry at a time in their order (the
 * products of a generalized-alpha step: compiled_alpha._sub_m_times, _sub_phiqt_times,
 * _sub_phiq_times; products.sub_mv, sub_mtv on dense arrays). */
void rtmbs_kkt_sub_mass_times(const uint32_t* idx, const double* w, const double* x, double* y);
void rtmbs_kkt_sub_phiq_transpose_times(const uint32_t* idx, const double* w, const double* x,
                                        double* y);
void rtmbs_kkt_sub_phiq_times(const uint32_t* idx, const double* w, const double* x, double* y);

/* -- KKT maps on dense arrays (sparse.py KKTMap: idx = [nA, nz, a_i, a_j, z_r, z_c, ...]) ------ */
/* y = Phi_q x over the Phi_q entries (phiq: m x ncol row-major; y: length ny). */
void rtmbs_phiq_times(const uint32_t* idx, const double* phiq, int64_t ncol, const double* x,
                      double* y, int64_t ny);
/* y = J x over the A entries (J: n x ncol row-major; y: length ny). */
void rtmbs_a_times(const uint32_t* idx, const double* J, int64_t ncol, const double* x, double* y,
                   int64_t ny);

#endif /* RTMBS_SPARSE_LU_H */
