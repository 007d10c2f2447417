"""The quick truck study writes its report and measures the seed 001 findings."""
import json

from rtmbs.studies.truck import run_truck_study


def test_quick_study_report_and_findings(tmp_path):
    s = run_truck_study(tmp_path, quick=True, log=lambda *a: None)
    rep = (tmp_path / "report.md").read_text()
    for head in ("## Table 1", "## Table 2", "## Table 3", "## Findings"):
        assert head in rep
    for png in ("truck_motion.png", "truck_constraint_violation.png", "truck_residuals.png"):
        assert (tmp_path / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert json.loads((tmp_path / "results.json").read_text())["quick"] is True
    t2 = {r["config"]: r for r in s["table2"]}
    g = {k: max(r["g1"], r["g2"]) for k, r in t2.items()}
    # seed 001 Table 2: GGL at round-off, Baumgarte far above it, unstabilised the worst
    assert g["DAE li-euler ggl"] < 1e-12
    assert g["DAE li-euler baumgarte"] > 1e3 * g["DAE li-euler ggl"]
    assert g["DAE li-euler none"] > 10 * g["DAE li-euler baumgarte"]
    # GRK4T more accurate than li-euler at every step size of Table 1 (both models)
    t1 = {(r["model"], r["solver"], r["h"]): r["err"] for r in s["table1"]}
    for (model, solver, h), err in t1.items():
        if solver == "rosenbrock-grk4t":
            assert err < 1e-2 * t1[(model, "li-euler", h)]
    # the three DAE runs reach the same accuracy (the error is li-euler's, not the drift's)
    errs = [t2[k]["err"] for k in ("DAE li-euler none", "DAE li-euler baumgarte",
                                   "DAE li-euler ggl")]
    assert max(errs) < 1.1 * min(errs)
    assert s["findings"]["ggl_at_roundoff"] and s["findings"]["grk4t_more_accurate_than_li_euler"]
    assert "ODE ab3" in t2 and not t2["ODE ab3"]["ok"]      # explicit AB3 fails at 1 ms
