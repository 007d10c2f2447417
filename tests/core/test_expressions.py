"""Expression inputs: safe parsing, exact time derivatives, and a motion driver that follows one."""
import math

import numpy as np
import pytest

import rtmbs
from rtmbs.errors import ModelError
from rtmbs.engine import _engine
from rtmbs.model import Model
from rtmbs.model.expression import ExpressionError, compile_expression
from rtmbs.system import compile_model

EXPRESSIONS = [
    "0.05*sin(2*pi*1.5*t)",
    "3 - t/2 + t**3",
    "exp(-t)*cos(4*t) + tanh(2*t - 1)",
    "sqrt(1 + t*t) / (2 + atan(t))",
    "log(2 + t)**2.5 - abs(t - 0.4)*e",
    "(1 + t)**(0.5*t)",
    "-tan(0.3*t) + +t",
]
MATH = {"sin": math.sin, "cos": math.cos, "tan": math.tan, "exp": math.exp, "log": math.log,
        "sqrt": math.sqrt, "tanh": math.tanh, "atan": math.atan, "abs": abs, "pi": math.pi, "e": math.e}


def _evaluate(text, t):
    ops, args = compile_expression(text)
    return _engine.expr_eval(t, np.asarray(ops, float), np.asarray(args, float), 0, len(ops))


def _python(text, t):
    return eval(text, {"__builtins__": {}}, dict(MATH, t=t))  # the test's independent oracle


@pytest.mark.parametrize("text", EXPRESSIONS)
def test_value_and_derivatives_against_python_and_finite_differences(text):
    d = 1e-4
    for t in (0.13, 0.61, 1.7):
        f, fd, fdd = _evaluate(text, t)
        assert f == pytest.approx(_python(text, t), rel=1e-14, abs=1e-15)
        fp, fm = _python(text, t + d), _python(text, t - d)
        assert fd == pytest.approx((fp - fm) / (2 * d), rel=1e-6, abs=1e-8)
        assert fdd == pytest.approx((fp - 2 * _python(text, t) + fm) / d**2, rel=1e-5, abs=1e-5)


@pytest.mark.parametrize("text, message", [
    ("__import__('os').system('ls')", "unknown function \"__import__('os').system\""),
    ("x + 1", "unknown name 'x' (allowed: t, pi, e, and the functions sin, cos, tan, exp, log, "
              "sqrt, tanh, atan, abs)"),
    ("t.real", "'t.real' is not allowed"),
    ("t < 1", "'t < 1' is not allowed"),
    ("sin(t, 2)", "sin() takes exactly one argument"),
    ("max(t, 1)", "unknown function 'max'"),
    ("2*(t", "is not valid syntax"),
    ("'a' + t", "'a' is not a number"),
    ("", "expression is empty"),
])
def test_refused_with_the_construct_named(text, message):
    with pytest.raises(ExpressionError) as err:
        compile_expression(text)
    assert message in str(err.value)


def test_stack_depth_is_bounded_at_parse_time():
    deep = "(t+" * 40 + "t" + ")" * 40  # right-nested: every t waits on the stack
    with pytest.raises(ExpressionError, match="nests too deeply"):
        compile_expression(deep)
    ops, _ = compile_expression("+".join(["t"] * 200))  # long but shallow: fine
    assert ops.size == 399


def test_a_bad_expression_in_a_model_names_the_input():
    m = Model(name="bad")
    with pytest.raises((ModelError, ValueError)) as err:
        m.add_input("lift", "expr", expr="sin(2*pi*f*t)")
    assert "unknown name 'f'" in str(err.value)


def _slider(expression):
    """A body on a prismatic joint along ground z, driven by ``expression`` (translation motion)."""
    m = Model(name="driven-slider", gravity=(0.0, 0.0, -9.81))
    m.add_body("slider", 2.0, inertia=[0.1, 0.1, 0.1], position=[0.0, 0.0, 0.0])
    m.add_marker("ground", "rail", [0.0, 0.0, 0.0])
    m.add_marker("slider", "c", [0.0, 0.0, 0.0])
    m.add_joint("guide", "prismatic", "ground.rail", "slider.c")
    m.add_joint("drive", "motion", "ground.rail", "slider.c", dof="translation",
                function={"expr": expression})
    return compile_model(m)


def test_motion_driver_follows_the_expression_exactly():
    """The wheel-centre example of the issue, z = r·sin(ωt) + 0.1·t: positions on the expression to
    round-off (projection), velocities first-order accurate like every li-euler velocity (error
    ≈ h/2·|z̈|, halving with h), which needs the exact Φt of the expression (a wrong or missing Φt
    leaves an O(1) velocity error)."""
    r, w = 0.05, 2 * math.pi * 1.5
    system = _slider(f"{r}*sin({w}*t) + 0.1*t")
    z0, zd0, _ = _evaluate(f"{r}*sin({w}*t) + 0.1*t", 0.0)
    state = system.initial_state()
    assert state.q[2] == pytest.approx(z0, abs=1e-12) and state.qd[2] == pytest.approx(zd0, abs=1e-12)
    errors = []
    for h in (1e-3, 5e-4):
        res = rtmbs.simulate(system, "li-euler", t_end=1.0, h=h)
        t = res.t
        assert np.max(np.abs(res.q[:, 2] - (r * np.sin(w * t) + 0.1 * t))) < 1e-9
        errors.append(np.max(np.abs(res.qd[:, 2] - (r * w * np.cos(w * t) + 0.1))))
        assert errors[-1] < h * r * w * w
    assert errors[0] / errors[1] == pytest.approx(2.0, rel=0.1)
