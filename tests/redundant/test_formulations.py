"""The six acceleration formulations of Pękal & Frączek 2016 (eqs. 10-43) against an independent null-space
solution, an analytical one-degree-of-freedom result, and their applicability conditions."""
import re

import numpy as np
import pytest
import _models.redundant as tm

from rtmbs.errors import FormulationNotApplicable, SolverError
from rtmbs.protocol import EVAL_GAMMA, EVAL_M, EVAL_PHIQ, EVAL_Q
from rtmbs.solvers.formulations import (FORMULATIONS, accelerations, get_formulation)
from rtmbs.tolerances import SOLVER_RANK_RTOL as RANK_RTOL

ALL = list(FORMULATIONS)
REDUNDANT_OK = [f for f in ALL if f != "direct"]
SINGULAR_M_OK = ["pseudoinverse", "least-squares-2", "udwadia-phohomsiri"]
#: agreement of q̈ and λ between formulations and with the reference, relative to their size
TOL = 1e-10


def _close(a, b, tol=TOL):
    return np.linalg.norm(a - b) <= tol * max(1.0, np.linalg.norm(b))


def _check_min_norm(phiq, lam, lam_ref, left_null):
    # λ ⟂ null(Φqᵀ) is the minimum-norm condition; equal to numpy's lstsq min-norm solution
    assert np.linalg.norm(left_null.T @ lam) <= TOL * max(1.0, np.linalg.norm(lam))
    assert _close(lam, lam_ref)
    assert _close(phiq.T @ lam, phiq.T @ lam_ref)


@pytest.mark.parametrize("name", ALL)
def test_non_redundant_random(name):
    M, phiq, Q, g = tm.random_problem(n=10, m=6, r=6, seed=1)
    qdd_ref, lam_ref, _ = tm.nullspace_reference(M, phiq, Q, g)
    qdd, lam = get_formulation(name)(M, phiq, Q, g)
    assert _close(qdd, qdd_ref) and _close(lam, lam_ref)
    assert _close(phiq @ qdd, g)
    assert _close(M @ qdd + phiq.T @ lam, Q)


@pytest.mark.parametrize("name", REDUNDANT_OK)
@pytest.mark.parametrize("seed", [2, 3])
def test_redundant_random_min_norm_multipliers(name, seed):
    M, phiq, Q, g = tm.random_problem(n=12, m=9, r=6, seed=seed)
    qdd_ref, lam_ref, left_null = tm.nullspace_reference(M, phiq, Q, g)
    assert left_null.shape[1] == 3
    qdd, lam = get_formulation(name)(M, phiq, Q, g)
    assert _close(qdd, qdd_ref)
    _check_min_norm(phiq, lam, lam_ref, left_null)
    # another λ (adding a null(Φqᵀ) part) gives the same reactions but a larger norm
    lam2 = lam + left_null @ np.ones(3)
    assert _close(phiq.T @ lam2, phiq.T @ lam) and np.linalg.norm(lam2) > np.linalg.norm(lam)


@pytest.mark.parametrize("name", SINGULAR_M_OK)
def test_singular_mass_redundant(name):
    M, phiq, Q, g = tm.random_problem(n=12, m=9, r=6, mass_rank=9, seed=4)
    assert np.linalg.matrix_rank(M) == 9
    qdd_ref, lam_ref, left_null = tm.nullspace_reference(M, phiq, Q, g)
    qdd, lam = get_formulation(name)(M, phiq, Q, g)
    assert _close(qdd, qdd_ref)
    _check_min_norm(phiq, lam, lam_ref, left_null)


@pytest.mark.parametrize("name", ["udwadia-kalaba", "least-squares-1"])
def test_singular_mass_raises_for_uk_and_ls1(name):
    M, phiq, Q, g = tm.random_problem(n=12, m=9, r=6, mass_rank=9, seed=4)
    msg = (re.escape(f"formulation '{name}' needs a non-singular mass matrix M: rank(M) = 9 < n = 12 "
                     "(condition number ") + r"(inf|[0-9.]+e\+[0-9]+)" +
           re.escape(f"; an eigenvalue counts as zero below rtol² = {RANK_RTOL**2:.3g} times the "
                     "largest); use 'least-squares-2' or 'udwadia-phohomsiri'"))
    with pytest.raises(FormulationNotApplicable, match="^" + msg + "$"):
        get_formulation(name)(M, phiq, Q, g)


def test_direct_raises_on_redundant_constraints():
    M, phiq, Q, g = tm.random_problem(n=12, m=9, r=6, seed=2)
    msg = (re.escape("formulation 'direct' needs independent constraints: rank(Φq) = 6 < m = 9 "
                     "(redundant constraints; σmin/σmax = ") + r"[0-9.]+e-[0-9]+" +
           re.escape(f" ≤ rtol = {RANK_RTOL:.3g}); use 'pseudoinverse', 'udwadia-kalaba', "
                     "'least-squares-1', 'least-squares-2' or 'udwadia-phohomsiri'"))
    with pytest.raises(FormulationNotApplicable, match="^" + msg + "$"):
        get_formulation("direct")(M, phiq, Q, g)


def test_direct_works_with_singular_mass_and_independent_constraints():
    M, phiq, Q, g = tm.random_problem(n=10, m=6, r=6, mass_rank=7, seed=5)
    qdd_ref, lam_ref, _ = tm.nullspace_reference(M, phiq, Q, g)
    qdd, lam = get_formulation("direct")(M, phiq, Q, g)
    assert _close(qdd, qdd_ref) and _close(lam, lam_ref)


@pytest.mark.parametrize("name", ["direct", "pseudoinverse", "least-squares-2", "udwadia-phohomsiri"])
def test_non_unique_accelerations_raise(name):
    # M singular on null(Φq): a zero-mass coordinate that no constraint touches
    M, phiq, Q, g = tm.random_problem(n=8, m=4, r=4, seed=6)
    M[0, :] = M[:, 0] = 0.0
    phiq[:, 0] = 0.0
    with pytest.raises(FormulationNotApplicable, match="the accelerations are not unique"):
        get_formulation(name)(M, phiq, Q, g)


def _dynamics(system, q, qd):
    ws = system.workspace()
    system.evaluate(0.0, q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
    return ws.M.copy(), ws.phiq.copy(), ws.Q.copy(), ws.gamma.copy()


def _theta_dd(system, th):
    """Analytical crank acceleration of the parallelogram (one DOF, Lagrange in θ):
    cranks and fifth bar rotate with θ, the coupler translates with speed a θ̇."""
    a, g = system.a, system.g
    (m0, _), (m1, _), (m2, _), (m3, _) = system.bars
    I_eff = sum(mk * a**2 / 12 + mk * a**2 / 4 for mk in (m0, m1, m3)) + m2 * a**2
    c = (m0 + m1 + m3) * a / 2 + m2 * a
    return -g * c * np.cos(th) / I_eff


@pytest.mark.parametrize("redundant", [True, False])
@pytest.mark.parametrize("th, thd", [(-0.7, 0.0), (-2.0, 3.0)])
def test_parallelogram_all_formulations_agree_with_analytical(redundant, th, thd):
    s = tm.ParallelogramLinkage(redundant)
    q, qd = s.configuration(th, thd)
    M, phiq, Q, g = _dynamics(s, q, qd)
    qdd_ref, lam_ref, left_null = tm.nullspace_reference(M, phiq, Q, g)
    assert left_null.shape[1] == (1 if redundant else 0)
    thdd = _theta_dd(s, th)
    for name in (REDUNDANT_OK if redundant else ALL):
        qdd, lam = get_formulation(name)(M, phiq, Q, g)
        assert abs(qdd[2] - thdd) <= TOL * abs(thdd), name   # crank 0
        assert abs(qdd[11] - thdd) <= TOL * abs(thdd), name  # fifth bar rotates with it
        assert _close(qdd, qdd_ref), name
        _check_min_norm(phiq, lam, lam_ref, left_null)
    if redundant:
        with pytest.raises(FormulationNotApplicable, match=r"rank\(Φq\) = 11 < m = 12"):
            get_formulation("direct")(M, phiq, Q, g)


def test_redundant_and_slot_versions_have_same_accelerations():
    a, b = tm.ParallelogramLinkage(True), tm.ParallelogramLinkage(False)
    q, qd = a.configuration(-1.2, 2.5)
    qa, _ = accelerations("udwadia-kalaba", *_dynamics(a, q, qd))
    qb, _ = accelerations("udwadia-kalaba", *_dynamics(b, q, qd))
    assert _close(qa, qb)


def test_mass_factor_cache_follows_changes_of_m():
    f = get_formulation("udwadia-kalaba")
    M, phiq, Q, g = tm.random_problem(n=8, m=5, r=5, seed=7)
    q1, _ = f(M, phiq, Q, g)
    M2 = M + np.eye(8)
    q2, _ = f(M2, phiq, Q, g)
    assert _close(q2, tm.nullspace_reference(M2, phiq, Q, g)[0])
    assert not _close(q1, q2)


def test_unknown_formulation_names_the_known_ones():
    with pytest.raises(SolverError, match=r"unknown formulation 'udwadia-kalab' \(did you mean "
                                          r"'udwadia-kalaba'\?"):
        get_formulation("udwadia-kalab")
