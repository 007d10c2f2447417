/* py_rebase.c -- binding: the choices of Algorithm 2's rebase between two steps
 * (partition_choice.c): rtmbs.solvers.linalg.select_partition and the row pivots of
 * rtmbs.solvers.sparse.threshold_rows. Not a step: the work arrays are allocated here. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../partition_choice.h"

/* select_partition(phiq, w, cols) -> pivot ratio; phiq, w: m x n (row-major), cols: n */
static PyObject* py_select_partition(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* phiq;
    double *w, *colmax, ratio;
    int64_t* cols;
    Py_ssize_t nphi, nw, n;
    (void)self;
    if (rtmbs_py_nargs(nargs, 3, "select_partition") < 0) return NULL;
    if (!(phiq = rtmbs_py_array(args[0], NPY_DOUBLE, 0, "phiq", &nphi))) return NULL;
    if (!(w = rtmbs_py_array(args[1], NPY_DOUBLE, 1, "w", &nw))) return NULL;
    if (!(cols = rtmbs_py_array(args[2], NPY_INT64, 1, "cols", &n))) return NULL;
    if (n == 0 ? nphi != 0 : nphi % n != 0 || nw < nphi) {
        PyErr_SetString(PyExc_ValueError, "select_partition: phiq is not m x len(cols), or w is "
                                          "shorter than phiq");
        return NULL;
    }
    if (!(colmax = PyMem_Malloc(sizeof(double) * (size_t)(n ? n : 1)))) return PyErr_NoMemory();
    ratio = rtmbs_select_partition(phiq, w, cols, colmax, n ? nphi / n : 0, n);
    PyMem_Free(colmax);
    return PyFloat_FromDouble(ratio);
}

/* threshold_rows_into(rows, cols, vals, pcol, thresh, prow) -> 0, or -1 at a zero column */
static PyObject* py_threshold_rows_into(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const int64_t *rows, *cols, *pcol;
    const double* vals;
    int64_t* prow;
    double thresh;
    Py_ssize_t ne, nc, nv, N, np_, e;
    size_t nn;
    char* buf;
    int r;
    (void)self;
    if (rtmbs_py_nargs(nargs, 6, "threshold_rows_into") < 0) return NULL;
    if (!(rows = rtmbs_py_array(args[0], NPY_INT64, 0, "rows", &ne))) return NULL;
    if (!(cols = rtmbs_py_array(args[1], NPY_INT64, 0, "cols", &nc))) return NULL;
    if (!(vals = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "vals", &nv))) return NULL;
    if (!(pcol = rtmbs_py_array(args[3], NPY_INT64, 0, "pcol", &N))) return NULL;
    thresh = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred()) return NULL;
    if (!(prow = rtmbs_py_array(args[5], NPY_INT64, 1, "prow", &np_))) return NULL;
    if (nc != ne || nv != ne || np_ != N) {
        PyErr_SetString(PyExc_ValueError, "threshold_rows_into: rows, cols and vals differ in "
                                          "length, or prow is not as long as pcol");
        return NULL;
    }
    for (e = 0; e < ne; e++)
        if (rows[e] < 0 || rows[e] >= N || cols[e] < 0 || cols[e] >= N) {
            PyErr_SetString(PyExc_ValueError, "threshold_rows_into: an entry out of 0..N-1");
            return NULL;
        }
    for (e = 0; e < N; e++)
        if (pcol[e] < 0 || pcol[e] >= N) {
            PyErr_SetString(PyExc_ValueError, "threshold_rows_into: pcol out of 0..N-1");
            return NULL;
        }
    nn = (size_t)N * (size_t)N;
    /* A (N*N doubles), count, icol, jlist (N int64 each), nz (N*N), used (N) */
    buf = PyMem_Malloc(sizeof(double) * nn + 3 * sizeof(int64_t) * (size_t)N + nn + (size_t)N + 1);
    if (!buf) return PyErr_NoMemory();
    r = rtmbs_threshold_rows(rows, cols, vals, ne, pcol, thresh, N, prow, (double*)buf,
                             (uint8_t*)(buf + sizeof(double) * nn + 3 * sizeof(int64_t) * N),
                             (int64_t*)(buf + sizeof(double) * nn),
                             (uint8_t*)(buf + sizeof(double) * nn + 3 * sizeof(int64_t) * N + nn),
                             (int64_t*)(buf + sizeof(double) * nn + sizeof(int64_t) * N),
                             (int64_t*)(buf + sizeof(double) * nn + 2 * sizeof(int64_t) * N));
    PyMem_Free(buf);
    return PyLong_FromLong(r);
}

#define FAST RTMBS_PY_FASTCALL
PyMethodDef rtmbs_py_rebase_methods[] = {
    FAST("select_partition", py_select_partition,
         "select_partition(phiq, w, cols) -> pivot ratio (rtmbs.solvers.linalg.select_partition)."),
    FAST("threshold_rows_into", py_threshold_rows_into,
         "threshold_rows_into(rows, cols, vals, pcol, thresh, prow) -> 0, or -1 at a zero column "
         "(rtmbs.solvers.sparse.threshold_rows)."),
    {NULL, NULL, 0, NULL}};
