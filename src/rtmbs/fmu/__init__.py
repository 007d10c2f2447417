"""Native co-simulation FMUs (FMI 2.0 and 3.0) built from the C engine: :func:`export_fmu`.

The FMU's binary is the engine (``src/rtmbs/engine``) plus the model's data compiled in as
constants (``model_data.c``: the li-euler plan of :mod:`rtmbs.engine.dump` as C arrays) and the
generic FMI layer (``engine/fmu``: ``instance.c``, ``fmi2.c`` or ``fmi3.c``). It needs neither
Python nor any file at run time; ``sources/`` holds everything to rebuild it with a target's
own compiler (with the standard FMI headers, which every FMI tool ships).
:func:`export_c` writes the same engine, plan and instance as a standalone real-time program.
"""
from .export import FMI_HEADERS_HELP, export_fmu, fmi_headers
from .export_c import export_c

__all__ = ["export_fmu", "export_c", "fmi_headers", "FMI_HEADERS_HELP"]
