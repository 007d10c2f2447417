"""The operation-counting number (Kim & Wang 2005 Table 1) on small kernels counted by hand, and the
per-stage counts of both formulations on the SLA quarter car."""
import math

import numpy as np
import pytest

from rtmbs.synthesis import SynthesisSystem, subsystem_model
from rtmbs.synthesis.linalg import solve
from rtmbs.synthesis.opcount import Op, counting, cos, sqrt, unwrap, wrap
from rtmbs.synthesis.table1 import STAGES, operation_counts
from _models.synthesis import sla_model


def test_scalar_kernel_counted_by_hand():
    # |a × b|² of two 3-vectors: cross 6 M·D + 3 A·S, squares 3 M·D, sum 2 A·S; then sqrt, cos
    a, b = [Op(x) for x in (1.0, 2.0, 3.0)], [Op(x) for x in (-1.0, 0.5, 2.0)]
    with counting() as c:
        cx = [a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]]
        s = cx[0] * cx[0] + cx[1] * cx[1] + cx[2] * cx[2]
        r = cos(sqrt(s)) / 2.0 - 1.0
    assert (c.md, c.add, c.fn) == (6 + 3 + 1, 3 + 2 + 1, 2)
    ref = np.cross([1.0, 2.0, 3.0], [-1.0, 0.5, 2.0])
    assert float(r) == pytest.approx(math.cos(np.linalg.norm(ref)) / 2 - 1, rel=1e-15)
    # negation, abs and comparisons are free; a count of 0 is possible
    with counting() as c:
        x = -abs(a[0])
        assert x < a[1]
    assert (c.md, c.add, c.fn) == (0, 0, 0)


def test_numpy_object_arrays_and_solve_by_hand():
    A = wrap([[4.0, 1.0], [2.0, 3.0]])
    b = wrap([1.0, 2.0])
    with counting() as c:
        y = A @ b                                  # 2 rows × (2 M·D + 1 A·S)
    assert (c.md, c.add) == (4, 2)
    assert np.allclose(unwrap(y), [6.0, 8.0])
    with counting() as c:
        x = solve(A, b)
    # forward: 1/a00, f = a10/a00, a11 − f a01, b1 − f b0 -> 4 M·D, 2 A·S;
    # back: 1/u11, x1 = b1/u11 -> 2 M·D; 1/a00, b0 − a01 x1, ·(1/a00) -> 3 M·D, 1 A·S
    assert (c.md, c.add) == (9, 3)
    assert np.allclose(unwrap(x), np.linalg.solve([[4.0, 1.0], [2.0, 3.0]], [1.0, 2.0]))


@pytest.mark.parametrize("form", ["relative-cartesian", "relative-joint"])
def test_stage_counts_of_a_formulation(form):
    """Every stage does work, the counted run gives the float run's accelerations, one more
    Newton iteration adds exactly the position stage's per-iteration count."""
    syn = SynthesisSystem(subsystem_model(sla_model(), "chassis", dof=1), formulation=form)
    q, qd = np.array([0.01, 0.05]), np.array([0.1, 0.5])
    c1 = operation_counts(syn, q, qd, 0.6, iterations=1)
    c2 = operation_counts(syn, q, qd, 0.6, iterations=2)
    assert list(c1) == list(STAGES)
    assert all(c1[s][0] > 0 and c1[s][1] > 0 for s in STAGES)
    assert c2["position"][:2] == (2 * c1["position"][0], 2 * c1["position"][1])
    assert all(c2[s] == c1[s] for s in STAGES[1:])
    # counted values equal float values
    with counting():
        tm = syn.terms(0.6, wrap(q), wrap(qd), iterations=2, counted=True)
        got = unwrap(syn.accelerations(0.6, None, None, tm))
    ref = syn.accelerations(0.6, q, qd)
    assert np.abs(got - ref).max() < 1e-9 * max(1.0, np.abs(ref).max())


def test_counted_lu_with_pivoting_equals_lapack():
    rng = np.random.default_rng(0)
    A, B = rng.normal(size=(7, 7)), rng.normal(size=(7, 2))
    with counting() as c:
        X = unwrap(solve(wrap(A), wrap(B)))
    assert np.abs(X - np.linalg.solve(A, B)).max() < 1e-12
    # LU: Σ_{m=1..6} (1 reciprocal + m multipliers + m² updates) = 118; back substitution's 7
    # reciprocals; per right-hand side 21 forward, 21 + 7 backward
    assert (c.md, c.add) == (118 + 7 + 2 * (21 + 28), 91 + 2 * (21 + 21))
