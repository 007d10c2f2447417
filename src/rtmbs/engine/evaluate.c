/* evaluate.c -- the evaluation of a Cartesian body model: M, Q, Phi, Phi_q, Phi_t, gamma, Jq,
 * Jqdot, dense (rtmbs.protocol.WORKSPACE_FIELDS) or packed (rtmbs.system.PackedLayout), and the
 * named outputs.
 *
 * kinematics -> mass and inertia terms -> force elements -> mapping of the virtual blocks
 * -> constraint rows -> their scatter into Phi_q, gamma.
 */
#include "elements/elements.h"
#include "sensors.h"
#include "stages.h"

int64_t rtmbs_workspace_size(int64_t n, int64_t m) { return 3 * n * n + n + 3 * m + m * n; }

int64_t rtmbs_packed_size(int64_t n, int64_t m, int64_t nb, int64_t m1, int64_t nblk) {
    return RTMBS_SEG * RTMBS_SEG * (nb + 2 * nblk) + n + 3 * m + 2 * RTMBS_SEG * m1 + 1;
}

void rtmbs_packed_workspace(const rtmbs_sizes* s, rtmbs_packed_offsets* o) {
    const int64_t B = RTMBS_SEG * RTMBS_SEG;
    o->M = 0;
    o->Q = o->M + s->nbody * B;
    o->phi = o->Q + s->nq;
    o->phiq = o->phi + s->nc;
    o->phit = o->phiq + s->nrow1 * 2 * RTMBS_SEG;
    o->gamma = o->phit + s->nc;
    o->Jq = o->gamma + s->nc;
    o->Jqd = o->Jq + s->nblk * B;
    o->size = rtmbs_packed_size(s->nq, s->nc, s->nbody, s->nrow1, s->nblk);
}

/* The workspace's fields, in the order of rtmbs.protocol.WORKSPACE_FIELDS: dense (M n x n, Q,
 * Phi, Phi_q m x n, Phi_t, gamma, Jq n x n, Jqd n x n) or packed (M nbody blocks of SEG x SEG,
 * Q, Phi, Phi_q nrow1 rows of 2 SEG, Phi_t, gamma, Jq and Jqd one SEG x SEG block per virtual
 * block, then one entry that stays zero). */
typedef struct workspace_ {
    double *M, *Q, *phi, *phiq, *phit, *gamma, *Jq, *Jqd;
    int64_t ldM, ldphiq, ldJ; /* row strides */
} workspace;

static rtmbs_status workspace_views(const rtmbs_model* m, int packed, double* w, int64_t nw,
                                    workspace* v) {
    const int64_t n = m->size.nq, c = m->size.nc;
    const int64_t B = RTMBS_SEG * RTMBS_SEG;
    double* o = w;
    if (packed) {
        if (nw < rtmbs_packed_size(n, c, m->size.nbody, m->size.nrow1, m->size.nblk))
            return RTMBS_ERR_SIZE;
        v->M = o; o += m->size.nbody * B;
        v->Q = o; o += n;
        v->phi = o; o += c;
        v->phiq = o; o += m->size.nrow1 * 2 * RTMBS_SEG;
        v->phit = o; o += c;
        v->gamma = o; o += c;
        v->Jq = o; o += m->size.nblk * B;
        v->Jqd = o;
        v->ldM = RTMBS_SEG;
        v->ldphiq = 2 * RTMBS_SEG;
        v->ldJ = RTMBS_SEG;
    } else {
        if (nw < rtmbs_workspace_size(n, c)) return RTMBS_ERR_SIZE;
        v->M = o; o += n * n;
        v->Q = o; o += n;
        v->phi = o; o += c;
        v->phiq = o; o += c * n;
        v->phit = o; o += c;
        v->gamma = o; o += c;
        v->Jq = o; o += n * n;
        v->Jqd = o;
        v->ldM = n;
        v->ldphiq = n;
        v->ldJ = n;
    }
    return RTMBS_OK;
}

rtmbs_status rtmbs_evaluate(const rtmbs_model* m, rtmbs_data* d, int64_t what, double t,
                            const double* q, const double* qd, double* w, int64_t nw) {
    const int64_t nb = m->size.nbody;
    const int packed = (what & RTMBS_EVAL_PACKED) != 0;
    /* Phi and Phi_q alone (the projection's and the predictor's evaluations) need no velocities;
     * an evaluation of nothing fills the kinematics (callers read them from the data) */
    const int position_only =
        (what & (RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ)) != 0 &&
        (what & (RTMBS_EVAL_M | RTMBS_EVAL_Q | RTMBS_EVAL_JAC | RTMBS_EVAL_JACS | RTMBS_EVAL_GAMMA)) == 0;
    const int jac_all = (what & RTMBS_EVAL_JAC) != 0;
    const int jac_any = jac_all || (what & RTMBS_EVAL_JACS) != 0;
    const int do_q = (what & (RTMBS_EVAL_Q | RTMBS_EVAL_JAC | RTMBS_EVAL_JACS)) != 0;
    const int stiff_only = jac_any && !jac_all;
    workspace v;
    rtmbs_status s;
    int64_t b, k;
    s = workspace_views(m, packed, w, nw, &v);
    if (s != RTMBS_OK) return s;
    rtmbs_count(d, RTMBS_CNT_EVAL, 1);
    rtmbs_body_kinematics(m, d, q, qd, !position_only);
    if (do_q) /* (Jacobians are computed with Q, and write it) */
        for (k = 0; k < 9 * (nb + 1); k++) d->vQ[k] = 0.0;
    if (jac_any) rtmbs_virtual_blocks_to_clear(m, d, stiff_only);
    if ((what & RTMBS_EVAL_M) || do_q)
        for (b = 0; b < nb; b++) {
            const int64_t qa = m->body_qadr[b];
            rtmbs_inertia(m, d, b, packed ? RTMBS_SEG * b : qa, packed ? 0 : qa, jac_all, what, v.M,
                          v.ldM);
        }
    if (do_q) {
        for (k = 0; k < m->size.nfrc; k++) {
            const int wj = jac_all || (jac_any && m->frc_stiff[k] != 0);
            double value;
            s = rtmbs_element_forces(m, d, k, t, wj, &value);
            d->frc_out[RTMBS_NFOUT * k] = value;
            if (s != RTMBS_OK) { /* no kernel for this type in the build: left out, counted */
                rtmbs_warn(d, RTMBS_WARN_UNSUPPORTED, k, t);
                continue;
            }
            rtmbs_count(d, RTMBS_CNT_ELEMENT, 1);
            rtmbs_accumulate_element(m, d, k, m->frc_body[2 * k], m->frc_body[2 * k + 1], wj,
                                     rtmbs_element_torque_only(m->frc_type[k]));
        }
        rtmbs_map_virtual_blocks(m, d, jac_any, stiff_only, packed, v.Q, v.Jq, v.Jqd, v.ldJ);
    }
    if (what & (RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ | RTMBS_EVAL_GAMMA)) {
        rtmbs_constraint_rows(m, d, t, v.phi, v.phit, (what & (RTMBS_EVAL_PHIQ | RTMBS_EVAL_GAMMA)) != 0,
                              (what & RTMBS_EVAL_GAMMA) != 0);
        rtmbs_scatter_constraints(m, d, what, q, qd, v.phi, v.phiq, v.ldphiq, v.gamma);
    }
    return RTMBS_OK;
}

rtmbs_status rtmbs_outputs(const rtmbs_model* m, rtmbs_data* d, double t, const double* q,
                           const double* qd, double* w, int64_t nw, const int64_t* oidx,
                           int64_t nout, double* out) {
    rtmbs_status s;
    int64_t k;
    for (k = 0; k < nout; k++) /* oidx[k] < 0: sensor -1 - oidx[k] (sensors.h) */
        if (oidx[k] >= d->nbuffer || oidx[k] < -m->sns_spec_dim[0]) return RTMBS_ERR_ARGUMENT;
    s = rtmbs_evaluate(m, d, RTMBS_EVAL_PACKED | RTMBS_EVAL_Q, t, q, qd, w, nw);
    if (s != RTMBS_OK) return s;
    return rtmbs_gather_outputs(m, d, t, oidx, nout, out) ? RTMBS_OK : RTMBS_ERR_ARGUMENT;
}
