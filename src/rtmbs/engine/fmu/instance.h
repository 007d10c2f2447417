/* instance.h -- one co-simulation instance of an exported model (fmi2.c and fmi3.c wrap it).
 *
 * Every value that changes during a run lives in one block of doubles (`mem`): the time, the
 * state, the inputs and outputs, the data, the KKT storage and the workspaces. An FMU state is a
 * copy of that block, so getting, setting and serialising it are memcpy's. No globals: any number
 * of instances per process; allocation only when an instance or a state is made.
 */
#ifndef RTMBS_FMU_INSTANCE_H
#define RTMBS_FMU_INSTANCE_H

#include "fmu_plan.h"

/* the header of `mem` */
#define RTMBS_FMU_T 0       /* current time, s */
#define RTMBS_FMU_TSTART 1  /* start time, s */
#define RTMBS_FMU_K 2       /* steps taken since the start (t = t_start + k h) */
#define RTMBS_FMU_DIRTY 3   /* 1: the outputs are to be evaluated again */
#define RTMBS_FMU_FAILED 4  /* 1: a step failed (only reset or a saved state continue) */
#define RTMBS_FMU_HEADER 8

typedef struct rtmbs_fmu_ {
    const rtmbs_fmu_plan* plan;
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_kkt kkt, kkt2;
    double* mem;    /* the block of every changing value */
    int64_t nmem;   /* its length (doubles) */
    double *q, *qd, *u, *y, *w0, *w1, *wy, *vec;
} rtmbs_fmu;

/* Make an instance of plan p (its model bound, memory allocated, reset); NULL when out of memory
 * or when the plan does not bind (status in *status). */
rtmbs_fmu* rtmbs_fmu_new(const rtmbs_fmu_plan* p, rtmbs_status* status);
void rtmbs_fmu_free(rtmbs_fmu* f);

/* Back to the plan's initial state and input start values at time t0. */
void rtmbs_fmu_reset(rtmbs_fmu* f, double t0);

/* The start time (before the first step): the time of the initial state. */
void rtmbs_fmu_set_start(rtmbs_fmu* f, double t0);

double rtmbs_fmu_time(const rtmbs_fmu* f);

/* Value references: 0 time, 1 .. nin inputs, nin + 1 .. nin + nout outputs. Return 0, or -1 for
 * an unknown (or, for set, not settable) reference. */
int rtmbs_fmu_get(rtmbs_fmu* f, int64_t vr, double* value, rtmbs_status* status);
int rtmbs_fmu_set(rtmbs_fmu* f, int64_t vr, double value);

/* Steps of h from t (the current time) over dt (a multiple of h). Returns 0; or -1 with a
 * message in msg (at most len bytes) naming the time: dt not a multiple of h, t not the
 * instance's time, a failed or diverging step (the instance then needs a reset or a state). */
int rtmbs_fmu_do_step(rtmbs_fmu* f, double t, double dt, char* msg, size_t len);

/* FMU states: a copy of `mem` (nmem doubles). */
double* rtmbs_fmu_state_new(const rtmbs_fmu* f);
void rtmbs_fmu_state_get(const rtmbs_fmu* f, double* state);
void rtmbs_fmu_state_set(rtmbs_fmu* f, const double* state);

#endif /* RTMBS_FMU_INSTANCE_H */
