"""rtmbs sweep and rtmbs identify through rtmbs.cli.main (in this process: --scheduler none)."""
from __future__ import annotations

import json
from pathlib import Path

import h5py
import numpy as np
import yaml

from rtmbs.cli import main
from rtmbs.runs.sweep import sweep

SPRING = str(Path(__file__).parent / "spring-mass.yaml")


def test_sweep_writes_the_table(tmp_path, capsys):
    out = tmp_path / "s.h5"
    assert main(["sweep", SPRING, "--param", "forces.spring.stiffness=800,1200",
                 "--param", "bodies.block.mass=1:2:2", "--t-end", "0.05", "--output", "block.z",
                 "--scheduler", "none", "--json", "--out", str(out)]) == 0
    s = json.loads(capsys.readouterr().out)
    assert (s["runs"], s["done"], s["failed"]) == (4, 4, 0)
    api = sweep(SPRING, {"forces.spring.stiffness": [800.0, 1200.0], "bodies.block.mass": [1.0, 2.0]},
                signals=["block.z"], t_end=0.05, progress=False)
    with h5py.File(out) as f:
        np.testing.assert_array_equal(f["runs/block.z.final"][()], api.columns["block.z.final"])
        np.testing.assert_array_equal(f["runs/bodies.block.mass"][()], [1.0, 2.0, 1.0, 2.0])
        assert f["runs/bodies.block.mass"].attrs["unit"] == "kg"
    lines = (tmp_path / "s.csv").read_text().splitlines()
    assert lines[0].startswith("run,forces.spring.stiffness,bodies.block.mass,status")
    assert lines[1].startswith(",N/m,kg,") and len(lines) == 6


def test_sweep_bad_parameter_is_one_line(tmp_path, capsys):
    assert main(["sweep", "double-pendulum", "--param", "bodies.link3.mass=1", "--scheduler", "none",
                 "--out", str(tmp_path / "s.h5")]) == 1
    err = capsys.readouterr().err
    assert err == ("rtmbs: error: bodies.link3.mass: unknown parameter of model 'double-pendulum' "
                   "(did you mean 'bodies.link2.mass', 'bodies.link1.mass' or "
                   "'bodies.link2.position.2'?)\n")
    assert not (tmp_path / "s.h5").exists()


def test_identify_command(tmp_path, capsys):
    cfg = {"model": SPRING, "t_end": 0.3, "signals": ["block.z"],
           "parameters": {"forces.spring.stiffness": {"start": 900, "bounds": [100, 5000]}},
           "target": {"run": {"forces.spring.stiffness": 1100.0}}}
    (tmp_path / "id.yaml").write_text(yaml.safe_dump(cfg))
    assert main(["identify", str(tmp_path / "id.yaml"), "--scheduler", "none", "--no-progress",
                 "--out", str(tmp_path / "id.json")]) == 0
    out = capsys.readouterr().out
    assert out.startswith("forces.spring.stiffness = 1100 N/m (start 900)\n")
    res = json.loads((tmp_path / "id.json").read_text())
    assert abs(res["values"]["forces.spring.stiffness"] - 1100.0) < 1e-6


def test_help_has_examples(capsys):
    import pytest

    for cmd in ("sweep", "identify"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert f"rtmbs {cmd} " in capsys.readouterr().out
