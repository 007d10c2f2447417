/* module.c -- the rtmbs.engine._engine extension module: argument helpers and the module itself.
 *
 * Each stage group of the binding keeps its own method table (py_model.c, py_eval.c, ...); the
 * module joins them, so adding a binding is one file and one line in `parts` below.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#define NPY_NO_DEPRECATED_API NPY_1_7_API_VERSION
#define PY_ARRAY_UNIQUE_SYMBOL rtmbs_engine_ARRAY_API
#include <numpy/arrayobject.h>

#include <stdarg.h>

#include "py_common.h"

static const char* dtype_name(int type) {
    if (type == NPY_DOUBLE) return "float64";
    if (type == NPY_INT64) return "int64";
    return type == NPY_UINT32 ? "uint32" : "another dtype";
}

void* rtmbs_py_array(PyObject* obj, int type, int writable, const char* what, Py_ssize_t* len) {
    PyArrayObject* a;
    if (!PyArray_Check(obj)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a numpy array, got %s", what, Py_TYPE(obj)->tp_name);
        return NULL;
    }
    a = (PyArrayObject*)obj;
    if (PyArray_TYPE(a) != type || !PyArray_IS_C_CONTIGUOUS(a) || !PyArray_ISALIGNED(a)) {
        PyErr_Format(PyExc_TypeError, "%s: expected a C-contiguous aligned array of %s", what,
                     dtype_name(type));
        return NULL;
    }
    if (writable && !PyArray_ISWRITEABLE(a)) {
        PyErr_Format(PyExc_ValueError, "%s: the array is read-only", what);
        return NULL;
    }
    if (len) *len = PyArray_SIZE(a);
    return PyArray_DATA(a);
}

void* rtmbs_py_array_min(PyObject* obj, int type, int writable, const char* what,
                         Py_ssize_t want, Py_ssize_t* len) {
    Py_ssize_t l;
    void* p = rtmbs_py_array(obj, type, writable, what, &l);
    if (!p) return NULL;
    if (l < want) {
        PyErr_Format(PyExc_ValueError, "%s: %zd entries, expected at least %zd", what, l, want);
        return NULL;
    }
    if (len) *len = l;
    return p;
}

int rtmbs_py_need(Py_ssize_t have, Py_ssize_t need, const char* name, const char* what) {
    if (have >= need) return 0;
    PyErr_Format(PyExc_ValueError, "%s: %s has %zd values, %zd needed", name, what, have, need);
    return -1;
}

int rtmbs_py_check(int ok, const char* msg) {
    if (ok) return 0;
    PyErr_SetString(PyExc_ValueError, msg);
    return -1;
}

int rtmbs_py_bind(PyObject* const* args, int64_t n, int64_t m, rtmbs_model* model, rtmbs_data* data) {
    Py_ssize_t ni, nil, nf, nfl, ns, nsl;
    const int64_t *ibuf, *ilay, *flay, *slay;
    const double* fbuf;
    double* sbuf;
    int64_t nrow1, nx;
    rtmbs_status s;
    if (!(ibuf = rtmbs_py_array(args[0], NPY_INT64, 0, "ibuf", &ni))) return -1;
    if (!(ilay = rtmbs_py_array(args[1], NPY_INT64, 0, "ilay", &nil))) return -1;
    if (!(fbuf = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "fbuf", &nf))) return -1;
    if (!(flay = rtmbs_py_array(args[3], NPY_INT64, 0, "flay", &nfl))) return -1;
    if (!(sbuf = rtmbs_py_array(args[4], NPY_DOUBLE, 1, "sbuf", &ns))) return -1;
    if (!(slay = rtmbs_py_array(args[5], NPY_INT64, 0, "slay", &nsl))) return -1;
    if (nil != 6 * RTMBS_NMODEL_INTS || nfl != 6 * RTMBS_NMODEL_FLOATS || nsl != 6 * RTMBS_NDATA) {
        PyErr_SetString(PyExc_ValueError, "layout tables do not match the engine's field table "
                                          "(rebuild the extension: pip install -e .)");
        return -1;
    }
    /* the data's own sizes: rows of Dx (nrow1) and extra states (xstate holds h first) */
    nrow1 = slay[6 * RTMBS_D_Dx + 2];
    nx = slay[6 * RTMBS_D_xstate + 2] - 1;
    s = rtmbs_bind_model(model, n, m, nrow1, nx, ibuf, ni, ilay, fbuf, nf, flay);
    if (s != RTMBS_OK) {
        rtmbs_py_status(s, "model buffers");
        return -1;
    }
    s = rtmbs_bind_data(model, data, sbuf, ns, slay);
    if (s != RTMBS_OK) {
        rtmbs_py_status(s, "data buffer");
        return -1;
    }
    return 0;
}

int rtmbs_py_bind_nm(PyObject* const* args, PyObject* n, PyObject* m, rtmbs_model* model,
                     rtmbs_data* data) {
    const int64_t nq = PyLong_AsLongLong(n), nc = PyLong_AsLongLong(m);
    if (PyErr_Occurred()) return -1;
    return rtmbs_py_bind(args, nq, nc, model, data);
}

PyObject* rtmbs_py_status(rtmbs_status s, const char* where) {
    static const char* names[] = {"ok", "layout mismatch", "buffer too short", "singular matrix",
                                  "non-finite state", "unsupported element or option",
                                  "out of memory", "argument out of range"};
    const char* name = (int)s >= 0 && (int)s < (int)(sizeof(names) / sizeof(names[0]))
                           ? names[s] : "unknown status";
    PyErr_Format(PyExc_RuntimeError, "rtmbs engine: %s: %s (status %d)", where, name, (int)s);
    return NULL;
}

int rtmbs_py_step_args(PyObject* const* args, Py_ssize_t ivec, Py_ssize_t iq, const char* name,
                       rtmbs_py_step* a) {
    Py_ssize_t n, nqd, nw0, nw1;
    rtmbs_packed_offsets o;
    if (!(a->q = rtmbs_py_array(args[iq], NPY_DOUBLE, 1, "q", &n))) return -1;
    if (!(a->qd = rtmbs_py_array(args[iq + 1], NPY_DOUBLE, 1, "qd", &nqd))) return -1;
    a->m = PyLong_AsLongLong(args[iq + 2]);
    if (PyErr_Occurred()) return -1;
    a->n = n;
    if (nqd != n || a->m < 0) { /* (m > n: redundant rows, solved with a row map) */
        PyErr_Format(PyExc_ValueError, "%s: q and qd differ in length, or m < 0", name);
        return -1;
    }
    if (rtmbs_py_bind(args, n, a->m, &a->model, &a->data) < 0) return -1;
    if (!(a->w0 = rtmbs_py_array(args[6], NPY_DOUBLE, 1, "w0", &nw0))) return -1;
    if (!(a->w1 = rtmbs_py_array(args[7], NPY_DOUBLE, 1, "w1", &nw1))) return -1;
    if (!(a->vec = rtmbs_py_array(args[ivec], NPY_DOUBLE, 1, "vec", &a->nvec))) return -1;
    rtmbs_packed_workspace(&a->model.size, &o);
    if (rtmbs_py_need(nw0, o.size, name, "w0") < 0 || rtmbs_py_need(nw1, o.size, name, "w1") < 0)
        return -1;
    return 0;
}

int rtmbs_py_kkt(PyObject* const* args, rtmbs_kkt* k) {
    if (!(k->ib = rtmbs_py_array(args[0], NPY_UINT32, 0, "kkt ib", NULL))) return -1;
    if (!(k->fb = rtmbs_py_array(args[1], NPY_DOUBLE, 1, "kkt fb", NULL))) return -1;
    if (!(k->idx = rtmbs_py_array(args[2], NPY_UINT32, 0, "kkt idx", NULL))) return -1;
    return 0;
}

int rtmbs_py_rows(PyObject* obj, int64_t m, const char* name, rtmbs_rows* r,
                  const rtmbs_rows** rows) {
    Py_ssize_t len;
    const int64_t* v;
    int64_t bad;
    *rows = NULL;
    if (obj == Py_None) return 0;
    if (!(v = rtmbs_py_array(obj, NPY_INT64, 0, "rows", &len))) return -1;
    bad = rtmbs_rows_bind(r, v, len, m);
    if (bad == -2) {
        PyErr_Format(PyExc_ValueError, "%s: rows has %zd values, expected 2 + m = %lld (nkept, "
                     "nleft, kept rows, left-out rows)", name, len, (long long)(2 + m));
        return -1;
    }
    if (bad >= 0) {
        PyErr_Format(PyExc_ValueError, "%s: rows: row %lld is not once in the kept or left-out "
                     "rows (both increasing)", name, (long long)bad);
        return -1;
    }
    *rows = r;
    return 0;
}

int rtmbs_py_outputs_args(PyObject* const* args, int with_flag, rtmbs_py_outputs* o) {
    Py_ssize_t nbuf;
    if (!(o->oidx = rtmbs_py_array(args[0], NPY_INT64, 0, with_flag ? "oidx" : "oidx0", &o->nout)))
        return -1;
    if (!(o->out = rtmbs_py_array(args[1], NPY_DOUBLE, 1, with_flag ? "out" : "out0", &nbuf)))
        return -1;
    o->at_start = with_flag ? PyObject_IsTrue(args[2]) : 1;
    if (o->at_start < 0) return -1;
    if (nbuf < o->nout) {
        PyErr_SetString(PyExc_ValueError,
                        with_flag ? "out shorter than oidx" : "out0 shorter than oidx0");
        return -1;
    }
    return 0;
}

rtmbs_status rtmbs_py_outputs_end(rtmbs_status s, int good, rtmbs_py_step* a, double t,
                                  const rtmbs_py_outputs* o) {
    if (s != RTMBS_OK || !good || !o->nout || o->at_start) return s;
    return rtmbs_step_outputs(&a->model, &a->data, t, a->q, a->qd, a->w1, o->oidx, o->nout, o->out);
}

int rtmbs_py_scalars(PyObject* const* args, const char* fmt, ...) {
    va_list ap;
    int k, bad = 0;
    va_start(ap, fmt);
    for (k = 0; fmt[k]; k++) {
        PyObject* x = args[k];
        switch (fmt[k]) {
        case 'd': *va_arg(ap, double*) = PyFloat_AsDouble(x); break;
        case 'L': *va_arg(ap, int64_t*) = PyLong_AsLongLong(x); break;
        case 'i': *va_arg(ap, int*) = (int)PyLong_AsLong(x); break;
        default: bad |= (*va_arg(ap, int*) = PyObject_IsTrue(x)) < 0; break;
        }
    }
    va_end(ap);
    return bad || PyErr_Occurred() ? -1 : 0;
}

int rtmbs_py_rollout_args(PyObject* const* at, PyObject* const* args, const rtmbs_model* m,
                          const char* name, rtmbs_rollout* r) {
    const int64_t n = m->size.nq, c = m->size.nc, nx = m->size.nx;
    Py_ssize_t len[13];
    double** out[10];
    static const char* names[10] = {"out_t", "out_q", "out_qd", "out_qd_prev", "out_lam",
                                    "out_y", "out_x", "q_good", "qd_good", "x_good"};
    int64_t need[10], nrows;
    int k;
    r->t_origin = PyFloat_AsDouble(at[0]);
    r->i0 = PyLong_AsLongLong(at[1]);
    r->n_steps = PyLong_AsLongLong(args[0]);
    r->every = PyLong_AsLongLong(args[1]);
    if (PyErr_Occurred()) return -1;
    if (r->every < 1 || r->n_steps < 0) {
        PyErr_Format(PyExc_ValueError, "%s: n_steps >= 0 and every >= 1", name);
        return -1;
    }
    if (!(r->chan = rtmbs_py_array(args[2], NPY_INT64, 0, "chan", &len[0]))) return -1;
    if (!(r->inputs = rtmbs_py_array(args[3], NPY_DOUBLE, 0, "inputs", &len[1]))) return -1;
    if (!(r->oidx = rtmbs_py_array(args[4], NPY_INT64, 0, "oidx", &len[2]))) return -1;
    r->nchan = len[0];
    r->nout = len[2];
    nrows = r->n_steps / r->every;
    out[0] = &r->rows.t; out[1] = &r->rows.q; out[2] = &r->rows.qd; out[3] = &r->rows.qd_prev;
    out[4] = &r->rows.lam; out[5] = &r->rows.y; out[6] = &r->rows.x;
    out[7] = &r->q_good; out[8] = &r->qd_good; out[9] = &r->x_good;
    need[0] = nrows; need[1] = need[2] = need[3] = nrows * n; need[4] = nrows * c;
    need[5] = nrows * r->nout; need[6] = nrows * nx; need[7] = need[8] = n; need[9] = nx;
    for (k = 0; k < 10; k++) {
        if (!(*out[k] = rtmbs_py_array(args[5 + k], NPY_DOUBLE, 1, names[k], &len[3 + k]))) return -1;
        if (rtmbs_py_need(len[3 + k], need[k], name, names[k]) < 0) return -1;
    }
    return rtmbs_py_need(len[1], r->n_steps * r->nchan, name, "inputs");
}

int rtmbs_py_nargs(Py_ssize_t nargs, Py_ssize_t want, const char* name) {
    if (nargs != want) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd arguments (%zd given)", name, want, nargs);
        return -1;
    }
    return 0;
}

static struct PyModuleDef engine_module = {
    PyModuleDef_HEAD_INIT, "_engine",
    "The rtmbs C engine (src/rtmbs/engine): model, data, stages and steps.", -1, NULL,
    NULL, NULL, NULL, NULL};

PyMODINIT_FUNC PyInit__engine(void) {
    PyMethodDef* parts[] = {
        rtmbs_py_model_methods,
        rtmbs_py_eval_methods,
        rtmbs_py_lu_methods,
        rtmbs_py_tyre_methods,
        rtmbs_py_elements_methods,
        rtmbs_py_step_methods,
        rtmbs_py_alpha_methods,
        rtmbs_py_indep_methods,
        rtmbs_py_explicit_methods,
        rtmbs_py_ode_methods,
        rtmbs_py_rebase_methods,
        rtmbs_py_providers_methods,
        NULL};
    PyObject* mod;
    int p;
    import_array();
    mod = PyModule_Create(&engine_module);
    if (!mod) return NULL;
    for (p = 0; parts[p]; p++)
        if (PyModule_AddFunctions(mod, parts[p]) < 0) {
            Py_DECREF(mod);
            return NULL;
        }
    if (rtmbs_py_add_bound_type(mod) < 0) {
        Py_DECREF(mod);
        return NULL;
    }
    PyModule_AddIntConstant(mod, "ABI_VERSION", RTMBS_ABI_VERSION);
    return mod;
}
