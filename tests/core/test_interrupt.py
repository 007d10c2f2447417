"""Nothing lost: Ctrl-C (SIGINT) or SIGTERM at any moment of ``rtmbs run``, ``realtime``, ``study``
and a Dask ``sweep`` ends it with exit 130, one line and no traceback; a run keeps (streamed) the
results up to the last completed step and says where; a diverged run names the files that hold
its results; an interrupted sweep or identification writes what finished. No timing is asserted
here but the 2 s bound of those two (benchmarks/interrupt_latency.py measures the delay)."""
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


def _start(*args):
    """``rtmbs ARGS`` in a new process (its own command line: the watchdog is on)."""
    env = dict(os.environ, PYTHONPATH=_SRC + os.pathsep + os.environ.get("PYTHONPATH", ""))
    return subprocess.Popen([sys.executable, "-m", "rtmbs.cli", *map(str, args)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env,
                            preexec_fn=_default_sigint)


def _start_run(out, t_end="1e4"):
    return _start("run", "double-pendulum", "--t-end", t_end, "--h", "1e-3", "--save-every", "100",
                  "--format", "h5,csv", "--out", out)


def _wait_setting_up(proc, timeout=300.0) -> None:
    """Until the process has loaded the C engine: past the interpreter's start, setting up."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and proc.poll() is None:
        try:
            with open(f"/proc/{proc.pid}/maps") as fh:
                if "_engine" in fh.read():
                    return
        except OSError:
            pass
        time.sleep(0.01)
    pytest.fail(f"the process did not load the engine (exit {proc.poll()})")


def _stop(proc, sig, timeout=120):
    """Send ``sig``; (exit code, stderr text)."""
    proc.send_signal(sig)
    try:
        _, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
    return proc.returncode, err.decode(errors="replace")


def _read_progress(proc, total: int, timeout: float) -> tuple[bytes, bool]:
    """Read stderr until the progress bar shows a first completed chunk of its ``total`` (then
    True), stderr closes or ``timeout`` s pass (then False); (what was read, whether shown)."""
    seen = b""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        ready, _, _ = select.select([proc.stderr], [], [], 1.0)
        if ready:
            chunk = os.read(proc.stderr.fileno(), 4096)
            if not chunk:
                break
            seen += chunk
            if re.search(rb"\| *[1-9]\d*/%d " % total, seen):
                return seen, True
    return seen, False


def _wait_for_progress(proc, timeout=300.0) -> bytes:
    """Read stderr until the progress bar shows a first completed chunk of steps."""
    seen, shown = _read_progress(proc, 10000000, timeout)
    if not shown:
        pytest.fail(f"no progress within {timeout} s: {seen!r}")
    return seen


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
    assert m.group(3) == ", ".join(str(out / f) for f in ("result.h5", "summary.json"))
    res = Result.load(out)
    assert res.t[-1] == pytest.approx(float(m.group(2))) and np.all(np.isfinite(res.q))
    assert float(m.group(1)) == pytest.approx(res.t[-1] + 0.05)


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_while_setting_up_ends_the_run_with_130_and_no_partial_file(tmp_path, sig):
    """Sent as soon as the engine is loaded (the parser, the model's build, the solver's
    set-up): the run stops there; the files of a run that took no step are removed, those of
    one that did hold its steps."""
    out = tmp_path / "chain"
    proc = _start("run", "spatial-chain-10", "--t-end", "30", "--h", "1e-4", "--out", out,
                  "--no-progress")
    _wait_setting_up(proc)
    code, err = _stop(proc, sig)
    assert code == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    if (out / "result.h5").exists():  # the machine was fast: it had begun to step
        assert last.startswith("rtmbs: interrupted after t = "), last
        res = Result.load(out)
        assert res.meta["status"] == 2 and 0.0 <= res.t[-1] < 30.0
    else:
        assert last == "rtmbs: interrupted", last
        assert not (out / "summary.json").exists()


def test_an_interrupted_streamed_run_keeps_every_row_up_to_the_signal(tmp_path):
    """The rows streamed during the run and those added at the end are one gap-free series,
    the status says interrupted, and the default output rate is kept (1 kHz at h = 0.1 ms)."""
    out = tmp_path / "dp"
    proc = _start("run", "double-pendulum", "--t-end", "1e3", "--h", "1e-4", "--out", out)
    _wait_for_progress(proc)
    code, err = _stop(proc, signal.SIGINT)
    assert code == 130, err
    res = Result.load(out / "result.h5")
    assert res.meta["status"] == 2 and res.meta["message"].startswith("interrupted after t = ")
    assert res.t[-1] > 0.0
    np.testing.assert_allclose(np.diff(res.t), 1e-3, rtol=1e-6)  # every 10th step, no gap
    assert list(sorted(p.name for p in out.iterdir())) == ["result.h5", "summary.json"]


def _udp_config(tmp_path, port):
    cfg = tmp_path / "io.yaml"
    cfg.write_text(f"listen: 127.0.0.1:0\nsend_to: 127.0.0.1:{port}\ninputs: []\n"
                   "outputs: [link2.z]\n")
    return cfg


@pytest.mark.parametrize("moment", ["setting-up", "stepping"])
def test_realtime_stops_on_a_signal_with_130_and_keeps_its_steps(tmp_path, moment):
    """Stepping is known to have begun when the first output packet arrives over UDP."""
    import socket

    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.bind(("127.0.0.1", 0))
    peer.settimeout(300.0)
    out = tmp_path / "rt"
    proc = _start("realtime", "double-pendulum", "--duration", "1e4", "--out", out,
                  "--udp", _udp_config(tmp_path, peer.getsockname()[1]))
    try:
        if moment == "stepping":
            for _ in range(50):  # 50 steps published: 50 steps done and recorded
                peer.recv(1024)
        else:
            _wait_setting_up(proc)
        code, err = _stop(proc, signal.SIGINT)
    finally:
        peer.close()
    assert code == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    if moment == "stepping":
        assert re.fullmatch(r"rtmbs: .*results kept up to there; written to .*result\.h5.*", last), last
        res = Result.load(out / "result.h5")
        assert 0.0 < res.t[-1] < 1e4
    else:
        assert last == "rtmbs: interrupted" or "results kept up to there" in last, last


def test_a_study_stops_on_a_signal_with_130(tmp_path):
    out = tmp_path / "truck"
    proc = _start("study", "truck", "--out", out)
    _wait_setting_up(proc)
    time.sleep(1.0)  # a moment into the study (not a timing: any moment must end the same way)
    code, err = _stop(proc, signal.SIGINT)
    assert code == 130, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(r"rtmbs: study 'truck' interrupted; (written so far: .*|what it wrote so far "
                        r"is in .*truck)|rtmbs: interrupted", last), last


def _descendants(pid) -> set[int]:
    """The processes below ``pid`` (from the parent ids in /proc/*/stat)."""
    parent = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as fh:
                    parent[int(d)] = int(fh.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                pass
    out, todo = set(), [pid]
    while todo:
        p = todo.pop()
        kids = [c for c, pp in parent.items() if pp == p]
        out.update(kids)
        todo += kids
    return out


def _assert_workers_end(workers) -> None:
    end = time.monotonic() + 120  # the workers end with their parent (not a timing: a bound)
    while time.monotonic() < end and any(os.path.exists(f"/proc/{p}") for p in workers):
        time.sleep(0.5)
    left = [p for p in workers if os.path.exists(f"/proc/{p}")
            and open(f"/proc/{p}/stat").read().rsplit(")", 1)[1].split()[0] != "Z"]
    assert not left, f"worker processes left running: {left}"


@pytest.mark.slow  # a local Dask cluster started and stopped
def test_an_interrupted_dask_sweep_writes_the_finished_runs_and_exits_130(tmp_path):
    """SIGINT once the bar shows a finished run: exit 130 within 2 s (the bound of the
    reliability acceptance, writing included), the table holds every finished run with the
    values of the same run done alone, the others marked status -3, and no worker is left."""
    from rtmbs.runs.sweep import NOT_FINISHED, sweep

    out = tmp_path / "sweep.h5"
    proc = _start("sweep", "double-pendulum", "--param", "bodies.link2.mass=1:2:40",
                  "--t-end", "20", "--scheduler", "local", "--workers", "2", "--output",
                  "link2.z", "--out", out)
    seen, shown = _read_progress(proc, 40, 600.0)
    assert shown, seen
    bar_done = max(int(k) for k in re.findall(rb"\| *(\d+)/40 ", seen))
    workers = _descendants(proc.pid)
    assert workers, "the local cluster has no worker process"
    t_signal = time.monotonic()
    code, err = _stop(proc, signal.SIGINT)
    assert time.monotonic() - t_signal < 2.0
    assert code == 130, seen + err.encode()
    assert "Traceback" not in err
    last = next(line for line in err.splitlines() if line.startswith("rtmbs: sweep"))
    m = re.fullmatch(r"rtmbs: sweep interrupted after (\d+) of 40 runs; the finished runs are in "
                     r"(.+) and (.+) \(status -3: not finished\)", last)
    assert m, last
    assert (m.group(2), m.group(3)) == (str(out), str(out.with_suffix(".csv")))
    done = int(m.group(1))
    assert bar_done <= done < 40
    import h5py

    with h5py.File(out) as f:
        status = f["runs/status"][()]
        final = f["runs/link2.z.final"][()]
        mass = f["runs/bodies.link2.mass"][()]
    assert status.shape == (40,) and (status == 1).sum() == done
    assert np.array_equal(status == NOT_FINISHED, np.isnan(final))
    assert (status == NOT_FINISHED).sum() == 40 - done
    csv = out.with_suffix(".csv").read_text().splitlines()
    assert len(csv) == 2 + 40  # names, units, a row per run
    i = int(np.flatnonzero(status == 1)[0])
    alone = sweep("double-pendulum", {"bodies.link2.mass": [float(mass[i])]},
                  signals=["link2.z"], t_end=20.0, progress=False)
    assert final[i] == pytest.approx(alone.columns["link2.z.final"][0], rel=1e-12)
    _assert_workers_end(workers)


@pytest.mark.slow  # a local Dask cluster started and stopped
def test_an_interrupted_identification_writes_its_evaluations_and_exits_130(tmp_path):
    """SIGINT once the bar shows a finished evaluation: exit 130 within 2 s, the JSON holds the
    evaluations that finished and the best of them as the values, flagged interrupted."""
    import json

    import yaml

    spring = os.path.join(os.path.dirname(os.path.dirname(__file__)), "runs", "spring-mass.yaml")
    cfg = {"model": spring, "t_end": 10.0, "h": 1e-3, "signals": ["block.z"],
           "parameters": {"forces.spring.stiffness": {"start": 700, "bounds": [100, 5000]},
                          "forces.spring.damping": {"start": 3, "bounds": [0, 50]}},
           "target": {"run": {"forces.spring.stiffness": 1000.0, "forces.spring.damping": 8.0}}}
    (tmp_path / "id.yaml").write_text(yaml.safe_dump(cfg, sort_keys=False))
    out = tmp_path / "id.json"
    proc = _start("identify", tmp_path / "id.yaml", "--scheduler", "local", "--workers", "2",
                  "--out", out)
    seen, shown = _read_progress(proc, 50, 600.0)
    assert shown, seen
    workers = _descendants(proc.pid)
    t_signal = time.monotonic()
    code, err = _stop(proc, signal.SIGINT)
    assert time.monotonic() - t_signal < 2.0
    assert code == 130, seen + err.encode()
    assert "Traceback" not in err
    # (the line, not the last one: multiprocessing's resource tracker may warn after it about the
    # killed workers' semaphores)
    last = next(line for line in err.splitlines() if line.startswith("rtmbs: identification"))
    m = re.fullmatch(r"rtmbs: identification interrupted after (\d+) evaluations \((\d+) runs, "
                     r"(\d+) unfinished\); best so far: forces.spring.stiffness = \S+ N/m, "
                     r"forces.spring.damping = \S+ N s/m \(cost \S+\); the evaluations are in (.+)",
                     last)
    assert m, last
    assert m.group(4) == str(out)
    d = json.loads(out.read_text())
    assert d["interrupted"] is True and d["converged"] is False
    assert d["nfev"] == int(m.group(1)) == len(d["evaluations"]) >= 1
    assert len(d["unfinished"]) == int(m.group(3))
    best = min(d["evaluations"], key=lambda e: e["cost"])
    assert d["cost"] == best["cost"]
    assert [d["values"][p] for p in cfg["parameters"]] == best["x"]
    _assert_workers_end(workers)


def test_a_signal_inside_an_append_is_raised_after_it_and_one_while_writing_is_held():
    """``deferred`` (one append to a result file) raises Ctrl-C at its end, not inside;
    ``writing`` (the results being written) holds it and lets the command go on."""
    from rtmbs.io import interrupts

    guard = interrupts.install(watchdog=False)
    try:
        done = []
        with pytest.raises(KeyboardInterrupt):
            with interrupts.deferred():
                os.kill(os.getpid(), signal.SIGINT)
                time.sleep(0.05)  # the handler runs here (between bytecodes) and holds it
                done.append("rest of the append")
        assert done == ["rest of the append"] and interrupts.interrupted()
        with interrupts.writing("results"):
            os.kill(os.getpid(), signal.SIGTERM)
            time.sleep(0.05)
            done.append("written")
        assert done[-1] == "written" and not interrupts.STATE.pending
    finally:
        guard.restore()
    assert signal.getsignal(signal.SIGINT) is not interrupts._handler


#: a command-line process with the watchdog whose append to its result file takes 2.5 s (a flush
#: slowed by the disk), signalled at the start of the append: it must finish the append, then
#: leave by its own KeyboardInterrupt, not be forced out 1.5 s after the signal
SLOW_APPEND = """
import sys, time
from rtmbs.io import interrupts
guard = interrupts.install(watchdog=True)  # (kept: it holds the wakeup socket)
interrupts.STATE.open_files["result.h5"] = "t up to 1 s"
try:
    with interrupts.deferred():
        print("appending", flush=True)
        time.sleep(2.5)
    print("not interrupted", flush=True)
except KeyboardInterrupt:
    interrupts.STATE.open_files.clear()
    print("rtmbs: interrupted after the append", file=sys.stderr, flush=True)
    interrupts.exit_now(130)
"""


def test_a_slow_append_after_a_signal_is_waited_for_not_cut_short():
    proc = subprocess.Popen([sys.executable, "-c", SLOW_APPEND], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdout.readline().strip() == "appending"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert err.strip().splitlines() == ["rtmbs: writing the rows of the last steps ...",
                                        "rtmbs: interrupted after the append"]


def test_ctrl_c_lost_in_a_callback_from_c_prints_no_traceback(monkeypatch):
    """A KeyboardInterrupt raised inside a callback from C (llvmlite's, while numba compiles)
    cannot propagate; Python printed it as "Exception ignored ... Traceback". Under the
    command's handlers it is dropped (the watchdog ends the process); other such errors still
    reach the hook that was there before."""
    from rtmbs.io import interrupts

    seen = []
    monkeypatch.setattr(sys, "unraisablehook", lambda args: seen.append(args.exc_type))

    class Raises:
        def __init__(self, exc):
            self.exc = exc

        def __del__(self):
            raise self.exc

    guard = interrupts.install(watchdog=False)
    try:
        Raises(KeyboardInterrupt())
        Raises(ValueError("shown"))
    finally:
        guard.restore()
    assert seen == [ValueError]
