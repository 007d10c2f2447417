/* rtmbs.h -- the rtmbs engine: every real-time computation of a step, in C99 with libm only.
 *
 * A model (rtmbs_model, constant) and a data (rtmbs_data, one per run) hold every array; a step
 * is a sequence of named stages over them (docs/engine.md):
 *
 *     kinematics -> mass -> forces (one file per element) -> constraints
 *       -> iteration matrix -> sparse LU (fixed pattern, static pivots) -> solves
 *       -> stabilisation -> state update -> outputs -> counters
 *
 * No global state, no I/O, no allocation after rtmbs_make_data() (or after the caller has given
 * the buffers), no exit/abort: errors are rtmbs_status codes and numerical trouble is counted in
 * the data's warnings with the offending index (as MuJoCo's mj_warning).
 */
#ifndef RTMBS_H
#define RTMBS_H

#include <stddef.h>
#include <stdint.h>

#include "rtmbs_fields.h"

#ifdef __cplusplus
extern "C" {
#endif

#define RTMBS_ABI_VERSION 1

/* -- status codes ---------------------------------------------------------------------------- */
typedef enum rtmbs_status_ {
    RTMBS_OK = 0,
    RTMBS_ERR_LAYOUT = 1,       /* a buffer's layout table does not match the field table */
    RTMBS_ERR_SIZE = 2,         /* a buffer or argument is too short for the model */
    RTMBS_ERR_SINGULAR = 3,     /* a factorisation met a zero or non-finite pivot */
    RTMBS_ERR_NONFINITE = 4,    /* the state became non-finite */
    RTMBS_ERR_UNSUPPORTED = 5,  /* an element or option this build does not implement */
    RTMBS_ERR_ALLOC = 6,        /* rtmbs_make_data could not allocate */
    RTMBS_ERR_ARGUMENT = 7      /* an argument out of its range */
} rtmbs_status;

/* -- what an evaluation fills (rtmbs.protocol EVAL_*) ---------------------------------------- */
#define RTMBS_EVAL_M 1        /* mass matrix M(q) */
#define RTMBS_EVAL_Q 2        /* generalised forces Q(q, qdot, t) */
#define RTMBS_EVAL_PHI 4      /* constraints Phi(q, t) */
#define RTMBS_EVAL_PHIQ 8     /* Phi_q and Phi_t */
#define RTMBS_EVAL_GAMMA 16   /* gamma (Carpinelli 2016, eq. 23) */
#define RTMBS_EVAL_JAC 32     /* dQ/dq, dQ/dqdot of every term */
#define RTMBS_EVAL_JACS 64    /* the same, stiff force elements only */
#define RTMBS_EVAL_PACKED 128 /* M, Phi_q, Jq, Jqdot into their fixed blocks (packed workspace) */

/* column width of one body's segment in the packed Phi_q, and of one block of M, Jq, Jqdot */
#define RTMBS_SEG 7

/* -- warnings: counted in the data, never fatal by themselves (MuJoCo's mjtWarning) ----------- */
typedef enum rtmbs_warning_ {
    RTMBS_WARN_SINGULAR = 0,    /* zero or non-finite pivot: index = pivot */
    RTMBS_WARN_GROWTH,          /* pivot growth above the limit: index = pivot */
    RTMBS_WARN_NONFINITE,       /* non-finite coordinate after a step: index = coordinate */
    RTMBS_WARN_UNSUPPORTED,     /* element type without a C kernel: index = element */
    RTMBS_WARN_TABLE,           /* table look-up outside its range (clamped): index = table */
    RTMBS_WARN_REDUNDANT,       /* an evaluation in which a left-out redundant constraint row
                                   exceeded its bound (stages.h): index = the last such row */
    RTMBS_NWARN
} rtmbs_warning;

/* -- counters: incremented by the code that does the work, to show a fixed cost --------------- */
typedef enum rtmbs_counter_ {
    RTMBS_CNT_EVAL = 0,         /* evaluations (rtmbs_evaluate calls) */
    RTMBS_CNT_ELEMENT,          /* force-element kernels run */
    RTMBS_CNT_FACTOR,           /* numeric LU refactorisations */
    RTMBS_CNT_SOLVE,            /* LU solves (forward + back substitution) */
    RTMBS_CNT_FLOP,             /* multiply-adds of the LU refactorisations and solves */
    RTMBS_CNT_STEP,             /* steps taken */
    RTMBS_CNT_COST_CHANGE,      /* steps whose counts (EVAL .. FLOP) differed from the step before */
    RTMBS_CNT_LAST,             /* the counts EVAL .. FLOP of the last step (5 slots from here) */
    RTMBS_NCOUNTER = RTMBS_CNT_LAST + RTMBS_CNT_STEP
} rtmbs_counter;

/* -- sizes ------------------------------------------------------------------------------------- */
typedef struct rtmbs_sizes_ {
    int64_t nq;     /* coordinates n */
    int64_t nc;     /* constraint rows m */
    int64_t nbody;  /* moving bodies (the ground is body nbody) */
    int64_t nprim;  /* constraint primitives */
    int64_t nfrc;   /* force elements */
    int64_t nfun;   /* input functions */
    int64_t ntab;   /* tables */
    int64_t nblk;   /* virtual Jacobian blocks */
    int64_t nrow1;  /* rows of the virtual constraint Jacobian: m + coupler terms (at least 1) */
    int64_t nx;     /* extra first-order states (transient tyre deflections) */
} rtmbs_sizes;

/* -- the model: constant, shared by every run -------------------------------------------------- */
typedef struct rtmbs_model_ {
    rtmbs_sizes size;
#define RTMBS_X(name, ndim, unit, doc) const int64_t* name; int64_t name##_dim[4];
    RTMBS_MODEL_INTS(RTMBS_X)
#undef RTMBS_X
#define RTMBS_X(name, ndim, unit, doc) const double* name; int64_t name##_dim[4];
    RTMBS_MODEL_FLOATS(RTMBS_X)
#undef RTMBS_X
} rtmbs_model;

/* -- the data: one per run; every buffer of a step ---------------------------------------------- */
typedef struct rtmbs_data_ {
#define RTMBS_X(name, ndim, d0, d1, d2, d3, unit, doc) double* name;
    RTMBS_DATA(RTMBS_X)
#undef RTMBS_X
    double* buffer;   /* the one buffer every field points into */
    int64_t nbuffer;  /* its length (doubles) */
    int owned;        /* 1 when rtmbs_make_data allocated it */
} rtmbs_data;

/* number of fields of each table */
enum {
#define RTMBS_X(name, ndim, unit, doc) RTMBS_MI_##name,
    RTMBS_MODEL_INTS(RTMBS_X)
#undef RTMBS_X
    RTMBS_NMODEL_INTS
};
enum {
#define RTMBS_X(name, ndim, unit, doc) RTMBS_MF_##name,
    RTMBS_MODEL_FLOATS(RTMBS_X)
#undef RTMBS_X
    RTMBS_NMODEL_FLOATS
};
enum {
#define RTMBS_X(name, ndim, d0, d1, d2, d3, unit, doc) RTMBS_D_##name,
    RTMBS_DATA(RTMBS_X)
#undef RTMBS_X
    RTMBS_NDATA
};

/* -- model and data ----------------------------------------------------------------------------- */

/* Point the model's fields into the packed buffers made by Python (rtmbs.kernels.layouts): ibuf
 * (int64, length ni) with its layout ilay (RTMBS_NMODEL_INTS x 6), fbuf (double, length nf) with
 * flay (RTMBS_NMODEL_FLOATS x 6). Checks every layout row against the field table and the buffer
 * lengths; the sizes come from the arrays' shapes and from nq, nc, nrow1, nx. */
rtmbs_status rtmbs_bind_model(rtmbs_model* m, int64_t nq, int64_t nc, int64_t nrow1, int64_t nx,
                              const int64_t* ibuf, int64_t ni, const int64_t* ilay,
                              const double* fbuf, int64_t nf, const int64_t* flay);

/* The data layout (RTMBS_NDATA x 6: offset, ndim, d0..d3) for sizes s; *total gets the length. */
void rtmbs_data_layout(const rtmbs_sizes* s, int64_t* lay, int64_t* total);

/* Point d's fields into buf (length nbuf, laid out as rtmbs_data_layout says; slay, when not
 * NULL, is checked against it). Nothing is allocated. */
rtmbs_status rtmbs_bind_data(const rtmbs_model* m, rtmbs_data* d, double* buf, int64_t nbuf,
                             const int64_t* slay);

/* Allocate and bind a data of model m (all memory of a run, zeroed); NULL if out of memory. */
rtmbs_data* rtmbs_make_data(const rtmbs_model* m);
void rtmbs_free_data(rtmbs_data* d);

/* Warnings and counters (stored in the data's buffer: they persist across calls). */
void rtmbs_warn(rtmbs_data* d, rtmbs_warning w, int64_t index, double t);
int64_t rtmbs_warning_count(const rtmbs_data* d, rtmbs_warning w);
void rtmbs_count(rtmbs_data* d, rtmbs_counter c, int64_t by);
int64_t rtmbs_counter_value(const rtmbs_data* d, rtmbs_counter c);

/* A step's bookkeeping: rtmbs_step_begin keeps the counts EVAL .. FLOP in snap (RTMBS_CNT_STEP
 * values); rtmbs_step_end counts the step, stores its counts in the RTMBS_CNT_LAST slots and
 * counts RTMBS_CNT_COST_CHANGE when they differ from the step before's: a fixed-cost solver
 * leaves it at zero, shown by the code's own counts rather than asserted. */
void rtmbs_step_begin(const rtmbs_data* d, double* snap);
void rtmbs_step_end(rtmbs_data* d, const double* snap);

#ifdef __cplusplus
}
#endif

#endif /* RTMBS_H */
