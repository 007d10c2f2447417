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

/* an int64 array of at least `want` entries, its length into *len */
static int64_t* iarr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                     Py_ssize_t* len) {
    Py_ssize_t l;
    int64_t* p = (int64_t*)rtmbs_py_array(obj, NPY_INT64, writable, what, &l);
    if (!p) return NULL;
    if (l < want) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, expected at least %zd", what, l, want);
        return NULL;
    }
    if (len) *len = l;
    return p;
}

/* formulation B's model from (ints, par) at args[0..1]; 0 or -1 with an exception */
static int synj_model(PyObject* const* args, rtmbs_synj* sj, const char* name) {
    const int64_t* ints;
    const double* par;
    Py_ssize_t ni, np_;
    rtmbs_status s;
    if (!(ints = iarr(args[0], 0, "ints", 1, &ni))) return -1;
    if (!(par = farr(args[1], 0, "par", 1, &np_))) return -1;
    if ((s = rtmbs_synj_bind(sj, ints, ni, par, np_)) != RTMBS_OK) {
        rtmbs_py_status(s, name);
        return -1;
    }
    return 0;
}

/* synthesis_joint_sizes(ints, par) -> (n, scratch, iscratch) */
static PyObject* py_synthesis_joint_sizes(PyObject* self, PyObject* const* args,
                                          Py_ssize_t nargs) {
    rtmbs_synj sj;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "synthesis_joint_sizes") < 0) return NULL;
    if (synj_model(args, &sj, "synthesis_joint_sizes: model") < 0) return NULL;
    return Py_BuildValue("(LLL)", (long long)sj.n, (long long)rtmbs_synj_scratch(&sj),
                         (long long)rtmbs_synj_iscratch(&sj));
}

/* synthesis_joint_evaluate(ints, par, t, q, qd, qt, iters, scratch, iscratch, M, Q, qdd) */
static PyObject* py_synthesis_joint_evaluate(PyObject* self, PyObject* const* args,
                                             Py_ssize_t nargs) {
    rtmbs_synj sj;
    const double *q, *qd;
    double t, *qt, *scr, *M, *Q, *qdd;
    int64_t* iscr;
    long long iters;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 12, "synthesis_joint_evaluate") < 0) return NULL;
    if (synj_model(args, &sj, "synthesis_joint_evaluate: model") < 0) return NULL;
    t = PyFloat_AsDouble(args[2]);
    iters = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = farr(args[3], 0, "q", sj.n, NULL)) || !(qd = farr(args[4], 0, "qd", sj.n, NULL))
        || !(qt = farr(args[5], 1, "qt", sj.ns * sj.nq, NULL))
        || !(scr = farr(args[7], 1, "scratch", rtmbs_synj_scratch(&sj), NULL))
        || !(iscr = iarr(args[8], 1, "iscratch", rtmbs_synj_iscratch(&sj), NULL))
        || !(M = farr(args[9], 1, "M", sj.n * sj.n, NULL))
        || !(Q = farr(args[10], 1, "Q", sj.n, NULL)) || !(qdd = farr(args[11], 1, "qdd", sj.n, NULL)))
        return NULL;
    s = rtmbs_synj_evaluate(&sj, t, q, qd, qt, (int64_t)iters, scr, iscr, M, Q, qdd);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "synthesis_joint_evaluate");
    Py_RETURN_NONE;
}

/* formulation A's model from (ints, par) at args[0..1]; 0 or -1 with an exception */
static int sync_model(PyObject* const* args, rtmbs_sync* sc, const char* name) {
    const int64_t* ints;
    const double* par;
    Py_ssize_t ni, np_;
    rtmbs_status s;
    if (!(ints = iarr(args[0], 0, "ints", 1, &ni))) return -1;
    if (!(par = farr(args[1], 0, "par", 1, &np_))) return -1;
    if ((s = rtmbs_sync_bind(sc, ints, ni, par, np_)) != RTMBS_OK) {
        rtmbs_py_status(s, name);
        return -1;
    }
    return 0;
}

/* synthesis_cartesian_sizes(ints, par) -> (n, scratch, iscratch) */
static PyObject* py_synthesis_cartesian_sizes(PyObject* self, PyObject* const* args,
                                              Py_ssize_t nargs) {
    rtmbs_sync sc;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "synthesis_cartesian_sizes") < 0) return NULL;
    if (sync_model(args, &sc, "synthesis_cartesian_sizes: model") < 0) return NULL;
    return Py_BuildValue("(LLL)", (long long)sc.n, (long long)rtmbs_sync_scratch(&sc),
                         (long long)rtmbs_sync_iscratch(&sc));
}

/* synthesis_cartesian_evaluate(ints, par, t, q, qd, rw, Aw, iters, scratch, iscratch, M, Q, qdd) */
static PyObject* py_synthesis_cartesian_evaluate(PyObject* self, PyObject* const* args,
                                                 Py_ssize_t nargs) {
    rtmbs_sync sc;
    const double *q, *qd;
    double t, *rw, *Aw, *scr, *M, *Q, *qdd;
    int64_t* iscr;
    long long iters;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 13, "synthesis_cartesian_evaluate") < 0) return NULL;
    if (sync_model(args, &sc, "synthesis_cartesian_evaluate: model") < 0) return NULL;
    t = PyFloat_AsDouble(args[2]);
    iters = PyLong_AsLongLong(args[7]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = farr(args[3], 0, "q", sc.n, NULL)) || !(qd = farr(args[4], 0, "qd", sc.n, NULL))
        || !(rw = farr(args[5], 1, "rw", 3 * sc.nb, NULL))
        || !(Aw = farr(args[6], 1, "Aw", 9 * sc.nb, NULL))
        || !(scr = farr(args[8], 1, "scratch", rtmbs_sync_scratch(&sc), NULL))
        || !(iscr = iarr(args[9], 1, "iscratch", rtmbs_sync_iscratch(&sc), NULL))
        || !(M = farr(args[10], 1, "M", sc.n * sc.n, NULL))
        || !(Q = farr(args[11], 1, "Q", sc.n, NULL)) || !(qdd = farr(args[12], 1, "qdd", sc.n, NULL)))
        return NULL;
    s = rtmbs_sync_evaluate(&sc, t, q, qd, rw, Aw, (int64_t)iters, scr, iscr, M, Q, qdd);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "synthesis_cartesian_evaluate");
    Py_RETURN_NONE;
}

/* the (eps, what, scratch, iscratch, work, ws) of a synthesis workspace call from args[i0] */
static int syn_ws_args(PyObject* const* args, Py_ssize_t i0, int64_t n, int64_t nscr,
                       int64_t niscr, double* eps, int* what, double** scr, int64_t** iscr,
                       double** work, double** ws) {
    *eps = PyFloat_AsDouble(args[i0]);
    *what = (int)PyLong_AsLong(args[i0 + 1]);
    if (PyErr_Occurred()) return -1;
    if (!(*eps > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "eps: the difference step must be positive");
        return -1;
    }
    if (!(*scr = farr(args[i0 + 2], 1, "scratch", nscr, NULL))
        || !(*iscr = iarr(args[i0 + 3], 1, "iscratch", niscr, NULL))
        || !(*work = farr(args[i0 + 4], 1, "work", rtmbs_syn_workspace_work(n), NULL))
        || !(*ws = farr(args[i0 + 5], 1, "ws", 3 * n * n + n, NULL)))
        return -1;
    return 0;
}

/* synthesis_joint_workspace(ints, par, t, q, qd, qt, iters, eps, what, scratch, iscratch, work,
 * ws): the protocol workspace (m = 0) of formulation B */
static PyObject* py_synthesis_joint_workspace(PyObject* self, PyObject* const* args,
                                              Py_ssize_t nargs) {
    rtmbs_synj sj;
    const double *q, *qd;
    double t, eps, *qt, *scr, *work, *ws;
    int64_t* iscr;
    long long iters;
    int what;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 13, "synthesis_joint_workspace") < 0) return NULL;
    if (synj_model(args, &sj, "synthesis_joint_workspace: model") < 0) return NULL;
    t = PyFloat_AsDouble(args[2]);
    iters = PyLong_AsLongLong(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = farr(args[3], 0, "q", sj.n, NULL)) || !(qd = farr(args[4], 0, "qd", sj.n, NULL))
        || !(qt = farr(args[5], 1, "qt", sj.ns * sj.nq, NULL)))
        return NULL;
    if (syn_ws_args(args, 7, sj.n, rtmbs_synj_scratch(&sj), rtmbs_synj_iscratch(&sj), &eps, &what,
                    &scr, &iscr, &work, &ws) < 0)
        return NULL;
    s = rtmbs_synj_workspace(&sj, t, q, qd, qt, (int64_t)iters, eps, what, scr, iscr, work, ws);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "synthesis_joint_workspace");
    Py_RETURN_NONE;
}

/* synthesis_cartesian_workspace(ints, par, t, q, qd, rw, Aw, iters, eps, what, scratch,
 * iscratch, work, ws): the protocol workspace (m = 0) of formulation A */
static PyObject* py_synthesis_cartesian_workspace(PyObject* self, PyObject* const* args,
                                                  Py_ssize_t nargs) {
    rtmbs_sync sc;
    const double *q, *qd;
    double t, eps, *rw, *Aw, *scr, *work, *ws;
    int64_t* iscr;
    long long iters;
    int what;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 14, "synthesis_cartesian_workspace") < 0) return NULL;
    if (sync_model(args, &sc, "synthesis_cartesian_workspace: model") < 0) return NULL;
    t = PyFloat_AsDouble(args[2]);
    iters = PyLong_AsLongLong(args[7]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = farr(args[3], 0, "q", sc.n, NULL)) || !(qd = farr(args[4], 0, "qd", sc.n, NULL))
        || !(rw = farr(args[5], 1, "rw", 3 * sc.nb, NULL))
        || !(Aw = farr(args[6], 1, "Aw", 9 * sc.nb, NULL)))
        return NULL;
    if (syn_ws_args(args, 8, sc.n, rtmbs_sync_scratch(&sc), rtmbs_sync_iscratch(&sc), &eps, &what,
                    &scr, &iscr, &work, &ws) < 0)
        return NULL;
    s = rtmbs_sync_workspace(&sc, t, q, qd, rw, Aw, (int64_t)iters, eps, what, scr, iscr, work, ws);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "synthesis_cartesian_workspace");
    Py_RETURN_NONE;
}

/* expr_eval(t, ops, args, adr, n) -> (value, first, second time derivative) of an expression
 * program (rtmbs.model.expression), for the offline numpy paths of the providers */
static PyObject* py_expr_eval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *ops, *a;
    Py_ssize_t no, na;
    long long adr, n;
    double t, v, v1, v2;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "expr_eval") < 0) return NULL;
    t = PyFloat_AsDouble(args[0]);
    adr = PyLong_AsLongLong(args[3]);
    n = PyLong_AsLongLong(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (!(ops = farr(args[1], 0, "ops", 0, &no)) || !(a = farr(args[2], 0, "args", 0, &na))) return NULL;
    if (adr < 0 || n < 0 || adr + n > no || adr + n > na) {
        PyErr_Format(PyExc_ValueError, "expr_eval: program %lld..%lld outside ops (%zd) or args (%zd)",
                     adr, adr + n, no, na);
        return NULL;
    }
    rtmbs_expr_eval(t, ops, a, (int64_t)adr, (int64_t)n, &v, &v1, &v2);
    return Py_BuildValue("(ddd)", v, v1, v2);
}

#define FASTCALL(name, doc) {#name, (PyCFunction)(void (*)(void))py_##name, METH_FASTCALL, doc}

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
