"""Filters and the wheel-centre reconstruction of Carpinelli 2015 §5.2.3 on signals with known answers."""
import numpy as np
import pytest

from rtmbs.concept import measurement as se

FS = 1000.0


def _gain(filt, f, **kw):
    t = np.arange(0.0, 20.0, 1.0 / FS)
    y = filt(np.sin(2 * np.pi * f * t), FS, **kw)
    mid = slice(len(t) // 4, 3 * len(t) // 4)
    return np.sqrt(2.0 * np.mean(y[mid] ** 2))


def _warp(f):
    """Bilinear-transform frequency (the digital Butterworth's)."""
    return np.tan(np.pi * f / FS)


@pytest.mark.parametrize("f", [5.0, 25.0, 40.0])
def test_lowpass_is_a_squared_butterworth(f):
    # forward-backward digital Butterworth of order n: |H|² = 1/(1 + (Ω/Ωc)^(2n)), Ω the
    # warped frequency; 0.5 at the cut-off
    expected = 1.0 / (1.0 + (_warp(f) / _warp(25.0)) ** 8)
    assert _gain(se.lowpass, f) == pytest.approx(expected, rel=0.01)


@pytest.mark.parametrize("f", [0.25, 0.5, 3.0])
def test_highpass_is_a_squared_butterworth(f):
    expected = 1.0 / (1.0 + (_warp(0.5) / _warp(f)) ** 4)
    assert _gain(se.highpass, f) == pytest.approx(expected, rel=0.02)


def test_bad_cut_off_is_named():
    with pytest.raises(ValueError, match=r"lowpass: cut-off 600 Hz must lie in \(0, 500\) Hz"):
        se.lowpass(np.zeros(100), FS, 600.0)


def test_tyre_deflection_eq_5_11():
    dz = se.tyre_deflection(15000.0, 0.5, 2.0, 2.5, 2.0e5)
    assert dz == pytest.approx(0.5 * 15000 * 0.5 * 2.0 / (9.81 * 2.5) / 2.0e5)
    assert se.tyre_deflection(15000.0, 0.5, 2.0, 2.5, 2.0e5, rear=False) == pytest.approx(-dz)


def test_reconstruction_gives_the_wheel_centre_back():
    """Synthetic corner: wheel centre = ride motion (3 and 11 Hz) − rear tyre deflection of a
    2 m/s² acceleration (eq. 5.11); stroke with a slow 0.1 Hz part the accelerometer cannot
    see; accelerometer = exact second derivative of the corner height."""
    t = np.arange(0.0, 30.0, 1.0 / FS)
    w1, w2, w3, w4 = (2 * np.pi * f for f in (3.0, 11.0, 1.2, 0.1))
    ax = 2.0 * np.exp(-(((t - 15.0) / 4.0) ** 2))                 # a smooth acceleration phase
    W, h, L, K = 15000.0, 0.5, 2.5, 2.0e5
    tyre = se.tyre_deflection(W, h, ax, L, K)
    ride = 0.01 * np.sin(w1 * t) + 0.002 * np.sin(w2 * t)
    wheel = ride - tyre
    stroke = 0.02 * np.sin(w3 * t + 0.3) + 0.01 * np.sin(w4 * t)
    corner = wheel + stroke
    # exact second derivative of the corner height (the tyre term by finite differences)
    d2_tyre = np.gradient(np.gradient(tyre, t), t)
    acc = (-0.01 * w1 ** 2 * np.sin(w1 * t) - 0.002 * w2 ** 2 * np.sin(w2 * t) - d2_tyre
           - 0.02 * w3 ** 2 * np.sin(w3 * t + 0.3) - 0.01 * w4 ** 2 * np.sin(w4 * t))
    mid = (t > 5.0) & (t < 25.0)
    r = se.reconstruct_wheel_centre(acc, stroke, FS, ax, W, h, L, K, rear=True)
    err = np.sqrt(np.mean((r["wheel_centre"] - wheel)[mid] ** 2))
    rms = np.sqrt(np.mean(wheel[mid] ** 2))
    assert err < 0.01 * rms                      # measured 0.27 %
    # without eq. 5.11 the slow tyre deflection is missed (measured 0.77 mm, 39x)
    r0 = se.reconstruct_wheel_centre(acc, stroke, FS)
    err0 = np.sqrt(np.mean((r0["wheel_centre"] - wheel)[mid] ** 2))
    assert err0 > 10 * err
