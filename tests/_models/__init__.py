"""The test suite's own models and helpers, one module per kind (``from _models.linkages import
pendulum``; pyproject.toml puts ``tests/`` on pytest's ``pythonpath``):

* :mod:`.linkages`: planar bars in Cartesian coordinates (pendulum, double pendulum, slider-crank),
  a point pendulum, a stiff two-mass chain and a linear oscillator, with energies and exact
  solutions; the solver tests' models.
* :mod:`.exact`: planar revolute chains (physical pendulum with its elliptic-function solution,
  double pendulum), a spring-mass-damper with an extra state, a prescribed slider, models that
  turn NaN; the reference solver's models.
* :mod:`.redundant`: planar bars with redundant constraints (the parallelogram linkage) and random
  KKT problems with their null-space solution.
* :mod:`.realtime`: a forced mass-spring-damper with an input, and test solvers that stall on
  purpose, for the real-time loop.
* :mod:`.bodies`: small :class:`rtmbs.model.Model` models (free body, wheel with a tyre, open
  differential).
* :mod:`.random_model`: a random model with every joint and force type.
* :mod:`.synthesis`: the SLA quarter car for the subsystem-synthesis tests.
* :mod:`.kkt`: accelerations from the index-1 equations and a DOP853 reference run.
* :mod:`.indep_runs`: ``li-euler-indep`` runs recorded step by step.
* :mod:`.library`: the library's models by name (``multilink-transient`` included), and fresh
  data of a model compiled once per session.
* :mod:`.fused`: helpers of the tests of the solvers whose step is one call of the C engine.
* :mod:`.lu_groups`: how the sparse LU's refactorisation groups the rows it eliminates.
* :mod:`.sphere`: configurations and directions on the unit sphere of Euler parameters.
* :mod:`.vehicle_files`: edits of a copy of the sedan's vehicle files and the errors they give.
"""
