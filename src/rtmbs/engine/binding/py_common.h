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

/* A C-contiguous array of dtype `type` (NPY_DOUBLE, NPY_INT64, NPY_UINT32); `writable` for
 * outputs. Returns its data pointer and length, or NULL with a Python exception naming `what`. */
void* rtmbs_py_array(PyObject* obj, int type, int writable, const char* what, Py_ssize_t* len);

/* rtmbs_py_array holding at least `want` entries (ValueError otherwise); len may be NULL. */
void* rtmbs_py_array_min(PyObject* obj, int type, int writable, const char* what,
                         Py_ssize_t want, Py_ssize_t* len);

/* A ValueError "`name`: `what` has `have` values, `need` needed" when have < need: -1, else 0. */
int rtmbs_py_need(Py_ssize_t have, Py_ssize_t need, const char* name, const char* what);

/* A ValueError with `msg` when !ok: -1, else 0. */
int rtmbs_py_check(int ok, const char* msg);

/* Bind model and data from the six packed buffers (ibuf, ilay, fbuf, flay, sbuf, slay) and the
 * sizes n, m. Returns 0, or -1 with a Python exception. */
int rtmbs_py_bind(PyObject* const* args, int64_t n, int64_t m, rtmbs_model* model, rtmbs_data* data);

/* rtmbs_py_bind with the sizes n, m given as Python integers. */
int rtmbs_py_bind_nm(PyObject* const* args, PyObject* n, PyObject* m, rtmbs_model* model,
                     rtmbs_data* data);

/* A status as a Python exception (RuntimeError naming the status); returns NULL. */
PyObject* rtmbs_py_status(rtmbs_status s, const char* where);

/* The state and workspaces every step binding starts with: the six packed buffers at args[0..5],
 * the packed workspaces w0, w1 at args[6], args[7] (checked to hold one), the vector buffer vec
 * at args[ivec] (its length in nvec, for the caller to check), q, qd and m at args[iq],
 * args[iq + 1], args[iq + 2]. Returns 0, or -1 with an exception naming `name`. */
typedef struct rtmbs_py_step_ {
    rtmbs_model model;
    rtmbs_data data;
    double *w0, *w1, *vec, *q, *qd;
    int64_t n, m;
    Py_ssize_t nvec;
} rtmbs_py_step;
int rtmbs_py_step_args(PyObject* const* args, Py_ssize_t ivec, Py_ssize_t iq, const char* name,
                       rtmbs_py_step* a);

/* A KKT's (ib, fb, idx) at args[0..2] (uint32, float64 written, uint32). Returns 0 or -1. */
int rtmbs_py_kkt(PyObject* const* args, rtmbs_kkt* k);

/* The row map `obj` of a model with m rows (int64: nkept, nleft, kept (nkept), left (nleft);
 * None: every row; rtmbs.solvers.redundancy.ReducedSystem.row_map), checked by rtmbs_rows_bind
 * into r: *rows = r, or NULL for None. Returns 0, or -1 with an exception naming `name`. */
int rtmbs_py_rows(PyObject* obj, int64_t m, const char* name, rtmbs_rows* r,
                  const rtmbs_rows** rows);

/* The named outputs of a step binding: oidx (int64) at args[0] and out (float64, at least as
 * long) at args[1]. With with_flag 0 they are oidx0 and out0, the step's outputs at its start;
 * with 1 they are oidx and out, and the flag at args[2] says whether they are taken at the
 * step's start (at_start) or at its end (rtmbs_py_outputs_end). Returns 0 or -1. */
typedef struct rtmbs_py_outputs_ {
    const int64_t* oidx;
    double* out;
    Py_ssize_t nout;
    int at_start;
} rtmbs_py_outputs;
int rtmbs_py_outputs_args(PyObject* const* args, int with_flag, rtmbs_py_outputs* o);

/* After a step s that was good: the outputs asked at its end, at (t, q+, qdot+) evaluated in w1. */
rtmbs_status rtmbs_py_outputs_end(rtmbs_status s, int good, rtmbs_py_step* a, double t,
                                  const rtmbs_py_outputs* o);

/* Python scalars at args[0..] into the pointers that follow, one per letter of `fmt`: d (double),
 * L (int64_t), i (int), b (int, truth value). Returns 0 or -1 with an exception. */
int rtmbs_py_scalars(PyObject* const* args, const char* fmt, ...);

/* The arguments every rollout binding shares: t_origin, i0 at at[0], at[1], and from args[0]:
 * n_steps, every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x,
 * q_good, qd_good, x_good (rtmbs.solvers.rollout.run_rollout_kernel). Every array is checked for
 * its type and for a length that fits the model m's sizes and the rows to save. Returns 0, or -1
 * with an exception naming `name`. */
int rtmbs_py_rollout_args(PyObject* const* at, PyObject* const* args, const rtmbs_model* m,
                          const char* name, rtmbs_rollout* r);

/* One kind of compiled step, as a step bound once to its arrays (py_bound.c, the BoundStep type)
 * and the kind's own step function share it. `parse` reads the kind's prepared arguments
 * (`size` bytes, an rtmbs_py_step first) from the argument list of its step function (`nargs`
 * arguments; t and the outputs are not read); `run` takes one step of h from t with them (q, qd
 * at their rtmbs_py_step's pointers), gathers the named outputs `o` (at the step's start or end;
 * none when o->nout is 0) and writes the factor statistics into diag (4 values: pivot ratio and
 * largest multiplier of the step's KKT, the same of its second KKT or 1, 0; or ndiag values the
 * kind defines) and into *ok 1 for a good step, 0 for a failed one, or a larger code the caller
 * finishes (li-euler-indep's rebase). */
typedef struct rtmbs_py_step_kind_ {
    const char* name;
    Py_ssize_t nargs;
    size_t size;
    int (*parse)(PyObject* const* args, void* prepared);
    rtmbs_status (*run)(void* prepared, double t, double h, const rtmbs_py_outputs* o,
                        double* diag, int* ok);
    /* (optional) diag's length when not 4, and the evaluations, factorisations and solves a step
     * adds to the kind's counts per step, read from its diag (NULL: none) */
    Py_ssize_t ndiag;
    int64_t (*extra)(const double* diag);
} rtmbs_py_step_kind;
extern const rtmbs_py_step_kind rtmbs_py_li_euler_kind;
extern const rtmbs_py_step_kind rtmbs_py_explicit_kind;
extern const rtmbs_py_step_kind rtmbs_py_alpha_kind;
extern const rtmbs_py_step_kind rtmbs_py_indep_kind;
extern const rtmbs_py_step_kind rtmbs_py_truck_li_euler_kind; /* (py_providers.c) */
extern const rtmbs_py_step_kind rtmbs_py_truck_alpha_kind;    /* (py_providers.c) */

/* Check the number of positional arguments of a METH_FASTCALL function. */
int rtmbs_py_nargs(Py_ssize_t nargs, Py_ssize_t want, const char* name);

/* A METH_FASTCALL function `fn` that returns impl(args, nargs, flag): one of the forms of a
 * binding that share their body. */
#define RTMBS_PY_FORM(fn, impl, flag)                                                    \
    static PyObject* fn(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {       \
        (void)self;                                                                      \
        return impl(args, nargs, flag);                                                  \
    }

/* A METH_FASTCALL entry of a method table. */
#define RTMBS_PY_FASTCALL(name, fn, doc) \
    {name, (PyCFunction)(void (*)(void))fn, METH_FASTCALL, doc}

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

/* Add the BoundStep type (py_bound.c) to the module: 0, or -1 with an exception. */
int rtmbs_py_add_bound_type(PyObject* module);

#endif /* RTMBS_PY_COMMON_H */
