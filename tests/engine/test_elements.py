"""The C force elements, input functions and tables (src/rtmbs/engine/elements/*.c, functions.c)
against the numba kernels they replace (rtmbs.kernels.forces.element_forces and the element
kernels it dispatches to, rtmbs.kernels.functions.fun_eval and table_eval).

Elements: on the built-in models that have them and on a small model of this file with every
element type and option no built-in model has (tabulated spring-damper and bushing, stops on both
sides, body-fixed forces and torques, torsion springs on Euler-angle bodies), at random states:
the kinematics are filled once by numba's evaluate_cartesian (what = 0), the data buffer is
copied, and numba element_forces and the C `element` run on identical copies (the result fields
prefilled with the same garbage, so a missing write shows). f, tau, dfdx, dfdv, dtdx, dtdv, the
element's frc_out row, the return value and the rest of the data buffer agree to 1e-12 relative
to the largest entry of each array (the numba kernels contract to FMA, the C does not; measured
at most 2.3e-14, a stop of multilink-ideal; 1e-15 on most elements). Input functions: every FUN_* type and every expression opcode on a grid of t,
bit for bit (both sides without FMA, the same libm calls).
"""
from __future__ import annotations

import math
from pathlib import Path

import numpy as np
import pytest
from numba import njit

from rtmbs.engine import _engine
from rtmbs.kernels.evaluate import evaluate_cartesian
from rtmbs.kernels.forces import element_forces
from rtmbs.kernels.functions import fun_eval, table_eval
from rtmbs.kernels.layouts import DATA, MODEL_FLOATS, MODEL_INTS
from rtmbs.kernels.layout_views import data_buffers, model_floats, model_ints
from rtmbs.kernels.rotations import ROT_EP
from rtmbs.kernels.element_kernels.dispatch import F_TYRE
from rtmbs.model import expression as ex
from rtmbs.protocol import workspace_size

ELEMENT_RTOL = 1e-12
#: the element types by code (rtmbs.kernels.element_kernels.dispatch)
NAMES = ("spring-damper", "stop", "bushing", "force", "torque", "joint-torque", "brake", "tyre",
         "torsion-spring")
#: built-in models with force elements (what each brings: see the module docstring of the test)
BUILTIN_MODELS = ("slider-crank", "mcpherson-simplified", "peer-quarter-car", "sla-quarter-car", "sedan",
                  "sla-car", "multilink-bushings", "multilink-ideal", "sedan-bushings", "sedan-rear-axle",
                  "concept-quarter-car", "concept-trailing-arm-car", "concept-ride-7dof")

# every element type and option without a built-in model: tabulated spring-damper (preload with a
# sine), a linear one (preload with a step), stops with exponent 1.5 and 1 close to the initial
# lengths (random states reach both sides), a bushing with tables for 7 of its 12
# characteristics and preloads, a linear one, forces and torques in global and body axes, a
# joint torque, a brake and torsion springs (one on the ground); body b has zxz Euler angles
EXTRA_MODEL = """
name: engine-elements
gravity: [0, 0, -9.81]
inputs:
  c1: {type: constant, value: 2.5}
  stepf: {type: step, t0: 0.1, t1: 0.4, from: 0.5, to: 2.0}
  rampf: {type: ramp, t0: 0.2, slope: 3.0, offset: 1.0}
  trap: {type: trapezoid, t0: 0.1, rise: 0.2, hold: 0.3, fall: 0.25, amplitude: 40, offset: 5}
  wave: {type: sine, amplitude: 3.0, frequency_hz: 1.5, phase: 0.3, offset: 2.0, t0: 0.05}
  curve: {type: table, t: [0, 0.3, 0.5, 0.9, 1.0], values: [0, 5, -2, 4, 1]}
  ex1: {expr: "0.05*sin(2*pi*1.5*t) + 0.1*t - cos(3*t)/(2+t) + tan(0.4*t)"}
  ex2: {expr: "exp(-t)*log(1.5+t) + sqrt(2+t)**1.5 - tanh(3*t-1) + atan(2*t-0.5)*abs(t-0.45) + -(t**2)"}
  ex3: {expr: "(1+t)**-0.5 + e**t + 2**0 + t**1"}
  ex4: {expr: "log(t - 0.77)"}
  ex5: {expr: "sqrt(0.33 - t)"}
  drive: {type: channel, value: 30.0}
  brk: {type: channel, value: 120.0}
ground:
  markers:
    g1: {position: [0, 0, 0]}
    g2: {position: [0.5, 0.2, 0], orientation: {z_axis: [0, 1, 0.2], x_axis: [1, 0, 0]}}
bodies:
  - name: a
    mass: 2.0
    inertia: [0.1, 0.2, 0.25, 0.01, -0.02, 0.015]
    position: [0.1, 0.05, 0.6]
    orientation: {euler_zxz: [0.3, 0.4, -0.2]}
    velocity: [0.3, -0.2, 0.5]
    angular_velocity: [1.0, -2.0, 0.5]
    markers:
      p: {position: [0.05, -0.1, 0.08], orientation: {z_axis: [0.1, 1, 0.3], x_axis: [1, 0, 0]}}
      q: {position: [-0.1, 0.05, -0.02], orientation: {euler_zxz: [0.2, 0.5, 1.0]}}
  - name: b
    mass: 3.0
    inertia: [0.3, 0.25, 0.2]
    position: [0.2, 0.3, 0.2]
    orientation: {euler_zxz: [-0.5, 0.7, 0.4]}
    orientation_coordinates: euler-angles-zxz
    velocity: [-0.1, 0.4, 0.2]
    angular_velocity: [0.5, 1.5, -1.0]
    markers:
      p: {position: [0.02, 0.1, 0.05], orientation: {z_axis: [0.2, 1, -0.1], x_axis: [1, 0, 0]}}
      q: {position: [0.1, -0.05, 0.1], orientation: {euler_zxz: [1.2, 0.3, -0.6]}}
forces:
  - {name: sd_tab, type: spring-damper, marker_i: a.q, marker_j: b.q, preload: 150, function: wave,
     force_table: {deflection: [-0.2, -0.05, 0, 0.05, 0.2], force: [-4000, -600, 0, 800, 5000]},
     damping_table: {velocity: [-1.0, -0.1, 0, 0.1, 1.0], force: [-1500, -400, 0, 900, 3500]}}
  - {name: sd_lin, type: spring-damper, marker_i: ground.g1, marker_j: a.p, stiffness: 2000, damping: 30,
     free_length: 0.5, preload: -80, function: stepf}
  - {name: stop_ab, type: stop, marker_i: a.p, marker_j: b.p, min_length: 0.52, max_length: 0.54,
     stiffness: 2.0e6, exponent: 1.5, damping: 300}
  - {name: stop_gb, type: stop, marker_i: ground.g2, marker_j: b.p, min_length: 0.44, max_length: 0.46,
     stiffness: 1.0e5, exponent: 1, damping: 50}
  - {name: bush_tab, type: bushing, marker_i: a.p, marker_j: b.p,
     stiffness: [0, 3.0e5, 2.0e5], damping: [0, 0, 300], rotational_stiffness: [500, 0, 0],
     rotational_damping: [5, 0, 0], preload_force: [10, -20, 30], preload_torque: [1, -2, 3],
     force_tables: {x: {deflection: [-0.2, -0.04, 0, 0.04, 0.2], force: [-9000, -1600, 0, 1200, 7000]}},
     damping_tables: {x: {velocity: [-1, 0, 1], force: [-400, 0, 400]},
                      y: {velocity: [-2, -0.5, 0, 0.5, 2], force: [-900, -300, 0, 200, 800]}},
     torque_tables: {y: {angle: [-0.5, -0.1, 0, 0.1, 0.5], torque: [-400, -60, 0, 60, 400]},
                     z: {angle: [-1.0, 1.0], torque: [-100, 100]}},
     rotational_damping_tables: {y: {angular_velocity: [-3, 0, 3], torque: [-30, 0, 30]},
                                 z: {angular_velocity: [-5, -1, 0, 1, 5], torque: [-50, -20, 0, 10, 40]}}}
  - {name: bush_lin, type: bushing, marker_i: ground.g2, marker_j: a.q, stiffness: [1.0e5, 2.0e5, 3.0e5],
     damping: [100, 200, 300], rotational_stiffness: [400, 500, 600], rotational_damping: [4, 5, 6],
     preload_force: [5, 6, 7], preload_torque: [0.5, 0.6, 0.7]}
  - {name: f_glob, type: force, marker_j: a.p, direction: [0.2, -0.5, 1.0], function: rampf}
  - {name: f_body, type: force, marker_j: b.q, direction: [1, 0.3, -0.2], frame: body, function: trap}
  - {name: f_const, type: force, marker_j: b.p, direction: [0, 1, 0], function: c1}
  - {name: t_glob, type: torque, marker_j: b.p, direction: [0, 0.3, 1], function: curve}
  - {name: t_body, type: torque, marker_j: a.q, direction: [0.5, 1, 0.1], frame: body, function: ex1}
  - {name: t_body2, type: torque, marker_j: b.q, direction: [0.1, 0.2, 1], frame: body, function: ex2}
  - {name: jt, type: joint-torque, marker_i: a.p, marker_j: b.p, function: drive}
  - {name: brake, type: brake, marker_i: b.p, marker_j: a.p, omega_eps: 0.7, function: brk}
  - {name: tors, type: torsion-spring, marker_i: a.q, marker_j: b.q, stiffness: 300, damping: 4,
     preload: 20, function: ex3}
  - {name: tors2, type: torsion-spring, marker_i: ground.g2, marker_j: b.p, stiffness: 150, damping: 2}
"""
EXTRA = "engine-elements"

_SYSTEMS: dict = {}


def _system(name, tmp_path_factory):
    if name not in _SYSTEMS:
        if name == EXTRA:
            from rtmbs.model import load_model_file
            from rtmbs.system import compile_model

            path = Path(tmp_path_factory.mktemp("models")) / "engine-elements.yaml"
            path.write_text(EXTRA_MODEL)
            _SYSTEMS[name] = compile_model(load_model_file(path))
        else:
            from rtmbs.models import load_model

            _SYSTEMS[name] = load_model(name)
    return _SYSTEMS[name]


def _views(buf, lay, layout):
    """Python views by name of a packed buffer (offset, ndim, d0..d3 per row of ``lay``)."""
    lay = np.asarray(lay).reshape(-1, 6)
    out = {}
    for row, name in zip(lay, layout.names):
        off, nd = int(row[0]), int(row[1])
        shape = tuple(int(x) for x in row[2:2 + nd])
        out[name] = buf[off:off + int(np.prod(shape))].reshape(shape)
    return out


@njit(cache=True, fastmath={"contract"})
def _nb_element(k, t, with_jac, ibuf, ilay, fbuf, flay, sbuf, slay):
    """rtmbs.kernels.forces.element_forces for element k, called as evaluate_cartesian calls it."""
    mi = model_ints(ibuf, ilay)
    mp = model_floats(fbuf, flay)
    d = data_buffers(sbuf, slay)
    funs = (mi.fun_type, d.fun_par, mi.fun_tab, mi.tab_adr, mi.tab_len, mp.tab_x, mp.tab_y)
    fjac = (d.f, d.tau, d.dfdx, d.dfdv, d.dtdx, d.dtdv)
    return element_forces(k, t, with_jac, mi.frc_type, mi.frc_body, mp.frc_vec, mp.frc_rot, mp.frc_par,
                          mi.frc_fun, mi.frc_tab, funs, d.kin_r, d.kin_rd, d.kin_A, d.kin_w, fjac,
                          d.arm_i, d.sgj, d.tmp, d.S, d.Dd, d.Ddd, d.X, mp.tyre_par, mp.road, d.xstate,
                          d.frc_out[k, 1:], d.mf)


@njit(cache=True)
def _nb_fun_eval(k, t, ibuf, ilay, fbuf, flay, sbuf, slay):
    mi = model_ints(ibuf, ilay)
    mp = model_floats(fbuf, flay)
    d = data_buffers(sbuf, slay)
    return fun_eval(k, t, mi.fun_type, d.fun_par, mi.fun_tab, mi.tab_adr, mi.tab_len, mp.tab_x, mp.tab_y)


def _random_state(s, rng):
    """A state near the initial one: positions moved by a few cm and rad (Euler parameters
    normalised), random velocities."""
    st = s.initial_state()
    q = st.q + 0.03 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    for b in range(len(s.body_rtype)):
        a = s.body_qadr[b]
        if s.body_rtype[b] == ROT_EP:
            p = q[a + 3:a + 7]
            p /= np.linalg.norm(p)
            qd[a + 3:a + 7] -= p * (p @ qd[a + 3:a + 7])  # p . pdot = 0
            qd[a + 3:a + 7] *= 3.0
        else:
            qd[a + 3:a + 6] *= 3.0
    return q, qd


def _fill(s, q, qd, t, rng):
    """Kinematics of (q, qd) in the model's data (numba evaluate_cartesian, what = 0) and random
    values, rates and times of the input channels; returns the six kernel buffers."""
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    mi = _views(ib, il, MODEL_INTS)
    dv = _views(sb, sl, DATA)
    for j, ty in enumerate(mi["fun_type"]):
        if ty == 6:  # FUN_CHANNEL: value, rate, acceleration, time set
            dv["fun_par"][j, :4] = rng.uniform(-1, 1, 4) * (200.0, 300.0, 500.0, 0.5)
    wbuf = np.zeros(workspace_size(s.n, s.m))
    evaluate_cartesian(0, float(t), q, qd, ib, il, fb, fl, sb, sl, wbuf, s.n, s.m)
    return ib, il, fb, fl, sb, sl


RESULT_FIELDS = ("f", "tau", "dfdx", "dfdv", "dtdx", "dtdv", "frc_out")
_measured: dict = {}


def _compare_element(name, s, k, t, with_jac, bufs, rng):
    ib, il, fb, fl, sb, sl = bufs
    ty = int(_views(ib, il, MODEL_INTS)["frc_type"][k])
    base = sb.copy()
    lay = _views(base, sl, DATA)
    for fname in RESULT_FIELDS:  # the same garbage on both sides: a missing write shows
        lay[fname][...] = rng.uniform(-1e3, 1e3, lay[fname].shape)
    s_nb, s_c = base.copy(), base.copy()
    v_nb = _nb_element(k, t, with_jac, ib, il, fb, fl, s_nb, sl)
    v_c = _engine.element(k, t, with_jac, ib, il, fb, fl, s_c, sl, s.n, s.m)
    a, b = _views(s_nb, sl, DATA), _views(s_c, sl, DATA)
    worst = 0.0
    checks = [("value", np.array([v_nb]), np.array([v_c]))]
    checks += [(f, a[f], b[f]) for f in RESULT_FIELDS[:-1]]
    checks.append(("frc_out", a["frc_out"][k], b["frc_out"][k]))
    checks += [(f, a[f], b[f]) for f in DATA.names if f not in RESULT_FIELDS]  # no stray writes
    for fname, x, y in checks:
        assert np.all(np.isfinite(x)), (name, k, fname)
        scale = max(np.max(np.abs(x)), 1e-300) if x.size else 1.0
        err = float(np.max(np.abs(x - y)) / scale) if x.size else 0.0
        assert err <= ELEMENT_RTOL, (f"{name}: element {k} ({NAMES[ty]}), with_jac={with_jac}, "
                                     f"{fname}: max relative difference {err:.3g}\nnumba {x}\nC {y}")
        worst = max(worst, err)
    key = (name, NAMES[ty])
    _measured[key] = max(_measured.get(key, 0.0), worst)
    return v_nb


@pytest.mark.parametrize("name", (EXTRA,) + BUILTIN_MODELS)
def test_elements_match_numba(name, tmp_path_factory):
    s = _system(name, tmp_path_factory)
    rng = np.random.default_rng(20261206)
    types = _views(*s.kernel_buffers()[:2], MODEL_INTS)["frc_type"]
    nonzero = np.zeros(len(types), bool)  # elements with a non-zero main output somewhere
    for state in range(5):
        q, qd = _random_state(s, rng)
        t = float(rng.uniform(0.0, 1.2))
        bufs = _fill(s, q, qd, t, rng)
        for k in range(len(types)):
            if types[k] == F_TYRE:  # the tyre element is ported and tested separately
                continue
            for with_jac in (False, True):
                v = _compare_element(name, s, k, t, with_jac, bufs, rng)
                nonzero[k] |= v != 0.0
    if name == EXTRA:  # every element did work (stops: in contact at some state)
        assert nonzero.all(), [k for k in range(len(types)) if not nonzero[k]]
    worst = {n: e for (m, n), e in _measured.items() if m == name}
    print(f"\n{name}: max relative difference per element type {worst}")


def test_extra_model_reaches_both_stop_sides(tmp_path_factory):
    """The stops of the extra model are met below min_length and above max_length."""
    s = _system(EXTRA, tmp_path_factory)
    rng = np.random.default_rng(7)
    signs = set()
    types = _views(*s.kernel_buffers()[:2], MODEL_INTS)["frc_type"]
    stops = [k for k in range(len(types)) if types[k] == 1]
    for _ in range(20):
        q, qd = _random_state(s, rng)
        ib, il, fb, fl, sb, sl = _fill(s, q, qd, 0.0, rng)
        for k in stops:
            _engine.element(k, 0.0, False, ib, il, fb, fl, sb, sl, s.n, s.m)
            L = np.linalg.norm(_views(sb, sl, DATA)["tmp"][8])
            lmin, lmax = _views(fb, fl, MODEL_FLOATS)["frc_par"][k, :2]
            signs.add((k, -1 if L < lmin else (1 if L > lmax else 0)))
    for k in stops:
        assert (k, -1) in signs and (k, 1) in signs, signs


def test_unknown_element_type_warns(tmp_path_factory):
    """An element type without a kernel gives 0 and counts RTMBS_WARN_UNSUPPORTED with its index."""
    s = _system(EXTRA, tmp_path_factory)
    ib, il, fb, fl, sb, sl = (np.array(b, copy=True) for b in s.kernel_buffers())
    mi = _views(ib, il, MODEL_INTS)
    k = 3
    mi["frc_type"][k] = 99
    sb[:] = 0.0
    sb_lay = _views(sb, sl, DATA)
    sb_lay["kin_A"][:] = np.eye(3)
    assert _engine.element(k, 0.5, True, ib, il, fb, fl, sb, sl, s.n, s.m) == 0.0
    warning = _views(sb, sl, DATA)["warning"]
    UNSUPPORTED = 3  # rtmbs.h RTMBS_WARN_UNSUPPORTED: count, last index, last time
    assert warning[UNSUPPORTED].tolist() == [1.0, k, 0.5]


# -- input functions and tables ---------------------------------------------------------------
def test_fun_eval_every_type_matches_numba(tmp_path_factory):
    """Every FUN_* type (channels at random values) and every expression opcode, on a grid of t
    with the break points of the steps, ramps and trapezoids: bit for bit (NaN where numba
    gives NaN: log and sqrt outside their domain)."""
    s = _system(EXTRA, tmp_path_factory)
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    mi = _views(ib, il, MODEL_INTS)
    mf = _views(fb, fl, MODEL_FLOATS)
    dv = _views(sb, sl, DATA)
    types = mi["fun_type"]
    assert sorted(set(types.tolist())) == list(range(8))  # FUN_CONST .. FUN_EXPR all present
    ops = set()
    for j in range(len(types)):
        if types[j] == 7:
            tb = mi["fun_tab"][j]
            ops |= set(mf["tab_x"][mi["tab_adr"][tb]:mi["tab_adr"][tb] + mi["tab_len"][tb]].astype(int).tolist())
    assert ops == set(range(ex.ABS + 1))  # every opcode of rtmbs.model.expression
    rng = np.random.default_rng(3)
    grid = np.concatenate([np.linspace(-0.3, 1.5, 181) + 1e-3 * rng.uniform(size=181),
                           [0.05, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.65, 0.85, 0.9, 1.0, 0.1 + 0.2,
                            0.1 + 0.2 + 0.3, 0.1 + 0.2 + 0.3 + 0.25]])
    for j in range(len(types)):
        pars = [None]
        if types[j] == 6:
            pars = [rng.uniform(-1, 1, 4) * (200.0, 300.0, 500.0, 0.5) for _ in range(3)]
        for p in pars:
            if p is not None:
                dv["fun_par"][j, :4] = p
            for t in grid:
                t = float(t)
                if types[j] == 7 and (abs(t - 0.77) < 1e-9 or abs(t - 0.33) < 1e-9):
                    continue  # numba raises ZeroDivisionError on 1/0 there (C: inf)
                want = _nb_fun_eval(j, t, ib, il, fb, fl, sb, sl)
                got = _engine.fun_eval(j, t, ib, il, fb, fl, sb, sl, s.n, s.m)
                np.testing.assert_array_equal(np.array(got), np.array(want),
                                              err_msg=f"function {j} (type {types[j]}) at t={t!r}")


def test_table_eval_matches_numba():
    """Interpolation, slopes and the clamped ends of tables at an offset in shared tab_x/tab_y,
    bit for bit; abscissae at the break points and beyond both ends."""
    rng = np.random.default_rng(11)
    tx = np.concatenate([rng.uniform(size=5), np.cumsum(rng.uniform(0.1, 1.0, 12)) - 3.0, rng.uniform(size=4)])
    ty = rng.standard_normal(tx.size) * 100.0
    for adr, n in ((5, 12), (5, 2), (6, 7), (5, 1)):
        xs = np.concatenate([np.linspace(tx[adr] - 1.0, tx[adr + n - 1] + 1.0, 301), tx[adr:adr + n]])
        for x in xs:
            want = table_eval(float(x), tx, ty, adr, n)
            got = _engine.table_eval(float(x), tx, ty, adr, n)
            assert got == want, (adr, n, x, got, want)


def test_element_table_matches_dispatch():
    """The C element table has a kernel for every registry code and none outside, and the same
    torque_only flags as rtmbs.kernels.element_kernels.dispatch.torque_only."""
    from rtmbs.kernels.element_kernels import dispatch
    from rtmbs.model.registry import FORCE_TYPES

    codes = {name: getattr(dispatch, name) for name in dir(dispatch) if name.startswith("F_")}
    assert tuple(FORCE_TYPES) == NAMES  # registry order = the codes of the C table
    assert sorted(codes.values()) == list(range(len(NAMES)))
    for code in range(-2, len(NAMES) + 3):
        has, torque_only = _engine.element_type(code)
        assert has == (0 <= code < len(NAMES)), code
        assert torque_only == (bool(dispatch.torque_only(code)) if has else False), code
