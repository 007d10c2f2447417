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

# Real-time loops and benchmarks run single-threaded (PERFORMANCE.md): before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

from .cli_warnings import clear_warnings, show_warning  # noqa: E402

_PLUGINS = (
    "rtmbs.commands",          # demo, info, models, run, bench, plot
    "rtmbs.tyre_cli",          # tyre eval, tyre curves
    "rtmbs.road_cli",          # road
    "rtmbs.studies_cli",       # study ...
    "rtmbs.realtime_cli",      # realtime, export-fmu, export-c
    "rtmbs.view_cli",          # view
    "rtmbs.sweep_cli",         # sweep, identify
    "rtmbs.kc_cli",            # kc
    "rtmbs.event_cli",         # event
    "rtmbs.statics_cli",       # statics
)


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


#: What argparse takes for a negative number rather than an option: its own pattern (``-1``,
#: ``-.5``) misses exponents and ``inf``/``nan``, so ``--h -1e-3`` ended in "expected one
#: argument" instead of the value check naming the number (issue 32).
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
        try:
            mod = importlib.import_module(name)
        except ModuleNotFoundError as exc:
            if exc.name and name.startswith(exc.name):
                continue  # that area is not built yet
            raise
        mod.register(sub, _Formatter)
    return parser


#: Exit codes: 0 done, 1 an error (one line naming the item and the cause), 2 a bad command line
#: (argparse), 3 a diverged run (results kept), 70 an internal error (a bug: rerun with --debug),
#: 130 interrupted by Ctrl-C or SIGTERM (results up to there kept).
EXIT_ERROR, EXIT_USAGE, EXIT_DIVERGED, EXIT_INTERNAL, EXIT_INTERRUPTED = 1, 2, 3, 70, 130


def _sigterm(signum, frame):
    raise KeyboardInterrupt  # SIGTERM ends a run like Ctrl-C: the results so far are written


def singular_error(exc: BaseException, model=None):
    """A :class:`~rtmbs.errors.SolverError` for a ``LinAlgError`` that escaped a command (a
    singular mass matrix or Jacobian: a model fault, not a bug; it ended in "internal error"
    and exit 70, issue 32), naming the model and what to check; None for other exceptions."""
    np = sys.modules.get("numpy")
    if np is None or not isinstance(exc, np.linalg.LinAlgError):
        return None
    from .errors import SolverError

    what = str(exc).splitlines()[0] if str(exc) else "singular matrix"
    return SolverError(
        f"{model or 'the model'}: the equations of motion could not be solved ({what}): check "
        "the model's masses and inertias (none near zero or far apart), that no joint repeats "
        "another or locks a body the solver must move, and that the initial positions satisfy "
        "the joints")


def main(argv=None) -> int:
    import warnings

    with warnings.catch_warnings():  # restores the caller's showwarning and filters
        warnings.showwarning = show_warning
        clear_warnings()
        return _main(argv)


def _main(argv=None) -> int:
    import signal

    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_USAGE
    from .errors import RtmbsError

    try:
        old_term = signal.signal(signal.SIGTERM, _sigterm)
    except ValueError:  # not the main thread (main() called from a thread): leave it
        old_term = None
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
        if named is not None:  # a singular system: the model's fault, named
            print(f"rtmbs: error: {named}", file=sys.stderr)
            return EXIT_ERROR
        first = str(exc).splitlines()[0] if str(exc) else ""
        print(f"rtmbs: internal error: {type(exc).__name__}{': ' + first if first else ''} "
              "(a bug in rtmbs: rerun with --debug for the traceback and report it)", file=sys.stderr)
        return EXIT_INTERNAL
    finally:
        if old_term is not None:
            signal.signal(signal.SIGTERM, old_term)


if __name__ == "__main__":
    sys.exit(main())
