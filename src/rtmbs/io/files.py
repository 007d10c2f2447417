"""Result files of a run: the output folder (checked before the run) and the files written."""
from __future__ import annotations

import contextlib
import signal
import tempfile
from pathlib import Path

from ..errors import OutputError


def writable_dir(path) -> Path:
    """``path`` as an existing folder this process can write into (created if needed), or an
    :class:`~rtmbs.errors.OutputError` naming it and the cause: checked before a run, so that
    nothing computed is lost for want of a place to put it."""
    out = Path(path)
    try:
        out.mkdir(parents=True, exist_ok=True)
        with tempfile.TemporaryFile(dir=out):
            pass
    except FileExistsError:
        raise OutputError(f"output folder '{out}': a file of that name exists") from None
    except OSError as exc:
        raise OutputError(f"output folder '{out}': cannot write there "
                          f"({exc.strerror or exc})") from None
    return out


def writable_file(path) -> Path:
    """``path`` as a file this process can create (its folder made if needed), or an
    :class:`~rtmbs.errors.OutputError` naming it and the cause; checked before the work."""
    out = Path(path)
    if out.is_dir():
        raise OutputError(f"output file '{out}': is a folder, expected a file name")
    try:
        writable_dir(out.parent if str(out.parent) else ".")
    except OutputError as exc:
        raise OutputError(f"output file '{out}': cannot write its folder ({exc})") from None
    return out


@contextlib.contextmanager
def signals_held():
    """Ctrl-C (SIGINT) and SIGTERM wait while result files are written, so that they are closed
    cleanly (:func:`rtmbs.io.interrupts.writing`: under the ``rtmbs`` command, a write that
    outlasts a second after a signal is announced); outside the command (no handler of
    rtmbs installed) the signals are ignored meanwhile. A no-op outside the main thread."""
    from . import interrupts

    old = {}
    try:
        for sig in (signal.SIGINT, signal.SIGTERM):
            if signal.getsignal(sig) is not interrupts._handler:
                old[sig] = signal.signal(sig, signal.SIG_IGN)
    except ValueError:  # not the main thread
        pass
    try:
        with interrupts.writing("results"):
            yield
    finally:
        for sig, handler in old.items():
            signal.signal(sig, handler)


def save_result(result, out, mdf: bool = False, system=None) -> list[Path]:
    """Write ``result.h5`` and ``result.csv`` (and ``result.mf4`` with ``mdf``) into the folder
    ``out``; returns the paths. With the ``system`` that made it, the files also carry the units
    of its signals and the geometry ``rtmbs view`` draws (:func:`rtmbs.io.meta.attach`)."""
    out = writable_dir(out)
    if system is not None:
        from .meta import attach

        attach(result, system)
    files = [result.save_hdf5(out / "result.h5"), result.save_csv(out / "result.csv")]
    if mdf:
        from .mdf import save_mdf

        files.append(save_mdf(result, out / "result.mf4"))
    return files
