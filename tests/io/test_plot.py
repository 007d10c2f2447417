"""Result plots: the PNG written is valid, has the documented size, and unknown signals give the
did-you-mean message of ``Result.signal`` as an RtmbsError."""
import struct
import zlib

import numpy as np
import pytest

from rtmbs.errors import RtmbsError
from rtmbs.io import plot as P
from rtmbs.result import Result


def _result(n=201, scale=1.0):
    t = np.linspace(0.0, 2.0, n)
    q = np.column_stack([scale * np.sin(t), np.cos(3 * t)])
    return Result(t=t, q=q, qd=np.gradient(q, t, axis=0), lam=np.zeros((n, 0)),
                  phi_norm=np.zeros(n), phid_norm=np.zeros(n),
                  outputs={"tyre_fz": 3000.0 + 10 * t}, coordinate_names=["chassis.z", "wheel.z"],
                  meta={"model": "quarter-car", "solver": "li-euler", "h": 1e-3})


def _png_size(path):
    """Check the PNG signature and every chunk's CRC; return the IHDR (width, height)."""
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, size, chunks = 8, None, []
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind = data[pos + 4:pos + 8]
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, f"bad CRC in chunk {kind!r}"
        if kind == b"IHDR":
            size = struct.unpack(">II", body[:8])
        chunks.append(kind)
        pos += 12 + length
    assert chunks[0] == b"IHDR" and chunks[-1] == b"IEND" and b"IDAT" in chunks
    return size


@pytest.mark.parametrize("signals", [["q:chassis.z"], ["chassis.z", "qd:wheel.z", "tyre_fz"]])
def test_plot_signals_writes_a_png_of_the_documented_size(tmp_path, signals):
    out = P.plot_signals(_result(), signals, tmp_path / "sub" / "sig.png", title="test")
    # docstring of rtmbs.io.plot: 800 px wide, 80 + 200 px per subplot high
    assert _png_size(out) == (800, 80 + 200 * len(signals))


def test_plot_signals_draws_the_signal_values(tmp_path):
    """A blank or wrong figure would not differ between two results with different data."""
    a = P.plot_signals(_result(scale=1.0), ["chassis.z"], tmp_path / "a.png")
    b = P.plot_signals(_result(scale=-1.0), ["chassis.z"], tmp_path / "b.png")
    c = P.plot_signals(_result(scale=1.0), ["chassis.z"], tmp_path / "c.png")
    assert a.read_bytes() != b.read_bytes()
    assert a.read_bytes() == c.read_bytes()


def test_unknown_signal_gives_the_did_you_mean_message(tmp_path):
    with pytest.raises(RtmbsError) as exc:
        P.plot_signals(_result(), ["chassis.z", "chasis.z"], tmp_path / "x.png")
    assert str(exc.value) == ("unknown signal 'chasis.z' (did you mean 'chassis.z'? "
                              "known: chassis.z, tyre_fz, wheel.z)")
    assert not (tmp_path / "x.png").exists()  # checked before anything is drawn


def test_compare_plot_overlays_and_differences(tmp_path):
    ref = _result(401)
    run = _result(101, scale=1.01)
    out = P.compare_plot({"reference": ref, "li-euler": run}, "chassis.z", tmp_path / "cmp.png")
    assert _png_size(out) == (800, 80 + 200 * 2)
    single = P.compare_plot({"reference": ref}, "chassis.z", tmp_path / "one.png")
    assert _png_size(single) == (800, 80 + 200)


def test_compare_plot_unknown_signal_names_the_result(tmp_path):
    other = _result()
    other.outputs = {"tyre_fx": other.t}
    with pytest.raises(RtmbsError) as exc:
        P.compare_plot({"ref": _result(), "new": other}, "tyre_fz", tmp_path / "c.png")
    assert str(exc.value) == ("result 'new': unknown signal 'tyre_fz' (did you mean 'tyre_fx'? "
                              "known: chassis.z, tyre_fx, wheel.z)")
