"""Road profiles: analytic shapes against their formulas, the compiled evaluator, CSV files,
ISO 8608 synthesis against the standard PSD (docs/roads.md)."""
import numpy as np
import pytest

from rtmbs.errors import ModelError
from rtmbs.vehicle import road as R


# ---------------------------------------------------------------------------------------------
# analytic shapes
# ---------------------------------------------------------------------------------------------
def test_square_bump_heights_match_the_formula_away_from_edges():
    h, length, start = 0.02, 2.0, 5.0
    road = R.square_bump(h, length, start, dx=1e-3)
    x = np.array([-100.0, 0.0, 4.99, start + 0.6e-3, 5.5, 6.0, 6.999, 7.0 + 0.6e-3, 8.0, 1e4])
    expected = np.where((x > start) & (x < start + length), h, 0.0)
    for y in (0.0, 0.8, -0.8, 3.0):
        z, s = road.evaluate(x, y)
        np.testing.assert_allclose(z, expected, rtol=0, atol=1e-15)
        np.testing.assert_allclose(s, 0.0, atol=1e-9)
    # each vertical edge is a ramp one sample wide centred on it
    z_edges, s_edges = road.evaluate([start, start + length])
    np.testing.assert_allclose(z_edges, [h / 2, h / 2], atol=1e-15)
    np.testing.assert_allclose(s_edges, [h / road.dx, -h / road.dx], rtol=1e-9)
    assert road.dx == pytest.approx(1e-3)
    assert length / road.dx == pytest.approx(round(length / road.dx), abs=1e-9)


def test_half_sine_bump_within_the_interpolation_bound():
    h, length, start, dx = 0.05, 0.5, 1.0, 2e-3
    road = R.half_sine_bump(h, length, start, dx=dx)
    x = np.random.default_rng(0).uniform(start - 0.2, start + length + 0.2, 2000)
    u = (x - start) / length
    inside = (u >= 0) & (u <= 1)
    z_ref = np.where(inside, h * np.sin(np.pi * u), 0.0)
    s_ref = np.where(inside, h * np.pi / length * np.cos(np.pi * u), 0.0)
    z, s = road.evaluate(x)
    curv = h * (np.pi / length) ** 2  # max |z''|
    assert np.max(np.abs(z - z_ref)) <= curv * road.dx**2 / 8 * (1 + 1e-9)
    # a chord slope differs from z' anywhere in its interval by at most max|z''| dx
    far = np.abs(u * (1 - u)) * length > road.dx  # the kink at the bump ends is not smooth
    assert np.max(np.abs(s - s_ref)[far]) <= curv * road.dx * (1 + 1e-9)
    assert road.height(start + length / 2) == pytest.approx(h, abs=1e-15)


@pytest.mark.parametrize("direction, sign", [("up", 1.0), ("down", -1.0)])
def test_ramp_is_exact(direction, sign):
    slope, length, start = 0.08, 12.5, 3.0
    road = R.ramp(slope, length, start, direction)
    x = np.array([-5.0, 3.0, 4.0, 9.25, 15.5, 40.0])
    ref = sign * slope * np.clip(x - start, 0.0, length)
    z, s = road.evaluate(x, 0.3)
    np.testing.assert_allclose(z, ref, rtol=1e-14, atol=1e-15)
    np.testing.assert_allclose(s[[2, 3]], sign * slope, rtol=1e-14)
    np.testing.assert_allclose(s[[0, 5]], 0.0)


def test_flat_road():
    z, s = R.flat(0.25).evaluate([-1e6, 0.0, 3.3, 1e6], [5.0, 0.0, -1.0, 0.2])
    np.testing.assert_array_equal(z, 0.25)
    np.testing.assert_array_equal(s, 0.0)


# ---------------------------------------------------------------------------------------------
# the compiled evaluator
# ---------------------------------------------------------------------------------------------
def _two_track_road():
    x = np.arange(6) * 0.5
    zl = np.array([0.0, 0.1, 0.3, 0.2, 0.2, 0.0])
    zr = np.array([1.0, 0.5, 0.0, -0.5, 0.0, 0.25])
    return R.Road(0.0, 0.5, np.vstack([zl, zr]), y_left=0.7, y_right=-0.9), x, zl, zr


def test_evaluator_interpolates_in_x_and_y_and_holds_outside():
    road, x, zl, zr = _two_track_road()
    xq = np.array([-3.0, 0.0, 0.2, 0.75, 1.3, 2.5, 9.0])
    zl_ref, zr_ref = np.interp(xq, x, zl), np.interp(xq, x, zr)
    np.testing.assert_allclose(road.height(xq, 0.7), zl_ref, atol=1e-15)
    np.testing.assert_allclose(road.height(xq, 5.0), zl_ref, atol=1e-15)
    np.testing.assert_allclose(road.height(xq, -0.9), zr_ref, atol=1e-15)
    np.testing.assert_allclose(road.height(xq, -4.0), zr_ref, atol=1e-15)
    np.testing.assert_array_equal(road.height(xq), road.height(xq, 0.7))  # default: left track
    w = (0.1 - -0.9) / (0.7 - -0.9)
    np.testing.assert_allclose(road.height(xq, 0.1), w * zl_ref + (1 - w) * zr_ref, atol=1e-15)


def test_slope_matches_finite_differences_inside_intervals():
    road = R.iso8608("D", 50.0, 0.1, seed=4, correlation=0.3)
    rng = np.random.default_rng(1)
    # points well inside sample intervals, across the tracks
    i = rng.integers(0, road.n - 1, 300)
    x = road.x0 + road.dx * (i + rng.uniform(0.1, 0.9, i.size))
    y = rng.uniform(-1.5, 1.5, i.size)
    eps = 1e-4 * road.dx
    z, s = road.evaluate(x, y)
    fd = (road.height(x + eps, y) - road.height(x - eps, y)) / (2 * eps)
    np.testing.assert_allclose(s, fd, rtol=1e-6, atol=1e-9)


def test_packed_layout_interpolates_as_numpy_interp_in_x_and_linearly_across_the_tracks():
    """The engine's road_height_packed against numpy.interp of each track (held beyond the ends)
    blended linearly in y between the tracks (held beyond them)."""
    road = R.iso8608("C", 30.0, 0.05, seed=2, correlation=0.5)
    table = road.packed()
    xs = np.linspace(-1.0, 31.0, 777)
    zl = np.interp(xs, road.x, road.z_left)
    zr = np.interp(xs, road.x, road.z_right)
    for y in (-1.2, -0.8, 0.1, 0.8, 1.3):
        w = min(max((y - road.y_right) / (road.y_left - road.y_right), 0.0), 1.0)
        zp = np.array([R.road_height_packed(table, x, y)[0] for x in xs])
        np.testing.assert_allclose(zp, zr + w * (zl - zr), rtol=0, atol=1e-12)
        np.testing.assert_array_equal(road.evaluate(xs, y)[0], zp)


# ---------------------------------------------------------------------------------------------
# CSV files
# ---------------------------------------------------------------------------------------------
def test_csv_round_trip(tmp_path):
    road = R.iso8608("B", 40.0, 0.02, seed=7, correlation=0.2, track_width=1.5)
    back = R.from_csv(road.to_csv(tmp_path / "r.csv"))
    np.testing.assert_array_equal(back.z, road.z)
    assert back.x0 == road.x0
    assert back.dx == pytest.approx(road.dx, rel=1e-12)
    assert (back.y_left, back.y_right) == (0.75, -0.75)
    xq = np.linspace(-1, 41, 501)
    np.testing.assert_allclose(back.height(xq, 0.3), road.height(xq, 0.3), rtol=0, atol=1e-15)


def test_csv_single_track_and_resampling(tmp_path):
    p = tmp_path / "one.csv"
    p.write_text("x,z\n0,0\n1,1\n3,-1\n")  # not uniform: resampled at the smallest spacing
    road = R.from_csv(p, track_width=2.0)
    assert (road.x0, road.dx, road.n) == (0.0, 1.0, 4)
    xq = np.array([0.0, 0.5, 1.5, 2.0, 2.5, 3.0])
    ref = np.interp(xq, [0, 1, 3], [0, 1, -1])
    np.testing.assert_allclose(road.height(xq, 1.0), ref, atol=1e-15)
    np.testing.assert_allclose(road.height(xq, -1.0), ref, atol=1e-15)
    fine = R.from_csv(p, dx=0.25)
    assert fine.n == 13
    np.testing.assert_allclose(fine.height(fine.x), np.interp(fine.x, [0, 1, 3], [0, 1, -1]), atol=1e-15)


@pytest.mark.parametrize("text, message", [
    ("x,z_left\n0,0\n1,0\n", "column 'z_right': missing (expected columns x, z or x, z_left, "
                              "z_right; found x, z_left)"),
    ("x,z\n0,0\n1,0\n0.5,0\n", "column 'x': must increase strictly; data row 3 has x=0.5 after "
                                "x=1.0"),
], ids=["missing-column", "non-monotonic-x"])
def test_csv_error_names_the_file_and_column(tmp_path, text, message):
    p = tmp_path / "bad.csv"
    p.write_text(text)
    with pytest.raises(ModelError) as exc:
        R.from_csv(p)
    assert str(exc.value) == f"road file {p}: {message}"


# ---------------------------------------------------------------------------------------------
# bad input
# ---------------------------------------------------------------------------------------------
@pytest.mark.parametrize("call, message", [
    (lambda: R.square_bump(0.02, -2.0, 5.0), "road.length: must be > 0, got -2.0"),
    (lambda: R.half_sine_bump(0.05, 0.5, float("nan")), "road.start: expected a finite number, got nan"),
    (lambda: R.ramp(0.1, 5.0, direction="sideways"),
     "road.direction: unknown direction 'sideways' (expected 'up' or 'down')"),
    (lambda: R.iso8608("Z", 100.0), "road.class: unknown ISO 8608 class 'Z' (known: A, B, C, D, E, F, G, H)"),
    (lambda: R.iso8608("B", 100.0, correlation=1.5), "road.correlation: must lie in [0, 1], got 1.5"),
    (lambda: R.iso8608("B", 1.0, dx=0.5), "road.dx: too coarse for length 1.0 m: 2 samples, expected >= 8"),
    (lambda: R.from_spec({"type": "sqare-bump"}),
     "road.type: unknown road type 'sqare-bump' (did you mean 'square_bump'? known: csv, flat, "
     "half_sine_bump, iso8608, ramp, square_bump)"),
    (lambda: R.from_spec({"type": "square_bump", "height": 0.02, "length": 0, "start": 1}, "roads.front"),
     "roads.front.length: must be > 0, got 0"),
    (lambda: R.from_spec({"type": "iso8608", "class": "B", "lenght": 10}),
     "road.lenght: unknown parameter for road type 'iso8608' (did you mean 'length'? known: correlation, "
     "dx, fade_in, length, n_max, n_min, road_class, seed, track_width, waviness, x0)"),
])
def test_bad_input_names_the_parameter(call, message):
    with pytest.raises(ModelError) as exc:
        call()
    assert str(exc.value) == message


def test_from_spec_builds_the_same_road():
    a = R.from_spec({"type": "iso8608", "class": "c", "length": 20, "dx": 0.1, "seed": 5})
    b = R.iso8608("C", 20.0, 0.1, seed=5)
    np.testing.assert_array_equal(a.z, b.z)


# ---------------------------------------------------------------------------------------------
# ISO 8608
# ---------------------------------------------------------------------------------------------
PSD_MEAN_DB_TOL = 1.0  # mean of 10 log10(G_welch / Gd_class) over the band
WAVINESS_TOL = 0.2


@pytest.mark.parametrize("k, cls", list(enumerate(R.ISO_CLASSES)))
def test_iso_profile_psd_matches_its_class(k, cls):
    road = R.iso8608(cls, 500.0, 0.05, seed=10 + k, correlation=0.0)
    for z in road.z[:, :-1]:  # the last sample closes the period
        n, g = R.iso_psd(z, road.dx)
        band = (n >= max(R.ISO_BAND[0], 4 * n[1])) & (n <= R.ISO_BAND[1])
        assert n[band][0] < 0.1 and n[band][-1] > 2.5  # most of the ISO band is checked
        db = 10 * np.log10(g[band] / R.iso_gd(n[band], cls))
        assert abs(db.mean()) < PSD_MEAN_DB_TOL
        fit = R.iso_classify(z, road.dx)
        assert fit.road_class == cls
        assert abs(fit.waviness - 2.0) < WAVINESS_TOL
        assert abs(10 * np.log10(fit.gd_n0 / R.ISO_GD_N0[cls])) < 3.0  # inside the class band


def test_iso_rms_equals_the_integral_of_the_class_psd():
    road = R.iso8608("C", 300.0, 0.05, seed=3)
    dn = 1.0 / 300.0
    lo, hi = road.params["n_min"] - dn / 2, road.params["n_max"] + dn / 2
    for z in road.z[:, :-1]:
        assert np.sqrt(np.mean(z**2)) == pytest.approx(R.iso_band_rms("C", lo, hi), rel=1e-10)
    # with the full ISO band the closed-form rms is sqrt(Gd(n0) n0^2 (1/n1 - 1/n2))
    expected = np.sqrt(R.ISO_GD_N0["C"] * 0.1**2 * (1 / lo - 1 / hi))
    assert R.iso_band_rms("C", lo, hi) == pytest.approx(expected, rel=1e-12)


def test_iso_classes_are_ordered_by_a_factor_two_in_rms():
    rms = [np.sqrt(np.mean(R.iso8608(c, 200.0, 0.05, seed=i).z[0, :-1] ** 2))
           for i, c in enumerate(R.ISO_CLASSES)]
    np.testing.assert_allclose(np.array(rms[1:]) / np.array(rms[:-1]), 2.0, rtol=1e-10)


def test_iso_reproducible_from_the_seed():
    a = R.iso8608("B", 100.0, 0.05, seed=42, correlation=0.5)
    b = R.iso8608("B", 100.0, 0.05, seed=42, correlation=0.5)
    c = R.iso8608("B", 100.0, 0.05, seed=43, correlation=0.5)
    np.testing.assert_array_equal(a.z, b.z)
    assert np.max(np.abs(a.z - c.z)) > 1e-3
    assert np.isclose(a.z[0, 0], a.z[0, -1])  # periodic: the table closes the period


@pytest.mark.parametrize("c", [0.0, 0.5, 0.9])
def test_iso_left_right_correlation(c):
    coefs = [np.corrcoef(R.iso8608("B", 200.0, 0.05, seed=s, correlation=c).z[:, :-1])[0, 1]
             for s in range(40)]
    se = np.std(coefs) / np.sqrt(len(coefs))
    assert abs(np.mean(coefs) - c) < 3 * se + 0.01
    one = R.iso8608("B", 200.0, 0.05, seed=1, correlation=1.0)
    np.testing.assert_allclose(one.z[0], one.z[1], atol=1e-15)


def test_iso_fade_in_starts_at_zero():
    road = R.iso8608("D", 100.0, 0.05, seed=1, fade_in=5.0)
    plain = R.iso8608("D", 100.0, 0.05, seed=1)
    assert road.height(0.0) == 0.0
    np.testing.assert_array_equal(road.z[:, road.x >= 5.0], plain.z[:, plain.x >= 5.0])
