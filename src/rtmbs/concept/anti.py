"""Longitudinal load transfer and the anti-features of a suspension with an instant centre
(Carpinelli 2015 §5.1.1, eqs. 5.1-5.4), written as the paper writes them.

Symbols (SI units): ``W_tot`` vehicle weight [N], ``h_cg`` centre-of-gravity height [m],
``a_x`` longitudinal acceleration [m/s²] (+ forward), ``L`` wheelbase [m], ``F`` the signed
longitudinal tyre force of the axle [N] (+ forward: drive > 0, braking < 0), ``e`` the
instant centre's height above the ground [m], ``d`` its horizontal distance from the contact
patch [m], ``r`` the loaded radius (wheel-centre height) [m].

Every equation is ΔW = W_tot h_CG a_x/(g L) − F k/d with k = e − r when the drive torque
reacts on the sprung mass (inboard differential, eq. 5.1) and k = e when it reacts on the
suspension arm (outboard brakes, eqs. 5.2 and 5.4; front drive through the arm, eq. 5.3).
For the rear axle ΔW is the load gained; for the front axle (eqs. 5.3-5.4) the paper's ΔW is
the load lost. In the concept models the instant centre sits at (d_r, e_r) from the unsprung
centre of mass (:func:`rtmbs.concept.models.ic_geometry` gives e and d).
"""
from __future__ import annotations

G = 9.81


def load_transfer(W_tot: float, h_cg: float, a_x: float, L: float, g: float = G) -> float:
    """W_tot h_CG a_x / (g L): load moved from the front to the rear axle (eqs. 5.1-5.4)."""
    return W_tot * h_cg * a_x / (g * L)


def anti_force(F: float, e: float, d: float, r: float | None = None) -> float:
    """The anti-feature force F k/d, k = e − r if ``r`` is given (torque reacted by the sprung
    mass: anti-squat, eq. 5.1), else k = e (torque reacted by the arm: anti-lift, anti-dive,
    eqs. 5.2-5.4)."""
    if not d or d != d:
        raise ValueError(f"d (instant-centre distance from the contact patch) must be non-zero, got {d}")
    return F * ((e - r) if r is not None else e) / d


def rear_drive(W_tot, h_cg, a_x, L, F_x, e, r, d, g: float = G) -> float:
    """ΔW_r under drive, inboard differential: load transfer − anti-squat force (eq. 5.1)."""
    return load_transfer(W_tot, h_cg, a_x, L, g) - anti_force(F_x, e, d, r)


def rear_brake(W_tot, h_cg, a_x, L, F_b, e, d, g: float = G) -> float:
    """ΔW_r under braking (a_x < 0, F_b < 0), outboard brakes: − anti-lift force (eq. 5.2)."""
    return load_transfer(W_tot, h_cg, a_x, L, g) - anti_force(F_b, e, d)


def front_drive(W_tot, h_cg, a_x, L, F_x, e, d, g: float = G) -> float:
    """Front load lost under front-wheel drive, anti-lift (eq. 5.3)."""
    return load_transfer(W_tot, h_cg, a_x, L, g) - anti_force(F_x, e, d)


def front_brake(W_tot, h_cg, a_x, L, F_b, e, d, g: float = G) -> float:
    """Front load lost under braking (a_x < 0, F_b < 0): negative, a gain; anti-dive (eq. 5.4)."""
    return load_transfer(W_tot, h_cg, a_x, L, g) - anti_force(F_b, e, d)


def anti_ratio(e: float, d: float, h_cg: float, L: float, r: float | None = None) -> float:
    """Anti-feature as a fraction of the load transfer when F = M a_x on one axle:
    (k/d)/(h_CG/L), 1 = 100 % (no spring deflection)."""
    return ((e - r) if r is not None else e) / d * L / h_cg
