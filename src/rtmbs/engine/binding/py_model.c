/* py_model.c -- binding: the field table, the data layout and the bound sizes. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"

/* field_table() -> (model_ints, model_floats, data): tuples of (name, ndim, unit, meaning) */
static PyObject* py_field_table(PyObject* self, PyObject* noargs) {
    PyObject *ints, *floats, *data;
    (void)self;
    (void)noargs;
    ints = PyList_New(0);
    floats = PyList_New(0);
    data = PyList_New(0);
    if (!ints || !floats || !data) goto fail;
#define RTMBS_X(name, ndim, unit, doc)                                                     \
    if (PyList_Append(ints, Py_BuildValue("(siss)", #name, ndim, unit, doc)) < 0) goto fail;
    RTMBS_MODEL_INTS(RTMBS_X)
#undef RTMBS_X
#define RTMBS_X(name, ndim, unit, doc)                                                     \
    if (PyList_Append(floats, Py_BuildValue("(siss)", #name, ndim, unit, doc)) < 0) goto fail;
    RTMBS_MODEL_FLOATS(RTMBS_X)
#undef RTMBS_X
#define RTMBS_X(name, ndim, d0, d1, d2, d3, unit, doc)                                     \
    if (PyList_Append(data, Py_BuildValue("(siss)", #name, ndim, unit, doc)) < 0) goto fail;
    RTMBS_DATA(RTMBS_X)
#undef RTMBS_X
    return Py_BuildValue("(NNN)", ints, floats, data);
fail:
    Py_XDECREF(ints);
    Py_XDECREF(floats);
    Py_XDECREF(data);
    return NULL;
}

/* data_layout(nbody, nrow1, nfrc, nblk, nfun, nx) -> (layout (NDATA x 6 int64), total length) */
static PyObject* py_data_layout(PyObject* self, PyObject* args) {
    rtmbs_sizes s = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    npy_intp dims[2] = {RTMBS_NDATA, 6};
    PyObject* lay;
    int64_t total;
    (void)self;
    if (!PyArg_ParseTuple(args, "LLLLLL", &s.nbody, &s.nrow1, &s.nfrc, &s.nblk, &s.nfun, &s.nx))
        return NULL;
    lay = PyArray_ZEROS(2, dims, NPY_INT64, 0);
    if (!lay) return NULL;
    rtmbs_data_layout(&s, (int64_t*)PyArray_DATA((PyArrayObject*)lay), &total);
    return Py_BuildValue("(NL)", lay, (long long)total);
}

/* bound_sizes(ibuf, ilay, fbuf, flay, sbuf, slay, n, m) -> dict of rtmbs_sizes */
static PyObject* py_bound_sizes(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    (void)self;
    if (rtmbs_py_nargs(nargs, 8, "bound_sizes") < 0) return NULL;
    if (rtmbs_py_bind_nm(args, args[6], args[7], &m, &d) < 0) return NULL;
    return Py_BuildValue("{sLsLsLsLsLsLsLsLsLsL}", "nq", m.size.nq, "nc", m.size.nc, "nbody",
                         m.size.nbody, "nprim", m.size.nprim, "nfrc", m.size.nfrc, "nfun",
                         m.size.nfun, "ntab", m.size.ntab, "nblk", m.size.nblk, "nrow1",
                         m.size.nrow1, "nx", m.size.nx);
}

/* enums(): the engine's named constants, for the Python side to check against its own */
static PyObject* py_constants(PyObject* self, PyObject* noargs) {
    (void)self;
    (void)noargs;
    return Py_BuildValue(
        "{sisisisisisisisisisisisisisisi}", "NFUNPAR", RTMBS_NFUNPAR, "NFOUT", RTMBS_NFOUT,
        "NFPAR", RTMBS_NFPAR, "SEG", RTMBS_SEG, "EVAL_M", RTMBS_EVAL_M, "EVAL_Q", RTMBS_EVAL_Q,
        "EVAL_PHI", RTMBS_EVAL_PHI, "EVAL_PHIQ", RTMBS_EVAL_PHIQ, "EVAL_GAMMA", RTMBS_EVAL_GAMMA,
        "EVAL_JAC", RTMBS_EVAL_JAC, "EVAL_JACS", RTMBS_EVAL_JACS, "EVAL_PACKED", RTMBS_EVAL_PACKED,
        "NWARN", RTMBS_NWARN, "NCOUNTER", RTMBS_NCOUNTER, "WARNSLOTS", RTMBS_WARNSLOTS);
}

PyMethodDef rtmbs_py_model_methods[] = {
    {"field_table", py_field_table, METH_NOARGS, "The field table: (model ints, model floats, data)."},
    {"data_layout", py_data_layout, METH_VARARGS, "Data layout for the sizes (nbody, nrow1, nfrc, nblk, nfun, nx)."},
    {"bound_sizes", (PyCFunction)(void (*)(void))py_bound_sizes, METH_FASTCALL, "Sizes of the bound model."},
    {"constants", py_constants, METH_NOARGS, "The engine's named constants."},
    {NULL, NULL, 0, NULL}};
