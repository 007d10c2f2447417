"""Base class and registry of the fixed-step solvers (a public ``step`` keeps the
counters and status, a subclass writes ``_step_impl``)."""
from __future__ import annotations

import functools
import time

import numpy as np

from ..engine import _engine
from ..errors import SolverError, did_you_mean
from ..protocol import MechanicalSystem, State
from . import redundancy

SOLVERS: dict[str, type["Solver"]] = {}

#: The phases of a step, in the layout of Carpinelli 2016 Tables 5-6.
PHASES = ("evaluation", "jacobians", "factorisation", "solve", "projection", "other")
#: A solver's counters, in the order of its ``counts`` array.
COUNTERS = ("nstep", "neval", "nfactor", "nsolve")


class _Counter:
    """One of :data:`COUNTERS`: an entry of the solver's ``counts`` (int64), to which a compiled
    step bound to the solver (:meth:`Solver.bind_step`) adds its own counts at every call."""

    def __init__(self, index: int):
        self.index = index

    def __get__(self, solver, owner=None):
        return self if solver is None else int(solver.counts[self.index])

    def __set__(self, solver, value) -> None:
        solver.counts[self.index] = value


def time_after(t0: float, h: float, k: int = 1) -> float:
    """The time at the end of the k-th fixed step of ``h`` from ``t0``: t0 + k h. The one rule
    by which time moves: :meth:`Solver.step` (and the solvers' compiled steps) set ``state.t``
    with it from the step's start, and a run of many steps (``simulate``, ``rollout``, the
    real-time loop, the driver) from its start and its step count, as the engine's rollouts do
    (``fixed_rollout.c``): k additions of h would gather k round-offs."""
    return t0 + k * h


def register_solver(name: str):
    """Class decorator: make a solver available by ``name`` (``rtmbs run --solver name``)."""

    def deco(cls):
        cls.name = name
        SOLVERS[name] = cls
        return cls

    return deco


def get_solver(name_or_cls) -> type["Solver"]:
    if isinstance(name_or_cls, type) and issubclass(name_or_cls, Solver):
        return name_or_cls
    _load_all()
    try:
        return SOLVERS[name_or_cls]
    except KeyError:
        raise SolverError(f"unknown solver '{name_or_cls}'" + did_you_mean(name_or_cls, SOLVERS)) from None


def _load_all():
    """Import the solver modules so that their ``register_solver`` decorators run."""
    import importlib

    for mod in ("explicit", "li_euler", "li_euler_indep", "rosenbrock", "adams", "reference", "index1", "generalized_alpha"):
        try:
            importlib.import_module(f"rtmbs.solvers.{mod}")
        except ModuleNotFoundError as exc:  # a module not written yet
            if exc.name != f"rtmbs.solvers.{mod}":
                raise


class Solver:
    """A fixed-step integrator over the mechanical-system protocol.

    Duties of a subclass: implement ``_reset(state)`` (allocate every buffer, analyse
    patterns once) and ``_step_impl(state, h)`` (advance ``state.q``, ``state.qd`` in place by
    one step with a fixed number of operations; :meth:`step` sets ``state.t``; return
    ``False`` on a numerical failure). Set
    ``self.lam`` (multipliers of the last step) when the method has them.

    Attributes
    ----------
    status : 0 running, 1 finished, -1 failed
    nstep, nfactor, nsolve, neval : counters since ``reset`` (the entries of ``counts``)
    nfallback, last_fallback : factorisations since ``reset`` whose static pivots were raised or
        whose multipliers grew (their solves refined, ``rtmbs.solvers.sparse``), and the row of the
        matrix that last needed it (-1: none); always 0 / -1 on the dense paths
    timers : seconds per phase (``PHASES``) when ``instrument`` is true
    system, full_system : the system integrated and the one given; they differ when
        ``redundant='remove'`` (the default of every fixed-step solver) leaves dependent
        constraint rows out (``rtmbs.solvers.redundancy``; ``'error'`` raises at ``reset``)
    """

    name = "solver"
    #: True for methods that need a system without position constraints (ODE form).
    ode_only = False
    #: True for the offline adaptive solvers (not fixed cost).
    offline = False
    #: True when the step itself advances the extra states (the compiled ``li-euler`` step);
    #: otherwise :meth:`step` does it around ``_step_impl``.
    extra_in_step = False
    #: the compiled step bound to its arrays (:meth:`bind_step`), or None
    bound = None
    nstep, neval, nfactor, nsolve = (_Counter(k) for k in range(len(COUNTERS)))

    def __init_subclass__(cls, **kwargs):
        """Fixed-step solvers take the option ``redundant`` here, before their own options."""
        super().__init_subclass__(**kwargs)
        init = cls.__dict__.get("__init__")
        if init is not None and not (cls.offline or cls.ode_only):
            cls.__init__ = _taking_redundant(init)

    def __init__(self, system: MechanicalSystem, instrument: bool = False, **options):
        self.full_system = system
        if self.offline or self.ode_only:
            if "redundant" in options:
                raise SolverError(f"solver '{self.name}': option redundant= is for the fixed-step "
                                  "solvers of constrained systems")
        else:
            red = options.pop("redundant", getattr(self, "_redundant", None))
            self.redundant = "remove" if red is None else red
            system = redundancy.prepare(system, self.name, self.redundant)
        self.system = system
        self.instrument = instrument
        self.options = options
        self.lam = np.zeros(system.m)
        self.ws = system.workspace()
        self._t0 = 0
        self.counts = np.zeros(len(COUNTERS), np.int64)
        self.reset_counters()

    # -- public -------------------------------------------------------------------------
    def reset(self, state: State) -> None:
        if self.ode_only and self.system.m > 0:
            raise SolverError(
                f"solver '{self.name}' is for ODE models (no constraints); "
                f"'{self.system.name}' has m = {self.system.m} constraints"
            )
        if self.system.nx:
            if state.x.shape != (self.system.nx,):
                state.x = np.zeros(self.system.nx)
            self.system.set_extra(state.x)
        if not (self.offline or self.ode_only):
            redundancy.at_reset(self.name, self.system, self.full_system, self.redundant, state)
        self._reset(state)
        self.reset_counters()  # set-up work (patterns, first factorisation) is not counted

    def step(self, state: State, h: float) -> bool:
        """Advance ``state`` by one step of ``h``: ``_step_impl`` moves q, q̇, then the time is
        set from the step's start (:func:`time_after`), then the extra states. A compiled step
        bound to the solver (:meth:`bind_step`) does all of it but the time in one call."""
        bound = self.bound
        if bound is not None and not self.instrument:
            ok = bound.step(state.q, state.qd, state.x, state.t, h)
            state.t = time_after(state.t, h)
            if not ok:
                self.status = -1
            return ok
        extra = self.system.nx and not (self.offline or self.extra_in_step)
        if extra:  # transient tyres: end-of-step deflections
            set_step = getattr(self.system, "set_extra_step", None)  # (systems without: none)
            if set_step is not None:
                set_step(h)
        t0 = state.t
        ok = self._step_impl(state, h)
        state.t = time_after(t0, h)
        if extra:
            self.system.advance_extra(state, h)  # extra first-order states (transient tyres)
        self.nstep += 1
        if ok is False:
            self.status = -1
            return False
        return True

    def step_outputs(self, state: State, h: float, out, at_start: bool = False) -> bool:
        """:meth:`step`, then the given system's named outputs (``full_system.outputs``) at the
        new state into ``out`` (left as it was when the step fails): what the real-time loop
        publishes after each step. Solvers with a compiled step do both in one compiled call.
        ``at_start``: the outputs at the state the step starts from instead, with the inputs set
        for the step and the forces it applies (transient tyres: the deflections at the step's
        end); the compiled step gathers them from its own first evaluation, at no cost."""
        bound = self.bound
        if bound is not None and not self.instrument and len(out) == self._nout:
            ok = bound.step_outputs(state.q, state.qd, state.x, state.t, h, out, at_start)
            state.t = time_after(state.t, h)
            if not ok:
                self.status = -1
            return ok
        if at_start:
            if getattr(self.full_system, "nx", 0):
                self.full_system.outputs(state.t, state.q, state.qd, out, extra_step=h)
            else:
                self.full_system.outputs(state.t, state.q, state.qd, out)
            return self.step(state, h)
        ok = self.step(state, h)
        if ok:
            self.full_system.outputs(state.t, state.q, state.qd, out)
        return ok

    @property
    def nredundant_violations(self) -> int:
        """Evaluations since ``reset`` in which a left-out redundant row exceeded its bound."""
        return getattr(self.system, "nviolations", 0)

    def full_multipliers(self, out) -> None:
        """λ of the last step over the rows of ``full_system`` (0 on left-out rows)."""
        if self.system is self.full_system:
            out[:] = self.lam
        else:
            self.system.expand_multipliers(self.lam, out)

    def bind_step(self, kind: str, args: tuple, per_step: tuple[int, int, int],
                  ndiag: int = 4) -> None:
        """Bind the compiled step ``kind`` (``rtmbs.engine._engine.BoundStep``: "li-euler",
        "explicit-euler", "generalized-alpha", "li-euler-indep", the trucks' dense steps) to
        ``args``, the argument list of its step function (the state's arrays there stand in for
        those :meth:`step` passes); each call adds one step and ``per_step`` = (evaluations,
        factorisations, solves) to ``counts`` and writes the factor statistics into ``diag``
        (pivot ratio, largest multiplier, the same of a second KKT; ``ndiag`` values where the
        kind defines more). :meth:`step` and :meth:`step_outputs` then call it with the state
        alone."""
        oidx = np.asarray(self.system.output_index, np.int64)
        self.diag = np.zeros(ndiag)
        self.diag[:4] = 1.0, 0.0, 1.0, 0.0
        self._nout = oidx.size
        self.bound = _engine.BoundStep(kind, args, oidx, self.diag, self.counts, per_step)

    #: the entry of ``diag`` into which the bound step writes its pivot ratio
    RATIO_SLOT = 0
    _ratio = 1.0

    @property
    def ratio(self) -> float:
        """Pivot ratio of the last step's factorisation: the bound step's (``diag``), else the
        one the step driven from Python kept."""
        return float(self.diag[self.RATIO_SLOT]) if self.bound is not None else self._ratio

    @ratio.setter
    def ratio(self, value: float) -> None:
        self._ratio = value
        if self.bound is not None:
            self.diag[self.RATIO_SLOT] = value

    def reset_counters(self):
        self.status = 0
        self.counts[:] = 0
        self.timers = {p: 0.0 for p in PHASES}
        self._nfallback0 = self._fallbacks()

    def add_step_counts(self, k: int, per_step: tuple[int, int, int]) -> None:
        """Count ``k`` steps done in compiled code (one step or a rollout's), each of
        ``per_step`` = (evaluations, factorisations, solves)."""
        ne, nf, ns = per_step
        self.nstep += k
        self.neval += k * ne
        self.nfactor += k * nf
        self.nsolve += k * ns

    def _workspace_at_first_use(self, name: str = "_ws"):
        """The dense workspace held in ``self.<name>``, made at its first use (a solver whose
        compiled step reads packed buffers keeps one for its dense views)."""
        if self.__dict__.get(name) is None:
            self.__dict__[name] = self.system.workspace()
        return self.__dict__[name]

    def _sparse_factors(self):
        """The ``SparseLU`` objects of the step (for the fallback counters); none by default."""
        return ()

    def _fallbacks(self) -> int:
        return sum(lu.nfallback for lu in self._sparse_factors() if lu is not None)

    @property
    def nfallback(self) -> int:
        return self._fallbacks() - self._nfallback0

    @property
    def last_fallback(self) -> int:
        rows = [lu.last_fallback for lu in self._sparse_factors() if lu is not None]
        return max(rows, default=-1) if self.nfallback else -1

    def phase_times_us(self) -> dict[str, float]:
        """Mean µs per step spent in each phase (needs ``instrument=True``)."""
        k = max(self.nstep, 1)
        return {p: 1e6 * s / k for p, s in self.timers.items()}

    # -- for subclasses ------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        pass

    def _step_impl(self, state: State, h: float):
        raise NotImplementedError

    def _tic(self):
        if self.instrument:
            self._t0 = time.perf_counter()

    def _toc(self, phase: str):
        if self.instrument:
            t1 = time.perf_counter()
            self.timers[phase] += t1 - self._t0
            self._t0 = t1

    def _evaluate(self, t, q, qd, what):
        self.system.evaluate(t, q, qd, self.ws, what)
        self.neval += 1


def _taking_redundant(init):
    """Wrap a subclass ``__init__`` so that it does not see ``redundant=`` (kept for the base)."""

    @functools.wraps(init)
    def __init__(self, *args, redundant=None, **options):
        if redundant is not None:
            self._redundant = redundant
        init(self, *args, **options)

    return __init__


def output_steps(state: State, t_end: float, h: float) -> tuple[float, int]:
    """(t0, number of output intervals) of an offline (``reference``) run from ``state`` to
    ``t_end`` with outputs every ``h``."""
    if not h > 0:
        raise SolverError(f"solver 'reference': output interval h must be > 0, got {h!r}")
    t0 = float(state.t)
    nsteps = int(round((t_end - t0) / h))
    if nsteps < 0:
        raise SolverError(f"solver 'reference': t_end = {t_end!r} is before the initial "
                          f"time {t0!r}")
    return t0, nsteps


class RunFailure(Exception):
    """An offline run stops at time ``t`` for the reason given (the reference solver's
    formulations and methods raise it; :meth:`message` is the result's message)."""

    def __init__(self, reason: str, t: float):
        self.t = t
        super().__init__(reason)

    def message(self, solver: str, t_last: float) -> str:
        return (f"reference solver ({solver}) failed at t = {self.t:.9g} s: {self}; results kept "
                f"up to t = {t_last:.9g} s")
