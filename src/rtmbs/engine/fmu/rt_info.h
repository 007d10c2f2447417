/* rt_info.h -- what the standalone program of `rtmbs export-c` prints and writes besides the plan:
 * rt_info.c (written at export, next to model_data.c) defines rtmbs_rt_the_info. */
#ifndef RTMBS_RT_INFO_H
#define RTMBS_RT_INFO_H

#include <stdint.h>

typedef struct rtmbs_rt_info_ {
    const char* model;     /* the model's name (summary) */
    const char* solver;    /* the solver's name */
    const char* options;   /* its options, as text */
    const char* csv_names; /* first row of result.csv (rtmbs.result.Result.save_csv), no newline */
    const char* csv_units; /* second row: the units of the columns */
    int64_t nx;            /* extra first-order states (columns x0 .. ) */
} rtmbs_rt_info;

extern const rtmbs_rt_info rtmbs_rt_the_info;

#endif /* RTMBS_RT_INFO_H */
