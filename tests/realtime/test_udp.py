"""UDP I/O: packet validation and counters (in-process, exact), configuration errors, and a
round trip at 1 kHz with a peer in a second process over 127.0.0.1."""
import multiprocessing as mp
import socket
import time

import numpy as np
import pytest

import _models.realtime as tm
from rtmbs.errors import ModelError
from rtmbs.realtime import run_realtime
from rtmbs.realtime.udp import (
    HEADER, MAGIC_IN, MAGIC_OUT, UdpConfig, UdpIO, load_udp_config, pack_packet, unpack_packet,
)


def _peer_socket():
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind(("127.0.0.1", 0))
    s.settimeout(2.0)
    return s


def _open(cfg_extra=None):
    system = tm.MassSpringDamper()
    peer = _peer_socket()
    cfg = {"listen": "127.0.0.1:0", "send_to": f"127.0.0.1:{peer.getsockname()[1]}",
           "inputs": [{"name": "force", "scale": 2.0, "offset": 1.0}], "outputs": ["v", "x"]}
    cfg.update(cfg_extra or {})
    io = UdpIO(cfg)
    io.open(system)
    return system, io, peer


def _settle():
    time.sleep(0.02)  # loopback delivery


def test_counters_of_bad_packets_and_newest_valid_wins():
    system, io, peer = _open({"max_age": 0.5})
    dest = io.local_address
    try:
        peer.sendto(pack_packet(MAGIC_IN, 10, 1.0, [3.0]), dest)
        peer.sendto(pack_packet(MAGIC_IN, 12, 1.0, [4.0]), dest)   # newer: wins
        peer.sendto(b"RTMI\x01", dest)                              # short
        peer.sendto(pack_packet(b"XXXX", 13, 1.0, [9.0]), dest)     # bad magic
        peer.sendto(pack_packet(MAGIC_IN, 13, 1.0, [9.0, 9.0]), dest)  # wrong count
        peer.sendto(pack_packet(MAGIC_IN, 13, 1.0, [9.0]) + b"\0", dest)  # wrong length
        peer.sendto(pack_packet(MAGIC_IN, 13, 1.0, [np.nan]), dest)  # non-finite
        peer.sendto(pack_packet(MAGIC_IN, 11, 1.0, [9.0]), dest)    # older than 12
        peer.sendto(pack_packet(MAGIC_IN, 13, 0.2, [9.0]), dest)    # late: 0.2 < 1.0 - 0.5
        _settle()
        io.read_inputs(system, 1.0)
        s = io.stats()
        assert s["rx_packets"] == 9
        assert s["rx_malformed"] == 5 and s["rx_out_of_order"] == 1 and s["rx_late"] == 1
        assert s["rx_accepted"] == 1 and s["rx_superseded"] == 1 and s["last_rx_seq"] == 12
        assert system.force == 2.0 * 4.0 + 1.0
        # nothing new: the input holds its value
        io.read_inputs(system, 1.001)
        assert system.force == 9.0 and io.stats()["rx_accepted"] == 1
        # a duplicate is out of order; sequence numbers wrap at 2**32
        peer.sendto(pack_packet(MAGIC_IN, 12, 1.0, [7.0]), dest)
        _settle()
        io.read_inputs(system, 1.002)
        assert io.rx_out_of_order == 2 and system.force == 9.0
        io.last_rx_seq = 2**32 - 1
        peer.sendto(pack_packet(MAGIC_IN, 0, 1.0, [5.0]), dest)
        _settle()
        io.read_inputs(system, 1.003)
        assert system.force == 11.0 and io.last_rx_seq == 0
    finally:
        io.close()
        peer.close()


def test_outputs_follow_configured_order():
    system, io, peer = _open()
    try:
        values = np.array([0.25, -1.5, 7.0])  # x, v, force (system.output_names)
        io.write_outputs(0.125, values)
        io.write_outputs(0.25, values * 2)
        pkt = peer.recv(1024)
        assert len(pkt) == HEADER.size + 16
        seq, t, vals = unpack_packet(pkt, MAGIC_OUT)
        assert (seq, t) == (1, 0.125)
        np.testing.assert_array_equal(vals, [-1.5, 0.25])  # outputs: [v, x]
        seq, t, vals = unpack_packet(peer.recv(1024))
        assert (seq, t) == (2, 0.25) and list(vals) == [-3.0, 0.5]
        assert io.stats()["tx_packets"] == 2
    finally:
        io.close()
        peer.close()


def test_config_errors_name_the_key(tmp_path):
    system = tm.MassSpringDamper()
    with pytest.raises(ModelError, match=r"udp.inputs\[0\]: model 'test-msd' has no input 'forse' "
                                         r"\(did you mean 'force'\?"):
        UdpIO({"listen": "127.0.0.1:0", "inputs": ["forse"]}).open(system)
    with pytest.raises(ModelError, match=r"udp.outputs\[1\]: model 'test-msd' has no output 'y'"):
        UdpIO({"listen": "127.0.0.1:0", "outputs": ["x", "y"]}).open(system)
    with pytest.raises(ModelError, match=r"udp.sendto: unknown key \(did you mean 'send_to'"):
        UdpConfig.from_dict({"sendto": "127.0.0.1:1"})
    with pytest.raises(ModelError, match=r"udp.listen: port must be an integer, got 'abc'"):
        UdpConfig.from_dict({"listen": "127.0.0.1:abc"})
    p = tmp_path / "io.yaml"
    p.write_text("listen: 127.0.0.1:25000\ninputs:\n  - {name: force, scale: 2}\noutputs: [x]\n"
                 "max_age: 0.1\n")
    cfg = load_udp_config(p)
    assert cfg.listen == ("127.0.0.1", 25000) and cfg.inputs[0].scale == 2.0
    assert cfg.outputs == ["x"] and cfg.max_age == 0.1 and cfg.send_to is None


# -- round trip with a second process ------------------------------------------------------

N_SEND = 1000
H = 1e-3
DURATION = 2.0  # the peer sends for 1 s once the loop runs


def _peer(sock, sim_addr, conn):
    """Wait for the simulator's first output packet, then send force = i on valid packet i
    (seq 2i) at 1 kHz with 6 bad packets among them; collect every output packet until the
    one of the last step."""
    got = []
    sock.settimeout(20.0)
    got.append(sock.recv(1024))          # the loop is running
    sock.setblocking(False)

    def drain():
        while True:
            try:
                got.append(sock.recv(1024))
            except BlockingIOError:
                return

    t_sim0 = unpack_packet(got[0])[1]
    t0 = time.perf_counter()
    for i in range(1, N_SEND + 1):
        target = t0 + i * H
        while True:
            drain()
            rem = target - time.perf_counter()
            if rem <= 0:
                break
            time.sleep(min(rem, 2e-4))
        el = t_sim0 + time.perf_counter() - t0
        sock.sendto(pack_packet(MAGIC_IN, 2 * i, el, [float(i)]), sim_addr)
        if i == 100:
            sock.sendto(b"RTMI" + b"\0" * 6, sim_addr)                          # short
        elif i == 200:
            sock.sendto(pack_packet(b"RTMO", 2 * i + 1, el, [-1.0]), sim_addr)  # magic
        elif i == 300:
            sock.sendto(pack_packet(MAGIC_IN, 2 * i + 1, el, [-1.0, 0.0]), sim_addr)  # count
        elif i == 400:
            sock.sendto(pack_packet(MAGIC_IN, 2 * i - 100, el, [-1.0]), sim_addr)  # old seq
        elif i == 500:
            sock.sendto(pack_packet(MAGIC_IN, 2 * i + 1, el, [np.nan]), sim_addr)   # NaN
        elif i == 600:
            sock.sendto(pack_packet(MAGIC_IN, 2 * i + 1, -1000.0, [-2.0]), sim_addr)  # late
    deadline = time.perf_counter() + 10.0
    last_t = DURATION - H / 2
    while time.perf_counter() < deadline:
        drain()
        if got and unpack_packet(got[-1])[1] >= last_t:
            break
        time.sleep(1e-3)
    conn.send(got)
    conn.close()


def test_round_trip_with_a_second_process_at_1khz():
    ctx = mp.get_context("fork")
    peer_sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer_sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 22)
    peer_sock.bind(("127.0.0.1", 0))
    system = tm.MassSpringDamper()
    io = UdpIO({"listen": "127.0.0.1:0", "send_to": f"127.0.0.1:{peer_sock.getsockname()[1]}",
                "inputs": ["force"], "outputs": ["x", "v", "force"], "max_age": 0.5})
    io.open(system)
    parent, child = ctx.Pipe(duplex=False)
    proc = ctx.Process(target=_peer, args=(peer_sock, io.local_address, child), daemon=True)
    proc.start()
    try:
        rep = run_realtime(system, tm.SOLVER_NAME, h=H, duration=DURATION, io=io)
        assert parent.poll(10.0), "the peer process sent nothing back"
        packets = parent.recv()
    finally:
        proc.join(5.0)
        if proc.is_alive():
            proc.kill()
        peer_sock.close()
    s = rep.io_stats
    # every bad packet was counted and ignored; all 1000 valid ones were seen
    assert s["rx_packets"] == N_SEND + 6
    assert s["rx_malformed"] == 4 and s["rx_out_of_order"] == 1 and s["rx_late"] == 1
    assert s["rx_accepted"] + s["rx_superseded"] == N_SEND
    assert s["rx_errors"] == 0 and s["last_rx_seq"] == 2 * N_SEND
    # the applied input: only values sent as valid, in order, held at the last one
    force = rep.result.outputs["force"]
    assert set(np.unique(force)) <= set(map(float, range(0, N_SEND + 1)))
    assert np.all(np.diff(force) >= 0) and force[-1] == float(N_SEND)
    assert len(np.unique(force)) >= 100
    # the outputs reflect the inputs: replaying the recorded inputs offline gives the same states
    replay = tm.MassSpringDamper()
    st = replay.initial_state()
    slv = tm.SemiImplicitEuler(replay)
    slv.reset(st)
    for k in range(1, rep.steps + 1):
        replay.set_input("force", force[k])
        slv.step(st, H)
        st.t = k * H
        assert st.q[0] == rep.result.q[k, 0] and st.qd[0] == rep.result.qd[k, 0]
    # every step was published and received, in order, with the recorded values
    assert s["tx_packets"] == rep.steps == round(DURATION / H)
    assert len(packets) == rep.steps
    for j, pkt in enumerate(packets):
        seq, t, vals = unpack_packet(pkt, MAGIC_OUT)
        k = round(t / H)
        assert seq == j + 1 and k == j + 1
        assert list(vals) == [rep.result.outputs[n][k] for n in ("x", "v", "force")]
