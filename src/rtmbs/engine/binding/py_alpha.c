/* py_alpha.c -- binding: the generalized-alpha step, its outputs form and its rollout
 * (rtmbs.solvers.generalized_alpha). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../generalized_alpha.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, pib, pfb,
 * pidx, midx, vec, q, qd, m) at args[0..18]. Returns 0 or -1 with an exception. */
typedef struct {
    rtmbs_py_step s; /* (first: a bound step rebinds s.q, s.qd) */
    rtmbs_kkt kkt, pkkt;
    const uint32_t* midx;
    rtmbs_alpha_options opt;
    rtmbs_rows rows; /* the row map (opt.rows points here), or unused */
} alpha_args;

static int common_args(PyObject* const* args, alpha_args* a) {
    Py_ssize_t nmidx;
    if (rtmbs_py_step_args(args, 15, 16, "generalized-alpha", &a->s) < 0) return -1;
    if (rtmbs_py_kkt(args + 8, &a->kkt) < 0 || rtmbs_py_kkt(args + 11, &a->pkkt) < 0) return -1;
    if (!(a->midx = rtmbs_py_array(args[14], NPY_UINT32, 0, "midx", &nmidx))) return -1;
    return rtmbs_py_need(nmidx, 4, "generalized-alpha", "midx");
}

/* The row map `obj` (rtmbs_py_rows; None: every row), then the length of vec. Returns 0 or -1
 * with an exception. */
static int rows_args(PyObject* obj, alpha_args* a) {
    if (rtmbs_py_rows(obj, a->s.m, "generalized-alpha", &a->rows, &a->opt.rows) < 0) return -1;
    return rtmbs_py_need(a->s.nvec, rtmbs_alpha_vec_size(a->s.n, a->s.m, a->opt.rows),
                         "generalized-alpha", "vec");
}

/* h, am, af, g, b, jac_what, niter, stab */
static int options_args(PyObject* const* args, rtmbs_alpha_options* o) {
    if (rtmbs_py_scalars(args, "dddddLLi", &o->h, &o->am, &o->af, &o->g, &o->b, &o->jac_what,
                         &o->niter, &o->stab) < 0)
        return -1;
    return rtmbs_py_check(o->stab >= RTMBS_ALPHA_STAB_NONE && o->stab <= RTMBS_ALPHA_STAB_PROJECTION,
                          "generalized-alpha: stab is 0, 1 or 2");
}

/* The step's arguments (ibuf .. m, t, h, am, af, g, b, jac_what, niter, stab, rows; t at
 * args[19] not read; rows: the row map or None): rtmbs_py_step_kind.parse */
static int parse(PyObject* const* args, void* prepared) {
    alpha_args* a = prepared;
    if (common_args(args, a) < 0 || options_args(args + 20, &a->opt) < 0) return -1;
    return rows_args(args[28], a);
}

/* rtmbs_py_step_kind.run: the step, or with outputs rtmbs_alpha_step_outputs */
static rtmbs_status run(void* prepared, double t, double h, const rtmbs_py_outputs* o,
                        double diag[4], int* ok) {
    alpha_args* a = prepared;
    int finite = 0;
    rtmbs_status s;
    a->opt.h = h;
    if (o->nout)
        s = rtmbs_alpha_step_outputs(&a->s.model, &a->s.data, a->s.w0, a->s.w1, &a->kkt, &a->pkkt,
                                     a->midx, a->s.vec, a->s.q, a->s.qd, t, &a->opt, o->oidx,
                                     o->nout, o->out, o->at_start, diag, &finite);
    else
        s = rtmbs_alpha_step(&a->s.model, &a->s.data, a->s.w0, &a->kkt, &a->pkkt, a->midx,
                             a->s.vec, a->s.q, a->s.qd, t, &a->opt, diag, &finite);
    *ok = diag[0] > 0.0 && diag[2] > 0.0 && finite;
    return s;
}

const rtmbs_py_step_kind rtmbs_py_alpha_kind = {"generalized-alpha", 29, sizeof(alpha_args), parse,
                                                run, 4, NULL};

/* generalized_alpha_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
 *     pidx, midx, vec, q, qd, m, t_origin, i0, h, am, af, g, b, jac_what, niter, stab, n_steps,
 *     every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x,
 *     q_good, qd_good, x_good, diag, rows) -> the number of good steps (rows: the row map or
 *     None, as the step's) */
static PyObject* py_alpha_rollout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const char* name = "generalized_alpha_rollout";
    alpha_args a;
    rtmbs_rollout r;
    double* diag;
    int64_t done = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 46, name) < 0 || common_args(args, &a) < 0 ||
        options_args(args + 21, &a.opt) < 0 ||
        rtmbs_py_rollout_args(args + 19, args + 29, &a.s.model, name, &r) < 0 ||
        !(diag = rtmbs_py_array_min(args[44], NPY_DOUBLE, 1, "diag", 4, NULL)) ||
        rows_args(args[45], &a) < 0)
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_alpha_rollout(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, &a.pkkt, a.midx, a.s.vec,
                            a.s.q, a.s.qd, &a.opt, &r, diag, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_alpha_methods[] = {
    RTMBS_PY_FASTCALL("generalized_alpha_rollout", py_alpha_rollout,
                      "Many generalized-alpha steps (rtmbs.solvers.generalized_alpha.run_rollout's "
                      "arguments)."),
    {NULL, NULL, 0, NULL}};
