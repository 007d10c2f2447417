/* py_bound.c -- binding: a compiled step bound once to its arrays (rtmbs.solvers.bound_step).
 *
 * A step called from Python through its step function checks and binds some thirty arguments
 * (the model and data from their packed buffers, the workspaces, the KKT plans) on every call.
 * BoundStep does that once, when the solver is reset, and keeps references to every array it
 * binds; a call then passes the state (q, qdot, the extra states x), t and h only: the time a
 * step from Python costs beyond the same step inside a rollout is that of one method call.
 *
 *     BoundStep(kind, args, oidx, diag, counts, per_step)
 *
 * kind: "li-euler", "explicit-euler", "generalized-alpha", "li-euler-indep", "truck-li-euler" or
 * "truck-generalized-alpha" (the planar truck's dense steps, py_providers.c) (rtmbs_py_step_kind);
 * args: the argument tuple of the kind's step function (its q, qdot bound until other arrays
 * are passed); oidx: the rows of the named outputs of step_outputs (int64); diag: 4 float64
 * values (the kind's ndiag if more) written by every step (pivot ratio and largest multiplier of
 * the step's KKT, the same of its second KKT); counts: 4 int64 counters (steps, evaluations,
 * factorisations, solves) to which every call adds 1 and per_step = (evaluations,
 * factorisations, solves), plus the kind's extra count of that step.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <string.h>

#include "py_common.h"

typedef struct {
    PyObject_HEAD
    const rtmbs_py_step_kind* kind;
    void* prepared;           /* the kind's prepared arguments (an rtmbs_py_step first) */
    PyObject *args, *q, *qd;  /* references: the arrays bound */
    PyObject *oidx_obj, *diag_obj, *counts_obj;
    const int64_t* oidx;
    Py_ssize_t nout;
    double* diag;
    int64_t* counts;
    int64_t per_step[3];
} bound_step;

static const rtmbs_py_step_kind* const kinds[] = {
    &rtmbs_py_li_euler_kind, &rtmbs_py_explicit_kind, &rtmbs_py_alpha_kind,
    &rtmbs_py_truck_li_euler_kind, &rtmbs_py_truck_alpha_kind, &rtmbs_py_indep_kind};

static void bound_dealloc(bound_step* b) {
    PyMem_Free(b->prepared);
    Py_XDECREF(b->args);
    Py_XDECREF(b->q);
    Py_XDECREF(b->qd);
    Py_XDECREF(b->oidx_obj);
    Py_XDECREF(b->diag_obj);
    Py_XDECREF(b->counts_obj);
    Py_TYPE(b)->tp_free((PyObject*)b);
}

static PyObject* bound_new(PyTypeObject* type, PyObject* a, PyObject* kw) {
    const char* name;
    PyObject *args, *oidx, *diag, *counts, *per_step;
    bound_step* b;
    Py_ssize_t k, nk = (Py_ssize_t)(sizeof(kinds) / sizeof(kinds[0]));
    static char* keywords[] = {"kind", "args", "oidx", "diag", "counts", "per_step", NULL};
    if (!PyArg_ParseTupleAndKeywords(a, kw, "sO!OOOO:BoundStep", keywords, &name, &PyTuple_Type,
                                     &args, &oidx, &diag, &counts, &per_step))
        return NULL;
    b = (bound_step*)type->tp_alloc(type, 0);
    if (!b) return NULL;
    for (k = 0; k < nk && !b->kind; k++)
        if (!strcmp(kinds[k]->name, name)) b->kind = kinds[k];
    if (!b->kind) {
        PyErr_Format(PyExc_ValueError, "BoundStep: no compiled step '%s'", name);
        goto fail;
    }
    if (rtmbs_py_nargs(PyTuple_GET_SIZE(args), b->kind->nargs, b->kind->name) < 0) goto fail;
    b->prepared = PyMem_Calloc(1, b->kind->size);
    if (!b->prepared) {
        PyErr_NoMemory();
        goto fail;
    }
    if (b->kind->parse(&PyTuple_GET_ITEM(args, 0), b->prepared) < 0) goto fail;
    if (!(b->oidx = rtmbs_py_array(oidx, NPY_INT64, 0, "oidx", &b->nout))) goto fail;
    if (!(b->diag = rtmbs_py_array_min(diag, NPY_DOUBLE, 1, "diag",
                                       b->kind->ndiag > 4 ? b->kind->ndiag : 4, NULL)))
        goto fail;
    if (!(b->counts = rtmbs_py_array_min(counts, NPY_INT64, 1, "counts", 4, NULL))) goto fail;
    if (!PyArg_ParseTuple(per_step, "LLL:per_step", &b->per_step[0], &b->per_step[1],
                          &b->per_step[2]))
        goto fail;
    Py_INCREF(args);
    b->args = args;
    Py_INCREF(oidx);
    b->oidx_obj = oidx;
    Py_INCREF(diag);
    b->diag_obj = diag;
    Py_INCREF(counts);
    b->counts_obj = counts;
    return (PyObject*)b;
fail:
    Py_DECREF(b);
    return NULL;
}

/* q, qd bound (or checked and bound when they are other arrays than the last ones) */
static int bind_state(bound_step* b, PyObject* q, PyObject* qd) {
    rtmbs_py_step* st = (rtmbs_py_step*)b->prepared;
    Py_ssize_t nq, nqd;
    double *pq, *pqd;
    if (q == b->q && qd == b->qd) return 0;
    if (!(pq = rtmbs_py_array(q, NPY_DOUBLE, 1, "q", &nq))) return -1;
    if (!(pqd = rtmbs_py_array(qd, NPY_DOUBLE, 1, "qd", &nqd))) return -1;
    if (nq != st->n || nqd != st->n) {
        PyErr_Format(PyExc_ValueError, "%s: q and qd have %zd and %zd values, the model %lld",
                     b->kind->name, nq, nqd, (long long)st->n);
        return -1;
    }
    st->q = pq;
    st->qd = pqd;
    Py_INCREF(q);
    Py_XSETREF(b->q, q);
    Py_INCREF(qd);
    Py_XSETREF(b->qd, qd);
    return 0;
}

/* step(q, qd, x, t, h[, out, at_start]) with `with_outputs` */
static PyObject* bound_call(bound_step* b, PyObject* const* args, Py_ssize_t nargs,
                            int with_outputs) {
    rtmbs_py_step* st = (rtmbs_py_step*)b->prepared;
    rtmbs_py_outputs o = {NULL, NULL, 0, 0};
    const int64_t nx = st->model.size.nx;
    double *x = NULL, t, h;
    Py_ssize_t nxa;
    int ok = 0;
    int64_t extra;
    int64_t i;
    rtmbs_status s;
    if (rtmbs_py_nargs(nargs, with_outputs ? 7 : 5, with_outputs ? "step_outputs" : "step") < 0 ||
        bind_state(b, args[0], args[1]) < 0)
        return NULL;
    t = PyFloat_AsDouble(args[3]);
    h = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (nx && !(x = rtmbs_py_array_min(args[2], NPY_DOUBLE, 1, "x", nx, &nxa))) return NULL;
    if (with_outputs) {
        Py_ssize_t nbuf;
        o.oidx = b->oidx;
        o.nout = b->nout;
        if (!(o.out = rtmbs_py_array_min(args[5], NPY_DOUBLE, 1, "out", b->nout, &nbuf)))
            return NULL;
        if ((o.at_start = PyObject_IsTrue(args[6])) < 0) return NULL;
    }
    for (i = 0; i < nx; i++) st->data.xstate[1 + i] = x[i];
    s = b->kind->run(b->prepared, t, h, &o, b->diag, &ok);
    for (i = 0; i < nx; i++) x[i] = st->data.xstate[1 + i];
    extra = b->kind->extra ? b->kind->extra(b->diag) : 0;
    b->counts[0] += 1;
    for (i = 0; i < 3; i++) b->counts[1 + i] += b->per_step[i] + extra;
    if (s != RTMBS_OK) return rtmbs_py_status(s, b->kind->name);
    return ok <= 1 ? PyBool_FromLong(ok) : PyLong_FromLong(ok);
}

static PyObject* bound_step_method(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    return bound_call((bound_step*)self, args, nargs, 0);
}

static PyObject* bound_step_outputs(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    return bound_call((bound_step*)self, args, nargs, 1);
}

static PyMethodDef bound_methods[] = {
    RTMBS_PY_FASTCALL("step", bound_step_method,
                      "step(q, qd, x, t, h) -> bool: one step of h from t, the state (q, qd and "
                      "the extra states x) advanced in place; False for a failed step (an int: "
                      "a step the caller finishes, li-euler-indep's rebase)."),
    RTMBS_PY_FASTCALL("step_outputs", bound_step_outputs,
                      "step_outputs(q, qd, x, t, h, out, at_start) -> bool: step, then the "
                      "named outputs (oidx) into out: at the step's end, or with at_start at its "
                      "start."),
    {NULL, NULL, 0, NULL}};

static PyTypeObject bound_type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "rtmbs.engine._engine.BoundStep",
    .tp_basicsize = sizeof(bound_step),
    .tp_dealloc = (destructor)bound_dealloc,
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "A compiled step bound once to its arrays (BoundStep(kind, args, oidx, diag, counts, "
              "per_step); rtmbs.solvers.bound_step).",
    .tp_methods = bound_methods,
    .tp_new = bound_new,
};

int rtmbs_py_add_bound_type(PyObject* module) {
    if (PyType_Ready(&bound_type) < 0) return -1;
    Py_INCREF(&bound_type);
    if (PyModule_AddObject(module, "BoundStep", (PyObject*)&bound_type) < 0) {
        Py_DECREF(&bound_type);
        return -1;
    }
    return 0;
}
