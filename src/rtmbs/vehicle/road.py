"""Road profiles: height z(x, y) and longitudinal slope dz/dx seen by the tyre contact model.

Every road, whatever its source, is stored the same way: a uniformly sampled table of two tracks
(left at ``y_left``, right at ``y_right``), evaluated by one C function (the engine's ``road.c``)
with linear interpolation in x and in y. This keeps the tyre force element (thesis 003, ch. 4.3.1: the 2-point follower reads
the road height along the distance travelled by the wheel) a fixed-cost call inside a compiled step.

Sources: flat, square bump (000, rear multilink study: 2 cm high, 2 m long), half-sine bump (004:
0.05 m high, 0.5 m wide), ramps, ISO 8608 random profiles of classes A-H (003, ch. 5: classes A, B,
C) synthesised by the sum of harmonics (inverse FFT), and CSV files. See ``docs/roads.md``.

Table layout (``RoadTable``):
    x0       float   abscissa of the first sample [m]
    dx       float   sample spacing [m], > 0
    y_left   float   lateral position of the left track [m] (y to the left, ISO 8855)
    y_right  float   lateral position of the right track [m], < y_left
    z        (2, N)  float64, C-contiguous: z[0] left track, z[1] right track [m], N >= 2

Outside [x0, x0 + (N-1) dx] the height is held at the end value (slope 0); across y it is
interpolated linearly between the tracks and held outside them.
"""
from __future__ import annotations

import csv
import math
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..engine import _engine
from ..errors import ModelError, did_you_mean

# ISO 8608 (1995), Table 1: reference spatial frequency and the geometric mean of Gd(n0) per class.
ISO_N0 = 0.1  # cycles/m
ISO_CLASSES = "ABCDEFGH"
ISO_GD_N0 = {c: 16e-6 * 4.0**k for k, c in enumerate(ISO_CLASSES)}  # m^3 (= m^2 / (cycles/m))
ISO_BAND = (0.011, 2.83)  # cycles/m: the band ISO 8608 classifies (wavelengths 90 m .. 0.35 m)
ISO_WAVINESS = 2.0

DEFAULT_TRACK_WIDTH = 1.6  # m: tracks at y = +-0.8 unless told otherwise
DEFAULT_SHAPE_DX = 1e-3  # m: sampling of analytic shapes
#: The most samples per track a road table may hold (two tracks of float64: 0.8 GB). A longer
#: road at a finer spacing is refused before anything is allocated: a road of 1e9 m at 1 mm
#: asked numpy for terabytes and ended in MemoryError.
MAX_ROAD_POINTS = 50_000_000


PACK_HEADER = 5  # packed layout: [x0, dx, y_left, y_right, N, z_left (N), z_right (N)]


def road_height_packed(table, x, y):
    """Road height and slope ``(z, dz/dx)`` at ``(x, y)`` of the packed 1-D layout ``[x0, dx,
    y_left, y_right, N, zl..., zr...]`` (:meth:`Road.packed`): linear interpolation in x within a
    sample interval (the slope is that interval's), linear in y between the tracks; held
    constant beyond the table ends and beyond the tracks. The engine's ``road.c``."""
    return _engine.road_height_packed(table, float(x), float(y))


# --------------------------------------------------------------------------------------------
# the road object
# --------------------------------------------------------------------------------------------
@dataclass(frozen=True, eq=False)
class Road:
    """A road as a sampled two-track table (see module docstring) plus a description.

    ``kind`` names the source (flat, square_bump, half_sine_bump, ramp, iso8608, csv) and
    ``params`` its parameters, for reports and plots.
    """

    x0: float
    dx: float
    z: np.ndarray  # (2, N)
    y_left: float = DEFAULT_TRACK_WIDTH / 2
    y_right: float = -DEFAULT_TRACK_WIDTH / 2
    kind: str = "table"
    params: dict = field(default_factory=dict)

    def __post_init__(self):
        z = np.ascontiguousarray(np.asarray(self.z, dtype=np.float64))
        if z.ndim != 2 or z.shape[0] != 2 or z.shape[1] < 2:
            raise ModelError("road.z", f"expected shape (2, N) with N >= 2, got {z.shape}")
        if not np.all(np.isfinite(z)):
            bad = int(np.argmax(~np.isfinite(z).all(axis=0)))
            raise ModelError("road.z", f"non-finite height at sample {bad}")
        _positive("road.dx", self.dx)
        if not (self.y_left > self.y_right):
            raise ModelError(
                "road.y_left",
                f"must be greater than y_right (y points left), got y_left={self.y_left}, "
                f"y_right={self.y_right}",
            )
        z.setflags(write=False)
        object.__setattr__(self, "z", z)
        object.__setattr__(self, "x0", float(self.x0))
        object.__setattr__(self, "dx", float(self.dx))

    # -- geometry -----------------------------------------------------------------------------
    @property
    def n(self) -> int:
        return self.z.shape[1]

    @property
    def x(self) -> np.ndarray:
        """Sample abscissae ``(N,)``."""
        return self.x0 + self.dx * np.arange(self.n)

    @property
    def x_end(self) -> float:
        return self.x0 + self.dx * (self.n - 1)

    @property
    def z_left(self) -> np.ndarray:
        return self.z[0]

    @property
    def z_right(self) -> np.ndarray:
        return self.z[1]

    def packed(self) -> np.ndarray:
        """The 1-D layout read by ``road_height_packed`` (one array to store in a workspace)."""
        head = [self.x0, self.dx, self.y_left, self.y_right, float(self.n)]
        return np.concatenate([np.array(head), self.z.ravel()])

    def evaluate(self, x, y=None):
        """Heights and slopes ``(z, dzdx)`` at points (arrays broadcast together); ``y=None``
        reads the left track (a single-track model then sees one track's PSD, not a mean)."""
        if y is None:
            y = self.y_left
        xb, yb = np.broadcast_arrays(np.asarray(x, dtype=np.float64), np.asarray(y, dtype=np.float64))
        xf = np.ascontiguousarray(xb.ravel())
        yf = np.ascontiguousarray(yb.ravel())
        oz = np.empty_like(xf)
        os_ = np.empty_like(xf)
        _engine.road_heights(self.packed(), xf, yf, oz, os_)
        return oz.reshape(xb.shape), os_.reshape(xb.shape)

    def height(self, x, y=None):
        return self.evaluate(x, y)[0]

    # -- files --------------------------------------------------------------------------------
    def to_csv(self, path) -> Path:
        """Write columns ``x, z_left, z_right`` (full float precision) with a comment header."""
        path = Path(path)
        with path.open("w", newline="") as fh:
            desc = " ".join(f"{k}={v}" for k, v in self.params.items())
            fh.write(f"# rtmbs road: {self.kind} {desc}\n")
            fh.write(f"# y_left={self.y_left!r} y_right={self.y_right!r}\n")
            w = csv.writer(fh)
            w.writerow(["x", "z_left", "z_right"])
            for xi, zl, zr in zip(self.x, self.z[0], self.z[1]):
                w.writerow([repr(float(xi)), repr(float(zl)), repr(float(zr))])
        return path


# --------------------------------------------------------------------------------------------
# validation helpers
# --------------------------------------------------------------------------------------------
def _number(name: str, value) -> float:
    try:
        v = float(value)
    except (TypeError, ValueError):
        raise ModelError(name, f"expected a number, got {value!r}") from None
    if not math.isfinite(v):
        raise ModelError(name, f"expected a finite number, got {value!r}")
    return v


def _positive(name: str, value) -> float:
    v = _number(name, value)
    if v <= 0.0:
        raise ModelError(name, f"must be > 0, got {value!r}")
    return v


def _check_size(where: str, length: float, dx: float) -> None:
    """Refuse a table of more than :data:`MAX_ROAD_POINTS` samples per track, naming the road
    and its length and spacing, before allocating it."""
    npts = length / dx
    if npts > MAX_ROAD_POINTS:
        raise ModelError(where, f"length {length:g} m at dx = {dx:g} m needs {npts:.3g} samples "
                         f"per track, more than the limit of {MAX_ROAD_POINTS:,} "
                         f"(rtmbs.vehicle.road.MAX_ROAD_POINTS, {16 * MAX_ROAD_POINTS / 1e9:.1f} "
                         "GB): use a larger dx or a shorter road")


def _tracks(track_width):
    w = _positive("road.track_width", track_width)
    return w / 2.0, -w / 2.0


# --------------------------------------------------------------------------------------------
# analytic shapes (sampled to the table)
# --------------------------------------------------------------------------------------------
def flat(z0: float = 0.0, track_width: float = DEFAULT_TRACK_WIDTH) -> Road:
    """A flat road at height ``z0`` everywhere (two samples, held beyond)."""
    z0 = _number("road.z0", z0)
    yl, yr = _tracks(track_width)
    return Road(0.0, 1.0, np.full((2, 2), z0), yl, yr, "flat", {"z0": z0})


def _edge_aligned_grid(start, length, dx, margin=2):
    """Grid with spacing ~dx (adjusted so length/dx is whole) and the edges at sample midpoints."""
    m = max(1, int(round(length / dx)))
    h = length / m
    x0 = start - (margin + 0.5) * h
    n = m + 2 * margin + 1  # ``margin`` samples beyond each half-offset edge
    return x0, h, n


def _bump_args(height, length, start, dx, track_width):
    """A bump's arguments checked (finite height and start, length and dx > 0, a grid of a
    bounded size) and its tracks' lateral positions: (height, length, start, dx, y_left,
    y_right)."""
    height = _number("road.height", height)
    length = _positive("road.length", length)
    start = _number("road.start", start)
    dx = _positive("road.dx", dx)
    yl, yr = _tracks(track_width)
    _check_size("road.dx", length, dx)
    return height, length, start, dx, yl, yr


def square_bump(height: float, length: float, start: float, dx: float = DEFAULT_SHAPE_DX,
                track_width: float = DEFAULT_TRACK_WIDTH) -> Road:
    """Square bump: z = height for start < x < start + length, 0 elsewhere (both tracks).

    Sampled on a grid (spacing ~dx, adjusted to divide ``length``) whose samples straddle each
    edge symmetrically: the height is exact farther than dx/2 from an edge, and each vertical
    edge becomes a ramp one sample wide centred on it (height/2 at the edge itself).
    """
    height, length, start, dx, yl, yr = _bump_args(height, length, start, dx, track_width)
    x0, h, n = _edge_aligned_grid(start, length, dx)
    x = x0 + h * np.arange(n)
    zt = np.where((x > start) & (x < start + length), height, 0.0)
    return Road(x0, h, np.vstack([zt, zt]), yl, yr, "square_bump",
                {"height": height, "length": length, "start": start})


def half_sine_bump(height: float, length: float, start: float, dx: float = DEFAULT_SHAPE_DX,
                   track_width: float = DEFAULT_TRACK_WIDTH) -> Road:
    """Half-sine bump: z = height sin(pi (x - start) / length) on [start, start + length].

    Sampled at ~dx with samples on both ends; interpolation error <= height (pi/length)^2 dx^2 / 8.
    """
    height, length, start, dx, yl, yr = _bump_args(height, length, start, dx, track_width)
    m = max(2, int(round(length / dx)))
    h = length / m
    x = start + h * np.arange(-1, m + 2)
    u = (x - start) / length
    zt = np.where((u >= 0.0) & (u <= 1.0), height * np.sin(np.pi * np.clip(u, 0.0, 1.0)), 0.0)
    return Road(x[0], h, np.vstack([zt, zt]), yl, yr, "half_sine_bump",
                {"height": height, "length": length, "start": start})


def ramp(slope: float, length: float, start: float = 0.0, direction: str = "up",
         track_width: float = DEFAULT_TRACK_WIDTH) -> Road:
    """Ramp: 0 before ``start``, rising (or falling) at ``slope`` (rise/run) over ``length``,
    then level at +-slope*length. Exact: a linear table of two samples, held beyond."""
    slope = _positive("road.slope", slope)
    length = _positive("road.length", length)
    start = _number("road.start", start)
    if direction not in ("up", "down"):
        raise ModelError("road.direction", f"unknown direction {direction!r} (expected 'up' or 'down')")
    yl, yr = _tracks(track_width)
    top = slope * length * (1.0 if direction == "up" else -1.0)
    zt = np.array([0.0, top])
    return Road(start, length, np.vstack([zt, zt]), yl, yr, "ramp",
                {"slope": slope, "length": length, "start": start, "direction": direction})


# --------------------------------------------------------------------------------------------
# ISO 8608 random profiles
# --------------------------------------------------------------------------------------------
def iso_gd(n, road_class="A", waviness: float = ISO_WAVINESS):
    """ISO 8608 displacement PSD Gd(n) = Gd(n0) (n / n0)^-w [m^3] of a class (its geometric mean)."""
    return _gd_n0(road_class) * (np.asarray(n, dtype=float) / ISO_N0) ** (-waviness)


def _gd_n0(road_class) -> float:
    key = str(road_class).strip().upper()
    if key not in ISO_GD_N0:
        raise ModelError("road.class", f"unknown ISO 8608 class {road_class!r}"
                         + did_you_mean(road_class, list(ISO_CLASSES)))
    return ISO_GD_N0[key]


def _bin_power(gd_n0, a, b, w):
    """Integral of Gd(n0) (n/n0)^-w over [a, b] (per frequency bin)."""
    if abs(w - 1.0) < 1e-12:
        return gd_n0 * ISO_N0 * np.log(b / a)
    return gd_n0 * ISO_N0**w * (a ** (1.0 - w) - b ** (1.0 - w)) / (w - 1.0)


def iso_band_rms(road_class, n_lo: float, n_hi: float, waviness: float = ISO_WAVINESS) -> float:
    """rms height [m] of the class PSD integrated over [n_lo, n_hi] cycles/m."""
    return float(np.sqrt(_bin_power(_gd_n0(road_class), n_lo, n_hi, waviness)))


def iso8608(road_class="B", length: float = 200.0, dx: float = 0.05, seed: int = 0,
            correlation=0.0, n_min: float = ISO_BAND[0], n_max: float = ISO_BAND[1],
            waviness: float = ISO_WAVINESS, track_width: float = DEFAULT_TRACK_WIDTH,
            x0: float = 0.0, fade_in: float = 0.0) -> Road:
    """Random road of an ISO 8608 class by the sum of harmonics, via one inverse real FFT.

    z(x) = sum_k A_k cos(2 pi n_k (x - x0) + phi_k), n_k = k / length, with
    A_k^2 / 2 = integral of Gd over the bin [n_k - dn/2, n_k + dn/2] (dn = 1/length) for the
    n_k in [n_min, n_max] (clipped to what length and dx resolve), phases phi_k uniform on
    [0, 2 pi) from ``numpy.random.default_rng(seed)``. The profile is periodic over ``length``.

    Right track: phi_R,k = phi_L,k + delta_k, delta_k wrapped-normal with E[cos delta] = c
    (``correlation``: a number in [0, 1] or a callable c(n)); c = 0 independent tracks,
    c = 1 identical ones. Both tracks have exactly the class PSD; their correlation
    coefficient has expectation c. ``fade_in`` > 0 multiplies the first metres by a
    half-cosine window so the road starts at z = 0 (it changes the PSD slightly).
    """
    gd_n0 = _gd_n0(road_class)
    cls = str(road_class).strip().upper()
    length = _positive("road.length", length)
    dx = _positive("road.dx", dx)
    n_min = _positive("road.n_min", n_min)
    n_max = _positive("road.n_max", n_max)
    waviness = _positive("road.waviness", waviness)
    x0 = _number("road.x0", x0)
    fade_in = _number("road.fade_in", fade_in)
    if fade_in < 0.0:
        raise ModelError("road.fade_in", f"must be >= 0, got {fade_in!r}")
    if n_max <= n_min:
        raise ModelError("road.n_max", f"must be greater than n_min={n_min}, got {n_max}")
    try:
        seed = int(seed)
    except (TypeError, ValueError):
        raise ModelError("road.seed", f"expected an integer, got {seed!r}") from None
    yl, yr = _tracks(track_width)
    _check_size("road.dx", length, dx)
    npts = int(round(length / dx))
    if npts < 8:
        raise ModelError("road.dx", f"too coarse for length {length} m: {npts} samples, expected >= 8")
    h = length / npts  # exact spacing so the period is ``length``
    dn = 1.0 / length
    k = np.arange(npts // 2 + 1)
    nk = k * dn
    # keep bins strictly below Nyquist (irfft would halve it) and inside the requested band
    band = (nk >= n_min - 1e-12) & (nk <= n_max + 1e-12) & (k >= 1) & (2 * k < npts)
    if not band.any():
        raise ModelError(
            "road.length",
            f"no harmonic of the band [{n_min}, {n_max}] cycles/m fits: length {length} m resolves "
            f"n >= {dn:.4g} and dx {dx} m resolves n < {0.5 / h:.4g} cycles/m",
        )
    amp = np.zeros(nk.shape)
    a = np.maximum(nk[band] - dn / 2, 1e-12)
    amp[band] = np.sqrt(2.0 * _bin_power(gd_n0, a, nk[band] + dn / 2, waviness))
    rng = np.random.default_rng(seed)
    phi_l = rng.uniform(0.0, 2.0 * np.pi, nk.shape)
    phi_free = rng.uniform(0.0, 2.0 * np.pi, nk.shape)
    gauss = rng.standard_normal(nk.shape)
    c = np.asarray(correlation(nk) if callable(correlation) else correlation, dtype=float)
    c = np.broadcast_to(c, nk.shape)
    if np.any(~np.isfinite(c)) or np.any(c < 0.0) or np.any(c > 1.0):
        raise ModelError("road.correlation", f"must lie in [0, 1], got {correlation!r}")
    with np.errstate(divide="ignore"):
        sigma = np.sqrt(-2.0 * np.log(np.where(c > 0.0, c, 1.0)))
    phi_r = np.where(c > 0.0, phi_l + sigma * gauss, phi_free)
    scale = npts / 2.0
    zl = np.fft.irfft(scale * amp * np.exp(1j * phi_l), n=npts)
    zr = np.fft.irfft(scale * amp * np.exp(1j * phi_r), n=npts)
    # close the period so the table spans [x0, x0 + length]
    zl = np.append(zl, zl[0])
    zr = np.append(zr, zr[0])
    if fade_in > 0.0:
        xs = h * np.arange(npts + 1)
        win = np.where(xs < fade_in, 0.5 - 0.5 * np.cos(np.pi * np.clip(xs / fade_in, 0, 1)), 1.0)
        zl = zl * win
        zr = zr * win
    corr_desc = "callable" if callable(correlation) else float(correlation)
    return Road(x0, h, np.vstack([zl, zr]), yl, yr, "iso8608",
                {"class": cls, "length": length, "dx": h, "seed": seed,
                 "correlation": corr_desc, "n_min": float(nk[band][0]),
                 "n_max": float(nk[band][-1]), "waviness": waviness})


def iso_psd(z, dx: float, nperseg: int | None = None):
    """One-sided displacement PSD (Welch, Hann, 50 % overlap): ``(n [cycles/m], G [m^3])``."""
    from scipy.signal import welch

    z = np.asarray(z, dtype=float)
    if nperseg is None:
        nperseg = max(64, 2 ** int(np.log2(max(z.size // 4, 1))))
    nperseg = min(nperseg, z.size)
    n, g = welch(z, fs=1.0 / dx, window="hann", nperseg=nperseg, detrend="constant")
    return n, g


@dataclass(frozen=True, eq=False)
class IsoFit:
    """ISO 8608 classification of a measured profile (see ``iso_classify``)."""

    road_class: str  # class whose band holds gd_n0
    gd_n0: float  # Gd(n0) [m^3] fitted with the waviness fixed to 2 (ISO 8608 way)
    waviness: float  # exponent w of a free fit Gd(n0) (n/n0)^-w
    gd_n0_free: float  # Gd(n0) of that free fit
    n_lo: float  # band used [cycles/m]
    n_hi: float
    band_n: np.ndarray = None  # 1/3-octave band centres [cycles/m]
    band_g: np.ndarray = None  # mean Welch PSD in each band [m^3]


def iso_classify(z, dx: float, n_lo: float = ISO_BAND[0], n_hi: float = ISO_BAND[1],
                 nperseg: int | None = None) -> IsoFit:
    """Classify a profile: Welch PSD averaged in 1/3-octave bands over [n_lo, n_hi] (clipped to
    four Welch bins above zero and 0.9 x Nyquist), then least-squares fits of log G on log n."""
    n, g = iso_psd(z, dx, nperseg)
    lo = max(n_lo, 4 * n[1])
    hi = min(n_hi, 0.9 * n[-1])
    if hi <= lo * 2 ** (1 / 3):
        raise ModelError("road", f"profile too short or too coarse to classify: band [{lo:.3g}, {hi:.3g}]")
    edges = lo * 2.0 ** (np.arange(0, np.log2(hi / lo) * 3 + 1) / 3.0)
    edges = np.append(edges[edges < hi], hi)
    nc, gc = [], []
    for a, b in zip(edges[:-1], edges[1:]):
        sel = (n >= a) & (n < b)
        if sel.any():
            nc.append(np.sqrt(a * b))
            gc.append(g[sel].mean())
    nc, gc = np.array(nc), np.array(gc)
    ln = np.log10(nc / ISO_N0)
    lg = np.log10(gc)
    gd2 = 10 ** np.mean(lg + ISO_WAVINESS * ln)
    slope, icpt = np.polyfit(ln, lg, 1)
    k = int(np.clip(np.round(np.log(gd2 / ISO_GD_N0["A"]) / np.log(4.0)), 0, 7))
    return IsoFit(ISO_CLASSES[k], float(gd2), float(-slope), float(10**icpt), float(lo), float(hi), nc, gc)


# --------------------------------------------------------------------------------------------
# files
# --------------------------------------------------------------------------------------------
def from_csv(path, dx: float | None = None, track_width: float | None = None, rtol: float = 1e-6) -> Road:
    """Road from a CSV file with a header row: columns ``x, z`` (both tracks) or
    ``x, z_left, z_right``; lines starting with ``#`` are comments (a ``# y_left=.. y_right=..``
    line written by ``Road.to_csv`` sets the tracks unless ``track_width`` is given).

    x must increase strictly. Uniformly spaced samples (within ``rtol`` of the mean spacing)
    are used as they are; otherwise the profile is resampled linearly at ``dx`` (default: the
    smallest spacing in the file).
    """
    path = Path(path)
    where = f"road file {path}"
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()  # with or without a BOM
    except OSError as exc:
        raise ModelError(where, f"cannot read: {exc.strerror}") from None
    except UnicodeDecodeError as exc:
        raise ModelError(where, f"not UTF-8 text (byte 0x{exc.object[exc.start]:02x} at offset "
                         f"{exc.start}); expected a CSV file") from None
    y_meta = None
    rows = []
    for line in lines:
        s = line.strip()
        if not s:
            continue
        if s.startswith("#"):
            if "y_left=" in s and "y_right=" in s:
                kv = dict(p.split("=", 1) for p in s.lstrip("#").split() if "=" in p)
                try:
                    y_meta = (float(kv["y_left"]), float(kv["y_right"]))
                except (KeyError, ValueError):
                    y_meta = None
            continue
        rows.append(next(csv.reader([s])))
    if not rows:
        raise ModelError(where, "empty (expected a header row x, z or x, z_left, z_right)")
    header = [h.strip().lower() for h in rows[0]]
    if "x" not in header:
        raise ModelError(f"{where}: column 'x'", f"missing (expected columns x, z or x, z_left, "
                         f"z_right; found {', '.join(header)})")
    if "z_left" in header or "z_right" in header:
        want = ["z_left", "z_right"]
    elif "z" in header:
        want = ["z", "z"]
    else:
        want = ["z"]
    for col in want:
        if col not in header:
            raise ModelError(f"{where}: column '{col}'", f"missing (expected columns x, z or x, z_left, "
                             f"z_right; found {', '.join(header)})")
    idx = [header.index("x")] + [header.index(c) for c in want]
    data = []
    for r, row in enumerate(rows[1:], start=2):
        try:
            data.append([float(row[i]) for i in idx])
        except (ValueError, IndexError):
            raise ModelError(f"{where}: data row {r - 1}", f"expected numbers in columns "
                             f"{', '.join(['x'] + want)}, got {row}") from None
    if len(data) < 2:
        raise ModelError(where, f"expected at least 2 data rows, got {len(data)}")
    arr = np.array(data)
    if not np.all(np.isfinite(arr)):
        r = int(np.argmax(~np.isfinite(arr).all(axis=1)))
        raise ModelError(f"{where}: data row {r + 1}", "non-finite value")
    x, zl, zr = arr[:, 0], arr[:, 1], arr[:, 2]
    steps = np.diff(x)
    if np.any(steps <= 0):
        r = int(np.argmax(steps <= 0))
        raise ModelError(f"{where}: column 'x'", f"must increase strictly; data row {r + 2} has "
                         f"x={float(x[r + 1])!r} after x={float(x[r])!r}")
    if track_width is not None:
        yl, yr = _tracks(track_width)
    elif y_meta is not None:
        yl, yr = y_meta
    else:
        yl, yr = _tracks(DEFAULT_TRACK_WIDTH)
    mean = (x[-1] - x[0]) / (len(x) - 1)
    if dx is None and np.all(np.abs(steps - mean) <= rtol * mean):
        return Road(x[0], mean, np.vstack([zl, zr]), yl, yr, "csv", {"file": str(path)})
    h = _positive("road.dx", dx) if dx is not None else float(steps.min())
    _check_size(where if dx is None else f"{where}: dx", float(x[-1] - x[0]), h)
    m = int(np.floor((x[-1] - x[0]) / h + 1e-9))
    xs = x[0] + h * np.arange(m + 1)
    z = np.vstack([np.interp(xs, x, zl), np.interp(xs, x, zr)])
    return Road(x[0], h, z, yl, yr, "csv", {"file": str(path), "resampled_dx": h})


# --------------------------------------------------------------------------------------------
# from a description (model files, CLI)
# --------------------------------------------------------------------------------------------
ROAD_TYPES = {
    "flat": flat,
    "square_bump": square_bump,
    "half_sine_bump": half_sine_bump,
    "ramp": ramp,
    "iso8608": iso8608,
    "csv": from_csv,
}


def from_spec(spec: dict, where: str = "road") -> Road:
    """Build a road from ``{"type": <one of ROAD_TYPES>, **parameters}`` (``class`` may stand for
    ``road_class``, ``file`` for ``path``). Errors name ``<where>.<key>``."""
    import inspect

    if not isinstance(spec, dict) or "type" not in spec:
        raise ModelError(f"{where}.type", f"missing (expected one of {', '.join(ROAD_TYPES)})")
    given = spec["type"]
    kind = str(given).replace("-", "_")  # square-bump and square_bump alike
    if kind not in ROAD_TYPES:
        raise ModelError(f"{where}.type", f"unknown road type {given!r}" + did_you_mean(kind, ROAD_TYPES))
    fn = ROAD_TYPES[kind]
    params = {k: v for k, v in spec.items() if k != "type"}
    if "class" in params:
        params["road_class"] = params.pop("class")
    if "file" in params:
        params["path"] = params.pop("file")
    known = list(inspect.signature(fn).parameters)
    for k in params:
        if k not in known:
            raise ModelError(f"{where}.{k}", f"unknown parameter for road type '{kind}'" + did_you_mean(k, known))
    try:
        return fn(**params)
    except ModelError as exc:
        if exc.path.startswith("road") and where != "road":
            raise ModelError(where + exc.path[4:], exc.problem) from None
        raise
    except TypeError as exc:
        raise ModelError(where, f"bad parameters for road type '{kind}': {exc}") from None
