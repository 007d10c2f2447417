"""Reader of TNO tyre property files (``.tir``): MF 5.2, PAC2002 and MF 6.1/6.2 keyword sets.

:func:`parse_tir` reads the text into sections of ``KEY = value`` entries (comments start with
``$`` or ``!`` outside quotes; quoted values are strings; ``[SHAPE]``-style tables are kept as
rows). :func:`load_tir` turns a file into :class:`TyreProperties`: the flat parameter array the
Magic Formula kernels read (:mod:`.magic_formula`), with the defaults listed in ``DEFAULTS``.
A missing required keyword, an unknown FITTYP or unit, or a value that is not a number raises
:class:`rtmbs.errors.ModelError` naming the file, the section and the keyword.
"""
from __future__ import annotations

import math
import re
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from ...errors import ModelError
from . import magic_formula as mfk

# Standard section of every parameter the kernels read (for messages and for look-up).
_SECTIONS = (
    ("MODEL", "LONGVL VXLOW"),
    ("DIMENSION", "UNLOADED_RADIUS"),
    ("OPERATING_CONDITIONS", "INFLPRES NOMPRES"),
    ("VERTICAL", "FNOMIN VERTICAL_STIFFNESS BREFF DREFF FREFF Q_RE0 Q_V1 PFZ1"),
    ("STRUCTURAL", "LONGITUDINAL_STIFFNESS LATERAL_STIFFNESS PCFX1 PCFX2 PCFX3 PCFY1 PCFY2 PCFY3"),
    ("VERTICAL_FORCE_RANGE", "FZMIN FZMAX"),
    ("LONG_SLIP_RANGE", "KPUMIN KPUMAX"),
    ("SLIP_ANGLE_RANGE", "ALPMIN ALPMAX"),
    ("INCLINATION_ANGLE_RANGE", "CAMMIN CAMMAX"),
    ("INFLATION_PRESSURE_RANGE", "PRESMIN PRESMAX"),
    ("SCALING_COEFFICIENTS",
     "LFZO LCX LMUX LEX LKX LHX LVX LCY LMUY LEY LKY LHY LVY LTR LRES LXAL LYKA "
     "LVYKA LS LKYC LKZC LVMX LMX LMY LSGKP LSGAL"),
    ("LONGITUDINAL_COEFFICIENTS",
     "PCX1 PDX1 PDX2 PDX3 PEX1 PEX2 PEX3 PEX4 PKX1 PKX2 PKX3 PHX1 PHX2 PVX1 PVX2 "
     "PPX1 PPX2 PPX3 PPX4 RBX1 RBX2 RBX3 RCX1 REX1 REX2 RHX1 PTX1 PTX2 PTX3"),
    ("OVERTURNING_COEFFICIENTS",
     "QSX1 QSX2 QSX3 QSX4 QSX5 QSX6 QSX7 QSX8 QSX9 QSX10 QSX11 QSX12 QSX13 QSX14 "
     "PPMX1"),
    ("LATERAL_COEFFICIENTS",
     "PCY1 PDY1 PDY2 PDY3 PEY1 PEY2 PEY3 PEY4 PEY5 PKY1 PKY2 PKY3 PKY4 PKY5 PKY6 "
     "PKY7 PHY1 PHY2 PHY3 PVY1 PVY2 PVY3 PVY4 PPY1 PPY2 PPY3 PPY4 PPY5 RBY1 RBY2 "
     "RBY3 RBY4 RCY1 REY1 REY2 RHY1 RHY2 RVY1 RVY2 RVY3 RVY4 RVY5 RVY6 PTY1 PTY2"),
    ("ROLLING_COEFFICIENTS", "QSY1 QSY2 QSY3 QSY4 QSY5 QSY6 QSY7 QSY8"),
    ("ALIGNING_COEFFICIENTS",
     "QBZ1 QBZ2 QBZ3 QBZ4 QBZ5 QBZ9 QBZ10 QCZ1 QDZ1 QDZ2 QDZ3 QDZ4 QDZ6 QDZ7 QDZ8 "
     "QDZ9 QDZ10 QDZ11 QEZ1 QEZ2 QEZ3 QEZ4 QEZ5 QHZ1 QHZ2 QHZ3 QHZ4 PPZ1 PPZ2 "
     "SSZ1 SSZ2 SSZ3 SSZ4"),
)
SECTION_OF: dict[str, str] = {n: sec for sec, names in _SECTIONS for n in names.split()}

#: Keywords without which the Magic Formula cannot be evaluated (no standard default).
REQUIRED = ("LONGVL", "UNLOADED_RADIUS", "FNOMIN", "VERTICAL_STIFFNESS",
            "PCX1", "PDX1", "PKX1", "PCY1", "PDY1", "PKY1", "PKY2", "QBZ1", "QCZ1", "QDZ1")

#: Coefficients that are > 0 in any physical tyre, with what 0 (or less) would do.
MUST_BE_POSITIVE = {
    "VXLOW": "the speed scale of the low-speed slip damping; 0 gives NaN forces at standstill",
    "PCX1": "the shape factor of Fx; 0 removes all longitudinal force",
    "PCY1": "the shape factor of Fy; 0 removes all lateral force",
}

#: Defaults of the optional keywords. Scaling factors are 1 (MF standard); PKY4 = 2 is the
#: fixed value of MF 5.2, which has no PKY4; BREFF, DREFF, FREFF, Q_RE0 and VXLOW are the
#: MF-Tyre defaults; range limits default to "no limit"; every other coefficient (shifts,
#: camber, pressure, combined-slip, overturning, rolling, MF 6.1-only terms) defaults to 0,
#: which switches its effect off, except the combined-slip coefficients
#: (:data:`COMBINED_SLIP_DEFAULTS`). INFLPRES/NOMPRES: see :func:`load_tir`.
DEFAULTS: dict[str, float] = {n: 0.0 for n in mfk.PARAM_NAMES}
DEFAULTS.update({n: 1.0 for n in mfk.PARAM_NAMES if SECTION_OF.get(n) == "SCALING_COEFFICIENTS"})
DEFAULTS.update(PKY4=2.0, BREFF=8.4, DREFF=0.27, FREFF=0.07, Q_RE0=1.0, VXLOW=1.0,
                FZMAX=math.inf, KPUMIN=-math.inf, KPUMAX=math.inf, ALPMIN=-math.inf,
                ALPMAX=math.inf, CAMMIN=-math.inf, CAMMAX=math.inf, PRESMIN=-math.inf,
                PRESMAX=math.inf)
#: Combined-slip coefficients (Pacejka 2012, eqs. 4.E50-4.E67) that MFeval fills when a file
#: lacks them, and so does this reader: 0 for RBX1, RBY1 or RCX1, RCY1 would switch the
#: combined-slip weighting off (G = 1) and give a resultant far outside the friction ellipse
#: (1.68 Fz for the Chrono sedan's PAC2002 file at kappa -0.2, alpha -0.15). The values are
#: MFeval's defaults (M. Furlan, MFeval, ``readTIR.m``), as reproduced in MFeval.jl
#: (github.com/matheusft/MFeval_julia, ``src/types/TireParams.jl``, "defaults matching
#: readTIR.m"); with them the sedan's file gives MFeval's Fx = 1286 N at Fz 4850 N, kappa
#: 0.05, alpha 0.2 (tests/vehicle/test_tyre_mf.py). The weighting
#: G_xa = cos(atan(B_xa alpha)) with B_xa = 20 cos(atan(15 kappa)) and G_yk = cos(atan(B_yk
#: kappa)) with B_yk = 10 cos(atan(10 alpha)); the kappa-induced side force S_Vyk has
#: D_Vyk = 0 (RVY1-3 = 0), so RVY4-6 only matter once RVY1-3 are given.
COMBINED_SLIP_DEFAULTS: dict[str, float] = dict(
    RBX1=20.0, RBX2=15.0, RBX3=0.0, RCX1=1.0, REX1=0.0, REX2=0.0, RHX1=0.0,
    RBY1=10.0, RBY2=10.0, RBY3=0.0, RBY4=0.0, RCY1=1.0, REY1=0.0, REY2=0.0, RHY1=0.0, RHY2=0.0,
    RVY1=0.0, RVY2=0.0, RVY3=0.0, RVY4=20.0, RVY5=2.0, RVY6=10.0)
DEFAULTS.update(COMBINED_SLIP_DEFAULTS)
for _n in REQUIRED:
    DEFAULTS.pop(_n)
DEFAULTS.pop("FAMILY")


class TyreDefaultsWarning(UserWarning):
    """A .tir file lacks coefficients that change its forces and they were filled with defaults
    (:data:`COMBINED_SLIP_DEFAULTS`)."""

#: FITTYP values understood, and the equation family used for each.
FITTYP_FAMILY = {6: "MF52", 21: "MF52", 61: "MF61", 62: "MF61"}
#: PROPERTY_FILE_FORMAT values accepted when FITTYP is absent.
FORMAT_FAMILY = {"PAC2002": "MF52", "MF_05": "MF52", "MF_52": "MF52", "MF_61": "MF61"}
#: SI units accepted in [UNITS] (lower case); other units are refused.
UNITS_OK = {
    "LENGTH": ("meter", "metre", "m"),
    "FORCE": ("newton", "n"),
    "ANGLE": ("radian", "radians", "rad"),
    "MASS": ("kg", "kilogram"),
    "TIME": ("second", "seconds", "s", "sec"),
}
#: MF 5.2 camber scaling factors not modelled (MFeval ignores them too): must be 1.
UNSUPPORTED_IF_NOT_ONE = ("LGAX", "LGAY", "LGAZ")

_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eEdD][+-]?\d+)?$")


@dataclass(frozen=True)
class TirEntry:
    """One ``KEY = value`` line: ``value`` is a float, a str (quoted) or the bare text."""

    section: str
    key: str
    raw: str
    value: float | str
    line: int
    quoted: bool = False


@dataclass
class TirFile:
    """A parsed .tir file: ``sections[name][KEY] -> TirEntry`` and table ``rows`` per section."""

    name: str
    sections: dict[str, dict[str, TirEntry]] = field(default_factory=dict)
    rows: dict[str, list[str]] = field(default_factory=dict)

    def find(self, key: str, section: str | None = None) -> TirEntry | None:
        """The entry ``key`` in ``section`` if there, else in any section but [UNITS]."""
        if section is not None and key in self.sections.get(section, {}):
            return self.sections[section][key]
        for sec, entries in self.sections.items():
            if sec != "UNITS" and key in entries:
                return entries[key]
        return None


def _strip_comment(line: str, where: str = "") -> str:
    """``line`` without its comment (``$`` or ``!`` outside quotes); a quote left open is an
    error naming ``where`` (the file and line): the rest of the line, comment included, would
    silently become the value."""
    quote, start = None, 0
    for i, ch in enumerate(line):
        if quote:
            if ch == quote:
                quote = None
        elif ch in "'\"":
            quote, start = ch, i
        elif ch in "$!":
            return line[:i]
    if quote:
        raise ModelError(where or "tyre property file",
                         f"unterminated quote: {line[start:].strip()!r} has no closing {quote}")
    return line


def _decode(data: bytes, name: str) -> str:
    """The text of a .tir file: UTF-8 (ASCII included), with or without a byte-order mark (an
    editor's BOM made the first line unreadable); other bytes are refused naming the
    line and column (latin-1 used to be assumed, so a damaged file passed silently)."""
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        bom = 3 if data.startswith(b"\xef\xbb\xbf") else 0  # offsets count from after it
        pos = exc.start + bom
        line = data.count(b"\n", 0, pos) + 1
        col = pos - (data.rfind(b"\n", 0, pos) + 1) + 1 - (bom if line == 1 else 0)
        raise ModelError(f"{name}:{line}", f"not UTF-8 text (byte 0x{data[pos]:02x} at "
                         f"column {col}); save the file as UTF-8 or ASCII") from None


def parse_number(text: str) -> float | None:
    """A float from ``1.0e+00``, ``-.5``, ``3.``, ``1.5D-3``; None if ``text`` is not a number."""
    t = text.strip()
    if not _NUMBER.match(t):
        return None
    return float(t.replace("D", "e").replace("d", "e"))


def parse_tir(source, name: str | None = None) -> TirFile:
    """Parse a .tir file (a path, or the text itself when ``name`` is given)."""
    if name is None:
        path = Path(source)
        try:
            data = path.read_bytes()
        except OSError as exc:
            raise ModelError(str(path), f"cannot read tyre property file ({exc.strerror})") from None
        name = path.name
        text = _decode(data, name)
    else:
        text = str(source).removeprefix("\ufeff")
    tir = TirFile(name=name)
    section = ""
    for lineno, line in enumerate(text.splitlines(), start=1):
        where = f"{name}:{lineno}" + (f" [{section}]" if section else "")
        if "=" in line:
            where += " " + line.partition("=")[0].strip().upper()
        body = _strip_comment(line, where).strip()
        if not body:
            continue
        if body.startswith("["):
            if not body.endswith("]"):
                raise ModelError(f"{name}:{lineno}", f"bad section header {body!r}; expected [NAME]")
            section = body[1:-1].strip().upper()
            tir.sections.setdefault(section, {})
            continue
        if "=" not in body:
            if body[0].isalpha() or body[0] == "_":
                raise ModelError(f"{name}:{lineno} [{section}]",
                                 f"line {body!r} is not 'KEY = value'")
            tir.rows.setdefault(section, []).append(body)  # table row, e.g. [SHAPE]
            continue
        key, _, value = body.partition("=")
        key = key.strip().upper()
        value = value.strip()
        if not key:
            raise ModelError(f"{name}:{lineno} [{section}]", f"line {body!r} has no keyword")
        quoted = len(value) >= 2 and value[0] in "'\"" and value[-1] == value[0]
        if quoted:
            parsed: float | str = value[1:-1]
        else:
            num = parse_number(value)
            parsed = num if num is not None else value
        tir.sections.setdefault(section, {})[key] = TirEntry(section, key, value, parsed,
                                                              lineno, quoted)
    return tir


@dataclass(frozen=True)
class TyreProperties:
    """A tyre ready for the Magic Formula kernels.

    ``params (N_PARAM,)`` is indexed by ``magic_formula.I_*``; ``family`` is ``'MF52'`` (MF 5.2,
    PAC2002) or ``'MF61'``; ``defaulted`` names the parameters that took a default.
    """

    name: str
    family: str
    fittyp: int | None
    property_file_format: str
    tyreside: str
    params: np.ndarray
    defaulted: tuple[str, ...]
    tir: TirFile

    def __getitem__(self, key: str) -> float:
        return float(self.params[mfk.PARAM_NAMES.index(key)])

    def evaluate(self, Fz, kappa, alpha, gamma=0.0, Vx=None):
        """Steady-state outputs for arrays of inputs (broadcast); see :func:`.evaluate`."""
        from .api import evaluate

        return evaluate(self, Fz, kappa, alpha, gamma, Vx)


def _number(tir: TirFile, entry: TirEntry) -> float:
    if isinstance(entry.value, float) and not entry.quoted:
        return entry.value
    what = f"value {entry.raw} is a quoted string," if entry.quoted else f"value {entry.raw!r} is"
    raise ModelError(f"{tir.name}:{entry.line} [{entry.section}] {entry.key}",
                     f"{what} not a number; expected e.g. 1.0e+00")


def load_tir(path) -> TyreProperties:
    """Read a .tir file and build the parameter array; raise ModelError on a bad file."""
    tir = parse_tir(path)
    return properties_from_tir(tir)


def properties_from_tir(tir: TirFile) -> TyreProperties:
    """Check ``tir`` and build :class:`TyreProperties` from it."""
    name = tir.name

    def where(key: str) -> str:
        return f"{name}: [{SECTION_OF.get(key, 'MODEL')}] {key}"

    for key, allowed in UNITS_OK.items():
        e = tir.sections.get("UNITS", {}).get(key)
        if e is not None and str(e.value).strip().lower() not in allowed:
            raise ModelError(f"{name}:{e.line} [UNITS] {key}",
                             f"unit {e.raw} is not supported; expected '{allowed[0]}' (SI units)")

    # Model family: FITTYP, else PROPERTY_FILE_FORMAT.
    e_fmt = tir.find("PROPERTY_FILE_FORMAT", "MODEL")
    fmt = str(e_fmt.value).strip().upper() if e_fmt is not None else ""
    e_fit = tir.find("FITTYP", "MODEL")
    fittyp = None
    if e_fit is not None:
        value = _number(tir, e_fit)
        fittyp = int(value) if value == int(value) else None
        if fittyp not in FITTYP_FAMILY:
            raise ModelError(f"{name}:{e_fit.line} [MODEL] FITTYP",
                             f"unknown value {e_fit.raw}; expected one of "
                             f"{', '.join(str(k) for k in FITTYP_FAMILY)} (6/21: MF 5.2, 61: MF 6.1, "
                             "62: MF 6.2)")
        family = FITTYP_FAMILY[fittyp]
    elif fmt in FORMAT_FAMILY:
        family = FORMAT_FAMILY[fmt]
    else:
        raise ModelError(f"{name}: [MODEL] FITTYP",
                         "missing, and PROPERTY_FILE_FORMAT "
                         f"{e_fmt.raw if e_fmt else '(missing)'} does not name the model; expected "
                         "FITTYP = 6, 21, 61 or 62, or PROPERTY_FILE_FORMAT = "
                         + ", ".join(f"'{k}'" for k in FORMAT_FAMILY))

    p = np.empty(mfk.N_PARAM)
    defaulted = []
    for i, key in enumerate(mfk.PARAM_NAMES):
        if key == "FAMILY":
            p[i] = mfk.FAMILY_MF52 if family == "MF52" else mfk.FAMILY_MF61
            continue
        e = tir.find(key, SECTION_OF[key])
        if e is not None:
            p[i] = _number(tir, e)
        elif key in DEFAULTS:
            p[i] = DEFAULTS[key]
            defaulted.append(key)
        else:
            raise ModelError(where(key), "missing required keyword; the Magic Formula needs it "
                             "(expected a number)")

    # Inflation pressure: absent in MF 5.2 files; then dpi = 0.
    idx = {k: mfk.PARAM_NAMES.index(k) for k in ("INFLPRES", "NOMPRES")}
    has_inf, has_nom = "INFLPRES" not in defaulted, "NOMPRES" not in defaulted
    if not has_nom:
        p[idx["NOMPRES"]] = p[idx["INFLPRES"]] if has_inf else 1.0
    if not has_inf:
        p[idx["INFLPRES"]] = p[idx["NOMPRES"]]

    for key in ("UNLOADED_RADIUS", "FNOMIN", "VERTICAL_STIFFNESS", "LONGVL", "NOMPRES", "LFZO"):
        if not p[mfk.PARAM_NAMES.index(key)] > 0.0:
            raise ModelError(where(key), f"value {p[mfk.PARAM_NAMES.index(key)]:g} must be > 0")
    for key, why in MUST_BE_POSITIVE.items():
        value = p[mfk.PARAM_NAMES.index(key)]
        if not value > 0.0:
            e = tir.find(key, SECTION_OF[key])
            raise ModelError(f"{name}:{e.line} [{e.section}] {key}" if e else where(key),
                             f"value {value:g} must be > 0 ({why})")
    for key in UNSUPPORTED_IF_NOT_ONE:
        e = tir.find(key, "SCALING_COEFFICIENTS")
        if e is not None and _number(tir, e) != 1.0:
            raise ModelError(f"{name}:{e.line} [SCALING_COEFFICIENTS] {key}",
                             f"value {e.raw} is not supported; expected 1 (MF 5.2 camber "
                             "scaling is not modelled)")

    filled = [k for k in COMBINED_SLIP_DEFAULTS if k in defaulted]
    if filled:
        # one line per file and process (the default filter shows a text once per location)
        warnings.warn(f"{name}: no combined-slip coefficients {_ranges(filled)}; filled with "
                      "MFeval's defaults (RBX1 = 20, RBX2 = 15, RCX1 = 1, RBY1 = 10, RBY2 = 10, "
                      "RCY1 = 1, RVY4 = 20, RVY5 = 2, RVY6 = 10, others 0)",
                      TyreDefaultsWarning, stacklevel=1)
    e_side = tir.find("TYRESIDE", "MODEL")
    return TyreProperties(
        name=name, family=family, fittyp=fittyp, property_file_format=fmt,
        tyreside=str(e_side.value).upper() if e_side is not None else "LEFT",
        params=p, defaulted=tuple(defaulted), tir=tir)


def _ranges(keys: list[str]) -> str:
    """``RBX1-3, RCX1`` for ``[RBX1, RBX2, RBX3, RCX1]``: runs of one stem's numbers joined."""
    parts: list[str] = []
    for key in keys:
        stem, num = key.rstrip("0123456789"), key[len(key.rstrip("0123456789")):]
        prev = parts[-1] if parts else ""
        pstem = prev.rstrip("0123456789-")
        last = prev[len(prev.rstrip("0123456789")):]
        if prev and pstem == stem and last and int(num) == int(last) + 1:
            head = prev.rsplit("-", 1)[0] if "-" in prev[len(stem):] else prev
            parts[-1] = f"{head}-{num}"
        else:
            parts.append(key)
    return ", ".join(parts)


#: property files shipped in rtmbs/data/tyre, by short name
SHIPPED = {"MF61": "chrono_MagicFormula61_Parameters.tir", "MF52": "chrono_MagicFormula52_Parameters.tir",
           "PAC2002": "chrono_Sedan_Pac02Tire.tir"}


def data_path(filename: str) -> Path:
    """Path of a file shipped in ``rtmbs/data/tyre`` (e.g. ``chrono_Sedan_Pac02Tire.tir``)."""
    return Path(__file__).resolve().parents[2] / "data" / "tyre" / filename


def shipped_or_path(tyre: str) -> Path:
    """The .tir file of a shipped short name (:data:`SHIPPED`) or of a path."""
    return data_path(SHIPPED[tyre]) if tyre in SHIPPED else Path(tyre)
