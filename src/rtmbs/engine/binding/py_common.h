/* py_common.h -- helpers of the CPython binding (the only files that include Python.h).
 *
 * The binding passes numpy arrays to the engine without copies: each argument is checked once
 * for type, dtype and C-contiguity, then its data pointer is handed on. Functions take their arrays
 * positionally, as the solvers hold them.
 */
#ifndef RTMBS_PY_COMMON_H
#define RTMBS_PY_COMMON_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define NO_IMPORT_ARRAY
#define PY_ARRAY_UNIQUE_SYMBOL rtmbs_engine_ARRAY_API
#include <numpy/arrayobject.h>

#include "../li_euler.h"
#include "../rtmbs.h"

/* A C-contiguous array of dtype `type` (NPY_DOUBLE, NPY_INT64); `writable` for outputs.
 * Returns its data pointer and length, or NULL with a Python exception naming `what`. */
void* rtmbs_py_array(PyObject* obj, int type, int writable, const char* what, Py_ssize_t* len);

/* Bind model and data from the six packed buffers (ibuf, ilay, fbuf, flay, sbuf, slay) and the
 * sizes n, m. Returns 0, or -1 with a Python exception. */
int rtmbs_py_bind(PyObject* const* args, int64_t n, int64_t m, rtmbs_model* model, rtmbs_data* data);

/* A status as a Python exception (RuntimeError naming the status); returns NULL. */
PyObject* rtmbs_py_status(rtmbs_status s, const char* where);

/* The arguments every rollout binding shares, in this order from args[0]: n_steps, every, chan,
 * inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good, qd_good,
 * x_good (rtmbs.solvers.rollout.run_rollout_kernel). Every array is checked for its type and
 * for a length that fits the model m's sizes and the rows to save. Returns 0, or -1 with an
 * exception naming `name`. */
typedef struct rtmbs_py_rollout_ {
    int64_t n_steps, every, nchan, nout;
    const int64_t *chan, *oidx;
    const double* inputs;
    rtmbs_rollout_rows rows;
    double *q_good, *qd_good, *x_good;
} rtmbs_py_rollout;
int rtmbs_py_rollout_args(PyObject* const* args, const rtmbs_model* m, const char* name,
                          rtmbs_py_rollout* r);

/* Check the number of positional arguments of a METH_FASTCALL function. */
int rtmbs_py_nargs(Py_ssize_t nargs, Py_ssize_t want, const char* name);

/* The method tables of the binding's parts (one per stage group), joined by module.c. */
extern PyMethodDef rtmbs_py_model_methods[];
extern PyMethodDef rtmbs_py_eval_methods[];
extern PyMethodDef rtmbs_py_lu_methods[];
extern PyMethodDef rtmbs_py_tyre_methods[];
extern PyMethodDef rtmbs_py_elements_methods[];
extern PyMethodDef rtmbs_py_step_methods[];
extern PyMethodDef rtmbs_py_alpha_methods[];
extern PyMethodDef rtmbs_py_indep_methods[];
extern PyMethodDef rtmbs_py_explicit_methods[];
extern PyMethodDef rtmbs_py_ode_methods[];
extern PyMethodDef rtmbs_py_rebase_methods[];
extern PyMethodDef rtmbs_py_providers_methods[];

#endif /* RTMBS_PY_COMMON_H */
