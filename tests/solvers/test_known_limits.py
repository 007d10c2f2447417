"""The known numerical gaps bounded by named warnings (solvers/known_limits.py)."""
from types import SimpleNamespace

import numpy as np
import pytest

from rtmbs.models import load_model
from rtmbs.solvers import known_limits
from rtmbs.solvers.known_limits import KnownLimitWarning
from rtmbs.solvers.simulate import simulate


def test_generalized_alpha_with_steady_state_tyres_at_1_ms_is_warned():
    system = load_model("multilink-ideal")              # one steady-state tyre
    with pytest.warns(KnownLimitWarning, match=r"generalized-alpha with 1 steady-state tyre\(s\) "
                      r"at h = 0.001 s: the tyre forces swing .*use li-euler, or transient tyres"):
        assert len(known_limits.before_run(system, "generalized-alpha", 1e-3)) == 1
    assert known_limits.before_run(system, "generalized-alpha", 5e-4) == []
    assert known_limits.before_run(system, "li-euler", 1e-3) == []


def test_explicit_euler_with_transient_tyres_at_2_ms_is_warned():
    system = load_model("sedan-transient")              # four transient tyres
    with pytest.warns(KnownLimitWarning, match=r"explicit-euler with 4 transient tyre\(s\) at "
                      r"h = 0.002 s: .* diverge .*use li-euler or a step below 2 ms"):
        known_limits.before_run(system, "explicit-euler", 2e-3)
    assert known_limits.before_run(system, "explicit-euler", 1e-3) == []
    assert known_limits.before_run(load_model("sedan"), "explicit-euler", 2e-3) == []


def test_rebases_beyond_the_share_are_warned():
    steps = 6000
    busy = SimpleNamespace(name="li-euler-indep", nrebase=29)      # the full car, flat road
    with pytest.warns(KnownLimitWarning, match="li-euler-indep re-partitioned 29 times in 6000 "
                      "steps .*use li-euler"):
        assert known_limits.after_run(busy, steps)
    quiet = SimpleNamespace(name="li-euler-indep", nrebase=12)
    assert known_limits.after_run(quiet, steps) == []              # 12 = 0.2 % of 6000
    assert known_limits.after_run(SimpleNamespace(name="li-euler", nrebase=99), steps) == []


def test_the_warning_reaches_the_result(recwarn):
    system = load_model("multilink-ideal")
    res = simulate(system, "generalized-alpha", t_end=0.002, h=1e-3)
    assert any("generalized-alpha with 1 steady-state tyre(s)" in w
               for w in res.meta["warnings"])
    assert any(issubclass(w.category, KnownLimitWarning) for w in recwarn)


@pytest.mark.slow
def test_algorithm_2_on_the_spinning_chain_stops_with_the_advice():
    """spatial-chain-10 with li-euler-indep at 1 ms: it re-partitions often (warned) and
    diverges near 2.3 s; the message says to use li-euler, which runs the same 2.5 s."""
    system = load_model("spatial-chain-10")
    with pytest.warns(KnownLimitWarning, match="li-euler-indep re-partitioned"):
        res = simulate(system, "li-euler-indep", t_end=2.5, h=1e-3, raise_on_divergence=False)
    assert res.meta["status"] == -1
    assert 2.0 < res.t[-1] < 2.5
    assert res.meta["message"].endswith("at 1 ms): use li-euler")
    ok = simulate(system, "li-euler", t_end=2.5, h=1e-3)
    assert ok.meta["status"] == 1 and np.isfinite(ok.q).all()
