"""``rtmbs export-c``: the standalone real-time C program (rtmbs.fmu.export_c, engine/fmu/rt_main.c).

For the double pendulum (exported through the command line) and the multilink with transient
tyres: ``make`` builds it without a warning (and rt_main.c passes -Wpedantic -Werror); an unpaced
run of 1 s gives, in its result.csv read by rtmbs's own reader, the states, extra states and
outputs of rtmbs's compiled rollout (same h and options, no inputs) to 1e-12 relative per column,
and constraint norms equal to rtmbs's evaluation of them; a paced run of 0.2 s at 1 kHz prints
the summary of ``rtmbs realtime`` (Markdown and --json) with numbers that parse and agree;
``rtmbs plot`` and ``rtmbs view`` read the output folder; cross-compiled for aarch64 and armhf and run under qemu
for 1 s the program gives the x86-64 numbers to 1e-9 relative per column (columns below 1e-3
in magnitude: 1e-12 absolute; aarch64 is bit-identical, armhf's libm differs in last bits);
skipped, with the reason, only when the cross compiler or qemu is absent.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import numpy as np
import pytest

from _models.library import library_model
from rtmbs.cli import main as cli_main
from rtmbs.fmu import export_c
from rtmbs.models import load_model
from rtmbs.protocol import EVAL_PHI, EVAL_PHIQ
from rtmbs.result import Result
from rtmbs.solvers.base import get_solver
from rtmbs.solvers.rollout import rollout

H = 1e-3
T = 1.0
RTOL = 1e-12
MODELS = ["double-pendulum", "multilink-transient"]
CROSS = {"aarch64": ("aarch64-linux-gnu-gcc", "qemu-aarch64", "/usr/aarch64-linux-gnu"),
         "armhf": ("arm-linux-gnueabihf-gcc", "qemu-arm", "/usr/arm-linux-gnueabihf")}

if shutil.which("cc") is None or shutil.which("make") is None:
    pytest.skip("no C compiler (cc) or make: the program is built with them",
                allow_module_level=True)


_BUILT: dict = {}


@pytest.fixture(scope="module")
def program(tmp_path_factory):
    """(folder, make's output) of each model's program, exported and built once."""
    root = tmp_path_factory.mktemp("exportc")

    def get(name: str):
        if name not in _BUILT:
            out = root / name
            if name == "double-pendulum":
                assert cli_main(["export-c", name, "--h", str(H), "-o", str(out)]) == 0
            else:
                export_c(library_model(name), out, h=H)
            r = subprocess.run(["make", "-C", str(out)], capture_output=True, text=True)
            assert r.returncode == 0, r.stdout + r.stderr
            _BUILT[name] = (out, r.stdout + r.stderr)
        return _BUILT[name]

    return get


def _run(binary, *args, runner=(), timeout=600):
    r = subprocess.run([*runner, str(binary), *map(str, args)], capture_output=True, text=True,
                       timeout=timeout)
    assert r.returncode == 0, r.stdout + r.stderr
    return r.stdout


def _reference(system):
    """rtmbs's own run: li-euler at H, default options, the compiled rollout, no inputs; rows at
    t0 .. T (t, q, qd, x, every named output)."""
    system = system.new_data()
    state = system.initial_state()
    slv = get_solver("li-euler")(system)
    slv.reset(state)
    y0 = np.zeros(len(system.output_names))
    system.outputs(state.t, state.q, state.qd, y0)
    t0, q0, qd0, x0 = state.t, state.q.copy(), state.qd.copy(), state.x.copy()
    n = int(round(T / H))
    r = rollout(slv, state, n, H)
    assert r.nsteps == n
    cols = {"t": np.concatenate([[t0], r.t]), "q": np.vstack([q0, r.q]),
            "qd": np.vstack([qd0, r.qd]), "x": np.vstack([x0, r.x])}
    cols.update({nm: np.concatenate([[y0[j]], r.outputs[nm]])
                 for j, nm in enumerate(system.output_names)})
    return cols


def _rel(a, b, floor: float = 1e-300) -> float:
    """Largest difference of two columns relative to the column's largest magnitude (or
    ``floor`` when that is smaller)."""
    a, b = np.asarray(a, float), np.asarray(b, float)
    assert a.shape == b.shape
    scale = max(np.abs(b).max(initial=0.0), floor)
    return float(np.abs(a - b).max(initial=0.0) / scale)


def _worst(res: Result, ref: dict, names, floor: float = 1e-300) -> dict:
    """Largest relative difference per kind of column (t, q, qd, x, outputs)."""
    out = {"t": _rel(res.t, ref["t"], floor)}
    for k in ("q", "qd", "x"):
        a, b = getattr(res, k), ref[k]
        assert a.shape == b.shape, (k, a.shape, b.shape)
        out[k] = max((_rel(a[:, i], b[:, i], floor) for i in range(b.shape[1])), default=0.0)
    out["outputs"] = max((_rel(res.outputs[nm], ref[nm], floor) for nm in names), default=0.0)
    return out


def test_make_has_no_warning_and_main_is_pedantic(program):
    for name in MODELS:
        out, log = program(name)
        assert "warning" not in log.lower(), log
        assert (out / "rtmbs-rt").is_file()
    out, _ = program("double-pendulum")
    r = subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-I",
                        str(out / "src"), "-I", str(out / "src" / "fmu"), "-c",
                        str(out / "src" / "fmu" / "rt_main.c"), "-o", str(out / "rt_main_strict.o")],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    # libc and libm only
    ldd = shutil.which("ldd")
    if ldd:
        libs = subprocess.run([ldd, str(out / "rtmbs-rt")], capture_output=True, text=True).stdout
        names = {ln.split()[0] for ln in libs.splitlines() if ln.strip()}
        assert all(re.match(r"(linux-vdso|/lib.*/ld-linux|libc\.so|libm\.so)", n) for n in names), libs


@pytest.mark.parametrize("name", MODELS)
def test_unpaced_run_equals_rollout(program, name, tmp_path):
    out, _ = program(name)
    res_dir = tmp_path / "out"
    _run(out / "rtmbs-rt", "--unpaced", "--no-mlock", "--duration", T, "--out", res_dir)
    res = Result.load(res_dir)  # (rtmbs's reader: the folder's result.csv)
    system = library_model(name)
    ref = _reference(system)
    assert len(res.t) == int(round(T / H)) + 1
    assert res.coordinate_names == list(system.coordinate_names)
    assert list(res.outputs) == list(system.output_names)
    worst = _worst(res, ref, system.output_names)
    print(f"{name}: largest relative difference to rollout per kind: {worst}")
    assert max(worst.values()) <= RTOL, worst
    # the constraint norms are rtmbs's own evaluation of the saved states
    ws = system.workspace()
    for i in (0, len(res.t) // 2, len(res.t) - 1):
        system.evaluate(res.t[i], res.q[i], res.qd[i], ws, EVAL_PHI | EVAL_PHIQ)
        assert res.phi_norm[i] == pytest.approx(np.linalg.norm(ws.phi), rel=1e-9, abs=1e-15)
        assert res.phid_norm[i] == pytest.approx(np.linalg.norm(ws.phiq @ res.qd[i] + ws.phit),
                                                 rel=1e-9, abs=1e-15)
    # the units row is rtmbs's (the reader keeps it)
    assert res.meta["units"]["t"] == "s"


_ROW = re.compile(r"^\| (turnaround|step CPU time|start lateness) \(µs\) \| (.+) \|$", re.M)
_COUNTER = re.compile(r"^\| (\w+) \| ([^|]+) \|$", re.M)


def test_paced_run_summary(program, tmp_path):
    out, _ = program("double-pendulum")
    text = _run(out / "rtmbs-rt", "--duration", 0.2, "--out", tmp_path / "md")
    assert text.startswith("# Real-time run\n")
    assert "h = 1000 µs, policy `warn`, 200 steps (0.2 s simulated)" in text
    rows = {m.group(1): [float(v) for v in m.group(2).split(" | ")] for m in _ROW.finditer(text)}
    assert set(rows) == {"turnaround", "step CPU time", "start lateness"}
    for label, (p50, p99, p999, mx, mean) in rows.items():
        assert 0 <= p50 <= p99 <= p999 <= mx, (label, rows[label])
        assert 0 <= mean <= mx
    counters = dict(_COUNTER.findall(text))
    assert int(counters["overruns"]) == int(counters["step_overruns"]) + int(counters["os_overruns"])
    assert int(counters["os_overruns"]) == (int(counters["os_overruns_late_start"])
                                            + int(counters["os_overruns_preempted"]))
    assert counters["status"].strip() == "1" and "finished" in text
    # the same run with --json: the keys of `rtmbs realtime --json`
    from rtmbs.cli.realtime import JSON_KEYS

    line = _run(out / "rtmbs-rt", "--duration", 0.2, "--json", "--out", tmp_path / "js").strip()
    s = json.loads(line)
    assert set(JSON_KEYS) <= set(s)
    assert s["steps"] == 200 and s["h"] == H and s["status"] == 1 and s["policy"] == "warn"
    for k in ("turnaround_us", "step_cpu_us", "lateness_us"):
        assert 0 <= s[f"{k}_p50"] <= s[f"{k}_p999"] <= s[f"{k}_max"]
    assert s["overruns"] == s["step_overruns"] + s["os_overruns"]
    assert 0.5 < s["realtime_factor"] <= 1.0 + 1e-6 or s["overruns"] > 0
    assert json.loads((tmp_path / "js" / "summary.json").read_text()) == s
    res = Result.load(tmp_path / "js")
    assert len(res.t) == 201 and res.t[-1] == pytest.approx(0.2, abs=1e-12)


def test_policies_and_options(program, tmp_path):
    out, _ = program("double-pendulum")
    for policy in ("catch-up", "degrade", "stop"):
        s = json.loads(_run(out / "rtmbs-rt", "--duration", 0.05, "--policy", policy, "--json",
                            "--no-csv", "--busy-wait", "--cpu", 0))
        assert s["policy"] == policy and s["steps"] >= 1
        assert "CPU 0" in s["sched"] and "busy-wait" in s["sched"]
        if policy == "stop":
            assert s["steps"] == 50 or (s["stopped_early"] and s["overruns"] == 1)
    r = subprocess.run([str(out / "rtmbs-rt"), "--policy", "never"], capture_output=True, text=True)
    assert r.returncode == 2 and "bad value for --policy" in r.stderr
    help_text = _run(out / "rtmbs-rt", "--help")
    assert "double-pendulum" in help_text and "--priority" in help_text


def test_plot_and_view_read_the_output_folder(program, tmp_path):
    out, _ = program("double-pendulum")
    res_dir = tmp_path / "out"
    _run(out / "rtmbs-rt", "--unpaced", "--duration", 0.1, "--out", res_dir)
    assert cli_main(["plot", str(res_dir), "link2.z", "q:link1.x"]) == 0
    assert (res_dir / "plot.png").stat().st_size > 0
    assert cli_main(["view", str(res_dir), "--model", "double-pendulum"]) == 0
    assert (res_dir / "view.html").stat().st_size > 0


@pytest.mark.parametrize("arch", sorted(CROSS))
@pytest.mark.parametrize("name", MODELS)
def test_cross_compiled_under_qemu(program, name, arch, tmp_path):
    cc, qemu, sysroot = CROSS[arch]
    missing = [t for t in (cc, qemu) if shutil.which(t) is None]
    if missing or not Path(sysroot).is_dir():
        reason = (f"{arch}: {', '.join(missing) or sysroot} not installed (apt-get install "
                  f"gcc-{cc[:-4]} qemu-user)")
        print(reason)
        pytest.skip(reason)
    out, _ = program(name)
    x86 = tmp_path / "x86"
    _run(out / "rtmbs-rt", "--unpaced", "--no-mlock", "--duration", T, "--out", x86)
    build = tmp_path / "src"
    shutil.copytree(out / "src", build / "src")  # (a copy: the x86-64 binary stays)
    shutil.copy2(out / "Makefile", build / "Makefile")
    r = subprocess.run(["make", "-C", str(build), f"CC={cc}"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "warning" not in (r.stdout + r.stderr).lower()
    cross = tmp_path / "cross"
    _run(build / "rtmbs-rt", "--unpaced", "--no-mlock", "--duration", T, "--out", cross,
         runner=(qemu, "-L", sysroot))
    a, b = Result.load(cross), Result.load(x86)
    system = library_model(name)
    ref = {"t": b.t, "q": b.q, "qd": b.qd, "x": b.x, **b.outputs}
    exact = _worst(a, ref, system.output_names)
    print(f"{name} on {arch}: largest relative difference to x86-64 (no floor): {exact}")
    # relative to each column's largest magnitude, or 1e-3 for the columns that stay below it
    # (round-off columns such as the chassis's e0 rate, ~1e-23: armhf's libm differs from
    # x86-64's in the last bit of some results, and such columns are all round-off)
    worst = _worst(a, ref, system.output_names, floor=1e-3)
    worst["phi_norm"] = float(np.abs(a.phi_norm - b.phi_norm).max())
    print(f"{name} on {arch} under {qemu}: largest relative difference to x86-64: {worst}")
    assert max(worst.values()) <= 1e-9, worst


def _free_port() -> int:
    import socket

    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_udp_io(tmp_path):
    """The UDP protocol of `rtmbs realtime` (rtmbs.realtime.udp), compiled in: a peer sends
    input packets (x = 20 -> drive torque 2 x + 10 = 50, the configured initial too) among bad
    ones, which are counted and not applied: the trajectory is rollout's with 50 N m at every
    step (and not the one without); every output packet carries the outputs of result.csv at
    its time."""
    import socket
    import time

    from rtmbs.realtime.udp import MAGIC_IN, MAGIC_OUT, pack_packet, unpack_packet

    system = load_model("concept-quarter-car")
    outs = list(system.output_names)[:3]
    p_in, p_out = _free_port(), _free_port()
    cfg = {"listen": f"127.0.0.1:{p_in}", "send_to": f"127.0.0.1:{p_out}",
           "inputs": [{"name": "drive_torque", "scale": 2.0, "offset": 10.0, "initial": 20.0}],
           "outputs": outs}
    out = tmp_path / "prog"
    export_c(system, out, h=H, udp=cfg)
    r = subprocess.run(["make", "-C", str(out)], capture_output=True, text=True)
    assert r.returncode == 0 and "warning" not in (r.stdout + r.stderr).lower(), r.stderr
    peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
    peer.bind(("127.0.0.1", p_out))
    peer.settimeout(10.0)
    res_dir = tmp_path / "out"
    proc = subprocess.Popen([str(out / "rtmbs-rt"), "--duration", "0.3", "--json", "--no-mlock",
                             "--out", str(res_dir)], stdout=subprocess.PIPE, text=True)
    got = [peer.recv(65536)]  # (the program is up: its first output packet)
    dest = ("127.0.0.1", p_in)
    bad = [b"RTMI", pack_packet(b"XXXX", 1, 0.0, [20.0]), pack_packet(MAGIC_IN, 2, 0.0, [1e3, 1e3]),
           pack_packet(MAGIC_IN, 3, 0.0, [float("nan")])]
    for b in bad:
        peer.sendto(b, dest)
    seq = 100
    peer.sendto(pack_packet(MAGIC_IN, seq, 0.0, [20.0]), dest)
    time.sleep(0.005)
    peer.sendto(pack_packet(MAGIC_IN, 50, 0.0, [500.0]), dest)  # out of order: not applied
    peer.setblocking(False)

    def drain():
        while True:
            try:
                got.append(peer.recv(65536))
            except BlockingIOError:
                return

    while proc.poll() is None:
        seq += 1
        peer.sendto(pack_packet(MAGIC_IN, seq, 0.0, [20.0]), dest)
        drain()
        time.sleep(0.001)
    stdout, _ = proc.communicate()
    assert proc.returncode == 0, stdout
    drain()
    peer.close()
    s = json.loads(stdout)
    io = s["io"]
    print(f"UDP counters: {io}")
    assert s["status"] == 1 and s["steps"] == 300
    assert io["rx_malformed"] == 3 + 1 and io["rx_out_of_order"] == 1 and io["rx_accepted"] >= 1
    assert io["tx_packets"] == 300 and io["tx_errors"] == 0 and len(got) == 300
    assert io["last_rx_seq"] >= 100
    res = Result.load(res_dir)
    # the trajectory: rollout with the input at 50 N m every step
    sysd = system.new_data()
    state = sysd.initial_state()
    slv = get_solver("li-euler")(sysd)
    slv.reset(state)
    ro = rollout(slv, state, 300, H, inputs={"drive_torque": np.full(300, 50.0)})
    assert _rel(res.q[1:], ro.q) <= RTOL and _rel(res.qd[1:], ro.qd) <= RTOL
    sys0 = system.new_data()
    st0 = sys0.initial_state()
    s0 = get_solver("li-euler")(sys0)
    s0.reset(st0)
    r0 = rollout(s0, st0, 300, H)
    assert _rel(res.qd[1:], r0.qd) > 1e-6  # (the input mattered)
    # every output packet: the outputs of its row, bit for bit
    rows = {float(t): i for i, t in enumerate(res.t)}
    for k, pkt in enumerate(got):
        sq, t, vals = unpack_packet(pkt, MAGIC_OUT)
        assert sq == k + 1
        i = rows[t]
        assert list(vals) == [res.outputs[nm][i] for nm in outs]
