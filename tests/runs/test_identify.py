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


def test_eq55_residual_is_one_cumulative_error_per_signal():
    """cost.residual eq55 (Carpinelli 2015 eq. 5.5): per signal Σ_t |simulated − measured| Δt / σ, from
    the same run the stacked residual compares sample by sample."""
    from rtmbs.runs.identify import residuals_task

    start = np.array([700.0, 3.0])
    cfg = config(signals=["block.z", "block.vz"])
    stacked = problem(cfg)
    eq55 = problem({**cfg, "cost": {"residual": "eq55"}})
    assert eq55.residual == "eq55" and stacked.residual == "stacked"
    r_st, r_55 = residuals_task((stacked, start)), residuals_task((eq55, start))
    n = stacked.t_meas.size
    assert r_st.shape == (2 * n,) and r_55.shape == (2,)
    dt = float(np.mean(np.diff(stacked.t_meas)))
    out = simulate_signals(stacked.spec, dict(zip(stacked.paths, start)))
    for k, s in enumerate(("block.z", "block.vz")):
        by_hand = np.sum(np.abs(np.interp(stacked.t_meas, out["t"], out[s]) - stacked.measured[s]))
        assert r_55[k] == pytest.approx(by_hand * dt / np.std(stacked.measured[s]), rel=1e-12)
        assert r_55[k] == pytest.approx(np.sum(np.abs(r_st[k * n:(k + 1) * n])) * dt, rel=1e-12)
    assert np.all(residuals_task((eq55, np.array([1000.0, 8.0]))) < 1e-12)   # at the target


def test_eq55_identifies_the_stiffness():
    """One parameter, two cumulative errors (z, v_z): least squares recovers the target's
    stiffness from a start 30 % off (the damping held at its true value)."""
    cfg = config(signals=["block.z", "block.vz"], cost={"residual": "eq55"})
    cfg["parameters"] = {"forces.spring.stiffness": {"start": 700, "bounds": [100, 5000]}}
    cfg["target"] = {"run": dict(TRUE)}
    res = identify(cfg, progress=False)
    assert abs(res.values["forces.spring.stiffness"] - 1000.0) < 1e-4 * 1000.0, res.values


def test_unknown_residual_is_named():
    with pytest.raises(ModelError) as info:
        problem(config(cost={"residual": "eq5"}))
    assert str(info.value) == ("config: cost.residual: unknown residual 'eq5' (did you mean "
                               "'eq55'? known: eq55, stacked)")
