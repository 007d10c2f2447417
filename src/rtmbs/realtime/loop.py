"""The paced real-time loop: one solver step per tick of a wall clock.

Step ``k`` (from ``t_k`` to ``t_k + h``) starts on the absolute tick ``t0 + k·h`` of the clock
(``time.perf_counter_ns``, or the one given: :mod:`.clock`; no accumulated sleeps: the schedule
cannot drift). The loop sleeps
until ``SPIN_NS`` before the tick and busy-waits the rest (``busy_wait=True``: the whole period,
never sleeping, as a HIL loop on an isolated core does: the core keeps the model's data in its
caches and never idles), then reads the inputs, steps, and publishes the outputs (the step and
the outputs at its end in one compiled call where the solver has it: ``Solver.step_outputs``). Every step's turnaround time (its compute time, Carpinelli 2015 §3.1) and the
lateness of its start are written by index into preallocated arrays; statistics come at the end.
Python's garbage collector is frozen and disabled during the run and restored after.

A step *overruns* when it finishes after the next tick (``start lateness + turnaround > h``).
The process CPU time of each step's turnaround is recorded too, and the report splits the
overruns into *step overruns* (the step's CPU time alone > h) and *OS overruns* (late start or
preemption; ``stats.split_overruns``). What happens on an overrun is the deadline policy:

``warn``
    count and continue; the schedule slips (the next step starts at once and the ticks are
    re-anchored there), so simulated time lags wall time by the accumulated ``slip_us``.
``catch-up``
    count; the ticks are kept, so the steps whose tick is already a whole period or more in the
    past (``lateness >= h``) run at once, without sleeping and without publishing their outputs
    (``catchup_steps``), until the simulation is back on the wall clock.
``degrade``
    count, slip as ``warn``, and switch to a cheaper step until the turnaround meets the budget
    (default ``h``) for ``recover_after`` consecutive steps. The cheaper step is, in this order:
    ``solver.set_degraded(True)`` when the solver has it (e.g. reuse the last factorisation, force
    Jacobian); else ``degraded_solver`` (a one-step solver stepping the same state) when given;
    else the loop drops its own work: no output evaluation nor publishing while degraded.
``stop``
    stop at the first overrun; the results up to and including that step are kept.
"""
from __future__ import annotations

import gc
import math
import os
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ..errors import SolverError, did_you_mean
from ..protocol import EVAL_PHI, EVAL_PHIQ, MechanicalSystem, State
from ..result import Result
from ..solvers.base import Solver, get_solver, time_after
from ..solvers.simulate import RESULT_MEMORY_SHARE, _memory_bytes
from .clock import SystemClock
from .iobase import RealtimeIO
from .stats import save_histogram, save_summary, split_overruns, summary_markdown, timing_summary

POLICIES = ("warn", "catch-up", "degrade", "stop")

#: Sleep with the OS until this long before a tick, then busy-wait (ns).
SPIN_NS = 200_000
#: ``prewarm``: the shadow step starts this long plus 1.5 times its usual duration before a
#: tick (ns)
PREWARM_MARGIN_NS = 20_000
#: where the published outputs are taken (``run_realtime(outputs_at=...)``)
OUTPUTS_AT = ("end", "start")
#: A state with a coordinate or velocity beyond this is taken as diverged (as in ``simulate``).
DIVERGENCE_LIMIT = 1e8

# bits of RealtimeReport.flags
FLAG_OVERRUN = 1
FLAG_CATCHUP = 2
FLAG_DEGRADED = 4


def _diverged(q, qd, limit):
    """True when a coordinate or velocity is non-finite or beyond ``limit`` (a NaN maximum
    compares false). Bookkeeping after the step, outside the measured turnaround."""
    return not (np.abs(q).max(initial=0.0) < limit and np.abs(qd).max(initial=0.0) < limit)


@dataclass
class RealtimeReport:
    """Outcome of :func:`run_realtime`.

    ``turnaround_ns``, ``lateness_ns``, ``cpu_ns`` (process CPU time of the turnaround) and
    ``flags`` (bits ``FLAG_*``) have one entry per step taken; ``result`` holds the trajectory
    (when ``record``); counters as in the module doc.
    """

    model: str
    solver: str
    policy: str
    h: float
    steps: int
    turnaround_ns: np.ndarray
    lateness_ns: np.ndarray
    flags: np.ndarray
    overruns: int = 0
    catchup_steps: int = 0
    degrade_entries: int = 0
    degraded_steps: int = 0
    degrade_mode: str = ""
    stopped_early: bool = False
    slip_ns: int = 0
    wall_ns: int = 0
    #: 1 finished, 0 finished with a warning (e.g. every input packet refused: ``io.problem()``),
    #: 2 interrupted (Ctrl-C/SIGTERM; the steps done are kept), -1 diverged
    status: int = 1
    message: str = "finished"
    result: Result | None = None
    io_stats: dict = field(default_factory=dict)
    sched: str = "default"
    #: ``prewarm``: shadow steps taken before ticks, and skipped for a late start
    prewarm_steps: int = 0
    prewarm_skipped: int = 0
    cpu_ns: np.ndarray | None = None
    #: where the published outputs were taken: "end" (t + h) or "start" (t) of each step
    outputs_at: str = "end"

    def overrun_split(self) -> dict[str, int]:
        """The overrun steps split into step and OS overruns (``stats.split_overruns``)."""
        cpu = self.cpu_ns if self.cpu_ns is not None else np.zeros_like(self.turnaround_ns)
        k = (self.flags & FLAG_OVERRUN) > 0
        return split_overruns(self.turnaround_ns[k], self.lateness_ns[k], cpu[k], self.h)

    @property
    def realtime_factor(self) -> float:
        """Simulated time over wall time (1 when the run kept pace, < 1 when it slipped)."""
        return self.steps * self.h * 1e9 / self.wall_ns if self.wall_ns else float("nan")

    def summary(self) -> dict:
        s = dict(model=self.model, solver=self.solver, policy=self.policy, h=self.h,
                 steps=self.steps, overruns=self.overruns, catchup_steps=self.catchup_steps,
                 degrade_entries=self.degrade_entries, degraded_steps=self.degraded_steps,
                 degrade_mode=self.degrade_mode, stopped_early=self.stopped_early,
                 slip_us=self.slip_ns * 1e-3, wall_s=self.wall_ns * 1e-9,
                 realtime_factor=self.realtime_factor, status=self.status, message=self.message,
                 sched=self.sched, outputs_at=self.outputs_at, prewarm_steps=self.prewarm_steps,
                 prewarm_skipped=self.prewarm_skipped)
        split = self.overrun_split()
        s.update({k: split[k] for k in ("step_overruns", "os_overruns", "os_overruns_late_start",
                                        "os_overruns_preempted")})
        s.update(timing_summary(self.turnaround_ns, "turnaround_us"))
        if self.cpu_ns is not None:
            s.update(timing_summary(self.cpu_ns, "step_cpu_us"))
        s.update(timing_summary(self.lateness_ns, "lateness_us"))
        s["budget_used_p50"] = s["turnaround_us_p50"] * 1e-6 / self.h
        s["io"] = dict(self.io_stats)
        return s

    def markdown(self) -> str:
        return summary_markdown(self.summary())

    def save(self, out_dir) -> dict[str, Path]:
        """Write ``summary.json``, ``summary.md``, ``turnaround.png`` and ``timings.npz``."""
        out_dir = Path(out_dir)
        paths = save_summary(self.summary(), out_dir)
        paths["histogram"] = save_histogram(
            self.turnaround_ns, self.h, out_dir / "turnaround.png", self.flags,
            title=f"{self.model} / {self.solver}: task execution time (policy {self.policy})",
            lateness_ns=self.lateness_ns)
        paths["timings"] = out_dir / "timings.npz"
        np.savez(paths["timings"], turnaround_ns=self.turnaround_ns,
                 lateness_ns=self.lateness_ns, flags=self.flags,
                 cpu_ns=self.cpu_ns if self.cpu_ns is not None else np.zeros(0, np.int64))
        return paths


class _Shadow:
    """``prewarm``: a second data object of the model (``system.new_data()``) with a solver of
    the same kind and options on it. Just before each tick it takes one step (with the outputs)
    from a copy of the real state, so that the real step finds its code, its branch history and
    the model's arrays in the core's caches, as a step called back to back does. The real data
    are only read (the copy); the shadow's results are thrown away. The step is started
    ``lead_ns`` before the tick: 1.5 times the smoothed duration of the shadow steps so far plus
    ``PREWARM_MARGIN_NS``, at most half a period (a sleeping loop wakes that much before the
    tick plus ``SPIN_NS``); when less than that is left (a late start) it is skipped
    (``skipped``)."""

    def __init__(self, system, slv, state, h, at_start, clock):
        self.perf = clock.perf_ns
        if not hasattr(system, "new_data"):
            raise SolverError(f"prewarm needs a model with its own data objects (a compiled "
                              f"Cartesian model); '{system.name}' has none")
        self.system = system.new_data()
        self.solver = type(slv)(self.system, **slv.options)
        self.state = state.copy()
        self.solver.reset(self.state)
        self.out = np.zeros(len(system.output_names))
        self.h, self.at_start = h, at_start
        self.h_ns = int(round(h * 1e9))
        self.took_ns = 0.0
        self.lead_ns = self.h_ns // 2
        self.steps = self.skipped = 0
        self._run(state)  # (compiles the shadow's step; its first duration sets the lead)

    def warm(self, state, tick, perf) -> None:
        """The shadow step ``lead_ns`` before ``tick`` (busy-waiting until then)."""
        start = tick - self.lead_ns
        if perf() > start:
            self.skipped += 1
            return
        while perf() < start:
            pass
        self._run(state)
        self.steps += 1

    def _run(self, state) -> None:
        c0 = self.perf()
        st = self.state
        st.q[:] = state.q
        st.qd[:] = state.qd
        st.t = state.t
        if st.x is not None and st.x.size:
            st.x[:] = state.x
        self.solver.step_outputs(st, self.h, self.out, self.at_start)
        took = self.perf() - c0
        self.took_ns = took if self.took_ns == 0.0 else 0.9 * self.took_ns + 0.1 * took
        self.lead_ns = min(int(1.5 * self.took_ns) + PREWARM_MARGIN_NS, self.h_ns // 2)


def _make_solver(system, solver, options) -> Solver:
    if isinstance(solver, Solver):
        return solver
    cls = get_solver(solver)
    if cls.offline:
        raise SolverError(f"solver '{cls.name}' is an offline adaptive solver; the real-time loop "
                          "needs a fixed-step solver")
    return cls(system, **options)


def run_realtime(
    system: MechanicalSystem,
    solver="li-euler",
    h: float = 1e-3,
    duration: float = 1.0,
    policy: str = "warn",
    io: RealtimeIO | None = None,
    state: State | None = None,
    record: bool = True,
    recover_after: int = 50,
    budget: float | None = None,
    degraded_solver=None,
    warmup: bool = True,
    priority: int | None = None,
    out=None,
    busy_wait: bool = False,
    outputs_at: str = "end",
    prewarm: bool = False,
    clock=None,
    **options,
) -> RealtimeReport:
    """Run ``system`` paced on the wall clock for ``duration`` s of simulated time.

    ``solver`` is a name, a ``Solver`` subclass or instance (as for ``simulate``); ``policy`` is
    one of ``POLICIES`` (module doc); ``io`` a :class:`RealtimeIO` (e.g. ``UdpIO``);
    ``record`` keeps the trajectory in ``report.result``; ``budget`` (s, default ``h``) is the
    turnaround that ends degraded mode after ``recover_after`` consecutive steps; ``warmup``
    takes one step on a copy of the state first (first-call set-up) and resets the solver;
    ``priority`` (1-99) runs the loop under the ``SCHED_FIFO`` real-time scheduler (Linux, needs
    root or CAP_SYS_NICE; refused -> noted in ``report.sched``, the run goes on); ``out`` writes the
    report files there; ``busy_wait`` spins through the whole period instead of sleeping until
    ``SPIN_NS`` before the tick (module doc). ``outputs_at``: ``"end"`` publishes after each step
    the outputs at its end (t_k+1), ``"start"`` those at its start (t_k, with the inputs just
    read: one step older, as MuJoCo's ``sensordata`` after ``mj_step``, and free on the compiled
    step, which gathers them from its own evaluation; ``Solver.step_outputs``). ``prewarm``
    takes, just before each tick, one step of a second solver on a second data object of the
    model from a copy of the state (:class:`_Shadow`; results thrown away): the real step then
    runs with warm caches, as back to back; it costs a second step of CPU per period, so it is
    for a core of its own (with ``busy_wait``). The trajectory is the one ``simulate`` gives for
    the same inputs (same steps, same ``t_k = t_0 + k·h``), with or without ``prewarm``.
    ``clock`` (default :class:`~rtmbs.realtime.clock.SystemClock`) is every time the loop reads
    and every sleep it takes; a :class:`~rtmbs.realtime.clock.SimulatedClock` runs the loop's
    logic without waiting.
    """
    if policy not in POLICIES:
        raise SolverError(f"unknown deadline policy '{policy}'" + did_you_mean(policy, POLICIES))
    if outputs_at not in OUTPUTS_AT:
        raise SolverError(f"outputs_at = {outputs_at!r}: expected one of {', '.join(OUTPUTS_AT)}")
    at_start = outputs_at == "start"
    if not (isinstance(h, (int, float)) and math.isfinite(h) and h > 0):
        raise SolverError(f"step size h must be a finite number > 0 s, got {h!r}")
    if not (isinstance(duration, (int, float)) and math.isfinite(duration) and duration >= 0):
        raise SolverError(f"duration must be a finite number >= 0 s, got {duration!r}")
    nsteps = int(round(duration / h))
    if duration > 0 and nsteps < 1:
        raise SolverError(f"duration = {duration:g} s is less than one step (h = {h:g} s): "
                          "nothing to run (duration 0 runs no step on purpose)")
    width = 17 + (8 * (2 * system.n + system.m + len(system.output_names) + 1) if record else 0)
    if nsteps * width > RESULT_MEMORY_SHARE * _memory_bytes():
        raise SolverError(f"{nsteps} steps need {nsteps * width / 2 ** 30:.3g} GiB of records, more "
                          "than half of this machine's memory: a shorter duration or a longer h")
    if priority is not None and not (isinstance(priority, (int, np.integer))
                                     and not isinstance(priority, bool) and 1 <= priority <= 99):
        raise SolverError(f"priority {priority!r}: expected a SCHED_FIFO priority, a whole "
                          "number from 1 to 99")
    slv = _make_solver(system, solver, options)
    clock = clock if clock is not None else SystemClock()
    state = (state or system.initial_state()).copy()
    h_ns = int(round(h * 1e9))
    budget_ns = int(round((budget if budget is not None else h) * 1e9))
    n, m = system.n, system.m
    out_names = list(system.output_names)
    nout = len(out_names)
    out_buf = np.zeros(nout)

    # -- preallocated per-step records ----------------------------------------------------
    turn = np.zeros(nsteps, np.int64)
    late = np.zeros(nsteps, np.int64)
    cpu_arr = np.zeros(nsteps, np.int64)
    flags = np.zeros(nsteps, np.uint8)
    nrec = nsteps + 1 if record else 1
    t_arr = np.zeros(nrec)
    q_arr = np.zeros((nrec, n))
    qd_arr = np.zeros((nrec, n))
    lam_arr = np.zeros((nrec, m))
    o_arr = np.zeros((nrec, nout))

    # -- degraded mode ----------------------------------------------------------------------
    set_degraded = getattr(slv, "set_degraded", None)
    dslv = None
    if set_degraded is not None:
        degrade_mode = "solver.set_degraded"
    elif degraded_solver is not None:
        dslv = _make_solver(system, degraded_solver, {})
        degrade_mode = f"degraded_solver '{dslv.name}'"
    else:
        degrade_mode = "skip outputs"
    if policy != "degrade":
        degrade_mode = ""

    if warmup:
        w = state.copy()
        slv.reset(w)
        slv.step(w, h)
        if nout:
            slv.step_outputs(w, h, out_buf)
        if dslv is not None:
            dslv.reset(w)
            dslv.step(w, h)
        if nout:
            system.outputs(w.t, w.q, w.qd, out_buf)
    slv.reset(state)
    shadow = _Shadow(system, slv, state, h, at_start, clock) if prewarm else None
    if io is not None:
        io.open(system)
    if nout:
        system.outputs(state.t, state.q, state.qd, out_buf)
    t_arr[0] = state.t
    q_arr[0] = state.q
    qd_arr[0] = state.qd
    o_arr[0] = out_buf

    catchup = policy == "catch-up"
    degrade = policy == "degrade"
    stop = policy == "stop"
    slip_on_overrun = policy in ("warn", "degrade")
    t_start = state.t
    q, qd = state.q, state.qd
    step = slv.step
    step_out = slv.step_outputs  # the step and the outputs at its end (one compiled call if it can)
    outputs = system.outputs
    read = io.read_inputs if io is not None else None
    write = io.write_outputs if io is not None else None
    perf = clock.perf_ns
    cpu = clock.cpu_ns
    sleep = clock.sleep
    spin_ns = h_ns + 1 if busy_wait else SPIN_NS
    diverged = _diverged
    LIMIT = DIVERGENCE_LIMIT

    overruns = ncatch = nentries = ndegraded = good = 0
    degraded = False
    publish_outputs = True
    row_pending = False  # outputs_at="start": the last recorded row's outputs come next step
    slip = 0
    status, message = 1, "finished"
    stopped = False
    k_done = k_rec = 0
    end = 0

    sched, old_sched = "default", None
    if priority is not None:
        try:
            old_sched = (os.sched_getscheduler(0), os.sched_getparam(0))
            os.sched_setscheduler(0, os.SCHED_FIFO, os.sched_param(int(priority)))
            sched = f"SCHED_FIFO {int(priority)}"
        except (AttributeError, OSError, ValueError) as exc:
            old_sched = None
            sched = f"default (SCHED_FIFO {priority} refused: {exc})"
    if busy_wait:
        sched += ", busy-wait"
    if prewarm:
        sched += ", prewarm"

    gc_was_enabled = gc.isenabled()
    gc.collect()
    gc.freeze()
    gc.disable()
    try:
        t0 = perf() + max(h_ns, 1_000_000)
        anchor, k_anchor = t0, 0
        tick = t0
        for k in range(nsteps):
            tick = anchor + (k - k_anchor) * h_ns
            rem = tick - perf()
            # (with prewarm, wake early enough for the shadow step too)
            wake = spin_ns if shadow is None else max(spin_ns, shadow.lead_ns + SPIN_NS)
            if rem > wake:
                sleep((rem - wake) * 1e-9)
            if shadow is not None:
                shadow.warm(state, tick, perf)
            while perf() < tick:
                pass
            start = perf()
            c0 = cpu()
            lateness = start - tick
            behind = catchup and lateness >= h_ns
            # -- the step ----------------------------------------------------------------
            if read is not None:
                read(system, state.t)
            published = nout and not behind and publish_outputs
            if published:
                ok = step_out(state, h, out_buf, at_start)
            else:
                ok = step(state, h)
            state.t = time_after(t_start, h, k + 1)
            if not behind and publish_outputs and write is not None:
                write(t_start + (k + (not at_start)) * h, out_buf)
            c1 = cpu()
            end = perf()
            # -- bookkeeping (not part of the turnaround) ----------------------------------
            turn[k] = end - start
            late[k] = lateness
            cpu_arr[k] = c1 - c0
            k_done = k + 1
            if not ok or diverged(q, qd, LIMIT):
                status = -1
                message = (f"simulation diverged at t = {state.t:.6g} s (step {k + 1} of {nsteps}, "
                           f"solver '{slv.name}', h = {h:g} s)")
                break
            if record:
                t_arr[k + 1] = state.t
                q_arr[k + 1] = q
                qd_arr[k + 1] = qd
                slv.full_multipliers(lam_arr[k + 1])
                if published and at_start:  # (the outputs of row k; row k + 1 at the next step)
                    o_arr[k] = out_buf
                    row_pending = True
                else:
                    if row_pending:  # row k was left for this step, which did not publish
                        outputs(t_arr[k], q_arr[k], qd_arr[k], out_buf)
                        o_arr[k] = out_buf
                        row_pending = False
                    if nout and (behind or not publish_outputs):
                        outputs(state.t, q, qd, out_buf)
                    o_arr[k + 1] = out_buf
            k_rec = k + 1
            fl = 0
            if behind:
                ncatch += 1
                fl = FLAG_CATCHUP
            elif end > tick + h_ns:
                overruns += 1
                fl = FLAG_OVERRUN
                if stop:
                    stopped = True
                    flags[k] = fl
                    message = (f"stopped at the first overrun: step {k + 1} of {nsteps} finished "
                               f"{(end - tick - h_ns) * 1e-3:.0f} µs after its deadline")
                    break
                if slip_on_overrun:
                    slip += end - (tick + h_ns)
                    anchor, k_anchor = end, k + 1
            if degraded:
                fl |= FLAG_DEGRADED
                ndegraded += 1
            flags[k] = fl
            if degrade:
                if fl & FLAG_OVERRUN:
                    good = 0
                    if not degraded:
                        degraded = True
                        nentries += 1
                        if set_degraded is not None:
                            set_degraded(True)
                        elif dslv is not None:
                            dslv.reset(state)
                            step, step_out = dslv.step, dslv.step_outputs
                        else:
                            publish_outputs = False
                elif degraded:
                    good = good + 1 if end - start <= budget_ns else 0
                    if good >= recover_after:
                        degraded = False
                        good = 0
                        if set_degraded is not None:
                            set_degraded(False)
                        elif dslv is not None:
                            step, step_out = slv.step, slv.step_outputs
                        else:
                            publish_outputs = True
    except KeyboardInterrupt:  # Ctrl-C / SIGTERM: keep the steps done so far
        status = 2
        message = (f"interrupted after step {k_done} of {nsteps} "
                   f"(t = {t_start + k_done * h:.6g} s)")
    finally:
        if old_sched is not None:
            os.sched_setscheduler(0, old_sched[0], old_sched[1])
        if gc_was_enabled:
            gc.enable()
        gc.unfreeze()
        if degraded and set_degraded is not None:
            set_degraded(False)
        if io is not None:
            io.close()
    wall = max(end, tick + h_ns) - t0 if k_done else 0
    note = io.problem() if hasattr(io, "problem") else ""
    if status == 1 and note:  # e.g. every input packet refused as late
        status = 0
        message = f"{message} with a warning: {note}"

    res = None
    if record:
        # on divergence the last (bad) state is not kept; on an interrupt, the recorded ones
        kr = k_rec + 1 if status != -1 else k_done
        if at_start and nout and k_rec and status != -1:  # the last row's outputs (not published)
            system.outputs(t_arr[k_rec], q_arr[k_rec], qd_arr[k_rec], out_buf)
            o_arr[k_rec] = out_buf
        res = Result(
            t=t_arr[:kr].copy(), q=q_arr[:kr].copy(), qd=qd_arr[:kr].copy(),
            lam=lam_arr[:kr].copy(), phi_norm=np.zeros(kr), phid_norm=np.zeros(kr),
            outputs={nm: o_arr[:kr, j].copy() for j, nm in enumerate(out_names)},
            coordinate_names=list(getattr(system, "coordinate_names", [])),
            meta=dict(model=system.name, solver=slv.name, h=h, steps=k_done, status=status,
                      message=message, realtime=True, policy=policy),
        )
        if m:
            ws = system.workspace()
            for i in range(kr):
                system.evaluate(res.t[i], res.q[i], res.qd[i], ws, EVAL_PHI | EVAL_PHIQ)
                res.phi_norm[i] = np.linalg.norm(ws.phi)
                res.phid_norm[i] = np.linalg.norm(ws.phiq @ res.qd[i] + ws.phit)
    rep = RealtimeReport(
        model=system.name, solver=slv.name, policy=policy, h=h, steps=k_done,
        turnaround_ns=turn[:k_done].copy(), lateness_ns=late[:k_done].copy(),
        flags=flags[:k_done].copy(), cpu_ns=cpu_arr[:k_done].copy(), overruns=overruns,
        catchup_steps=ncatch,
        degrade_entries=nentries, degraded_steps=ndegraded, degrade_mode=degrade_mode,
        stopped_early=stopped, slip_ns=slip, wall_ns=wall, status=status, message=message,
        result=res, io_stats=io.stats() if io is not None else {}, sched=sched,
        outputs_at=outputs_at,
        prewarm_steps=shadow.steps if shadow is not None else 0,
        prewarm_skipped=shadow.skipped if shadow is not None else 0,
    )
    if out is not None:
        rep.save(out)
    return rep
