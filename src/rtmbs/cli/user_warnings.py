"""How the ``rtmbs`` command shows warnings: one ``rtmbs: warning: ...`` line each (not Python's
file:line and source line), and the list of them for the ``warnings`` of a ``--json`` summary.
Kept apart from :mod:`rtmbs.cli.entry` so that every command module shares one list."""
from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))  # src/rtmbs

#: The warnings shown while the current command runs (one line each), for the ``warnings`` of
#: its ``--json`` summary: :func:`warnings_shown`.
_SHOWN: list[str] = []


def warnings_shown() -> list[str]:
    """The warnings shown so far by the running command (each once, in order)."""
    return list(_SHOWN)


def warning_text(message, category, filename: str = "") -> str:
    """One line for a warning: rtmbs' own (their classes in :mod:`rtmbs.errors`, or issued from
    the package) as the message alone, another library's with its category."""
    text = " ".join(str(message).split())
    own = (category.__module__.startswith("rtmbs")
           or os.path.abspath(filename or "").startswith(_PACKAGE + os.sep))
    return text if own else f"{category.__name__}: {text}"


def show_warning(message, category, filename, lineno, file=None, line=None):
    """``warnings.showwarning`` while a command runs: ``rtmbs: warning: ...`` on one line (not
    Python's file:line and source line), and remembered for ``--json``."""
    text = warning_text(message, category, filename)
    if text not in _SHOWN:
        _SHOWN.append(text)
    print(f"rtmbs: warning: {text}", file=file or sys.stderr)


def clear_warnings() -> None:
    """Forget the warnings shown (at the start of a command)."""
    del _SHOWN[:]
