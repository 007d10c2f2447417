/* synthesis_cartesian.h -- subsystem synthesis in formulation A (Kim and Wang: relative
 * Cartesian coordinates of the subsystem's bodies with the introduced coordinate theta,
 * eqs. 8-22) as a provider: one evaluation fills the ODE's M, Q (eq. 19) and the synthesis
 * accelerations (eqs. 1, 20) of a translating base with one 1-DOF subsystem.
 *
 * The model is an int64 vector and a float64 vector, laid out by
 * rtmbs.synthesis.provider.pack_cartesian:
 *
 *   ints:   [nb, nbase, theta body, np, nf, nops], then the constraint primitives' kind
 *           (0 spherical, 1 perpendicular, 2 distance), body i, body j (np each), and the force
 *           elements' kind, bi, bj, adr, len (nf each)
 *   floats: si, sj (np x 3), length (np), theta e1, axis, x (3 each), mass (nb), Jb (nb x 9),
 *           fsi, fsj, fdir (nf x 3), fpar (nf x 5), fops, fargs (nops), m0, J0 (9), r0i (3),
 *           S (6 x nbase), A0 (9), gravity (3)
 *
 * Body index nb is the base. The warm start is the bodies' r* (nb x 3) and A (nb x 9) relative
 * to the base, updated in place. */
#ifndef RTMBS_PROVIDERS_SYNTHESIS_CARTESIAN_H
#define RTMBS_PROVIDERS_SYNTHESIS_CARTESIAN_H

#include <stdint.h>

#include "../rtmbs.h"
#include "synthesis_common.h"

typedef struct rtmbs_sync_ {
    int64_t nb, nbase, tb, np, nf, nops, n;
    const int64_t *pkind, *pbi, *pbj, *fkind, *fbi, *fbj, *fadr, *flen;
    const double *psi, *psj, *pL, *e1, *ax, *xb, *mass, *Jb;
    rtmbs_syn_tail tail;
} rtmbs_sync;

/* Views of the two vectors; RTMBS_ERR_SIZE when one is too short, RTMBS_ERR_ARGUMENT when the
 * primitives' equations and theta's are not 6 nb (Psi_z square). */
rtmbs_status rtmbs_sync_bind(rtmbs_sync* sc, const int64_t* ints, int64_t nints,
                             const double* par, int64_t npar);

/* Scratch sizes of one evaluation (float64 and int64 values). */
int64_t rtmbs_sync_scratch(const rtmbs_sync* sc);
int64_t rtmbs_sync_iscratch(const rtmbs_sync* sc);

/* One evaluation at (t, q, qd) with `iters` Newton iterations on Psi = 0 from the warm start
 * (rw, Aw): M (n x n), Q (n), qdd (n). RTMBS_ERR_SINGULAR when Psi_z or the base equation is
 * singular. */
rtmbs_status rtmbs_sync_evaluate(const rtmbs_sync* sc, double t, const double* q,
                                 const double* qd, double* rw, double* Aw, int64_t iters,
                                 double* scratch, int64_t* iscratch, double* M, double* Q,
                                 double* qdd);

/* The protocol workspace (M, Q, Jq, Jqd; m = 0) as `what` asks, the force Jacobians by forward
 * differences (rtmbs_syn_workspace): work has rtmbs_syn_workspace_work(n) values. */
rtmbs_status rtmbs_sync_workspace(const rtmbs_sync* model, double t, const double* q, const double* qd,
                                  double* rw, double* Aw, int64_t iters, double eps, int what,
                                  double* scratch, int64_t* iscratch, double* work, double* ws);

#endif /* RTMBS_PROVIDERS_SYNTHESIS_CARTESIAN_H */
