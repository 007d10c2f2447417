/* evaluate.c -- the evaluation of a Cartesian body model: M, Q, Phi, Phi_q, gamma, Jq, Jqdot. */
#include "stages.h"

rtmbs_status rtmbs_evaluate(const rtmbs_model* m, rtmbs_data* d, int64_t what, double t,
                            const double* q, const double* qd, double* w, int64_t nw) {
    (void)m; (void)d; (void)what; (void)t; (void)q; (void)qd; (void)w; (void)nw;
    return RTMBS_ERR_UNSUPPORTED;
}
