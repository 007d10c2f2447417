/* li_euler_indep.h -- Algorithm 2 (Carpinelli 2016, linearly implicit Euler in independent
 * coordinates) for B = the coordinate partition on packed workspaces: the partition's kernels
 * (partition.c), the reduced system and the step (li_euler_indep.c), the rollout
 * (rollout_indep.c). The choice of a partition (rook pivoting, the sparse analysis of Phi_u) is
 * done in Python between calls (rtmbs.solvers.basis.PartitionBasis). */
#ifndef RTMBS_LI_EULER_INDEP_H
#define RTMBS_LI_EULER_INDEP_H

#include "dense_lu.h"
#include "li_euler.h"

/* The partition basis (rtmbs.solvers.basis.PartitionBasis.args): Phi_u's fixed-pattern LU (ib,
 * fb); pidx (uint32) = [nu, nv, f, ur, uk, ue, vr, vj, ve, vptr]: the entries of Phi_q in the
 * dependent columns (row, position in Phi_u, entry number of the Phi_q index) and in the
 * independent ones (row, position in v, entry number); cols: dependent coordinates first, then
 * the independent ones (n); X, W: m x (f + 1) work; tmp: m. */
typedef struct rtmbs_partition_ {
    const uint32_t* ib;
    double* fb;
    const uint32_t* pidx;
    const int64_t* cols;
    double* X;
    double* W;
    double* tmp;
} rtmbs_partition;

/* Phi_q as the kernels read it: the packed workspace w and the PackedKKTMap index idx whose
 * Phi_q entries pidx numbers (rtmbs.solvers.storage.phiq_at). */
typedef struct rtmbs_phiq_reader_ {
    const double* w;
    const uint32_t* zptr;
    const uint32_t* zidx;
} rtmbs_phiq_reader;

void rtmbs_phiq_reader_make(const uint32_t* idx, const double* w, rtmbs_phiq_reader* r);

/* -- the partition's kernels (partition.c; rtmbs.solvers.basis _p_*) --------------------------- */

/* Gather Phi_u and factorise: out = (min|u_kk| / max(|u_kk|, |Phi_q ij|), the LU's pivot ratio,
 * its largest multiplier) (basis._p_factor). */
void rtmbs_partition_factor(rtmbs_data* d, const rtmbs_partition* b, const rtmbs_phiq_reader* pq,
                            int64_t m, double out[3]);
/* R = [-Phi_u^-1 Phi_v; I] as Rn (n x f), Sc = [Phi_u^-1 c; 0] (eqs. 24-25): one solve with the
 * f + 1 right-hand sides [Phi_v c] (basis._p_R_Sc). */
void rtmbs_partition_R_Sc(rtmbs_data* d, const rtmbs_partition* b, const rtmbs_phiq_reader* pq,
                          const double* gamma, double* Rn, double* Sc, int64_t n, int64_t m);
/* qdot = S b + R zd, b = -Phi_t - gb Phi: qdot_v = zd, Phi_u qdot_u = b - Phi_v zd
 * (basis._p_velocity). */
void rtmbs_partition_velocity(rtmbs_data* d, const rtmbs_partition* b,
                              const rtmbs_phiq_reader* pq, const double* phit, const double* phi,
                              double gb, const double* zd, double* qd, int64_t n, int64_t m);
/* zd = B qdot (basis._p_zd). */
void rtmbs_partition_zd(const rtmbs_partition* b, const double* qd, double* zd, int64_t n,
                        int64_t m);
/* lambda = S^T x / h (eq. 18; basis._p_lambda). */
void rtmbs_partition_lambda(rtmbs_data* d, const rtmbs_partition* b, const double* x, double* lam,
                            double h, int64_t m);
/* dq += S(-Phi) (basis._p_project_T). */
void rtmbs_partition_project_T(rtmbs_data* d, const rtmbs_partition* b, const double* phi,
                               double* dq, int64_t m);

/* Dense LU with partial pivoting of the k x k matrix a in place, piv[i] the row swapped with row
 * i; returns min|u_kk| / max|u_kk| (0.0 with a zero pivot) (rtmbs.solvers.linalg.lu_factor), and
 * its solve in place (lu_solve). */

/* -- the step (li_euler_indep.c; rtmbs.solvers.compiled_indep) --------------------------------- */

/* bits of the returned code (compiled_indep OK, CHANGED, REBASE) */
#define RTMBS_INDEP_OK 1
#define RTMBS_INDEP_CHANGED 2
#define RTMBS_INDEP_REBASE 4
/* projections (compiled_indep PROJ_*) */
#define RTMBS_INDEP_PROJ_NONE 0
#define RTMBS_INDEP_PROJ_KKT 1 /* eq. 30 with its own KKT */
#define RTMBS_INDEP_PROJ_T 2   /* S(-Phi) with the factors of Phi_u */

typedef struct rtmbs_indep_options_ {
    double h;            /* step, s */
    int64_t jac_what;    /* RTMBS_EVAL_JAC or RTMBS_EVAL_JACS */
    int implicit;        /* dq = h (qdot + dqdot) (1) or h qdot (0) */
    int multipliers;     /* compute lambda (eq. 18) */
    int proj;            /* RTMBS_INDEP_PROJ_* */
    double gb;           /* Baumgarte's gamma_B of b = -Phi_t - gamma_B Phi (0: none) */
    double rebase_below; /* the pivot ratio of Phi_u below which the step stops for a rebase */
} rtmbs_indep_options;

/* Length of the step's vector buffer (compiled_indep.vector_size): Rn, AR (n x f), H (f x f),
 * Aval (na), Sc, r, x, w, dqd, dq, qp, qd_pred, q_last, qd_last (n), dzd, zd (f), zero_m, lambda
 * (m), the projection's right-hand side (n + m). */
#define RTMBS_INDEP_VEC(n, m, na) \
    (2 * (n) * ((n) - (m)) + ((n) - (m)) * ((n) - (m)) + (na) + 10 * (n) + 2 * ((n) - (m)) + \
     2 * (m) + ((n) + (m)))

/* One step of Algorithm 2 (Carpinelli 2016 Table 2, eqs. 24-28, 18, 30) on the packed workspaces w0,
 * w1: q, qd (and zd, lambda in vec) updated in place. aidx: the PackedKKTMap index of A's and
 * Phi_q's entries; proj_kkt: the projection's KKT (opt->proj == KKT). out0[k] = data[oidx0[k]]
 * at the step's start. *code gets OK | CHANGED | REBASE; diag = (Phi_u's pivot ratio at the new
 * positions, its LU's pivot ratio, its largest multiplier, the projection KKT's pivot ratio and
 * largest multiplier). With REBASE, qdot is left for the caller (compiled_indep docstring). */
rtmbs_status rtmbs_li_euler_indep_step(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                       double* w1, const rtmbs_partition* basis,
                                       const uint32_t* aidx, const rtmbs_kkt* proj_kkt,
                                       double* vec, int64_t* hpiv, double* q, double* qd, double t,
                                       const rtmbs_indep_options* opt, const int64_t* oidx0,
                                       int64_t nout0, double* out0, int* code, double diag[5]);

/* Where a rollout of Algorithm 2 stopped: k_end the step that stopped it (n_steps: none), code
 * that step's code, nchanged the steps that re-mapped zd, diag (5) the last step's diag. */
typedef struct rtmbs_indep_stop_ {
    int64_t k_end, nchanged;
    int code;
    double* diag;
} rtmbs_indep_stop;

/* Steps k0 .. n_steps - 1 of the rollout `ro` (li_euler.h; rollout_indep._li_euler_indep_rollout),
 * *stop where and why it stopped. A REBASE stop leaves the step to the caller (q_good, qd_good:
 * the state before it); a failed or diverging step is undone. */
rtmbs_status rtmbs_li_euler_indep_rollout(const rtmbs_model* mdl, rtmbs_data* d, double* w0,
                                          double* w1, const rtmbs_partition* basis,
                                          const uint32_t* aidx, const rtmbs_kkt* proj_kkt,
                                          double* vec, int64_t* hpiv, double* q, double* qd,
                                          const rtmbs_indep_options* opt, int64_t k0,
                                          const rtmbs_rollout* ro, rtmbs_indep_stop* stop);

#endif /* RTMBS_LI_EULER_INDEP_H */
