"""Set-up in O(non-zeros): the rank check of Φq by structure (bridges of the body graph) and
dense checks of the closed-loop parts only (solvers/redundancy.py ``independent_rows``), and the
sparse assembly and initial accelerations (assembly.py, solvers/simulate.py)."""
import numpy as np
import pytest

import rtmbs.assembly as assembly
from rtmbs.models import BUILTIN, load_model, model_file
from rtmbs.models.classic import parallelogram_chain, spatial_chain
from rtmbs.solvers import redundancy, simulate
from rtmbs.system import compile_model

MODELS = ["four-bar", "parallelogram-four-bar", "mcpherson-overconstrained", "spatial-chain-10",
          "sedan", "multilink-ideal", "parallelogram-chain-20"]


def _load(name):
    return load_model(name) if name in BUILTIN else load_model(str(model_file(name)))


@pytest.mark.parametrize("name", MODELS)
def test_structural_path_keeps_the_rows_of_the_dense_path(name, monkeypatch):
    """Forced onto the sparse path, every model keeps exactly the rows the dense SVD path keeps
    (the redundant ones: the parallelograms' out-of-plane rows, the overconstrained strut)."""
    system = _load(name)
    st = system.initial_state()
    dense = redundancy.select_rows(redundancy._jacobian(system, st.t, st.q),
                                   redundancy.row_priority(system))
    monkeypatch.setattr(redundancy, "DENSE_RANK_LIMIT", 0)
    kept, left, rank = redundancy.independent_rows(system, st.t, st.q)
    assert rank == dense[2]
    assert np.array_equal(kept, dense[0]) and np.array_equal(left, dense[1])


def test_known_redundancy_counts(monkeypatch):
    monkeypatch.setattr(redundancy, "DENSE_RANK_LIMIT", 0)
    for name, left in (("parallelogram-four-bar", 3), ("parallelogram-chain-20", 60),
                       ("mcpherson-overconstrained", 5), ("spatial-chain-10", 0)):
        system = _load(name)
        st = system.initial_state()
        assert redundancy.independent_rows(system, st.t, st.q)[1].size == left, name


def test_a_large_chain_never_takes_the_dense_path(monkeypatch, capsys):
    """400 links (n 2800, m 1600, m·n above DENSE_RANK_LIMIT): no dense Φq is formed, and the only
    dense rank checks are of single joints (3 rows × 14 columns)."""
    system = compile_model(spatial_chain(400))
    assert system.m * system.n > redundancy.DENSE_RANK_LIMIT
    calls = []
    real = redundancy.select_rows

    def counting(phiq, *a, **k):
        calls.append(phiq.shape)
        return real(phiq, *a, **k)

    def no_dense(*a, **k):
        raise AssertionError("dense Φq formed")

    st = system.initial_state()
    monkeypatch.setattr(redundancy, "select_rows", counting)
    monkeypatch.setattr(redundancy, "_jacobian", no_dense)
    assert redundancy.prepare(system, "li-euler", "remove") is system
    assert len(calls) == 400 and max(c[0] * c[1] for c in calls) <= 3 * 14
    assert "rtmbs: setting up 'spatial-chain-400' (n 2800, m 1600): rank of the constraint " \
           "Jacobian (sparse) ..." in capsys.readouterr().err


def test_large_loops_are_checked_per_loop_part(monkeypatch):
    """A 60-loop parallelogram chain on the sparse path: one closed-loop part, checked densely
    on its own columns; the 180 out-of-plane rows found redundant as on the dense path."""
    system = compile_model(parallelogram_chain(60))
    st = system.initial_state()
    dense = redundancy.select_rows(redundancy._jacobian(system, st.t, st.q),
                                   redundancy.row_priority(system))
    monkeypatch.setattr(redundancy, "DENSE_RANK_LIMIT", 0)
    kept, left, rank = redundancy.independent_rows(system, st.t, st.q)
    assert left.size == 180 and np.array_equal(kept, dense[0])


@pytest.mark.parametrize("name", ["sedan", "spatial-chain-10", "parallelogram-chain-20"])
def test_sparse_assembly_and_accelerations_match_the_dense(name, monkeypatch):
    system = _load(name)
    st = system.initial_state()
    a_dense = simulate.consistent_accelerations(system, 0.0, st.q, st.qd)
    q_dense = assembly.assemble_positions(system, system._q0)
    v_dense = assembly.assemble_velocities(system, q_dense, system._qd0)
    monkeypatch.setattr(assembly, "SPARSE_SETUP_FROM", 0)
    a = simulate.consistent_accelerations(system, 0.0, st.q, st.qd)
    q = assembly.assemble_positions(system, system._q0)
    v = assembly.assemble_velocities(system, q, system._qd0)
    # (1e-6: the compliant sedan (torsion bar, rack mounts) makes the KKT matrix stiffer; the
    # augmented-Lagrangian iteration stops at a residual, the dense solve at round-off)
    assert np.abs(a - a_dense).max() < 1e-6 * max(1.0, np.abs(a_dense).max())
    assert np.abs(q - q_dense).max() < 1e-12 and np.abs(v - v_dense).max() < 1e-12
