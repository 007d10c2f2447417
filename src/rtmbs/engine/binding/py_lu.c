/* py_lu.c -- binding: the fixed-pattern sparse LU and the KKT gathers (rtmbs.solvers.sparse,
 * rtmbs.solvers.storage.project_kkt), with positional arguments.
 *
 * Per call the binding checks dtypes, contiguity, ib's header against its own length and fb's,
 * and idx's lengths against ib (O(1)); the index values themselves are those SparseLU.analyse and
 * PackedKKTMap made, checked in full by lu_check / kkt_check (O(size), once when the factors are
 * bound).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../sparse_lu.h"

/* A C-contiguous aligned uint32 array (ib, idx): its data pointer and length, or NULL with a
 * Python exception naming `what`. */
static const uint32_t* py_u32(PyObject* obj, const char* what, Py_ssize_t* len) {
    return (const uint32_t*)rtmbs_py_array(obj, NPY_UINT32, 0, what, len);
}

/* ib and fb of a SparseLU, checked against each other (O(1), or in full) */
static int py_factors(PyObject* const* args, const uint32_t** ib, double** fb, int full) {
    Py_ssize_t nib, nfb;
    rtmbs_status s;
    if (!(*ib = py_u32(args[0], "ib", &nib))) return -1;
    if (!(*fb = rtmbs_py_array(args[1], NPY_DOUBLE, 1, "fb", &nfb))) return -1;
    s = rtmbs_lu_check(*ib, nib, nfb, full);
    if (s != RTMBS_OK) {
        rtmbs_py_status(s, "sparse LU index (ib, fb)");
        return -1;
    }
    return 0;
}

/* a float64 vector of length at least n */
static double* py_vec(PyObject* obj, const char* what, Py_ssize_t n, int writable,
                      Py_ssize_t* len) {
    return (double*)rtmbs_py_array_min(obj, NPY_DOUBLE, writable, what, n, len);
}

/* idx of a PackedKKTMap, checked against ib (O(1)) */
static const uint32_t* py_kkt_index(PyObject* obj, const uint32_t* ib, const char* what) {
    Py_ssize_t n;
    rtmbs_status s;
    const uint32_t* idx = py_u32(obj, what, &n);
    if (!idx) return NULL;
    s = rtmbs_kkt_check(ib, idx, n, 0, 0);
    if (s != RTMBS_OK) {
        rtmbs_py_status(s, "packed KKT index against the factors");
        return NULL;
    }
    return idx;
}

static PyObject* pair(double a, double b) { return Py_BuildValue("(dd)", a, b); }

/* lu_refactor(ib, fb) -> (pivot ratio, largest multiplier);
 * lu_pivot_range(ib, fb) -> (min, max) of |u_kk| */
static PyObject* factors_pair(PyObject* const* args, Py_ssize_t nargs, int range) {
    const uint32_t* ib;
    double *fb, a, b;
    if (rtmbs_py_nargs(nargs, 2, range ? "lu_pivot_range" : "lu_refactor") < 0 ||
        py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    if (range)
        rtmbs_lu_pivot_range(ib, fb, &a, &b);
    else
        a = rtmbs_lu_refactor(ib, fb, &b);
    return pair(a, b);
}

RTMBS_PY_FORM(py_lu_refactor, factors_pair, 0)
RTMBS_PY_FORM(py_lu_pivot_range, factors_pair, 1)

static PyObject* solve(PyObject* const* args, Py_ssize_t nargs, int transpose) {
    const char* name = transpose ? "lu_solve_t" : "lu_solve";
    const uint32_t* ib;
    double *fb, *b;
    if (rtmbs_py_nargs(nargs, 3, name) < 0 || py_factors(args, &ib, &fb, 0) < 0) return NULL;
    if (!(b = py_vec(args[2], "b", ib[RTMBS_LU_H_N], 1, NULL))) return NULL;
    if (transpose)
        rtmbs_lu_solve_t(ib, fb, b);
    else
        rtmbs_lu_solve(ib, fb, b);
    Py_RETURN_NONE;
}

/* lu_solve(ib, fb, b): A x = b in place */
RTMBS_PY_FORM(py_lu_solve, solve, 0)

/* lu_solve_t(ib, fb, b): A^T x = b in place */
RTMBS_PY_FORM(py_lu_solve_t, solve, 1)

/* an (N, k) C-contiguous float64 matrix */
static double* py_mat(PyObject* obj, const char* what, npy_intp N, npy_intp* k) {
    double* p = rtmbs_py_array(obj, NPY_DOUBLE, 1, what, NULL);
    PyArrayObject* a = (PyArrayObject*)obj;
    if (!p) return NULL;
    if (PyArray_NDIM(a) != 2 || PyArray_DIM(a, 0) != N || (*k >= 0 && PyArray_DIM(a, 1) != *k)) {
        PyErr_Format(PyExc_ValueError, "%s: expected shape (%zd, k)", what, (Py_ssize_t)N);
        return NULL;
    }
    *k = PyArray_DIM(a, 1);
    return p;
}

/* lu_solve_multi(ib, fb, X, W): A Y = X in place, X and W (N, k) */
static PyObject* py_lu_solve_multi(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* ib;
    double *fb, *X, *W;
    npy_intp k = -1;
    (void)self;
    if (rtmbs_py_nargs(nargs, 4, "lu_solve_multi") < 0 || py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    if (!(X = py_mat(args[2], "X", ib[RTMBS_LU_H_N], &k))) return NULL;
    if (!(W = py_mat(args[3], "W", ib[RTMBS_LU_H_N], &k))) return NULL;
    rtmbs_lu_solve_multi(ib, fb, X, W, (int64_t)k);
    Py_RETURN_NONE;
}

/* lu_rereference(ib, fb) -> bool */
static PyObject* py_lu_rereference(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* ib;
    double* fb;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "lu_rereference") < 0 || py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    return PyBool_FromLong(rtmbs_lu_rereference(ib, fb));
}

/* lu_check(ib, fb): the whole index checked (raises RuntimeError) */
static PyObject* py_lu_check(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* ib;
    double* fb;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "lu_check") < 0 || py_factors(args, &ib, &fb, 1) < 0) return NULL;
    Py_RETURN_NONE;
}

/* lu_flops(ib) -> (refactor, solve, solve with flagged factors): multiply-adds */
static PyObject* py_lu_flops(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* ib;
    Py_ssize_t nib;
    (void)self;
    if (rtmbs_py_nargs(nargs, 1, "lu_flops") < 0 || !(ib = py_u32(args[0], "ib", &nib)))
        return NULL;
    if (rtmbs_lu_check(ib, nib, rtmbs_lu_fb_size(ib), 1) != RTMBS_OK)
        return rtmbs_py_status(RTMBS_ERR_ARGUMENT, "lu_flops: index ib");
    return Py_BuildValue("(LLL)", (long long)rtmbs_lu_flops_refactor(ib),
                         (long long)rtmbs_lu_flops_solve(ib, 0),
                         (long long)rtmbs_lu_flops_solve(ib, 1));
}

/* kkt_check(ib, fb, idx, w): idx checked in full against the factors and a workspace w */
static PyObject* py_kkt_check(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t *ib, *idx;
    double *fb, *w;
    Py_ssize_t nidx, nw;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 4, "kkt_check") < 0 || py_factors(args, &ib, &fb, 1) < 0) return NULL;
    if (!(idx = py_u32(args[2], "idx", &nidx))) return NULL;
    if (!(w = py_vec(args[3], "w", 0, 0, &nw))) return NULL;
    s = rtmbs_kkt_check(ib, idx, nidx, nw, 1);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "kkt_check");
    Py_RETURN_NONE;
}

/* kkt_flops(idx, plain, products, with_phix) -> multiply-adds of one gather */
static PyObject* py_kkt_flops(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* idx;
    Py_ssize_t nidx;
    int plain, products, with_phix;
    (void)self;
    if (rtmbs_py_nargs(nargs, 4, "kkt_flops") < 0 || !(idx = py_u32(args[0], "idx", &nidx)))
        return NULL;
    plain = PyObject_IsTrue(args[1]);
    products = PyObject_IsTrue(args[2]);
    with_phix = PyObject_IsTrue(args[3]);
    if (plain < 0 || products < 0 || with_phix < 0) return NULL;
    return PyLong_FromLongLong(rtmbs_kkt_flops_gather(idx, plain, products, with_phix));
}

/* the scalars c, cd, s of a gather */
static int py_scalars(PyObject* const* args, double* c, double* cd, double* s) {
    *c = PyFloat_AsDouble(args[0]);
    *cd = PyFloat_AsDouble(args[1]);
    *s = PyFloat_AsDouble(args[2]);
    return PyErr_Occurred() ? -1 : 0;
}

/* kkt_values_packed(ib, fb, idx, w0, c, cd, s, w1) -> (ratio, growth) */
static PyObject* py_kkt_values_packed(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t *ib, *idx;
    double *fb, *w0, *w1, c, cd, s, ratio, growth;
    (void)self;
    if (rtmbs_py_nargs(nargs, 8, "kkt_values_packed") < 0 || py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    if (!(idx = py_kkt_index(args[2], ib, "idx"))) return NULL;
    if (!(w0 = py_vec(args[3], "w0", 0, 0, NULL)) || py_scalars(args + 4, &c, &cd, &s) < 0
        || !(w1 = py_vec(args[7], "w1", 0, 0, NULL)))
        return NULL;
    ratio = rtmbs_kkt_values_packed(ib, fb, idx, w0, c, cd, s, w1, &growth);
    return pair(ratio, growth);
}

/* kkt_values_products_packed(ib, fb, idx, w0, c, cd, s, w1, x, jx, phix) -> (ratio, growth) */
static PyObject* py_kkt_values_products_packed(PyObject* self, PyObject* const* args,
                                               Py_ssize_t nargs) {
    const uint32_t *ib, *idx;
    double *fb, *w0, *w1, *x, *jx, *phix, c, cd, s, ratio, growth;
    Py_ssize_t nx, njx, nphix;
    (void)self;
    if (rtmbs_py_nargs(nargs, 11, "kkt_values_products_packed") < 0
        || py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    if (!(idx = py_kkt_index(args[2], ib, "idx"))) return NULL;
    if (!(w0 = py_vec(args[3], "w0", 0, 0, NULL)) || py_scalars(args + 4, &c, &cd, &s) < 0
        || !(w1 = py_vec(args[7], "w1", 0, 0, NULL)) || !(x = py_vec(args[8], "x", 0, 0, &nx))
        || !(jx = py_vec(args[9], "jx", 0, 1, &njx))
        || !(phix = py_vec(args[10], "phix", 0, 1, &nphix)))
        return NULL;
    if ((njx > 0 || nphix > 0) && nx < njx) {
        PyErr_SetString(PyExc_ValueError, "kkt_values_products_packed: x shorter than jx");
        return NULL;
    }
    ratio = rtmbs_kkt_values_products_packed(ib, fb, idx, w0, c, cd, s, w1, x, jx, njx, phix,
                                             nphix, &growth);
    return pair(ratio, growth);
}

/* kkt_gather_packed(idx, w0, c, cd, s, w1, ax, cval) */
static PyObject* py_kkt_gather_packed(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t* idx;
    double *w0, *w1, *ax, *cval, c, cd, s;
    Py_ssize_t nidx, nax, ncv;
    (void)self;
    if (rtmbs_py_nargs(nargs, 8, "kkt_gather_packed") < 0 || !(idx = py_u32(args[0], "idx", &nidx)))
        return NULL;
    if (!(w0 = py_vec(args[1], "w0", 0, 0, NULL)) || py_scalars(args + 2, &c, &cd, &s) < 0
        || !(w1 = py_vec(args[5], "w1", 0, 0, NULL)) || !(ax = py_vec(args[6], "ax", 0, 1, &nax))
        || !(cval = py_vec(args[7], "cval", 0, 1, &ncv)))
        return NULL;
    if (nidx < 4 || nax < (Py_ssize_t)idx[0] + 2 * (Py_ssize_t)idx[1]) {
        PyErr_SetString(PyExc_ValueError, "kkt_gather_packed: ax shorter than the entries of idx");
        return NULL;
    }
    (void)ncv;
    rtmbs_kkt_gather_packed(idx, w0, c, cd, s, w1, ax, cval, NULL, NULL, 0, NULL, 0);
    Py_RETURN_NONE;
}

/* project_kkt(ib, fb, pidx, w0, w1, phi1, h, rhs, dq) -> (ratio, growth) */
static PyObject* py_project_kkt(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const uint32_t *ib, *idx;
    double *fb, *w0, *w1, *phi1, *rhs, *dq, h, ratio, growth;
    Py_ssize_t m, n, nr;
    (void)self;
    if (rtmbs_py_nargs(nargs, 9, "project_kkt") < 0 || py_factors(args, &ib, &fb, 0) < 0)
        return NULL;
    if (!(idx = py_kkt_index(args[2], ib, "pidx"))) return NULL;
    h = PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (!(w0 = py_vec(args[3], "w0", 0, 0, NULL)) || !(w1 = py_vec(args[4], "w1", 0, 1, NULL))
        || !(phi1 = py_vec(args[5], "phi1", 0, 0, &m)) || !(rhs = py_vec(args[7], "rhs", 0, 1, &nr))
        || !(dq = py_vec(args[8], "dq", 0, 1, &n)))
        return NULL;
    if (n + m != (Py_ssize_t)ib[RTMBS_LU_H_N] || nr < n + m) {
        PyErr_SetString(PyExc_ValueError, "project_kkt: len(dq) + len(phi1) must be the KKT "
                                          "size N and len(rhs) >= N");
        return NULL;
    }
    ratio = rtmbs_project_kkt(ib, fb, idx, w0, w1, phi1, m, h, rhs, dq, n, &growth);
    return pair(ratio, growth);
}

/* a 2-d float64 matrix (its number of columns) */
static const double* py_dense(PyObject* obj, const char* what, int64_t* ncol) {
    const double* p = rtmbs_py_array(obj, NPY_DOUBLE, 0, what, NULL);
    if (!p) return NULL;
    if (PyArray_NDIM((PyArrayObject*)obj) != 2) {
        PyErr_Format(PyExc_ValueError, "%s: expected a 2-d array", what);
        return NULL;
    }
    *ncol = PyArray_DIM((PyArrayObject*)obj, 1);
    return p;
}

static PyObject* times(PyObject* const* args, Py_ssize_t nargs, int phiq) {
    const char* name = phiq ? "phiq_times" : "a_times";
    const uint32_t* idx;
    const double *A, *x;
    double* y;
    Py_ssize_t nidx, ny;
    int64_t ncol;
    if (rtmbs_py_nargs(nargs, 4, name) < 0 || !(idx = py_u32(args[0], "idx", &nidx))) return NULL;
    if (!(A = py_dense(args[1], phiq ? "phiq" : "J", &ncol))
        || !(x = py_vec(args[2], "x", 0, 0, NULL))
        || !(y = py_vec(args[3], "y", 0, 1, &ny)))
        return NULL;
    if (phiq)
        rtmbs_phiq_times(idx, A, ncol, x, y, ny);
    else
        rtmbs_a_times(idx, A, ncol, x, y, ny);
    Py_RETURN_NONE;
}

/* phiq_times(idx, phiq, x, y): y = Phi_q x over the entries of a KKTMap idx */
RTMBS_PY_FORM(py_phiq_times, times, 1)

/* a_times(idx, J, x, y): y = J x over the A entries of a KKTMap idx */
RTMBS_PY_FORM(py_a_times, times, 0)

/* lu_constants() -> dict of the constants compiled into the engine (tests compare them) */
static PyObject* py_lu_constants(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    (void)self;
    (void)args;
    if (rtmbs_py_nargs(nargs, 0, "lu_constants") < 0) return NULL;
    return Py_BuildValue("{s:d,s:i,s:i,s:i}", "PIVOT_REL", RTMBS_LU_PIVOT_REL, "NREFINE",
                         RTMBS_LU_NREFINE, "H_LEN", (int)RTMBS_LU_H_LEN, "S_LEN",
                         (int)RTMBS_LU_S_LEN);
}

#define FAST RTMBS_PY_FASTCALL
PyMethodDef rtmbs_py_lu_methods[] = {
    FAST("lu_refactor", py_lu_refactor, "lu_refactor(ib, fb) -> (pivot ratio, largest multiplier)"
         " (rtmbs.solvers.sparse.lu_refactor)."),
    FAST("lu_pivot_range", py_lu_pivot_range, "lu_pivot_range(ib, fb) -> (min, max) of |u_kk|."),
    FAST("lu_solve", py_lu_solve, "lu_solve(ib, fb, b): A x = b in place (lu_solve_sp)."),
    FAST("lu_solve_t", py_lu_solve_t, "lu_solve_t(ib, fb, b): A^T x = b in place (lu_solve_t_sp)."),
    FAST("lu_solve_multi", py_lu_solve_multi,
         "lu_solve_multi(ib, fb, X, W): A Y = X in place, X and W (N, k) (lu_solve_multi_sp)."),
    FAST("lu_rereference", py_lu_rereference,
         "lu_rereference(ib, fb) -> bool: reference pivots from the current values."),
    FAST("lu_check", py_lu_check, "lu_check(ib, fb): check the whole index (RuntimeError)."),
    FAST("lu_flops", py_lu_flops,
         "lu_flops(ib) -> (refactor, solve, flagged solve) multiply-adds."),
    FAST("lu_constants", py_lu_constants, "lu_constants() -> dict of the LU's constants."),
    FAST("kkt_check", py_kkt_check,
         "kkt_check(ib, fb, idx, w): check a packed KKT index against the factors and w."),
    FAST("kkt_flops", py_kkt_flops,
         "kkt_flops(idx, plain, products, with_phix) -> multiply-adds of one gather."),
    FAST("kkt_gather_packed", py_kkt_gather_packed,
         "kkt_gather_packed(idx, w0, c, cd, s, w1, ax, cval) (rtmbs.solvers.sparse)."),
    FAST("kkt_values_packed", py_kkt_values_packed,
         "kkt_values_packed(ib, fb, idx, w0, c, cd, s, w1) -> (ratio, growth)."),
    FAST("kkt_values_products_packed", py_kkt_values_products_packed,
         "kkt_values_products_packed(ib, fb, idx, w0, c, cd, s, w1, x, jx, phix) -> (ratio, "
         "growth)."),
    FAST("project_kkt", py_project_kkt,
         "project_kkt(ib, fb, pidx, w0, w1, phi1, h, rhs, dq) -> (ratio, growth) "
         "(rtmbs.solvers.storage.project_kkt)."),
    FAST("phiq_times", py_phiq_times, "phiq_times(idx, phiq, x, y): y = Phi_q x (KKTMap idx)."),
    FAST("a_times", py_a_times, "a_times(idx, J, x, y): y = J x over the A entries (KKTMap idx)."),
    {NULL, NULL, 0, NULL}};
