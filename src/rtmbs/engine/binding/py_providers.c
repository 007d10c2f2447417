/* py_providers.c -- binding: the hand-written providers of the evaluation interface
 * (engine/providers/): the planar truck (rtmbs.models.truck) and the two subsystem-synthesis
 * formulations (rtmbs.synthesis.system). Each evaluation takes the provider's parameter vector,
 * the state and the protocol workspace's flat buffer (rtmbs.protocol.Workspace.buf). The truck's
 * li-euler and generalized-alpha steps on dense matrices (li_euler_dense.c, alpha_dense.c; the
 * bound step's kinds "truck-li-euler", "truck-generalized-alpha", py_bound.c) and their rollouts
 * (dense_rollout.c) take it as a provider. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "py_common.h"
#include "../functions.h"
#include "../dense_rollout.h"
#include "../providers/synthesis_cartesian.h"
#include "../providers/synthesis_joint.h"
#include "../providers/truck.h"

/* float64 and int64 arrays of at least `want` entries (writable if asked), their length into
 * *len (may be NULL); NULL with an exception */
static double* farr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                    Py_ssize_t* len) {
    return (double*)rtmbs_py_array_min(obj, NPY_DOUBLE, writable, what, want, len);
}

static int64_t* iarr(PyObject* obj, int writable, const char* what, Py_ssize_t want,
                     Py_ssize_t* len) {
    return (int64_t*)rtmbs_py_array_min(obj, NPY_INT64, writable, what, want, len);
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

/* A model that did not bind, as a RuntimeError naming "name: part"; returns NULL. */
static PyObject* bind_failed(rtmbs_status s, const char* name, const char* part) {
    char where[96];
    PyOS_snprintf(where, sizeof where, "%s: %s", name, part);
    return rtmbs_py_status(s, where);
}

/* truck_evaluate(par, t, q, qd, what, ws) -> status (0, or 4 when a pneumatic spring's volume
 * is not positive: the workspace then holds the non-finite values);
 * truck_linear_evaluate(par, t, q, qd, what, ws) -> status, of the linearised truck */
static PyObject* truck_eval(PyObject* const* args, Py_ssize_t nargs, int linear) {
    const char* name = linear ? "truck_linear_evaluate" : "truck_evaluate";
    const double *par, *q, *qd;
    double t, *ws;
    Py_ssize_t npar;
    int what;
    rtmbs_truck tr;
    rtmbs_truck_linear tl;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, 6, name) < 0) return NULL;
    if (truck_args(args, &par, &npar, &t, &q, &qd, &what) < 0) return NULL;
    s = linear ? rtmbs_truck_linear_bind(&tl, par, npar) : rtmbs_truck_bind(&tr, par, npar);
    if (s != RTMBS_OK) return bind_failed(s, name, "par");
    if (!(ws = farr(args[5], 1, "ws", rtmbs_truck_workspace_size(linear ? 0 : tr.m), NULL)))
        return NULL;
    s = linear ? rtmbs_truck_linear_evaluate(&tl, t, q, qd, what, ws)
               : rtmbs_truck_evaluate(&tr, t, q, qd, what, ws);
    return PyLong_FromLong((long)s);
}

RTMBS_PY_FORM(py_truck_evaluate, truck_eval, 0)

RTMBS_PY_FORM(py_truck_linear_evaluate, truck_eval, 1)

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
        return bind_failed(s, "truck_deflections", "par");
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

/* A synthesis model of formulation B (joint) or A (Cartesian) and the arguments its evaluations
 * share: (ints, par, t, q, qd, warm start, iters) at args[0..], the warm start qt (B) or rw, Aw
 * (A). */
typedef struct {
    int joint;
    rtmbs_synj sj;
    rtmbs_sync sc;
    int64_t n, nscr, niscr, iters;
    double t, *warm[2];
    const double *q, *qd;
} syn_call;

/* The model from (ints, par) at args[0..1] and the state from args[2..]; returns the index of
 * the first argument after iters, or -1 with an exception naming `name`. */
static Py_ssize_t syn_args(PyObject* const* args, int joint, const char* name, int state,
                           syn_call* y) {
    const int64_t* ints;
    const double* par;
    Py_ssize_t ni, np_, k;
    rtmbs_status s;
    if (!(ints = iarr(args[0], 0, "ints", 1, &ni)) || !(par = farr(args[1], 0, "par", 1, &np_)))
        return -1;
    y->joint = joint;
    s = joint ? rtmbs_synj_bind(&y->sj, ints, ni, par, np_)
              : rtmbs_sync_bind(&y->sc, ints, ni, par, np_);
    if (s != RTMBS_OK) {
        bind_failed(s, name, "model");
        return -1;
    }
    y->n = joint ? y->sj.n : y->sc.n;
    y->nscr = joint ? rtmbs_synj_scratch(&y->sj) : rtmbs_sync_scratch(&y->sc);
    y->niscr = joint ? rtmbs_synj_iscratch(&y->sj) : rtmbs_sync_iscratch(&y->sc);
    if (!state) return 2;
    k = joint ? 6 : 7;
    y->t = PyFloat_AsDouble(args[2]);
    y->iters = PyLong_AsLongLong(args[k]);
    if (PyErr_Occurred()) return -1;
    if (!(y->q = farr(args[3], 0, "q", y->n, NULL)) || !(y->qd = farr(args[4], 0, "qd", y->n, NULL)))
        return -1;
    if (joint) {
        if (!(y->warm[0] = farr(args[5], 1, "qt", y->sj.ns * y->sj.nq, NULL))) return -1;
    } else if (!(y->warm[0] = farr(args[5], 1, "rw", 3 * y->sc.nb, NULL))
               || !(y->warm[1] = farr(args[6], 1, "Aw", 9 * y->sc.nb, NULL))) {
        return -1;
    }
    return k + 1;
}

/* synthesis_joint_sizes(ints, par), synthesis_cartesian_sizes(ints, par) -> (n, scratch,
 * iscratch) */
static PyObject* syn_sizes(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_sizes" : "synthesis_cartesian_sizes";
    syn_call y;
    if (rtmbs_py_nargs(nargs, 2, name) < 0 || syn_args(args, joint, name, 0, &y) < 0) return NULL;
    return Py_BuildValue("(LLL)", (long long)y.n, (long long)y.nscr, (long long)y.niscr);
}

RTMBS_PY_FORM(py_synthesis_joint_sizes, syn_sizes, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_sizes, syn_sizes, 0)

/* synthesis_joint_evaluate(ints, par, t, q, qd, qt, iters, scratch, iscratch, M, Q, qdd),
 * synthesis_cartesian_evaluate(ints, par, t, q, qd, rw, Aw, iters, scratch, iscratch, M, Q,
 * qdd) */
static PyObject* syn_evaluate(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_evaluate" : "synthesis_cartesian_evaluate";
    syn_call y;
    double *scr, *M, *Q, *qdd;
    int64_t* iscr;
    Py_ssize_t i;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, joint ? 12 : 13, name) < 0) return NULL;
    if ((i = syn_args(args, joint, name, 1, &y)) < 0) return NULL;
    if (!(scr = farr(args[i], 1, "scratch", y.nscr, NULL))
        || !(iscr = iarr(args[i + 1], 1, "iscratch", y.niscr, NULL))
        || !(M = farr(args[i + 2], 1, "M", y.n * y.n, NULL))
        || !(Q = farr(args[i + 3], 1, "Q", y.n, NULL))
        || !(qdd = farr(args[i + 4], 1, "qdd", y.n, NULL)))
        return NULL;
    s = joint ? rtmbs_synj_evaluate(&y.sj, y.t, y.q, y.qd, y.warm[0], y.iters, scr, iscr, M, Q, qdd)
              : rtmbs_sync_evaluate(&y.sc, y.t, y.q, y.qd, y.warm[0], y.warm[1], y.iters, scr, iscr,
                                    M, Q, qdd);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    Py_RETURN_NONE;
}

RTMBS_PY_FORM(py_synthesis_joint_evaluate, syn_evaluate, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_evaluate, syn_evaluate, 0)

/* synthesis_joint_workspace(ints, par, t, q, qd, qt, iters, eps, what, scratch, iscratch, work,
 * ws), synthesis_cartesian_workspace(ints, par, t, q, qd, rw, Aw, iters, eps, what, scratch,
 * iscratch, work, ws): the protocol workspace (m = 0) of formulation B or A */
static PyObject* syn_workspace(PyObject* const* args, Py_ssize_t nargs, int joint) {
    const char* name = joint ? "synthesis_joint_workspace" : "synthesis_cartesian_workspace";
    syn_call y;
    double eps, *scr, *work, *ws;
    int64_t* iscr;
    Py_ssize_t i;
    int what;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, joint ? 13 : 14, name) < 0) return NULL;
    if ((i = syn_args(args, joint, name, 1, &y)) < 0) return NULL;
    eps = PyFloat_AsDouble(args[i]);
    what = (int)PyLong_AsLong(args[i + 1]);
    if (PyErr_Occurred()) return NULL;
    if (!(eps > 0.0)) {
        PyErr_SetString(PyExc_ValueError, "eps: the difference step must be positive");
        return NULL;
    }
    if (!(scr = farr(args[i + 2], 1, "scratch", y.nscr, NULL))
        || !(iscr = iarr(args[i + 3], 1, "iscratch", y.niscr, NULL))
        || !(work = farr(args[i + 4], 1, "work", rtmbs_syn_workspace_work(y.n), NULL))
        || !(ws = farr(args[i + 5], 1, "ws", 3 * y.n * y.n + y.n, NULL)))
        return NULL;
    s = joint ? rtmbs_synj_workspace(&y.sj, y.t, y.q, y.qd, y.warm[0], y.iters, eps, what, scr,
                                     iscr, work, ws)
              : rtmbs_sync_workspace(&y.sc, y.t, y.q, y.qd, y.warm[0], y.warm[1], y.iters, eps,
                                     what, scr, iscr, work, ws);
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    Py_RETURN_NONE;
}

RTMBS_PY_FORM(py_synthesis_joint_workspace, syn_workspace, 1)

RTMBS_PY_FORM(py_synthesis_cartesian_workspace, syn_workspace, 0)

/* expr_eval(t, ops, args, adr, n) -> (value, first, second time derivative) of an expression
 * program (rtmbs.model.expression), for the offline numpy paths of the providers */
static PyObject* py_expr_eval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *ops, *a;
    Py_ssize_t no, na;
    int64_t adr, n;
    double t, v, v1, v2;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "expr_eval") < 0 || rtmbs_py_scalars(args, "d", &t) < 0 ||
        rtmbs_py_scalars(args + 3, "LL", &adr, &n) < 0)
        return NULL;
    if (!(ops = farr(args[1], 0, "ops", 0, &no)) || !(a = farr(args[2], 0, "args", 0, &na))) return NULL;
    if (adr < 0 || n < 0 || adr + n > no || adr + n > na) {
        PyErr_Format(PyExc_ValueError, "expr_eval: program %lld..%lld outside ops (%zd) or args (%zd)",
                     (long long)adr, (long long)(adr + n), no, na);
        return NULL;
    }
    rtmbs_expr_eval(t, ops, a, adr, n, &v, &v1, &v2);
    return Py_BuildValue("(ddd)", v, v1, v2);
}

/* -- the truck as a provider: its outputs, its dense steps and rollouts (li_euler_dense.c,
 * alpha_dense.c, dense_rollout.c) -- */

typedef struct {
    rtmbs_truck tr;
    rtmbs_truck_linear tl;
    rtmbs_provider p;
} truck_provider;

/* The truck of `kind` (0 nonlinear, 1 linearised) and parameter vector `par` as a provider (its
 * views into par valid while the call runs); 0, or -1 with an exception naming `name`. */
static int bind_truck(PyObject* kind, PyObject* par, truck_provider* y, const char* name) {
    const double* v;
    Py_ssize_t len;
    long k = PyLong_AsLong(kind);
    rtmbs_status s;
    if (PyErr_Occurred()) return -1;
    if (k != 0 && k != 1) {
        PyErr_Format(PyExc_ValueError, "%s: kind is 0 (nonlinear truck) or 1 (linearised), not %ld",
                     name, k);
        return -1;
    }
    if (!(v = farr(par, 0, "par", 1, &len))) return -1;
    s = k ? rtmbs_truck_linear_bind(&y->tl, v, len) : rtmbs_truck_bind(&y->tr, v, len);
    if (s != RTMBS_OK) {
        bind_failed(s, name, "par");
        return -1;
    }
    if (k)
        rtmbs_truck_linear_provider(&y->tl, &y->p);
    else
        rtmbs_truck_provider(&y->tr, &y->p);
    return 0;
}

/* truck_outputs(kind, par, t, q, out): every named output (RTMBS_TRUCK_NOUT) at (t, q) */
static PyObject* py_truck_outputs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    static const int64_t all[RTMBS_TRUCK_NOUT] = {0, 1, 2, 3, 4, 5, 6, 7};
    truck_provider y;
    const double* q;
    double t, *out;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "truck_outputs") < 0 ||
        bind_truck(args[0], args[1], &y, "truck_outputs") < 0 ||
        rtmbs_py_scalars(args + 2, "d", &t) < 0)
        return NULL;
    if (!(q = farr(args[3], 0, "q", RTMBS_TRUCK_N, NULL)) ||
        !(out = farr(args[4], 1, "out", RTMBS_TRUCK_NOUT, NULL)))
        return NULL;
    y.p.outputs(y.p.ctx, t, q, q, all, RTMBS_TRUCK_NOUT, out);
    Py_RETURN_NONE;
}

/* The arguments the dense steps and their rollouts share: (kind, par, ws0, ws1, K, P, piv, ppiv,
 * vec, counter, warning, q, qd, m) at args[0..13]; the options follow at args[iopt..]: li-euler's
 * (h, jac_what, implicit, stab, niter, gamma), or with `alpha` generalized-alpha's (h, am, af, g,
 * b, jac_what, niter, stab). The rtmbs_py_step's model holds the sizes only and its data the
 * counter and warning tables (rtmbs_provider_data). Returns 0 or -1 with an exception. */
typedef struct {
    rtmbs_py_step s; /* (first: a bound step rebinds s.q, s.qd) */
    truck_provider y;
    rtmbs_dense_work w;
    int alpha;
    rtmbs_li_euler_options opt;
    rtmbs_alpha_options aopt;
} dense_args;

static int dense_parse_at(PyObject* const* args, dense_args* a, Py_ssize_t iopt, int alpha,
                          const char* name) {
    rtmbs_py_step* st = &a->s;
    int64_t n, m, N, mm;
    double *counter, *warning;
    if (bind_truck(args[0], args[1], &a->y, name) < 0) return -1;
    st->n = n = a->y.p.n;
    st->m = m = a->y.p.m;
    N = n + m;
    if (rtmbs_py_scalars(args + 13, "L", &mm) < 0) return -1;
    if (mm != m) {
        PyErr_Format(PyExc_ValueError, "%s: m = %lld, the truck's par has m = %lld", name,
                     (long long)mm, (long long)m);
        return -1;
    }
    if (!(a->w.ws0 = farr(args[2], 1, "ws0", rtmbs_truck_workspace_size(m), NULL)) ||
        !(a->w.ws1 = farr(args[3], 1, "ws1", rtmbs_truck_workspace_size(m), NULL)) ||
        !(a->w.K = farr(args[4], 1, "K", N * N, NULL)) ||
        !(a->w.P = farr(args[5], 1, "P", N * N, NULL)) ||
        !(a->w.piv = iarr(args[6], 1, "piv", N, NULL)) ||
        !(a->w.ppiv = iarr(args[7], 1, "ppiv", N, NULL)) ||
        !(a->w.vec = farr(args[8], 1, "vec", alpha ? RTMBS_ALPHA_VEC(n, m)
                                                   : RTMBS_LI_EULER_VEC(n, m), &st->nvec)) ||
        !(counter = farr(args[9], 1, "counter", RTMBS_COUNTSLOTS, NULL)) ||
        !(warning = farr(args[10], 1, "warning", 3 * RTMBS_WARNSLOTS, NULL)) ||
        !(st->q = farr(args[11], 1, "q", n, NULL)) || !(st->qd = farr(args[12], 1, "qd", n, NULL)))
        return -1;
    memset(&st->model, 0, sizeof(st->model));
    st->model.size.nq = n;
    st->model.size.nc = m;
    rtmbs_provider_data(&st->data, counter, warning);
    st->w0 = a->w.ws0;
    st->w1 = a->w.ws1;
    st->vec = a->w.vec;
    a->alpha = alpha;
    if (alpha) {
        rtmbs_alpha_options* o = &a->aopt;
        o->rows = NULL; /* (a provider has no redundant rows) */
        if (rtmbs_py_scalars(args + iopt, "dddddLLi", &o->h, &o->am, &o->af, &o->g, &o->b,
                             &o->jac_what, &o->niter, &o->stab) < 0)
            return -1;
        if (o->stab < RTMBS_ALPHA_STAB_NONE || o->stab > RTMBS_ALPHA_STAB_PROJECTION ||
            o->niter < 1) {
            PyErr_Format(PyExc_ValueError, "%s: stab in 0 .. 2 and niter >= 1", name);
            return -1;
        }
        return 0;
    }
    a->opt.rows = NULL;
    if (rtmbs_py_scalars(args + iopt, "dLbiid", &a->opt.h, &a->opt.jac_what, &a->opt.implicit,
                         &a->opt.stab, &a->opt.niter, &a->opt.gamma) < 0)
        return -1;
    if (a->opt.stab < RTMBS_STAB_NONE || a->opt.stab > RTMBS_STAB_GGL || a->opt.niter < 1) {
        PyErr_Format(PyExc_ValueError, "%s: stab in 0 .. 4 and niter >= 1", name);
        return -1;
    }
    return 0;
}

/* The step's arguments, (kind, par, ws0, ws1, K, P, piv, ppiv, vec, counter, warning, q, qd, m,
 * t, h, jac_what, implicit, stab, niter, gamma), t not read: rtmbs_py_step_kind.parse */
static int dense_parse(PyObject* const* args, void* prepared) {
    return dense_parse_at(args, (dense_args*)prepared, 15, 0, "truck-li-euler");
}

/* The step's arguments, (kind, par, ws0, ws1, K, P, piv, ppiv, vec, counter, warning, q, qd, m,
 * t, h, am, af, g, b, jac_what, niter, stab), t not read: rtmbs_py_step_kind.parse */
static int alpha_parse(PyObject* const* args, void* prepared) {
    return dense_parse_at(args, (dense_args*)prepared, 15, 1, "truck-generalized-alpha");
}

/* the named outputs oidx at (t, q, qd) */
static rtmbs_status dense_outputs(const dense_args* a, double t, const rtmbs_py_outputs* o) {
    const rtmbs_provider* p = &a->y.p;
    return p->outputs(p->ctx, t, a->s.q, a->s.qd, o->oidx, o->nout, o->out);
}

/* rtmbs_py_step_kind.run: diag = (ratio of the step's KKT (eq. 22, the iteration matrix), 0,
 * ratio of the second KKT or 1, 0) */
static rtmbs_status dense_run(void* prepared, double t, double h, const rtmbs_py_outputs* o,
                              double diag[4], int* ok) {
    dense_args* a = prepared;
    double d2[2];
    rtmbs_status s;
    if (o->nout && o->at_start && (s = dense_outputs(a, t, o)) != RTMBS_OK) return s;
    if (a->alpha) {
        a->aopt.h = h;
        s = rtmbs_alpha_dense_step(&a->y.p, &a->s.data, &a->w, a->s.q, a->s.qd, t, &a->aopt, d2);
    } else {
        a->opt.h = h;
        s = rtmbs_li_euler_dense_step(&a->y.p, &a->s.data, &a->w, a->s.q, a->s.qd, t, &a->opt,
                                      d2);
    }
    diag[0] = d2[0];
    diag[1] = 0.0;
    diag[2] = d2[1];
    diag[3] = 0.0;
    *ok = d2[0] > 0.0 && d2[1] > 0.0;
    if (s == RTMBS_OK && *ok && o->nout && !o->at_start) s = dense_outputs(a, t + h, o);
    return s;
}

const rtmbs_py_step_kind rtmbs_py_truck_li_euler_kind = {"truck-li-euler", 21,
                                                         sizeof(dense_args), dense_parse,
                                                         dense_run, 4, NULL};

const rtmbs_py_step_kind rtmbs_py_truck_alpha_kind = {"truck-generalized-alpha", 23,
                                                      sizeof(dense_args), alpha_parse, dense_run,
                                                      4, NULL};

/* truck_li_euler_rollout(kind, par, ws0, ws1, K, P, piv, ppiv, vec, counter, warning, q, qd, m,
 *     t_origin, i0, h, jac_what, implicit, stab, niter, gamma, n_steps, every, chan, inputs, oidx,
 *     out_t, out_q, out_qd, out_qd_prev, out_lam, out_y, out_x, q_good, qd_good, x_good),
 * truck_generalized_alpha_rollout(kind, ..., m, t_origin, i0, h, am, af, g, b, jac_what, niter,
 *     stab, n_steps, ...) -> the number of good steps */
static PyObject* dense_rollout(PyObject* const* args, Py_ssize_t nargs, int alpha) {
    const char* name = alpha ? "truck_generalized_alpha_rollout" : "truck_li_euler_rollout";
    const Py_ssize_t nopt = alpha ? 8 : 6; /* (h and the step's options) */
    dense_args a;
    rtmbs_rollout r;
    int64_t done = 0;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, 31 + nopt, name) < 0 ||
        dense_parse_at(args, &a, 16, alpha, name) < 0 ||
        rtmbs_py_rollout_args(args + 14, args + 16 + nopt, &a.s.model, name, &r) < 0)
        return NULL;
    if (r.nchan != 0 || r.nout > a.y.p.nout) {
        PyErr_Format(PyExc_ValueError, "%s: the truck has no input channels and %lld outputs",
                     name, (long long)a.y.p.nout);
        return NULL;
    }
    Py_BEGIN_ALLOW_THREADS
    s = rtmbs_dense_rollout(&a.y.p, &a.s.data, &a.w, a.s.q, a.s.qd,
                            alpha ? RTMBS_DENSE_ALPHA : RTMBS_DENSE_LI_EULER,
                            alpha ? (const void*)&a.aopt : (const void*)&a.opt, &r, &done);
    Py_END_ALLOW_THREADS
    if (s != RTMBS_OK) return rtmbs_py_status(s, name);
    return PyLong_FromLongLong(done);
}

RTMBS_PY_FORM(py_truck_li_euler_rollout, dense_rollout, 0)

RTMBS_PY_FORM(py_truck_generalized_alpha_rollout, dense_rollout, 1)

#define FASTCALL(name, doc) RTMBS_PY_FASTCALL(#name, py_##name, doc)

PyMethodDef rtmbs_py_providers_methods[] = {
    FASTCALL(truck_evaluate, "The nonlinear planar truck into a protocol workspace (truck.h)."),
    FASTCALL(truck_linear_evaluate, "The linearised planar truck into a protocol workspace."),
    FASTCALL(truck_deflections, "Spring deflections of the truck's elements (for its energy)."),
    FASTCALL(truck_road, "The truck's road height and slope at a road coordinate."),
    FASTCALL(truck_outputs, "The truck's named outputs at (t, q)."),
    FASTCALL(truck_li_euler_rollout, "Many li-euler steps of the truck on dense matrices."),
    FASTCALL(truck_generalized_alpha_rollout,
             "Many generalized-alpha steps of the truck on dense matrices."),
    FASTCALL(synthesis_joint_sizes, "(n, scratch, iscratch) of a formulation-B model."),
    FASTCALL(synthesis_joint_evaluate, "Formulation B: M, Q and the synthesis accelerations."),
    FASTCALL(synthesis_cartesian_sizes, "(n, scratch, iscratch) of a formulation-A model."),
    FASTCALL(synthesis_cartesian_evaluate, "Formulation A: M, Q and the synthesis accelerations."),
    FASTCALL(synthesis_joint_workspace, "Formulation B: the protocol workspace, FD Jacobians."),
    FASTCALL(synthesis_cartesian_workspace, "Formulation A: the protocol workspace, FD Jacobians."),
    FASTCALL(expr_eval, "Value and two time derivatives of an expression program."),
    {NULL, NULL, 0, NULL}};
