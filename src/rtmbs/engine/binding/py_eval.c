/* py_eval.c -- binding: the evaluation of a Cartesian model (rtmbs.kernels.evaluate). */
#include "py_common.h"
#include "../stages.h"

/* evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): the arguments of
 * rtmbs.kernels.evaluate.evaluate_cartesian, in its order */
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

PyMethodDef rtmbs_py_eval_methods[] = {
    {"evaluate", (PyCFunction)(void (*)(void))py_evaluate, METH_FASTCALL,
     "evaluate(what, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, wbuf, n, m): M, Q, Phi, ... "
     "into the workspace (rtmbs.kernels.evaluate.evaluate_cartesian)."},
    {NULL, NULL, 0, NULL}};
