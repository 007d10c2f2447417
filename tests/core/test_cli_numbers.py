"""Bad numbers on the command line and in ``simulate``: a one-line error naming the flag or the
argument and the value, never a traceback, never a silent run of zero steps."""
import math

import pytest

from rtmbs.cli import main
from rtmbs.errors import SolverError
from rtmbs.models import load_model
from rtmbs.solvers.simulate import simulate


@pytest.mark.parametrize("argv,flag,value,what", [
    (["run", "double-pendulum", "--h", "0"], "--h", "0", "a finite number > 0"),
    (["run", "double-pendulum", "--h", "nan"], "--h", "nan", "a finite number > 0"),
    (["run", "double-pendulum", "--h=-1e-3"], "--h", "-1e-3", "a finite number > 0"),
    (["run", "double-pendulum", "--h", "inf"], "--h", "inf", "a finite number > 0"),
    (["run", "double-pendulum", "--t-end=-1"], "--t-end", "-1", "a finite number > 0"),
    (["run", "double-pendulum", "--save-every", "0"], "--save-every", "0", "a whole number >= 1"),
    (["bench", "double-pendulum", "--steps", "0"], "--steps", "0", "a whole number >= 1"),
    (["bench", "double-pendulum", "--warmup", "-5"], "--warmup", "-5", "a whole number >= 0"),
    (["realtime", "double-pendulum", "--duration=-1"], "--duration", "-1", "a finite number >= 0"),
    (["realtime", "double-pendulum", "--h", "abc"], "--h", "abc", "a finite number > 0"),
])
def test_bad_numbers_are_refused_by_name(argv, flag, value, what, capsys):
    with pytest.raises(SystemExit) as info:
        main(argv)
    assert info.value.code == 2
    err = capsys.readouterr().err
    assert f"argument {flag}: expected {what}, got '{value}'" in err
    assert "Traceback" not in err


def test_a_run_shorter_than_one_step_is_refused():
    system = load_model("double-pendulum")
    with pytest.raises(SolverError) as info:
        simulate(system, "li-euler", t_end=1e-3, h=0.01)
    assert str(info.value) == ("simulate: t_end = 0.001 s is less than one step (h = 0.01 s) "
                               "after the start t0 = 0 s: nothing to integrate")


@pytest.mark.parametrize("h", [0.0, -1e-3, math.nan, math.inf])
def test_simulate_refuses_a_bad_step(h):
    with pytest.raises(SolverError, match=r"simulate: h = .*, expected a finite step size > 0 s"):
        simulate(load_model("double-pendulum"), "li-euler", t_end=1.0, h=h)


def test_results_that_do_not_fit_in_memory_are_refused_before_any_step(capsys):
    system = load_model("double-pendulum")
    with pytest.raises(SolverError) as info:
        simulate(system, "li-euler", t_end=1e12, h=1e-3)
    msg = str(info.value)
    assert msg.startswith("simulate: 1000000000000000 steps keeping every 1 need ")
    assert "GiB" in msg and "raise save_every (rtmbs run --save-every)" in msg
    assert main(["run", "double-pendulum", "--t-end", "1e12"]) == 1
    err = capsys.readouterr().err
    assert err.startswith("rtmbs: error: simulate: 1000000000000000 steps") and "Traceback" not in err
