"""Verdicts on the findings of the papers a study reproduces, computed from the run's numbers.

A *criterion* is a test on measured numbers that states itself in words: ``ok`` is True (the
finding holds), False (it does not hold) or None (not comparable: a number is missing or not
finite, e.g. a run that diverged or a part a quick run leaves out). A :class:`Finding` is the
paper's statement with its criterion, the numbers it was judged on and the verdict. The paper's
numbers are shown for comparison only; a criterion says what the statement asserts (an ordering,
a bound, a ratio within a tolerance), never "equals the paper's number".

Every study module writes one small pure function per finding (numbers in, :class:`Finding`
out) on these helpers, and :func:`findings_table` renders them in report.md.
"""
from __future__ import annotations

import math
from dataclasses import asdict, dataclass
from typing import Iterable, Mapping, Sequence

HOLDS = "holds"
FAILS = "does not hold"
NOT_COMPARABLE = "not comparable"
VERDICTS = (HOLDS, FAILS, NOT_COMPARABLE)


@dataclass(frozen=True)
class Criterion:
    """``ok``: True / False / None (not comparable); ``text``: the criterion in words;
    ``why``: for None, why the numbers cannot be compared."""

    ok: bool | None
    text: str
    why: str = ""


@dataclass(frozen=True)
class Finding:
    """One statement of a paper judged on this run: ``claim`` (the statement and where it is),
    ``verdict`` (one of :data:`VERDICTS`), ``criterion`` (in words), ``numbers`` (what was
    measured, with units), ``seed`` (the paper's numbers, for comparison)."""

    claim: str
    verdict: str
    criterion: str
    numbers: str
    seed: str = ""

    def as_dict(self) -> dict:
        return asdict(self)

    @property
    def holds(self) -> bool:
        return self.verdict == HOLDS


def finding(claim: str, crit: Criterion, numbers: str, seed: str = "") -> Finding:
    """The :class:`Finding` of ``claim`` under ``crit``; a not-comparable criterion's reason is
    appended to the numbers."""
    verdict = NOT_COMPARABLE if crit.ok is None else HOLDS if crit.ok else FAILS
    if crit.ok is None and crit.why:
        numbers = f"{numbers} ({crit.why})" if numbers else crit.why
    return Finding(claim=claim, verdict=verdict, criterion=crit.text, numbers=numbers, seed=seed)


# -- criteria -------------------------------------------------------------------------------
def _finite(*xs) -> bool:
    for x in xs:
        if x is None or isinstance(x, bool):
            return False
        try:
            if not math.isfinite(float(x)):
                return False
        except (TypeError, ValueError):
            return False
    return True


def _missing(text: str, why: str = "a number is missing or not finite") -> Criterion:
    return Criterion(None, text, why)


def at_most(x, limit: float, name: str = "x") -> Criterion:
    """``x ≤ limit``."""
    text = f"{name} ≤ {limit:g}"
    return Criterion(float(x) <= limit, text) if _finite(x) else _missing(text)


def at_least(x, limit: float, name: str = "x") -> Criterion:
    """``x ≥ limit``."""
    text = f"{name} ≥ {limit:g}"
    return Criterion(float(x) >= limit, text) if _finite(x) else _missing(text)


def below(x, limit: float, name: str = "x") -> Criterion:
    """``x < limit``."""
    text = f"{name} < {limit:g}"
    return Criterion(float(x) < limit, text) if _finite(x) else _missing(text)


def above(x, limit: float, name: str = "x") -> Criterion:
    """``x > limit``."""
    text = f"{name} > {limit:g}"
    return Criterion(float(x) > limit, text) if _finite(x) else _missing(text)


def within(x, lo: float, hi: float, name: str = "x") -> Criterion:
    """``lo ≤ x ≤ hi``."""
    text = f"{lo:g} ≤ {name} ≤ {hi:g}"
    return Criterion(lo <= float(x) <= hi, text) if _finite(x) else _missing(text)


def ratio_within(measured, reference, tol: float, name: str = "measured",
                 reference_name: str = "reference") -> Criterion:
    """``|measured / reference − 1| ≤ tol`` (reference ≠ 0): the measured number reproduces the
    reference to within the fraction ``tol``."""
    text = f"{name} / {reference_name} within 1 ± {tol:g}"
    if not _finite(measured, reference) or float(reference) == 0.0:
        return _missing(text)
    return Criterion(abs(float(measured) / float(reference) - 1.0) <= tol, text)


def ordering_holds(values: Mapping[str, float], order: Sequence[str], strict: bool = True,
                   unit: str = "") -> Criterion:
    """``values[order[0]] < values[order[1]] < …`` (``≤`` when not ``strict``)."""
    op = " < " if strict else " ≤ "
    text = op.join(order) + (f" ({unit})" if unit else "")
    xs = [values.get(k) for k in order]
    if not _finite(*xs):
        return _missing(text)
    ok = all((a < b) if strict else (a <= b) for a, b in zip(xs, xs[1:]))
    return Criterion(ok, text)


def is_true(flag, text: str) -> Criterion:
    """A measured yes/no fact (``flag`` None: not measured)."""
    if flag is None:
        return _missing(text, "not measured in this run")
    return Criterion(bool(flag), text)


def not_comparable(text: str, why: str) -> Criterion:
    """A finding this run cannot judge, and why."""
    return Criterion(None, text, why)


def all_of(*crits: Criterion) -> Criterion:
    """Every one of ``crits``: False if any is False, else None if any is None, else True."""
    text = "; and ".join(c.text for c in crits)
    oks = [c.ok for c in crits]
    if any(o is False for o in oks):
        return Criterion(False, text)
    if any(o is None for o in oks):
        return Criterion(None, text, "; ".join(c.why for c in crits if c.ok is None and c.why))
    return Criterion(True, text)


# -- rendering ------------------------------------------------------------------------------
def _cell(s) -> str:
    return str(s).replace("|", "\\|").replace("\n", " ")


def fmt_number(x, digits: int = 2, not_finite: str = "∞") -> str:
    """A report's number in ``digits``-digit scientific notation: "–" for None, a string as it
    is, ``not_finite`` for inf or NaN (a run that diverged)."""
    if x is None:
        return "–"
    if isinstance(x, str):
        return x
    if not math.isfinite(x):
        return not_finite
    return f"{x:.{digits}e}"


def tally(findings: Iterable[Finding]) -> str:
    """"N hold, M do not hold, K not comparable (of T)"."""
    fs = list(findings)
    n = {v: sum(f.verdict == v for f in fs) for v in VERDICTS}
    return (f"{n[HOLDS]} hold, {n[FAILS]} do not hold, {n[NOT_COMPARABLE]} not comparable "
            f"(of {len(fs)}).")


def findings_table(findings: Iterable[Finding], seed_column: bool = True) -> list[str]:
    """Markdown lines: one row per finding (#, finding, the paper's number, criterion, here, verdict) and the
    tally."""
    fs = list(findings)
    head = ["#", "finding"] + (["paper"] if seed_column else []) + ["criterion", "here", "verdict"]
    L = ["| " + " | ".join(head) + " |", "|" + " --- |" * len(head)]
    for k, f in enumerate(fs, 1):
        cells = [str(k), f.claim] + ([f.seed] if seed_column else []) + [f.criterion, f.numbers,
                                                                         f"**{f.verdict}**"]
        L.append("| " + " | ".join(_cell(c) for c in cells) + " |")
    L += ["", tally(fs)]
    return L


def findings_section(findings: Iterable[Finding], title: str, intro: str = "",
                     seed_column: bool = True) -> list[str]:
    """A ``## title`` section: the intro, the table and the tally."""
    L = [f"## {title}", ""]
    if intro:
        L += [intro, ""]
    return L + findings_table(findings, seed_column) + [""]
