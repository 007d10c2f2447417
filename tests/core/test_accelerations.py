"""Body accelerations as named outputs: against Euler's equations, the numerical derivative of
the velocity outputs of an accurate run, and between a fixed-step and the reference solver."""
from __future__ import annotations

import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers.simulate import consistent_accelerations, simulate
from rtmbs.system import compile_model

from _models.bodies import free_body


@pytest.mark.parametrize("coords", ["euler-parameters", "euler-angles-zxz"])
def test_free_body_accelerations_follow_euler_equations(coords):
    s = compile_model(free_body(coords))
    st = s.initial_state()
    out = np.zeros(len(s.acceleration_names))
    s.acceleration_outputs(0.0, st.q, st.qd, consistent_accelerations(s, 0.0, st.q, st.qd), out)
    s.evaluate(0.0, st.q, st.qd, s.workspace(), 0)
    A, w = s.data.kin_A[0], s.data.kin_w[0]
    J = A @ s.arrays.body_inertia[0] @ A.T
    wd = np.linalg.solve(J, -np.cross(w, J @ w))  # J ω̇ + ω × J ω = 0 (global axes)
    assert np.linalg.norm(wd) > 1.0
    np.testing.assert_allclose(out[:3], 0.0, atol=1e-12)
    np.testing.assert_allclose(out[3:6], wd, rtol=1e-10, atol=1e-10)


def test_accelerations_are_the_derivative_of_the_velocities():
    s = load_model("double-pendulum")
    h = 1e-3
    ref = simulate(s, "reference", t_end=0.5, h=h, rtol=1e-10, atol=1e-12)
    for c, v in (("ax", "vx"), ("az", "vz"), ("wdy", "wy")):
        a = ref.outputs[f"link2.{c}"]
        d = np.gradient(ref.outputs[f"link2.{v}"], ref.t)
        assert np.abs(a).max() > 5.0
        # central differences: error O(h²) of the third derivative (< 1e-4 relative here)
        np.testing.assert_allclose(a[1:-1], d[1:-1], atol=1e-4 * np.abs(a).max())
    # the fixed-step li-euler reports its step's mean acceleration: first order in h
    errs = []
    for hh in (5e-4, 2.5e-4):
        run = simulate(s, "li-euler", t_end=0.5, h=hh, save_every=int(round(h / hh)))
        errs.append(np.abs(run.outputs["link2.ax"] - ref.outputs["link2.ax"]).max())
    assert errs[1] < 0.6 * errs[0] and errs[1] < 0.05
    assert "link2.ax" not in simulate(s, "li-euler", t_end=0.01, h=1e-3, accelerations=False).outputs
