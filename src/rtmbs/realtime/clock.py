"""The clocks the real-time loop reads: the machine's, or a simulated one for tests and dry runs.

``run_realtime(clock=...)`` takes any object with ``perf_ns()`` (a monotonic wall clock, ns),
``cpu_ns()`` (the process's CPU time, ns) and ``sleep(seconds)``. The loop reads time only
through it, so its pacing and deadline policies can be checked without sleeping.
"""
from __future__ import annotations

import time


class SystemClock:
    """The machine's clocks: ``time.perf_counter_ns``, ``time.process_time_ns``, ``time.sleep``."""

    perf_ns = staticmethod(time.perf_counter_ns)
    cpu_ns = staticmethod(time.process_time_ns)
    sleep = staticmethod(time.sleep)


class SimulatedClock:
    """A clock that moves only when asked: ``sleep(s)`` and ``advance(s)`` move it by ``s``, and
    every reading of ``perf_ns()`` moves it by ``read_ns`` (so a busy-wait ends). CPU time moves
    with it. ``advance`` is how a test gives a step its cost (e.g. from a wrapped solver step)."""

    def __init__(self, start_ns: int = 0, read_ns: int = 100):
        self.now_ns = int(start_ns)
        self.read_ns = int(read_ns)
        self.slept_ns = 0

    def perf_ns(self) -> int:
        self.now_ns += self.read_ns
        return self.now_ns

    def cpu_ns(self) -> int:
        return self.now_ns

    def sleep(self, seconds: float) -> None:
        ns = max(int(seconds * 1e9), 0)
        self.slept_ns += ns
        self.now_ns += ns

    def advance(self, seconds: float) -> None:
        self.now_ns += int(round(seconds * 1e9))
