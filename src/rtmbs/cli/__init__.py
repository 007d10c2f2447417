"""The ``rtmbs`` command: :func:`main` parses the command line and runs a subcommand.

Every module that parses a command line lives in this package, one module per command group
(``commands``: demo, info, models, run, bench, plot; ``tyre``, ``road``, ``studies``,
``realtime``, ``view``, ``sweep``, ``kc``, ``event``, ``statics``), with the options they share in
``solver_options`` and ``numbers`` and the one-line warnings in ``user_warnings``. A command
calls the same public functions as the Python API; nothing outside this package reads ``argv``.
"""
from .entry import EXIT_DIVERGED, EXIT_ERROR, EXIT_INTERNAL, EXIT_INTERRUPTED, EXIT_USAGE  # noqa: F401
from .entry import build_parser, disk_error, main  # noqa: F401
