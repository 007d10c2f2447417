"""The tyre's contact model in numba (2-point follower, slips, transient deflections; seed 003
§4.3.1, §4.3.4), kept only for the numba evaluation (:mod:`rtmbs.kernels.tyre_element`,
:mod:`rtmbs.kernels.extra_states`) that the solvers' numba steps still call; the engine's
``tyre/contact.c`` is the implementation everything else calls
(:mod:`rtmbs.vehicle.tyre.contact`). Deleted with the numba steps (issue 29)."""
from __future__ import annotations

import math

from numba import njit

from ..vehicle.tyre.contact import SIGMA_MIN


@njit(cache=True, inline="always")
def _relaxation_length(sigma):
    """σ with the floor :data:`SIGMA_MIN`."""
    return sigma if sigma > SIGMA_MIN else SIGMA_MIN


@njit(cache=True, error_model="numpy")
def two_point_follower(h_front, h_rear, z_centre, r_free, lf):
    """Effective road plane of the 2-point follower model (seed 003 §4.3.1, Fig. 4.12).

    The two followers sit at the longitudinal distances ``+lf`` (front) and ``-lf`` (rear)
    from the wheel centre and read the road heights ``h_front`` and ``h_rear``. The effective
    road plane is the line through both points: its angle is
    ``beta = atan((h_front - h_rear) / (2 lf))`` (positive when the road rises ahead) and its
    height below the wheel centre is ``h_eff = (h_front + h_rear) / 2``. The loaded radius is
    the distance from the wheel centre (height ``z_centre``) to that plane,
    ``r = (z_centre - h_eff) cos(beta)``, and the radial deflection is
    ``rho = r_free - r`` (eq. 4.14); rho <= 0 means no contact. The radial force acts along the
    plane normal ``n = (-sin beta, cos beta)`` in the (longitudinal, vertical) plane.

    Returns ``(beta, h_eff, rho)``.
    """
    beta = math.atan((h_front - h_rear) / (2.0 * lf))
    h_eff = 0.5 * (h_front + h_rear)
    r = (z_centre - h_eff) * math.cos(beta)
    return beta, h_eff, r_free - r


@njit(cache=True, error_model="numpy")
def slip_quantities(Vx, Vy, omega, r_eff, v_min):
    """Longitudinal slip and slip angle from the wheel-centre velocity (eqs. 4.15-4.16).

    ``kappa = -(Vx - omega r_eff) / Vx`` (eq. 4.15) and ``tan(alpha) = -Vy / |Vx|`` (eq. 4.16
    with |Vx|, so that alpha keeps its meaning when the wheel rolls backwards; eq. 4.15 keeps the
    signed Vx, which the Magic Formula kernel expects: it mirrors Fx for Vx < 0). Both
    denominators are bounded below by ``v_min`` > 0 in magnitude, so the result stays finite
    at standstill; below ``VXLOW`` the Magic Formula further reduces slip and shifts.

    Returns ``(kappa, alpha)``; see the module note on the sign of alpha.
    """
    a = abs(Vx)
    d = a if a > v_min else v_min
    sx = d if Vx >= 0.0 else -d
    kappa = -(Vx - omega * r_eff) / sx
    alpha = math.atan(-Vy / d)
    return kappa, alpha


@njit(cache=True, error_model="numpy")
def _lag_step(x, rate_in, lam, h):
    # exact solution of dx/dt = rate_in - lam x over h for constant rate_in, lam >= 0
    if lam * h < 1e-12:
        return x + h * (rate_in - lam * x)
    decay = math.exp(-lam * h)
    return x * decay + rate_in * (-math.expm1(-lam * h)) / lam


@njit(cache=True, error_model="numpy")
def transient_step(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, h):
    """Advance (u, v) of eq. 4.23 by one step ``h`` with inputs held constant (exact
    exponential update, stable for any h and any speed; an unloaded tyre, σ = 0, springs back
    to no deflection: :data:`SIGMA_MIN`). Returns ``(u_new, v_new)``."""
    a = abs(Vx)
    return _relax(u, -Vsx, a, sigma_kappa, h), _relax(v, -Vsy, a, sigma_alpha, h)


@njit(cache=True, inline="always")
def _relax(x, rate_in, speed, sigma, h):
    """One deflection over the step: the lag of eq. 4.23, or 0 for an unloaded tyre (σ = 0)."""
    if not sigma > 0.0:
        return 0.0
    return _lag_step(x, rate_in, speed / _relaxation_length(sigma), h)


@njit(cache=True, error_model="numpy")
def lowspeed_weight(Vx, vxlow):
    """Weight of the low-speed damping and its slope: ``w = ½(1 + cos(π Vx/VXLOW))`` for
    |Vx| < VXLOW (1 at standstill), 0 above (the MF-Tyre low-speed blend, the complement of the
    Magic Formula's shift reduction). Returns ``(w, dw/dVx)``."""
    if abs(Vx) >= vxlow:
        return 0.0, 0.0
    a = math.pi / vxlow
    return 0.5 * (1.0 + math.cos(a * Vx)), -0.5 * a * math.sin(a * Vx)


@njit(cache=True, error_model="numpy")
def lag_coefficients(speed, sigma, h):
    """The exact step of eq. 4.23 over ``h`` is ``x_h = e·x − φ·V_s`` with ``λ = speed/σ``,
    ``e = exp(−λh)`` and ``φ = (1 − e)/λ`` (``h`` at λ = 0). Returns ``(e, φ, de/dspeed,
    dφ/dspeed)``; h = 0 gives (1, 0, 0, 0)."""
    lam = speed / sigma
    x = lam * h
    if x < 1e-8:  # series: same operation count as the exponential branch (a select)
        e = 1.0 - x
        phi = h * (1.0 - 0.5 * x)
        de, dphi = -h, -0.5 * h * h
    else:
        e = math.exp(-x)
        phi = -math.expm1(-x) / lam
        de, dphi = -h * e, (h * e - phi) / lam
    return e, phi, de / sigma, dphi / sigma


@njit(cache=True, error_model="numpy")
def _damped_slip(x, Vs, Vx, sigma, vxlow, h):
    """(slip, ∂/∂V_s, ∂/∂Vx at fixed V_s, ∂/∂σ) of one direction of
    :func:`transient_slips_lowspeed` (∂/∂σ = 0 below the floor :data:`SIGMA_MIN`)."""
    floored = not sigma > SIGMA_MIN
    sigma = _relaxation_length(sigma)
    s = 1.0 if Vx >= 0.0 else -1.0
    av = abs(Vx)
    w, dw = lowspeed_weight(Vx, vxlow)
    e, phi, de, dphi = lag_coefficients(av, sigma, h)
    xe = e * x - phi * Vs                   # deflection at the step's end (eq. 4.23, exact step)
    tau = w * sigma / vxlow                 # damping time of the deflection
    a = 1.0 - w * av / vxlow                # 1 − τ |Vx|/σ
    slip = (a * xe - tau * Vs) / sigma      # (x + τ ẋ)/σ with ẋ = −V_s − |Vx| x/σ at x = xe
    d_vs = (-a * phi - tau) / sigma
    d_vx = (-(dw * av + w * s) / vxlow * xe + a * s * (de * x - dphi * Vs)
            - dw * sigma / vxlow * Vs) / sigma
    d_sigma = (-a * (de * x - dphi * Vs) * av / sigma - w / vxlow * Vs - slip) / sigma
    return slip, d_vs, d_vx, 0.0 if floored else d_sigma


@njit(cache=True, error_model="numpy")
def transient_slips_lowspeed(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha, vxlow, h):
    """Transient slips with the low-speed damping of the carcass deflections, for the Magic
    Formula called without its own low-speed slip reduction.

    Eq. 4.24 with a damper parallel to each carcass spring: the force follows
    ``u + τκ u̇`` instead of ``u`` (the low-speed damping of the single contact point model in
    Pacejka's book and MF-Tyre, blended in below VXLOW; the form and the damping rate here are
    rtmbs's, docs/tyre.md "Transient model at low speed"), with ``u̇`` from eq. 4.23 and
    ``τκ = w(Vx) σκ/VXLOW``, ``w`` of :func:`lowspeed_weight`:

        κ' = sgn(Vx) (u + τκ u̇)/σκ = sgn(Vx) [(1 − w|Vx|/VXLOW) u − τκ Vsx]/σκ
        α' = (v + τα v̇)/σα         = [(1 − w|Vx|/VXLOW) v − τα Vsy]/σα

    At standstill κ' = u/σκ − Vsx/VXLOW: the carcass spring Cx = Kxk/σκ in parallel with the
    damper Kxk/VXLOW, which is the steady-state Magic Formula's own low-speed slip −Vsx/VXLOW;
    in steady state (u̇ = 0) the slips equal eqs. 4.15-4.16 at every speed; above VXLOW this is
    eq. 4.24. ``h`` > 0 evaluates u, v at the end of a step of length h (the exact update of
    :func:`transient_step` with these inputs), so that a linearly implicit step sees the
    deflections' response to the slip velocities (∂κ'/∂Vsx contains −φ/σκ ≈ −h/σκ) instead
    of an explicit, undamped spring; h = 0 is eq. 4.24 at the current deflections.

    Returns ``(κ', α', ∂κ'/∂Vsx, ∂κ'/∂Vx, ∂κ'/∂σκ, ∂α'/∂Vsy, ∂α'/∂Vx, ∂α'/∂σα)`` (∂/∂Vx at
    fixed Vsx, Vsy, σ).
    """
    s = 1.0 if Vx >= 0.0 else -1.0
    k, dk_vs, dk_vx, dk_s = _damped_slip(u, Vsx, Vx, sigma_kappa, vxlow, h)
    a, da_vs, da_vx, da_s = _damped_slip(v, Vsy, Vx, sigma_alpha, vxlow, h)
    return s * k, a, s * dk_vs, s * dk_vx, s * dk_s, da_vs, da_vx, da_s
