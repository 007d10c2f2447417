/* stages.c -- times each named stage of the li-euler step in C, on a plan (no Python).
 *
 *   stages PLAN [CALLS] [WARMUP]
 *
 * Reads PLAN (rtmbs.engine.dump.write_plan), makes the data, takes WARMUP steps (default 200),
 * then calls each stage CALLS times in a row (default 2000) on the state reached and prints one
 * line per stage: its name, how many times a step calls it, and the process CPU nanoseconds per
 * call (clock_gettime(CLOCK_PROCESS_CPUTIME_ID) around each of 15 batches of the calls, the
 * median batch: the clock is read here, never in the engine). The evaluation at q is also split into its parts (kinematics, mass
 * blocks, force elements, tyres, the mapping of the virtual blocks to q, the constraint rows and
 * their scatter); they are called on the kinematics of that evaluation and accumulate into
 * buffers the step rewrites, which changes no cost. Last, the whole step, CALLS steps on from
 * that state. benchmarks/bench_engine_stages.py builds and runs it.
 */
#define _POSIX_C_SOURCE 199309L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../elements/elements.h"
#include "../../li_euler.h"
#include "../plan.h"

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return 1e9 * (double)ts.tv_sec + (double)ts.tv_nsec;
}

/* the arguments of every stage call */
typedef struct bench_ {
    rtmbs_model* m;
    rtmbs_data* d;
    rtmbs_kkt* kkt;
    rtmbs_kkt* kkt2;
    rtmbs_li_euler_options* opt;
    rtmbs_packed_offsets o;
    double *w0, *w1, *vec, *q, *qd, *qp, *rhs, *rhs0, *out;
    const int64_t* oidx;
    int64_t nout, what0;
    double t;
    int tyres; /* force elements: 0 all but the tyres, 1 the tyres only */
} bench;

typedef void (*stage_fn)(bench* b);

static void st_kinematics(bench* b) { rtmbs_body_kinematics(b->m, b->d, b->q, b->qd, 1); }

static void st_mass(bench* b) {
    int64_t k;
    const int jac_all = (b->what0 & RTMBS_EVAL_JAC) != 0;
    for (k = 0; k < b->m->size.nbody; k++)
        rtmbs_inertia(b->m, b->d, k, RTMBS_SEG * k, 0, jac_all, b->what0, b->w0 + b->o.M,
                      RTMBS_SEG);
}

static void st_elements(bench* b) {
    const rtmbs_model* m = b->m;
    const int jac_all = (b->what0 & RTMBS_EVAL_JAC) != 0;
    int64_t k;
    double value;
    for (k = 0; k < m->size.nfrc; k++) {
        const int wj = jac_all || m->frc_stiff[k] != 0;
        if ((m->frc_type[k] == RTMBS_F_TYRE) != b->tyres) continue;
        if (rtmbs_element_forces(m, b->d, k, b->t, wj, &value) != RTMBS_OK) continue;
        rtmbs_accumulate_element(m, b->d, k, m->frc_body[2 * k], m->frc_body[2 * k + 1], wj,
                                 rtmbs_element_torque_only(m->frc_type[k]));
    }
}

static void st_forces(bench* b) {
    b->tyres = 0;
    st_elements(b);
}

static void st_tyres(bench* b) {
    b->tyres = 1;
    st_elements(b);
}

static void st_map(bench* b) {
    const int jac_all = (b->what0 & RTMBS_EVAL_JAC) != 0;
    rtmbs_map_virtual_blocks(b->m, b->d, 1, !jac_all, 1, b->w0 + b->o.Q, b->w0 + b->o.Jq,
                             b->w0 + b->o.Jqd, RTMBS_SEG);
}

static void st_constraints(bench* b) {
    double* w = b->w0;
    rtmbs_constraint_rows(b->m, b->d, b->t, w + b->o.phi, w + b->o.phit, 1, 0);
    rtmbs_scatter_constraints(b->m, b->d, b->what0, b->q, b->qd, w + b->o.phi, w + b->o.phiq,
                              2 * RTMBS_SEG, w + b->o.gamma);
}

static void st_eval_q(bench* b) {
    (void)rtmbs_evaluate(b->m, b->d, b->what0, b->t, b->q, b->qd, b->w0, b->o.size);
}

static void st_eval_qp(bench* b) {
    (void)rtmbs_evaluate(b->m, b->d, RTMBS_EVAL_PACKED | RTMBS_EVAL_PHIQ | RTMBS_EVAL_PHI,
                         b->t + b->opt->h, b->qp, b->qd, b->w1, b->o.size);
}

static void st_eval_phi(bench* b) {
    (void)rtmbs_evaluate(b->m, b->d, RTMBS_EVAL_PACKED | RTMBS_EVAL_PHI, b->t + b->opt->h, b->qp,
                         b->qd, b->w1, b->o.size);
}

static void st_gather(bench* b) {
    const int64_t n = b->m->size.nq, c = b->m->size.nc;
    const uint32_t* ib = b->kkt->ib;
    const double h = b->opt->h;
    double* cval = b->kkt->fb + (size_t)ib[RTMBS_LU_H_NE] + ib[RTMBS_LU_H_NNZ]
                   + 4 * (size_t)ib[RTMBS_LU_H_N];
    double* tmp = b->vec + 2 * (n + c);
    rtmbs_kkt_gather_packed(b->kkt->idx, b->w0, h * h, h, h, b->w1, b->kkt->fb, cval, b->qd, tmp,
                            n, tmp + n, b->opt->implicit ? 0 : c);
}

static void st_refactor(bench* b) {
    double growth;
    (void)rtmbs_lu_refactor(b->kkt->ib, b->kkt->fb, &growth);
}

static void st_solve(bench* b) {
    const int64_t N = b->m->size.nq + b->m->size.nc;
    memcpy(b->rhs, b->rhs0, (size_t)N * sizeof(double));
    rtmbs_lu_solve(b->kkt->ib, b->kkt->fb, b->rhs);
}

static void st_outputs(bench* b) {
    (void)rtmbs_step_outputs(b->m, b->d, b->t, b->q, b->qd, b->w1, b->oidx, b->nout, b->out);
}

static void st_step(bench* b) {
    double diag[4];
    (void)rtmbs_li_euler_step(b->m, b->d, b->w0, b->w1, b->kkt, b->kkt2, b->vec, b->q, b->qd,
                              b->t, b->opt, NULL, 0, NULL, diag);
    b->t += b->opt->h;
}

/* the calls in NBATCH batches, each timed alone; the median batch's ns per call (a batch that
 * lost the processor to another job does not move it) */
#define NBATCH 15
static void run(bench* b, const char* name, int64_t per_step, stage_fn fn, long calls) {
    long k, n = calls / NBATCH > 0 ? calls / NBATCH : 1;
    int i, j;
    double t0, ns[NBATCH], x;
    fn(b); /* (warm) */
    for (i = 0; i < NBATCH; i++) {
        t0 = now_ns();
        for (k = 0; k < n; k++) fn(b);
        x = (now_ns() - t0) / (double)n;
        for (j = i; j > 0 && ns[j - 1] > x; j--) ns[j] = ns[j - 1]; /* (insertion: sorted) */
        ns[j] = x;
    }
    printf("%s\t%ld\t%.1f\n", name, (long)per_step, ns[NBATCH / 2]);
}

#define NEED(ptr, what) RTMBS_PLAN_NEED("stages", ptr, what)

int main(int argc, char** argv) {
    rtmbs_plan plan;
    rtmbs_plan_step st;
    rtmbs_data* data;
    bench b;
    char err[256];
    int64_t nq, nout, n, c, k, ntyre = 0, nproj;
    int64_t* oidx;
    double diag[4];
    long calls = argc > 2 ? atol(argv[2]) : 2000, warmup = argc > 3 ? atol(argv[3]) : 200;
    rtmbs_status s;

    if (argc < 2 || calls < 1 || warmup < 0) {
        fprintf(stderr, "usage: stages PLAN [CALLS] [WARMUP]\n");
        return 2;
    }
    if (rtmbs_plan_read(argv[1], &plan, err, sizeof err) != 0
        || rtmbs_plan_bind_step(&plan, &st, err, sizeof err) != 0) {
        fprintf(stderr, "stages: %s\n", err);
        return 2;
    }
    NEED(oidx = rtmbs_plan_get(&plan, "oidx", 'i', &nout), "oidx");
    if (st.opt.rows) { /* (the stages below are timed on every row of the model) */
        fprintf(stderr, "stages: a plan with a row map (redundant rows) is not timed by stage\n");
        return 2;
    }
    data = st.data;
    nq = st.nq;
    n = st.model.size.nq;
    c = st.model.size.nc;
    memset(&b, 0, sizeof b);
    b.m = &st.model;
    b.d = data;
    b.kkt = &st.kkt;
    b.kkt2 = &st.kkt2;
    b.opt = &st.opt;
    rtmbs_packed_workspace(&st.model.size, &b.o);
    b.w0 = calloc((size_t)st.wsize, sizeof(double));
    b.w1 = calloc((size_t)st.wsize, sizeof(double));
    b.vec = calloc((size_t)RTMBS_LI_EULER_VEC(nq, c), sizeof(double));
    b.q = malloc((size_t)nq * sizeof(double));
    b.qd = malloc((size_t)nq * sizeof(double));
    b.qp = malloc((size_t)nq * sizeof(double));
    b.rhs = malloc((size_t)(n + c) * sizeof(double));
    b.rhs0 = malloc((size_t)(n + c) * sizeof(double));
    b.out = malloc((size_t)(nout + 1) * sizeof(double));
    if (!b.w0 || !b.w1 || !b.vec || !b.q || !b.qd || !b.qp || !b.rhs || !b.rhs0 || !b.out) {
        fprintf(stderr, "stages: out of memory\n");
        return 2;
    }
    memcpy(b.q, st.q0, (size_t)nq * sizeof(double));
    memcpy(b.qd, st.qd0, (size_t)nq * sizeof(double));
    b.t = st.t0;
    b.oidx = oidx;
    b.nout = nout;
    b.what0 = RTMBS_EVAL_PACKED | RTMBS_EVAL_M | RTMBS_EVAL_Q | st.opt.jac_what
              | (c ? RTMBS_EVAL_PHIQ : 0);
    for (k = 0; k < warmup; k++) {
        s = rtmbs_li_euler_step(&st.model, data, b.w0, b.w1, &st.kkt, &st.kkt2, b.vec, b.q, b.qd, b.t, &st.opt,
                                NULL, 0, NULL, diag);
        if (s != RTMBS_OK || diag[0] == 0.0) {
            fprintf(stderr, "stages: warm-up step %ld failed\n", (long)k + 1);
            return 1;
        }
        b.t += st.opt.h;
    }
    for (k = 0; k < n; k++) b.qp[k] = b.q[k] + st.opt.h * b.qd[k];
    for (k = 0; k < n + c; k++) b.rhs0[k] = b.vec[k]; /* the last step's solution: a real rhs */
    for (k = 0; k < st.model.size.nfrc; k++) ntyre += st.model.frc_type[k] == RTMBS_F_TYRE;
    nproj = st.opt.stab == RTMBS_STAB_PROJECT && c ? st.opt.niter : 0;
    st_eval_q(&b); /* w0, w1 and the factors of this state, for the stages that read them */
    st_eval_qp(&b);
    st_gather(&b);
    st_refactor(&b);
    printf("model\tn %ld\tm %ld\tN %ld\telements %ld\ttyres %ld\n", (long)n, (long)c, (long)(n + c),
           (long)st.model.size.nfrc, (long)ntyre);
    run(&b, "kinematics", 1, st_kinematics, calls);
    run(&b, "mass", 1, st_mass, calls);
    run(&b, "force elements", 1, st_forces, calls);
    run(&b, "tyres", 1, st_tyres, calls);
    run(&b, "virtual blocks to q", 1, st_map, calls);
    run(&b, "constraints", 1, st_constraints, calls);
    run(&b, "evaluation at q", 1, st_eval_q, calls);
    run(&b, "evaluation at q_p", c ? 1 : 0, st_eval_qp, calls);
    run(&b, "evaluation of Phi", nproj && !st.opt.implicit ? nproj - 1 : nproj, st_eval_phi, calls);
    st_eval_q(&b); /* (the stages above left their sums in w0) */
    st_eval_qp(&b);
    run(&b, "KKT assembly", 1, st_gather, calls);
    run(&b, "LU refactorisation", 1, st_refactor, calls);
    run(&b, "substitution", 1 + nproj, st_solve, calls);
    run(&b, "outputs", 0, st_outputs, calls);
    run(&b, "step", 1, st_step, calls);
    free(b.w0); free(b.w1); free(b.vec); free(b.q); free(b.qd); free(b.qp); free(b.rhs);
    free(b.rhs0); free(b.out);
    rtmbs_free_data(data);
    rtmbs_plan_free(&plan);
    return 0;
}
