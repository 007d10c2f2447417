"""rtmbs: real-time multibody simulation of vehicles."""
from __future__ import annotations

__version__ = "0.1.0"


def _version_numba_cache():
    """numba does not recompile a cached caller when a function it calls changes in another file
    (PERFORMANCE.md): key the cache directory on a hash of this package's sources."""
    import hashlib
    import os
    import sys
    from pathlib import Path

    if os.environ.get("RTMBS_NO_CACHE_VERSIONING"):
        return
    root = Path(__file__).parent
    h = hashlib.sha1()
    for f in sorted(root.rglob("*.py")):
        h.update(f.read_bytes())
    base = os.environ.get("RTMBS_NUMBA_CACHE", os.path.join(os.path.expanduser("~"), ".cache", "rtmbs-numba"))
    path = os.path.join(base, h.hexdigest()[:16])
    if "numba" in sys.modules:
        import numba

        numba.config.CACHE_DIR = path
    else:
        os.environ["NUMBA_CACHE_DIR"] = path


_version_numba_cache()

from .errors import (  # noqa: F401
    AssemblyError, ModelError, RedundantConstraintError, RtmbsError, SimulationDiverged, SolverError,
)
from .protocol import MechanicalSystem, State, Workspace  # noqa: F401


def simulate(*args, **kwargs):
    """See :func:`rtmbs.solvers.simulate.simulate`."""
    from .solvers.simulate import simulate as _simulate

    return _simulate(*args, **kwargs)
