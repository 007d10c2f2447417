"""Python callables as inputs of offline runs: a ``motion`` driver on a channel driven
by f(t) follows it as the same function written as an expression does, with or without the
callable's own derivatives; the offline reference sees it exactly; bad callables are named."""
import math

import numpy as np
import pytest

import rtmbs
from rtmbs.errors import SolverError
from rtmbs.model import Model
from rtmbs.system import compile_model

R, W = 0.05, 2 * math.pi * 1.5


def z_exact(t):
    return R * np.sin(W * t) + 0.1 * t


def z_with_derivatives(t):
    return (R * math.sin(W * t) + 0.1 * t, R * W * math.cos(W * t) + 0.1,
            -R * W * W * math.sin(W * t))


def _slider(function):
    """A body on a prismatic joint along ground z whose translation is ``function``."""
    m = Model(name="driven-slider", gravity=(0.0, 0.0, -9.81))
    m.add_body("slider", 2.0, inertia=[0.1, 0.1, 0.1], position=[0.0, 0.0, 0.0])
    m.add_marker("ground", "rail", [0.0, 0.0, 0.0])
    m.add_marker("slider", "c", [0.0, 0.0, 0.0])
    if isinstance(function, str):
        m.add_input("lift", "channel", value=0.0)
    m.add_joint("guide", "prismatic", "ground.rail", "slider.c")
    m.add_joint("drive", "motion", "ground.rail", "slider.c", dof="translation",
                function=function if isinstance(function, str) else {"expr": function["expr"]})
    return compile_model(m)


@pytest.mark.parametrize("fn", [lambda t: float(z_exact(t)), z_with_derivatives],
                         ids=["value-only", "with-derivatives"])
def test_callable_motion_matches_the_expression(fn):
    """li-euler with projection, as the same driver written as an exact expression. Driven from
    Python (dense) the channel is set at each evaluation's own t: positions on f(t) to 1e-9,
    velocities as the expression's to 1e-6. The compiled step (the default) sees the channel's
    Taylor expansion about the step's start: positions within max|f'''| h³/6 = R W³ h³/6
    (7.0e-9 here), velocities within max|f'''| h²/2."""
    driven = _slider("lift")
    exact = _slider({"expr": f"{R}*sin({W}*t) + 0.1*t"})
    h = 1e-3
    for path, pos_tol, vel_tol in (("dense", 1e-9, 1e-6),
                                   ("auto", 1.01 * R * W ** 3 * h ** 3 / 6, R * W ** 3 * h ** 2 / 2)):
        a = rtmbs.simulate(driven, "li-euler", t_end=1.0, h=h, inputs={"lift": fn},
                           linear_solver=path)
        b = rtmbs.simulate(exact, "li-euler", t_end=1.0, h=h, linear_solver=path)
        assert a.q[0, 2] == pytest.approx(0.0, abs=1e-12)  # assembled on f(0) = 0
        # and on f'(0): central differences err by δ²·f'''/6 ≈ 1e-7 here
        assert a.qd[0, 2] == pytest.approx(R * W + 0.1, rel=1e-6)
        assert np.max(np.abs(a.q[:, 2] - z_exact(a.t))) < pos_tol, path
        assert np.max(np.abs(a.qd[:, 2] - b.qd[:, 2])) < vel_tol, path
    # without the driver the channel stays where the model put it (the callable is removed)
    assert driven._input_functions == {}


def test_reference_sees_the_callable_exactly():
    driven = _slider("lift")
    res = rtmbs.simulate(driven, "reference", t_end=0.5, h=1e-3, inputs={"lift": z_with_derivatives},
                         rtol=1e-10, atol=1e-12)
    assert np.max(np.abs(res.q[:, 2] - z_exact(res.t))) < 1e-8
    vz = R * W * np.cos(W * res.t) + 0.1
    assert np.max(np.abs(res.qd[:, 2] - vz)) < 1e-6


def test_bad_callable_inputs_are_named():
    driven = _slider("lift")
    with pytest.raises(SolverError, match="unknown input channel 'lfit'"):
        rtmbs.simulate(driven, "li-euler", t_end=0.01, inputs={"lfit": z_with_derivatives})
    with pytest.raises(SolverError, match="input 'lift': expected a callable f\\(t\\), got float"):
        rtmbs.simulate(driven, "li-euler", t_end=0.01, inputs={"lift": 0.3})
    with pytest.raises(ValueError, match=r"input 'lift': f\(0\) gave \(nan"):
        rtmbs.simulate(driven, "li-euler", t_end=0.01, inputs={"lift": lambda t: math.nan})
