"""Ctrl-C (SIGINT) and SIGTERM in the ``rtmbs`` command: a prompt stop at any moment.

:func:`install` (called by ``rtmbs.cli.main``) makes both signals raise ``KeyboardInterrupt`` in
the main thread, where the commands catch it, write what they have and exit 130. Python runs a
signal handler only between bytecodes, so a signal that arrives during a long call into C
(loading a compiled library, a dense factorisation, a compile) would wait for its end. With
``watchdog=True`` (the command line) a thread woken by the signal itself (``set_wakeup_fd``)
covers that case:

* the main thread has not seen the signal within ``GRACE_S``: it is inside such a call, before
  any result exists (results are streamed between short compiled chunks of steps, which end
  within ``rtmbs.solvers.simulate.CHUNK_WALL_S``), so the process says so and exits 130 at once;
* results are being written (:func:`writing`, or one append of :func:`deferred`) for longer
  than ``NOTE_S``: it says ``rtmbs: writing results ...``;
* the main thread saw the signal but has neither ended nor started writing ``UNWIND_S`` later
  (``QUIET_UNWIND_S`` when no result file is open; e.g. a cluster that takes long to shut
  down): it exits 130;
* a second signal while the first is handled: it exits 130 at once, naming the files left open.

Files being written are closed cleanly: :func:`deferred` holds a signal until the end of a
block (one append to a file), :func:`writing` until the results are written.
"""
from __future__ import annotations

import contextlib
import os
import signal
import socket
import sys
import threading
import time

#: A main thread that has not run the handler this long after the signal is inside a C call.
GRACE_S = 0.25
#: Writing that lasts longer than this after a signal is announced ("writing results ...").
NOTE_S = 1.0
#: After the main thread saw the signal: longest unwinding (not writing) before a forced exit.
UNWIND_S = 1.5
#: The same when no result file is open and the command gave no limit (:func:`unwinding`):
#: nothing is left to write, only to leave. (0.3 s was too short for an interpreter interrupted
#: while setting up on a loaded machine: the exit was forced, with "did not stop in time".)
QUIET_UNWIND_S = 0.8
#: Exit status of an interrupted command (128 + SIGINT, as a shell reports Ctrl-C).
EXIT_INTERRUPTED = 130


class _State:
    """The process' interrupt state (one; the handlers run in the main thread)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.signals = 0            # signals received (counted by the watchdog or the handler)
        self.t_signal = None        # monotonic time of the first
        self.seen = None            # monotonic time the main thread's handler ran
        self.hold = 0               # depth of deferred() / writing() blocks
        self.pending = False        # a signal held by deferred(), raised at the block's end
        self.writing = None         # what writing() is writing (a description), else None
        self.t_writing = None
        self.t_written = None       # when the last writing() block ended
        self.open_files: dict = {}  # path -> description of what it holds so far (streams)
        self.unwind_s = UNWIND_S    # see unwinding()
        self.note = ""              # what a forced exit says of the results (unwinding())
        self.writes_after = None    # what the command writes once interrupted (results_follow())
        self.appending = None       # what a deferred() block appends to a result file
        self.broken_files = False   # a result file whose writes failed is held open (io.stream)
        self.lost = False           # the KeyboardInterrupt was dropped in a callback from C


STATE = _State()


def _handler(signum, frame):
    """The Python-level handler of SIGINT and SIGTERM (main thread): KeyboardInterrupt, unless
    a file is being written (then at the end of that block, or not at all while writing the
    results, which the command is already doing)."""
    now = time.monotonic()
    if STATE.t_signal is None:
        STATE.t_signal = now
    if STATE.seen is None:
        STATE.seen = now
    if STATE.hold:
        STATE.pending = True
        return
    raise KeyboardInterrupt


@contextlib.contextmanager
def deferred(what: str = "the rows of the last steps"):
    """A signal that arrives inside the block is raised (``KeyboardInterrupt``) at its end: one
    append to a result file is never cut in half. For the watchdog the block is writing
    (``what``): a flush slowed by the disk is waited for, not cut short, and the time left to
    unwind counts from its end."""
    STATE.hold += 1
    outer, STATE.appending = STATE.appending, what
    try:
        yield
    finally:
        STATE.hold -= 1
        STATE.appending = outer
        if outer is None:
            STATE.t_written = time.monotonic()
    if STATE.pending and not STATE.hold and STATE.writing is None:
        STATE.pending = False
        raise KeyboardInterrupt


@contextlib.contextmanager
def writing(what: str = "results"):
    """The results are being written: signals wait (the command is already writing what it has
    and will exit after), and a write that outlasts ``NOTE_S`` after a signal is announced."""
    outer = STATE.writing
    STATE.writing, STATE.t_writing = what, STATE.t_writing or time.monotonic()
    STATE.hold += 1
    try:
        yield
    finally:
        STATE.hold -= 1
        STATE.writing = outer
        if outer is None:
            STATE.t_writing = None
            STATE.t_written = time.monotonic()
            STATE.pending = False


@contextlib.contextmanager
def unwinding(note: str, limit_s: float = 0.3):
    """Inside the block, a command interrupted has nothing to write and only unwinds (e.g. a
    Dask cluster shutting down, whose worker processes end with this one): it is ended
    ``limit_s`` after the signal was seen, saying ``note``."""
    old = STATE.unwind_s, STATE.note
    STATE.unwind_s, STATE.note = limit_s, note
    try:
        yield
    finally:
        STATE.unwind_s, STATE.note = old


@contextlib.contextmanager
def results_follow(what: str = "results"):
    """Inside the block, the code catches ``KeyboardInterrupt`` and then writes ``what`` (e.g.
    ``rtmbs realtime``'s report and result files): once a signal is seen, the process is taken
    as writing (announced after ``NOTE_S``, never cut short)."""
    old = STATE.writes_after
    STATE.writes_after = what
    try:
        yield
    finally:
        STATE.writes_after = old
        STATE.t_written = time.monotonic()


def interrupted() -> bool:
    """A signal was received during this command (it may still be held)."""
    return STATE.signals > 0 or STATE.seen is not None


def _say(text: str) -> None:
    try:
        os.write(2, (text + "\n").encode())
    except OSError:
        pass


def _end_children() -> None:
    """Kill the worker processes this one started (a Dask LocalCluster's): ended with their
    parent, they would print the tracebacks of their lost connections."""
    mp = sys.modules.get("multiprocessing")
    if mp is None:
        return
    try:
        for child in mp.active_children():
            os.kill(child.pid, signal.SIGKILL)
    except Exception:  # noqa: BLE001 (the exit goes on)
        pass


def _force_exit(reason: str) -> None:
    _end_children()
    files = ", ".join(f"{p} ({d})" for p, d in STATE.open_files.items())
    extra = f"; left open, valid up to their last write: {files}" if files else ""
    _say(f"rtmbs: {STATE.note}{extra}" if STATE.note and not reason.startswith("a second")
         else f"rtmbs: interrupted ({reason}){extra}")
    os._exit(EXIT_INTERRUPTED)


def _watch(sock: socket.socket) -> None:
    """The watchdog thread (module docstring)."""
    while True:
        try:
            data = sock.recv(64)
        except OSError:
            return
        if not data:
            return
        now = time.monotonic()
        STATE.signals += len(data)
        if STATE.t_signal is None:
            STATE.t_signal = now
        if STATE.signals > 1 and STATE.seen is not None:
            _force_exit("a second signal")
        if STATE.signals == len(data):  # the first signal(s): watch the main thread
            threading.Thread(target=_follow, daemon=True, name="rtmbs-interrupt-follow").start()


def _follow() -> None:
    t0 = STATE.t_signal
    while STATE.seen is None:
        if time.monotonic() - t0 > GRACE_S:
            if STATE.writing is None and not STATE.open_files:
                _force_exit("stopped while setting up")
            if time.monotonic() - t0 > UNWIND_S:  # a step chunk longer than expected
                _force_exit("the run did not stop in time")
        time.sleep(0.01)
    noted = False
    while True:
        time.sleep(0.02)
        now = time.monotonic()
        what = STATE.writing or STATE.appending or STATE.writes_after
        if STATE.lost and STATE.writing is None and not STATE.open_files:
            _force_exit("stopped while setting up")  # the main thread will not see it
        if what is not None:
            if not noted and now - STATE.seen > NOTE_S:
                _say(f"rtmbs: writing {what} ...")
                noted = True
        elif now - max(STATE.seen, STATE.t_written or 0.0) > (
                STATE.unwind_s if STATE.open_files or STATE.note else QUIET_UNWIND_S):
            _force_exit("the command did not stop in time")


def _unraisable(hook):
    """``sys.unraisablehook`` that drops a ``KeyboardInterrupt`` raised where Python cannot
    propagate it (a callback from C, e.g. llvmlite's while numba compiles: Python printed it as
    "Exception ignored ... Traceback"); the watchdog then ends the process, as for a long C call."""

    def unraisable(args):
        if isinstance(args.exc_value, KeyboardInterrupt) or (
                isinstance(args.exc_type, type) and issubclass(args.exc_type, KeyboardInterrupt)):
            STATE.lost = True
            return
        hook(args)

    return unraisable


class _Installed:
    def __init__(self, old, wakeup_old, sock_pair):
        self.old, self.wakeup_old, self.sock_pair = old, wakeup_old, sock_pair
        self.hook = sys.unraisablehook
        sys.unraisablehook = _unraisable(self.hook)

    def restore(self):
        sys.unraisablehook = self.hook
        for sig, handler in self.old.items():
            signal.signal(sig, handler)
        if self.sock_pair is not None:
            signal.set_wakeup_fd(self.wakeup_old)
            for s in self.sock_pair:
                s.close()


def install(watchdog: bool = False) -> _Installed | None:
    """Make SIGINT and SIGTERM raise ``KeyboardInterrupt`` in the main thread (and, with
    ``watchdog``, start the watchdog thread: for the command line, whose process ends with the
    command); returns what :meth:`restore` undoes, or None outside the main thread."""
    if threading.current_thread() is not threading.main_thread():
        return None
    STATE.reset()
    old = {}
    for sig in (signal.SIGINT, signal.SIGTERM):
        old[sig] = signal.signal(sig, _handler)
    pair, wakeup_old = None, -1
    if watchdog:
        pair = socket.socketpair()
        pair[1].setblocking(False)
        wakeup_old = signal.set_wakeup_fd(pair[1].fileno(), warn_on_full_buffer=False)
        threading.Thread(target=_watch, args=(pair[0],), daemon=True,
                         name="rtmbs-interrupt-watchdog").start()
    return _Installed(old, wakeup_old, pair)


def exit_now(code: int) -> None:
    """End the command-line process with ``code`` at once after an interrupt (its results are
    written and closed): the interpreter's teardown (compiled libraries, thread pools) is
    skipped, so the exit follows the results."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except (OSError, ValueError):
            pass
    os._exit(code)
