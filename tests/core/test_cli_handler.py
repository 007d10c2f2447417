"""The top-level handler of ``rtmbs``: an RtmbsError is one line and exit 1, a bug is a short
"internal error" line and exit 70 (the traceback with --debug), Ctrl-C outside a run's steps
is exit 130."""
import pytest

import rtmbs.cli.commands as commands
from rtmbs.cli import main
from rtmbs.errors import SolverError


def _raising(exc):
    def cmd(args):
        raise exc
    return cmd


def test_an_rtmbs_error_is_one_line(monkeypatch, capsys):
    monkeypatch.setattr(commands, "cmd_models", _raising(SolverError("solver 'x': bad option")))
    assert main(["models"]) == 1
    assert capsys.readouterr().err == "rtmbs: error: solver 'x': bad option\n"


def test_a_bug_is_an_internal_error_pointing_at_debug(monkeypatch, capsys):
    monkeypatch.setattr(commands, "cmd_models", _raising(ZeroDivisionError("division by zero")))
    assert main(["models"]) == 70
    assert capsys.readouterr().err == (
        "rtmbs: internal error: ZeroDivisionError: division by zero (a bug in rtmbs: rerun with "
        "--debug for the traceback and report it)\n")
    with pytest.raises(ZeroDivisionError):
        main(["--debug", "models"])


def test_ctrl_c_outside_a_run_exits_130(monkeypatch, capsys):
    monkeypatch.setattr(commands, "cmd_models", _raising(KeyboardInterrupt()))
    assert main(["models"]) == 130
    assert capsys.readouterr().err == "rtmbs: interrupted\n"


def test_an_interrupted_study_lists_what_it_wrote(monkeypatch, tmp_path, capsys):
    import types

    import rtmbs.cli.studies as studies_cli

    def study(out, quick=False):
        (out / "table1.md").write_text("| a |\n")
        raise KeyboardInterrupt

    fake = types.ModuleType("fake_study")
    fake.run = study
    monkeypatch.setitem(__import__("sys").modules, "fake_study", fake)
    monkeypatch.setitem(studies_cli.STUDIES, "truck", ("fake_study", "run", "a fake"))
    (tmp_path / "old.md").write_text("from before\n")  # not written by this study
    assert main(["study", "truck", "--out", str(tmp_path)]) == 130
    assert capsys.readouterr().err == (f"rtmbs: study 'truck' interrupted; written so far: "
                                       f"{tmp_path / 'table1.md'}\n")
