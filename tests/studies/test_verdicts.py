"""The shared verdict machinery: each criterion flips when its number crosses the bound, missing
numbers are "not comparable", and the Markdown table shows criterion, numbers and verdict."""
import math

import pytest

from rtmbs.studies.verdicts import (FAILS, HOLDS, NOT_COMPARABLE, Criterion, above, all_of, at_least,
                                    at_most, below, finding, findings_section, findings_table,
                                    is_true, not_comparable, ordering_holds, ratio_within, tally,
                                    within)


@pytest.mark.parametrize("crit, x_ok, x_bad, text", [
    (lambda x: at_most(x, 0.4, "r"), 0.4, 0.41, "r ≤ 0.4"),
    (lambda x: at_least(x, 2.0, "r"), 2.0, 1.99, "r ≥ 2"),
    (lambda x: below(x, 1.0, "r"), 0.99, 1.0, "r < 1"),
    (lambda x: above(x, 1.0, "r"), 1.01, 1.0, "r > 1"),
    (lambda x: within(x, 0.67, 1.5, "r"), 1.5, 1.51, "0.67 ≤ r ≤ 1.5"),
    (lambda x: ratio_within(x, 0.30, 0.25, "cost", "seed"), 0.37, 0.38,
     "cost / seed within 1 ± 0.25"),
])
def test_criterion_flips_at_its_bound(crit, x_ok, x_bad, text):
    assert crit(x_ok) == Criterion(True, text)
    assert crit(x_bad) == Criterion(False, text)
    for missing in (None, math.nan, math.inf):
        c = crit(missing)
        assert c.ok is None and c.text == text and c.why == "a number is missing or not finite"


def test_ratio_within_is_two_sided_and_needs_a_reference():
    assert ratio_within(0.226, 0.30, 0.25).ok is True      # 0.753: inside 1 ± 0.25
    assert ratio_within(0.224, 0.30, 0.25).ok is False     # 0.747
    assert ratio_within(0.62, 0.30, 0.25).ok is False
    assert ratio_within(1.0, 0.0, 0.25).ok is None


def test_ordering():
    v = {"B": 1.0, "A": 2.0, "C": 2.0}
    assert ordering_holds(v, ["B", "A"]) == Criterion(True, "B < A")
    assert ordering_holds(v, ["A", "B"]).ok is False
    assert ordering_holds(v, ["B", "A", "C"]).ok is False              # strict: 2 < 2 fails
    assert ordering_holds(v, ["B", "A", "C"], strict=False) == Criterion(True, "B ≤ A ≤ C")
    assert ordering_holds(v, ["B", "D"]).ok is None                    # D not measured


def test_all_of_false_wins_over_missing():
    t, f, n = Criterion(True, "a"), Criterion(False, "b"), Criterion(None, "c", "quick run")
    assert all_of(t, t).ok is True
    assert all_of(t, f, n) == Criterion(False, "a; and b; and c")
    assert all_of(t, n) == Criterion(None, "a; and c", "quick run")


def test_finding_verdicts_and_table():
    fs = [finding("claim one", above(3.0, 1.0, "A/B"), "A 3, B 1", "1.55"),
          finding("claim | two", above(0.2, 1.0, "A/B"), "A 0.2, B 1", "3.27"),
          finding("claim three", not_comparable("ratio > 4", "full runs only"), "", "4×"),
          finding("claim four", is_true(None, "no run diverges"), "runs: —")]
    assert [f.verdict for f in fs] == [HOLDS, FAILS, NOT_COMPARABLE, NOT_COMPARABLE]
    assert fs[2].numbers == "full runs only"
    assert fs[3].numbers == "runs: — (not measured in this run)"
    L = findings_table(fs)
    assert L[0] == "| # | finding | paper | criterion | here | verdict |"
    assert L[2] == "| 1 | claim one | 1.55 | A/B > 1 | A 3, B 1 | **holds** |"
    assert L[3] == "| 2 | claim \\| two | 3.27 | A/B > 1 | A 0.2, B 1 | **does not hold** |"
    assert L[-1] == tally(fs) == "1 hold, 1 do not hold, 2 not comparable (of 4)."
    sec = findings_section(fs[:1], "Findings", "intro", seed_column=False)
    assert sec[:4] == ["## Findings", "", "intro", ""]
    assert sec[4] == "| # | finding | criterion | here | verdict |"
