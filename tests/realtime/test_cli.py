"""``rtmbs realtime`` and ``rtmbs export-fmu`` command lines."""
import argparse
import json
from pathlib import Path

import asammdf
import numpy as np
import pytest

import _models.realtime as tm
from rtmbs.cli import realtime as rtcli
from rtmbs.realtime.modelspec import resolve_model, split_spec
from rtmbs.errors import ModelError

SPEC = f"{Path(tm.__file__)}:make_msd"


def run(argv):
    parser = argparse.ArgumentParser(prog="rtmbs")
    sub = parser.add_subparsers(dest="command")
    rtcli.register(sub, argparse.RawDescriptionHelpFormatter)
    args = parser.parse_args(argv)
    return args.func(args)


def test_realtime_json_line(capsys):
    assert run(["realtime", SPEC, "--solver", tm.SOLVER_NAME, "--h", "0.002",
                "--duration", "0.1", "--json"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 1
    s = json.loads(lines[0])
    for k in ("steps", "overruns", "turnaround_us_p50", "turnaround_us_p99", "turnaround_us_p999",
              "turnaround_us_max", "lateness_us_p999", "realtime_factor"):
        assert k in s
    assert s["steps"] == 50 and s["model"] == "test-msd" and s["solver"] == tm.SOLVER_NAME
    assert 0 < s["turnaround_us_p50"] <= s["turnaround_us_p99"] <= s["turnaround_us_max"]


def test_realtime_out_dir(tmp_path, capsys):
    out = tmp_path / "rt"
    assert run(["realtime", SPEC, "--solver", tm.SOLVER_NAME, "--h", "0.002",
                "--duration", "0.04", "--policy", "catch-up", "--out", str(out)]) == 0
    text = capsys.readouterr().out
    assert "| turnaround (µs) |" in text and "policy `catch-up`" in text
    for f in ("summary.json", "summary.md", "turnaround.png", "timings.npz", "result.h5",
              "result.mf4"):
        assert (out / f).is_file(), f
    from rtmbs.result import Result

    res = Result.load(out)
    assert len(res.t) == 21 and res.t[-1] == pytest.approx(0.04)
    with asammdf.MDF(out / "result.mf4") as mdf:
        assert mdf.get("v").unit == "m/s"
        np.testing.assert_array_equal(mdf.get("x").samples, res.outputs["x"])


def test_help_has_examples(capsys):
    with pytest.raises(SystemExit):
        run(["realtime", "--help"])
    assert "rtmbs realtime truck-dae" in capsys.readouterr().out
    with pytest.raises(SystemExit):
        run(["export-fmu", "--help"])
    assert "rtmbs export-fmu" in capsys.readouterr().out


def test_model_specs():
    assert split_spec("dir/m.py:build") == ("dir/m.py", "build")
    assert split_spec("pkg.mod:make") == ("pkg.mod", "make")
    assert split_spec("truck-dae") == ("truck-dae", None)
    assert split_spec("C:/models/car.yaml") == ("C:/models/car.yaml", None)
    assert resolve_model(SPEC).name == "test-msd"
    with pytest.raises(ModelError, match="has no factory 'nope'"):
        resolve_model(f"{Path(tm.__file__)}:nope")
    with pytest.raises(ModelError, match="model file 'missing.py' does not exist"):
        resolve_model("missing.py:make")


def test_plugin_is_listed():
    from rtmbs.cli import entry

    assert "rtmbs.cli.realtime" in entry._PLUGINS


def test_options_a_solver_does_not_take_are_its_error(tmp_path):
    from rtmbs.errors import SolverError

    with pytest.raises(SolverError, match="solver 'li-euler': unknown option 'B'"):
        run(["realtime", SPEC, "--solver", "li-euler", "--B", "qr", "--duration", "0.01"])
    with pytest.raises(SolverError, match="solver 'li-euler': unknown option 'B'"):
        run(["export-fmu", SPEC, "--solver", "li-euler", "--B", "qr", "-o",
             str(tmp_path / "x.fmu")])
    assert not (tmp_path / "x.fmu").exists()


def test_realtime_passes_its_options_to_the_solver(tmp_path, capsys):
    """m = 0: li-euler's position update is implicit by default; --position-update explicit
    must give simulate's explicit-update trajectory."""
    from rtmbs.result import Result
    from rtmbs.solvers.simulate import simulate

    out = tmp_path / "rt"
    assert run(["realtime", SPEC, "--solver", "li-euler", "--h", "0.002", "--duration", "0.04",
                "--position-update", "explicit", "--option", "jacobian=all", "--out",
                str(out)]) == 0
    capsys.readouterr()
    res = Result.load(out)
    ref = simulate(tm.MassSpringDamper(), "li-euler", t_end=0.04, h=0.002,
                   position_update="explicit", jacobian="all")
    default = simulate(tm.MassSpringDamper(), "li-euler", t_end=0.04, h=0.002)
    np.testing.assert_array_equal(res.q, ref.q)
    assert np.abs(res.q - default.q).max() > 1e-9


def test_realtime_results_carry_the_geometry(tmp_path, capsys):
    """`rtmbs view` can draw a real-time run without --model: result.h5 keeps the geometry."""
    out = tmp_path / "rt"
    assert run(["realtime", "double-pendulum", "--h", "0.002", "--duration", "0.02",
                "--policy", "catch-up", "--out", str(out)]) == 0
    from rtmbs.result import Result

    meta = Result.load(out).meta
    bodies = [b["name"] for b in meta["geometry"]["bodies"]]
    assert bodies == ["link1", "link2"], bodies
    assert meta["units"]["link1.x"] == "m"
