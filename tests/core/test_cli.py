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
                 "--stabilize", "projection", "--out", str(out), "--format", "h5,csv", "--json"]) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert s["steps"] == 200 and s["t_end"] == pytest.approx(0.2)
    assert 0 < s["max_constraint_norm"] < 1e-4 and s["final_constraint_norm"] <= s["max_constraint_norm"]
    assert s["wall_s"] > 0
    from rtmbs.result import Result

    res = Result.load(out)
    assert res.q.shape == (201, 14)
    header = (out / "result.csv").read_text().splitlines()[0].split(",")
    assert header[:2] == ["t", "q:link1.x"] and "link2.vz" in header
    assert main(["plot", str(out), "link2.z", "link2.vz", "--out", str(out / "p.png")]) == 0
    assert (out / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_run_reports_divergence_and_keeps_results(tmp_path, capsys):
    stiff = tmp_path / "stiff.yaml"
    stiff.write_text(STIFF_YAML)
    code = main(["run", str(stiff), "--t-end", "0.5", "--solver", "explicit-euler", "--out", str(tmp_path / "o"), "--json"])
    captured = capsys.readouterr()
    assert code == 3
    assert "rtmbs: error: simulation diverged at t = " in captured.err
    s = json.loads(captured.out.strip().splitlines()[-1])
    assert s["status"] == -1 and 0 < s["t_end"] < 0.5
    assert (tmp_path / "o" / "result.h5").exists()


STIFF_YAML = """
name: stiff
gravity: [0, 0, -9.81]
bodies:
  - {name: a, mass: 0.01, inertia: [1e-4, 1e-4, 1e-4], position: [0, 0, -0.1], markers: {top: [0, 0, 0.1]}}
ground: {markers: {o: [0, 0, 0]}}
joints:
  - {name: slide, type: prismatic, marker_i: ground.o, marker_j: a.top}
forces:
  - {name: k, type: spring-damper, marker_i: ground.o, marker_j: a.top, stiffness: 1.0e7, free_length: 0.0}
"""


def test_bench_json(capsys):
    assert main(["bench", "four-bar", "--solver", "li-euler", "--steps", "200", "--warmup", "30",
                 "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["f"] == 1 and r["steps"] == 200 and r["status"] == "ok"
    assert (0 < r["us_per_step_median"] <= r["us_per_step_p99"] <= r["us_per_step_p999"]
            <= r["us_per_step_max"])
    assert r["cpu_us_per_step"] > 0 and r["us_per_step_mean"] > 0
    # time advances once per step (warm-up and timed steps)
    assert r["t_end"] == pytest.approx(230 * 1e-3, abs=1e-12)
    assert (r["nanalyse"], r["nfallback"], r["nrebase"]) == (0, 0, 0)
    assert r["options"] == {}


def test_bench_counts_the_events_of_the_timed_steps_only(capsys):
    """rebase_tol above 1 re-chooses B every step (tests/solvers/test_sparse.py): the warm-up's
    rebases are not counted, each timed step's is."""
    assert main(["bench", "four-bar", "--solver", "li-euler-indep", "--option", "rebase_tol=1e3",
                 "--steps", "20", "--warmup", "7", "--json"]) == 0
    r = json.loads(capsys.readouterr().out)
    assert r["nrebase"] == 20 and r["options"] == {"rebase_tol": 1000.0}
    assert main(["bench", "four-bar", "--solver", "li-euler-indep", "--option", "rebase_tol=1e3",
                 "--steps", "20", "--warmup", "7"]) == 0
    out = capsys.readouterr().out
    assert "p99.9" in out and "process CPU µs/step" in out and "20 rebases" in out


def test_solver_options_are_parsed_and_only_given_ones_passed():
    from rtmbs.cli import build_parser
    from rtmbs.errors import SolverError
    from rtmbs.cli.solver_options import solver_options

    parser = build_parser()
    args = parser.parse_args(["run", "m", "--stabilize", "ggl", "--ggl-iterations", "2",
                              "--position-update", "explicit", "--jacobian", "all", "--B", "qr",
                              "--option", "rebase_tol=0.05", "--option", "independent=[1, 2]",
                              "--option", "linear-solver=dense", "--option", "rebase=false"])
    assert solver_options(args) == {
        "stabilize": "ggl", "ggl_iterations": 2, "position_update": "explicit", "jacobian": "all",
        "B": "qr", "rebase_tol": 0.05, "independent": [1, 2], "linear_solver": "dense",
        "rebase": False}
    assert solver_options(parser.parse_args(["bench", "m"])) == {}
    args = parser.parse_args(["realtime", "m", "--stabilize", "none", "--option", "stabilize=ggl"])
    with pytest.raises(SolverError, match=r"solver option 'stabilize' given twice "
                       r"\(--stabilize and --option stabilize=...\)"):
        solver_options(args)


@pytest.mark.parametrize("cmd", ["run", "bench"])
def test_an_option_the_solver_does_not_take_is_its_error(cmd, capsys):
    assert main([cmd, "double-pendulum", "--solver", "li-euler", "--B", "qr"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rtmbs: error: solver 'li-euler': unknown option 'B'")
    assert "Traceback" not in err
    with pytest.raises(SystemExit):
        main([cmd, "double-pendulum", "--option", "rebase_tol"])
    assert "argument --option: expected KEY=VALUE" in capsys.readouterr().err


def test_run_passes_its_options_to_the_solver(tmp_path, capsys):
    from rtmbs.result import Result
    from rtmbs.models import load_model
    from rtmbs.solvers.simulate import simulate

    out = tmp_path / "dp"
    assert main(["run", "double-pendulum", "--t-end", "0.1", "--solver", "li-euler-indep",
                 "--B", "qr", "--stabilize", "baumgarte", "--option", "baumgarte_gamma=300",
                 "--out", str(out), "--json"]) == 0
    ref = simulate(load_model("double-pendulum"), "li-euler-indep", t_end=0.1, h=1e-3, B="qr",
                   stabilize="baumgarte", baumgarte_gamma=300.0)
    other = simulate(load_model("double-pendulum"), "li-euler-indep", t_end=0.1, h=1e-3)
    res = Result.load(out)
    np.testing.assert_array_equal(res.q, ref.q)
    assert np.abs(res.q - other.q).max() > 1e-9


def test_unstabilised_run_warns_once(tmp_path, capsys):
    assert main(["run", "double-pendulum", "--t-end", "0.5", "--stabilize", "none",
                 "--position-update", "explicit", "--json"]) == 0
    cap = capsys.readouterr()
    s = json.loads(cap.out.strip().splitlines()[-1])
    assert s["max_constraint_norm"] > 1e-4
    assert len(s["warnings"]) == 1 and s["warnings"][0].startswith("‖Φ‖ reached ")
    assert cap.err.count("rtmbs: warning: ‖Φ‖ reached") == 1
    assert "use stabilize='projection' (rtmbs: --stabilize projection)" in cap.err
    assert main(["run", "double-pendulum", "--t-end", "0.5", "--json"]) == 0  # default: projection
    cap = capsys.readouterr()
    assert json.loads(cap.out)["warnings"] == [] and "warning" not in cap.err


def test_bench_reports_a_failing_solver(tmp_path, capsys):
    """explicit-euler on a 1e7 N/m spring at 1 ms: |1 + hλ| ≫ 1, the state overflows (the dense
    path: "auto" takes the compiled sparse step, whose LU reports the non-finite values)."""
    stiff = tmp_path / "stiff.yaml"
    stiff.write_text(STIFF_YAML)
    assert main(["bench", str(stiff), "--solver", "explicit-euler", "--steps", "2000",
                 "--warmup", "0", "--option", "linear_solver=dense", "--json"]) == 1
    r = json.loads(capsys.readouterr().out)
    # its steps do not report the failure (the LU of the KKT matrix succeeds): the state does
    assert r["status"] == "diverged" and r["failed_step"] is None and r["steps"] == 2000


def test_unknown_model_is_a_clear_error(capsys):
    assert main(["info", "slider-crnak"]) == 1
    assert "did you mean 'slider-crank'" in capsys.readouterr().err


def test_every_command_has_help_with_an_example(capsys):
    for cmd in ("demo", "models", "info", "run", "bench", "plot", "study", "tyre", "road", "realtime", "export-fmu", "export-c"):
        with pytest.raises(SystemExit):
            main([cmd, "--help"])
        assert "example" in capsys.readouterr().out, cmd
