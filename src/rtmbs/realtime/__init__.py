"""Real-time execution: the paced loop, its statistics, deadline policies and I/O (UDP)."""
from .iobase import RealtimeIO  # noqa: F401
from .loop import (  # noqa: F401
    FLAG_CATCHUP, FLAG_DEGRADED, FLAG_OVERRUN, POLICIES, RealtimeReport, run_realtime,
)
