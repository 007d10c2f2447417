/* harness.c -- steps a li-euler plan without Python: the C test harness of the engine.
 *
 *   harness PLAN OUT [EVERY]
 *
 * Reads PLAN (rtmbs.engine.dump.write_plan), makes the data, runs the plan's steps and writes
 * t, q, qdot of every EVERY-th step (default 10) to OUT as float64 rows. Prints one summary line:
 * the steps, the heap allocations made while stepping (malloc, calloc, realloc are wrapped at link
 * time: -Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc), the engine's operation counts of a step
 * and how many steps' counts differed from the step before (zero for a fixed cost). Exit 0 when every step succeeded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../li_euler.h"
#include "heap_count.h"
#include "plan.h"

#define NEED(ptr, what) RTMBS_PLAN_NEED("harness", ptr, what)

int main(int argc, char** argv) {
    rtmbs_plan plan;
    rtmbs_plan_step st;
    rtmbs_data* data;
    char err[256];
    int64_t nq, k;
    int64_t* steps;
    double *w0, *w1, *vec, *q, *qd, *row;
    double t, diag[4], warnings = 0.0;
    const double* last;
    int k2;
    int every = argc > 3 ? atoi(argv[3]) : 10, failed = 0;
    long heap_before;
    FILE* out;
    rtmbs_status s;

    if (argc < 3 || every < 1) {
        fprintf(stderr, "usage: harness PLAN OUT [EVERY]\n");
        return 2;
    }
    if (rtmbs_plan_read(argv[1], &plan, err, sizeof err) != 0
        || rtmbs_plan_bind_step(&plan, &st, err, sizeof err) != 0) {
        fprintf(stderr, "harness: %s\n", err);
        return 2;
    }
    NEED(steps = rtmbs_plan_get(&plan, "steps", 'i', NULL), "steps");
    data = st.data;
    nq = st.nq;
    w0 = calloc((size_t)st.wsize, sizeof(double));
    w1 = calloc((size_t)st.wsize, sizeof(double));
    vec = calloc((size_t)rtmbs_li_euler_vec_size(nq, st.nc, st.opt.rows), sizeof(double));
    q = malloc((size_t)nq * sizeof(double));
    qd = malloc((size_t)nq * sizeof(double));
    row = malloc((size_t)(1 + 2 * nq) * sizeof(double));
    out = fopen(argv[2], "wb");
    if (!w0 || !w1 || !vec || !q || !qd || !row || !out) {
        fprintf(stderr, "harness: out of memory or cannot write %s\n", argv[2]);
        return 2;
    }
    memcpy(q, st.q0, (size_t)nq * sizeof(double));
    memcpy(qd, st.qd0, (size_t)nq * sizeof(double));

    heap_before = heap_calls;
    t = st.t0;
    for (k = 0; k < steps[0]; k++) {
        s = rtmbs_li_euler_step(&st.model, data, w0, w1, &st.kkt, &st.kkt2, vec, q, qd, t, &st.opt, NULL, 0,
                                NULL, diag);
        if (s != RTMBS_OK || diag[0] == 0.0 || diag[2] == 0.0) {
            fprintf(stderr, "harness: step %ld at t = %g s failed (status %d, pivot ratio %g)\n",
                    (long)k + 1, t, (int)s, diag[0]);
            failed = 1;
            break;
        }
        t = t + st.opt.h; /* (accumulated, as the Python solvers advance state.t) */
        if ((k + 1) % every == 0) {
            row[0] = t;
            memcpy(row + 1, q, (size_t)nq * sizeof(double));
            memcpy(row + 1 + nq, qd, (size_t)nq * sizeof(double));
            fwrite(row, sizeof(double), (size_t)(1 + 2 * nq), out);
        }
    }
    last = data->counter + RTMBS_CNT_LAST; /* the engine's own counts of the last step */
    for (k2 = 0; k2 < RTMBS_NWARN; k2++) warnings += data->warning[3 * k2];
    printf("steps %ld, heap allocations while stepping %ld, per step: evaluations %.0f, element "
           "kernels %.0f, factorisations %.0f, solves %.0f, multiply-adds %.0f; steps whose counts "
           "changed %.0f; warnings %.0f\n",
           (long)k, heap_calls - heap_before, last[RTMBS_CNT_EVAL], last[RTMBS_CNT_ELEMENT],
           last[RTMBS_CNT_FACTOR], last[RTMBS_CNT_SOLVE], last[RTMBS_CNT_FLOP],
           data->counter[RTMBS_CNT_COST_CHANGE],
           warnings);
    fclose(out);
    free(w0); free(w1); free(vec); free(q); free(qd); free(row);
    rtmbs_free_data(data);
    rtmbs_plan_free(&plan);
    return failed;
}
