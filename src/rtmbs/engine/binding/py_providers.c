/* py_providers.c -- binding: the hand-written providers of the evaluation interface
 * (engine/providers/): the planar truck (rtmbs.models.truck) and the two subsystem-synthesis
 * formulations (rtmbs.synthesis.system). Each evaluation takes the provider's parameter vector,
 * the state and the protocol workspace's flat buffer (rtmbs.protocol.Workspace.buf). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../providers/truck.h"

/* a float64 array of at least `want` entries (writable if asked), its length into *len (may be
 * NULL); NULL with an exception */
static double* farr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                    Py_ssize_t* len) {
    Py_ssize_t l;
    double* p = (double*)rtmbs_py_array(obj, NPY_DOUBLE, writable, what, &l);
    if (!p) return NULL;
    if (l < want) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, expected at least %zd", what, l, want);
        return NULL;
    }
    if (len) *len = l;
    return p;
}

/* the (par, t, q, qd, what) of every truck evaluation, args[0..4]; 0 or -1 with an exception */
static int truck_args(PyObject* const* args, const double** par, Py_ssize_t* npar, double* t,
                      const double** q, const double** qd, int* what) {
    if (!(*par = farr(args[0], 0, "par", 1, npar))) return -1;
    *t = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred()) return -1;
    if (!(*q = farr(args[2], 0, "q", RTMBS_TRUCK_N, NULL))) return -1;
    if (!(*qd = farr(args[3], 0, "qd", RTMBS_TRUCK_N, NULL))) return -1;
    *what = (int)PyLong_AsLong(args[4]);
    return PyErr_Occurred() ? -1 : 0;
}

/* truck_evaluate(par, t, q, qd, what, ws) -> status (0, or 4 when a pneumatic spring's volume
 * is not positive: the workspace then holds the non-finite values) */
static PyObject* py_truck_evaluate(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *par, *q, *qd;
    double t, *ws;
    Py_ssize_t npar;
    int what;
    rtmbs_truck tr;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "truck_evaluate") < 0) return NULL;
    if (truck_args(args, &par, &npar, &t, &q, &qd, &what) < 0) return NULL;
    if ((s = rtmbs_truck_bind(&tr, par, npar)) != RTMBS_OK)
        return rtmbs_py_status(s, "truck_evaluate: par");
    if (!(ws = farr(args[5], 1, "ws", rtmbs_truck_workspace_size(tr.m), NULL))) return NULL;
    return PyLong_FromLong((long)rtmbs_truck_evaluate(&tr, t, q, qd, what, ws));
}

/* truck_linear_evaluate(par, t, q, qd, what, ws) -> status */
static PyObject* py_truck_linear_evaluate(PyObject* self, PyObject* const* args,
                                          Py_ssize_t nargs) {
    const double *par, *q, *qd;
    double t, *ws;
    Py_ssize_t npar;
    int what;
    rtmbs_truck_linear tr;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "truck_linear_evaluate") < 0) return NULL;
    if (truck_args(args, &par, &npar, &t, &q, &qd, &what) < 0) return NULL;
    if ((s = rtmbs_truck_linear_bind(&tr, par, npar)) != RTMBS_OK)
        return rtmbs_py_status(s, "truck_linear_evaluate: par");
    if (!(ws = farr(args[5], 1, "ws", rtmbs_truck_workspace_size(0), NULL))) return NULL;
    return PyLong_FromLong((long)rtmbs_truck_linear_evaluate(&tr, t, q, qd, what, ws));
}

/* truck_deflections(par, t, q, out): the spring deflection of every element */
static PyObject* py_truck_deflections(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *par, *q;
    double t, *out;
    Py_ssize_t npar;
    rtmbs_truck tr;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 4, "truck_deflections") < 0) return NULL;
    if (!(par = farr(args[0], 0, "par", 1, &npar))) return NULL;
    t = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = farr(args[2], 0, "q", RTMBS_TRUCK_N, NULL))) return NULL;
    if ((s = rtmbs_truck_bind(&tr, par, npar)) != RTMBS_OK)
        return rtmbs_py_status(s, "truck_deflections: par");
    if (!(out = farr(args[3], 1, "out", tr.ne, NULL))) return NULL;
    rtmbs_truck_deflections(&tr, t, q, out);
    Py_RETURN_NONE;
}

/* truck_road(road, xi) -> (height, slope) */
static PyObject* py_truck_road(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* road;
    double xi, u, du;
    Py_ssize_t len;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "truck_road") < 0) return NULL;
    if (!(road = farr(args[0], 0, "road", RTMBS_TRUCK_R_XI0, &len))) return NULL;
    if (len < RTMBS_TRUCK_R_XI0 + (Py_ssize_t)road[RTMBS_TRUCK_R_NB]) {
        PyErr_SetString(PyExc_ValueError, "road: fewer bump starts than its count");
        return NULL;
    }
    xi = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred()) return NULL;
    u = rtmbs_truck_road(road, xi, &du);
    return Py_BuildValue("(dd)", u, du);
}

#define FASTCALL(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, doc}

PyMethodDef rtmbs_py_providers_methods[] = {
    FASTCALL(truck_evaluate, "The nonlinear planar truck into a protocol workspace (truck.h)."),
    FASTCALL(truck_linear_evaluate, "The linearised planar truck into a protocol workspace."),
    FASTCALL(truck_deflections, "Spring deflections of the truck's elements (for its energy)."),
    FASTCALL(truck_road, "The truck's road height and slope at a road coordinate."),
    {NULL, NULL, 0, NULL}};
