/* py_elements.c -- binding: force elements, input functions and tables, one call each (test
 * entry points). */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../functions.h"
#include "../elements/elements.h"

/* Global arm sg = A s, point rp and its velocity vp (as forces.c computes it). */
static void point_pv(const rtmbs_data* d, int64_t b, const double* s, double* sg, double* rp,
                     double* vp) {
    const double* A = d->kin_A + 9 * b;
    const double* w = d->kin_w + 3 * b;
    int c;
    for (c = 0; c < 3; c++) sg[c] = A[3 * c] * s[0] + A[3 * c + 1] * s[1] + A[3 * c + 2] * s[2];
    vp[0] = d->kin_rd[3 * b] + w[1] * sg[2] - w[2] * sg[1];
    vp[1] = d->kin_rd[3 * b + 1] + w[2] * sg[0] - w[0] * sg[2];
    vp[2] = d->kin_rd[3 * b + 2] + w[0] * sg[1] - w[1] * sg[0];
    for (c = 0; c < 3; c++) rp[c] = d->kin_r[3 * b + c] + sg[c];
}

/* forces.c's element step, for one element: exactly
 * what the evaluation does before the kernel -- points, velocities, the
 * element's function value -- then the kernel of its type (outs: frc_out row k after column 0).
 * An unknown type counts RTMBS_WARN_UNSUPPORTED and gives 0. */
static double element_forces(const rtmbs_model* m, rtmbs_data* d, int64_t k, double t,
                             int with_jac) {
    int64_t bi = m->frc_body[2 * k], bj = m->frc_body[2 * k + 1];
    int64_t fun = m->frc_fun[m->frc_fun_dim[1] * k];
    double *sgi = d->tmp, *rpi = d->tmp + 3, *vpi = d->tmp + 6;
    double *rpj = d->tmp + 15, *vpj = d->tmp + 18, *dv = d->tmp + 24, *dd = d->tmp + 27;
    double fv = 1.0, f1, f2;
    rtmbs_element_kernel kernel;
    int c;
    for (c = 0; c < 3; c++) {
        d->f[c] = 0.0;
        d->tau[c] = 0.0;
    }
    point_pv(d, bi, m->frc_vec + 6 * k, sgi, rpi, vpi);
    point_pv(d, bj, m->frc_vec + 6 * k + 3, d->sgj, rpj, vpj);
    for (c = 0; c < 3; c++) {
        dv[c] = rpj[c] - rpi[c];
        dd[c] = vpj[c] - vpi[c];
        d->arm_i[c] = dv[c] + sgi[c];
    }
    if (fun >= 0) rtmbs_fun_eval(m, d, fun, t, &fv, &f1, &f2);
    kernel = rtmbs_element_kernel_of(m->frc_type[k]);
    if (!kernel) {
        rtmbs_warn(d, RTMBS_WARN_UNSUPPORTED, k, t);
        return 0.0;
    }
    return kernel(m, d, k, bi, bj, with_jac, fv, d->frc_out + RTMBS_NFOUT * k + 1);
}

/* element(k, t, with_jac, ibuf, ilay, fbuf, flay, sbuf, slay, n, m): the main output of element
 * k on the kinematics in the data; f, tau, their Jacobians and the element's outputs are left
 * in the data */
static PyObject* py_element(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t k;
    int with_jac;
    double t, v;
    (void)self;
    if (rtmbs_py_nargs(nargs, 11, "element") < 0) return NULL;
    k = PyLong_AsLongLong(args[0]);
    t = PyFloat_AsDouble(args[1]);
    with_jac = PyObject_IsTrue(args[2]);
    if (PyErr_Occurred() || with_jac < 0) return NULL;
    if (rtmbs_py_bind_nm(args + 3, args[9], args[10], &m, &d) < 0) return NULL;
    if (k < 0 || k >= m.size.nfrc) {
        PyErr_Format(PyExc_IndexError, "element: no element %lld (the model has %lld)",
                     (long long)k, (long long)m.size.nfrc);
        return NULL;
    }
    v = element_forces(&m, &d, k, t, with_jac);
    return PyFloat_FromDouble(v);
}

/* fun_eval(k, t, ibuf, ilay, fbuf, flay, sbuf, slay, n, m) -> (v, v1, v2) of input function k
 * (functions.c) */
static PyObject* py_fun_eval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t k;
    double t, v, v1, v2;
    (void)self;
    if (rtmbs_py_nargs(nargs, 10, "fun_eval") < 0) return NULL;
    k = PyLong_AsLongLong(args[0]);
    t = PyFloat_AsDouble(args[1]);
    if (PyErr_Occurred() || rtmbs_py_bind_nm(args + 2, args[8], args[9], &m, &d) < 0) return NULL;
    if (k < 0 || k >= m.size.nfun) {
        PyErr_Format(PyExc_IndexError, "fun_eval: no function %lld (the model has %lld)",
                     (long long)k, (long long)m.size.nfun);
        return NULL;
    }
    rtmbs_fun_eval(&m, &d, k, t, &v, &v1, &v2);
    return Py_BuildValue("(ddd)", v, v1, v2);
}

/* table_eval(x, tx, ty, adr, n) -> (y, slope) (functions.c) */
static PyObject* py_table_eval(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *tx, *ty;
    Py_ssize_t nx, ny;
    int64_t adr, n;
    double x, y, slope;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "table_eval") < 0 || rtmbs_py_scalars(args, "d", &x) < 0 ||
        rtmbs_py_scalars(args + 3, "LL", &adr, &n) < 0)
        return NULL;
    if (!(tx = rtmbs_py_array(args[1], NPY_DOUBLE, 0, "tx", &nx))) return NULL;
    if (!(ty = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "ty", &ny))) return NULL;
    if (n < 1 || adr < 0 || adr + n > nx || adr + n > ny) {
        PyErr_SetString(PyExc_ValueError, "table_eval: entries adr .. adr + n - 1 outside tx, ty");
        return NULL;
    }
    y = rtmbs_table_eval(x, tx, ty, adr, n, &slope);
    return Py_BuildValue("(dd)", y, slope);
}

/* element_type(code) -> (has_kernel, torque_only): the element table's row of type `code`
 * (elements/table.c) */
static PyObject* py_element_type(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    int64_t code;
    (void)self;
    if (rtmbs_py_nargs(nargs, 1, "element_type") < 0) return NULL;
    code = PyLong_AsLongLong(args[0]);
    if (PyErr_Occurred()) return NULL;
    return Py_BuildValue("(ii)", rtmbs_element_kernel_of(code) != NULL,
                         rtmbs_element_torque_only(code));
}

PyMethodDef rtmbs_py_elements_methods[] = {
    {"element", (PyCFunction)(void (*)(void))py_element, METH_FASTCALL,
     "element(k, t, with_jac, ibuf, ilay, fbuf, flay, sbuf, slay, n, m): force element k on the "
     "kinematics in the data: returns its main output, "
     "leaves f, tau, dfdx, dfdv, dtdx, dtdv and frc_out[k, 1:] in the data."},
    {"element_type", (PyCFunction)(void (*)(void))py_element_type, METH_FASTCALL,
     "element_type(code) -> (has_kernel, torque_only) of force element type `code` "
     "(rtmbs.kernels.elements.dispatch F_*, torque_only)."},
    {"fun_eval", (PyCFunction)(void (*)(void))py_fun_eval, METH_FASTCALL,
     "fun_eval(k, t, ibuf, ilay, fbuf, flay, sbuf, slay, n, m) -> (v, v1, v2): input function k "
     "and its first two time derivatives at t."},
    {"table_eval", (PyCFunction)(void (*)(void))py_table_eval, METH_FASTCALL,
     "table_eval(x, tx, ty, adr, n) -> (y, slope): linear interpolation, clamped at the ends "
     "(functions.c)."},
    {NULL, NULL, 0, NULL}};
