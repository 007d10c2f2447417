"""Longitudinal tyre forces and drive torques of the identification model from the measured
longitudinal acceleration (Carpinelli 2015 §5.2.2, eqs. 5.6-5.10; flat road, no aerodynamics).

Symbols: ``M_tot`` vehicle mass [kg], ``a_x`` measured acceleration [m/s²], ``W_z`` a wheel's
vertical load [N], ``f_r`` rolling-resistance coefficient [-], ``I_w`` wheel spin inertia
[kg m²], ``r`` rolling radius [m]. Works on numbers or arrays (time series).
"""
from __future__ import annotations

import numpy as np


def rolling_resistance(W_z, a_x, f_r: float, I_w: float, r: float):
    """R_x = f_r W_z + I_w α_w / r with α_w = a_x / r (eq. 5.7)."""
    return f_r * np.asarray(W_z, float) + I_w * np.asarray(a_x, float) / r ** 2


def rear_drive_force(M_tot: float, a_x, R_x_rear, R_x_front):
    """Longitudinal force of one rear (driven) wheel: ½ M_tot a_x + R_x,rear + R_x,front (eq. 5.6:
    half the car's inertia plus the resistances of its side's two wheels)."""
    return 0.5 * M_tot * np.asarray(a_x, float) + R_x_rear + R_x_front


def drive_torque(F_x, r: float):
    """T_d = r F_x, applied sprung mass -> rear arm (eq. 5.8)."""
    return r * np.asarray(F_x, float)


def braking_forces(M_tot: float, a_x, R_x_rear, R_x_front, rear_share: float):
    """(F_x,rear, F_x,front) of one side under braking: the side's total ½ M_tot a_x + R_x,rear +
    R_x,front split by ``rear_share`` and 1 − rear_share (eqs. 5.9-5.10; the paper's %rear,
    %front)."""
    if not 0.0 <= rear_share <= 1.0:
        raise ValueError(f"rear_share must be in [0, 1], got {rear_share}")
    total = 0.5 * M_tot * np.asarray(a_x, float) + R_x_rear + R_x_front
    return rear_share * total, (1.0 - rear_share) * total


def identification_inputs(a_x, M_tot: float, W_z: dict, f_r: float, I_w: float, r: float,
                          braking=None, rear_share: float = 0.5) -> dict:
    """Input channels of :func:`rtmbs.concept.models.identification_model` from a measured a_x
    series: ``Fx_<corner>`` and ``drive_torque`` (per rear wheel). Where ``braking`` (a boolean
    series, default none) is set, eqs. 5.9-5.10 split each side's force between rear and front
    and the drive torque is zero (outboard brakes react on the arms); elsewhere eq. 5.6 puts the
    force on the driven rear wheels, the front wheels roll (−R_x) and eq. 5.8 gives the torque.
    ``W_z``: static vertical load per corner (fl, fr, rl, rr) [N]."""
    a_x = np.asarray(a_x, float)
    brk = np.zeros(a_x.shape, bool) if braking is None else np.asarray(braking, bool)
    R = {c: rolling_resistance(W_z[c], a_x, f_r, I_w, r) for c in ("fl", "fr", "rl", "rr")}
    out = {}
    for side in ("l", "r"):
        drive = rear_drive_force(M_tot, a_x, R["r" + side], R["f" + side])
        b_rear, b_front = braking_forces(M_tot, a_x, R["r" + side], R["f" + side], rear_share)
        out["Fx_r" + side] = np.where(brk, b_rear, drive)
        out["Fx_f" + side] = np.where(brk, b_front, -R["f" + side])
    out["drive_torque"] = np.where(brk, 0.0, drive_torque(out["Fx_rl"], r))
    return out
