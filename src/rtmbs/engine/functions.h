/* functions.h -- input functions of time and tables (codes: rtmbs.kernels.codes FUN_*). */
#ifndef RTMBS_FUNCTIONS_H
#define RTMBS_FUNCTIONS_H

#include "stages.h"

/* Linear interpolation (clamped at the ends) of table entries adr .. adr + n - 1 of (tx, ty) at
 * x; *slope gets dy/dx (0 outside). */
double rtmbs_table_eval(double x, const double* tx, const double* ty, int64_t adr, int64_t n,
                        double* slope);

/* Value, first and second time derivative of input function k at t (fun_par from the data: its
 * channels change during a run). */
void rtmbs_fun_eval(const rtmbs_model* m, const rtmbs_data* d, int64_t k, double t, double* v,
                    double* v1, double* v2);

/* Value, first and second time derivative of the expression program ops/args[adr .. adr+n-1]
 * at t (rtmbs.model.expression; NaN for a malformed program). */
void rtmbs_expr_eval(double t, const double* ops, const double* args, int64_t adr, int64_t n,
                     double* v, double* v1, double* v2);

#endif /* RTMBS_FUNCTIONS_H */
