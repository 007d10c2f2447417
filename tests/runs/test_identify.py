"""Identification: recovering spring parameters from a run and from a CSV of it; bad configs."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import yaml

from rtmbs.errors import ModelError
from rtmbs.runs.identify import fd_points, identify, problem, simulate_signals

SPRING = str(Path(__file__).parent / "spring-mass.yaml")
TRUE = {"forces.spring.stiffness": 1000.0, "forces.spring.damping": 8.0}


def config(**kw):
    cfg = {"model": SPRING, "t_end": 0.5, "h": 1e-3, "signals": ["block.z"],
           "parameters": {"forces.spring.stiffness": {"start": 700, "bounds": [100, 5000]},
                          "forces.spring.damping": {"start": 3, "bounds": [0, 50]}},
           "target": {"run": dict(TRUE)}}
    cfg.update(kw)
    return cfg


def test_recovers_the_target_runs_parameters():
    res = identify(config(), progress=False)
    assert res.status > 0
    for p, v in TRUE.items():
        assert abs(res.values[p] - v) < 1e-6 * v, (p, res.values[p])
    assert res.cost < 1e-12 and res.units["forces.spring.stiffness"] == "N/m"
    # every Jacobian is one run per parameter (plus the point when it was not evaluated yet)
    assert res.nfev + 2 * res.njev <= res.runs <= 3 * res.njev + res.nfev


def test_recovers_them_from_measured_csv(tmp_path):
    out = simulate_signals(problem(config()).spec, TRUE)
    t, z = out["t"][::10], out["block.z"][::10]
    rows = "".join(f"{float(a)!r},{float(b)!r}\n" for a, b in zip(t, z))
    (tmp_path / "m.csv").write_text("t,block.z\n" + rows)
    cfg = config(target={"data": "m.csv"}, model=SPRING)
    (tmp_path / "id.yaml").write_text(yaml.safe_dump(cfg))
    res = identify(tmp_path / "id.yaml", progress=False)
    for p, v in TRUE.items():
        assert abs(res.values[p] - v) < 1e-6 * v


def test_fd_columns_step_backwards_at_an_upper_bound():
    prob = problem(config())
    x = np.array([5000.0, 3.0])
    pts, delta = fd_points(prob, x)
    assert delta[0] < 0 < delta[1] and pts[0][0] < 5000.0 and pts[1][1] > 3.0
    np.testing.assert_array_equal(pts[0][1:], x[1:])


def test_bounds_that_exclude_the_start():
    cfg = config()
    cfg["parameters"]["forces.spring.damping"] = {"start": 60, "bounds": [0, 50]}
    with pytest.raises(ModelError) as info:
        problem(cfg)
    assert str(info.value) == ("config: parameters.forces.spring.damping.start: start 60 is outside "
                               "the bounds [0, 50]")


def test_unknown_parameter_path_in_a_config():
    cfg = config()
    cfg["parameters"]["forces.spring.stifness"] = {"start": 1, "bounds": [0, 2]}
    with pytest.raises(ModelError) as info:
        problem(cfg)
    assert str(info.value).startswith(f"forces.spring.stifness: unknown parameter of model '{SPRING}' "
                                      "(did you mean 'forces.spring.stiffness'")


def test_manoeuvre_the_model_cannot_drive(tmp_path):
    man = tmp_path / "m.yaml"
    man.write_text("inputs:\n  steer: {type: constant, value: 0.1}\n")
    with pytest.raises(ModelError) as info:
        problem(config(manoeuvre=str(man)))
    assert str(info.value) == (f"{man}: inputs.steer: not an input of model '{SPRING}' "
                               "(known: push)")


def test_unknown_key_and_missing_target():
    with pytest.raises(ModelError, match=r"^config: tend: unknown key \(did you mean 't_end'\?"):
        problem(config(tend=1.0))
    cfg = config()
    del cfg["target"]
    with pytest.raises(ModelError, match=r"^config: target: required key is missing$"):
        problem(cfg)
