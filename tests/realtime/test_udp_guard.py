"""UDP I/O under abuse: a flood is drained at most ``MAX_DRAIN`` packets per step, a
run whose every input packet was refused (late) finishes with status 0 and says why, a port in
use is a one-line error, and Ctrl-C in the paced loop keeps the steps done."""
import json
import socket
import time

import numpy as np
import pytest

import _models.realtime as tm
from rtmbs.cli import main
from rtmbs.errors import ModelError
from rtmbs.realtime import run_realtime
from rtmbs.realtime.udp import MAGIC_IN, MAX_DRAIN, UdpIO, pack_packet


def _peer():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    return s


def _wait_queued(io, n, timeout=2.0):
    """Wait until ``n`` datagrams are readable on the rtmbs socket (loopback delivery)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            io.sock.recv(65536, socket.MSG_PEEK)
        except BlockingIOError:
            time.sleep(0.005)
            continue
        time.sleep(0.05 + 1e-4 * n)  # the first is there; give the rest time
        return


def test_a_flood_is_drained_at_most_max_drain_packets_per_step():
    system = tm.MassSpringDamper()
    io = UdpIO({"listen": "127.0.0.1:0", "inputs": ["force"]})
    io.open(system)
    peer = _peer()
    total = 2 * MAX_DRAIN + 10
    try:
        for seq in range(1, total + 1):
            peer.sendto(pack_packet(MAGIC_IN, seq, 0.0, [float(seq)]), io.local_address)
        _wait_queued(io, total)
        io.read_inputs(system, 0.0)
        # one bounded drain: MAX_DRAIN read, the newest of them applied, the rest left queued
        assert io.rx_packets == MAX_DRAIN and io.rx_accepted == 1
        assert io.rx_superseded == MAX_DRAIN - 1 and io.rx_drain_limited == 1
        assert system.force == float(MAX_DRAIN)
        io.read_inputs(system, 0.001)
        assert io.rx_packets == 2 * MAX_DRAIN and system.force == float(2 * MAX_DRAIN)
        io.read_inputs(system, 0.002)  # the last 10: the drain ends on an empty socket
        assert io.rx_packets == total and io.rx_drain_limited == 2
        assert system.force == float(total) and io.last_rx_seq == total
    finally:
        io.close()
        peer.close()


class _LateSender(UdpIO):
    """UdpIO whose peer sends, before each read, one packet stamped with its own clock (0.0 s,
    while the simulated time runs on): every packet is late once t > max_age."""

    def open(self, system):
        super().open(system)
        self.peer = _peer()
        self.seq = 0

    def read_inputs(self, system, t):
        self.seq += 1
        self.peer.sendto(pack_packet(MAGIC_IN, self.seq, -1.0, [5.0]), self.local_address)
        time.sleep(0.0002)
        super().read_inputs(system, t)

    def close(self):
        super().close()
        self.peer.close()


def test_every_input_late_finishes_with_a_warning():
    system = tm.MassSpringDamper()
    io = _LateSender({"listen": "127.0.0.1:0", "inputs": ["force"], "max_age": 0.05})
    rep = run_realtime(system, tm.SOLVER_NAME, h=1e-3, duration=0.05, io=io)
    st = rep.io_stats
    assert st["rx_packets"] > 0 and st["rx_accepted"] == 0 and st["rx_late"] == st["rx_packets"]
    assert rep.status == 0
    assert rep.message == (
        f"finished with a warning: all {st['rx_packets']} input packets were refused "
        f"({st['rx_late']} late); inputs kept their initial values; late means stamped before "
        "t - max_age (max_age = 0.05 s): stamp packets with the simulated time, not the "
        "sender's clock")
    assert system.force == 0.0  # none applied


def test_a_run_with_accepted_inputs_has_no_warning():
    system = tm.MassSpringDamper()
    io = UdpIO({"listen": "127.0.0.1:0", "inputs": ["force"], "max_age": 0.05})
    io.open(system)
    peer = _peer()
    peer.sendto(pack_packet(MAGIC_IN, 1, 0.0, [5.0]), io.local_address)
    _wait_queued(io, 1)
    io.read_inputs(system, 0.0)
    assert io.problem() == "" and system.force == 5.0
    io.close()
    peer.close()


def test_a_port_in_use_is_named(tmp_path):
    busy = _peer()
    port = busy.getsockname()[1]
    try:
        with pytest.raises(ModelError) as info:
            UdpIO({"listen": f"127.0.0.1:{port}"}).open(tm.MassSpringDamper())
        assert str(info.value) == (f"udp.listen: cannot listen on 127.0.0.1:{port} "
                                   "(Address already in use)")
    finally:
        busy.close()


class _CtrlC(UdpIO):
    """Raises KeyboardInterrupt (as Ctrl-C would) when step ``at`` reads its inputs."""

    def __init__(self, at):
        super().__init__({"listen": "127.0.0.1:0"})
        self.at, self.k = at, 0

    def read_inputs(self, system, t):
        if self.k == self.at:
            raise KeyboardInterrupt
        self.k += 1


def test_ctrl_c_in_the_paced_loop_keeps_the_steps_done():
    system = tm.MassSpringDamper()
    rep = run_realtime(system, tm.SOLVER_NAME, h=1e-3, duration=1.0, io=_CtrlC(at=40))
    assert rep.status == 2 and rep.steps == 40
    assert rep.message == "interrupted after step 40 of 1000 (t = 0.04 s)"
    t = rep.result.t
    assert len(t) == 41 and np.all(np.diff(t) > 0) and t[-1] == pytest.approx(0.04)
    # the kept trajectory is the uninterrupted one up to there
    full = run_realtime(tm.MassSpringDamper(), tm.SOLVER_NAME, h=1e-3, duration=0.04)
    np.testing.assert_array_equal(rep.result.q, full.result.q)


def test_realtime_duration_0_json_is_strict_json(capsys):
    assert main(["realtime", "double-pendulum", "--duration", "0", "--json"]) == 0
    out = capsys.readouterr().out
    s = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in {out}"))
    assert s["steps"] == 0 and s["realtime_factor"] is None and s["turnaround_us_p50"] is None


def test_ctrl_c_during_rtmbs_realtime_writes_the_steps_done(tmp_path, capsys):
    """A real SIGINT from a timer thread 2 s into a 30 s paced run of the (Python) test model:
    exit code 130, the message names the files, and they hold the steps done."""
    import os
    import re
    import signal
    import threading
    from pathlib import Path

    from rtmbs.result import Result

    out = tmp_path / "rt"
    spec = f"{Path(tm.__file__)}:make_msd"
    # Ctrl-C as in a terminal, also when pytest was started in the background (SIGINT ignored)
    old = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(2.0, os.kill, (os.getpid(), signal.SIGINT))
    timer.start()
    try:
        code = main(["realtime", spec, "--solver", tm.SOLVER_NAME, "--h", "1e-3", "--duration",
                     "30", "--out", str(out)])
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, old)
    err = capsys.readouterr().err.strip().splitlines()[-1]
    assert code == 130
    files = ", ".join(str(out / f) for f in ("summary.json", "summary.md", "turnaround.png",
                                             "timings.npz", "result.h5", "result.mf4"))
    m = re.fullmatch(r"rtmbs: interrupted after step (\d+) of 30000 \(t = ([\d.]+) s\); results "
                     r"kept up to there; written to (.+)", err)
    assert m and m.group(3) == files, err
    res = Result.load(out)
    steps = int(m.group(1))
    assert 0 < steps < 30000 and len(res.t) == steps + 1
    assert np.all(np.diff(res.t) > 0) and res.t[-1] == pytest.approx(float(m.group(2)))
    assert json.loads((out / "summary.json").read_text())["status"] == 2
