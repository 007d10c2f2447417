/* py_providers.c -- binding: the hand-written providers of the evaluation interface
 * (engine/providers/): the planar truck (rtmbs.models.truck) and the two subsystem-synthesis
 * formulations (rtmbs.synthesis.system). Each evaluation takes the provider's parameter vector,
 * the state and the protocol workspace's flat buffer (rtmbs.protocol.Workspace.buf). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../functions.h"
#include "../providers/synthesis_cartesian.h"
#include "../providers/synthesis_joint.h"
#include "../providers/truck.h"

/* float64 and int64 arrays of at least `want` entries (writable if asked), their length into
 * *len (may be NULL); NULL with an exception */
static double* farr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                    Py_ssize_t* len) {
    return (double*)rtmbs_py_array_min(obj, NPY_DOUBLE, writable, what, want, len);
}

static int64_t* iarr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                     Py_ssize_t* len) {
    return (int64_t*)rtmbs_py_array_min(obj, NPY_INT64, writable, what, want, len);
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

/* A model that did not bind, as a RuntimeError naming "name: part"; returns NULL. */
static PyObject* bind_failed(rtmbs_status s, const char* name, const char* part) {
    char where[96];
    PyOS_snprintf(where, sizeof where, "%s: %s", name, part);
    return rtmbs_py_status(s, where);
}

/* truck_evaluate(par, t, q, qd, what, ws) -> status (0, or 4 when a pneumatic spring's volume
 * is not positive: the workspace then holds the non-finite values);
 * truck_linear_evaluate(par, t, q, qd, what, ws) -> status, of the linearised truck */
static PyObject* truck_eval(PyObject* const* args, Py_ssize_t nargs, int linear) {
    const char* name = linear ? "truck_linear_evaluate" : "truck_evaluate";
    const double *par, *q, *qd;
    double t, *ws;
    Py_ssize_t npar;
    int what;
    rtmbs_truck tr;
    rtmbs_truck_linear tl;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, 6, name) < 0) return NULL;
    if (truck_args(args, &par, &npar, &t, &q, &qd, &what) < 0) return NULL;
    s = linear ? rtmbs_truck_linear_bind(&tl, par, npar) : rtmbs_truck_bind(&tr, par, npar);
    if (s != RTMBS_OK) return bind_failed(s, name, "par");
    if (!(ws = farr(args[5], 1, "ws", rtmbs_truck_workspace_size(linear ? 0 : tr.m), NULL)))
        return NULL;
    s = linear ? rtmbs_truck_linear_evaluate(&tl, t, q, qd, what, ws)
               : rtmbs_truck_evaluate(&tr, t, q, qd, what, ws);
    return PyLong_FromLong((long)s);
}

RTMBS_PY_FORM(py_truck_evaluate, truck_eval, 0)

RTMBS_PY_FORM(py_truck_linear_evaluate, truck_eval, 1)

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
        return bind_failed(s, "truck_deflections", "par");
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

/* A synthesis model of formulation B (joint) or A (Cartesian) and the arguments its evaluations
 * share: (ints, par, t, q, qd, warm start, iters) at args[0..], the warm start qt (B) or rw, Aw
 * (A). */
typedef struct {
    int joint;
    rtmbs_synj sj;
    rtmbs_sync sc;
    int64_t n, nscr, niscr, iters;
    double t, *warm[2];
    const double *q, *qd;
} syn_call;

/* The model from (ints, par) at args[0..1] and the state from args[2..]; returns the index of
 * the first argument after iters, or -1 with an exception naming `name`. */
static Py_ssize_t syn_args(PyObject* const* args, int joint, const char* name, int state,
                           syn_call* y) {
    const int64_t* ints;
    const double* par;
    Py_ssize_t ni, np_, k;
    rtmbs_status s;
    if (!(ints = iarr(args[0], 0, "ints", 1, &ni)) || !(par = farr(args[1], 0, "par", 1, &np_)))
        return -1;
    y->joint = joint;
    s = joint ? rtmbs_synj_bind(&y->sj, ints, ni, par, np_)
              : rtmbs_sync_bind(&y->sc, ints, ni, par, np_);
    if (s != RTMBS_OK) {
        bind_failed(s, name, "model");
        return -1;
    }
    y->n = joint ? y->sj.n : y->sc.n;
    y->nscr = joint ? rtmbs_synj_scratch(&y->sj) : rtmbs_sync_scratch(&y->sc);
    y->niscr = joint ? rtmbs_synj_iscratch(&y->sj) : rtmbs_sync_iscratch(&y->sc);
    if (!state) return 2;
    k = joint ? 6 : 7;
    y->t = PyFloat_AsDouble(args[2]);
    y->iters = PyLong_AsLongLong(args[k]);
    if (PyErr_Occurred()) return -1;
    if (!(y->q = farr(args[3], 0, "q", y->n, NULL)) || !(y->qd = farr(args[4], 0, "qd", y->n, NULL)))
        return -1;
    if (joint) {
        if (!(y->warm[0] = farr(args[5], 1, "qt", y->sj.ns * y->sj.nq, NULL))) return -1;
    } else if (!(y->warm[0] = farr(args[5], 1, "rw", 3 * y->sc.nb, NULL))
               || !(y->warm[1] = farr(args[6], 1, "Aw", 9 * y->sc.nb, NULL))) {
        return -1;
    }
    return k + 1;
}

/* synthesis_joint_sizes(ints, par), synthesis_cartesian_sizes(ints, par) -> (n, scratch,
 * iscratch) */
static PyObject* syn_sizes(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_sizes" : "synthesis_cartesian_sizes";
    syn_call y;
    if (rtmbs_py_nargs(nargs, 2, name) < 0 || syn_args(args, joint, name, 0, &y) < 0) return NULL;
    return Py_BuildValue("(LLL)", (long long)y.n, (long long)y.nscr, (long long)y.niscr);
}

RTMBS_PY_FORM(py_synthesis_joint_sizes, syn_sizes, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_sizes, syn_sizes, 0)

/* synthesis_joint_evaluate(ints, par, t, q, qd, qt, iters, scratch, iscratch, M, Q, qdd),
 * synthesis_cartesian_evaluate(ints, par, t, q, qd, rw, Aw, iters, scratch, iscratch, M, Q,
 * qdd) */
static PyObject* syn_evaluate(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_evaluate" : "synthesis_cartesian_evaluate";
    syn_call y;
    double *scr, *M, *Q, *qdd;
    int64_t* iscr;
    Py_ssize_t i;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, joint ? 12 : 13, name) < 0) return NULL;
    if ((i = syn_args(args, joint, name, 1, &y)) < 0) return NULL;
    if (!(scr = farr(args[i], 1, "scratch", y.nscr, NULL))
        || !(iscr = iarr(args[i + 1], 1, "iscratch", y.niscr, NULL))
        || !(M = farr(args[i + 2], 1, "M", y.n * y.n, NULL))
        || !(Q = farr(args[i + 3], 1, "Q", y.n, NULL))
        || !(qdd = farr(args[i + 4], 1, "qdd", y.n, NULL)))
        return NULL;
    s = joint ? rtmbs_synj_evaluate(&y.sj, y.t, y.q, y.qd, y.warm[0], y.iters, scr, iscr, M, Q, qdd)
              : rtmbs_sync_evaluate(&y.sc, y.t, y.q, y.qd, y.warm[0], y.warm[1], y.iters, scr, iscr,
                                    M, Q, qdd);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    Py_RETURN_NONE;
}

RTMBS_PY_FORM(py_synthesis_joint_evaluate, syn_evaluate, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_evaluate, syn_evaluate, 0)

/* synthesis_joint_workspace(ints, par, t, q, qd, qt, iters, eps, what, scratch, iscratch, work,
 * ws), synthesis_cartesian_workspace(ints, par, t, q, qd, rw, Aw, iters, eps, what, scratch,
 * iscratch, work, ws): the protocol workspace (m = 0) of formulation B or A */
static PyObject* syn_workspace(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_workspace" : "synthesis_cartesian_workspace";
    syn_call y;
    double eps, *scr, *work, *ws;
    int64_t* iscr;
    Py_ssize_t i;
    int what;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, joint ? 13 : 14, name) < 0) return NULL;
    if ((i = syn_args(args, joint, name, 1, &y)) < 0) return NULL;
    eps = PyFloat_AsDouble(args[i]);
    what = (int)PyLong_AsLong(args[i + 1]);
    if (PyErr_Occurred()) return NULL;
    if (!(eps > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "eps: the difference step must be positive");
        return NULL;
    }
    if (!(scr = farr(args[i + 2], 1, "scratch", y.nscr, NULL))
        || !(iscr = iarr(args[i + 3], 1, "iscratch", y.niscr, NULL))
        || !(work = farr(args[i + 4], 1, "work", rtmbs_syn_workspace_work(y.n), NULL))
        || !(ws = farr(args[i + 5], 1, "ws", 3 * y.n * y.n + y.n, NULL)))
        return NULL;
    s = joint ? rtmbs_synj_workspace(&y.sj, y.t, y.q, y.qd, y.warm[0], y.iters, eps, what, scr,
                                     iscr, work, ws)
              : rtmbs_sync_workspace(&y.sc, y.t, y.q, y.qd, y.warm[0], y.warm[1], y.iters, eps,
                                     what, scr, iscr, work, ws);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    Py_RETURN_NONE;
}

RTMBS_PY_FORM(py_synthesis_joint_workspace, syn_workspace, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_workspace, syn_workspace, 0)

/* expr_eval(t, ops, args, adr, n) -> (value, first, second time derivative) of an expression
 * program (rtmbs.model.expression), for the offline numpy paths of the providers */
static PyObject* py_expr_eval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *ops, *a;
    Py_ssize_t no, na;
    int64_t adr, n;
    double t, v, v1, v2;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "expr_eval") < 0 || rtmbs_py_scalars(args, "d", &t) < 0 ||
        rtmbs_py_scalars(args + 3, "LL", &adr, &n) < 0)
        return NULL;
    if (!(ops = farr(args[1], 0, "ops", 0, &no)) || !(a = farr(args[2], 0, "args", 0, &na))) return NULL;
    if (adr < 0 || n < 0 || adr + n > no || adr + n > na) {
        PyErr_Format(PyExc_ValueError, "expr_eval: program %lld..%lld outside ops (%zd) or args (%zd)",
                     (long long)adr, (long long)(adr + n), no, na);
        return NULL;
    }
    rtmbs_expr_eval(t, ops, a, adr, n, &v, &v1, &v2);
    return Py_BuildValue("(ddd)", v, v1, v2);
}

#define FASTCALL(name, doc) RTMBS_PY_FASTCALL(#name, py_##name, doc)

PyMethodDef rtmbs_py_providers_methods[] = {
    FASTCALL(truck_evaluate, "The nonlinear planar truck into a protocol workspace (truck.h)."),
    FASTCALL(truck_linear_evaluate, "The linearised planar truck into a protocol workspace."),
    FASTCALL(truck_deflections, "Spring deflections of the truck's elements (for its energy)."),
    FASTCALL(truck_road, "The truck's road height and slope at a road coordinate."),
    FASTCALL(synthesis_joint_sizes, "(n, scratch, iscratch) of a formulation-B model."),
    FASTCALL(synthesis_joint_evaluate, "Formulation B: M, Q and the synthesis accelerations."),
    FASTCALL(synthesis_cartesian_sizes, "(n, scratch, iscratch) of a formulation-A model."),
    FASTCALL(synthesis_cartesian_evaluate, "Formulation A: M, Q and the synthesis accelerations."),
    FASTCALL(synthesis_joint_workspace, "Formulation B: the protocol workspace, FD Jacobians."),
    FASTCALL(synthesis_cartesian_workspace, "Formulation A: the protocol workspace, FD Jacobians."),
    FASTCALL(expr_eval, "Value and two time derivatives of an expression program."),
    {NULL, NULL, 0, NULL}};
