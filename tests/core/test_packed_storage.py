"""M, Φq, Jq, Jq̇ stored in their fixed blocks (the packed workspace of
``CartesianSystem.packed_layout``, written by the same evaluation with ``_PACKED``), and the
li-euler step of the C engine that reads them."""
from __future__ import annotations

import numpy as np
import pytest

from _models.bodies import differential
from rtmbs.models import BUILTIN, load_model
from rtmbs.protocol import (EVAL_ALL, EVAL_GAMMA, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ,
                            EVAL_Q)
from rtmbs.solvers.base import get_solver
from rtmbs.system import CartesianSystem

FIELDS = ("M", "Q", "phi", "phiq", "phit", "gamma", "Jq", "Jqd")
FLAGS = [EVAL_ALL, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_JAC_STIFF, EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA,
         EVAL_M | EVAL_Q]


def _system(name):
    return differential(3.0) if name == "differential" else load_model(name)


CARTESIAN = [nm for nm in BUILTIN if not nm.startswith("truck")] + ["differential"]


@pytest.mark.parametrize("name", CARTESIAN)
def test_packed_values_scatter_to_the_dense_evaluation_exactly(name):
    s = _system(name)
    assert isinstance(s, CartesianSystem)  # (every model here compiles to one)
    lay = s.packed_layout
    rng = np.random.default_rng(7)
    for k in range(3):  # random (unassembled, unnormalised) states
        q = s._q0 + 0.05 * rng.standard_normal(s.n)
        qd = rng.standard_normal(s.n)
        for what in FLAGS:
            ws = s.workspace()
            s.evaluate(0.1 * k, q, qd, ws, what)
            buf = np.zeros(lay.size)
            s.evaluate_packed(0.1 * k, q, qd, buf, what)
            assert buf[-1] == 0.0  # the zero of the entries outside the blocks
            view = lay.dense(buf, s.workspace())
            for f in FIELDS:
                np.testing.assert_array_equal(getattr(view, f), getattr(ws, f), err_msg=f"{f} {what}")


@pytest.mark.parametrize("name", CARTESIAN)
def test_mass_matrix_lies_in_its_structure(name):
    """li-euler's and Algorithm 2's matrices are patterned on ``mass_structure`` (M's entries:
    m I₃ and the rotation block of each body), so M must have no entry outside it, at any state;
    and the structure is strictly smaller than the blocks (the translations are decoupled)."""
    s = _system(name)
    assert isinstance(s, CartesianSystem)  # (every model here compiles to one)
    ms = s.mass_structure
    assert np.all(s.mass_pattern[ms]) and ms.sum() < s.mass_pattern.sum()
    rng = np.random.default_rng(11)
    for k in range(3):
        q = s._q0 + 0.3 * rng.standard_normal(s.n)
        ws = s.workspace()
        s.evaluate(0.0, q, rng.standard_normal(s.n), ws, EVAL_M)
        assert not np.any(ws.M[~ms])
        assert np.all(np.diag(ws.M)[np.diag(ms)] != 0.0)


@pytest.mark.parametrize("name", ["peer-quarter-car", "multilink-bushings", "sla-car"])
def test_stiff_jacobians_are_zero_outside_the_stiff_blocks_over_a_used_workspace(name):
    """With the stiff terms' Jacobians only, a block no stiff element writes is zeroed without
    its mapping: over workspaces that held every term's Jacobians before (packed and dense),
    Jq and Jq̇ are those of a fresh workspace, zero outside ``jacobian_pattern(True)``, and
    inside it those of the stiff elements (a body's inertia terms, in the full Jacobians, are
    not in them)."""
    s = load_model(name)
    lay = s.packed_layout
    rng = np.random.default_rng(3)
    q = s._q0 + 0.05 * rng.standard_normal(s.n)
    qd = rng.standard_normal(s.n)
    stiff = EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_JAC_STIFF
    fresh = np.zeros(lay.size)
    s.evaluate_packed(0.2, q, qd, fresh, stiff)
    used = np.zeros(lay.size)
    s.evaluate_packed(0.2, q, qd, used, EVAL_ALL)
    full = lay.dense(used, s.workspace())
    full_jq, full_jqd = full.Jq.copy(), full.Jqd.copy()
    s.evaluate_packed(0.2, q, qd, used, stiff)
    ws = s.workspace()
    s.evaluate(0.2, q, qd, ws, EVAL_ALL)
    s.evaluate(0.2, q, qd, ws, stiff)
    pat = s.jacobian_pattern(True)
    blocks = s.jacobian_blocks
    assert np.any(blocks[:, 3] == 0) and np.any(blocks[:, 3] == 1)  # both kinds occur
    a, b = lay.dense(fresh, s.workspace()), lay.dense(used, s.workspace())
    for f in ("Jq", "Jqd"):
        np.testing.assert_array_equal(getattr(b, f), getattr(a, f), err_msg=f)
        np.testing.assert_array_equal(getattr(ws, f), getattr(a, f), err_msg=f)
        assert not np.any(getattr(a, f)[~pat])
    # the full Jacobians differ from the stiff ones outside the stiff blocks (inertia terms)
    assert np.any(full_jq[~pat] != 0.0) and np.any(full_jqd[~pat] != 0.0)


def test_packed_storage_holds_every_pattern_entry_and_grows_with_the_non_zeros():
    s = load_model("multilink-ideal")
    lay = s.packed_layout
    mi, ji, pq = lay.index_maps()
    assert set(zip(*np.nonzero(s.mass_pattern))) <= set(mi)
    assert set(zip(*np.nonzero(s.jacobian_pattern(False)))) <= set(ji)
    assert set(zip(*np.nonzero(s.phiq_pattern))) <= set(pq)
    n, m = s.n, s.m
    nnz = s.mass_pattern.sum() + s.phiq_pattern.sum() + 2 * s.jacobian_pattern(False).sum()
    assert lay.size < 2 * nnz + n + 3 * m + 1 < 3 * n * n + m * n  # (dense: 3n² + mn)


@pytest.mark.parametrize("name", ["four-bar", "mcpherson-simplified", "multilink-ideal", "differential"])
@pytest.mark.parametrize("opts", [{}, {"position_update": "explicit"}, {"jacobian": "all"},
                                  {"stabilize": "none"}])
def test_compiled_step_on_packed_storage_agrees_with_the_dense_path(name, opts):
    """The engine's step (sparse LU on packed workspaces) against the dense step driven from
    Python (dense workspaces, numpy and the engine's dense LU): the same states and multipliers
    to round-off (1e-9 of each one's largest magnitude, at least 1) over 50 steps."""
    s = _system(name)
    runs = []
    for dense in (False, True):
        slv = get_solver("li-euler")(s, linear_solver="dense" if dense else "sparse", **opts)
        st = s.initial_state()
        st.qd = st.qd + 0.01 * np.sin(np.arange(s.n))
        slv.reset(st)
        assert bool(slv.fused) != dense
        traj = []
        for _ in range(50):
            assert slv.step(st, 1e-3)
            traj.append(np.concatenate([st.q, st.qd, slv.lam]))
        runs.append(np.array(traj))
    err = np.abs(runs[0] - runs[1]) / np.maximum(np.abs(runs[1]).max(axis=0), 1.0)
    assert err.max() <= 1e-9, f"differ by {err.max():.2e}"


def test_compiled_li_euler_keeps_no_dense_matrix():
    s = load_model("multilink-ideal")
    slv = get_solver("li-euler")(s, linear_solver="sparse")
    slv.reset(s.initial_state())
    assert slv.fused
    n2 = s.n * s.n
    own = [v for v in vars(slv).values() if isinstance(v, np.ndarray)]
    lus = [v for lu in slv._sparse_factors() for v in vars(lu).values() if isinstance(v, np.ndarray)]
    assert not [a.shape for a in own + lus if a.ndim > 1]
    # the step's own arrays (two packed workspaces, the KKT map, vectors; the sparse factors are
    # O(fill-in)): less than one dense workspace 8(3n² + mn) (there were two, and 3 (n+m)² arrays)
    assert sum(a.nbytes for a in own) < 8 * (3 * n2 + s.m * s.n)
