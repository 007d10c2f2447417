/* py_step.c -- binding: the li-euler step and its rollout (rtmbs.solvers.li_euler,
 * rtmbs.solvers.rollout). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../li_euler.h"

static int kkt_arg(PyObject* ib, PyObject* fb, PyObject* idx, rtmbs_kkt* k) {
    if (!(k->ib = rtmbs_py_array(ib, NPY_UINT32, 0, "kkt ib", NULL))) return -1;
    if (!(k->fb = rtmbs_py_array(fb, NPY_DOUBLE, 1, "kkt fb", NULL))) return -1;
    if (!(k->idx = rtmbs_py_array(idx, NPY_UINT32, 0, "kkt idx", NULL))) return -1;
    return 0;
}

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 * m) at args[0..14]. Returns 0 or -1 with an exception. */
typedef struct {
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_kkt kkt, kkt2;
    double *w0, *w1, *vec, *q, *qd;
} step_args;

static int common_args(PyObject* const* args, step_args* a) {
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
    if (kkt_arg(args[8], args[9], args[10], &a->kkt) < 0) return -1;
    if (!(a->vec = rtmbs_py_array(args[11], NPY_DOUBLE, 1, "vec", &nvec))) return -1;
    rtmbs_packed_workspace(&a->model.size, &o);
    if (nw0 < o.size || nw1 < o.size || nvec < RTMBS_LI_EULER_VEC(n, m)) {
        PyErr_SetString(PyExc_ValueError, "li-euler: a workspace or vec is too short for the model");
        return -1;
    }
    return 0;
}

static int options_args(PyObject* const* args, rtmbs_li_euler_options* o) {
    /* h, jac_what, implicit, stab, niter, gamma */
    o->h = PyFloat_AsDouble(args[0]);
    o->jac_what = PyLong_AsLongLong(args[1]);
    o->implicit = PyObject_IsTrue(args[2]);
    o->stab = (int)PyLong_AsLong(args[3]);
    o->niter = (int)PyLong_AsLong(args[4]);
    o->gamma = PyFloat_AsDouble(args[5]);
    return PyErr_Occurred() ? -1 : 0;
}

/* li_euler_stab_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
 *                    t, h, jac_what, implicit, stab, niter, gamma, pib, pfb, pidx, oidx0, out0)
 * -> (ratio, growth, ratio2, growth2) */
static PyObject* py_li_euler_stab_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    step_args a;
    rtmbs_li_euler_options opt;
    const int64_t* oidx0;
    double* out0;
    Py_ssize_t nout, nout_buf;
    double t, diag[4];
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 27, "li_euler_stab_step") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[15]);
    if (PyErr_Occurred() || options_args(args + 16, &opt) < 0) return NULL;
    if (kkt_arg(args[22], args[23], args[24], &a.kkt2) < 0) return NULL;
    if (!(oidx0 = rtmbs_py_array(args[25], NPY_INT64, 0, "oidx0", &nout))) return NULL;
    if (!(out0 = rtmbs_py_array(args[26], NPY_DOUBLE, 1, "out0", &nout_buf))) return NULL;
    if (nout_buf < nout) {
        PyErr_SetString(PyExc_ValueError, "out0 shorter than oidx0");
        return NULL;
    }
    s = rtmbs_li_euler_step(&a.model, &a.data, a.w0, a.w1, &a.kkt, &a.kkt2, a.vec, a.q, a.qd, t,
                            &opt, oidx0, nout, out0, diag);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "li_euler_stab_step");
    return Py_BuildValue("(dddd)", diag[0], diag[1], diag[2], diag[3]);
}

/* li_euler_stab_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q,
 *     qd, m, t, h, jac_what, implicit, stab, niter, gamma, pib, pfb, pidx, oidx, out, at_start)
 * -> (ratio, growth, ratio2, growth2): the step, then the named outputs at (t + h, q+, qdot+)
 * into out (none when a factorisation failed); with at_start those at (t, q, qdot) instead,
 * from the step's own evaluation there (rtmbs.solvers.compiled_step.li_euler_stab_step_outputs) */
static PyObject* py_li_euler_stab_step_outputs(PyObject* self, PyObject* const* args,
                                               Py_ssize_t nargs) {
    step_args a;
    rtmbs_li_euler_options opt;
    const int64_t* oidx;
    double* out;
    Py_ssize_t nout, nout_buf;
    double t, diag[4];
    int at_start;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 28, "li_euler_stab_step_outputs") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[15]);
    if (PyErr_Occurred() || options_args(args + 16, &opt) < 0) return NULL;
    if (kkt_arg(args[22], args[23], args[24], &a.kkt2) < 0) return NULL;
    if (!(oidx = rtmbs_py_array(args[25], NPY_INT64, 0, "oidx", &nout))) return NULL;
    if (!(out = rtmbs_py_array(args[26], NPY_DOUBLE, 1, "out", &nout_buf))) return NULL;
    if ((at_start = PyObject_IsTrue(args[27])) < 0) return NULL;
    if (nout_buf < nout) {
        PyErr_SetString(PyExc_ValueError, "out shorter than oidx");
        return NULL;
    }
    s = rtmbs_li_euler_step(&a.model, &a.data, a.w0, a.w1, &a.kkt, &a.kkt2, a.vec, a.q, a.qd, t,
                            &opt, oidx, at_start ? nout : 0, out, diag);
    if (s == RTMBS_OK && diag[0] > 0.0 && diag[2] > 0.0 && nout && !at_start)
        s = rtmbs_step_outputs(&a.model, &a.data, t + opt.h, a.q, a.qd, a.w1, oidx, nout, out);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "li_euler_stab_step_outputs");
    return Py_BuildValue("(dddd)", diag[0], diag[1], diag[2], diag[3]);
}

/* li_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
 *     t_origin, i0, h, jac_what, implicit, stab, niter, gamma, pib, pfb, pidx, n_steps, every,
 *     chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good,
 *     qd_good, x_good) -> the number of good steps */
static PyObject* py_li_euler_rollout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    step_args a;
    rtmbs_li_euler_options opt;
    rtmbs_py_rollout r;
    int64_t i0, done = 0;
    double t_origin;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 41, "li_euler_rollout") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t_origin = PyFloat_AsDouble(args[15]);
    i0 = PyLong_AsLongLong(args[16]);
    if (PyErr_Occurred() || options_args(args + 17, &opt) < 0) return NULL;
    if (kkt_arg(args[23], args[24], args[25], &a.kkt2) < 0) return NULL;
    if (rtmbs_py_rollout_args(args + 26, &a.model, "li_euler_rollout", &r) < 0) return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_li_euler_rollout(&a.model, &a.data, a.w0, a.w1, &a.kkt, &a.kkt2, a.vec, a.q, a.qd,
                               t_origin, i0, &opt, r.n_steps, r.every, r.chan, r.nchan, r.inputs,
                               r.oidx, r.nout, &r.rows, r.q_good, r.qd_good, r.x_good, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, "li_euler_rollout");
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_step_methods[] = {
    {"li_euler_stab_step", (PyCFunction)(void (*)(void))py_li_euler_stab_step, METH_FASTCALL,
     "One li-euler step (rtmbs.solvers.compiled_step.li_euler_stab_step's arguments)."},
    {"li_euler_stab_step_outputs", (PyCFunction)(void (*)(void))py_li_euler_stab_step_outputs,
     METH_FASTCALL, "One li-euler step and the named outputs (li_euler_stab_step_outputs's arguments)."},
    {"li_euler_rollout", (PyCFunction)(void (*)(void))py_li_euler_rollout, METH_FASTCALL,
     "Many li-euler steps (rtmbs.solvers.rollout._li_euler_rollout's arguments)."},
    {NULL, NULL, 0, NULL}};
