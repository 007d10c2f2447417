"""rtmbs: real-time multibody simulation of vehicles."""
from __future__ import annotations

__version__ = "0.1.0"


from .errors import (  # noqa: F401
    AssemblyError, ModelError, RedundantConstraintError, RtmbsError, SimulationDiverged, SolverError,
)
from .protocol import MechanicalSystem, State, Workspace  # noqa: F401


def simulate(*args, **kwargs):
    """See :func:`rtmbs.solvers.simulate.simulate`."""
    from .solvers.simulate import simulate as _simulate

    return _simulate(*args, **kwargs)
