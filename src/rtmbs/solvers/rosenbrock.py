"""``rosenbrock-grk4t``: the 4-stage, order-4 Rosenbrock method GRK4T of Kaps and Rentrop
(1979) with fixed step, for ODE models (m = 0), in the partitioned form of the truck benchmark eqs. 3-4.

The ODE q̇ = v, v̇ = M⁻¹Q(q, v, t) is written y' = f(t, y). The method (Hairer-Wanner IV.7,
eq. 7.25, the transformed form of ROS4 with mass matrix) solves per stage

    (diag(I, M)/(hγ) − J) u_i = F(t + c_i h, y + Σ a_ij u_j) + diag(I, M) Σ (c_ij/h) u_j
                               + h d_i ∂F/∂t,                 y_{n+1} = y + Σ b_i u_i,

with F = [v; Q] and the partitioned Jacobian J = [[0, I], [∂Q/∂q, ∂Q/∂v]] (Truck benchmark eq. 4).
Eliminating the position block leaves one n×n matrix per step,

    A = M − hγ ∂Q/∂v − (hγ)² ∂Q/∂q,   A u_v = hγ r_v + (hγ)² ∂Q/∂q r_q,   u_q = hγ (r_q + u_v),

factored once by the engine's dense LU (dense_lu.c; n is small) and solved four times: a fixed
cost per step.
∂Q/∂t (the road's ∂f/∂u u̇ of the truck benchmark §3.3) is a forward difference (one extra evaluation).
Stages 3 and 4 share their argument, so a step costs 3 force evaluations + 1 for ∂Q/∂t.

Options: ``jacobian="all"|"stiff"`` (which force Jacobians enter J), ``freeze_jq`` (True:
∂Q/∂q computed once at the initial state, as in the truck benchmark §3.3; the order then drops to that
of a W-method with an inexact Jacobian), ``time_derivative`` (False: drop the ∂Q/∂t term).
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..errors import SolverError
from ..protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_Q
from .base import Solver, register_solver
from .dense import lu_factor, lu_solve  # noqa: F401  (the engine's dense LU, as before)

# GRK4T (Kaps & Rentrop 1979) in the transformed form of Hairer's ROS4 (METH = 2).
GAMMA = 0.231
A21 = 2.0
A31 = 4.524708207373116
A32 = 4.163528788597648
C21 = -5.071675338776316
C31 = 6.020152728650786
C32 = 0.1597506846727117
C41 = -1.856343618686113
C42 = -8.505380858179826
C43 = -2.084075136023187
B1 = 3.957503746640777
B2 = 4.624892388363313
B3 = 0.6174772638750108
B4 = 1.282612945269037
D1 = 0.231
D2 = -0.03962966775244303
D3 = 0.5507789395789127
D4 = -0.05535098457052764
C2 = 0.462
C3 = 0.8802083333333334
#: Stage nodes c_i (stage 4 uses the argument of stage 3).
NODES = (0.0, C2, C3, C3)


# the GRK4T stages in the C engine (src/rtmbs/engine/rosenbrock.c, dense_lu.c)
_c_factor, _c_stage, _c_mass_scale = _engine.grk_factor, _engine.grk_stage, _engine.grk_mass_scale


@register_solver("rosenbrock-grk4t")
class GRK4T(Solver):
    """GRK4T (Kaps-Rentrop) with fixed step for ODE models (Truck benchmark §3.1, eqs. 3-4)."""

    ode_only = True

    def __init__(self, system, instrument=False, jacobian="all", freeze_jq=False,
                 time_derivative=True, **options):
        if jacobian not in ("all", "stiff"):
            raise SolverError(f"rosenbrock-grk4t: jacobian must be 'all' or 'stiff', got "
                              f"'{jacobian}'")
        if options:
            raise SolverError(f"rosenbrock-grk4t: unknown option(s) {sorted(options)} "
                              "(known: jacobian, freeze_jq, time_derivative, instrument)")
        super().__init__(system, instrument=instrument)
        self.jacobian = jacobian
        self.freeze_jq = bool(freeze_jq)
        self.time_derivative = bool(time_derivative)
        n = system.n
        self.constant_mass = bool(getattr(system, "constant_mass", False))
        self.ws_t = system.workspace()
        self.ws_s = system.workspace()
        self.Mn = np.zeros((n, n))
        self.Jq = np.zeros((n, n))
        self.LU = np.zeros((n, n))
        self.piv = np.zeros(n, np.int64)
        self.LUm = np.zeros((n, n))
        self.pivm = np.zeros(n, np.int64)
        self.U = np.zeros((4, 2, n))
        self.Qt = np.zeros(n)
        self.qs = np.zeros(n)
        self.vs = np.zeros(n)
        self.rq = np.zeros(n)
        self.rv = np.zeros(n)
        self.tmp = np.zeros(n)
        self._jac_flag = EVAL_JAC if jacobian == "all" else EVAL_JAC_STIFF
        # the whole step in one call of the C engine (rosenbrock.c, rtmbs_grk4t_step) on a
        # compiled Cartesian model without extra states, unless ``instrument`` asks for phases
        from .li_euler import is_compiled_cartesian
        self.fused = (not instrument and is_compiled_cartesian(system) and system.m == 0
                      and not system.nx)
        if self.fused:
            self._fused_args = system.kernel_buffers() + (
                self.ws.buf, self.ws_t.buf, self.ws_s.buf, self.Mn, self.Jq, self.LU, self.piv,
                self.LUm, self.pivm, self.U, self.Qt, self.qs, self.vs, self.rq, self.rv, self.tmp)
            self._fused_opts = (self._jac_flag, self.freeze_jq, self.time_derivative,
                                self.constant_mass)

    def _reset(self, state):
        n = self.system.n
        if state.q.shape != (n,) or state.qd.shape != (n,):
            raise SolverError(f"rosenbrock-grk4t: state has q {state.q.shape}, qd "
                              f"{state.qd.shape}; expected ({n},)")
        self._evaluate(state.t, state.q, state.qd, EVAL_M | self._jac_flag)
        self.Mn[:] = self.ws.M
        self.Jq[:] = self.ws.Jq

    def _stage_forces(self, t, q, v):
        """Q at a stage argument into ws_s.Q (scaled by M_n M_s⁻¹ if M depends on q)."""
        what = EVAL_Q if self.constant_mass else EVAL_Q | EVAL_M
        self.system.evaluate(t, q, v, self.ws_s, what)
        self.neval += 1
        if not self.constant_mass:
            _c_mass_scale(self.Mn, self.ws_s.M, self.LUm, self.pivm, self.ws_s.Q, self.tmp)
            self.nfactor += 1
            self.nsolve += 1
        return self.ws_s.Q

    def _step_impl(self, state, h):
        t, q, v = state.t, state.q, state.qd
        if self.fused and not self.system._input_functions:  # (Python input functions: below)
            ok = _engine.grk4t_step(*self._fused_args, q, v, float(t), float(h), *self._fused_opts)
            scale = 0 if self.constant_mass else 2  # (the stages' mass scalings)
            self.neval += 1 + self.time_derivative + (2 if ok else 0)
            self.nfactor += 1 + (scale if ok else 0)
            self.nsolve += (4 + scale) if ok else 0
            return ok
        ws = self.ws
        self._tic()
        # evaluation with Jacobians at (t_n, q_n, v_n)
        what = EVAL_Q | self._jac_flag      # with freeze_jq only ∂Q/∂v is used
        if not self.constant_mass:
            what |= EVAL_M
        self._evaluate(t, q, v, what)
        if not self.constant_mass:
            self.Mn[:] = ws.M
        if not self.freeze_jq:
            self.Jq[:] = ws.Jq
        self._toc("jacobians")
        if self.time_derivative:
            dt = 1e-7 * max(1.0, abs(t))
            self.system.evaluate(t + dt, q, v, self.ws_t, EVAL_Q)
            self.neval += 1
            np.subtract(self.ws_t.Q, ws.Q, out=self.Qt)
            self.Qt *= 1.0 / dt
        self._toc("evaluation")
        ok = _c_factor(h, self.Mn, self.Jq, ws.Jqd, self.LU, self.piv)
        self.nfactor += 1
        self._toc("factorisation")
        if not ok:
            return False
        Q0 = ws.Q
        args = (self.Mn, self.LU, self.piv, self.Jq)
        bufs = (self.rq, self.rv)
        U, Qt, qs, vs = self.U, self.Qt, self.qs, self.vs
        _c_stage(0, h, *args, Q0, Qt, U, q, v, v, qs, vs, *bufs)
        self._toc("solve")
        Qs = self._stage_forces(t + C2 * h, qs, vs)
        self._toc("evaluation")
        _c_stage(1, h, *args, Qs, Qt, U, q, v, vs, qs, vs, *bufs)
        self._toc("solve")
        Qs = self._stage_forces(t + C3 * h, qs, vs)
        self._toc("evaluation")
        _c_stage(2, h, *args, Qs, Qt, U, q, v, vs, qs, vs, *bufs)
        _c_stage(3, h, *args, Qs, Qt, U, q, v, vs, qs, vs, *bufs)
        self.nsolve += 4
        self._toc("solve")
        return True
