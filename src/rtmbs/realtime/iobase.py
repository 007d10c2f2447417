"""The interface between the paced loop and the outside world (hardware, another tool)."""
from __future__ import annotations

import numpy as np

from ..protocol import MechanicalSystem


class RealtimeIO:
    """Base class of the loop's I/O. The loop calls, in this order:

    ``open(system)`` once before the run (bind sockets, resolve channel names, allocate: may be
    called again, then it does nothing); each step ``read_inputs(system, t)`` (apply the newest
    inputs with ``system.set_input``; inputs hold their last value) and, unless the step is a
    catch-up step, ``write_outputs(t, values)`` with ``values`` ordered as
    ``system.output_names``; ``close()`` after the run; ``stats()`` for the report.
    ``read_inputs``/``write_outputs`` must not allocate arrays and must never raise on bad data.
    """

    def open(self, system: MechanicalSystem) -> None:
        pass

    def read_inputs(self, system: MechanicalSystem, t: float) -> None:
        pass

    def write_outputs(self, t: float, values: np.ndarray) -> None:
        pass

    def close(self) -> None:
        pass

    def stats(self) -> dict:
        return {}
