"""The ``rtmbs`` command. Thin: every subcommand calls the same public functions as the API.

Areas add their own subcommands through a ``register(subparsers)`` function in a module listed
in ``_PLUGINS``; each subcommand sets ``func`` (taking the parsed args, returning an exit code).
"""
from __future__ import annotations

import argparse
import importlib
import os
import re
import sys

# Real-time loops and benchmarks run single-threaded: before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from .user_warnings import clear_warnings, show_warning  # noqa: E402

_PLUGINS = (
    "rtmbs.cli.commands",   # demo, info, models, run, bench, plot
    "rtmbs.cli.tyre",       # tyre eval, tyre curves
    "rtmbs.cli.road",       # road
    "rtmbs.cli.studies",    # study ...
    "rtmbs.cli.realtime",   # realtime, export-fmu, export-c
    "rtmbs.cli.view",       # view
    "rtmbs.cli.sweep",      # sweep, identify
    "rtmbs.cli.kc",         # kc
    "rtmbs.cli.event",      # event
    "rtmbs.cli.statics",    # statics
)


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


#: What argparse takes for a negative number rather than an option: its own pattern (``-1``,
#: ``-.5``) misses exponents and ``inf``/``nan``, so ``--h -1e-3`` ended in "expected one
#: argument" instead of the value check naming the number.
NEGATIVE_NUMBER = re.compile(r"^-(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?$|^-(inf|infinity|nan)$",
                             re.IGNORECASE)


class _Parser(argparse.ArgumentParser):
    """The parser of ``rtmbs`` and (through ``add_subparsers``) of every subcommand: takes
    ``-1e-3`` and ``-inf`` for option values (no option name looks like a number)."""

    def __init__(self, *args, **kw):
        super().__init__(*args, **kw)
        self._negative_number_matcher = NEGATIVE_NUMBER


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(
        prog="rtmbs",
        description="Real-time multibody simulation of vehicles.",
        epilog="examples:\n  rtmbs demo\n  rtmbs models\n  rtmbs info slider-crank\n"
        "  rtmbs run double-pendulum --t-end 2 --h 1e-3 --solver li-euler --out out/dp",
        formatter_class=_Formatter,
    )
    parser.add_argument("--debug", action="store_true",
                        help="show the Python traceback of an internal error (also RTMBS_DEBUG=1)")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for name in _PLUGINS:
        importlib.import_module(name).register(sub, _Formatter)
    return parser


#: Exit codes: 0 done, 1 an error (one line naming the item and the cause), 2 a bad command line
#: (argparse), 3 a diverged run (results kept), 70 an internal error (a bug: rerun with --debug),
#: 130 interrupted by Ctrl-C or SIGTERM (results up to there kept).
EXIT_ERROR, EXIT_USAGE, EXIT_DIVERGED, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 70, 130


def singular_error(exc: BaseException, model=None):
    """A :class:`~rtmbs.errors.SolverError` for a ``LinAlgError`` that escaped a command (a
    singular mass matrix or Jacobian: a model fault, not a bug; it ended in "internal error"
    and exit 70), naming the model and what to check; None for other exceptions."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(exc, np.linalg.LinAlgError):
        return None
    from ..errors import SolverError

    what = str(exc).splitlines()[0] if str(exc) else "singular matrix"
    return SolverError(
        f"{model or 'the model'}: the equations of motion could not be solved ({what}): check "
        "the model's masses and inertias (none near zero or far apart), that no joint repeats "
        "another or locks a body the solver must move, and that the initial positions satisfy "
        "the joints")


def main(argv=None) -> int:
    """The command line (``argv``: its arguments; None: ``sys.argv``, the process' own command
    line, which an interrupt may end at once with exit 130 after the results are written,
    :mod:`rtmbs.io.interrupts`)."""
    import warnings

    from ..io import interrupts

    # Ctrl-C and SIGTERM raise KeyboardInterrupt from here on, also while the parser imports
    # the commands' modules; from the command line a watchdog covers long calls into C
    guard = interrupts.install(watchdog=argv is None)
    try:
        with warnings.catch_warnings():  # restores the caller's showwarning and filters
            warnings.showwarning = show_warning
            clear_warnings()
            code = _main(argv)
    except KeyboardInterrupt:  # while parsing (the commands catch it while they run)
        print("rtmbs: interrupted", file=sys.stderr)
        code = EXIT_INTERRUPTED
    finally:
        if guard is not None:
            guard.restore()
    if argv is None and (code == EXIT_INTERRUPTED or interrupts.STATE.broken_files):
        # the results are closed (or a file that cannot be written is held: freeing it at the
        # interpreter's teardown would crash): skip that teardown
        interrupts.exit_now(code)
    return code


def disk_error(exc: BaseException):
    """An :class:`~rtmbs.errors.OutputError` for a full, over-quota or read-only file system met
    by any command (``OSError`` ENOSPC, EDQUOT, EROFS, EFBIG, also as h5py words them), naming
    the file; None for other exceptions."""
    import errno

    from ..errors import OutputError

    if not isinstance(exc, OSError) and not (isinstance(exc, RuntimeError) and "errno = " in str(exc)):
        return None  # (h5py words a failed write as an OSError or a RuntimeError with its errno)
    causes = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
              errno.EROFS: "read-only file system", errno.EFBIG: "file too large"}
    text = str(exc)
    cause = causes.get(getattr(exc, "errno", None))
    if cause is None:
        for code, words in ((errno.ENOSPC, "No space left"), (errno.EDQUOT, "quota"),
                            (errno.EROFS, "Read-only file system"), (errno.EFBIG, "too large")):
            if words in text:
                cause = causes[code]
    if cause is None:
        return None
    named = getattr(exc, "filename", None) or next(iter(re.findall(r"filename = '([^']+)'", text)), None)
    where = f"'{named}'" if named else "a file being written"
    return OutputError(f"{where}: {cause}; the file is incomplete")


def _main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from ..errors import RtmbsError

    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe shows here, not at interpreter exit
        return code
    except BrokenPipeError:  # `rtmbs info X | head`: the reader left; say nothing more
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_ERROR
    except KeyboardInterrupt:  # before or after a run's steps (during them: the command says)
        print("rtmbs: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED
    except RtmbsError as exc:
        print(f"rtmbs: error: {exc}", file=sys.stderr)
        return EXIT_ERROR
    except Exception as exc:  # a bug: short message, the traceback with --debug
        if args.debug or os.environ.get("RTMBS_DEBUG"):
            raise
        named = singular_error(exc, getattr(args, "model", None))
        full = disk_error(exc)
        if full is not None:  # an HDF5 file that failed is not freed at exit (it crashed there)
            from ..io import interrupts

            interrupts.STATE.broken_files = True
        if named or full:  # a singular system or a full disk: named, not a bug
            print(f"rtmbs: error: {named or full}", file=sys.stderr)
            return EXIT_ERROR
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"rtmbs: internal error: {type(exc).__name__}{': ' + first if first else ''} "
              "(a bug in rtmbs: rerun with --debug for the traceback and report it)", file=sys.stderr)
        return EXIT_INTERNAL

