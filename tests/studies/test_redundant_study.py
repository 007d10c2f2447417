"""The quick redundant-constraints study (seed 002 Appendix Table 1, Figs 9-11): its report and
the physical findings it must reproduce."""
import json

import numpy as np
import pytest

from rtmbs.studies.redundant import (FORMULATION_ORDER, STABILIZATIONS, PAPER_TABLE1,
                                     run_redundant_study)

PNG = b"\x89PNG\r\n\x1a\n"


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("redundant")
    info = run_redundant_study(out, quick=True, progress=False, log=lambda *a: None)
    runs = {(r["strut"], r["stabilization"], r["tol"], r["formulation"]): r for r in info["runs"]}
    traj = dict(np.load(out / "trajectories.npz"))
    return out, info, runs, traj


def test_report_table_and_figures(study):
    out, info, runs, _ = study
    rep = (out / "report.md").read_text()
    assert "## Findings" in rep and "## Table 1" in rep
    tols = info["config"]["tolerances"]
    assert tols == [1e-3, 1e-6] and info["config"]["repeats"] == 1
    # one table per strut and stabilisation, headed with the paper's figure number
    for (strut, stab), (fig, _) in PAPER_TABLE1.items():
        assert f"### {strut} strut, stabilisation: {stab} (paper Fig. {fig})" in rep
    # every case is in the table: 2 struts × 3 stabilisations × 2 tolerances × 6 formulations
    assert len(runs) == 2 * 3 * 2 * len(FORMULATION_ORDER)
    for png in ("fig09_norms_none.png", "fig10_norms_baumgarte.png",
                "fig11_norms_partitioning.png", "fig03-08_times.png"):
        assert (out / png).read_bytes()[:8] == PNG
        assert f"]({png})" in rep
    assert json.loads((out / "results.json").read_text())["config"]["t_end"] == 2.0
    # the report names the fastest formulation per strut and compares it with the paper
    for strut in ("simplified", "overconstrained"):
        f = info["findings"][f"fastest_{strut}"]["by_total"]
        assert f"**{strut} strut: fastest here `{f}`**" in rep
    assert rep.count("with the paper") >= 2


def test_direct_not_applicable_on_overconstrained_strut(study):
    out, _, runs, _ = study
    for stab in STABILIZATIONS:
        for tol in (1e-3, 1e-6):
            over = runs[("overconstrained", stab, tol, "direct")]
            assert over["applicable"] is False
            assert over["short_reason"] == "redundant constraints (rank Φq = 26 < m = 31)"
            assert runs[("simplified", stab, tol, "direct")]["ok"] is True
            for f in FORMULATION_ORDER[1:]:  # every other formulation handles redundancy
                assert runs[("overconstrained", stab, tol, f)]["ok"] is True, f
    rep = (out / "report.md").read_text()
    assert ("`direct`: not applicable on the overconstrained strut — redundant constraints "
            "(rank Φq = 26 < m = 31)") in rep


def test_partitioning_holds_constraints_none_drifts(study):
    _, info, runs, _ = study
    for strut in ("simplified", "overconstrained"):
        for tol in (1e-3, 1e-6):
            for f in FORMULATION_ORDER:
                part = runs[(strut, "partitioning", tol, f)]
                if not part["applicable"]:
                    continue
                assert part["newton_tol"] == pytest.approx(1e-3 * tol)  # seed 002 §4.1
                assert part["phi_max"] <= 10 * part["newton_tol"]
                assert part["phid_max"] < 1e-10  # u̇ solved from the velocity constraints
                none = runs[(strut, "none", tol, f)]
                assert none["phi_max"] > 100 * part["newton_tol"]
                assert none["phi_last_quarter"] > 2 * none["phi_first_quarter"]  # drift grows
                baum = runs[(strut, "baumgarte", tol, f)]
                assert baum["phi_max"] < 0.2 * none["phi_max"]
    # Figs 9-11 (least-squares 2): q̈ satisfies Φq q̈ = γ to round-off without Baumgarte
    cn = info["findings"]["constraint_norms_fig"]
    assert cn["none"]["phidd_max"] < 1e-9 and cn["partitioning"]["phidd_max"] < 1e-9
    assert cn["baumgarte"]["phidd_max"] > 1e3 * cn["none"]["phidd_max"]


def test_same_trajectory_for_every_formulation_and_both_struts(study):
    _, _, runs, traj = study
    iv = traj["independent"]
    for stab in STABILIZATIONS:
        for tol in (1e-3, 1e-6):
            base = traj[f"simplified/{stab}/{tol:g}/least-squares-2"]
            assert np.ptp(base[:, iv[0]]) > 0.05  # the arm swings (not a trivial rest state)
            nfev = set()
            for strut in ("simplified", "overconstrained"):
                for f in FORMULATION_ORDER:
                    key = f"{strut}/{stab}/{tol:g}/{f}"
                    if key not in traj:
                        continue
                    assert np.abs(traj[key][:, iv] - base[:, iv]).max() < tol, key
                    nfev.add(runs[(strut, stab, tol, f)]["nfev"])
            assert len(nfev) == 1, (stab, tol, nfev)  # seed 002 §4.2: same RHS count


def test_accuracy_against_reference_and_cost(study):
    _, _, runs, traj = study
    iv = traj["independent"]
    for (strut, stab, tol, f), r in runs.items():
        if not r["applicable"]:
            continue
        loose = runs[(strut, stab, 1e-3, f)]
        tight = runs[(strut, stab, 1e-6, f)]
        assert tight["err_indep"] < 1e-2 * loose["err_indep"]
        assert tight["err_indep"] < 50 * 1e-6
        q = traj[f"{strut}/{stab}/{tol:g}/{f}"]
        assert np.abs(q[:, iv] - traj["q_ref"][:, iv]).max() == pytest.approx(r["err_indep"])
        # Baumgarte costs more right-hand sides than the plain index-1 ODE
        assert r["nfev"] > runs[(strut, "none", tol, f)]["nfev"] or stab != "baumgarte"


def test_study_struts_are_the_library_struts_away_from_the_zxz_singularity():
    """The arm's body frame has z along the hinge: its swing changes ψ only, θ stays at 90° and
    M stays regular (an earlier frame drove θ through 0, where M is singular)."""
    from rtmbs.models.mcpherson import build
    from rtmbs.solvers.simulate import simulate
    from rtmbs.studies.redundant import build_strut

    lib, ours = build(False), build_strut(False)
    kw = dict(t_end=2.6, h=0.02, method="DOP853", rtol=1e-10, atol=1e-10)
    r_lib, r_ours = simulate(lib, "reference", **kw), simulate(ours, "reference", **kw)
    names = lib.coordinate_names
    np.testing.assert_allclose(r_lib.q, r_ours.q, atol=1e-12)
    assert np.ptp(r_lib.q[:, names.index("arm.psi")]) > 1.0          # the arm swings ...
    assert np.ptp(r_lib.q[:, names.index("arm.theta")]) < 1e-9       # ... in ψ alone
    assert max(np.linalg.cond(lib.mass(q)) for q in r_lib.q) < 100  # M stays regular
