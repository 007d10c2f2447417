/* stages.h -- the named stages of a step and the helpers they share (internal to the engine).
 *
 * One function per stage, one file per stage (MuJoCo's engine_forward.c shape): a step reads as
 * the algorithm. Each stage works on a bound model and data and allocates nothing.
 */
#ifndef RTMBS_STAGES_H
#define RTMBS_STAGES_H

#include "rtmbs.h"

/* Codes shared with Python (checked by tests/engine/test_fields.py) -------------------------- */

/* rotation coordinates of a body (rtmbs.kernels.codes ROT_*) */
#define RTMBS_ROT_EP 0   /* Euler parameters, 4 coordinates */
#define RTMBS_ROT_ZXZ 1  /* zxz Euler angles, 3 coordinates */

/* constraint primitives (rtmbs.kernels.codes PRIM_*) */
#define RTMBS_PRIM_SPH 0
#define RTMBS_PRIM_DOT1 1
#define RTMBS_PRIM_DOT2 2
#define RTMBS_PRIM_DIST 3
#define RTMBS_PRIM_ROTDRV 4
#define RTMBS_PRIM_CPL 5

/* force element types (rtmbs.kernels.elements.dispatch F_*: their index in the registry) */
#define RTMBS_F_SPRING_DAMPER 0
#define RTMBS_F_STOP 1
#define RTMBS_F_BUSHING 2
#define RTMBS_F_FORCE 3
#define RTMBS_F_TORQUE 4
#define RTMBS_F_JOINT_TORQUE 5
#define RTMBS_F_BRAKE 6
#define RTMBS_F_TYRE 7
#define RTMBS_F_TORSION_SPRING 8

/* -- evaluation (evaluate.c) ------------------------------------------------------------------ */

/* Fill what `what` asks (RTMBS_EVAL_* flags) into the workspace w (length nw): dense
 * [M (n x n), Q, Phi, Phi_q (m x n), Phi_t, gamma, Jq, Jqdot] or, with RTMBS_EVAL_PACKED, packed
 * in the fixed blocks (rtmbs.system.PackedLayout). Kinematics, element outputs and
 * virtual blocks are left in the data. */
rtmbs_status rtmbs_evaluate(const rtmbs_model* m, rtmbs_data* d, int64_t what, double t,
                            const double* q, const double* qd, double* w, int64_t nw);

/* Length of a dense workspace (3 n^2 + n + 3 m + m n) and of a packed one
 * (rtmbs.system.PackedLayout: m1 = nrow1 rows of Phi_q, nblk virtual blocks). */
int64_t rtmbs_workspace_size(int64_t n, int64_t m);
int64_t rtmbs_packed_size(int64_t n, int64_t m, int64_t nb, int64_t m1, int64_t nblk);

/* Where M, Q, Phi, Phi_q, Phi_t, gamma, Jq, Jqdot start in a packed workspace, and its length
 * (rtmbs.system.PackedLayout). */
typedef struct rtmbs_packed_offsets_ {
    int64_t M, Q, phi, phiq, phit, gamma, Jq, Jqd, size;
} rtmbs_packed_offsets;
void rtmbs_packed_workspace(const rtmbs_sizes* s, rtmbs_packed_offsets* o);

/* The named outputs at (t, q, qdot) (rtmbs.system.CartesianSystem.outputs): one evaluation
 * of Q into the packed workspace w (kinematics and element outputs into the data), then
 * out[k] = d->buffer[oidx[k]] for k < nout. */
rtmbs_status rtmbs_outputs(const rtmbs_model* m, rtmbs_data* d, double t, const double* q,
                           const double* qd, double* w, int64_t nw, const int64_t* oidx,
                           int64_t nout, double* out);

/* -- rotations (rotations.c; A 3x3, G 3x4, dG 4x3x4, W 3x4, dadp 3x4, d2G 4x4x3x4) ----------- */
void rtmbs_ep_to_matrix(const double* p, double* A);
void rtmbs_ep_E(double e0, double e1, double e2, double e3, double* out, double scale);
void rtmbs_zxz_to_matrix(const double* p, double* A);
void rtmbs_rotation_matrix(int64_t rtype, const double* p, double* A);
void rtmbs_rotation_data(int64_t rtype, const double* p, const double* pd, double* A, double* G,
                         double* dG, double* W, double* alpha, double* dadp, double* dadpd,
                         double* d2G);

/* -- kinematics (kinematics.c) ---------------------------------------------------------------- */
void rtmbs_body_kinematics(const rtmbs_model* m, rtmbs_data* d, const double* q, const double* qd,
                           int velocities);
void rtmbs_body_accelerations(const rtmbs_model* m, const double* q, const double* qd,
                              const double* qdd, double* out);

/* -- mass block and inertia terms (mass.c) ----------------------------------------------------- */
void rtmbs_inertia(const rtmbs_model* m, rtmbs_data* d, int64_t b, int64_t mr, int64_t mc,
                   int with_jac, int64_t what, double* M, int64_t ld);

/* -- constraints (constraints.c) -------------------------------------------------------------- */
void rtmbs_constraint_rows(const rtmbs_model* m, rtmbs_data* d, double t, double* phi,
                           double* phit, int with_d, int with_bias);
void rtmbs_scatter_constraints(const rtmbs_model* m, rtmbs_data* d, int64_t what, const double* q,
                               const double* qd, double* phi, double* phiq, int64_t ld,
                               double* gamma);

/* -- forces (forces.c) ------------------------------------------------------------------------ */
rtmbs_status rtmbs_element_forces(const rtmbs_model* m, rtmbs_data* d, int64_t k, double t,
                                  int with_jac, double* value);
void rtmbs_accumulate_element(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi,
                              int64_t bj, int with_jac, int torque_only);
void rtmbs_virtual_blocks_to_clear(const rtmbs_model* m, rtmbs_data* d, int stiff_only);
void rtmbs_map_virtual_blocks(const rtmbs_model* m, rtmbs_data* d, int what_jac, int stiff_only,
                              int packed, double* Q, double* Jq, double* Jqd, int64_t ld);

/* -- extra states (extra_states.c) ----------------------------------------------------------- */

/* Advance the transient tyres' deflections u, v over one step h (eq. 4.23, inputs of the last
 * force evaluation held constant: the exact exponential step). */
rtmbs_status rtmbs_advance_extra_states(const rtmbs_model* m, rtmbs_data* d, double h);

/* -- what every step and rollout shares (step_common.c) --------------------------------------- */

/* |q| or |qdot| at or above this counts as divergence (rtmbs.solvers.rollout.DIVERGENCE_LIMIT) */
#define RTMBS_DIVERGENCE_LIMIT 1e8

/* 1 if a coordinate or velocity is at or above RTMBS_DIVERGENCE_LIMIT or not a number;
 * rtmbs_first_diverged: the first such coordinate, -1 for none. */
int rtmbs_diverged(const double* q, const double* qd, int64_t n);
int64_t rtmbs_first_diverged(const double* q, const double* qd, int64_t n);
/* The first coordinate whose position or velocity is not finite, -1 for none. */
int64_t rtmbs_first_nonfinite(const double* q, const double* qd, int64_t n);

/* After a refactorisation of the LU (ib, fb) at time t: a zero or non-finite pivot (ratio 0)
 * counts RTMBS_WARN_SINGULAR, factors flagged for refinement (a raised pivot or a large
 * multiplier) RTMBS_WARN_GROWTH with the original row of the raised pivot. */
void rtmbs_check_factors(rtmbs_data* d, const uint32_t* ib, const double* fb, double ratio,
                         double t);

/* A left-out redundant constraint row (rtmbs.solvers.redundancy LEFT_OUT_ATOL, LEFT_OUT_FACTOR)
 * counts as violated when |Phi_i| > RTMBS_LEFT_OUT_ATOL + RTMBS_LEFT_OUT_FACTOR max |Phi_kept|. */
#define RTMBS_LEFT_OUT_ATOL 1e-6
#define RTMBS_LEFT_OUT_FACTOR 10.0

/* Check the left-out rows `left` (nleft) of Phi against the kept rows `kept` (nkept) after an
 * evaluation at time t: when one or more exceed the bound (or are not a number), count
 * RTMBS_WARN_REDUNDANT once with the last such row, and keep the largest |Phi| seen and its row
 * in d->left_worst. */
void rtmbs_check_left_out(rtmbs_data* d, const int64_t* kept, int64_t nkept, const int64_t* left,
                          int64_t nleft, const double* phi, double t);

/* The constraint rows a step solves with when the model's Phi_q is rank deficient
 * (rtmbs.solvers.redundancy): row i of the KKT's Phi_q block (and of Phi, Phi_t, lambda in the
 * step) is model row kept[i]; the left-out rows, dependent on the kept ones at the state the
 * solver was reset at, are checked after every evaluation of Phi (rtmbs_check_left_out). */
typedef struct rtmbs_rows_ {
    int64_t nkept, nleft;
    const int64_t* kept; /* (nkept) rows of the model, increasing */
    const int64_t* left; /* (nleft) the other rows, increasing */
} rtmbs_rows;

/* Point r at the row map `map` (len values: nkept, nleft, the kept rows, the left-out rows;
 * rtmbs.solvers.redundancy.ReducedSystem.row_map) of a model with m rows. Returns -1 for a good
 * map, -2 when its length or counts do not fit m, else the first row that is not once in the kept
 * or the left-out rows (both increasing). */
int64_t rtmbs_rows_bind(rtmbs_rows* r, const int64_t* map, int64_t len, int64_t m);

/* An evaluation of `what` into the packed workspace w (rtmbs_evaluate, RTMBS_EVAL_PACKED); with a
 * row map (map not NULL) and Phi evaluated (RTMBS_EVAL_PHI, or RTMBS_EVAL_PHIQ, which brings it),
 * the left-out rows checked (rtmbs_check_left_out) and the kept rows of Phi and Phi_t copied to
 * phi, phit, those of gamma (RTMBS_EVAL_GAMMA) to gamma (nkept each; NULL: not copied). */
rtmbs_status rtmbs_evaluate_rows(const rtmbs_model* mdl, rtmbs_data* d, int64_t what, double t,
                                 const double* q, const double* qd, double* w,
                                 const rtmbs_packed_offsets* o, const rtmbs_rows* map,
                                 double* phi, double* phit, double* gamma);

/* lambda over the model's rows (full, nkept + nleft): the kept rows' lam, 0 on the left-out. */
void rtmbs_rows_expand(const rtmbs_rows* map, const double* lam, double* full);

/* (q, qdot, x) into (q_to, qdot_to, x_to): the last good step kept, or put back. */
void rtmbs_copy_state(const double* q, const double* qd, const double* x, double* q_to,
                      double* qd_to, double* x_to, int64_t n, int64_t nx);

/* Count a refactorisation (factor) and `solves` solves of the LU (ib, fb) in the data: the
 * multiply-adds from the factors' own plan, the same in every step of a fixed plan. */
void rtmbs_count_lu(rtmbs_data* d, const uint32_t* ib, double* fb, int factor,
                    int64_t solves);

/* The end of a li-euler step (Carpinelli 2016, Table 1): q += dq, qdot += dqdot (rhs[:n]), with
 * dq = qk - q first when qk is given (GGL positions), or dq = h (qdot + dqdot) with `implicit`;
 * lambda = rhs[n:]. A non-finite q or qdot is warned (the coordinate, time t) and returns 0 (a
 * failed step, lambda not set); 1 otherwise. (li_euler.c, li_euler_dense.c) */
int rtmbs_li_euler_update(rtmbs_data* d, double* q, double* qd, double* dq, const double* qk,
                          const double* rhs, double h, int implicit, double* lam, int64_t n,
                          int64_t m, double t);

#endif /* RTMBS_STAGES_H */
