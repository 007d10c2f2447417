"""What an identification says about how it ended: scipy's status and message, the evaluations
against the cap, and the parameters that end at a bound."""
from __future__ import annotations

from pathlib import Path

from rtmbs.runs.identify import identify

SPRING = str(Path(__file__).parent / "spring-mass.yaml")   # true: 1000 N/m, 8 N s/m


def config(**kw):
    cfg = {"model": SPRING, "t_end": 0.5, "h": 1e-3, "signals": ["block.z"],
           "parameters": {"forces.spring.stiffness": {"start": 700, "bounds": [100, 5000]},
                          "forces.spring.damping": {"start": 3, "bounds": [0, 50]}},
           "target": {"run": {"forces.spring.stiffness": 1000.0, "forces.spring.damping": 8.0}}}
    cfg.update(kw)
    return cfg


def test_converged_run_names_no_bound():
    res = identify(config(), progress=False)
    d = res.as_dict()
    assert d["converged"] is True and d["at_bounds"] == {} and d["max_nfev"] == 50
    assert d["stop"] == (f"converged: scipy least_squares status {res.status}, \"{res.message}\", "
                         f"after {res.nfev} of at most 50 evaluations; parameters at a bound: none")


def test_cap_and_bound_are_reported():
    """The stiffness bounded at 800 N/m below its true 1000 N/m ends at its upper bound; two
    evaluations are not enough to converge."""
    cfg = config()
    cfg["parameters"]["forces.spring.stiffness"] = {"start": 700, "bounds": [100, 800]}
    res = identify(cfg, progress=False)
    assert res.at_bounds == {"forces.spring.stiffness": "upper"}
    assert abs(res.values["forces.spring.stiffness"] - 800.0) < 1.0
    capped = identify(config(max_nfev=2), progress=False)
    assert capped.status == 0 and not capped.converged
    assert capped.stop_summary().startswith("NOT converged: scipy least_squares status 0")
    assert "after 2 of at most 2 evaluations, stopped by the evaluation cap" in capped.stop_summary()
