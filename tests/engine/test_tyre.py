"""The C tyre element (src/rtmbs/engine/tyre/tyre_element.c, extra_states.c) against the numba
kernels the solvers' numba steps still call: rtmbs.kernels.tyre_element.tyre_force,
rtmbs.kernels.extra_states.advance_extra_states and the element kernel of
rtmbs.kernels.elements.tyre. These tests go with those kernels. The Magic Formula, the contact
functions and the roads are the engine's alone (rtmbs.vehicle.tyre.magic_formula, .contact,
rtmbs.vehicle.road), tested against MFeval, finite differences and analytic values in
tests/vehicle/test_tyre_*.py, tests/vehicle/test_road.py and tests/core/test_tyre_jacobian.py.

The numba tyre code is compiled without fastmath (no FMA contraction) and the C with
-ffp-contract=off, both call the same libm: every result is compared per entry with a relative
tolerance of 1e-12 (NaN must match NaN). The measured difference is 0 (bit for bit) on every
case here; the tolerance leaves room for a libm or compiler that rounds differently.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.engine import _engine as E
from rtmbs.kernels import tyre_element as te
from rtmbs.kernels.element_kernels.dispatch import F_TYRE
from rtmbs.kernels.extra_states import advance_extra_states
from rtmbs.vehicle import road as R
from rtmbs.vehicle.tyre import magic_formula as mfk
from rtmbs.vehicle.tyre.tir import data_path, load_tir

RTOL = 1e-12
TIR = ("chrono_MagicFormula61_Parameters.tir", "chrono_MagicFormula52_Parameters.tir",
       "chrono_Sedan_Pac02Tire.tir")
#: largest relative difference seen per check (printed with -s)
MEASURED: dict[str, float] = {}


def _close(c, n, what):
    """C result c against numba result n: per entry |c - n| <= RTOL |n|, NaN where NaN."""
    c = np.asarray(c, float)
    n = np.asarray(n, float)
    assert c.shape == n.shape, what
    nan = np.isnan(n)
    assert np.array_equal(nan, np.isnan(c)), f"{what}: NaN pattern differs"
    d = np.abs(c[~nan] - n[~nan])
    scale = np.abs(n[~nan])
    rel = float(np.max(np.where(d > 0, d / np.where(scale > 0, scale, np.inf), 0.0), initial=0.0))
    if np.any((d > 0) & (scale == 0)):
        rel = math.inf
    MEASURED[what] = max(MEASURED.get(what, 0.0), rel)
    bad = d > RTOL * scale
    assert not bad.any(), f"{what}: {int(bad.sum())} entries differ (max rel {rel:.3g})"


@pytest.fixture(scope="module", params=TIR)
def tir(request):
    return request.param, np.asarray(load_tir(data_path(request.param)).params, float)


def test_parameter_table_matches_the_python_indices():
    assert E.mf_param_names() == mfk.PARAM_NAMES
    assert len(E.mf_param_names()) == mfk.N_PARAM


# -- roads ----------------------------------------------------------------------------------------
def _roads(tmp_path):
    """Every kind of road, as the tyre element receives it (the packed table)."""
    roads = {
        "flat": R.flat(0.03),
        "half_sine_bump": R.half_sine_bump(0.05, 0.5, 1.0, dx=2e-3),
        "square_bump": R.square_bump(0.02, 2.0, 5.0, dx=1e-2),
        "ramp": R.ramp(0.1, 20.0, start=-5.0),
        "ramp_down": R.ramp(0.05, 8.0, start=2.0, direction="down"),
        "iso8608": R.iso8608("D", length=50.0, dx=0.05, seed=3, correlation=0.3),
    }
    # a CSV file with uneven spacing (resampled) and different tracks
    x = np.cumsum(np.r_[0.0, np.random.default_rng(1).uniform(0.05, 0.15, 200)]) - 3.0
    path = tmp_path / "road.csv"
    with path.open("w") as fh:
        fh.write("# y_left=0.9 y_right=-0.7\nx,z_left,z_right\n")
        for xi in x:
            xi = float(xi)
            fh.write(f"{xi!r},{0.02 * math.sin(xi)!r},{0.015 * math.cos(1.3 * xi)!r}\n")
    roads["csv"] = R.from_csv(path)
    return {k: np.ascontiguousarray(r.packed(), float) for k, r in roads.items()}


# -- the tyre element -----------------------------------------------------------------------------
def _rot(v):
    th = float(np.linalg.norm(v))
    if th == 0.0:
        return np.eye(3)
    k = np.asarray(v, float) / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def _wheel_state(rng, road, rfree, vmin):
    """A random rim state near contact: spin axis near +y (camber, steer; not normalised), hub
    at the loaded radius give or take (some without contact), speeds from standstill to 40 m/s
    both ways, slip from locked to spinning."""
    R_ = _rot([rng.uniform(-0.12, 0.12), rng.uniform(-0.5, 0.5), rng.uniform(-0.3, 0.3)])
    s = R_[:, 1] * (1.0 + rng.uniform(-1e-3, 1e-3))
    x, y = rng.uniform(-6.0, 30.0), rng.uniform(-1.2, 1.2)
    z = R.road_height_packed(road, x, y)[0] + rfree - rng.uniform(-0.004, 0.035)
    speed = rng.choice([0.0, 0.5 * vmin, -0.5 * vmin, rng.uniform(-1.2, 1.2),
                        rng.uniform(-10.0, 40.0)])
    l = np.cross(s, [0.0, 0.0, 1.0])
    l /= np.linalg.norm(l)
    vA = speed * l + rng.normal(0.0, [0.3, 0.3, 0.2]) * rng.choice([0.0, 1.0, 0.1])
    ws = speed / rfree * (1.0 + rng.choice([0.0, rng.uniform(-0.2, 0.2), rng.uniform(-1, 1)]))
    w = ws * s + rng.normal(0.0, 0.3, 3)
    sg = rng.normal(0.0, 0.05, 3)
    return np.array([x, y, z]), vA, w, s, sg


def _tyre_rows(name):
    from rtmbs.models import load_model

    sysm = load_model(name)
    rows = np.flatnonzero(sysm.arrays_int.frc_type == F_TYRE)
    return sysm, rows


def _compare_tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, state, what):
    rA, vA, w, s, sg = state
    res = []
    for fn in (te.tyre_force, E.tyre_force):
        sv = s.copy()
        f, tau = np.zeros(3), np.zeros(3)
        jac = [np.zeros((3, 12)) for _ in range(4)]
        outs = np.zeros(12)
        fn(par, tyre_par, road_buf, tyre_x, with_jac, rA, vA, w, sv, sg, f, tau, *jac, outs,
           np.zeros((10, 3)), np.zeros((9, 12)), np.zeros(16))
        res.append(np.concatenate([sv, f, tau, *[j.ravel() for j in jac], outs]))
    _close(res[1], res[0], what)
    return res[0]


@pytest.mark.parametrize("model", ["sedan", "sedan-transient"])
def test_tyre_force_on_the_models_tyres(model, tmp_path):
    """tyre_force with and without Jacobians on every tyre of the model: its own (flat) road,
    then each kind of road in its place; transient tyres with deflections and the solver's step
    h = 0 and h > 0."""
    sysm, rows = _tyre_rows(model)
    assert rows.size == 4
    fpar = sysm.arrays.frc_par
    # the model's Magic Formula rows, then each shipped file's (MF 6.1, MF 5.2, PAC2002)
    ntyre = sysm.arrays.tyre_par.shape[0]
    tyre_par = np.ascontiguousarray(np.vstack(
        [sysm.arrays.tyre_par] + [load_tir(data_path(f)).params for f in TIR]), float)
    roads = _roads(tmp_path)
    road_buf = np.concatenate([np.asarray(sysm.arrays.road, float), *roads.values()])
    adr = sysm.arrays.road.size
    spans = [(None, None)]
    for table in roads.values():
        spans.append((adr, table.size))
        adr += table.size
    rng = np.random.default_rng(5)
    contacts = 0
    for r in rows:
        for adr, n in spans:
            par = np.array(fpar[r], float)
            if adr is not None:
                par[te.TP_ROAD_ADR], par[te.TP_ROAD_LEN] = adr, n
            a0 = int(par[te.TP_ROAD_ADR])
            road = road_buf[a0:a0 + int(par[te.TP_ROAD_LEN])]
            for i in range(24):
                par[te.TP_ROW] = fpar[r, te.TP_ROW] if i % 4 == 0 else ntyre + i % 4 - 1
                state = _wheel_state(rng, road, par[te.TP_RFREE], par[te.TP_VMIN])
                tyre_x = np.r_[rng.choice([0.0, 1e-3, 0.01]), rng.normal(0.0, 0.01, 2 * 4)]
                for with_jac in (False, True):
                    out = _compare_tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, state,
                                              f"tyre_force {model}")
                    contacts += out[-12 + te.TO_FZ] > 0.0
    assert contacts > 100  # most states load the tyre
    # a vertical spin axis (no rolling contact defined) and a wheel in the air
    rA, vA, w, s, sg = _wheel_state(rng, road, par[te.TP_RFREE], par[te.TP_VMIN])
    for state in ((rA, vA, w, np.array([0.0, 1e-12, 1.0]), sg), (rA + [0, 0, 1.0], vA, w, s, sg)):
        for with_jac in (False, True):
            out = _compare_tyre_force(par, tyre_par, road_buf, tyre_x, with_jac, state,
                                      f"tyre_force {model}")
            assert not out[3:].any()


def test_element_kernel_on_the_sedan():
    """The element wrapper (marker axis, zeroed Jacobians, tyre_force on the data's rows) against
    the numba element kernel, on bound copies of the sedan-transient's buffers."""
    from rtmbs.kernels.element_kernels import tyre as tk
    from rtmbs.kernels.layout_views import data_buffers, model_floats, model_ints

    sysm, rows = _tyre_rows("sedan-transient")
    ibuf, ilay, fbuf, flay, sbuf, slay = sysm.kernel_buffers()
    mi, mf_ = model_ints(ibuf, ilay), model_floats(fbuf, flay)
    rng = np.random.default_rng(9)
    B = np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, -1.0, 0.0]])  # maps e_z to +y
    for k in rows:
        bi, bj = (int(b) for b in mi.frc_body[k])
        C = mf_.frc_rot[k, 1]
        par = mf_.frc_par[k]
        for _ in range(20):
            buf = np.array(sbuf)
            d = data_buffers(buf, slay)
            rA, vA, w, s, sg = _wheel_state(rng, mf_.road[int(par[te.TP_ROAD_ADR]):][
                :int(par[te.TP_ROAD_LEN])], par[te.TP_RFREE], par[te.TP_VMIN])
            A = _rot(rng.normal(0.0, 0.1, 3)) @ B @ C.T
            d.kin_A[bj] = A
            d.kin_w[bj] = w
            d.tmp[:] = rng.normal(0.0, 1.0, d.tmp.shape)
            d.tmp[5], d.tmp[6] = rA, vA
            d.sgj[:] = sg
            d.xstate[:] = np.r_[rng.choice([0.0, 1e-3]), rng.normal(0.0, 0.01, d.xstate.size - 1)]
            for with_jac in (False, True):
                res = []
                for which in ("numba", "C"):
                    b2 = np.array(buf)
                    d2 = data_buffers(b2, slay)
                    outs = np.zeros(12)
                    for a in (d2.dfdx, d2.dfdv, d2.dtdx, d2.dtdv):
                        a[:] = 7.0  # the kernel clears them with with_jac
                    if which == "numba":
                        main = tk.kernel(k, bi, bj, with_jac, 1.0, par, mf_.frc_rot, mi.frc_tab,
                                         d2.fun_par, d2.kin_A, d2.kin_w,
                                         (d2.f, d2.tau, d2.dfdx, d2.dfdv, d2.dtdx, d2.dtdv),
                                         d2.arm_i, d2.sgj, d2.tmp, d2.S, d2.Dd, d2.Ddd, d2.X,
                                         mf_.tyre_par, mf_.road, d2.xstate, outs, d2.mf)
                    else:
                        main = E.element_tyre(k, bi, bj, with_jac, 1.0, outs, ibuf, ilay, fbuf,
                                              flay, b2, slay)
                    jac = [a.ravel() for a in (d2.dfdx, d2.dfdv, d2.dtdx, d2.dtdv)]
                    if not with_jac:
                        jac = []
                    res.append(np.concatenate([[main], d2.f, d2.tau, d2.tmp[12], *jac, outs]))
                _close(res[1], res[0], "element_tyre sedan-transient")


def test_advance_extra_states_on_the_transient_sedan():
    sysm, rows = _tyre_rows("sedan-transient")
    ibuf, ilay, fbuf, flay, sbuf, slay = sysm.kernel_buffers()
    from rtmbs.kernels.layout_views import data_buffers

    rng = np.random.default_rng(13)
    cols = te.TYRE_TRANSIENT_COLUMNS
    moved = 0
    for _ in range(300):
        base = np.array(sbuf)
        d = data_buffers(base, slay)
        d.xstate[:] = np.r_[0.0, rng.normal(0.0, 0.02, d.xstate.size - 1)]
        for r in rows:
            vsx, vsy = rng.normal(0.0, 2.0, 2)
            vx = rng.choice([0.0, rng.uniform(-1.0, 1.0), rng.uniform(-40.0, 40.0)])
            sk, sa = rng.choice([0.0, 2e-4, rng.uniform(0.05, 0.5)], 2)
            d.frc_out[r, cols] = (vsx, vsy, vx, sk, sa)
        h = rng.choice([0.0, 1e-12, 1e-3, 0.05])
        bn, bc = np.array(base), np.array(base)
        advance_extra_states(ibuf, ilay, fbuf, flay, bn, slay, h)
        E.advance_extra_states(ibuf, ilay, fbuf, flay, bc, slay, h)
        xn, xc = data_buffers(bn, slay).xstate, data_buffers(bc, slay).xstate
        moved += not np.array_equal(xn, d.xstate)
        _close(bc, bn, "advance_extra_states sedan-transient")  # the whole data buffer
        _close(xc, xn, "advance_extra_states sedan-transient")
    assert moved > 200  # the deflections did move


def test_report_measured_differences():
    """(runs last in the file) the largest relative differences measured above, for the log"""
    for k, v in sorted(MEASURED.items()):
        print(f"{k}: max rel diff {v:.3g}")
        assert v <= RTOL
