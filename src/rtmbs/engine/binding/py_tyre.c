/* py_tyre.c -- binding: the tyre and the road. rtmbs.vehicle.tyre.magic_formula, .contact and
 * rtmbs.vehicle.road are these functions (the offline tools, `rtmbs tyre`, road plots); the
 * element entry points (tyre_force, element_tyre, advance_extra_states) take the packed
 * buffers of a compiled model (rtmbs.kernels.layouts).
 *
 * Scalar results come back as tuples. */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "py_common.h"
#include "../stages.h"
#include "../road.h"
#include "../elements/base.h"
#include "../tyre/contact.h"
#include "../tyre/magic_formula.h"
#include "../tyre/tyre_element.h"

/* a float64 array of at least `want` entries (writable if asked); NULL with an exception */
static double* farray(PyObject* obj, int writable, const char* what, Py_ssize_t want) {
    return (double*)rtmbs_py_array_min(obj, NPY_DOUBLE, writable, what, want, NULL);
}

/* the arguments beyond the required ones: flags and floats with defaults */
static int opt_flag(PyObject* const* args, Py_ssize_t nargs, Py_ssize_t i, int dflt) {
    return i < nargs ? PyObject_IsTrue(args[i]) : dflt;
}

static int nargs_between(Py_ssize_t nargs, Py_ssize_t lo, Py_ssize_t hi, const char* name) {
    if (nargs < lo || nargs > hi) {
        PyErr_Format(PyExc_TypeError, "%s() takes %zd to %zd arguments (%zd given)", name, lo, hi,
                     nargs);
        return -1;
    }
    return 0;
}

/* the five scalars (Fz, kappa, alpha, gamma, Vx) at args[1..5] */
static int five(PyObject* const* args, double* x) {
    int i;
    for (i = 0; i < 5; i++) x[i] = PyFloat_AsDouble(args[1 + i]);
    return PyErr_Occurred() ? -1 : 0;
}

static PyObject* dual_tuple(const rtmbs_dual* a) {
    return Py_BuildValue("(dddddd)", a->v[0], a->v[1], a->v[2], a->v[3], a->v[4], a->v[5]);
}

/* mf_steady_state(p, Fz, kappa, alpha, gamma, Vx, out, slip_reduction=True);
 * mf_force_partials(p, Fz, kappa, alpha, gamma, Vx, out, slip_reduction=True): the same inputs,
 * the partial derivatives of the forces into out */
static PyObject* mf_call(PyObject* const* args, Py_ssize_t nargs, int partials) {
    const double* p;
    double x[5], *out;
    int red;
    if (nargs_between(nargs, 7, 8, partials ? "mf_force_partials" : "mf_steady_state") < 0)
        return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM)) || five(args, x) < 0) return NULL;
    if (!(out = farray(args[6], 1, "out", partials ? RTMBS_MF_N_PARTIALS : RTMBS_MF_N_OUT)))
        return NULL;
    if ((red = opt_flag(args, nargs, 7, 1)) < 0) return NULL;
    if (partials)
        rtmbs_mf_force_partials(p, x[0], x[1], x[2], x[3], x[4], out, red);
    else
        rtmbs_mf_steady_state(p, x[0], x[1], x[2], x[3], x[4], out, red);
    Py_RETURN_NONE;
}

RTMBS_PY_FORM(py_mf_steady_state, mf_call, 0)
RTMBS_PY_FORM(py_mf_force_partials, mf_call, 1)

/* mf_evaluate(p, Fz, kappa, alpha, gamma, Vx, out, full, slip_reduction=True) */
static PyObject* py_mf_evaluate(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* p;
    double x[5], *out;
    int full, red;
    (void)self;
    if (nargs_between(nargs, 8, 9, "mf_evaluate") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM)) || five(args, x) < 0) return NULL;
    if (!(out = farray(args[6], 1, "out", RTMBS_MF_N_OUT))) return NULL;
    if ((full = PyObject_IsTrue(args[7])) < 0 || (red = opt_flag(args, nargs, 8, 1)) < 0)
        return NULL;
    rtmbs_mf_evaluate(p, x[0], x[1], x[2], x[3], x[4], out, full, red);
    Py_RETURN_NONE;
}

/* mf_dual(p, Fz, kappa, alpha, gamma, Vx, slip_reduction=True, moments=True, kink_band=0.0)
 * -> (Fx, Fy, Mz, Mx, My), each a 6-tuple */
static PyObject* py_mf_dual(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* p;
    double x[5], band = 0.0;
    int red, mom;
    rtmbs_dual r[5];
    (void)self;
    if (nargs_between(nargs, 6, 9, "mf_dual") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM)) || five(args, x) < 0) return NULL;
    if ((red = opt_flag(args, nargs, 6, 1)) < 0 || (mom = opt_flag(args, nargs, 7, 1)) < 0)
        return NULL;
    if (nargs > 8 && (band = PyFloat_AsDouble(args[8]), PyErr_Occurred())) return NULL;
    rtmbs_mf_dual(p, x[0], x[1], x[2], x[3], x[4], red, mom, band, r);
    return Py_BuildValue("(NNNNN)", dual_tuple(&r[0]), dual_tuple(&r[1]), dual_tuple(&r[2]),
                         dual_tuple(&r[3]), dual_tuple(&r[4]));
}

/* mf_steady_state_batch(p, Fz, kappa, alpha, gamma, Vx, out): mf_steady_state for each entry i
 * of the five 1-D inputs (of one length n) into the row out[i, :] of out (n, N_OUT) */
static PyObject* py_mf_steady_state_batch(PyObject* self, PyObject* const* args,
                                          Py_ssize_t nargs) {
    static const char* names[5] = {"Fz", "kappa", "alpha", "gamma", "Vx"};
    const double *p, *x[5];
    double* out;
    Py_ssize_t n = 0, len, nout, i;
    int k;
    (void)self;
    if (rtmbs_py_nargs(nargs, 7, "mf_steady_state_batch") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM))) return NULL;
    for (k = 0; k < 5; k++) {
        if (!(x[k] = rtmbs_py_array(args[1 + k], NPY_DOUBLE, 0, names[k], &len))) return NULL;
        if (k == 0) n = len;
        if (len != n) {
            PyErr_Format(PyExc_ValueError, "mf_steady_state_batch: %s has %zd entries, Fz %zd",
                         names[k], len, n);
            return NULL;
        }
    }
    if (!(out = rtmbs_py_array(args[6], NPY_DOUBLE, 1, "out", &nout))) return NULL;
    if (nout != n * RTMBS_MF_N_OUT) {
        PyErr_Format(PyExc_ValueError, "mf_steady_state_batch: out has %zd entries, expected "
                     "%zd x %d", nout, n, RTMBS_MF_N_OUT);
        return NULL;
    }
    for (i = 0; i < n; i++)
        rtmbs_mf_steady_state(p, x[0][i], x[1][i], x[2][i], x[3][i], x[4][i],
                              out + i * RTMBS_MF_N_OUT, 1);
    Py_RETURN_NONE;
}

/* mf_moments(p, Fz, kappa, gamma, Vx, Fx, Fy) -> (Mx, My) */
static PyObject* py_mf_moments(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* p;
    double x[6], Mx, My;
    int i;
    (void)self;
    if (rtmbs_py_nargs(nargs, 7, "mf_moments") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM))) return NULL;
    for (i = 0; i < 6; i++) x[i] = PyFloat_AsDouble(args[1 + i]);
    if (PyErr_Occurred()) return NULL;
    rtmbs_mf_moments(p, x[0], x[1], x[2], x[3], x[4], x[5], &Mx, &My);
    return Py_BuildValue("(dd)", Mx, My);
}

/* relaxation_lengths_dual(p, Fz, gamma) -> (sigma_kappa, sigma_alpha), 6-tuples */
static PyObject* py_relaxation_lengths_dual(PyObject* self, PyObject* const* args,
                                            Py_ssize_t nargs) {
    const double* p;
    double Fz, gamma;
    rtmbs_dual sk, sa;
    (void)self;
    if (rtmbs_py_nargs(nargs, 3, "relaxation_lengths_dual") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM))) return NULL;
    Fz = PyFloat_AsDouble(args[1]);
    gamma = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred()) return NULL;
    rtmbs_relaxation_lengths_dual(p, Fz, gamma, &sk, &sa);
    return Py_BuildValue("(NN)", dual_tuple(&sk), dual_tuple(&sa));
}

/* effective_rolling_radius(p, Fz, kappa, Vx, dpi) -> (Re, omega);
 * effective_rolling_radius_d(...) -> (Re, omega, dRe/dFz, dRe/dVx) */
static PyObject* rolling_radius(PyObject* const* args, Py_ssize_t nargs, int with_d) {
    const double* p;
    double x[4], om, dz, dv, Re;
    int i;
    if (rtmbs_py_nargs(nargs, 5, "effective_rolling_radius") < 0) return NULL;
    if (!(p = farray(args[0], 0, "p", RTMBS_MF_N_PARAM))) return NULL;
    for (i = 0; i < 4; i++) x[i] = PyFloat_AsDouble(args[1 + i]);
    if (PyErr_Occurred()) return NULL;
    if (!with_d) {
        Re = rtmbs_effective_rolling_radius(p, x[0], x[1], x[2], x[3], &om);
        return Py_BuildValue("(dd)", Re, om);
    }
    Re = rtmbs_effective_rolling_radius_d(p, x[0], x[1], x[2], x[3], &om, &dz, &dv);
    return Py_BuildValue("(dddd)", Re, om, dz, dv);
}

RTMBS_PY_FORM(py_rolling_radius, rolling_radius, 0)

RTMBS_PY_FORM(py_rolling_radius_d, rolling_radius, 1)

/* road_height_packed(table, x, y) -> (z, dz/dx) */
static PyObject* py_road_height_packed(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double* table;
    Py_ssize_t n;
    double x, y, z, s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 3, "road_height_packed") < 0) return NULL;
    if (!(table = rtmbs_py_array(args[0], NPY_DOUBLE, 0, "table", &n))) return NULL;
    if (n < RTMBS_ROAD_HEADER + 4) {
        PyErr_SetString(PyExc_ValueError, "road_height_packed: table shorter than two samples");
        return NULL;
    }
    x = PyFloat_AsDouble(args[1]);
    y = PyFloat_AsDouble(args[2]);
    if (PyErr_Occurred()) return NULL;
    z = rtmbs_road_height_packed(table, n, x, y, &s);
    return Py_BuildValue("(dd)", z, s);
}

/* road_heights(table, x, y, z_out, slope_out): road_height_packed at each (x[i], y[i]) */
static PyObject* py_road_heights(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *table, *x, *y;
    double *z, *s;
    Py_ssize_t n, nx, ny, nz, ns, i;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "road_heights") < 0) return NULL;
    if (!(table = rtmbs_py_array(args[0], NPY_DOUBLE, 0, "table", &n))) return NULL;
    if (n < RTMBS_ROAD_HEADER + 4) {
        PyErr_SetString(PyExc_ValueError, "road_heights: table shorter than two samples");
        return NULL;
    }
    if (!(x = rtmbs_py_array(args[1], NPY_DOUBLE, 0, "x", &nx))) return NULL;
    if (!(y = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "y", &ny))) return NULL;
    if (!(z = rtmbs_py_array(args[3], NPY_DOUBLE, 1, "z_out", &nz))) return NULL;
    if (!(s = rtmbs_py_array(args[4], NPY_DOUBLE, 1, "slope_out", &ns))) return NULL;
    if (ny != nx || nz != nx || ns != nx) {
        PyErr_Format(PyExc_ValueError, "road_heights: x, y, z_out, slope_out have %zd, %zd, %zd, "
                     "%zd entries (expected one length)", nx, ny, nz, ns);
        return NULL;
    }
    for (i = 0; i < nx; i++) z[i] = rtmbs_road_height_packed(table, n, x[i], y[i], &s[i]);
    Py_RETURN_NONE;
}

/* -- contact ---------------------------------------------------------------------------------- */
static int scalars(PyObject* const* args, Py_ssize_t n, double* x) {
    Py_ssize_t i;
    for (i = 0; i < n; i++) x[i] = PyFloat_AsDouble(args[i]);
    return PyErr_Occurred() ? -1 : 0;
}

/* two_point_follower(h_front, h_rear, z_centre, r_free, lf) -> (beta, h_eff, rho) */
static PyObject* py_two_point_follower(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[5], beta, heff, rho;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "two_point_follower") < 0 || scalars(args, 5, x) < 0) return NULL;
    rho = rtmbs_two_point_follower(x[0], x[1], x[2], x[3], x[4], &beta, &heff);
    return Py_BuildValue("(ddd)", beta, heff, rho);
}

/* slip_quantities(Vx, Vy, omega, r_eff, v_min) -> (kappa, alpha) */
static PyObject* py_slip_quantities(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[5], k, a;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "slip_quantities") < 0 || scalars(args, 5, x) < 0) return NULL;
    rtmbs_slip_quantities(x[0], x[1], x[2], x[3], x[4], &k, &a);
    return Py_BuildValue("(dd)", k, a);
}

/* transient_rates(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha) -> (du, dv) */
static PyObject* py_transient_rates(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[7], du, dv;
    (void)self;
    if (rtmbs_py_nargs(nargs, 7, "transient_rates") < 0 || scalars(args, 7, x) < 0) return NULL;
    rtmbs_transient_rates(x[0], x[1], x[2], x[3], x[4], x[5], x[6], &du, &dv);
    return Py_BuildValue("(dd)", du, dv);
}

/* transient_step(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, h) -> (u, v) */
static PyObject* py_transient_step(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[8];
    (void)self;
    if (rtmbs_py_nargs(nargs, 8, "transient_step") < 0 || scalars(args, 8, x) < 0) return NULL;
    rtmbs_transient_step(&x[0], &x[1], x[2], x[3], x[4], x[5], x[6], x[7]);
    return Py_BuildValue("(dd)", x[0], x[1]);
}

/* transient_slips(u, v, sigma_kappa, sigma_alpha, Vx) -> (kappa', alpha') */
static PyObject* py_transient_slips(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[5], k, a;
    (void)self;
    if (rtmbs_py_nargs(nargs, 5, "transient_slips") < 0 || scalars(args, 5, x) < 0) return NULL;
    rtmbs_transient_slips(x[0], x[1], x[2], x[3], x[4], &k, &a);
    return Py_BuildValue("(dd)", k, a);
}

/* lowspeed_weight(Vx, vxlow) -> (w, dw/dVx) */
static PyObject* py_lowspeed_weight(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[2], w, dw;
    (void)self;
    if (rtmbs_py_nargs(nargs, 2, "lowspeed_weight") < 0 || scalars(args, 2, x) < 0) return NULL;
    w = rtmbs_lowspeed_weight(x[0], x[1], &dw);
    return Py_BuildValue("(dd)", w, dw);
}

/* lag_coefficients(speed, sigma, h) -> (e, phi, de/dspeed, dphi/dspeed) */
static PyObject* py_lag_coefficients(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    double x[3], o[4];
    (void)self;
    if (rtmbs_py_nargs(nargs, 3, "lag_coefficients") < 0 || scalars(args, 3, x) < 0) return NULL;
    rtmbs_lag_coefficients(x[0], x[1], x[2], o);
    return Py_BuildValue("(dddd)", o[0], o[1], o[2], o[3]);
}

/* transient_slips_lowspeed(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, vxlow, h) -> 8-tuple */
static PyObject* py_transient_slips_lowspeed(PyObject* self, PyObject* const* args,
                                             Py_ssize_t nargs) {
    double x[9], o[8];
    (void)self;
    if (rtmbs_py_nargs(nargs, 9, "transient_slips_lowspeed") < 0 || scalars(args, 9, x) < 0)
        return NULL;
    rtmbs_transient_slips_lowspeed(x[0], x[1], x[2], x[3], x[4], x[5], x[6], x[7], x[8], o);
    return Py_BuildValue("(dddddddd)", o[0], o[1], o[2], o[3], o[4], o[5], o[6], o[7]);
}

/* -- the element ------------------------------------------------------------------------------ */

/* tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, rA, vA, w, s, sg, f, tau, dfdx, dfdv,
 * dtdx, dtdv, outs, tmp, G, mf) -> Fn (tmp, G and mf are accepted and not used: the C function
 * keeps its scratch on the stack) */
static PyObject* py_tyre_force(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    const double *par, *tp, *road, *tx, *rA, *vA, *w, *sg;
    double *s, *f, *tau, *dfdx, *dfdv, *dtdx, *dtdv, *outs;
    Py_ssize_t nroad, ntx, nouts;
    int64_t ntp, row, adr, len, xs;
    int with_jac;
    PyArrayObject* tpa;
    (void)self;
    if (rtmbs_py_nargs(nargs, 20, "tyre_force") < 0) return NULL;
    if (!(par = farray(args[0], 0, "par", RTMBS_TP_XSTATE + 1))) return NULL;
    if (!(tp = farray(args[1], 0, "tyre_par", 1))) return NULL;
    tpa = (PyArrayObject*)args[1];
    if (PyArray_NDIM(tpa) != 2 || PyArray_DIM(tpa, 1) < RTMBS_MF_N_PARAM) {
        PyErr_SetString(PyExc_ValueError, "tyre_force: tyre_par must be 2-D with N_PARAM columns");
        return NULL;
    }
    ntp = PyArray_DIM(tpa, 1);
    if (!(road = rtmbs_py_array(args[2], NPY_DOUBLE, 0, "road_buf", &nroad))) return NULL;
    if (!(tx = rtmbs_py_array(args[3], NPY_DOUBLE, 0, "tyre_x", &ntx))) return NULL;
    if ((with_jac = PyObject_IsTrue(args[4])) < 0) return NULL;
    if (!(rA = farray(args[5], 0, "rA", 3)) || !(vA = farray(args[6], 0, "vA", 3)) ||
        !(w = farray(args[7], 0, "w", 3)) || !(s = farray(args[8], 1, "s", 3)) ||
        !(sg = farray(args[9], 0, "sg", 3)) || !(f = farray(args[10], 1, "f", 3)) ||
        !(tau = farray(args[11], 1, "tau", 3)) || !(dfdx = farray(args[12], 1, "dfdx", 36)) ||
        !(dfdv = farray(args[13], 1, "dfdv", 36)) || !(dtdx = farray(args[14], 1, "dtdx", 36)) ||
        !(dtdv = farray(args[15], 1, "dtdv", 36)))
        return NULL;
    if (!(outs = rtmbs_py_array(args[16], NPY_DOUBLE, 1, "outs", &nouts))) return NULL;
    row = (int64_t)par[RTMBS_TP_ROW];
    adr = (int64_t)par[RTMBS_TP_ROAD_ADR];
    len = (int64_t)par[RTMBS_TP_ROAD_LEN];
    xs = (int64_t)par[RTMBS_TP_XSTATE];
    if (row < 0 || row >= PyArray_DIM(tpa, 0) || adr < 0 || len < RTMBS_ROAD_HEADER + 4 ||
        adr + len > nroad || nouts < RTMBS_TO_RHO + 1 ||
        (xs >= 0 && (2 + 2 * xs >= ntx || nouts < RTMBS_TO_N)) || ntx < 1) {
        PyErr_SetString(PyExc_ValueError, "tyre_force: par points outside tyre_par, road_buf or "
                                          "tyre_x, or outs too short");
        return NULL;
    }
    return PyFloat_FromDouble(rtmbs_tyre_force(par, tp, ntp, road, tx, with_jac, rA, vA, w, s, sg,
                                               f, tau, dfdx, dfdv, dtdx, dtdv, outs, nouts));
}

/* element_tyre(k, bi, bj, with_jac, fv, outs, ibuf, ilay, fbuf, flay, sbuf, slay) -> main
 * output: the element kernel on the bound model and data (d->tmp rows 5, 6, d->kin_A, d->kin_w,
 * d->sgj as the force stage leaves them) */
static PyObject* py_element_tyre(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    int64_t k, bi, bj;
    int with_jac;
    double fv, *outs;
    (void)self;
    if (rtmbs_py_nargs(nargs, 12, "element_tyre") < 0) return NULL;
    k = PyLong_AsLongLong(args[0]);
    bi = PyLong_AsLongLong(args[1]);
    bj = PyLong_AsLongLong(args[2]);
    fv = PyFloat_AsDouble(args[4]);
    if (PyErr_Occurred() || (with_jac = PyObject_IsTrue(args[3])) < 0) return NULL;
    if (!(outs = farray(args[5], 1, "outs", RTMBS_NFOUT - 1))) return NULL;
    if (rtmbs_py_bind(args + 6, 0, 0, &m, &d) < 0) return NULL;
    if (k < 0 || k >= m.size.nfrc || m.frc_type[k] != RTMBS_F_TYRE || bj < 0 || bj > m.size.nbody) {
        PyErr_SetString(PyExc_ValueError, "element_tyre: k is not a tyre element or bj no body");
        return NULL;
    }
    return PyFloat_FromDouble(rtmbs_element_tyre(&m, &d, k, bi, bj, with_jac, fv, outs));
}

/* advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h) */
static PyObject* py_advance_extra_states(PyObject* self, PyObject* const* args, Py_ssize_t nargs) {
    rtmbs_model m;
    rtmbs_data d;
    double h;
    rtmbs_status s;
    (void)self;
    if (rtmbs_py_nargs(nargs, 7, "advance_extra_states") < 0) return NULL;
    h = PyFloat_AsDouble(args[6]);
    if (PyErr_Occurred()) return NULL;
    if (rtmbs_py_bind(args, 0, 0, &m, &d) < 0) return NULL;
    s = rtmbs_advance_extra_states(&m, &d, h);
    if (s != RTMBS_OK) return rtmbs_py_status(s, "advance_extra_states");
    Py_RETURN_NONE;
}

/* mf_param_names() -> the parameter names in index order (magic_formula.PARAM_NAMES) */
static PyObject* py_mf_param_names(PyObject* self, PyObject* noargs) {
    static const char* names[] = {
#define RTMBS_X(name) #name,
        RTMBS_MF_PARAMS(RTMBS_X)
#undef RTMBS_X
    };
    PyObject* t = PyTuple_New(RTMBS_MF_N_PARAM);
    int i;
    (void)self;
    (void)noargs;
    if (!t) return NULL;
    for (i = 0; i < RTMBS_MF_N_PARAM; i++) {
        PyObject* s = PyUnicode_FromString(names[i]);
        if (!s) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, s);
    }
    return t;
}

#define FAST RTMBS_PY_FASTCALL

PyMethodDef rtmbs_py_tyre_methods[] = {
    FAST("mf_steady_state", py_mf_steady_state,
         "mf_steady_state(p, Fz, kappa, alpha, gamma, Vx, out, slip_reduction=True)"),
    FAST("mf_evaluate", py_mf_evaluate,
         "mf_evaluate(p, Fz, kappa, alpha, gamma, Vx, out, full, slip_reduction=True)"),
    FAST("mf_steady_state_batch", py_mf_steady_state_batch,
         "mf_steady_state_batch(p, Fz, kappa, alpha, gamma, Vx, out): out[i, :] for each i"),
    FAST("mf_dual", py_mf_dual,
         "mf_dual(p, Fz, kappa, alpha, gamma, Vx, slip_reduction=True, moments=True, "
         "kink_band=0.0) -> (Fx, Fy, Mz, Mx, My) as 6-tuples"),
    FAST("mf_force_partials", py_mf_force_partials,
         "mf_force_partials(p, Fz, kappa, alpha, gamma, Vx, out, slip_reduction=True)"),
    FAST("mf_moments", py_mf_moments, "mf_moments(p, Fz, kappa, gamma, Vx, Fx, Fy) -> (Mx, My)"),
    FAST("relaxation_lengths_dual", py_relaxation_lengths_dual,
         "relaxation_lengths_dual(p, Fz, gamma) -> (sigma_kappa, sigma_alpha) as 6-tuples"),
    FAST("effective_rolling_radius", py_rolling_radius,
         "effective_rolling_radius(p, Fz, kappa, Vx, dpi) -> (Re, omega)"),
    FAST("effective_rolling_radius_d", py_rolling_radius_d,
         "effective_rolling_radius_d(p, Fz, kappa, Vx, dpi) -> (Re, omega, dRe/dFz, dRe/dVx)"),
    FAST("road_height_packed", py_road_height_packed,
         "road_height_packed(table, x, y) -> (z, dz/dx)"),
    FAST("road_heights", py_road_heights,
         "road_heights(table, x, y, z_out, slope_out): road_height_packed at each point"),
    FAST("two_point_follower", py_two_point_follower,
         "two_point_follower(h_front, h_rear, z_centre, r_free, lf) -> (beta, h_eff, rho)"),
    FAST("slip_quantities", py_slip_quantities,
         "slip_quantities(Vx, Vy, omega, r_eff, v_min) -> (kappa, alpha)"),
    FAST("transient_rates", py_transient_rates,
         "transient_rates(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha) -> (du, dv)"),
    FAST("transient_step", py_transient_step,
         "transient_step(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, h) -> (u, v)"),
    FAST("transient_slips", py_transient_slips,
         "transient_slips(u, v, sigma_kappa, sigma_alpha, Vx) -> (kappa', alpha')"),
    FAST("lowspeed_weight", py_lowspeed_weight, "lowspeed_weight(Vx, vxlow) -> (w, dw/dVx)"),
    FAST("lag_coefficients", py_lag_coefficients,
         "lag_coefficients(speed, sigma, h) -> (e, phi, de/dspeed, dphi/dspeed)"),
    FAST("transient_slips_lowspeed", py_transient_slips_lowspeed,
         "transient_slips_lowspeed(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, vxlow, h)"),
    FAST("tyre_force", py_tyre_force,
         "tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, rA, vA, w, s, sg, f, tau, dfdx, "
         "dfdv, dtdx, dtdv, outs, tmp, G, mf) -> Fn: one tyre's force and Jacobians"),
    FAST("element_tyre", py_element_tyre,
         "element_tyre(k, bi, bj, with_jac, fv, outs, ibuf, ilay, fbuf, flay, sbuf, slay)"),
    FAST("advance_extra_states", py_advance_extra_states,
         "advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h)"),
    {"mf_param_names", py_mf_param_names, METH_NOARGS, "The Magic Formula parameter names."},
    {NULL, NULL, 0, NULL}};
