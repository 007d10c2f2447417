"""Nothing lost (issue 13): Ctrl-C (SIGINT) or SIGTERM during ``rtmbs run`` writes the results up
to the last completed step, says where, and exits 130; a diverged run names the files that hold
its results."""
import os
import re
import select
import signal
import subprocess
import sys
import time

import numpy as np
import pytest

import rtmbs
from rtmbs.cli import main
from rtmbs.models import load_model
from rtmbs.result import Result

_SRC = os.path.dirname(os.path.dirname(rtmbs.__file__))


def _default_sigint() -> None:
    """In the child before exec: Ctrl-C as in a terminal, also when pytest itself was started in
    the background (a non-interactive shell's ``&`` leaves SIGINT ignored, and the child would
    inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def _start_run(out, t_end="1e4"):
    env = dict(os.environ, PYTHONPATH=_SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen(
        [sys.executable, "-m", "rtmbs.cli", "run", "double-pendulum", "--t-end", t_end,
         "--h", "1e-3", "--save-every", "100", "--out", str(out)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env, preexec_fn=_default_sigint)


def _wait_for_progress(proc, timeout=300.0) -> bytes:
    """Read stderr until the progress bar shows a first completed chunk of steps."""
    seen = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            if re.search(rb"\| *[1-9]\d*/10000000 ", seen):
                return seen
    pytest.fail(f"no progress within {timeout} s: {seen!r}")


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_an_interrupted_run_writes_its_results_and_exits_130(tmp_path, sig):
    out = tmp_path / "dp"
    proc = _start_run(out)
    try:
        seen = _wait_for_progress(proc)
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
    err = (seen + stderr).decode()
    assert proc.returncode == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    m = re.fullmatch(r"rtmbs: interrupted after t = ([\d.e+-]+) s of 10000 s; results kept up to "
                     r"there; written to (.+)", last)
    assert m, last
    assert m.group(2) == ", ".join(str(out / f) for f in ("result.h5", "result.csv", "summary.json"))
    t_stop = float(m.group(1))
    res = Result.load(out)
    assert np.all(np.diff(res.t) > 0) and res.t[0] == 0.0
    assert 0.0 < res.t[-1] < 1e4 and res.t[-1] == pytest.approx(t_stop, rel=1e-5)
    np.testing.assert_allclose(np.diff(res.t), 0.1, rtol=1e-9)  # every 100th step of 1e-3 s
    header = (out / "result.csv").read_text().splitlines()[0].split(",")
    csv_t = np.loadtxt(out / "result.csv", delimiter=",", skiprows=2, usecols=header.index("t"))
    np.testing.assert_array_equal(csv_t, res.t)  # the CSV (names, units row, rows) is complete
    # the prefix is the trajectory of an uninterrupted run to the same time
    ref = rtmbs.simulate(load_model("double-pendulum"), "li-euler",
                         t_end=min(res.t[-1], 2.0), h=1e-3, save_every=100)
    k = len(ref.t)
    np.testing.assert_allclose(res.q[:k], ref.q, rtol=0, atol=1e-12)


def test_a_diverged_run_names_the_files_holding_its_results(tmp_path, capsys):
    """A large step makes the explicit Euler run of the double pendulum explode."""
    out = tmp_path / "boom"
    code = main(["run", "double-pendulum", "--solver", "explicit-euler", "--stabilize", "none",
                 "--h", "0.05", "--t-end", "200", "--no-progress", "--out", str(out)])
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 3
    m = re.fullmatch(r"rtmbs: error: simulation diverged at t = ([\d.e+-]+) s \(step \d+ of 4000, "
                     r"solver 'explicit-euler', h = 0.05 s\); results kept up to t = ([\d.e+-]+) s; "
                     r"written to (.+)", err)
    assert m, err
    assert m.group(3) == ", ".join(str(out / f) for f in ("result.h5", "result.csv", "summary.json"))
    res = Result.load(out)
    assert res.t[-1] == pytest.approx(float(m.group(2))) and np.all(np.isfinite(res.q))
    assert float(m.group(1)) == pytest.approx(res.t[-1] + 0.05)
