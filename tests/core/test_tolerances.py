"""The named rank tolerance (rtmbs.tolerances): `rtmbs info` and System.rank decide alike."""
import numpy as np

from rtmbs.analysis.sizes import constraint_rank, sizes
from rtmbs.models import load_model
from rtmbs.tolerances import MODEL_RANK_RTOL, SOLVER_RANK_RTOL


def test_info_and_system_rank_agree_off_the_manifold():
    """mcpherson-overconstrained (n = 30, m = 31, rank 26) moved 1e-8 off its constraint manifold:
    its geometric redundancy shows as one singular value ≈ 8e-11·σmax. Before one tolerance, that
    lay between the cut of System.rank (1e-12·max(m, n) = 3.1e-11) and of `rtmbs info` (1e-9), so
    the two reported 27 and 26."""
    system = load_model("mcpherson-overconstrained")
    q0 = system.initial_state().q
    q = q0 + 1e-8 * np.random.default_rng(0).standard_normal(q0.size)
    s = np.linalg.svd(system.constraint_jacobian(q, 0.0), compute_uv=False)
    ratio = s[26] / s[0]
    assert 1e-12 * 31 < ratio < MODEL_RANK_RTOL  # the premise: inside the old window
    assert s[25] / s[0] > SOLVER_RANK_RTOL       # and the 26 kept ones are well clear of both cuts
    assert system.rank(q) == constraint_rank(system, q) == 26
    assert sizes(system, q) == {"n": 30, "m": 31, "rank": 26, "f": 4}
    assert [name for name, _ in system.redundant_joints(q)] == ["arm_hinge_P1B"]
