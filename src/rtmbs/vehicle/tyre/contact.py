"""Contact building blocks of the tyre force element (seed 003 §4.3.1, §4.3.2, §4.3.4).

All functions are numba-compiled scalars (no allocation), to be called from the tyre force
element's kernel:

- :func:`two_point_follower`: simplified 2-point follower enveloping model (Fig. 4.12): the
  effective road plane angle beta, the effective road height and the radial deflection
  rho = r_free - r (eq. 4.14);
- :func:`slip_quantities`: longitudinal slip kappa (eq. 4.15) and slip angle alpha (eq. 4.16)
  with a lower bound on the speed in the denominators;
- :func:`transient_rates`, :func:`transient_step`, :func:`transient_slips`: the single contact
  point transient model (eqs. 4.22-4.24) with relaxation lengths.

Sign of alpha: eqs. 4.16 and 4.23-4.24 give alpha > 0 for a wheel sliding towards -y. The
ISO-W data of .tir files (PKY1 < 0) give Fy < 0 for alpha > 0 in their own convention, where
alpha > 0 means sliding towards +y. With rtmbs axes (ISO 8855, y to the left) pass
``-alpha`` of these functions to :func:`rtmbs.vehicle.tyre.magic_formula.mf_steady_state`
(``docs/tyre.md``, "Sign conventions"; a test checks that a wheel sliding left is pushed right).
"""
from __future__ import annotations

import math

from numba import njit


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
def transient_rates(u, v, Vsx, Vsy, Vx, sigma_kappa, sigma_alpha):
    """Rates of the carcass deflections of the single contact point model (eq. 4.23).

    ``du/dt = -Vsx - |Vx| u / sigma_kappa`` and ``dv/dt = -Vsy - |Vx| v / sigma_alpha``, with the
    slip velocities of point S ``Vsx = Vx - omega r_eff`` and ``Vsy = Vy`` (eq. 4.22). At
    constant inputs each deflection is a first-order lag of time constant sigma / |Vx|.
    Returns ``(du_dt, dv_dt)``.
    """
    a = abs(Vx)
    return -Vsx - a * u / sigma_kappa, -Vsy - a * v / sigma_alpha


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
    exponential update, stable for any h and any speed). Returns ``(u_new, v_new)``."""
    a = abs(Vx)
    return (_lag_step(u, -Vsx, a / sigma_kappa, h),
            _lag_step(v, -Vsy, a / sigma_alpha, h))


@njit(cache=True, error_model="numpy")
def transient_slips(u, v, sigma_kappa, sigma_alpha, Vx):
    """Transient slip quantities of eq. 4.24, ``kappa' = sign(Vx) u / sigma_kappa`` and
    ``alpha' = v / sigma_alpha``, to be given to the steady-state Magic Formula.

    At steady state they equal the slips of :func:`slip_quantities`; the factor sign(Vx)
    (1 when rolling forwards, the case of eq. 4.24) keeps kappa' equal to the eq. 4.15 slip
    when the wheel rolls backwards. Returns ``(kappa', alpha')``.
    """
    s = 1.0 if Vx >= 0.0 else -1.0
    return s * u / sigma_kappa, v / sigma_alpha
