/* stages.h -- the named stages of a step and the helpers they share (internal to the engine).
 *
 * One function per stage, one file per stage (MuJoCo's engine_forward.c shape): a step reads as
 * the algorithm. Each stage works on a bound model and data and allocates nothing.
 */
#ifndef RTMBS_STAGES_H
#define RTMBS_STAGES_H

#include "rtmbs.h"

/* Codes shared with Python (checked by tests/engine/test_fields.py) -------------------------- */

/* rotation coordinates of a body (rtmbs.kernels.rotations ROT_*) */
#define RTMBS_ROT_EP 0   /* Euler parameters, 4 coordinates */
#define RTMBS_ROT_ZXZ 1  /* zxz Euler angles, 3 coordinates */

/* constraint primitives (rtmbs.kernels.cartesian PRIM_*) */
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
 * in the fixed blocks (rtmbs.kernels.evaluate.packed_views). Kinematics, element outputs and
 * virtual blocks are left in the data. */
rtmbs_status rtmbs_evaluate(const rtmbs_model* m, rtmbs_data* d, int64_t what, double t,
                            const double* q, const double* qd, double* w, int64_t nw);

/* -- extra states (extra_states.c) ----------------------------------------------------------- */

/* Advance the transient tyres' deflections u, v over one step h (eq. 4.23, inputs of the last
 * force evaluation held constant: the exact exponential step). */
rtmbs_status rtmbs_advance_extra_states(const rtmbs_model* m, rtmbs_data* d, double h);

#endif /* RTMBS_STAGES_H */
