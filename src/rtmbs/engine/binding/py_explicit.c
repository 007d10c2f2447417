/* py_explicit.c -- binding: explicit Euler's step, its outputs form and its rollout
 * (rtmbs.solvers.explicit). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../explicit_euler.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 * m) at args[0..14]. */
typedef struct {
    rtmbs_py_step s;
    rtmbs_kkt kkt;
} explicit_args;

static int common_args(PyObject* const* args, explicit_args* a) {
    if (rtmbs_py_step_args(args, 11, 12, "explicit-euler", &a->s) < 0) return -1;
    if (rtmbs_py_kkt(args + 8, &a->kkt) < 0) return -1;
    return rtmbs_py_need(a->s.nvec, RTMBS_EXPLICIT_EULER_VEC(a->s.n, a->s.m), "explicit-euler",
                         "vec");
}

/* h, stab, alpha, beta, semi */
static int options_args(PyObject* const* args, rtmbs_explicit_options* o) {
    if (rtmbs_py_scalars(args, "diddb", &o->h, &o->stab, &o->alpha, &o->beta, &o->semi) < 0)
        return -1;
    return rtmbs_py_check(o->stab == RTMBS_STAB_NONE || o->stab == RTMBS_STAB_BAUMGARTE ||
                              o->stab == RTMBS_STAB_PROJECT,
                          "explicit-euler: stab is none (0), projection (1) or baumgarte (2)");
}

/* explicit_euler_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd, m,
 *                     t, h, stab, alpha, beta, semi, oidx0, out0) -> (ratio, growth);
 * explicit_euler_step_outputs(..., semi, oidx, out, at_start) -> the same: the step, then the
 * named outputs at (t + h, q+, qdot+) into out (none when the factorisation failed); with
 * at_start those at (t, q, qdot), from the step's own evaluation there */
static PyObject* step(PyObject* const* args, Py_ssize_t nargs, int outputs) {
    const char* name = outputs ? "explicit_euler_step_outputs" : "explicit_euler_step";
    explicit_args a;
    rtmbs_explicit_options opt;
    rtmbs_py_outputs o;
    double t, diag[2];
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, 23 + outputs, name) < 0 || common_args(args, &a) < 0 ||
        rtmbs_py_scalars(args + 15, "d", &t) < 0 || options_args(args + 16, &opt) < 0 ||
        rtmbs_py_outputs_args(args + 21, outputs, &o) < 0)
        return NULL;
    s = rtmbs_explicit_euler_step(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, a.s.vec, a.s.q,
                                  a.s.qd, t, &opt, o.oidx, o.at_start ? o.nout : 0, o.out, diag);
    s = rtmbs_py_outputs_end(s, diag[0] > 0.0, &a.s, t + opt.h, &o);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return Py_BuildValue("(dd)", diag[0], diag[1]);
}

RTMBS_PY_FORM(py_explicit_euler_step, step, 0)
RTMBS_PY_FORM(py_explicit_euler_step_outputs, step, 1)

/* explicit_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 *     m, t_origin, i0, h, stab, alpha, beta, semi, n_steps, every, chan, inputs, oidx, out_t,
 *     out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good, qd_good, x_good)
 * -> the number of good steps */
static PyObject* py_explicit_euler_rollout(PyObject* self, PyObject* const* args,
                                           Py_ssize_t nargs) {
    explicit_args a;
    rtmbs_explicit_options opt;
    rtmbs_rollout r;
    int64_t done = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 37, "explicit_euler_rollout") < 0 || common_args(args, &a) < 0 ||
        options_args(args + 17, &opt) < 0 ||
        rtmbs_py_rollout_args(args + 15, args + 22, &a.s.model, "explicit_euler_rollout", &r) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_explicit_euler_rollout(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, a.s.vec, a.s.q,
                                     a.s.qd, &opt, &r, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, "explicit_euler_rollout");
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_explicit_methods[] = {
    RTMBS_PY_FASTCALL("explicit_euler_step", py_explicit_euler_step,
                      "One explicit-euler step (rtmbs.solvers.compiled_explicit"
                      ".explicit_euler_step's arguments)."),
    RTMBS_PY_FASTCALL("explicit_euler_step_outputs", py_explicit_euler_step_outputs,
                      "One explicit-euler step and the named outputs "
                      "(explicit_euler_step_outputs's arguments)."),
    RTMBS_PY_FASTCALL("explicit_euler_rollout", py_explicit_euler_rollout,
                      "Many explicit-euler steps (rtmbs.solvers.compiled_explicit"
                      "._explicit_euler_rollout's arguments)."),
    {NULL, NULL, 0, NULL}};
