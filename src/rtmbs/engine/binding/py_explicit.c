/* py_explicit.c -- binding: explicit Euler's step, its outputs form and its rollout
 * (rtmbs.solvers.explicit). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../explicit_euler.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 * m) at args[0..14]. */
typedef struct {
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_kkt kkt;
    double *w0, *w1, *vec, *q, *qd;
} explicit_args;

static int common_args(PyObject* const* args, explicit_args* a) {
    Py_ssize_t n, nqd, nw0, nw1, nvec;
    int64_t m;
    rtmbs_packed_offsets o;
    if (!(a->q = rtmbs_py_array(args[12], NPY_DOUBLE, 1, "q", &n))) return -1;
    if (!(a->qd = rtmbs_py_array(args[13], NPY_DOUBLE, 1, "qd", &nqd))) return -1;
    m = PyLong_AsLongLong(args[14]);
    if (PyErr_Occurred()) return -1;
    if (nqd != n) {
        PyErr_SetString(PyExc_ValueError, "q and qd differ in length");
        return -1;
    }
    if (rtmbs_py_bind(args, n, m, &a->model, &a->data) < 0) return -1;
    if (!(a->w0 = rtmbs_py_array(args[6], NPY_DOUBLE, 1, "w0", &nw0))) return -1;
    if (!(a->w1 = rtmbs_py_array(args[7], NPY_DOUBLE, 1, "w1", &nw1))) return -1;
    if (!(a->kkt.ib = rtmbs_py_array(args[8], NPY_UINT32, 0, "kkt ib", NULL))) return -1;
    if (!(a->kkt.fb = rtmbs_py_array(args[9], NPY_DOUBLE, 1, "kkt fb", NULL))) return -1;
    if (!(a->kkt.idx = rtmbs_py_array(args[10], NPY_UINT32, 0, "kkt idx", NULL))) return -1;
    if (!(a->vec = rtmbs_py_array(args[11], NPY_DOUBLE, 1, "vec", &nvec))) return -1;
    rtmbs_packed_workspace(&a->model.size, &o);
    if (nw0 < o.size || nw1 < o.size || nvec < RTMBS_EXPLICIT_EULER_VEC(n, m)) {
        PyErr_SetString(PyExc_ValueError,
                        "explicit-euler: a workspace or vec is too short for the model");
        return -1;
    }
    return 0;
}

/* h, stab, alpha, beta, semi */
static int options_args(PyObject* const* args, rtmbs_explicit_options* o) {
    o->h = PyFloat_AsDouble(args[0]);
    o->stab = (int)PyLong_AsLong(args[1]);
    o->alpha = PyFloat_AsDouble(args[2]);
    o->beta = PyFloat_AsDouble(args[3]);
    o->semi = PyObject_IsTrue(args[4]);
    if (PyErr_Occurred() || o->semi < 0) return -1;
    if (o->stab != RTMBS_STAB_NONE && o->stab != RTMBS_STAB_BAUMGARTE &&
        o->stab != RTMBS_STAB_PROJECT) {
        PyErr_SetString(PyExc_ValueError, "explicit-euler: stab is none (0), projection (1) or "
                                          "baumgarte (2)");
        return -1;
    }
    return 0;
}

/* explicit_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
 *                     t, h, stab, alpha, beta, semi, oidx0, out0) -> (ratio, growth) */
static PyObject* py_explicit_euler_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    explicit_args a;
    rtmbs_explicit_options opt;
    const int64_t* oidx0;
    double* out0;
    Py_ssize_t nout, nout_buf;
    double t, diag[2];
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 23, "explicit_euler_step") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[15]);
    if (PyErr_Occurred() || options_args(args + 16, &opt) < 0) return NULL;
    if (!(oidx0 = rtmbs_py_array(args[21], NPY_INT64, 0, "oidx0", &nout))) return NULL;
    if (!(out0 = rtmbs_py_array(args[22], NPY_DOUBLE, 1, "out0", &nout_buf))) return NULL;
    if (nout_buf < nout) {
        PyErr_SetString(PyExc_ValueError, "out0 shorter than oidx0");
        return NULL;
    }
    s = rtmbs_explicit_euler_step(&a.model, &a.data, a.w0, a.w1, &a.kkt, a.vec, a.q, a.qd, t, &opt,
                                  oidx0, nout, out0, diag);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "explicit_euler_step");
    return Py_BuildValue("(dd)", diag[0], diag[1]);
}

/* explicit_euler_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q,
 *     qd, m, t, h, stab, alpha, beta, semi, oidx, out, at_start) -> (ratio, growth): the step,
 * then the named outputs at (t + h, q+, qdot+) into out (none when the factorisation failed);
 * with at_start those at (t, q, qdot), from the step's own evaluation there */
static PyObject* py_explicit_euler_step_outputs(PyObject* self, PyObject* const* args,
                                                Py_ssize_t nargs) {
    explicit_args a;
    rtmbs_explicit_options opt;
    const int64_t* oidx;
    double* out;
    Py_ssize_t nout, nout_buf;
    double t, diag[2];
    int at_start;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 24, "explicit_euler_step_outputs") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[15]);
    if (PyErr_Occurred() || options_args(args + 16, &opt) < 0) return NULL;
    if (!(oidx = rtmbs_py_array(args[21], NPY_INT64, 0, "oidx", &nout))) return NULL;
    if (!(out = rtmbs_py_array(args[22], NPY_DOUBLE, 1, "out", &nout_buf))) return NULL;
    if ((at_start = PyObject_IsTrue(args[23])) < 0) return NULL;
    if (nout_buf < nout) {
        PyErr_SetString(PyExc_ValueError, "out shorter than oidx");
        return NULL;
    }
    s = rtmbs_explicit_euler_step(&a.model, &a.data, a.w0, a.w1, &a.kkt, a.vec, a.q, a.qd, t, &opt,
                                  oidx, at_start ? nout : 0, out, diag);
    if (s == RTMBS_OK && diag[0] > 0.0 && nout && !at_start)
        s = rtmbs_step_outputs(&a.model, &a.data, t + opt.h, a.q, a.qd, a.w1, oidx, nout, out);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "explicit_euler_step_outputs");
    return Py_BuildValue("(dd)", diag[0], diag[1]);
}

/* explicit_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 *     m, t_origin, i0, h, stab, alpha, beta, semi, n_steps, every, chan, inputs, oidx, out_t,
 *     out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good, qd_good, x_good)
 * -> the number of good steps */
static PyObject* py_explicit_euler_rollout(PyObject* self, PyObject* const* args,
                                           Py_ssize_t nargs) {
    explicit_args a;
    rtmbs_explicit_options opt;
    rtmbs_py_rollout r;
    int64_t i0, done = 0;
    double t_origin;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 37, "explicit_euler_rollout") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t_origin = PyFloat_AsDouble(args[15]);
    i0 = PyLong_AsLongLong(args[16]);
    if (PyErr_Occurred() || options_args(args + 17, &opt) < 0) return NULL;
    if (rtmbs_py_rollout_args(args + 22, &a.model, "explicit_euler_rollout", &r) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_explicit_euler_rollout(&a.model, &a.data, a.w0, a.w1, &a.kkt, a.vec, a.q, a.qd,
                                     t_origin, i0, &opt, r.n_steps, r.every, r.chan, r.nchan,
                                     r.inputs, r.oidx, r.nout, &r.rows, r.q_good, r.qd_good,
                                     r.x_good, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, "explicit_euler_rollout");
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_explicit_methods[] = {
    {"explicit_euler_step", (PyCFunction)(void (*)(void))py_explicit_euler_step, METH_FASTCALL,
     "One explicit-euler step (rtmbs.solvers.compiled_explicit.explicit_euler_step's arguments)."},
    {"explicit_euler_step_outputs", (PyCFunction)(void (*)(void))py_explicit_euler_step_outputs,
     METH_FASTCALL,
     "One explicit-euler step and the named outputs (explicit_euler_step_outputs's arguments)."},
    {"explicit_euler_rollout", (PyCFunction)(void (*)(void))py_explicit_euler_rollout,
     METH_FASTCALL,
     "Many explicit-euler steps (rtmbs.solvers.compiled_explicit._explicit_euler_rollout's "
     "arguments)."},
    {NULL, NULL, 0, NULL}};
