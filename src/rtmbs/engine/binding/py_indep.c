/* py_indep.c -- binding: Algorithm 2's step and rollout (li-euler-indep, B = partition)
 * (rtmbs.solvers.li_euler_indep, rtmbs.solvers.rollout_indep). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../li_euler_indep.h"

/* The arguments the step and the rollout share: (ibuf .. slay, w0, w1, fa, fb, pidx, cols, X, W,
 * tmp, aidx, kib, kfb, kidx, vec, hpiv, q, qd, m) at args[0..23]. */
typedef struct {
    rtmbs_py_step s;
    rtmbs_partition basis;
    rtmbs_kkt kkt;
    const uint32_t* aidx;
    int64_t* hpiv;
    Py_ssize_t nkib;
} indep_args;

static int fail(const char* msg) { return rtmbs_py_check(0, msg); }

static int common_args(PyObject* const* args, indep_args* a) {
    Py_ssize_t nib, nfb, npidx, ncols, nX, nW, ntmp, naidx, nhpiv;
    int64_t n, m, f, nu, nv;
    rtmbs_status s;
    if (rtmbs_py_step_args(args, 19, 21, "li-euler-indep", &a->s) < 0) return -1;
    n = a->s.n;
    m = a->s.m;
    f = n - m;
    if (!(a->basis.ib = rtmbs_py_array(args[8], NPY_UINT32, 0, "fa (the ib of Phi_u's sparse LU)",
                                       &nib)))
        return -1;
    if (!(a->basis.fb = rtmbs_py_array(args[9], NPY_DOUBLE, 1, "fb", &nfb))) return -1;
    if (!(a->basis.pidx = rtmbs_py_array(args[10], NPY_UINT32, 0, "pidx", &npidx))) return -1;
    if (!(a->basis.cols = rtmbs_py_array(args[11], NPY_INT64, 0, "cols", &ncols))) return -1;
    if (!(a->basis.X = rtmbs_py_array(args[12], NPY_DOUBLE, 1, "X", &nX))) return -1;
    if (!(a->basis.W = rtmbs_py_array(args[13], NPY_DOUBLE, 1, "W", &nW))) return -1;
    if (!(a->basis.tmp = rtmbs_py_array(args[14], NPY_DOUBLE, 1, "tmp", &ntmp))) return -1;
    if (!(a->aidx = rtmbs_py_array(args[15], NPY_UINT32, 0, "aidx", &naidx))) return -1;
    if (rtmbs_py_kkt(args + 16, &a->kkt) < 0) return -1;
    a->nkib = PyArray_SIZE((PyArrayObject*)args[16]);
    if (!(a->hpiv = rtmbs_py_array(args[20], NPY_INT64, 1, "hpiv", &nhpiv))) return -1;
    /* sizes (O(1): the plans are checked where they are made, in Python) */
    if (naidx < 4 || a->s.nvec < RTMBS_INDEP_VEC(n, m, (int64_t)a->aidx[0]))
        return fail("li-euler-indep: aidx or vec too short");
    if (npidx < 3) return fail("li-euler-indep: pidx too short");
    nu = a->basis.pidx[0];
    nv = a->basis.pidx[1];
    if ((int64_t)a->basis.pidx[2] != f || npidx != 3 + 3 * nu + 3 * nv + f + 1)
        return fail("li-euler-indep: pidx does not match the sizes");
    if (ncols < n || nX < m * (f + 1) || nW < m * (f + 1) || ntmp < m || nhpiv < f)
        return fail("li-euler-indep: cols, X, W, tmp or hpiv too short");
    s = rtmbs_lu_check(a->basis.ib, nib, nfb, 0);
    if (s != RTMBS_OK || (int64_t)a->basis.ib[RTMBS_LU_H_N] != m ||
        (int64_t)a->basis.ib[RTMBS_LU_H_NE] < nu)
        return fail("li-euler-indep: Phi_u's factors (fa, fb) do not match m or pidx");
    return 0;
}

/* h, jac_what, implicit, multipliers, proj, gb, rebase_below */
static int options_args(PyObject* const* args, rtmbs_indep_options* o) {
    if (rtmbs_py_scalars(args, "dLbbidd", &o->h, &o->jac_what, &o->implicit, &o->multipliers,
                         &o->proj, &o->gb, &o->rebase_below) < 0)
        return -1;
    return rtmbs_py_check(o->proj >= RTMBS_INDEP_PROJ_NONE && o->proj <= RTMBS_INDEP_PROJ_T,
                          "li-euler-indep: proj out of range");
}

static int check_kkt(const indep_args* a, const rtmbs_indep_options* o) {
    if (o->proj == RTMBS_INDEP_PROJ_KKT && a->s.m > 0 &&
        (a->nkib < RTMBS_LU_H_LEN || (int64_t)a->kkt.ib[RTMBS_LU_H_N] != a->s.n + a->s.m))
        return fail("li-euler-indep: proj=KKT without the projection's factors (kib)");
    return 0;
}

/* A bound step's prepared arguments: the step function's (ibuf .. m at args[0..23], t at
 * args[24], h .. rebase_below at args[25..31]); a negative gb: 1/h at every step (Baumgarte with
 * its default gamma). */
typedef struct {
    indep_args a; /* (first: its rtmbs_py_step first) */
    rtmbs_indep_options opt;
    int gb_over_h;
} indep_prepared;

/* rtmbs_py_step_kind.parse */
static int parse(PyObject* const* args, void* prepared) {
    indep_prepared* p = prepared;
    if (common_args(args, &p->a) < 0 || options_args(args + 25, &p->opt) < 0 ||
        check_kkt(&p->a, &p->opt) < 0)
        return -1;
    p->gb_over_h = p->opt.gb < 0.0;
    return 0;
}

/* rtmbs_py_step_kind.run: diag = (code, Phi_u's pivot ratio at the new positions, its LU's
 * pivot ratio and largest multiplier, the projection KKT's); *ok 1 a good step, 0 a failed one,
 * 2 a step that stopped for a rebase (REBASE: B is chosen again by the caller, then q-dot
 * updated; no outputs at its end) */
static rtmbs_status run(void* prepared, double t, double h, const rtmbs_py_outputs* o,
                        double diag[6], int* ok) {
    indep_prepared* p = prepared;
    indep_args* a = &p->a;
    int code = 0, good;
    rtmbs_status s;
    p->opt.h = h;
    if (p->gb_over_h) p->opt.gb = 1.0 / h;
    s = rtmbs_li_euler_indep_step(&a->s.model, &a->s.data, a->s.w0, a->s.w1, &a->basis, a->aidx,
                                  &a->kkt, a->s.vec, a->hpiv, a->s.q, a->s.qd, t, &p->opt, o->oidx,
                                  o->at_start ? o->nout : 0, o->out, &code, diag + 1);
    diag[0] = code;
    good = (code & RTMBS_INDEP_OK) && diag[1] > 0.0;
    *ok = (code & RTMBS_INDEP_REBASE) ? 2 : good;
    return rtmbs_py_outputs_end(s, good && !(code & RTMBS_INDEP_REBASE), &a->s, t + h, o);
}

/* rtmbs_py_step_kind.extra: Phi_u factorised at q again, z-dot re-mapped (CHANGED: the caller
 * changed the state between two steps) costs one evaluation, factorisation and solve more */
static int64_t extra(const double* diag) { return ((int)diag[0] & RTMBS_INDEP_CHANGED) ? 1 : 0; }

const rtmbs_py_step_kind rtmbs_py_indep_kind = {"li-euler-indep", 34, sizeof(indep_prepared),
                                                parse, run, 6, extra};

/* li_euler_indep_rollout(ibuf .. m, t_origin, i0, h, jac_what, implicit, multipliers, proj, gb,
 *     rebase_below, k0, n_steps, every, chan, inputs, oidx, out_t, out_q, out_qd, out_qd_prev,
 *     out_lam, out_y, out_x, q_good, qd_good, x_good, diag) -> (k, code, nchanged) */
static PyObject* py_li_euler_indep_rollout(PyObject* self, PyObject* const* args,
                                           Py_ssize_t nargs) {
    const char* name = "li_euler_indep_rollout";
    indep_args a;
    rtmbs_indep_options opt;
    rtmbs_rollout r;
    rtmbs_indep_stop stop = {0, 0, 0, NULL};
    int64_t k0;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 50, name) < 0 || common_args(args, &a) < 0 ||
        options_args(args + 26, &opt) < 0 || check_kkt(&a, &opt) < 0 ||
        rtmbs_py_scalars(args + 33, "L", &k0) < 0 ||
        (k0 < 0 && fail("li_euler_indep_rollout: k0 >= 0") < 0) ||
        rtmbs_py_rollout_args(args + 24, args + 34, &a.s.model, name, &r) < 0 ||
        !(stop.diag = rtmbs_py_array_min(args[49], NPY_DOUBLE, 1, "diag", 5, NULL)))
        return NULL;
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_li_euler_indep_rollout(&a.s.model, &a.s.data, a.s.w0, a.s.w1, &a.basis, a.aidx,
                                     &a.kkt, a.s.vec, a.hpiv, a.s.q, a.s.qd, &opt, k0, &r, &stop);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return Py_BuildValue("(LiL)", (long long)stop.k_end, stop.code, (long long)stop.nchanged);
}

PyMethodDef rtmbs_py_indep_methods[] = {
    RTMBS_PY_FASTCALL("li_euler_indep_rollout", py_li_euler_indep_rollout,
                      "Many li-euler-indep steps (rtmbs.solvers.rollout_indep.run's arguments)."),
    {NULL, NULL, 0, NULL}};
