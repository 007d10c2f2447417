"""McPherson struts of Pękal & Frączek 2016 §4.1 on the Cartesian assembler with zxz Euler angles."""
import numpy as np
import pytest

from rtmbs.errors import FormulationNotApplicable
from rtmbs.models.mcpherson import build
from rtmbs.protocol import EVAL_GAMMA, EVAL_M, EVAL_PHIQ, EVAL_Q
from rtmbs.solvers.formulations import FORMULATIONS, get_formulation
from rtmbs.solvers.index1 import integrate_index1


@pytest.fixture(scope="module")
def struts():
    return build(False), build(True)


def test_sizes_rank_and_mobility(struts):
    simp, over = struts
    for s, m in ((simp, 26), (over, 31)):
        q = s.initial_state().q
        assert (s.n, s.m) == (30, m)
        assert s.rank(q) == 26  # 30 − 26 = 4 DOF in both (Pękal & Frączek 2016 §4.1)
        assert np.linalg.norm(s.constraints(q)) < 1e-12
        w = np.linalg.eigvalsh(s.mass(q))
        assert w.min() > 0  # zxz angles away from nutation 0: regular M (Pękal & Frączek 2016 §4.1)
    assert [j for j, _ in over.redundant_joints()] == ["arm_hinge_P1B"]


def test_formulations_agree_on_both_struts(struts):
    for s in struts:
        st = s.initial_state()
        ws = s.workspace()
        qd = np.linspace(-0.3, 0.3, s.n)
        ws_q = s.workspace()
        s.evaluate(0.0, st.q, qd, ws_q, EVAL_PHIQ)
        qd = qd - np.linalg.lstsq(ws_q.phiq, ws_q.phiq @ qd, rcond=None)[0]  # consistent q̇
        s.evaluate(0.3, st.q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
        ref = get_formulation("least-squares-2")(ws.M, ws.phiq, ws.Q, ws.gamma)
        for name in FORMULATIONS:
            if name == "direct" and s.m == 31:
                with pytest.raises(FormulationNotApplicable, match=r"rank\(Φq\) = 26 < m = 31"):
                    get_formulation(name)(ws.M, ws.phiq, ws.Q, ws.gamma)
                continue
            qdd, lam = get_formulation(name)(ws.M, ws.phiq, ws.Q, ws.gamma)
            assert np.linalg.norm(qdd - ref[0]) < 1e-9 * np.linalg.norm(ref[0]), name
            assert np.linalg.norm(lam - ref[1]) < 1e-9 * np.linalg.norm(ref[1]), name


def test_simplified_and_overconstrained_move_alike(struts):
    t_eval = np.linspace(0.0, 2.0, 11)
    r = [integrate_index1(s, "udwadia-kalaba", "partitioning", rtol=1e-8, atol=1e-8, t_end=2.0,
                          t_eval=t_eval) for s in struts]
    assert np.ptp(r[0].q[:, 1]) > 0.05  # the arm swings
    assert np.abs(r[0].q - r[1].q).max() < 1e-7
    for x in r:
        assert x.phi_norm.max() <= x.meta["newton_tol"]
