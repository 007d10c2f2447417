"""``ab3``: the explicit 3-step Adams-Bashforth method of order 3 for non-stiff ODE models.

For q̇ = v, M v̇ = Q(q, v, t) (m = 0) written y' = f(t, y),

    y_{n+1} = y_n + h/12 (23 f_n − 16 f_{n−1} + 5 f_{n−2}),

one force evaluation and one solve with M per step: a fixed cost. The first two steps are
classical RK4 steps (order 4, so the start does not spoil order 3). Explicit: stable only for
h |λ| below about 0.5 on the real axis and 0.7 on the imaginary axis (use a linearly implicit
method on stiff models such as the truck's hinge springs). M is factored once if the system
declares ``constant_mass = True``, else at every evaluation (the engine's dense LU, dense_lu.c).
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..errors import SolverError
from ..protocol import EVAL_M, EVAL_Q
from .base import Solver, register_solver


# the kernels in the C engine (src/rtmbs/engine/adams.c, dense_lu.c)
_c_accel, _c_update, _c_rk4_point = _engine.ab3_accel, _engine.ab3_update, _engine.rk4_point


@register_solver("ab3")
class AB3(Solver):
    """Adams-Bashforth 3 with an RK4 start (two steps), fixed step, ODE models only."""

    ode_only = True

    def __init__(self, system, instrument=False, **options):
        if options:
            raise SolverError(f"ab3: unknown option(s) {sorted(options)} (known: instrument)")
        super().__init__(system, instrument=instrument)
        n = system.n
        self.constant_mass = bool(getattr(system, "constant_mass", False))
        self.LU = np.zeros((n, n))
        self.piv = np.zeros(n, np.int64)
        self.F = np.zeros((3, 2, n))       # ring buffer of f_n, f_{n-1}, f_{n-2}
        self.K = np.zeros((4, 2, n))       # RK4 stages (start-up only)
        self.qs = np.zeros(n)
        self.vs = np.zeros(n)
        self.k = 0                         # steps taken since reset
        # the whole step in one call of the C engine (adams.c, rtmbs_ab3_step) on a compiled
        # Cartesian model without extra states, unless ``instrument`` asks for phases
        from .li_euler import is_compiled_cartesian
        self.fused = (not instrument and is_compiled_cartesian(system) and system.m == 0
                      and not system.nx)
        if self.fused:
            self._fused_args = system.kernel_buffers() + (self.ws.buf, self.LU, self.piv, self.F,
                                                          self.K, self.qs, self.vs)

    def _reset(self, state):
        n = self.system.n
        if state.q.shape != (n,) or state.qd.shape != (n,):
            raise SolverError(f"ab3: state has q {state.q.shape}, qd {state.qd.shape}; "
                              f"expected ({n},)")
        self.k = 0
        if self.constant_mass:
            self._evaluate(state.t, state.q, state.qd, EVAL_M)
            if not _c_accel(self.ws.M, self.LU, self.piv, True, self.ws.Q, self.vs):
                raise SolverError(f"ab3: mass matrix of '{self.system.name}' is singular")
            self.nfactor += 1

    def _f(self, t, q, v, outq, outv):
        """(outq, outv) = f(t, q, v) = (v, M⁻¹Q)."""
        what = EVAL_Q if self.constant_mass else EVAL_Q | EVAL_M
        self._evaluate(t, q, v, what)
        self._toc("evaluation")
        ok = _c_accel(self.ws.M, self.LU, self.piv, not self.constant_mass, self.ws.Q, outv)
        if not self.constant_mass:
            self.nfactor += 1
        self.nsolve += 1
        outq[:] = v
        self._toc("solve")
        return ok

    def _step_impl(self, state, h):
        t, q, v = state.t, state.q, state.qd
        if self.fused and not self.system._input_functions:  # (Python input functions: below)
            ok = _engine.ab3_step(*self._fused_args, q, v, float(t), float(h), self.k,
                                  self.constant_mass)
            nf = 1 if self.k >= 2 else 4  # (evaluations and solves: RK4 for the first two)
            self.neval += nf
            self.nsolve += nf
            if not self.constant_mass:
                self.nfactor += nf
            self.k += 1
            return ok
        self._tic()
        slot = self.k % 3
        ok = self._f(t, q, v, self.F[slot, 0], self.F[slot, 1])
        if self.k < 2:
            ok = self._rk4(t, h, q, v) and ok
        else:
            _c_update(h, self.F, self.k, q, v)
            self._toc("other")
        self.k += 1
        return bool(ok)

    def _rk4(self, t, h, q, v):
        """One classical RK4 step (start-up), with K1 = f_n already in the history."""
        K, qs, vs = self.K, self.qs, self.vs
        K[0] = self.F[self.k % 3]
        ok = True
        for i, c in ((1, 0.5), (2, 0.5), (3, 1.0)):
            _c_rk4_point(c * h, q, v, K[i - 1, 0], K[i - 1, 1], qs, vs)
            ok = self._f(t + c * h, qs, vs, K[i, 0], K[i, 1]) and ok
        q += h / 6.0 * (K[0, 0] + 2 * K[1, 0] + 2 * K[2, 0] + K[3, 0])
        v += h / 6.0 * (K[0, 1] + 2 * K[1, 1] + 2 * K[2, 1] + K[3, 1])
        self._toc("other")
        return ok
