"""Compile and load the generated LU (:mod:`.emit`): C through the system compiler and ``ctypes``,
or a generated numba module. Builds are cached on disk by the plan's key (a hash of the
``SparseLU``'s index buffer and the pivot constants) and the compiler flags.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

from .emit import emit_c, emit_numba_module
from .plan import LUPlan

#: C flags: optimisation (-O3 -march=native: 1.5-2× faster than -O2 on the multilink's
#: 51k multiply-adds, docs/benchmarks.md), then no contraction into fused multiply-adds (the
#: generated code divides by the pivots where lu_refactor multiplies by their reciprocals, so
#: the results agree to round-off) and a shared object (the last three stay).
CFLAGS = ("-O3", "-march=native", "-ffp-contract=off", "-fPIC", "-shared")


def default_cache_dir() -> Path:
    """``$RTMBS_CODEGEN_DIR`` or ~/.cache/rtmbs-codegen (outside the source tree: the generated
    numba modules must not enter the kernel cache's source hash)."""
    return Path(os.environ.get("RTMBS_CODEGEN_DIR",
                               Path.home() / ".cache" / "rtmbs-codegen"))


def compiler() -> str | None:
    """Path of the system C compiler (``$CC``, cc, gcc, clang) or None."""
    for name in (os.environ.get("CC"), "cc", "gcc", "clang"):
        if name and shutil.which(name):
            return shutil.which(name)
    return None


class GeneratedLU:
    """A generated refactor/solve pair bound to one ``SparseLU`` (its buffer ``fb``).

    Attributes: ``backend`` ("c" or "numba"), ``path`` (the generated source), ``lines`` and
    ``source_bytes`` of it, ``binary_bytes`` (the shared object; numba: None), ``compile_s``
    (CPU seconds of this build; C: 0 when the shared object came from the disk cache,
    ``cached``), and the compiled
    callables: C ``c_refactor(fb_ptr, out_ptr)``, ``c_solve(fb_ptr, b_ptr)`` (ctypes; compiled
    code calls them with ``arr.ctypes.data``); numba ``nb_refactor(fb)``, ``nb_solve(fb, b)``.
    """

    def __init__(self, lu, plan, backend, path, compile_s, cached, binary=None):
        self.lu, self.plan, self.backend = lu, plan, backend
        self.path = Path(path)
        text = self.path.read_text()
        self.lines = text.count("\n")
        self.source_bytes = len(text.encode())
        self.binary_bytes = os.path.getsize(binary) if binary else None
        self.compile_s, self.cached = compile_s, cached
        self._out = np.zeros(2)

    def refactor(self) -> float:
        """Factor the values in ``lu.ax``; sets ``lu.ratio``, ``lu.growth``; returns the ratio."""
        fb = self.lu.fb
        if self.backend == "c":
            self.c_refactor(fb.ctypes.data, self._out.ctypes.data)
            ratio, growth = float(self._out[0]), float(self._out[1])
        else:
            ratio, growth = self.nb_refactor(fb)
        self.lu.ratio, self.lu.growth = ratio, growth
        return ratio

    def solve(self, b: np.ndarray) -> None:
        """Solve in place in ``b`` (float64, contiguous, length N)."""
        if b.dtype != np.float64 or not b.flags.c_contiguous or b.shape != (self.plan.N,):
            raise ValueError(f"GeneratedLU.solve: b must be a contiguous float64 array of "
                             f"length {self.plan.N}, got {b.dtype} {b.shape}")
        if self.backend == "c":
            self.c_solve(self.lu.fb.ctypes.data, b.ctypes.data)
        else:
            self.nb_solve(self.lu.fb, b)


def _plan(lu) -> LUPlan:
    return lu if isinstance(lu, LUPlan) else LUPlan.from_sparse_lu(lu)


def build_c(lu, cache_dir=None, cflags=CFLAGS, force=False) -> GeneratedLU:
    """Generate, compile (unless cached) and load the C back-end for the analysed ``SparseLU``."""
    cc = compiler()
    if cc is None:
        raise RuntimeError("rtmbs.codegen.build_c: no C compiler found (set CC, or install cc)")
    plan = _plan(lu)
    d = Path(cache_dir or default_cache_dir())
    d.mkdir(parents=True, exist_ok=True)
    tag = hashlib.sha1(" ".join((cc,) + tuple(cflags)).encode()).hexdigest()[:8]
    src, so = d / f"lu_{plan.key}.c", d / f"lu_{plan.key}_{tag}.so"
    cached = so.exists() and not force
    t = 0.0
    if not cached:
        src.write_text(emit_c(plan))
        tmp = so.with_suffix(f".{os.getpid()}.tmp")
        r0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        subprocess.run([cc, *cflags, "-o", str(tmp), str(src), "-lm"], check=True,
                       capture_output=True)
        r1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = (r1.ru_utime - r0.ru_utime) + (r1.ru_stime - r0.ru_stime)
        os.replace(tmp, so)
    lib = ctypes.CDLL(str(so))
    g = GeneratedLU(lu, plan, "c", src, t, cached, binary=so)
    g.lib = lib
    for name in ("refactor", "solve"):
        f = getattr(lib, f"rtmbs_lu_{name}")
        f.argtypes = (ctypes.c_void_p, ctypes.c_void_p)
        f.restype = None
        setattr(g, f"c_{name}", f)
    return g


def build_numba(lu, cache_dir=None, force=False) -> GeneratedLU:
    """Write (unless present) the plan and the generated numba module and import it; its first
    call compiles (or loads numba's cache). ``compile_s`` is the time of a first refactor +
    solve on a copy of the buffer (JIT compile, or the cache load), process CPU seconds."""
    plan = _plan(lu)
    d = Path(cache_dir or default_cache_dir())
    d.mkdir(parents=True, exist_ok=True)
    path, npz = d / f"lu_{plan.key}_nb.py", d / f"lu_{plan.key}.npz"
    if force or not path.exists() or not npz.exists():
        tmp = d / f"tmp_{os.getpid()}.npz"
        plan.save(tmp)
        os.replace(tmp, npz)
        tmp = path.with_suffix(f".{os.getpid()}.tmp")
        tmp.write_text(emit_numba_module(plan, npz.name))
        os.replace(tmp, path)
    name = f"rtmbs_codegen_{path.stem}"
    mod = sys.modules.get(name)
    if mod is None:
        spec = importlib.util.spec_from_file_location(name, path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    g = GeneratedLU(lu, plan, "numba", path, 0.0, False)
    g.module, g.nb_refactor, g.nb_solve = mod, mod.refactor, mod.solve
    fb = np.array(lu.fb)
    t0 = time.process_time()
    mod.refactor(fb)
    mod.solve(fb, np.zeros(plan.N))
    g.compile_s = time.process_time() - t0
    return g
