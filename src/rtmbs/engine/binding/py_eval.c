/* py_eval.c -- binding: the evaluation of a Cartesian model (evaluate.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../stages.h"

/* The model and data from the six buffers at args[ib..ib + 5] and the sizes n, m at args[in],
 * args[in + 1], and the `nstate` float64 arrays at args[iq..] (q, qd [, qdd]), each of n values
 * at least. Returns 0 or -1 with an exception. */
static int model_state(PyObject* const* args, Py_ssize_t ib, Py_ssize_t in, Py_ssize_t iq,
                       int nstate, rtmbs_model* m, rtmbs_data* d, const double** state) {
    static const char* names[3] = {"q", "qd", "qdd"};
    int k;
    if (rtmbs_py_bind_nm(args + ib, args[in], args[in + 1], m, d) < 0) return -1;
    for (k = 0; k < nstate; k++)
        if (!(state[k] = rtmbs_py_array_min(args[iq + k], NPY_DOUBLE, 0, names[k], m->size.nq,
                                            NULL)))
            return -1;
    return 0;
}

/* evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): M, Q, Phi,
 * ... into the workspace wbuf (rtmbs_evaluate) */
static PyObject* py_evaluate(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t what;
    double t;
    const double* x[2];
    double* w;
    Py_ssize_t nw;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 13, "evaluate") < 0) return NULL;
    what = PyLong_AsLongLong(args[0]);
    t = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred() || model_state(args, 4, 11, 2, 2, &m, &d, x) < 0) return NULL;
    if (!(w = rtmbs_py_array(args[10], NPY_DOUBLE, 1, "wbuf", &nw))) return NULL;
    s = rtmbs_evaluate(&m, &d, what, t, x[0], x[1], w, nw);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "evaluate");
    Py_RETURN_NONE;
}

/* outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m, oidx, out): the named
 * outputs oidx into out (rtmbs_outputs; wbuf: a packed workspace) */
static PyObject* py_outputs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    double t;
    const double* x[2];
    const int64_t* oidx;
    double *w, *out;
    Py_ssize_t nw, nidx;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 14, "outputs") < 0) return NULL;
    t = PyFloat_AsDouble(args[0]);
    if (PyErr_Occurred() || model_state(args, 3, 10, 1, 2, &m, &d, x) < 0) return NULL;
    if (!(w = rtmbs_py_array(args[9], NPY_DOUBLE, 1, "wbuf", &nw))) return NULL;
    if (!(oidx = rtmbs_py_array(args[12], NPY_INT64, 0, "oidx", &nidx))) return NULL;
    if (!(out = rtmbs_py_array_min(args[13], NPY_DOUBLE, 1, "out", nidx, NULL))) return NULL;
    s = rtmbs_outputs(&m, &d, t, x[0], x[1], w, nw, oidx, nidx, out);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "outputs");
    Py_RETURN_NONE;
}

/* body_accelerations(q, qd, qdd, ibuf, ilay, fbuf, flay, sbuf, slay, n, m, out): per body rddot
 * and omegadot = G pddot + alpha into out (6 nbody) */
static PyObject* py_body_accelerations(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    const double* x[3];
    double* out;
    (void)self;
    if (rtmbs_py_nargs(nargs, 12, "body_accelerations") < 0) return NULL;
    if (model_state(args, 3, 9, 0, 3, &m, &d, x) < 0) return NULL;
    if (!(out = rtmbs_py_array_min(args[11], NPY_DOUBLE, 1, "out", 6 * m.size.nbody, NULL)))
        return NULL;
    rtmbs_body_accelerations(&m, x[0], x[1], x[2], out);
    Py_RETURN_NONE;
}

PyMethodDef rtmbs_py_eval_methods[] = {
    RTMBS_PY_FASTCALL("evaluate", py_evaluate,
     "evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): M, Q, Phi, ... "
     "into the workspace."),
    RTMBS_PY_FASTCALL("outputs", py_outputs,
     "outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m, oidx, out): the named "
     "outputs."),
    RTMBS_PY_FASTCALL("body_accelerations", py_body_accelerations,
     "body_accelerations(q, qd, qdd, ibuf, ilay, fbuf, flay, sbuf, slay, n, m, out): per body "
     "rddot and omegadot."),
    {NULL, NULL, 0, NULL}};
