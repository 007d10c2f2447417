/* py_alpha.c -- binding: the generalized-alpha step, its outputs form and its rollout
 * (rtmbs.solvers.generalized_alpha). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../generalized_alpha.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, kib, kfb, kidx, pib, pfb,
 * pidx, midx, vec, q, qd, m) at args[0..18]. Returns 0 or -1 with an exception. */
typedef struct {
    rtmbs_py_step s;
    rtmbs_kkt kkt, pkkt;
    const uint32_t* midx;
} alpha_args;

static int common_args(PyObject* const* args, alpha_args* a) {
    Py_ssize_t nmidx;
    if (rtmbs_py_step_args(args, 15, 16, "generalized-alpha", &a->s) < 0) return -1;
    if (rtmbs_py_kkt(args + 8, &a->kkt) < 0 || rtmbs_py_kkt(args + 11, &a->pkkt) < 0) return -1;
    if (!(a->midx = rtmbs_py_array(args[14], NPY_UINT32, 0, "midx", &nmidx))) return -1;
    if (rtmbs_py_need(nmidx, 4, "generalized-alpha", "midx") < 0) return -1;
    return rtmbs_py_need(a->s.nvec, RTMBS_ALPHA_VEC(a->s.n, a->s.m), "generalized-alpha", "vec");
}

/* h, am, af, g, b, jac_what, niter, stab */
static int options_args(PyObject* const* args, rtmbs_alpha_options* o) {
    if (rtmbs_py_scalars(args, "dddddLLi", &o->h, &o->am, &o->af, &o->g, &o->b, &o->jac_what,
                         &o->niter, &o->stab) < 0)
        return -1;
    return rtmbs_py_check(o->stab >= RTMBS_ALPHA_STAB_NONE && o->stab <= RTMBS_ALPHA_STAB_PROJECTION,
                          "generalized-alpha: stab is 0, 1 or 2");
}

/* generalized_alpha_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
 *     pidx, midx, vec, q, qd, m, t, h, am, af, g, b, jac_what, niter, stab)
 * -> (ratio, growth, ratio2, growth2, q and qd finite);
 * generalized_alpha_step_outputs(..., stab, oidx, out, at_start) -> the same
 * (rtmbs_alpha_step_outputs) */
static PyObject* step(PyObject* const* args, Py_ssize_t nargs, int outputs) {
    const char* name = outputs ? "generalized_alpha_step_outputs" : "generalized_alpha_step";
    alpha_args a;
    rtmbs_alpha_options opt;
    rtmbs_py_outputs o = {NULL, NULL, 0, 0};
    double t, diag[4];
    int finite = 0;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, outputs ? 31 : 28, name) < 0 || common_args(args, &a) < 0 ||
        rtmbs_py_scalars(args + 19, "d", &t) < 0 || options_args(args + 20, &opt) < 0 ||
        (outputs && rtmbs_py_outputs_args(args + 28, 1, &o) < 0))
        return NULL;
    if (outputs)
        s = rtmbs_alpha_step_outputs(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, &a.pkkt, a.midx,
                                     a.s.vec, a.s.q, a.s.qd, t, &opt, o.oidx, o.nout, o.out,
                                     o.at_start, diag, &finite);
    else
        s = rtmbs_alpha_step(&a.s.model, &a.s.data, a.s.w0, &a.kkt, &a.pkkt, a.midx, a.s.vec, a.s.q,
                             a.s.qd, t, &opt, diag, &finite);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return Py_BuildValue("(ddddN)", diag[0], diag[1], diag[2], diag[3], PyBool_FromLong(finite));
}

RTMBS_PY_FORM(py_alpha_step, step, 0)
RTMBS_PY_FORM(py_alpha_step_outputs, step, 1)

/* generalized_alpha_rollout(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, pib, pfb,
 *     pidx, midx, vec, q, qd, m, t_origin, i0, h, am, af, g, b, jac_what, niter, stab, n_steps,
 *     every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x,
 *     q_good, qd_good, x_good, diag) -> the number of good steps */
static PyObject* py_alpha_rollout(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const char* name = "generalized_alpha_rollout";
    alpha_args a;
    rtmbs_alpha_options opt;
    rtmbs_rollout r;
    double* diag;
    int64_t done = 0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 45, name) < 0 || common_args(args, &a) < 0 ||
        options_args(args + 21, &opt) < 0 ||
        rtmbs_py_rollout_args(args + 19, args + 29, &a.s.model, name, &r) < 0 ||
        !(diag = rtmbs_py_array_min(args[44], NPY_DOUBLE, 1, "diag", 4, NULL)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_alpha_rollout(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.kkt, &a.pkkt, a.midx, a.s.vec,
                            a.s.q, a.s.qd, &opt, &r, diag, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return PyLong_FromLongLong(done);
}

PyMethodDef rtmbs_py_alpha_methods[] = {
    RTMBS_PY_FASTCALL("generalized_alpha_step", py_alpha_step,
     "One generalized-alpha step (rtmbs.solvers.compiled_alpha.generalized_alpha_step's "
     "arguments)."),
    RTMBS_PY_FASTCALL("generalized_alpha_step_outputs", py_alpha_step_outputs,
     "One generalized-alpha step and the named outputs (generalized_alpha_step_outputs's "
     "arguments)."),
    RTMBS_PY_FASTCALL("generalized_alpha_rollout", py_alpha_rollout,
     "Many generalized-alpha steps (compiled_alpha._generalized_alpha_rollout's arguments)."),
    {NULL, NULL, 0, NULL}};
