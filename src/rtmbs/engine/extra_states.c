/* extra_states.c -- the extra first-order states of a model: the transient tyres' carcass
 * deflections u, v (Carpinelli 2015 eqs. 4.22-4.24), advanced once per fixed step.
 *
 * d->xstate holds [h, u0, v0, u1, v1, ...]; tyre k (frc_par[r, TP_XSTATE] = k) owns entries
 * 1 + 2k, 2 + 2k. The tyre element writes the inputs of eq. 4.23 (slip velocities, V_x,
 * relaxation lengths) into its frc_out row at every force evaluation; this stage updates the
 * deflections from them with the exact exponential step (contact.c rtmbs_transient_step). */
#include "stages.h"
#include "tyre/contact.h"
#include "tyre/tyre_element.h"

rtmbs_status rtmbs_advance_extra_states(const rtmbs_model* m, rtmbs_data* d, double h) {
    const int64_t nfrc = m->size.nfrc, npar = m->frc_par_dim[1];
    double* x = d->xstate;
    int64_t r;
    for (r = 0; r < nfrc; r++) {
        const double* o = d->frc_out + r * RTMBS_NFOUT + 1; /* after the main output */
        int64_t k;
        if (m->frc_type[r] != RTMBS_F_TYRE || m->frc_par[r * npar + RTMBS_TP_XSTATE] < 0.0)
            continue;
        k = (int64_t)m->frc_par[r * npar + RTMBS_TP_XSTATE];
        if (2 + 2 * k > m->size.nx) return RTMBS_ERR_SIZE;
        rtmbs_transient_step(&x[1 + 2 * k], &x[2 + 2 * k], o[RTMBS_TO_VSX], o[RTMBS_TO_VSY],
                             o[RTMBS_TO_VX], o[RTMBS_TO_SIGMA_KAPPA], o[RTMBS_TO_SIGMA_ALPHA], h);
    }
    return RTMBS_OK;
}
