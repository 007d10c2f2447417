"""The C force elements (src/rtmbs/engine/elements/*.c) on a model of this file with every element
type and option no built-in model has: the stops are met on both sides, an unknown type is a
counted warning, and the engine's element table has the registry's types in order. (Their forces
and Jacobians against finite differences: tests/core/test_kernels.py, test_elements.py.)
"""
from __future__ import annotations

from pathlib import Path

import numpy as np

from rtmbs.engine import _engine
from rtmbs.kernels.codes import ROT_EP
from rtmbs.kernels.layouts import DATA, MODEL_FLOATS, MODEL_INTS
from rtmbs.protocol import workspace_size

#: the element types by code (the C element table, engine/elements/table.c)
NAMES = ("spring-damper", "stop", "bushing", "force", "torque", "joint-torque", "brake", "tyre",
         "torsion-spring")
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
    """Kinematics of (q, qd) in the model's data (the engine's evaluate, what = 0) and random
    values, rates and times of the input channels; returns the six kernel buffers."""
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    mi = _views(ib, il, MODEL_INTS)
    dv = _views(sb, sl, DATA)
    for j, ty in enumerate(mi["fun_type"]):
        if ty == 6:  # FUN_CHANNEL: value, rate, acceleration, time set
            dv["fun_par"][j, :4] = rng.uniform(-1, 1, 4) * (200.0, 300.0, 500.0, 0.5)
    wbuf = np.zeros(workspace_size(s.n, s.m))
    _engine.evaluate(0, float(t), q, qd, ib, il, fb, fl, sb, sl, wbuf, s.n, s.m)
    return ib, il, fb, fl, sb, sl


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


def test_element_table_has_the_registry_order():
    """The C element table lists the registry's types in order (a code is an index in both)."""
    from rtmbs.model.registry import FORCE_TYPES

    assert tuple(FORCE_TYPES) == NAMES
