"""The top-level handler of ``rtmbs``: an RtmbsError is one line and exit 1, a bug is a short
"internal error" line and exit 70 (the traceback with --debug), Ctrl-C outside a run's steps
is exit 130 (issue 13)."""
import pytest

import rtmbs.commands as commands
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
