/* py_ode.c -- binding: the kernels of the fixed-step ODE integrators (m = 0):
 * rtmbs.solvers.rosenbrock, rtmbs.solvers.adams and their dense LU (rtmbs.solvers.dense). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../adams.h"
#include "../dense_lu.h"
#include "../rosenbrock.h"
#include "../stages.h"

/* an array of dtype `type` holding at least `want` entries; NULL with an exception otherwise */
static void* arr(PyObject* obj, int type, int writable, const char* what, Py_ssize_t want,
                 Py_ssize_t* len) {
    return rtmbs_py_array_min(obj, type, writable, what, want, len);
}

/* n of a square (n x n) array of nn entries, -1 with an exception when nn is not a square */
static int64_t square_side(Py_ssize_t nn, const char* what) {
    int64_t n = 0;
    while (n * n < nn) n++;
    if (n * n != nn) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, not a square matrix", what, nn);
        return -1;
    }
    return n;
}

/* dense_lu_factor(a, piv) -> pivot ratio */
static PyObject* py_dense_lu_factor(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double* a;
    int64_t* piv;
    Py_ssize_t nn;
    int64_t n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "dense_lu_factor") < 0) return NULL;
    if (!(a = arr(args[0], NPY_DOUBLE, 1, "a", 0, &nn))) return NULL;
    if ((n = square_side(nn, "a")) < 0) return NULL;
    if (!(piv = arr(args[1], NPY_INT64, 1, "piv", n, NULL))) return NULL;
    return PyFloat_FromDouble(rtmbs_dense_lu_factor(a, piv, n));
}

/* dense_lu_solve(lu, piv, b) */
static PyObject* py_dense_lu_solve(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* lu;
    const int64_t* piv;
    double* b;
    Py_ssize_t n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 3, "dense_lu_solve") < 0) return NULL;
    if (!(b = arr(args[2], NPY_DOUBLE, 1, "b", 0, &n))) return NULL;
    if (!(lu = arr(args[0], NPY_DOUBLE, 0, "lu", n * n, NULL))) return NULL;
    if (!(piv = arr(args[1], NPY_INT64, 0, "piv", n, NULL))) return NULL;
    rtmbs_dense_lu_solve(lu, piv, b, n);
    Py_RETURN_NONE;
}

/* grk_factor(h, M, Jq, Jqd, LU, piv) -> True, or False when singular */
static PyObject* py_grk_factor(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *M, *Jq, *Jqd;
    double *LU, h;
    int64_t* piv;
    Py_ssize_t nn;
    int64_t n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "grk_factor") < 0) return NULL;
    h = PyFloat_AsDouble(args[0]);
    if (PyErr_Occurred()) return NULL;
    if (!(M = arr(args[1], NPY_DOUBLE, 0, "M", 0, &nn))) return NULL;
    if ((n = square_side(nn, "M")) < 0) return NULL;
    if (!(Jq = arr(args[2], NPY_DOUBLE, 0, "Jq", nn, NULL))) return NULL;
    if (!(Jqd = arr(args[3], NPY_DOUBLE, 0, "Jqd", nn, NULL))) return NULL;
    if (!(LU = arr(args[4], NPY_DOUBLE, 1, "LU", nn, NULL))) return NULL;
    if (!(piv = arr(args[5], NPY_INT64, 1, "piv", n, NULL))) return NULL;
    return PyBool_FromLong(rtmbs_grk_factor(h, M, Jq, Jqd, LU, piv, n));
}

/* grk_stage(i, h, M, LU, piv, Jq, Qs, Qt, U, q, v, vin, qs, vs, rq, rv) */
static PyObject* py_grk_stage(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *M, *LU, *Jq, *Qs, *Qt, *vin;
    const int64_t* piv;
    double *U, *q, *v, *qs, *vs, *rq, *rv, h;
    Py_ssize_t n;
    int64_t i;
    (void)self;
    if (rtmbs_py_nargs(nargs, 16, "grk_stage") < 0) return NULL;
    i = PyLong_AsLongLong(args[0]);
    h = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred()) return NULL;
    if (i < 0 || i > 3) {
        PyErr_SetString(PyExc_ValueError, "grk_stage: the stage is 0, 1, 2 or 3");
        return NULL;
    }
    if (!(q = arr(args[9], NPY_DOUBLE, 1, "q", 0, &n))) return NULL;
    if (!(M = arr(args[2], NPY_DOUBLE, 0, "M", n * n, NULL))) return NULL;
    if (!(LU = arr(args[3], NPY_DOUBLE, 0, "LU", n * n, NULL))) return NULL;
    if (!(piv = arr(args[4], NPY_INT64, 0, "piv", n, NULL))) return NULL;
    if (!(Jq = arr(args[5], NPY_DOUBLE, 0, "Jq", n * n, NULL))) return NULL;
    if (!(Qs = arr(args[6], NPY_DOUBLE, 0, "Qs", n, NULL))) return NULL;
    if (!(Qt = arr(args[7], NPY_DOUBLE, 0, "Qt", n, NULL))) return NULL;
    if (!(U = arr(args[8], NPY_DOUBLE, 1, "U", 8 * n, NULL))) return NULL;
    if (!(v = arr(args[10], NPY_DOUBLE, 1, "v", n, NULL))) return NULL;
    if (!(vin = arr(args[11], NPY_DOUBLE, 0, "vin", n, NULL))) return NULL;
    if (!(qs = arr(args[12], NPY_DOUBLE, 1, "qs", n, NULL))) return NULL;
    if (!(vs = arr(args[13], NPY_DOUBLE, 1, "vs", n, NULL))) return NULL;
    if (!(rq = arr(args[14], NPY_DOUBLE, 1, "rq", n, NULL))) return NULL;
    if (!(rv = arr(args[15], NPY_DOUBLE, 1, "rv", n, NULL))) return NULL;
    rtmbs_grk_stage(i, h, M, LU, piv, Jq, Qs, Qt, U, q, v, vin, qs, vs, rq, rv, n);
    Py_RETURN_NONE;
}

/* grk_mass_scale(Mn, Ms, LUm, pivm, Qs, tmp) -> True, or False when M(q_s) is singular */
static PyObject* py_grk_mass_scale(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *Mn, *Ms;
    double *LUm, *Qs, *tmp;
    int64_t* pivm;
    Py_ssize_t n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "grk_mass_scale") < 0) return NULL;
    if (!(Qs = arr(args[4], NPY_DOUBLE, 1, "Qs", 0, &n))) return NULL;
    if (!(Mn = arr(args[0], NPY_DOUBLE, 0, "Mn", n * n, NULL))) return NULL;
    if (!(Ms = arr(args[1], NPY_DOUBLE, 0, "Ms", n * n, NULL))) return NULL;
    if (!(LUm = arr(args[2], NPY_DOUBLE, 1, "LUm", n * n, NULL))) return NULL;
    if (!(pivm = arr(args[3], NPY_INT64, 1, "pivm", n, NULL))) return NULL;
    if (!(tmp = arr(args[5], NPY_DOUBLE, 1, "tmp", n, NULL))) return NULL;
    return PyBool_FromLong(rtmbs_grk_mass_scale(Mn, Ms, LUm, pivm, Qs, tmp, n));
}

/* ab3_accel(M, LU, piv, factor, Q, out) -> pivot ratio (1.0 when not factored) */
static PyObject* py_ab3_accel(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *M, *Q;
    double *LU, *out;
    int64_t* piv;
    Py_ssize_t n;
    int factor;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "ab3_accel") < 0) return NULL;
    if ((factor = PyObject_IsTrue(args[3])) < 0) return NULL;
    if (!(Q = arr(args[4], NPY_DOUBLE, 0, "Q", 0, &n))) return NULL;
    if (!(M = arr(args[0], NPY_DOUBLE, 0, "M", n * n, NULL))) return NULL;
    if (!(LU = arr(args[1], NPY_DOUBLE, 1, "LU", n * n, NULL))) return NULL;
    if (!(piv = arr(args[2], NPY_INT64, 1, "piv", n, NULL))) return NULL;
    if (!(out = arr(args[5], NPY_DOUBLE, 1, "out", n, NULL))) return NULL;
    return PyFloat_FromDouble(rtmbs_ab3_accel(M, LU, piv, factor, Q, out, n));
}

/* ab3_update(h, F, k, q, v) */
static PyObject* py_ab3_update(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* F;
    double *q, *v, h;
    Py_ssize_t n;
    int64_t k;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "ab3_update") < 0) return NULL;
    h = PyFloat_AsDouble(args[0]);
    k = PyLong_AsLongLong(args[2]);
    if (PyErr_Occurred()) return NULL;
    if (k < 0) {
        PyErr_SetString(PyExc_ValueError, "ab3_update: k >= 0");
        return NULL;
    }
    if (!(q = arr(args[3], NPY_DOUBLE, 1, "q", 0, &n))) return NULL;
    if (!(F = arr(args[1], NPY_DOUBLE, 0, "F", 6 * n, NULL))) return NULL;
    if (!(v = arr(args[4], NPY_DOUBLE, 1, "v", n, NULL))) return NULL;
    rtmbs_ab3_update(h, F, k, q, v, n);
    Py_RETURN_NONE;
}

/* rk4_point(c, q, v, Kq, Kv, qs, vs) */
static PyObject* py_rk4_point(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *q, *v, *Kq, *Kv;
    double *qs, *vs, c;
    Py_ssize_t n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 7, "rk4_point") < 0) return NULL;
    c = PyFloat_AsDouble(args[0]);
    if (PyErr_Occurred()) return NULL;
    if (!(q = arr(args[1], NPY_DOUBLE, 0, "q", 0, &n))) return NULL;
    if (!(v = arr(args[2], NPY_DOUBLE, 0, "v", n, NULL))) return NULL;
    if (!(Kq = arr(args[3], NPY_DOUBLE, 0, "Kq", n, NULL))) return NULL;
    if (!(Kv = arr(args[4], NPY_DOUBLE, 0, "Kv", n, NULL))) return NULL;
    if (!(qs = arr(args[5], NPY_DOUBLE, 1, "qs", n, NULL))) return NULL;
    if (!(vs = arr(args[6], NPY_DOUBLE, 1, "vs", n, NULL))) return NULL;
    rtmbs_rk4_point(c, q, v, Kq, Kv, qs, vs, n);
    Py_RETURN_NONE;
}

/* grk4t_step(ibuf, ilay, fbuf, flay, sbuf, slay, ws, ws_t, ws_s, Mn, Jq, LU, piv, LUm, pivm, U,
 *            Qt, qs, vs, rq, rv, tmp, q, v, t, h, jac_what, freeze_jq, time_derivative,
 *            constant_mass) -> True, or False when A is singular: one GRK4T step on a compiled
 * Cartesian model with m = 0 (rosenbrock.GRK4T._step_impl; ws, ws_t, ws_s the flat buffers of
 * dense workspaces) */
static PyObject* py_grk4t_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_grk4t_work w;
    rtmbs_grk4t_options opt;
    double *q, *v, t;
    Py_ssize_t n, nw;
    int ok = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 30, "grk4t_step") < 0) return NULL;
    if (!(q = arr(args[22], NPY_DOUBLE, 1, "q", 0, &n))) return NULL;
    if (!(v = arr(args[23], NPY_DOUBLE, 1, "v", n, NULL))) return NULL;
    if (rtmbs_py_bind(args, n, 0, &model, &data) < 0) return NULL;
    nw = (Py_ssize_t)rtmbs_workspace_size(n, 0);
    if (!(w.ws = arr(args[6], NPY_DOUBLE, 1, "ws", nw, NULL))) return NULL;
    if (!(w.ws_t = arr(args[7], NPY_DOUBLE, 1, "ws_t", nw, NULL))) return NULL;
    if (!(w.ws_s = arr(args[8], NPY_DOUBLE, 1, "ws_s", nw, NULL))) return NULL;
    if (!(w.Mn = arr(args[9], NPY_DOUBLE, 1, "Mn", n * n, NULL))) return NULL;
    if (!(w.Jq = arr(args[10], NPY_DOUBLE, 1, "Jq", n * n, NULL))) return NULL;
    if (!(w.LU = arr(args[11], NPY_DOUBLE, 1, "LU", n * n, NULL))) return NULL;
    if (!(w.piv = arr(args[12], NPY_INT64, 1, "piv", n, NULL))) return NULL;
    if (!(w.LUm = arr(args[13], NPY_DOUBLE, 1, "LUm", n * n, NULL))) return NULL;
    if (!(w.pivm = arr(args[14], NPY_INT64, 1, "pivm", n, NULL))) return NULL;
    if (!(w.U = arr(args[15], NPY_DOUBLE, 1, "U", 8 * n, NULL))) return NULL;
    if (!(w.Qt = arr(args[16], NPY_DOUBLE, 1, "Qt", n, NULL))) return NULL;
    if (!(w.qs = arr(args[17], NPY_DOUBLE, 1, "qs", n, NULL))) return NULL;
    if (!(w.vs = arr(args[18], NPY_DOUBLE, 1, "vs", n, NULL))) return NULL;
    if (!(w.rq = arr(args[19], NPY_DOUBLE, 1, "rq", n, NULL))) return NULL;
    if (!(w.rv = arr(args[20], NPY_DOUBLE, 1, "rv", n, NULL))) return NULL;
    if (!(w.tmp = arr(args[21], NPY_DOUBLE, 1, "tmp", n, NULL))) return NULL;
    t = PyFloat_AsDouble(args[24]);
    opt.h = PyFloat_AsDouble(args[25]);
    opt.jac_what = PyLong_AsLongLong(args[26]);
    opt.freeze_jq = PyObject_IsTrue(args[27]);
    opt.time_derivative = PyObject_IsTrue(args[28]);
    opt.constant_mass = PyObject_IsTrue(args[29]);
    if (PyErr_Occurred() || opt.freeze_jq < 0 || opt.time_derivative < 0 || opt.constant_mass < 0)
        return NULL;
    s = rtmbs_grk4t_step(&model, &data, &w, q, v, t, &opt, &ok);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "grk4t_step");
    return PyBool_FromLong(ok);
}

/* ab3_step(ibuf, ilay, fbuf, flay, sbuf, slay, ws, LU, piv, F, K, qs, vs, q, v, t, h, k,
 *          constant_mass) -> True, or False when a factorisation of M failed: step k of AB3
 * (RK4 for k < 2) on a compiled Cartesian model with m = 0 (adams.AB3._step_impl) */
static PyObject* py_ab3_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_ab3_work w;
    double *q, *v, t, h;
    Py_ssize_t n;
    int64_t k;
    int ok = 0, constant_mass;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 19, "ab3_step") < 0) return NULL;
    if (!(q = arr(args[13], NPY_DOUBLE, 1, "q", 0, &n))) return NULL;
    if (!(v = arr(args[14], NPY_DOUBLE, 1, "v", n, NULL))) return NULL;
    if (rtmbs_py_bind(args, n, 0, &model, &data) < 0) return NULL;
    if (!(w.ws = arr(args[6], NPY_DOUBLE, 1, "ws", (Py_ssize_t)rtmbs_workspace_size(n, 0), NULL)))
        return NULL;
    if (!(w.LU = arr(args[7], NPY_DOUBLE, 1, "LU", n * n, NULL))) return NULL;
    if (!(w.piv = arr(args[8], NPY_INT64, 1, "piv", n, NULL))) return NULL;
    if (!(w.F = arr(args[9], NPY_DOUBLE, 1, "F", 6 * n, NULL))) return NULL;
    if (!(w.K = arr(args[10], NPY_DOUBLE, 1, "K", 8 * n, NULL))) return NULL;
    if (!(w.qs = arr(args[11], NPY_DOUBLE, 1, "qs", n, NULL))) return NULL;
    if (!(w.vs = arr(args[12], NPY_DOUBLE, 1, "vs", n, NULL))) return NULL;
    t = PyFloat_AsDouble(args[15]);
    h = PyFloat_AsDouble(args[16]);
    k = PyLong_AsLongLong(args[17]);
    if (PyErr_Occurred() || (constant_mass = PyObject_IsTrue(args[18])) < 0) return NULL;
    s = rtmbs_ab3_step(&model, &data, &w, q, v, t, h, k, constant_mass, &ok);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "ab3_step");
    return PyBool_FromLong(ok);
}

#define FASTCALL(name, doc) RTMBS_PY_FASTCALL(#name, py_##name, doc)

PyMethodDef rtmbs_py_ode_methods[] = {
    FASTCALL(dense_lu_factor, "LU with partial pivoting in place (rtmbs.solvers.linalg.lu_factor)."),
    FASTCALL(dense_lu_solve, "Solve with dense_lu_factor's factors (linalg.lu_solve)."),
    FASTCALL(grk_factor, "GRK4T's A factored (rtmbs.solvers.rosenbrock._grk_factor's arguments)."),
    FASTCALL(grk_stage, "One GRK4T stage (rosenbrock._grk_stage's arguments)."),
    FASTCALL(grk_mass_scale, "Qs <- M(q_n) M(q_s)^-1 Qs (rosenbrock._mass_scale's arguments)."),
    FASTCALL(grk4t_step, "One GRK4T step on a compiled Cartesian model with m = 0."),
    FASTCALL(ab3_step, "One AB3 step (RK4 for the first two) on a compiled Cartesian model, m = 0."),
    FASTCALL(ab3_accel, "M^-1 Q (rtmbs.solvers.adams._accel's arguments)."),
    FASTCALL(ab3_update, "The AB3 update (adams._ab3_update's arguments)."),
    FASTCALL(rk4_point, "An RK4 stage argument (adams._rk4_point's arguments)."),
    {NULL, NULL, 0, NULL}};
