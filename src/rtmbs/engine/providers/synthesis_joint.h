/* synthesis_joint.h -- subsystem synthesis in formulation B (Kim and Wang: recursive relative
 * joint coordinates, cut joints, coordinate partitioning, eqs. 23-37) as a provider: one
 * evaluation fills the ODE's M, Q (eq. 19) and the synthesis accelerations (eqs. 1, 31) of a
 * base with ns subsystems of one topology (stacked), 1 DOF each.
 *
 * The model is an int64 vector and a float64 vector, laid out by
 * rtmbs.synthesis.provider.pack_joint:
 *
 *   ints:   [ns, ne, nc, nu, nf, nops, nb, nq, ncut, v, nbase, free base], then per subsystem
 *           (stacked) ekind, epar, ech, ek (ne each), edge_of (nb + 1), ckind, cbi, cbj (nc),
 *           u (nu), fkind, fbi, fbj, fadr, flen (nf)
 *   floats: per subsystem esp, esc, eax (ne x 3), eApc (ne x 9), csi, csj, cz, cx, cy (nc x 3),
 *           cL (nc), mass (nb), Jb (nb x 9), fsi, fsj, fdir (nf x 3), fpar (nf x 5); then
 *           fops, fargs (nops), m0, J0 (9), r0i (3), S (6 x nbase), A0 (9), gravity (3)
 *
 * Body index nb is the base; edges run parents before children; edge kinds 0 revolute,
 * 1 spherical (Bryant angles); cut kinds 0 spherical, 1 revolute, 2 distance. */
#ifndef RTMBS_PROVIDERS_SYNTHESIS_JOINT_H
#define RTMBS_PROVIDERS_SYNTHESIS_JOINT_H

#include <stdint.h>

#include "../rtmbs.h"
#include "synthesis_common.h"

typedef struct rtmbs_synj_ {
    int64_t ns, ne, nc, nu, nf, nops, nb, nq, ncut, v, nbase, free_base, n;
    /* per subsystem s: the arrays below + s times their per-subsystem size */
    const int64_t *ekind, *epar, *ech, *ek, *edge_of, *ckind, *cbi, *cbj, *u;
    const int64_t *fkind, *fbi, *fbj, *fadr, *flen;
    const double *esp, *esc, *eax, *eApc, *csi, *csj, *cz, *cx, *cy, *cL, *mass, *Jb;
    rtmbs_syn_tail tail;
} rtmbs_synj;

/* Views of the two vectors; RTMBS_ERR_SIZE when one is too short, RTMBS_ERR_ARGUMENT for sizes
 * out of range (the cut equations must be as many as the dependent coordinates). */
rtmbs_status rtmbs_synj_bind(rtmbs_synj* sj, const int64_t* ints, int64_t nints,
                             const double* par, int64_t npar);

/* Scratch sizes of one evaluation (float64 and int64 values). */
int64_t rtmbs_synj_scratch(const rtmbs_synj* sj);
int64_t rtmbs_synj_iscratch(const rtmbs_synj* sj);

/* One evaluation at (t, q, qd) with `iters` Newton iterations on the cut equations from the
 * warm start qt (ns x nq tree coordinates, updated in place): M (n x n), Q (n), qdd (n).
 * RTMBS_ERR_SINGULAR when Phi_u or the base equation is singular. */
rtmbs_status rtmbs_synj_evaluate(const rtmbs_synj* sj, double t, const double* q,
                                 const double* qd, double* qt, int64_t iters, double* scratch,
                                 int64_t* iscratch, double* M, double* Q, double* qdd);

/* The protocol workspace (M, Q, Jq, Jqd; m = 0) as `what` asks, the force Jacobians by forward
 * differences (rtmbs_syn_workspace): work has rtmbs_syn_workspace_work(n) values. */
rtmbs_status rtmbs_synj_workspace(const rtmbs_synj* model, double t, const double* q, const double* qd,
                                  double* qt, int64_t iters, double eps, int what,
                                  double* scratch, int64_t* iscratch, double* work, double* ws);

#endif /* RTMBS_PROVIDERS_SYNTHESIS_JOINT_H */
