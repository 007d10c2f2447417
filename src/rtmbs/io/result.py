"""Old home of :class:`rtmbs.result.Result` (moved to the core so that solvers do not import
``io``); kept for code written against the old name. New code imports ``rtmbs.result``."""
from ..result import Result  # noqa: F401
