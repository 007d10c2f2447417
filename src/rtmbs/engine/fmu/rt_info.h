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
    /* UDP I/O (rtmbs.realtime.udp; udp = 0: none), from the configuration given at export */
    int udp;
    const char* listen_host; int listen_port;
    const char* send_host; int send_port; /* send_port < 0: no outputs sent */
    int64_t udp_nin;
    const int64_t* udp_in_vr;      /* instance value reference of each input channel */
    const double* udp_scale;       /* value = scale x + offset */
    const double* udp_offset;
    const double* udp_initial;     /* x before the first packet (NAN: the model's own) */
    int64_t udp_nout;
    const int64_t* udp_out;        /* index into the outputs of each output channel */
    double max_age;                /* NAN: none */
    int64_t decimation;
} rtmbs_rt_info;

extern const rtmbs_rt_info rtmbs_rt_the_info;

#endif /* RTMBS_RT_INFO_H */
