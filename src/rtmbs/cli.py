"""The ``rtmbs`` command. Thin: every subcommand calls the same public functions as the API.

Areas add their own subcommands through a ``register(subparsers)`` function in a module listed
in ``_PLUGINS``; each subcommand sets ``func`` (taking the parsed args, returning an exit code).
"""
from __future__ import annotations

import argparse
import importlib
import os
import sys

# Real-time loops and benchmarks run single-threaded (PERFORMANCE.md): before numpy loads.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("MPLBACKEND", "Agg")

_PLUGINS = (
    "rtmbs.commands",          # demo, info, models, run, bench, plot
    "rtmbs.tyre_cli",          # tyre eval, tyre curves
    "rtmbs.road_cli",          # road
    "rtmbs.studies_cli",       # study ...
    "rtmbs.realtime_cli",      # realtime, export-fmu
    "rtmbs.view_cli",          # view
)


class _Formatter(argparse.RawDescriptionHelpFormatter, argparse.ArgumentDefaultsHelpFormatter):
    pass


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="rtmbs",
        description="Real-time multibody simulation of vehicles.",
        epilog="examples:\n  rtmbs demo\n  rtmbs models\n  rtmbs info slider-crank\n"
        "  rtmbs run double-pendulum --t-end 2 --h 1e-3 --solver li-euler --out out/dp",
        formatter_class=_Formatter,
    )
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


def main(argv=None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    from .errors import RtmbsError

    try:
        code = int(args.func(args) or 0)
        sys.stdout.flush()  # inside the try: a closed pipe shows here, not at interpreter exit
        return code
    except RtmbsError as exc:
        print(f"rtmbs: error: {exc}", file=sys.stderr)
        return 1
    except BrokenPipeError:  # `rtmbs info X | head`: the reader left; say nothing more
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 1


if __name__ == "__main__":
    sys.exit(main())
