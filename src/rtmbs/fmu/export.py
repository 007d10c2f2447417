"""``rtmbs export-fmu``: a native FMI 2.0 / 3.0 co-simulation FMU of a model and the li-euler step.

Layout of the FMU (a zip):

* ``modelDescription.xml``: inputs (the model's input channels, value references 1 .. nin),
  outputs (its named outputs, nin + 1 .. nin + nout, each with its unit and a description), the
  solver, its options and h in the description; FMI 3 adds ``time`` (value reference 0).
* ``binaries/linux64/ID.so`` (FMI 2) or ``binaries/x86_64-linux/ID.so`` (FMI 3): built here with
  the system's ``cc -std=c99 -O2 -ffp-contract=off -fPIC`` and ``-shared``, libm only, every symbol
  hidden but the FMI API, ``RPATH=$ORIGIN``.
* ``sources/``: every engine C file (its folder tree kept), ``fmu/instance.c``, ``fmu/fmi2.c`` or
  ``fmu/fmi3.c`` and ``model_data.c``; listed in ``modelDescription.xml`` (FMI 2) or
  ``sources/buildDescription.xml`` (FMI 3). The FMI headers are the standard's (Modelica
  Association, 2-clause BSD licence), kept beside ``fmi2.c`` and ``fmi3.c`` in ``engine/fmu``.

The model's data are compiled in (``model_data.c``) rather than read from ``resources/`` at
instantiation: the binary then has no file to find, parse or validate on the target, an FMU
cannot be separated from its data, and a HIL target without a file system runs it as is.
``doStep(t, Δt)`` takes ``round(Δt / h)`` steps with ``t_k = t_0 + k h``, as
:func:`rtmbs.simulate` does, so both give the same numbers for the same inputs.
"""
from __future__ import annotations

import datetime
import hashlib
import math
import os
import re
import shutil
import subprocess
import tempfile
import uuid
import zipfile
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from xml.sax.saxutils import quoteattr

import numpy as np

from ..errors import RtmbsError, SolverError

#: the solvers an FMU can carry (those whose whole step is in the C engine)
SOLVERS = ("li-euler",)

FMI_HEADERS_HELP = ("the FMI API headers (fmi2Functions.h, fmi3Functions.h and the headers they "
                    "include) ship with rtmbs in rtmbs/engine/fmu; RTMBS_FMI_HEADERS, if set, must "
                    "name a folder that holds them")

#: platform folder of the binary per FMI version
PLATFORM = {2: "linux64", 3: "x86_64-linux"}

#: compile (each source) and link flags of the binary
CFLAGS = ["-std=c99", "-O2", "-ffp-contract=off", "-fPIC", "-fvisibility=hidden"]
LDFLAGS = ["-shared", "-Wl,-rpath,$ORIGIN", "-Wl,--no-undefined", "-lm"]

#: base-unit exponents of the units of rtmbs's outputs (rtmbs.units), FMI's <BaseUnit>
BASE_UNITS = {
    "1": {}, "s": {"s": 1}, "1/s": {"s": -1}, "m": {"m": 1}, "m/s": {"m": 1, "s": -1},
    "m/s2": {"m": 1, "s": -2}, "rad": {"rad": 1}, "rad/s": {"rad": 1, "s": -1},
    "rad/s2": {"rad": 1, "s": -2}, "N": {"kg": 1, "m": 1, "s": -2},
    "N m": {"kg": 1, "m": 2, "s": -2}, "kg": {"kg": 1},
}

#: output kind (last component of the name) -> description
_KIND = {
    "x": "centre-of-mass position x, global axes", "y": "centre-of-mass position y, global axes",
    "z": "centre-of-mass position z, global axes", "vx": "centre-of-mass velocity x, global axes",
    "vy": "centre-of-mass velocity y, global axes", "vz": "centre-of-mass velocity z, global axes",
    "wx": "angular velocity x, global axes", "wy": "angular velocity y, global axes",
    "wz": "angular velocity z, global axes", "Fx": "force x", "Fy": "force y", "Fz": "force z",
    "Tx": "torque x, marker i axes", "Ty": "torque y, marker i axes",
    "Tz": "torque z, marker i axes", "kappa": "longitudinal slip ratio", "alpha": "slip angle",
    "gamma": "camber angle", "rho": "radial deflection",
}


def fmi_headers() -> Path:
    """The folder holding ``fmi2Functions.h`` and ``fmi3Functions.h``: ``RTMBS_FMI_HEADERS`` if
    set, else the standard's headers shipped in ``rtmbs/engine/fmu``."""
    from ..engine import SOURCE_DIR

    env = os.environ.get("RTMBS_FMI_HEADERS")
    folder = Path(env) if env else SOURCE_DIR / "fmu"
    if (folder / "fmi2Functions.h").is_file() and (folder / "fmi3Functions.h").is_file():
        return folder
    raise RtmbsError(f"FMU export: no FMI headers in {folder}; {FMI_HEADERS_HELP}")


def _ascii_unit(unit: str) -> str:
    return unit.replace("²", "2").replace("³", "3")


def _output_description(name: str, unit: str, etypes: dict) -> str:
    owner, _, kind = name.rpartition(".")
    if kind == "force" and owner in etypes:
        what = f"main output of the {etypes[owner]} element"
    elif owner in etypes:
        what = f"{_KIND.get(kind, kind)} of the {etypes[owner]} element"
    elif owner:
        what = f"{_KIND.get(kind, kind)} of body {owner}"
    else:
        what = f"output {name}"
    return f"{what} [{unit}]" if unit else what


# -- model_data.c --------------------------------------------------------------------------------
def _c_double(v: float) -> str:
    if math.isnan(v):
        return "NAN"
    if math.isinf(v):
        return "INFINITY" if v > 0 else "-INFINITY"
    if v == 0.0:
        return "-0.0" if math.copysign(1.0, v) < 0 else "0.0"
    return float(v).hex()  # C99 hexadecimal literal: exactly the double


def _c_int(v: int) -> str:
    return f"{v}LL" if not -2 ** 31 < v < 2 ** 31 else str(v)


def _c_array(out: list, ctype: str, name: str, values, fmt) -> int:
    vals = [fmt(v) for v in np.asarray(values).ravel().tolist()]
    n = len(vals)
    if not vals:
        vals = ["0"]  # (C has no empty arrays: one unused element)
    out.append(f"static const {ctype} {name}[{len(vals)}] = {{")
    for i in range(0, len(vals), 6):
        out.append("    " + ", ".join(vals[i:i + 6]) + ",")
    out.append("};")
    return n


def model_data_source(plan: dict, title: str) -> str:
    """``model_data.c``: the plan (:func:`_plan`) as constants and ``rtmbs_fmu_the_plan``."""
    out = [f"/* model_data.c -- {title}", " * Generated by rtmbs export-fmu: the li-euler plan of "
           "rtmbs.engine.dump as constants (doubles as C99 hexadecimal literals: exact). */",
           "#include <math.h>", "#include <stdint.h>", "", '#include "fmu/fmu_plan.h"', ""]
    n = {}
    for name, ctype, fmt in (("ibuf", "int64_t", _c_int), ("ilay", "int64_t", _c_int),
                             ("fbuf", "double", _c_double), ("flay", "int64_t", _c_int),
                             ("sbuf", "double", _c_double), ("slay", "int64_t", _c_int),
                             ("kib", "uint32_t", lambda v: f"{v}u"),
                             ("kfb", "double", _c_double),
                             ("kidx", "uint32_t", lambda v: f"{v}u"),
                             ("pib", "uint32_t", lambda v: f"{v}u"),
                             ("pfb", "double", _c_double),
                             ("pidx", "uint32_t", lambda v: f"{v}u"),
                             ("q0", "double", _c_double), ("qd0", "double", _c_double),
                             ("x0", "double", _c_double), ("in_row", "int64_t", _c_int),
                             ("in_start", "double", _c_double), ("oidx", "int64_t", _c_int)):
        if name in ("pib", "pidx") and plan[name] is plan[name.replace("p", "k", 1)]:
            continue  # (the second KKT is eq. 22's: its plan and index are not written twice)
        n[name] = _c_array(out, ctype, name, plan[name], fmt)
        out.append("")
    pib = "pib" if "pib" in n else "kib"
    pidx = "pidx" if "pidx" in n else "kidx"
    h, jac, implicit, stab, niter, gamma = plan["options"]
    nq, nc, nrow1, nx = plan["sizes"]
    out += [
        "const rtmbs_fmu_plan rtmbs_fmu_the_plan = {",
        f"    \"{plan['token']}\",",
        f"    {nq}, {nc}, {nrow1}, {nx},",
        f"    ibuf, {n['ibuf']}, ilay, fbuf, {n['fbuf']}, flay, sbuf, {n['sbuf']}, slay,",
        f"    kib, kfb, {n['kfb']}, kidx, {pib}, pfb, {n['pfb']}, {pidx}, "
        f"{int(plan['kkt2_shared'])},",
        f"    {plan['wsize']},",
        f"    {{{_c_double(h)}, {int(jac)}, {int(implicit)}, {int(stab)}, {int(niter)}, "
        f"{_c_double(gamma)}, NULL}},",
        f"    q0, qd0, x0, {_c_double(plan['t0'])},",
        f"    {n['in_row']}, in_row, in_start, {n['oidx']}, oidx",
        "};", ""]
    return "\n".join(out)


def _plan(system, solver, state, h: float) -> dict:
    """What :func:`rtmbs.engine.dump.write_plan` writes, as arrays, plus the input channels."""
    ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, kib, kfb, kidx, vec = solver.kernel_args
    stab, niter, gamma, pib, pfb, pidx = solver.stab_args
    shared = pfb is kfb
    rows = [int(system.fun_names[nm]) for nm in system.input_names]
    return dict(
        sizes=[system.n, system.m, system._data_sizes[1], system.nx],
        ibuf=ibuf, ilay=ilay, fbuf=fbuf, flay=flay, sbuf=sbuf, slay=slay,
        kib=kib, kfb=kfb, kidx=kidx, pib=pib, pfb=np.zeros(0) if shared else pfb, pidx=pidx,
        kkt2_shared=shared, wsize=int(w0.size),
        options=[float(h), solver.jac_flag, int(solver.implicit), stab, niter,
                 gamma],
        q0=state.q, qd0=state.qd, x0=state.x, t0=float(state.t),
        in_row=np.array(rows, np.int64),
        in_start=np.array([float(system.fun_par[r, 0]) for r in rows]),
        oidx=np.asarray(system.output_index, np.int64))


# -- modelDescription.xml, buildDescription.xml ---------------------------------------------------
def _unit_definitions(units) -> list[str]:
    lines = ["  <UnitDefinitions>"]
    for u in sorted(set(units) - {""}):
        exps = BASE_UNITS.get(u)
        base = ("<BaseUnit" + "".join(f' {k}="{v}"' for k, v in exps.items()) + "/>"
                if exps is not None else "")
        lines.append(f"    <Unit name={quoteattr(u)}>{base}</Unit>")
    lines.append("  </UnitDefinitions>")
    return lines


def _variable(v: dict, ref: int) -> str:
    """The attributes a variable has in FMI 2 and 3 alike: name, value reference, description."""
    return (f'name={quoteattr(v["name"])} valueReference="{ref}" '
            f'description={quoteattr(v["description"])}')


def _unit(v: dict) -> str:
    """An output's unit attribute (with its leading space), empty if it has none."""
    return f" unit={quoteattr(v['unit'])}" if v["unit"] else ""


def model_description(fmi: int, ident: str, token: str, info: dict, sources: list[str]) -> str:
    h = info["h"]
    ins, outs = info["inputs"], info["outputs"]
    nin = len(ins)
    head = ['<?xml version="1.0" encoding="UTF-8"?>']
    common = (f'modelName={quoteattr(info["model"])} description={quoteattr(info["description"])} '
              f'generationTool="rtmbs {info["version"]}" '
              f'generationDateAndTime="{info["date"]}" variableNamingConvention="flat"')
    units = [o["unit"] for o in outs]
    if fmi == 2:
        head.append(f'<fmiModelDescription fmiVersion="2.0" {common} guid="{token}" '
                    'numberOfEventIndicators="0">')
        head.append(
            f'  <CoSimulation modelIdentifier="{ident}" needsExecutionTool="false" '
            'canHandleVariableCommunicationStepSize="true" canInterpolateInputs="false" '
            'maxOutputDerivativeOrder="0" canRunAsynchronuously="false" '
            'canBeInstantiatedOnlyOncePerProcess="false" canNotUseMemoryManagementFunctions="true" '
            'canGetAndSetFMUstate="true" canSerializeFMUstate="true" '
            'providesDirectionalDerivative="false">')
        head.append("    <SourceFiles>")
        head += [f"      <File name={quoteattr(s)}/>" for s in sources]
        head += ["    </SourceFiles>", "  </CoSimulation>"]
        head += _unit_definitions(units)
        head.append(f'  <DefaultExperiment startTime="0" stepSize="{h!r}"/>')
        head.append("  <ModelVariables>")
        for k, i in enumerate(ins):
            head.append(f'    <ScalarVariable {_variable(i, k + 1)} causality="input" '
                        f'variability="continuous"><Real start="{i["start"]!r}"/></ScalarVariable>')
        for k, o in enumerate(outs):
            head.append(f'    <ScalarVariable {_variable(o, nin + k + 1)} causality="output" '
                        f'variability="continuous" initial="calculated"><Real{_unit(o)}/>'
                        '</ScalarVariable>')
        head.append("  </ModelVariables>")
        head.append("  <ModelStructure>")
        idx = [f'      <Unknown index="{nin + k + 1}"/>' for k in range(len(outs))]
        if outs:
            head += ["    <Outputs>", *idx, "    </Outputs>", "    <InitialUnknowns>", *idx,
                     "    </InitialUnknowns>"]
        head += ["  </ModelStructure>", "</fmiModelDescription>", ""]
        return "\n".join(head)
    head.append(f'<fmiModelDescription fmiVersion="3.0" {common} instantiationToken="{token}">')
    head.append(
        f'  <CoSimulation modelIdentifier="{ident}" needsExecutionTool="false" '
        'canBeInstantiatedOnlyOncePerProcess="false" canGetAndSetFMUState="true" '
        'canSerializeFMUState="true" providesDirectionalDerivatives="false" '
        'providesAdjointDerivatives="false" canHandleVariableCommunicationStepSize="true" '
        f'fixedInternalStepSize="{h!r}" maxOutputDerivativeOrder="0" '
        'providesIntermediateUpdate="false" canReturnEarlyAfterIntermediateUpdate="false" '
        'hasEventMode="false"/>')
    head += _unit_definitions(units + ["s"])
    head.append(f'  <DefaultExperiment startTime="0" stepSize="{h!r}"/>')
    head.append("  <ModelVariables>")
    head.append('    <Float64 name="time" valueReference="0" causality="independent" '
                'variability="continuous" unit="s" description="simulation time [s]"/>')
    for k, i in enumerate(ins):
        head.append(f'    <Float64 {_variable(i, k + 1)} causality="input" '
                    f'variability="continuous" start="{i["start"]!r}"/>')
    for k, o in enumerate(outs):
        head.append(f'    <Float64 {_variable(o, nin + k + 1)} causality="output" '
                    f'variability="continuous" initial="calculated"{_unit(o)}/>')
    head.append("  </ModelVariables>")
    head.append("  <ModelStructure>")
    head += [f'    <Output valueReference="{nin + k + 1}"/>' for k in range(len(outs))]
    head += [f'    <InitialUnknown valueReference="{nin + k + 1}"/>' for k in range(len(outs))]
    head += ["  </ModelStructure>", "</fmiModelDescription>", ""]
    return "\n".join(head)


def build_description(ident: str, sources: list[str]) -> str:
    lines = ['<?xml version="1.0" encoding="UTF-8"?>', '<fmiBuildDescription fmiVersion="3.0">',
             f'  <BuildConfiguration modelIdentifier="{ident}" '
             'description="cc -std=c99 -O2 -ffp-contract=off -fPIC -shared -lm">',
             '    <SourceFileSet language="C99" compilerOptions="-ffp-contract=off">']
    lines += [f"      <SourceFile name={quoteattr(s)}/>" for s in sources]
    lines += ["    </SourceFileSet>", '    <Library name="m"/>', "  </BuildConfiguration>",
              "</fmiBuildDescription>", ""]
    return "\n".join(lines)


# -- the export -----------------------------------------------------------------------------------
def _version() -> str:
    """rtmbs's version (from the installed distribution: not through the package, which
    would make an import cycle)."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("rtmbs")
    except PackageNotFoundError:
        return "unknown"


def _identifier(text: str) -> str:
    s = re.sub(r"\W", "_", text)
    return s if s[:1].isalpha() else f"m_{s}"


def _engine_sources(fmi: int | None) -> list[tuple[Path, str]]:
    """(file, name under sources/) of every engine C source and header the FMU needs; with
    ``fmi=None`` those of the standalone program (``rtmbs export-c``: no FMI layer, its own
    ``fmu/rt_*`` files)."""
    from ..engine import SOURCE_DIR

    files = []
    for p in sorted(SOURCE_DIR.rglob("*")):
        rel = p.relative_to(SOURCE_DIR)
        if p.suffix not in (".c", ".h") or rel.parts[0] in ("binding", "harness"):
            continue
        if rel.parts[0] == "fmu" and p.name in ("fmi2.c", "fmi3.c") and p.name != f"fmi{fmi}.c":
            continue
        if rel.parts[0] == "fmu" and p.name.startswith("rt_") and fmi is not None:
            continue
        files.append((p, rel.as_posix()))
    return files


def compile_binary(sources_dir: Path, c_files: list[str], out: Path, cc: str | None = None) -> None:
    """Build the FMU's shared library from ``sources_dir`` (the FMI headers from
    :func:`fmi_headers`)."""
    cc = cc or os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        raise RtmbsError("FMU export needs a C compiler (cc): apt-get install gcc")
    out.parent.mkdir(parents=True, exist_ok=True)
    inc = [f"-I{sources_dir}", f"-I{fmi_headers()}"]

    def run(cmd):
        r = subprocess.run(cmd, capture_output=True, text=True)
        if r.returncode != 0:
            raise RtmbsError(f"FMU export: the compiler failed:\n{' '.join(cmd)}\n{r.stderr}")

    # the object of a source depends on its text, the headers beside it, the compiler and the
    # flags: the engine's objects are compiled once per process and reused by later exports
    headers = hashlib.sha1(b"".join(p.read_bytes() for p in sorted(sources_dir.rglob("*.h"))))
    stamp = repr((cc, CFLAGS, inc[1:], headers.hexdigest())).encode()
    with tempfile.TemporaryDirectory(prefix="rtmbs_fmu_obj_") as tmp:
        objs = [Path(tmp) / f"{i}.o" for i in range(len(c_files))]
        keys = [hashlib.sha1(stamp + (sources_dir / f).read_bytes()).hexdigest() for f in c_files]

        def compile_one(i):
            if keys[i] in _OBJECTS:
                objs[i].write_bytes(_OBJECTS[keys[i]])
                return
            run([cc, *CFLAGS, *inc, "-c", str(sources_dir / c_files[i]), "-o", str(objs[i])])
            if c_files[i] != "model_data.c":
                _OBJECTS[keys[i]] = objs[i].read_bytes()

        # (one compiler per core: the sources compile independently)
        with ThreadPoolExecutor(max_workers=max(1, os.cpu_count() or 1)) as pool:
            list(pool.map(compile_one, range(len(c_files))))
        run([cc, *map(str, objs), "-o", str(out), *LDFLAGS])


#: compiled objects of the engine's sources in this process, by source, headers, compiler, flags
_OBJECTS: dict[str, bytes] = {}


def prepare(model, h: float, solver: str, solver_options: dict | None, what: str):
    """The model (a spec as ``rtmbs run`` takes, or a compiled ``CartesianSystem``) on a fresh
    data object, its solver class and options, its initial state after the solver's reset, and
    the li-euler plan (:func:`_plan`) that ``model_data.c`` compiles in; ``what`` names the
    export in the errors."""
    from ..solvers.base import get_solver
    from ..solvers.li_euler import is_compiled_cartesian

    if isinstance(model, (str, os.PathLike)):
        from ..realtime.modelspec import resolve_model

        spec, system = str(model), resolve_model(str(model))
    else:
        system = model
        spec = getattr(system, "name", "model")
    cls = get_solver(solver)
    if cls.name not in SOLVERS:
        raise SolverError(f"{what}: solver '{cls.name}' has no step in the C engine; an export "
                          f"carries one of: {', '.join(SOLVERS)}")
    options = dict(solver_options or {})
    slv = cls(system, **options)  # (the options are checked first)
    if not is_compiled_cartesian(system):
        raise RtmbsError(f"{what}: model '{spec}' is not a compiled body model "
                         "(CartesianSystem): its evaluation is not in the C engine")
    if slv.system is not slv.full_system:
        raise SolverError(f"{what}: model '{spec}' has redundant constraint rows "
                          f"({slv.full_system.m - slv.system.m} of m = {slv.full_system.m} left "
                          "out by the solver); an export carries the step of a model whose "
                          "constraint Jacobian has full row rank (docs/redundant.md)")
    if not slv.fused:
        raise SolverError(f"{what}: li-euler with options {options} does not take the "
                          "compiled step (the sparse path of a compiled model); drop "
                          "linear_solver='dense'")
    system = system.new_data()  # (a fresh data: channels at their initial values)
    slv = cls(system, **options)
    state = system.initial_state()
    slv.reset(state)
    plan = _plan(system, slv, state, float(h))
    return spec, system, cls, options, state, plan


def export_fmu(model, path, fmi: int = 2, h: float = 1e-3, solver: str = "li-euler",
               solver_options: dict | None = None, cc: str | None = None) -> Path:
    """Build the FMU ``path`` of ``model`` (a spec as ``rtmbs run`` takes, or a compiled
    ``CartesianSystem``) stepped by ``solver`` (li-euler) at ``h`` with ``solver_options``."""
    from ..io.meta import system_units

    if fmi not in (2, 3):
        raise RtmbsError(f"FMU export: --fmi {fmi!r}, expected 2 or 3")
    if not (isinstance(h, (int, float)) and math.isfinite(h) and h > 0):
        raise SolverError(f"step size h must be > 0 s, got {h!r}")
    spec, system, cls, options, state, plan = prepare(model, h, solver, solver_options,
                                                      "FMU export")

    units = system_units(system)
    model_obj = getattr(system, "model", None)
    etypes = {f.name: f.type for f in model_obj.forces} if model_obj is not None else {}
    ins = [dict(name=nm, start=float(s), description=f"input channel {nm}")
           for nm, s in zip(system.input_names, plan["in_start"])]
    outs = []
    for nm in system.output_names:
        unit = _ascii_unit(units.get(nm, ""))
        outs.append(dict(name=f"{nm}_out" if nm in system.input_names else nm, unit=unit,
                         description=_output_description(nm, unit, etypes)))
    opts = ", ".join(f"{k}={v}" for k, v in sorted(options.items())) or "default options"
    info = dict(model=system.name, h=float(h), inputs=ins, outputs=outs, version=_version(),
                date=datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
                description=f"rtmbs model {system.name} ({spec}): solver {cls.name} ({opts}), "
                f"h = {h:g} s fixed; communication steps are multiples of h")
    digest = hashlib.sha1(repr((spec, cls.name, sorted(options.items()), float(h), fmi))
                          .encode()).hexdigest()[:8]
    ident = _identifier(f"rtmbs_{system.name}_{digest}")
    body = model_data_source(dict(plan, token="", sizes=plan["sizes"]), "")
    token = "{" + str(uuid.UUID(hashlib.md5(body.encode()).hexdigest())) + "}"
    data_c = model_data_source(dict(plan, token=token),
                               f"rtmbs model {system.name}, solver {cls.name}, h = {h:g} s")
    path = Path(path)
    with tempfile.TemporaryDirectory(prefix="rtmbs_fmu_") as tmp:
        root = Path(tmp)
        src = root / "sources"
        files = _engine_sources(fmi)
        for p, rel in files:
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(p, src / rel)
        (src / "model_data.c").write_text(data_c)
        c_files = ["model_data.c"] + [rel for _, rel in files if rel.endswith(".c")]
        if fmi == 3:
            (src / "buildDescription.xml").write_text(build_description(ident, c_files))
        (root / "modelDescription.xml").write_text(model_description(fmi, ident, token, info,
                                                                     c_files))
        compile_binary(src, c_files, root / "binaries" / PLATFORM[fmi] / f"{ident}.so", cc)
        path.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as zf:
            for p in sorted(root.rglob("*")):
                if p.is_file():
                    zf.write(p, p.relative_to(root).as_posix())
    return path
