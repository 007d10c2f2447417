/* plan.h -- read a li-euler step plan written by rtmbs.engine.dump.write_plan. */
#ifndef RTMBS_PLAN_H
#define RTMBS_PLAN_H

#include <stdint.h>

#include "../li_euler.h"

#define RTMBS_PLAN_MAXREC 32

typedef struct rtmbs_plan_record_ {
    char name[24];
    char type;     /* 'i' int64, 'u' uint32, 'd' double */
    int64_t count;
    void* values;
} rtmbs_plan_record;

typedef struct rtmbs_plan_ {
    int nrec;
    rtmbs_plan_record rec[RTMBS_PLAN_MAXREC];
} rtmbs_plan;

/* Read the plan at path (allocates its arrays); 0 on success, else -1 with a message in err. */
int rtmbs_plan_read(const char* path, rtmbs_plan* p, char* err, int nerr);
/* The record `name` of type `type`, or NULL; *count gets its length. */
void* rtmbs_plan_get(const rtmbs_plan* p, const char* name, char type, int64_t* count);
void rtmbs_plan_free(rtmbs_plan* p);

/* A plan's li-euler step, bound: the model over the plan's buffers, its data (made here, with the
 * plan's input channels and extra states copied in), both KKT systems, the step's options, the
 * size of a workspace and the initial state. The arrays stay the plan's. */
typedef struct rtmbs_plan_step_ {
    rtmbs_model model;
    rtmbs_data* data;
    rtmbs_kkt kkt, kkt2;
    rtmbs_li_euler_options opt;
    rtmbs_rows rows; /* the plan's row map ("rows": a model with redundant rows; opt.rows) */
    int64_t nq, nc, wsize;
    const double *q0, *qd0;
    double t0;
} rtmbs_plan_step;

/* In a program's main: ptr = a plan record, or "PROG: plan has no WHAT" on stderr and exit 2. */
#define RTMBS_PLAN_NEED(prog, ptr, what)                                  \
    if (!(ptr)) {                                                         \
        fprintf(stderr, "%s: plan has no %s\n", prog, what);              \
        return 2;                                                         \
    }

/* Bind the step of plan p into st: 0, or -1 with the missing record or the failure in err. */
int rtmbs_plan_bind_step(const rtmbs_plan* p, rtmbs_plan_step* st, char* err, int nerr);

#endif /* RTMBS_PLAN_H */
