/* synthesis_common.h -- what both subsystem-synthesis providers share (Kim and Wang): small
 * dense linear algebra on row-major 3 x 3 blocks, and the gravity and force elements acting on a
 * subsystem's bodies and on the base (synthesis_common.c). */
#ifndef RTMBS_PROVIDERS_SYNTHESIS_COMMON_H
#define RTMBS_PROVIDERS_SYNTHESIS_COMMON_H

#include <stdint.h>

#include "../rtmbs.h"

/* c = a b (3 x 3); c may not alias a or b */
void rtmbs_syn_mm3(const double* a, const double* b, double* c);
/* c = a bT (3 x 3) */
void rtmbs_syn_mmt3(const double* a, const double* b, double* c);
/* y = a x, y = aT x (3 x 3) */
void rtmbs_syn_mv3(const double* a, const double* x, double* y);
void rtmbs_syn_mtv3(const double* a, const double* x, double* y);
/* c = a x b */
void rtmbs_syn_cross(const double* a, const double* b, double* c);
double rtmbs_syn_dot3(const double* a, const double* b);
/* the cross-product matrix of v */
void rtmbs_syn_skew(const double* v, double* S);

/* Solve the n x n system a x = b in place (a is overwritten by its LU, piv has n entries);
 * RTMBS_ERR_SINGULAR on a zero pivot. */
rtmbs_status rtmbs_syn_solve(double* a, int64_t* piv, double* b, int64_t n);

/* The floats both model layouts end with (rtmbs.synthesis.provider.pack_cartesian, pack_joint):
 * the force elements' si, sj, dir (ne x 3) and par (ne x 5), their expression programs ops, args
 * (nops), the base's mass m0, J0 (9), r0i (3), S (6 x nbase), A0 (9) and gravity (3). */
typedef struct rtmbs_syn_tail_ {
    const double *fsi, *fsj, *fdir, *fpar, *fops, *fargs;
    double m0;
    const double *J0, *r0i, *S, *A0, *grav;
} rtmbs_syn_tail;

/* Views of the tail of par from par[f] on (npar values in all); RTMBS_ERR_SIZE when par is too
 * short. */
rtmbs_status rtmbs_syn_take_tail(const double* par, int64_t npar, int64_t f, int64_t ne,
                                 int64_t nops, int64_t nbase, rtmbs_syn_tail* t);

/* The force elements of one subsystem (nf, padded with kind -1) and the base's joint motion. */
typedef struct rtmbs_syn_forces_ {
    int64_t nf;
    const int64_t *kind, *bi, *bj, *adr, *len;   /* (nf): 0 spring, 1 applied; keys -2 ground,
                                                  * nb base, k body k */
    const double *si, *sj, *dir, *par;           /* (nf x 3), (nf x 3), (nf x 3), (nf x 5):
                                                  * k, c, L0, F0, constant value */
    const double *ops, *args;                    /* the expression programs of f(t) */
} rtmbs_syn_forces;

/* RTMBS_OK when every element's bodies are -2 (ground), nb (base) or a body 0 .. nb-1 and its
 * expression program lies in the nops values; RTMBS_ERR_ARGUMENT otherwise. */
rtmbs_status rtmbs_syn_forces_check(const int64_t* kind, const int64_t* bi, const int64_t* bj,
                                    const int64_t* adr, const int64_t* len, int64_t nf,
                                    int64_t nb, int64_t nops);

/* Gravity and the force elements on nb bodies (r*, A, rdot*, omega in global axes relative to
 * the base's CG: rg (nb x 3), Ag (nb x 9), rdg, wg) and on the base (mass m0, A0, w0, position
 * r0i + S[:3] q_base): per body the force and the torque about its CG (gf, nb x 6), the base's
 * [force; moment about its CG] (Q0, 6). */
void rtmbs_syn_forces_gf(const rtmbs_syn_forces* fe, double t, const double* q, const double* qd,
                         int64_t nb, int64_t nbase, const double* rg, const double* Ag,
                         const double* rdg, const double* wg, const double* mass, double m0,
                         const double* r0i, const double* S, const double* A0, const double* grav,
                         const double* w0, double* gf, double* Q0);

/* What one evaluation of a synthesis provider takes besides (t, q, qd): its model, warm start
 * (formulation B: qt; A: rw, Aw), Newton iterations and scratch. */
typedef struct rtmbs_syn_call_ {
    const void* model;
    double* warm[2];
    int64_t iters;
    double* scratch;
    int64_t* iscratch;
} rtmbs_syn_call;

/* One evaluation of a synthesis provider: M (n x n), Q, qdd at (t, q, qd). */
typedef rtmbs_status (*rtmbs_syn_eval)(const rtmbs_syn_call* c, double t, const double* q,
                                       const double* qd, double* M, double* Q, double* qdd);

/* Length of the work array of rtmbs_syn_workspace for n coordinates. */
int64_t rtmbs_syn_workspace_work(int64_t n);

/* The protocol workspace of an ODE provider (m = 0: M, Q, Jq, Jqd in rtmbs.protocol's order)
 * filled as `what` asks (RTMBS_EVAL_M, _Q, _JAC or _JACS): M and Q from one evaluation at
 * (q, qd); the force Jacobians by forward differences of Q, step eps max(1, |x_k|) in every
 * coordinate and velocity (2n more evaluations, then one at (q, qd) again so that the warm start
 * is left there). */
rtmbs_status rtmbs_syn_workspace(rtmbs_syn_eval eval, const rtmbs_syn_call* c, int64_t n,
                                 double t, const double* q, const double* qd, double eps, int what,
                                 double* work, double* ws);

#endif /* RTMBS_PROVIDERS_SYNTHESIS_COMMON_H */
