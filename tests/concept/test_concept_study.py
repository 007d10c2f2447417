"""The quarter-car concept study (seed 003 §5.1.3-5.1.4), quick version: files, tables, and the
findings the report states (about 50 s on the 2-core machine, one run for the file)."""
from __future__ import annotations

import json

import pytest

from rtmbs.studies.concept import QUICK_ITERATIONS, run_concept_study

PNGS = ("fig_cost.png", "fig_test.png", "fig_V1.png", "fig_V2.png")


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("concept")
    lines = []
    res = run_concept_study(out, quick=True, log=lines.append)
    return out, res, lines


def test_files_and_tables(study):
    out, res, _ = study
    for f in PNGS + ("report.md", "results.json", "trajectories.npz"):
        assert (out / f).stat().st_size > 0, f
    text = (out / "report.md").read_text()
    for heading in ("Table 5.1", "Table 5.2", "Cost (µs per step"):
        assert heading in text
    assert json.loads((out / "results.json").read_text())["quick"] is True


def test_identification_lowers_the_cost_and_the_errors(study):
    _, res, _ = study
    st = res["identification"]["stacked"]
    assert 1 <= st["iterations"] <= QUICK_ITERATIONS + 1
    assert st["history"][-1] < 0.5 * st["history"][0]
    t51 = st["table_5_1"]
    for s in ("z", "vz"):   # the signals of the residual
        assert t51["after"][s] < t51["before"][s], s
    lo = {k: b[0] for k, b in res["bounds"].items()}
    hi = {k: b[1] for k, b in res["bounds"].items()}
    for k, v in st["params"].items():
        assert lo[k] <= v <= hi[k]


def test_explicit_euler_needs_half_a_millisecond(study):
    _, res, _ = study
    ee = res["explicit_euler"]
    assert ee["0.0005"]["status"] == 1
    assert ee["0.001"]["status"] == -1 and ee["0.001"]["diverged_at_s"] > 0
    # no timing is asserted (noisy machine); the three benches ran to the end
    assert {r["status"] for r in res["cost"].values()} == {"ok"} and len(res["cost"]) == 3
