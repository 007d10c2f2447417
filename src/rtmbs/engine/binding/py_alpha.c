/* py_alpha.c -- binding: the generalized-alpha step, its outputs form and its rollout
 * (rtmbs.solvers.generalized_alpha). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../generalized_alpha.h"

static int kkt_arg(PyObject* ib, PyObject* fb, PyObject* idx, rtmbs_kkt* k) {
    if (!(k->ib = rtmbs_py_array(ib, NPY_UINT32, 0, "kkt ib", NULL))) return -1;
    if (!(k->fb = rtmbs_py_array(fb, NPY_DOUBLE, 1, "kkt fb", NULL))) return -1;
    if (!(k->idx = rtmbs_py_array(idx, NPY_UINT32, 0, "kkt idx", NULL))) return -1;
    return 0;
}

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, pib, pfb,
 * pidx, midx, vec, q, qd, m) at args[0..18]. Returns 0 or -1 with an exception. */
typedef struct {
    rtmbs_model model;
    rtmbs_data data;
    rtmbs_kkt kkt, pkkt;
    const uint32_t* midx;
    double *w0, *w1, *vec, *q, *qd;
} alpha_args;

static int common_args(PyObject* const* args, alpha_args* a) {
    Py_ssize_t n, nqd, nw0, nw1, nvec, nmidx;
    int64_t m;
    rtmbs_packed_offsets o;
    if (!(a->q = rtmbs_py_array(args[16], NPY_DOUBLE, 1, "q", &n))) return -1;
    if (!(a->qd = rtmbs_py_array(args[17], NPY_DOUBLE, 1, "qd", &nqd))) return -1;
    m = PyLong_AsLongLong(args[18]);
    if (PyErr_Occurred()) return -1;
    if (nqd != n) {
        PyErr_SetString(PyExc_ValueError, "q and qd differ in length");
        return -1;
    }
    if (rtmbs_py_bind(args, n, m, &a->model, &a->data) < 0) return -1;
    if (!(a->w0 = rtmbs_py_array(args[6], NPY_DOUBLE, 1, "w0", &nw0))) return -1;
    if (!(a->w1 = rtmbs_py_array(args[7], NPY_DOUBLE, 1, "w1", &nw1))) return -1;
    if (kkt_arg(args[8], args[9], args[10], &a->kkt) < 0) return -1;
    if (kkt_arg(args[11], args[12], args[13], &a->pkkt) < 0) return -1;
    if (!(a->midx = rtmbs_py_array(args[14], NPY_UINT32, 0, "midx", &nmidx))) return -1;
    if (!(a->vec = rtmbs_py_array(args[15], NPY_DOUBLE, 1, "vec", &nvec))) return -1;
    rtmbs_packed_workspace(&a->model.size, &o);
    if (nw0 < o.size || nw1 < o.size || nvec < RTMBS_ALPHA_VEC(n, m) || nmidx < 4) {
        PyErr_SetString(PyExc_ValueError,
                        "generalized-alpha: a workspace, midx or vec is too short for the model");
        return -1;
    }
    return 0;
}

static int options_args(PyObject* const* args, rtmbs_alpha_options* o) {
    /* h, am, af, g, b, jac_what, niter, stab */
    o->h = PyFloat_AsDouble(args[0]);
    o->am = PyFloat_AsDouble(args[1]);
    o->af = PyFloat_AsDouble(args[2]);
    o->g = PyFloat_AsDouble(args[3]);
    o->b = PyFloat_AsDouble(args[4]);
    o->jac_what = PyLong_AsLongLong(args[5]);
    o->niter = PyLong_AsLongLong(args[6]);
    o->stab = (int)PyLong_AsLong(args[7]);
    if (PyErr_Occurred()) return -1;
    if (o->stab < RTMBS_ALPHA_STAB_NONE || o->stab > RTMBS_ALPHA_STAB_PROJECTION) {
        PyErr_SetString(PyExc_ValueError, "generalized-alpha: stab is 0, 1 or 2");
        return -1;
    }
    return 0;
}

static PyObject* result(const double diag[4], int finite) {
    return Py_BuildValue("(ddddN)", diag[0], diag[1], diag[2], diag[3], PyBool_FromLong(finite));
}

/* generalized_alpha_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
 *     pidx, midx, vec, q, qd, m, t, h, am, af, g, b, jac_what, niter, stab)
 * -> (ratio, growth, ratio2, growth2, q and qd finite) */
static PyObject* py_alpha_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    alpha_args a;
    rtmbs_alpha_options opt;
    double t, diag[4];
    int finite = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 28, "generalized_alpha_step") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[19]);
    if (PyErr_Occurred() || options_args(args + 20, &opt) < 0) return NULL;
    s = rtmbs_alpha_step(&a.model, &a.data, a.w0, &a.kkt, &a.pkkt, a.midx, a.vec, a.q, a.qd, t,
                         &opt, diag, &finite);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "generalized_alpha_step");
    return result(diag, finite);
}

/* generalized_alpha_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx,
 *     pib, pfb, pidx, midx, vec, q, qd, m, t, h, am, af, g, b, jac_what, niter, stab, oidx, out,
 *     at_start) -> (ratio, growth, ratio2, growth2, q and qd finite) */
static PyObject* py_alpha_step_outputs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    alpha_args a;
    rtmbs_alpha_options opt;
    const int64_t* oidx;
    double* out;
    Py_ssize_t nout, nout_buf;
    double t, diag[4];
    int finite = 0, at_start;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 31, "generalized_alpha_step_outputs") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t = PyFloat_AsDouble(args[19]);
    if (PyErr_Occurred() || options_args(args + 20, &opt) < 0) return NULL;
    if (!(oidx = rtmbs_py_array(args[28], NPY_INT64, 0, "oidx", &nout))) return NULL;
    if (!(out = rtmbs_py_array(args[29], NPY_DOUBLE, 1, "out", &nout_buf))) return NULL;
    if ((at_start = PyObject_IsTrue(args[30])) < 0) return NULL;
    if (nout_buf < nout) {
        PyErr_SetString(PyExc_ValueError, "out shorter than oidx");
        return NULL;
    }
    s = rtmbs_alpha_step_outputs(&a.model, &a.data, a.w0, a.w1, &a.kkt, &a.pkkt, a.midx, a.vec,
                                 a.q, a.qd, t, &opt, oidx, nout, out, at_start, diag, &finite);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "generalized_alpha_step_outputs");
    return result(diag, finite);
}

/* generalized_alpha_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
 *     pidx, midx, vec, q, qd, m, t_origin, i0, h, am, af, g, b, jac_what, niter, stab, n_steps,
 *     every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x,
 *     q_good, qd_good, x_good, diag) -> the number of good steps */
static PyObject* py_alpha_rollout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    alpha_args a;
    rtmbs_alpha_options opt;
    rtmbs_py_rollout r;
    double* diag;
    Py_ssize_t ndiag;
    int64_t i0, done = 0;
    double t_origin;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 45, "generalized_alpha_rollout") < 0) return NULL;
    if (common_args(args, &a) < 0) return NULL;
    t_origin = PyFloat_AsDouble(args[19]);
    i0 = PyLong_AsLongLong(args[20]);
    if (PyErr_Occurred() || options_args(args + 21, &opt) < 0) return NULL;
    if (rtmbs_py_rollout_args(args + 29, &a.model, "generalized_alpha_rollout", &r) < 0)
        return NULL;
    if (!(diag = rtmbs_py_array(args[44], NPY_DOUBLE, 1, "diag", &ndiag))) return NULL;
    if (ndiag < 4) {
        PyErr_SetString(PyExc_ValueError, "generalized_alpha_rollout: diag too short");
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_alpha_rollout(&a.model, &a.data, a.w0, a.w1, &a.kkt, &a.pkkt, a.midx, a.vec, a.q,
                            a.qd, t_origin, i0, &opt, r.n_steps, r.every, r.chan, r.nchan,
                            r.inputs, r.oidx, r.nout, &r.rows, r.q_good, r.qd_good, r.x_good,
                            diag, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, "generalized_alpha_rollout");
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_alpha_methods[] = {
    {"generalized_alpha_step", (PyCFunction)(void (*)(void))py_alpha_step, METH_FASTCALL,
     "One generalized-alpha step (rtmbs.solvers.compiled_alpha.generalized_alpha_step's "
     "arguments)."},
    {"generalized_alpha_step_outputs", (PyCFunction)(void (*)(void))py_alpha_step_outputs,
     METH_FASTCALL,
     "One generalized-alpha step and the named outputs (generalized_alpha_step_outputs's "
     "arguments)."},
    {"generalized_alpha_rollout", (PyCFunction)(void (*)(void))py_alpha_rollout, METH_FASTCALL,
     "Many generalized-alpha steps (compiled_alpha._generalized_alpha_rollout's arguments)."},
    {NULL, NULL, 0, NULL}};
