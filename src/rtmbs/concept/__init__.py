"""Concept models of Carpinelli 2015 chapter 5 and their identification (docs/concept.md).

* :mod:`.anti`: load transfer and the anti-squat / anti-lift / anti-dive forces (eqs. 5.1-5.4);
* :mod:`.models`: the trailing-arm quarter car (Fig. 5.5), the 12-DOF trailing-arm car
  (Fig. 5.13), the 7-DOF ride model and the 5-body identification model (§5.2.2), as model
  descriptions the existing compiler takes;
* :mod:`.manoeuvres`: the 18 s four-phase test of §5.1.3 and its validations (§5.1.4);
* :mod:`.identify`: least-squares identification with bounds (eq. 5.5), simulators for the
  quarter car, the 12-DOF car and the identification model;
* :mod:`.longitudinal`: longitudinal forces and drive torques from a_x (eqs. 5.6-5.10);
* :mod:`.sensors`: filters and the wheel-centre reconstruction (§5.2.3, eq. 5.11);
* :mod:`.table53`: the full-car identification on the detailed sedan and the validations of
  Table 5.3 (§5.2.2-5.2.4).
"""
