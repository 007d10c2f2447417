"""``rtmbs export-c``: a standalone C program that runs a model in real time without Python.

``DIR`` gets:

* ``src/``: every engine C source and header (their folder tree kept), the FMU instance
  (``fmu/instance.c``: allocate once, set inputs, step, outputs) and the program
  (``fmu/rt_main.c``: the paced loop, its statistics and files), ``model_data.c`` (the li-euler
  plan as constants: :func:`rtmbs.fmu.export.model_data_source`, as in an FMU) and ``rt_info.c``
  (the model's name, the solver and the two header rows of ``result.csv``);
* a ``Makefile``: ``make`` builds ``DIR/rtmbs-rt`` with ``$(CC) -std=c99 -O2 -ffp-contract=off``
  and libm only (``make CC=aarch64-linux-gnu-gcc`` cross-compiles); no FMA contraction, so every
  target computes the same bits as this machine's rtmbs;
* a ``README.txt``: how to build and run it.

``rtmbs-rt --help`` lists the run options (duration, SCHED_FIFO priority, CPU, mlockall,
deadline policy, unpaced mode, UDP addresses); its summary is ``rtmbs realtime``'s, its
``OUT/result.csv`` is read by ``rtmbs plot OUT`` and ``rtmbs view OUT``, and with ``udp`` (the
configuration of ``rtmbs realtime --udp``, compiled in) it speaks the UDP packet protocol of
:mod:`rtmbs.realtime.udp`.
"""
from __future__ import annotations

import csv
import io
import math
import shutil
from pathlib import Path

import numpy as np

from ..errors import RtmbsError, SolverError
from .export import _engine_sources, model_data_source, prepare

#: compile flags of the program (the Makefile's CFLAGS)
CFLAGS = "-std=c99 -O2 -ffp-contract=off -Wall -Wextra"

MAKEFILE = """\
# Makefile of {model}: `make` builds rtmbs-rt (C99, libm only); `make CC=aarch64-linux-gnu-gcc`
# cross-compiles. -ffp-contract=off: no fused multiply-add, the same bits on every target.
CC ?= cc
CFLAGS ?= {cflags}
LDLIBS = -lm
SRC = {sources}
# (objects per compiler: a native and a cross build do not mix)
OBJDIR = obj/$(notdir $(CC))
OBJ = $(SRC:src/%.c=$(OBJDIR)/%.o)

rtmbs-rt: $(OBJ)
\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJ) $(LDLIBS)

$(OBJDIR)/%.o: src/%.c
\t@mkdir -p $(dir $@)
\t$(CC) $(CFLAGS) -Isrc -Isrc/fmu -c $< -o $@

clean:
\trm -rf rtmbs-rt obj

.PHONY: clean
"""

README = """\
{model}: rtmbs's standalone real-time program (rtmbs export-c)

solver {solver} ({options}), h = {h!r} s, fixed at export.

Build:   make                         (CC=... to choose the compiler; C99 + libm only)
Run:     ./rtmbs-rt --duration 10     (paced on CLOCK_MONOTONIC, one step per tick of h)
         ./rtmbs-rt --duration 60 --priority 80 --cpu 1     (SCHED_FIFO, pinned)
         ./rtmbs-rt --unpaced --duration 1                   (steps back to back)
Results: out/result.csv (rtmbs plot out SIGNAL...), out/summary.json, out/summary.md
Options: ./rtmbs-rt --help
"""


def _c_string(text: str) -> str:
    """A C string literal of ``text`` (UTF-8) in ASCII: other bytes as octal escapes."""
    out = []
    for b in text.encode():
        c = chr(b)
        if c in '"\\?' or not 32 <= b < 127:
            out.append(f"\\{b:03o}")
        else:
            out.append(c)
    return '"' + "".join(out) + '"'


def _csv_rows(system, state) -> tuple[str, str]:
    """The names and units rows of the result CSV of ``system`` (``Result.save_csv`` with the
    units ``rtmbs run`` attaches), without their line ends."""
    from ..io.meta import system_units
    from ..result import Result

    n, nx = system.n, system.nx
    one = np.zeros((1, n))
    res = Result(t=np.zeros(1), q=one, qd=one, lam=np.zeros((1, system.m)), phi_norm=np.zeros(1),
                 phid_norm=np.zeros(1), outputs={nm: np.zeros(1) for nm in system.output_names},
                 coordinate_names=list(getattr(system, "coordinate_names", [])),
                 x=np.zeros((1, nx)))
    res.meta["units"] = system_units(system)
    cols = res.columns()
    units = res.units()
    expected = 1 + 2 * n + nx + 2 + len(system.output_names)
    if len(cols) != expected:  # (an output named as a coordinate column would shadow it)
        raise RtmbsError(f"C export: the result columns of '{system.name}' are not t, q, qd, x, "
                         "the constraint norms and the outputs (an output shadows a column)")
    rows = []
    for row in (list(cols), [units.get(c, "") for c in cols]):
        buf = io.StringIO()
        csv.writer(buf, lineterminator="").writerow(row)
        rows.append(buf.getvalue())
    return rows[0], rows[1]


def _udp_config(udp, system):
    """The UDP configuration (a file, a dict or a ``UdpConfig``) checked against ``system`` as
    ``rtmbs realtime --udp`` checks it."""
    from ..realtime.udp import UdpConfig, load_udp_config

    if isinstance(udp, (str, Path)):
        cfg, where = load_udp_config(udp), Path(udp).name
    elif isinstance(udp, dict):
        cfg, where = UdpConfig.from_dict(udp), "udp"
    else:
        cfg, where = udp, "udp"
    cfg.check_against(system, where)
    return cfg


def _c_array(ctype: str, name: str, values, fmt) -> str:
    vals = [fmt(v) for v in values] or ["0"]
    return f"static const {ctype} {name}[{len(vals)}] = {{{', '.join(vals)}}};"


def rt_info_source(system, solver: str, options: dict, state, udp=None) -> str:
    from .export import _c_double

    names, units = _csv_rows(system, state)
    opts = ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "default options"
    ins, outs = list(system.input_names), list(system.output_names)
    cfg = udp
    chans = cfg.inputs if cfg else []
    arrays = [
        _c_array("int64_t", "udp_in_vr", [ins.index(c.name) + 1 for c in chans], str),
        _c_array("double", "udp_scale", [c.scale for c in chans], _c_double),
        _c_array("double", "udp_offset", [c.offset for c in chans], _c_double),
        _c_array("double", "udp_initial", [math.nan if c.initial is None else c.initial
                                           for c in chans], _c_double),
        _c_array("int64_t", "udp_out", [outs.index(nm) for nm in (cfg.outputs if cfg else [])],
                 str)]
    listen = cfg.listen if cfg else ("127.0.0.1", 0)
    send = cfg.send_to if cfg and cfg.send_to else ("", -1)
    max_age = cfg.max_age if cfg and cfg.max_age is not None else math.nan
    return "\n".join([
        f"/* rt_info.c -- {system.name}: generated by rtmbs export-c */",
        "#include <math.h>", '#include "fmu/rt_info.h"', "", *arrays, "",
        "const rtmbs_rt_info rtmbs_rt_the_info = {",
        f"    {_c_string(system.name)},", f"    {_c_string(solver)},", f"    {_c_string(opts)},",
        f"    {_c_string(names)},", f"    {_c_string(units)},", f"    {int(system.nx)},",
        f"    {int(cfg is not None)},",
        f"    {_c_string(listen[0])}, {int(listen[1])}, {_c_string(send[0])}, {int(send[1])},",
        f"    {len(chans)}, udp_in_vr, udp_scale, udp_offset, udp_initial,",
        f"    {len(cfg.outputs) if cfg else 0}, udp_out, {_c_double(max_age)}, "
        f"{int(cfg.decimation) if cfg else 1}",
        "};", ""])


def export_c(model, out_dir, h: float = 1e-3, solver: str = "li-euler",
             solver_options: dict | None = None, udp=None) -> Path:
    """Write the standalone program of ``model`` (a spec as ``rtmbs run`` takes, or a compiled
    ``CartesianSystem``) stepped by ``solver`` (li-euler) at ``h`` into ``out_dir`` (module doc);
    ``udp``: the UDP I/O configuration of ``rtmbs realtime --udp`` (a file, a dict or a
    ``UdpConfig``), compiled in. Returns the folder. ``make`` there builds it."""
    if not (isinstance(h, (int, float)) and math.isfinite(h) and h > 0):
        raise SolverError(f"step size h must be > 0 s, got {h!r}")
    spec, system, cls, options, state, plan = prepare(model, h, solver, solver_options,
                                                      "C export")
    cfg = _udp_config(udp, system) if udp is not None else None
    out = Path(out_dir)
    src = out / "src"
    if src.exists():
        shutil.rmtree(src)
    src.mkdir(parents=True)
    files = _engine_sources(None)
    for p, rel in files:
        (src / rel).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(p, src / rel)
    title = f"rtmbs model {system.name}, solver {cls.name}, h = {h:g} s"
    (src / "model_data.c").write_text(model_data_source(dict(plan, token=""), title))
    (src / "rt_info.c").write_text(rt_info_source(system, cls.name, options, state, cfg))
    c_files = ["model_data.c", "rt_info.c"] + [rel for _, rel in files if rel.endswith(".c")]
    sources = " \\\n      ".join(f"src/{c}" for c in c_files)
    (out / "Makefile").write_text(MAKEFILE.format(model=system.name, cflags=CFLAGS,
                                                  sources=sources))
    opts = ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "default options"
    (out / "README.txt").write_text(README.format(model=system.name, solver=cls.name,
                                                  options=opts, h=float(h)))
    return out
