/* py_eval.c -- binding: the evaluation of a Cartesian model (evaluate.c). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../stages.h"

/* evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): M, Q, Phi,
 * ... into the workspace wbuf (rtmbs_evaluate) */
static PyObject* py_evaluate(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t what, n, c;
    double t;
    const double *q, *qd;
    double* w;
    Py_ssize_t nqv, nqdv, nw;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 13, "evaluate") < 0) return NULL;
    what = PyLong_AsLongLong(args[0]);
    t = PyFloat_AsDouble(args[1]);
    n = PyLong_AsLongLong(args[11]);
    c = PyLong_AsLongLong(args[12]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "q", &nqv))) return NULL;
    if (!(qd = rtmbs_py_array(args[3], NPY_DOUBLE, 0, "qd", &nqdv))) return NULL;
    if (!(w = rtmbs_py_array(args[10], NPY_DOUBLE, 1, "wbuf", &nw))) return NULL;
    if (nqv < n || nqdv < n) {
        PyErr_SetString(PyExc_ValueError, "evaluate: q or qd shorter than n");
        return NULL;
    }
    if (rtmbs_py_bind(args + 4, n, c, &m, &d) < 0) return NULL;
    s = rtmbs_evaluate(&m, &d, what, t, q, qd, w, nw);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "evaluate");
    Py_RETURN_NONE;
}

/* outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m, oidx, out): the named
 * outputs oidx into out (rtmbs_outputs; wbuf: a packed workspace) */
static PyObject* py_outputs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t n, c;
    double t;
    const double *q, *qd;
    const int64_t* oidx;
    double *w, *out;
    Py_ssize_t nqv, nqdv, nw, nidx, nout;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 14, "outputs") < 0) return NULL;
    t = PyFloat_AsDouble(args[0]);
    n = PyLong_AsLongLong(args[10]);
    c = PyLong_AsLongLong(args[11]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = rtmbs_py_array(args[1], NPY_DOUBLE, 0, "q", &nqv))) return NULL;
    if (!(qd = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "qd", &nqdv))) return NULL;
    if (!(w = rtmbs_py_array(args[9], NPY_DOUBLE, 1, "wbuf", &nw))) return NULL;
    if (!(oidx = rtmbs_py_array(args[12], NPY_INT64, 0, "oidx", &nidx))) return NULL;
    if (!(out = rtmbs_py_array(args[13], NPY_DOUBLE, 1, "out", &nout))) return NULL;
    if (nqv < n || nqdv < n) {
        PyErr_SetString(PyExc_ValueError, "outputs: q or qd shorter than n");
        return NULL;
    }
    if (nout < nidx) {
        PyErr_SetString(PyExc_ValueError, "outputs: out shorter than oidx");
        return NULL;
    }
    if (rtmbs_py_bind(args + 3, n, c, &m, &d) < 0) return NULL;
    s = rtmbs_outputs(&m, &d, t, q, qd, w, nw, oidx, nidx, out);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "outputs");
    Py_RETURN_NONE;
}

/* body_accelerations(q, qd, qdd, ibuf, ilay, fbuf, flay, sbuf, slay, n, m, out): per body rddot
 * and omegadot = G pddot + alpha into out (6 nbody) */
static PyObject* py_body_accelerations(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t n, c;
    const double *q, *qd, *qdd;
    double* out;
    Py_ssize_t nqv, nqdv, nqddv, nout;
    (void)self;
    if (rtmbs_py_nargs(nargs, 12, "body_accelerations") < 0) return NULL;
    n = PyLong_AsLongLong(args[9]);
    c = PyLong_AsLongLong(args[10]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = rtmbs_py_array(args[0], NPY_DOUBLE, 0, "q", &nqv))) return NULL;
    if (!(qd = rtmbs_py_array(args[1], NPY_DOUBLE, 0, "qd", &nqdv))) return NULL;
    if (!(qdd = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "qdd", &nqddv))) return NULL;
    if (!(out = rtmbs_py_array(args[11], NPY_DOUBLE, 1, "out", &nout))) return NULL;
    if (nqv < n || nqdv < n || nqddv < n) {
        PyErr_SetString(PyExc_ValueError, "body_accelerations: q, qd or qdd shorter than n");
        return NULL;
    }
    if (rtmbs_py_bind(args + 3, n, c, &m, &d) < 0) return NULL;
    if (nout < 6 * m.size.nbody) {
        PyErr_SetString(PyExc_ValueError, "body_accelerations: out shorter than 6 nbody");
        return NULL;
    }
    rtmbs_body_accelerations(&m, q, qd, qdd, out);
    Py_RETURN_NONE;
}

PyMethodDef rtmbs_py_eval_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))py_evaluate, METH_FASTCALL,
     "evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): M, Q, Phi, ... "
     "into the workspace."},
    {"outputs", (PyCFunction)(void (*)(void))py_outputs, METH_FASTCALL,
     "outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m, oidx, out): the named "
     "outputs."},
    {"body_accelerations", (PyCFunction)(void (*)(void))py_body_accelerations, METH_FASTCALL,
     "body_accelerations(q, qd, qdd, ibuf, ilay, fbuf, flay, sbuf, slay, n, m, out): per body "
     "rddot and omegadot."},
    {NULL, NULL, 0, NULL}};
