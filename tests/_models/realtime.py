"""Small hand-written systems and solvers for the real-time tests (no dependence on the body
compiler or on the production solvers).

``MassSpringDamper``: m ẍ + c ẋ + k x = force + A sin(ω t), one coordinate, no constraint,
external input ``force``, outputs ``x``, ``v`` and ``force`` (the applied input, echoed).
"""
from __future__ import annotations

import math
import time

import numpy as np

from rtmbs.protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_Q, MechanicalSystem, State
from rtmbs.realtime.clock import SimulatedClock
from rtmbs.solvers.base import Solver, register_solver

SOLVER_NAME = "test-symplectic-euler"


class MassSpringDamper(MechanicalSystem):
    n = 1
    m = 0
    name = "test-msd"
    input_names = ("force",)
    output_names = ("x", "v", "force")
    coordinate_names = ("x",)
    units = {"x": "m", "v": "m/s", "force": "N"}

    def __init__(self, mass=2.0, k=400.0, c=3.0, amp=5.0, omega=7.0, x0=0.1):
        self.mass_, self.k, self.c, self.amp, self.omega, self.x0 = mass, k, c, amp, omega, x0
        self.force = 0.0

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[0, 0] = self.mass_
        if what & EVAL_Q:
            ws.Q[0] = -self.k * q[0] - self.c * qd[0] + self.force + self.amp * math.sin(self.omega * t)
        if what & (EVAL_JAC | EVAL_JAC_STIFF):
            ws.Jq[0, 0] = -self.k
            ws.Jqd[0, 0] = -self.c

    def initial_state(self):
        return State(0.0, np.array([self.x0]), np.zeros(1))

    def outputs(self, t, q, qd, out):
        out[0] = q[0]
        out[1] = qd[0]
        out[2] = self.force

    def set_input(self, name, value):
        if name != "force":
            raise KeyError(name)
        self.force = float(value)


def make_msd():
    """Factory used by the FMU export test (``models.py:make_msd``)."""
    return MassSpringDamper()


@register_solver(SOLVER_NAME)
class SemiImplicitEuler(Solver):
    """q̇ₖ₊₁ = q̇ₖ + h M⁻¹Q(tₖ, qₖ, q̇ₖ), qₖ₊₁ = qₖ + h q̇ₖ₊₁ (diagonal M, no constraints)."""

    def _reset(self, state):
        self.acc = np.zeros(self.system.n)

    def _step_impl(self, state, h):
        self._evaluate(state.t, state.q, state.qd, EVAL_M | EVAL_Q)
        ws, acc = self.ws, self.acc
        for i in range(self.system.n):
            acc[i] = h * ws.Q[i] / ws.M[i, i]
        state.qd += acc
        for i in range(self.system.n):
            state.q[i] += h * state.qd[i]
        return True


def busy_wait(seconds):
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


class StallingEuler(SemiImplicitEuler):
    """Semi-implicit Euler whose step ``k`` (0-based since reset) takes ``stalls[k]`` s more: on
    ``clock`` (a ``rtmbs.realtime.clock.SimulatedClock``, moved by that much) when given, else
    busy-waiting on the wall clock."""

    name = "test-stalling"

    def __init__(self, system, stalls=None, clock=None, **options):
        super().__init__(system, **options)
        self.stalls = dict(stalls or {})
        self.clock = clock
        self.gc_enabled_seen = set()

    def _reset(self, state):
        super()._reset(state)
        self.gc_enabled_seen = set()

    def _step_impl(self, state, h):
        import gc

        self.gc_enabled_seen.add(gc.isenabled())
        s = self.stalls.get(self.nstep)
        if s and not getattr(self, "degraded", False):
            (self.clock.advance if self.clock is not None else busy_wait)(s)
        return super()._step_impl(state, h)


class DegradableStallingEuler(StallingEuler):
    """Skips its stalls while degraded; records ``(nstep, flag)`` of each ``set_degraded``."""

    def __init__(self, system, stalls=None, clock=None, **options):
        super().__init__(system, stalls, clock, **options)
        self.degraded = False
        self.degrade_calls = []

    def set_degraded(self, flag):
        self.degrade_calls.append((self.nstep, bool(flag)))
        self.degraded = bool(flag)


class OffCpuClock(SimulatedClock):
    """A simulated clock on which the process can also be off the CPU: ``off_cpu(s)`` and the
    loop's own ``sleep(s)`` move the wall clock by ``s`` but not the CPU time; ``advance(s)`` and
    the readings move both (as :class:`~rtmbs.realtime.clock.SimulatedClock`)."""

    def __init__(self, start_ns: int = 0, read_ns: int = 100):
        super().__init__(start_ns, read_ns)
        self.off_ns = 0

    def cpu_ns(self) -> int:
        return self.now_ns - self.off_ns

    def off_cpu(self, seconds: float) -> None:
        ns = int(round(seconds * 1e9))
        self.now_ns += ns
        self.off_ns += ns

    def sleep(self, seconds: float) -> None:
        before = self.now_ns
        super().sleep(seconds)
        self.off_ns += self.now_ns - before


class CausedStallEuler(SemiImplicitEuler):
    """Stalls of each cause of an overrun, on ``clock`` (an :class:`OffCpuClock`):
    ``computes[k]`` spends that much CPU time inside step ``k`` (the step's own compute),
    ``sleeps[k]`` that much wall time off the CPU inside it (a preemption), ``sleeps_after[k]``
    that much off the CPU after it, in the loop's bookkeeping (recording the multipliers), so
    that step ``k + 1`` starts late."""

    name = "test-caused-stall"

    def __init__(self, system, clock, computes=None, sleeps=None, sleeps_after=None, **options):
        super().__init__(system, **options)
        self.clock = clock
        self.computes = dict(computes or {})
        self.sleeps = dict(sleeps or {})
        self.sleeps_after = dict(sleeps_after or {})

    def _step_impl(self, state, h):
        self.clock.advance(self.computes.get(self.nstep, 0.0))
        self.clock.off_cpu(self.sleeps.get(self.nstep, 0.0))
        return super()._step_impl(state, h)

    def full_multipliers(self, out):
        self.clock.off_cpu(self.sleeps_after.get(self.nstep - 1, 0.0))
        super().full_multipliers(out)
