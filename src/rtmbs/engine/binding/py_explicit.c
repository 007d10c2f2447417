/* py_explicit.c -- binding: explicit Euler's step, its outputs form and its rollout
 * (rtmbs.solvers.explicit). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../explicit_euler.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 * m) at args[0..14]. */
typedef struct {
    rtmbs_py_step s; /* (first: a bound step rebinds s.q, s.qd) */
    rtmbs_kkt kkt;
    rtmbs_explicit_options opt;
    rtmbs_rows rows; /* the row map (opt.rows points here), or unused */
} explicit_args;

static int common_args(PyObject* const* args, explicit_args* a) {
    if (rtmbs_py_step_args(args, 11, 12, "explicit-euler", &a->s) < 0) return -1;
    return rtmbs_py_kkt(args + 8, &a->kkt);
}

/* The row map `obj` (rtmbs_py_rows; None: every row), then the length of vec. Returns 0 or -1
 * with an exception. */
static int rows_args(PyObject* obj, explicit_args* a) {
    if (rtmbs_py_rows(obj, a->s.m, "explicit-euler", &a->rows, &a->opt.rows) < 0) return -1;
    return rtmbs_py_need(a->s.nvec, rtmbs_explicit_euler_vec_size(a->s.n, a->s.m, a->opt.rows),
                         "explicit-euler", "vec");
}

/* h, stab, alpha, beta, semi */
static int options_args(PyObject* const* args, rtmbs_explicit_options* o) {
    if (rtmbs_py_scalars(args, "diddb", &o->h, &o->stab, &o->alpha, &o->beta, &o->semi) < 0)
        return -1;
    return rtmbs_py_check(o->stab == RTMBS_STAB_NONE || o->stab == RTMBS_STAB_BAUMGARTE ||
                              o->stab == RTMBS_STAB_PROJECT,
                          "explicit-euler: stab is none (0), projection (1) or baumgarte (2)");
}

/* The step's arguments (ibuf .. m, t, h, stab, alpha, beta, semi, oidx0, out0, rows; t at
 * args[15] not read; rows: the row map or None): rtmbs_py_step_kind.parse */
static int parse(PyObject* const* args, void* prepared) {
    explicit_args* a = prepared;
    if (common_args(args, a) < 0 || options_args(args + 16, &a->opt) < 0) return -1;
    return rows_args(args[23], a);
}

/* rtmbs_py_step_kind.run */
static rtmbs_status run(void* prepared, double t, double h, const rtmbs_py_outputs* o,
                        double diag[4], int* ok) {
    explicit_args* a = prepared;
    rtmbs_status s;
    a->opt.h = h;
    diag[2] = 1.0;
    diag[3] = 0.0;
    s = rtmbs_explicit_euler_step(&a->s.model, &a->s.data, a->s.w0, a->s.w1, &a->kkt, a->s.vec,
                                  a->s.q, a->s.qd, t, &a->opt, o->oidx,
                                  o->at_start ? o->nout : 0, o->out, diag);
    *ok = diag[0] > 0.0;
    return rtmbs_py_outputs_end(s, *ok, &a->s, t + h, o);
}

const rtmbs_py_step_kind rtmbs_py_explicit_kind = {"explicit-euler", 24, sizeof(explicit_args),
                                                    parse, run, 4, NULL};

/* explicit_euler_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec, q, qd,
 *     m, t_origin, i0, h, stab, alpha, beta, semi, n_steps, every, chan, inputs, oidx, out_t,
 *     out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good, qd_good, x_good, rows)
 * -> the number of good steps (rows: the row map or None, as the step's) */
static PyObject* py_explicit_euler_rollout(PyObject* self, PyObject* const* args,
                                           Py_ssize_t nargs) {
    explicit_args a;
    rtmbs_rollout r;
    int64_t done = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 38, "explicit_euler_rollout") < 0 || common_args(args, &a) < 0 ||
        options_args(args + 17, &a.opt) < 0 ||
        rtmbs_py_rollout_args(args + 15, args + 22, &a.s.model, "explicit_euler_rollout", &r) < 0 ||
        rows_args(args[37], &a) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_explicit_euler_rollout(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, a.s.vec, a.s.q,
                                     a.s.qd, &a.opt, &r, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, "explicit_euler_rollout");
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_explicit_methods[] = {
    RTMBS_PY_FASTCALL("explicit_euler_rollout", py_explicit_euler_rollout,
                      "Many explicit-euler steps (rtmbs.solvers.explicit.run_rollout"
                      "'s arguments)."),
    {NULL, NULL, 0, NULL}};
