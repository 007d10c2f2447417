"""rtmbs: real-time multibody simulation of vehicles."""
from __future__ import annotations

__version__ = "0.1.0"


#: an import of an rtmbs module: its names in parentheses (over lines) or up to the line's end
_IMPORT = r"^\s*(?:from\s+(\.+[\w.]*|rtmbs[\w.]*)\s+import\s+(\([\w,\s]+\)|[\w, ]+)|import\s+(rtmbs[\w.]*))"


_USES_NUMBA = r"^\s*(?:from numba\b|import numba\b)"


def _compiled_sources(root):
    """The source files numba's cache depends on: every module that imports numba, and every
    rtmbs module those import (their constants are frozen into the compiled code). The CLI, file
    readers, the schema and the offline solvers are left out, so editing them keeps the cache."""
    import re

    files = {".".join(p.relative_to(root).with_suffix("").parts): p for p in root.rglob("*.py")}
    texts = {m: p.read_text(encoding="utf-8") for m, p in files.items()}
    compiled = {m for m, t in texts.items() if re.search(_USES_NUMBA, t, re.M)}
    needed = set(compiled)
    for m in compiled:
        package = m.split(".")[:-1]
        for relative, names, absolute in re.findall(_IMPORT, texts[m], re.M):
            module = relative or absolute
            if module.startswith("rtmbs"):
                base = module.split(".")[1:]
            else:
                dots = len(module) - len(module.lstrip("."))
                base = package[: len(package) - dots + 1] + [x for x in module.lstrip(".").split(".") if x]
            name = ".".join(base)
            candidates = [name, f"{name}.__init__" if name else "__init__"]
            candidates += [f"{name}.{n}" if name else n for n in re.findall(r"\w+", names)]
            needed.update(c for c in candidates if c in files)
    return [files[m] for m in sorted(needed)]


def _version_numba_cache():
    """numba does not recompile a cached caller when a function it calls changes in another file
    (PERFORMANCE.md): key the cache directory on a hash of the sources compiled code depends on."""
    import hashlib
    import os
    import sys
    from pathlib import Path

    if os.environ.get("RTMBS_NO_CACHE_VERSIONING"):
        return
    h = hashlib.sha1()
    for f in _compiled_sources(Path(__file__).parent):
        h.update(f.name.encode())
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
