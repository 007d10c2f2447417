"""The core commands, end to end through rtmbs.cli.main."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rtmbs.cli import main


@pytest.mark.parametrize("name,n,m,rank,f", [
    ("double-pendulum", 14, 12, 12, 2), ("slider-crank", 21, 20, 20, 1), ("four-bar", 21, 20, 20, 1),
    ("spatial-chain-10", 70, 40, 40, 30), ("mcpherson-overconstrained", 30, 31, 26, 4),
])
def test_info_json_sizes(capsys, name, n, m, rank, f):
    assert main(["info", name, "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert (info["n"], info["m"], info["rank"], info["f"]) == (n, m, rank, f)


def test_info_table_lists_joints_with_their_equations(capsys):
    assert main(["info", "slider-crank"]) == 0
    out = capsys.readouterr().out
    assert "crank_bearing            type=revolute, equations=5" in out
    assert "wrist_pin                type=universal, equations=4" in out
    assert "| 21 | 20 | 20 | 1 |" in out


def test_models_lists_the_required_builtins(capsys):
    assert main(["models"]) == 0
    out = capsys.readouterr().out
    for name in ("double-pendulum", "slider-crank", "four-bar", "spatial-chain-10", "truck-ode"):
        assert name in out


def test_run_writes_results_and_summary(tmp_path, capsys):
    out = tmp_path / "dp"
    assert main(["run", "double-pendulum", "--t-end", "0.2", "--h", "1e-3", "--solver", "li-euler",
                 "--stabilize", "projection", "--out", str(out), "--json"]) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert s["steps"] == 200 and s["t_end"] == pytest.approx(0.2)
    assert 0 < s["max_constraint_norm"] < 1e-4 and s["final_constraint_norm"] <= s["max_constraint_norm"]
    assert s["wall_s"] > 0
    from rtmbs.io.result import Result

    res = Result.load(out)
    assert res.q.shape == (201, 14)
    header = (out / "result.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "q:link1.x"] and "link2.vz" in header
    assert main(["plot", str(out), "link2.z", "link2.vz", "--out", str(out / "p.png")]) == 0
    assert (out / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_reports_divergence_and_keeps_results(tmp_path, capsys):
    stiff = tmp_path / "stiff.yaml"
    stiff.write_text("""
name: stiff
gravity: [0, 0, -9.81]
bodies:
  - {name: a, mass: 0.01, inertia: [1e-4, 1e-4, 1e-4], position: [0, 0, -0.1], markers: {top: [0, 0, 0.1]}}
ground: {markers: {o: [0, 0, 0]}}
joints:
  - {name: slide, type: prismatic, marker_i: ground.o, marker_j: a.top}
forces:
  - {name: k, type: spring-damper, marker_i: ground.o, marker_j: a.top, stiffness: 1.0e7, free_length: 0.0}
""")
    code = main(["run", str(stiff), "--t-end", "0.5", "--solver", "explicit-euler", "--out", str(tmp_path / "o"), "--json"])
    captured = capsys.readouterr()
    assert code == 3
    assert "rtmbs: error: simulation diverged at t = " in captured.err
    s = json.loads(captured.out.strip().splitlines()[-1])
    assert s["status"] == -1 and 0 < s["t_end"] < 0.5
    assert (tmp_path / "o" / "result.h5").exists()


def test_bench_json(capsys):
    assert main(["bench", "four-bar", "--solver", "li-euler", "--steps", "200", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    for key in ("n", "m", "f", "solver", "h", "us_per_step_median", "us_per_step_max"):
        assert key in r
    assert r["f"] == 1 and 0 < r["us_per_step_median"] <= r["us_per_step_max"]


def test_unknown_model_is_a_clear_error(capsys):
    assert main(["info", "slider-crnak"]) == 1
    assert "did you mean 'slider-crank'" in capsys.readouterr().err


def test_every_command_has_help_with_an_example(capsys):
    for cmd in ("demo", "models", "info", "run", "bench", "plot", "study", "tyre", "road", "realtime", "export-fmu"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "example" in capsys.readouterr().out, cmd
