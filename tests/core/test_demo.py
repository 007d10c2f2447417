"""``rtmbs demo``, the README's first command, end to end in a fresh process: it exits 0, says no
warning, writes its results and a summary whose numbers are those of the results it wrote."""
from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest

from rtmbs.result import Result


@pytest.mark.slow
def test_the_demo_runs_clean_and_its_summary_is_its_results(tmp_path):
    out = tmp_path / "demo"
    p = subprocess.run([sys.executable, "-m", "rtmbs.cli", "demo", "--out", str(out)],
                       capture_output=True, text=True, timeout=600)
    assert p.returncode == 0, p.stderr
    assert "warning" not in p.stderr + p.stdout and "Traceback" not in p.stderr
    s = json.loads((out / "summary.json").read_text())
    assert set(s) == {"algorithm-1", "algorithm-2", "lane-change"}
    for label in ("algorithm-1", "algorithm-2"):
        res = Result.load(out / label / "result.h5")
        assert s[label]["max_tyre_load_N"] == pytest.approx(float(res.outputs["tyre.Fz"].max()))
        assert s[label]["max_constraint_norm"] < 1e-8
        assert (out / label / "bump.png").stat().st_size > 10_000
    # Algorithm 2's re-partitions are said on its own line, with the count the solver kept
    n = s["algorithm-2"]["repartitions"]
    assert n > 0 and f"chose its independent coordinates again {n} times" in p.stdout
    assert "repartitions" not in s["algorithm-1"]
    # the two algorithms agree on the bump's chassis travel to 1 %
    a, b = (s[k]["chassis_travel_mm"] for k in ("algorithm-1", "algorithm-2"))
    assert abs(a - b) <= 0.01 * a
    lane = Result.load(out / "lane-change" / "result.h5")
    assert np.isfinite(lane.q).all() and s["lane-change"]["cone_margin_min_m"] > 0.0
