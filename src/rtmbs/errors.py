"""Exceptions raised by rtmbs. Every message names the item at fault and what was expected."""
from __future__ import annotations

import difflib


class RtmbsError(Exception):
    """Base class of all rtmbs errors."""


class ModelError(RtmbsError):
    """A model description is invalid (raised at load or compile time).

    ``path`` is the key path of the offending item, e.g. ``joints.fl_ball.body_j``.
    """

    def __init__(self, path: str, problem: str):
        self.path = path
        self.problem = problem
        super().__init__(f"{path}: {problem}" if path else problem)


class OutputError(RtmbsError):
    """A result cannot be written where it was asked to go (the folder and the cause named)."""


class AssemblyError(RtmbsError):
    """Initial positions or velocities cannot be made consistent with the constraints."""


class RedundantConstraintError(RtmbsError):
    """The constraint Jacobian is rank deficient; ``joints`` names the redundant ones."""

    def __init__(self, message: str, joints: list[str] | None = None):
        self.joints = list(joints or [])
        super().__init__(message)


class RedundantConstraintWarning(UserWarning):
    """Notice that a fixed-step solver leaves dependent (redundant) constraint equations out;
    the message names the joints and the equations (``rtmbs.solvers.redundancy``)."""


class SolverError(RtmbsError):
    """A solver cannot be used as asked (unknown name, unsupported model, bad option)."""


class SimulationDiverged(RtmbsError):
    """The integration produced non-finite or exploding states.

    ``t`` and ``q`` give the last good time and state; ``result`` holds the run up to there.
    """

    def __init__(self, message: str, t: float, q=None, qd=None, result=None):
        self.t = t
        self.q = q
        self.qd = qd
        self.result = result
        super().__init__(message)


class SimulationInterrupted(RtmbsError, KeyboardInterrupt):
    """A run was stopped by Ctrl-C (SIGINT) or SIGTERM; ``result`` holds it up to the last
    completed step and ``t`` that step's time. Also a ``KeyboardInterrupt``, so that code
    catching Ctrl-C keeps working."""

    def __init__(self, message: str, t: float, result=None):
        self.t = t
        self.result = result
        super().__init__(message)


class ConstraintDriftWarning(UserWarning):
    """An unstabilised run (``stabilize="none"``) left the constraint manifold: ‖Φ‖ exceeded
    ``rtmbs.solvers.simulate.DRIFT_WARNING``. Issued once per run."""


class FormulationNotApplicable(SolverError):
    """An acceleration formulation cannot be applied to this system (e.g. singular M)."""


def did_you_mean(name: str, known) -> str:
    """Return ' (did you mean 'x'?; known: a, b)' for an unknown name."""
    known = sorted(str(k) for k in known)
    close = difflib.get_close_matches(str(name), known, n=1)
    hint = f"did you mean '{close[0]}'? " if close else ""
    listing = ", ".join(known[:20]) + (", ..." if len(known) > 20 else "")
    return f" ({hint}known: {listing})" if known else " (none defined)"
