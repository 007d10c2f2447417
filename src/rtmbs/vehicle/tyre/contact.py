"""Contact building blocks of the tyre force element (Carpinelli 2015 §4.3.1, §4.3.2, §4.3.4).

The functions are the engine's (``src/rtmbs/engine/tyre/contact.c``, bound in
:mod:`rtmbs.engine._engine`), scalars that allocate nothing:

- :func:`two_point_follower`: simplified 2-point follower enveloping model (Fig. 4.12): the
  effective road plane angle beta, the effective road height and the radial deflection
  rho = r_free - r (eq. 4.14);
- :func:`slip_quantities`: longitudinal slip kappa (eq. 4.15) and slip angle alpha (eq. 4.16)
  with a lower bound on the speed in the denominators;
- :func:`transient_rates`, :func:`transient_step`, :func:`transient_slips`: the single contact
  point transient model (eqs. 4.22-4.24) with relaxation lengths;
- :func:`transient_slips_lowspeed` (with :func:`lowspeed_weight`, :func:`lag_coefficients`): the
  slips the tyre element uses, with the low-speed damping of the deflections and evaluated at
  the end of the solver's step, and their partial derivatives (docs/tyre.md, "Transient model
  at low speed").

Sign of alpha: eqs. 4.16 and 4.23-4.24 give alpha > 0 for a wheel sliding towards -y. The
ISO-W data of .tir files (PKY1 < 0) give Fy < 0 for alpha > 0 in their own convention, where
alpha > 0 means sliding towards +y. With rtmbs axes (ISO 8855, y to the left) pass
``-alpha`` of these functions to :func:`rtmbs.vehicle.tyre.magic_formula.mf_steady_state`
(``docs/tyre.md``, "Sign conventions"; a test checks that a wheel sliding left is pushed right).
"""
from __future__ import annotations

from ...engine._engine import (lag_coefficients, lowspeed_weight, slip_quantities,  # noqa: F401
                              transient_rates, transient_slips, transient_slips_lowspeed,
                              transient_step, two_point_follower)

#: Floor on the relaxation lengths σκ, σα (m). The Magic Formula's relaxation lengths vanish with
#: the load, so an unloaded tyre (a wheel in the air, or one whose radial damping cancels its
#: spring force) gave 0/0 in the slips u/σ and the rate |Vx|/σ of eq. 4.23. With the floor the
#: slips stay finite (the Magic Formula at zero load gives no force anyway) and a lightly loaded
#: tyre's deflections follow with the time constant SIGMA_MIN/|Vx| at most; an unloaded one
#: (σ = 0: no contact, or no load) springs back, :func:`transient_step` sets its deflections to
#: 0. 1 mm is two orders below the relaxation lengths of a loaded car tyre (0.1-0.5 m).
SIGMA_MIN = 1e-3  # the engine's RTMBS_SIGMA_MIN (tyre/contact.h)
