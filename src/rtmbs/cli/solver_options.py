"""The solver options of ``rtmbs run``, ``bench``, ``realtime`` and ``export-fmu`` (one helper).

Only the options the user gives are passed on: the solver's own defaults apply otherwise, and an
option the solver does not take (``--B qr`` with ``li-euler``) is refused by the solver itself
with its :class:`~rtmbs.errors.SolverError` naming the option (docs/solvers.md lists them).
"""
from __future__ import annotations

import argparse
import json

from ..errors import SolverError

#: (solver keyword, command-line flag, type, help) of the options with a flag of their own.
FLAGS = (
    ("stabilize", "--stabilize", str,
     "none|projection|baumgarte|ggl (solver-dependent; li-euler, li-euler-indep and "
     "explicit-euler: projection unless given)"),
    ("position_update", "--position-update", str, "auto|explicit|implicit (li-euler)"),
    ("B", "--B", str, "partition|qr: the independent-coordinate basis of li-euler-indep "
     "(partition unless given)"),
    ("jacobian", "--jacobian", str, "stiff|all: force Jacobians of the stiff terms or of all"),
    ("ggl_iterations", "--ggl-iterations", int, "Newton corrections of stabilize=ggl (li-euler)"),
)


def _key_value(text: str):
    """``KEY=VALUE`` -> (key, value); VALUE is read as JSON (numbers, true/false/null, lists)
    when it parses, else kept as a string; dashes in KEY become underscores."""
    key, sep, raw = text.partition("=")
    key = key.strip().replace("-", "_")
    if not sep or not key.isidentifier():
        raise argparse.ArgumentTypeError(f"expected KEY=VALUE (e.g. rebase_tol=0.05), got {text!r}")
    try:
        value = json.loads(raw)
    except ValueError:
        value = {"True": True, "False": False, "None": None}.get(raw, raw)
    return key, value


def add_solver_arguments(parser) -> None:
    """Add the option group (``--stabilize`` ... ``--option KEY=VALUE``) to a subcommand."""
    g = parser.add_argument_group(
        "solver options", "passed to the solver only when given; a solver that does not take "
        "an option refuses it (options per solver: docs/solvers.md)")
    for key, flag, typ, text in FLAGS:
        g.add_argument(flag, dest=f"solver_{key}", type=typ, default=argparse.SUPPRESS,
                       metavar="N" if typ is int else "VALUE", help=text)
    g.add_argument("--option", dest="solver_option", action="append", type=_key_value,
                   default=argparse.SUPPRESS,
                   metavar="KEY=VALUE", help="any other solver option, repeatable "
                   "(e.g. --option rebase_tol=0.05 --option linear_solver=dense)")


def solver_options(args) -> dict:
    """The keyword options the user gave, for ``get_solver(name)(system, **options)``."""
    opts, given = {}, {}
    for key, flag, _, _ in FLAGS:
        value = getattr(args, f"solver_{key}", None)
        if value is not None:
            opts[key], given[key] = value, flag
    for key, value in getattr(args, "solver_option", None) or []:
        if key in opts:
            raise SolverError(f"solver option '{key}' given twice ({given[key]} and "
                              f"--option {key}=...)")
        opts[key], given[key] = value, "--option"
    return opts
