/* provider.h -- a provider of the evaluation interface (rtmbs.protocol.MechanicalSystem.evaluate)
 * as the engine's dense steps call it (li_euler_dense.c): a hand-written model (the planar truck,
 * truck.h) whose evaluation fills a dense protocol workspace, seen through two function pointers
 * and a constant context.
 *
 * The dense workspace: M (n x n), Q (n), phi (m), phiq (m x n), phit (m), gamma (m), Jq (n x n),
 * Jqd (n x n), row-major, in the order of rtmbs.protocol.WORKSPACE_FIELDS
 * (rtmbs_workspace_size(n, m) values). */
#ifndef RTMBS_PROVIDERS_PROVIDER_H
#define RTMBS_PROVIDERS_PROVIDER_H

#include <stdint.h>

#include "../rtmbs.h"

/* Fill what `what` asks (RTMBS_EVAL_* flags) of the dense workspace ws at (t, q, qd).
 * RTMBS_ERR_NONFINITE when the state is outside the model's domain (the workspace then holds
 * non-finite values). */
typedef rtmbs_status (*rtmbs_provider_evaluate_fn)(const void* ctx, double t, const double* q,
                                                   const double* qd, int what, double* ws);

/* The named outputs oidx[0 .. nout - 1] (indices into the provider's nout outputs) at
 * (t, q, qd) into out. RTMBS_ERR_ARGUMENT for an index out of range. */
typedef rtmbs_status (*rtmbs_provider_outputs_fn)(const void* ctx, double t, const double* q,
                                                  const double* qd, const int64_t* oidx,
                                                  int64_t nout, double* out);

typedef struct rtmbs_provider_ {
    int64_t n, m;                       /* coordinates, constraints */
    int64_t nout;                       /* named outputs */
    rtmbs_provider_evaluate_fn evaluate;
    rtmbs_provider_outputs_fn outputs;  /* NULL when nout = 0 */
    const void* ctx;                    /* the model both read (constant) */
} rtmbs_provider;

#endif /* RTMBS_PROVIDERS_PROVIDER_H */
