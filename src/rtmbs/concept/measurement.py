"""Virtual sensors, filters and the wheel-centre reconstruction of Carpinelli 2015 §5.2.3 (offline).

Sensors of the measurement campaign: suspension strokes (body-link distance) low-passed at
``STROKE_LP_HZ``, body-corner vertical accelerations high-passed at ``ACC_HP_HZ``, the speed
differentiated to a_x. The paper names the cut-offs, not the filters: here Butterworth filters run
forward and backward (``scipy.signal.sosfiltfilt``: zero phase, the order doubled), orders
``LP_ORDER`` and ``HP_ORDER``.

Reconstruction of a wheel-centre height (Figs 5.19-5.26):

1. double-integrate the high-passed corner acceleration (each integral high-passed again, the
   drift handling the paper does not give);
2. add the < ``ACC_HP_HZ`` part of the stroke (the slow body motion the accelerometer lost);
3. less the tyre deflection of the load transfer, ΔF_z/K_tire with ΔF_z = W_tot h_CG a_x/(g L)
   (eq. 5.11), on the rear wheels with the opposite sign on the front ones (its slow part, with
   the stroke's);
4. wheel-centre height = corner height − stroke.
"""
from __future__ import annotations

import numpy as np

from .anti import G, load_transfer

STROKE_LP_HZ = 25.0
ACC_HP_HZ = 0.5
LP_ORDER = 4
HP_ORDER = 2


def _check(fs, fc, name):
    if not (np.isfinite(fs) and fs > 0):
        raise ValueError(f"{name}: sampling rate must be > 0 Hz, got {fs}")
    if not (0 < fc < 0.5 * fs):
        raise ValueError(f"{name}: cut-off {fc:g} Hz must lie in (0, {0.5 * fs:g}) Hz (Nyquist)")


def lowpass(y, fs: float, fc: float = STROKE_LP_HZ, order: int = LP_ORDER) -> np.ndarray:
    """Zero-phase Butterworth low-pass of ``y`` sampled at ``fs`` Hz, cut-off ``fc`` Hz."""
    from scipy.signal import butter, sosfiltfilt

    _check(fs, fc, "lowpass")
    return sosfiltfilt(butter(order, fc, "low", fs=fs, output="sos"), np.asarray(y, float))


def highpass(y, fs: float, fc: float = ACC_HP_HZ, order: int = HP_ORDER) -> np.ndarray:
    """Zero-phase Butterworth high-pass of ``y`` sampled at ``fs`` Hz, cut-off ``fc`` Hz."""
    from scipy.signal import butter, sosfiltfilt

    _check(fs, fc, "highpass")
    return sosfiltfilt(butter(order, fc, "high", fs=fs, output="sos"), np.asarray(y, float))


def tyre_deflection(W_tot: float, h_cg: float, a_x, L: float, K_tire: float,
                    rear: bool = True, g: float = G):
    """Tyre deflection change of one wheel from the longitudinal load transfer, eq. 5.11:
    ΔF_z/K_tire with ΔF_z = W_tot h_CG a_x/(g L) (the axle's; per wheel half of it),
    positive = more compressed; the front wheel's is opposite to the rear's."""
    dz = 0.5 * load_transfer(W_tot, h_cg, np.asarray(a_x, float), L, g) / K_tire
    return dz if rear else -dz


def integrate_twice(acc, fs: float, fc: float = ACC_HP_HZ) -> np.ndarray:
    """Displacement from an acceleration: two trapezoidal integrals, each high-passed at ``fc``
    (removes the drift of the unknown initial velocity and of the sensor offset)."""
    dt = 1.0 / fs
    a = np.asarray(acc, float)

    def integral(y):
        out = np.concatenate([[0.0], np.cumsum(0.5 * (y[1:] + y[:-1]) * dt)])
        return highpass(out, fs, fc)

    return integral(integral(a))


def reconstruct_wheel_centre(acc, stroke, fs: float, a_x=None, W_tot: float = 0.0,
                             h_cg: float = 0.0, L: float = 1.0, K_tire: float = 1.0,
                             rear: bool = True, fc: float = ACC_HP_HZ) -> dict:
    """Steps 1-4 of the module docstring for one corner: ``acc`` the corner's vertical
    acceleration, ``stroke`` (+ = body farther from the wheel centre, from design), ``a_x`` for
    eq. 5.11 (none: no correction). The accelerometer path is high-passed three times (the
    sensor's filter, then each integral); the slow part added in step 2-3 is exactly the
    complement (x − HP³x) of the stroke minus the tyre deflection, so a wheel-centre motion
    slower than ``fc`` is all that is lost. Returns ``corner`` and ``wheel_centre`` heights
    relative to design."""
    s = np.asarray(stroke, float)
    slow = s if a_x is None else s - tyre_deflection(W_tot, h_cg, a_x, L, K_tire, rear)
    corner = integrate_twice(highpass(acc, fs, fc), fs, fc)
    corner = corner + slow - highpass(highpass(highpass(slow, fs, fc), fs, fc), fs, fc)
    return {"corner": corner, "wheel_centre": corner - s}
