/* fmu_plan.h -- what an exported FMU compiles in: a li-euler plan (rtmbs.engine.dump) as constants.
 *
 * model_data.c (written by rtmbs.fmu at export) defines rtmbs_fmu_the_plan: the model's packed
 * buffers, the data's initial buffer, the KKT plans and their initial storage after the solver's
 * reset, the options, the initial state, the output index and the input channels.
 */
#ifndef RTMBS_FMU_PLAN_H
#define RTMBS_FMU_PLAN_H

#include "../li_euler.h"

typedef struct rtmbs_fmu_plan_ {
    const char* token;            /* FMI 2 guid / FMI 3 instantiationToken */
    int64_t nq, nc, nrow1, nx;    /* sizes (rtmbs_bind_model) */
    const int64_t* ibuf; int64_t ni;
    const int64_t* ilay;
    const double* fbuf; int64_t nf;
    const int64_t* flay;
    const double* sbuf; int64_t ns; /* the data's initial buffer (channels at their start values) */
    const int64_t* slay;
    const uint32_t* kib; const double* kfb; int64_t nkfb; const uint32_t* kidx; /* eq. 22 */
    const uint32_t* pib; const double* pfb; int64_t npfb; const uint32_t* pidx; /* second KKT */
    int kkt2_shared;              /* 1: the second KKT is eq. 22's (one storage) */
    int64_t wsize;                /* length of a packed workspace */
    rtmbs_li_euler_options opt;   /* h and the stabilisation, fixed at export */
    const double* q0; const double* qd0; const double* x0; double t0;
    int64_t nin;                  /* inputs: value references 1 .. nin */
    const int64_t* in_row;        /* fun_par row of each input channel */
    const double* in_start;       /* start value of each input */
    int64_t nout;                 /* outputs: value references nin + 1 .. nin + nout */
    const int64_t* oidx;          /* data-buffer index of each output */
} rtmbs_fmu_plan;

extern const rtmbs_fmu_plan rtmbs_fmu_the_plan;

#endif /* RTMBS_FMU_PLAN_H */
