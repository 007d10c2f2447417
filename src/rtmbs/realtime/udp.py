"""UDP I/O for the paced loop: inputs from, outputs to another program (a controller, a driver
model, a test rig), one datagram per step.

Packet layout (little-endian, both directions; see ``docs/realtime.md``)::

    offset  size  type      field
    0       4     char[4]   magic: b"RTMI" for inputs (to rtmbs), b"RTMO" for outputs (from rtmbs)
    4       4     uint32    sequence number (wraps at 2**32; "newer" means 0 < seq - last < 2**31)
    8       8     float64   simulated time of the sender [s]
    16      2     uint16    channel count N
    18      8·N   float64   channel values, in the order of the configuration

Every step the loop drains the socket without blocking, at most ``MAX_DRAIN`` packets (a flood
cannot stretch a step; the rest wait for the next steps, and the kernel drops what overflows its
receive buffer), and applies the newest valid input packet; the others are counted and ignored,
never raised: ``rx_malformed`` (short, wrong magic,
wrong count or length, non-finite value), ``rx_out_of_order`` (sequence not newer than the last
accepted one; duplicates too), ``rx_late`` (time stamp older than ``t - max_age``, when
``max_age`` is set), ``rx_superseded`` (valid but a newer one arrived in the same drain);
``rx_drain_limited`` counts the steps that stopped at ``MAX_DRAIN``. Inputs hold their last
value. When packets arrived but none was accepted (e.g. every one late: time stamps must be the
simulated time, not the sender's clock), :meth:`UdpIO.problem` says so and the run finishes with
status 0 (a warning). Configuration (YAML or JSON)::

    listen: 127.0.0.1:25000        # where rtmbs receives input packets
    send_to: 127.0.0.1:25001       # where rtmbs sends output packets (omit: no outputs)
    inputs:                        # input channel i -> model input (system.input_names)
      - force                      #   a name, or
      - {name: steer, scale: 0.01745, offset: 0.0, initial: 0.0}   # value = scale·x + offset
    outputs: [x, v]                # output channel j <- named output (system.output_names)
    max_age: 0.05                  # optional [s]
    decimation: 1                  # optional: publish every N-th step
"""
from __future__ import annotations

import json
import math
import socket
import struct
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import ModelError, did_you_mean
from ..protocol import MechanicalSystem
from .iobase import RealtimeIO

MAGIC_IN = b"RTMI"
MAGIC_OUT = b"RTMO"
HEADER = struct.Struct("<4sIdH")
HEADER_SIZE = HEADER.size  # 18
MAX_DATAGRAM = 65536
#: Packets read per step at most: a bounded cost (a flood of 280 000 packets/s drained whole made
#: one step take 96 ms; measured 2-5 µs per packet read and checked on the loaded 2-core
#: test machine, so at most ~80 µs per step). A sender at the step rate needs 1; 16 absorbs its
#: bursts. Under a flood the newest packet of each drain is applied and the queue lags behind.
MAX_DRAIN = 16
_U32 = 0xFFFFFFFF


def pack_packet(magic: bytes, seq: int, t: float, values) -> bytes:
    """One packet of the documented layout (for peers and tests; allocates)."""
    values = np.asarray(values, dtype="<f8").ravel()
    return HEADER.pack(magic, seq & _U32, float(t), len(values)) + values.tobytes()


def unpack_packet(data: bytes, magic: bytes = MAGIC_OUT):
    """``(seq, t, values)`` of a packet; raises ``ValueError`` when it is malformed."""
    if len(data) < HEADER_SIZE:
        raise ValueError(f"packet of {len(data)} bytes is shorter than the {HEADER_SIZE}-byte header")
    mg, seq, t, cnt = HEADER.unpack_from(data)
    if mg != magic:
        raise ValueError(f"magic {mg!r}, expected {magic!r}")
    if len(data) != HEADER_SIZE + 8 * cnt:
        raise ValueError(f"packet of {len(data)} bytes, expected {HEADER_SIZE + 8 * cnt} for {cnt} channels")
    return seq, t, np.frombuffer(data, "<f8", cnt, HEADER_SIZE).copy()


@dataclass
class InputChannel:
    name: str
    scale: float = 1.0
    offset: float = 0.0
    initial: float | None = None


@dataclass
class UdpConfig:
    listen: tuple[str, int] = ("127.0.0.1", 25000)
    send_to: tuple[str, int] | None = None
    inputs: list[InputChannel] = field(default_factory=list)
    outputs: list[str] = field(default_factory=list)
    max_age: float | None = None
    decimation: int = 1

    @classmethod
    def from_dict(cls, d: dict, where: str = "udp") -> "UdpConfig":
        if not isinstance(d, dict):
            raise ModelError(where, f"expected a mapping, got {type(d).__name__}")
        known = {"listen", "send_to", "inputs", "outputs", "max_age", "decimation"}
        for k in d:
            if k not in known:
                raise ModelError(f"{where}.{k}", "unknown key" + did_you_mean(k, known))
        cfg = cls()
        if "listen" in d:
            cfg.listen = _address(d["listen"], f"{where}.listen")
        if d.get("send_to") is not None:
            cfg.send_to = _address(d["send_to"], f"{where}.send_to")
        for i, item in enumerate(d.get("inputs") or []):
            p = f"{where}.inputs[{i}]"
            if isinstance(item, str):
                cfg.inputs.append(InputChannel(item))
            elif isinstance(item, dict) and isinstance(item.get("name"), str):
                extra = set(item) - {"name", "scale", "offset", "initial"}
                if extra:
                    raise ModelError(f"{p}.{sorted(extra)[0]}", "unknown key (known: initial, name, offset, scale)")
                try:
                    cfg.inputs.append(InputChannel(
                        item["name"], float(item.get("scale", 1.0)), float(item.get("offset", 0.0)),
                        None if item.get("initial") is None else float(item["initial"])))
                except (TypeError, ValueError):
                    raise ModelError(p, "scale, offset and initial must be numbers") from None
                ch = cfg.inputs[-1]
                if not all(math.isfinite(v) for v in (ch.scale, ch.offset, ch.initial or 0.0)):
                    raise ModelError(p, "scale, offset and initial must be finite numbers")
            else:
                raise ModelError(p, "expected an input name or a mapping with 'name'")
        for i, item in enumerate(d.get("outputs") or []):
            if not isinstance(item, str):
                raise ModelError(f"{where}.outputs[{i}]", "expected an output name")
            cfg.outputs.append(item)
        if d.get("max_age") is not None:
            try:
                cfg.max_age = float(d["max_age"])
            except (TypeError, ValueError):
                cfg.max_age = math.nan
            if not cfg.max_age > 0:
                raise ModelError(f"{where}.max_age", f"expected a time > 0 s, got {d['max_age']!r}")
        dec = d.get("decimation", 1)
        if not isinstance(dec, int) or dec < 1:
            raise ModelError(f"{where}.decimation", f"expected an integer >= 1, got {dec!r}")
        cfg.decimation = dec
        return cfg

    def check_against(self, system: MechanicalSystem, where: str = "udp") -> None:
        """Raise :class:`ModelError` at ``where``.inputs[i] / .outputs[j] for a channel that
        ``system`` has no input / output of that name."""
        ins, outs = list(system.input_names), list(system.output_names)
        for i, ch in enumerate(self.inputs):
            if ch.name not in ins:
                raise ModelError(f"{where}.inputs[{i}]", f"model '{system.name}' has no input "
                                 f"'{ch.name}'" + did_you_mean(ch.name, ins))
        for j, nm in enumerate(self.outputs):
            if nm not in outs:
                raise ModelError(f"{where}.outputs[{j}]", f"model '{system.name}' has no output "
                                 f"'{nm}'" + did_you_mean(nm, outs))


def _address(v, where) -> tuple[str, int]:
    if isinstance(v, dict):
        host, port = v.get("host", "127.0.0.1"), v.get("port")
    elif isinstance(v, str) and ":" in v:
        host, _, port = v.rpartition(":")
    else:
        raise ModelError(where, f"expected 'host:port' or {{host, port}}, got {v!r}")
    try:
        port = int(port)
    except (TypeError, ValueError):
        raise ModelError(where, f"port must be an integer, got {port!r}") from None
    if not 0 <= port < 65536:
        raise ModelError(where, f"port must be in 0..65535, got {port}")
    return str(host), port


def load_udp_config(path) -> UdpConfig:
    """Read a UDP configuration from a YAML or JSON file."""
    import yaml

    from ..model.strict_yaml import DuplicateKeyError, safe_load

    path = Path(path)
    try:
        text = path.read_text()
    except (OSError, UnicodeDecodeError) as exc:
        raise ModelError(str(path), "cannot read the UDP configuration: "
                         f"{getattr(exc, 'strerror', None) or exc}") from None
    try:
        data = json.loads(text) if path.suffix == ".json" else safe_load(text)
    except DuplicateKeyError as exc:
        raise ModelError(str(path), str(exc)) from None
    except (ValueError, yaml.YAMLError) as exc:
        raise ModelError(str(path), f"malformed UDP configuration: {str(exc).splitlines()[0]}") from None
    return UdpConfig.from_dict(data, where=path.name)


class UdpIO(RealtimeIO):
    """Non-blocking UDP inputs/outputs of the paced loop (module doc)."""

    def __init__(self, config: UdpConfig | dict | str | Path):
        source = config
        if isinstance(config, (str, Path)):
            config = load_udp_config(config)
        elif isinstance(config, dict):
            config = UdpConfig.from_dict(config)
        self.config = config
        self.where = Path(source).name if isinstance(source, (str, Path)) else "udp"
        self.sock = None
        self.local_address = None
        self._reset_counters()

    def _reset_counters(self):
        self.rx_packets = self.rx_accepted = self.rx_superseded = 0
        self.rx_malformed = self.rx_out_of_order = self.rx_late = self.rx_errors = 0
        self.rx_drain_limited = 0
        self.tx_packets = self.tx_errors = 0
        self.last_rx_seq = -1

    # -- RealtimeIO --------------------------------------------------------------------------
    def open(self, system: MechanicalSystem) -> None:
        if self.sock is not None:
            return
        cfg = self.config
        cfg.check_against(system)
        outs = list(system.output_names)
        nin, nout = len(cfg.inputs), len(cfg.outputs)
        self._in_names = [c.name for c in cfg.inputs]
        self._scale = [c.scale for c in cfg.inputs]
        self._offset = [c.offset for c in cfg.inputs]
        self._latest = np.zeros(nin)
        self._rx = np.zeros(MAX_DATAGRAM, np.uint8)
        self._rxv = self._rx[HEADER_SIZE:HEADER_SIZE + 8 * nin].view("<f8")
        self._rx_len = HEADER_SIZE + 8 * nin
        self._out_idx = np.array([outs.index(nm) for nm in cfg.outputs], dtype=np.intp)
        self._tx = np.zeros(HEADER_SIZE + 8 * nout, np.uint8)
        self._txv = self._tx[HEADER_SIZE:].view("<f8")
        self._tx_seq = 0
        self._nstep = 0
        for ch in cfg.inputs:
            if ch.initial is not None:
                system.set_input(ch.name, ch.scale * ch.initial + ch.offset)
        self._reset_counters()
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        try:
            sock.bind(cfg.listen)
        except OSError as exc:
            sock.close()
            raise ModelError(f"{self.where}.listen", f"cannot listen on {cfg.listen[0]}:"
                             f"{cfg.listen[1]} ({exc.strerror or exc})") from None
        sock.setblocking(False)
        self.sock = sock
        self.local_address = sock.getsockname()

    def read_inputs(self, system: MechanicalSystem, t: float) -> None:
        sock, rx, rxv = self.sock, self._rx, self._rxv
        nin, rx_len, max_age = len(self._in_names), self._rx_len, self.config.max_age
        have = False
        ref = self.last_rx_seq
        for _ in range(MAX_DRAIN):
            try:
                nbytes = sock.recv_into(rx)
            except BlockingIOError:
                break
            except OSError:
                self.rx_errors += 1
                break
            self.rx_packets += 1
            if nbytes != rx_len:
                self.rx_malformed += 1
                continue
            magic, seq, tp, cnt = HEADER.unpack_from(rx)
            if magic != MAGIC_IN or cnt != nin or not math.isfinite(tp + rxv.sum()):
                self.rx_malformed += 1
                continue
            if ref >= 0 and not 0 < ((seq - ref) & _U32) < 0x80000000:
                self.rx_out_of_order += 1
                continue
            if max_age is not None and tp < t - max_age:
                self.rx_late += 1
                continue
            if have:
                self.rx_superseded += 1
            self._latest[:] = rxv
            ref = seq
            have = True
        else:
            self.rx_drain_limited += 1
        if have:
            self.last_rx_seq = ref
            self.rx_accepted += 1
            latest, scale, offset = self._latest, self._scale, self._offset
            for i, name in enumerate(self._in_names):
                system.set_input(name, scale[i] * latest[i] + offset[i])

    def write_outputs(self, t: float, values: np.ndarray) -> None:
        dest = self.config.send_to
        if dest is None:
            return
        self._nstep += 1
        if self._nstep % self.config.decimation:
            return
        self._tx_seq = (self._tx_seq + 1) & _U32
        HEADER.pack_into(self._tx, 0, MAGIC_OUT, self._tx_seq, t, len(self._txv))
        np.take(values, self._out_idx, out=self._txv)
        try:
            self.sock.sendto(self._tx, dest)
            self.tx_packets += 1
        except OSError:
            self.tx_errors += 1

    def close(self) -> None:
        if self.sock is not None:
            self.sock.close()
            self.sock = None

    def problem(self) -> str:
        """A warning when input packets arrived but none was accepted, else ``""``."""
        if not self.rx_packets or self.rx_accepted or not self.config.inputs:
            return ""
        causes = ", ".join(f"{n} {k}" for k, n in (
            ("late", self.rx_late), ("malformed", self.rx_malformed),
            ("out of order", self.rx_out_of_order)) if n)
        text = f"all {self.rx_packets} input packets were refused ({causes}); inputs kept their initial values"
        if self.rx_late:
            text += (f"; late means stamped before t - max_age (max_age = {self.config.max_age:g} s):"
                     " stamp packets with the simulated time, not the sender's clock")
        return text

    def stats(self) -> dict:
        return dict(rx_packets=self.rx_packets, rx_accepted=self.rx_accepted,
                    rx_superseded=self.rx_superseded, rx_malformed=self.rx_malformed,
                    rx_out_of_order=self.rx_out_of_order, rx_late=self.rx_late,
                    rx_errors=self.rx_errors, rx_drain_limited=self.rx_drain_limited,
                    tx_packets=self.tx_packets, tx_errors=self.tx_errors,
                    last_rx_seq=self.last_rx_seq)
