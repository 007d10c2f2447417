"""The mechanical-system protocol that every solver works on (DESIGN.md, idea 2).

A provider (the Cartesian body assembler, the hand-written planar truck, a concept car, a
recursive subsystem formulation) describes

    M(q) q̈ + Φqᵀ(q, t) λ = Q(q, q̇, t),     Φ(q, t) = 0,        (Carpinelli 2016 eq. 1)

through one compiled entry point, :meth:`MechanicalSystem.evaluate`, which writes the requested
quantities into a preallocated :class:`Workspace`. Nothing allocates inside ``evaluate``.
Dense storage keeps the protocol simple; providers with structure may expose more (e.g. a fixed
sparsity pattern) through optional attributes that specialised solvers look for.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

# Flags for ``evaluate(..., what)``: OR them together.
EVAL_M = 1          # mass matrix M(q)                       -> ws.M      (n, n)
EVAL_Q = 2          # generalized forces Q(q, q̇, t)          -> ws.Q      (n,)
EVAL_PHI = 4        # constraints Φ(q, t)                    -> ws.phi    (m,)
EVAL_PHIQ = 8       # Φq and Φt                              -> ws.phiq (m, n), ws.phit (m,)
EVAL_GAMMA = 16     # γ = -(Φq q̇)_q q̇ - 2Φqt q̇ - Φtt       -> ws.gamma  (m,)  (Carpinelli 2016 eq. 23)
EVAL_JAC = 32       # Jq = ∂Q/∂q, Jq̇ = ∂Q/∂q̇ of all terms  -> ws.Jq, ws.Jqd (n, n)
EVAL_JAC_STIFF = 64 # same, stiff force elements only
EVAL_ALL = EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA | EVAL_JAC


#: The workspace layout, declared once: (name, shape in terms of n and m), in buffer order.
#: The C engine carves the same fields in this order (``engine/evaluate.c``; tests/core/test_kernels.py
#: reads them by name and checks them against finite differences).
WORKSPACE_FIELDS = (("M", ("n", "n")), ("Q", ("n",)), ("phi", ("m",)), ("phiq", ("m", "n")),
                    ("phit", ("m",)), ("gamma", ("m",)), ("Jq", ("n", "n")), ("Jqd", ("n", "n")))


class Workspace:
    """Every buffer one evaluation writes, allocated once per solver.

    All arrays are views into one flat buffer ``buf`` (:data:`WORKSPACE_FIELDS` in order), so a
    compiled kernel can take the whole workspace as a single array.
    Only ``evaluate`` writes a workspace: providers with fixed sparsity patterns rely on the
    entries outside their patterns staying zero (they do not clear whole matrices).
    """

    M: np.ndarray
    Q: np.ndarray
    phi: np.ndarray
    phiq: np.ndarray
    phit: np.ndarray
    gamma: np.ndarray
    Jq: np.ndarray
    Jqd: np.ndarray

    def __init__(self, n: int, m: int):
        self.n, self.m = n, m
        self.bind(np.zeros(workspace_size(n, m)))

    def bind(self, buf: np.ndarray) -> None:
        """Make ``buf`` (at least :func:`workspace_size` long) the workspace's buffer: every
        field a view into it, in the order of :data:`WORKSPACE_FIELDS`."""
        self.buf = buf
        dims = {"n": self.n, "m": self.m}
        off = 0
        for name, shape in WORKSPACE_FIELDS:
            sh = tuple(dims[d] for d in shape)
            size = int(np.prod(sh))
            setattr(self, name, buf[off:off + size].reshape(sh))
            off += size


def workspace_size(n: int, m: int) -> int:
    """Length of a workspace buffer for n coordinates and m constraints."""
    dims = {"n": n, "m": m}
    return sum(int(np.prod([dims[d] for d in shape])) for _, shape in WORKSPACE_FIELDS)


@dataclass
class State:
    """What changes during a run: time, coordinates, velocities (and extra first-order states)."""

    t: float
    q: np.ndarray
    qd: np.ndarray
    x: np.ndarray = field(default_factory=lambda: np.zeros(0))

    def copy(self) -> "State":
        return State(float(self.t), self.q.copy(), self.qd.copy(), self.x.copy())


class MechanicalSystem:
    """Base class of every provider of the protocol.

    Subclasses set ``n`` (coordinates), ``m`` (constraints), ``name`` and implement
    :meth:`evaluate`. Optional: ``nx`` extra first-order states with :meth:`extra_rates`,
    ``output_names`` with :meth:`outputs`, ``acceleration_names`` with
    :meth:`acceleration_outputs`, ``input_names`` with :meth:`set_input`.
    The convenience methods (``mass``, ``forces``, ...) allocate and are for tests and
    offline use, never for a real-time step.
    """

    n: int = 0
    m: int = 0
    nx: int = 0
    name: str = "system"
    output_names: tuple[str, ...] = ()
    acceleration_names: tuple[str, ...] = ()
    input_names: tuple[str, ...] = ()

    # -- to implement ------------------------------------------------------------------
    def evaluate(self, t: float, q: np.ndarray, qd: np.ndarray, ws: Workspace, what: int) -> None:
        raise NotImplementedError

    def initial_state(self) -> State:
        raise NotImplementedError

    # -- optional ----------------------------------------------------------------------
    def extra_rates(self, t, q, qd, x, out) -> None:
        """ẋ for the extra first-order states (tyre deflections ...)."""

    def set_extra(self, x) -> None:
        """Make ``evaluate`` use the extra states ``x`` (providers that read them keep a copy)."""

    def advance_extra(self, state: State, h: float) -> None:
        """Advance ``state.x`` over a fixed step h (after the mechanical step; default: explicit
        Euler on ``extra_rates`` at the step's end state)."""
        if self.nx:
            rates = np.zeros(self.nx)
            self.extra_rates(state.t, state.q, state.qd, state.x, rates)
            state.x += h * rates
            self.set_extra(state.x)

    def outputs(self, t, q, qd, out) -> None:
        """Named outputs (``output_names``) written into ``out``."""

    def acceleration_outputs(self, t, q, qd, qdd, out) -> None:
        """Named outputs that need the accelerations q̈ (``acceleration_names``) into ``out``."""

    def set_input(self, name: str, value: float) -> None:
        raise KeyError(name)

    def energy(self, q, qd) -> float:
        """Total mechanical energy when the provider knows it (for tests)."""
        raise NotImplementedError

    # -- conveniences (allocate) -------------------------------------------------------
    def workspace(self) -> Workspace:
        return Workspace(self.n, self.m)

    def _eval(self, what, q, qd=None, t=0.0) -> Workspace:
        ws = self.workspace()
        q = np.asarray(q, float)
        qd = np.zeros(self.n) if qd is None else np.asarray(qd, float)
        self.evaluate(float(t), q, qd, ws, what)
        return ws

    def mass(self, q):
        return self._eval(EVAL_M, q).M.copy()

    def forces(self, q, qd, t=0.0):
        return self._eval(EVAL_Q, q, qd, t).Q.copy()

    def constraints(self, q, t=0.0):
        return self._eval(EVAL_PHI, q, None, t).phi.copy()

    def constraint_jacobian(self, q, t=0.0):
        return self._eval(EVAL_PHIQ, q, None, t).phiq.copy()

    def constraint_time_derivative(self, q, t=0.0):
        return self._eval(EVAL_PHIQ, q, None, t).phit.copy()

    def gamma(self, q, qd, t=0.0):
        return self._eval(EVAL_GAMMA, q, qd, t).gamma.copy()

    def force_jacobians(self, q, qd, t=0.0, stiff_only=False):
        ws = self._eval(EVAL_JAC_STIFF if stiff_only else EVAL_JAC, q, qd, t)
        return ws.Jq.copy(), ws.Jqd.copy()
