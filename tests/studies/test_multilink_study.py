"""The rear multilink study (Carpinelli 2016 §6 / Carpinelli 2015 §4.4), quick version: the report and its
figures exist, and the physics and numbers in it are what the seed's study shows.

One quick run (about 50-60 s on the 2-core machine) shared by every test of this file."""
from __future__ import annotations

import json

import numpy as np
import pytest

from rtmbs.models import multilink as ML
from rtmbs.studies.multilink import (
    ALGORITHMS, FORCE_COMPONENTS, QUICK, STABS, TORQUE, TORQUE_COMPONENTS, VARIANTS,
    run_multilink_study,
)

#: ‖Φ‖ of a run with the projection step (eq. 30) stays below this (measured ≤ 9e-7: the
#: residual of the Euler-parameter rows of the spinning wheel and the swinging links, O((hω)²)).
PHI_PROJECTED_MAX = 1e-5
#: Without projection ‖Φ‖ drifts at least this many times higher (measured 90× ideal, 8000×
#: bushings).
DRIFT_FACTOR = 30.0
#: Chassis CG height RMS error at h = 1 ms against the reference: projected runs (measured
#: 3.5-5e-5 m) and all runs (the unprojected bushings runs drift: measured 1.4e-3 m).
Z_RMS_PROJECTED = 2e-4
Z_RMS_ANY = 5e-3
PNGS = ("fig_phi.png",) + tuple(f"fig_{k}_{v}.png" for v in VARIANTS
                                for k in ("cg", "mount_force", "mount_torque"))


@pytest.fixture(scope="module")
def study(tmp_path_factory):
    out = tmp_path_factory.mktemp("multilink")
    lines = []
    res = run_multilink_study(out, quick=True, log=lines.append)
    return out, res, lines


def test_files_and_tables(study):
    out, res, lines = study
    assert any("reference" in ln for ln in lines) and lines[-1].startswith("done")
    for name in PNGS:
        data = (out / name).read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n", name
        assert len(data) > 10_000, f"{name}: {len(data)} bytes, an empty figure?"
    rep = (out / "report.md").read_text()
    for title in ("## Computing time per phase", "### Algorithm 1 (`li-euler`)",
                  "### Algorithm 2 (`li-euler-indep`)", "## µs per step without instrumentation",
                  "## Constraint violation", "## Accuracy against the reference",
                  "## Reference solution", "## Findings"):
        assert title in rep, title
    for name in PNGS:
        assert f"]({name})" in rep, f"{name} not linked from the report"
    saved = json.loads((out / "results.json").read_text())
    assert saved["bench"] == pytest.approx(res["bench"])
    npz = np.load(out / "trajectories.npz")
    n = int(round(QUICK["t_end"] / 1e-3)) + 1
    assert npz["ideal/t"].shape == (n,) and npz["bushings/li-euler-indep/none/z"].shape == (n,)


def test_sizes_of_the_linear_systems(study):
    """Carpinelli 2016 §6.2: n + m = 108 / 143 for Algorithm 1, f = 46 / 11 for Algorithm 2."""
    _, res, _ = study
    V = res["variants"]
    for var, (m, f) in {"bushings": (31, 46), "ideal": (66, 11)}.items():
        assert (V[var]["n"], V[var]["m"], V[var]["f"]) == (77, m, f)
        for stab in STABS:
            assert V[var]["runs"][f"li-euler/{stab}"]["system_size"] == 77 + m
            assert V[var]["runs"][f"li-euler-indep/{stab}"]["system_size"] == f
    assert "| 11×11 |" in (study[0] / "report.md").read_text()


def test_fore_left_mount_from_the_hard_points(study):
    _, res, _ = study
    pts = np.array(ML.HARD_POINTS["subframe_mounts"])
    k = max(range(4), key=lambda i: (pts[i, 0], pts[i, 1]))
    for var in VARIANTS:
        assert res["variants"][var]["mount"] == f"subframe_mount_{k + 1}"


def test_projection_bounds_the_constraint_violation(study):
    _, res, _ = study
    for var in VARIANTS:
        runs = res["variants"][var]["runs"]
        for solver, _ in ALGORITHMS:
            proj = runs[f"{solver}/projection"]["phi_max"]
            none = runs[f"{solver}/none"]["phi_max"]
            assert proj <= PHI_PROJECTED_MAX, (var, solver, proj)
            assert none >= DRIFT_FACTOR * proj, (var, solver, none, proj)
        assert res["findings"]["projection"][var]["projection_bounds_phi_alg1"] is True


def test_manoeuvre_settles_then_drives_forward(study):
    """The bounce after the drop decays before the torque; the torque accelerates the corner
    forward at nearly the rigid-rolling value T / (r (M + J/r²))."""
    _, res, _ = study
    J = 1.25  # rim spin inertia (the shafts add < 0.01 kg m² at the wheel)
    a_rigid = TORQUE / (ML.WHEEL_CENTRE_Z * (ML.TOTAL_MASS + J / ML.WHEEL_CENTRE_Z ** 2))
    for var in VARIANTS:
        mv = res["variants"][var]["manoeuvre"]
        assert mv["vz_peak_fall"] > 0.05  # it did fall (1 cm drop)
        assert mv["vz_max_before_torque"] < 0.35 * mv["vz_peak_fall"], mv
        assert 0.8 * a_rigid < mv["accel_after_torque"] < 1.05 * a_rigid, (mv, a_rigid)
        assert mv["x_end"] - mv["x_at_torque"] > 0.02
        # the wheel met the bump: the chassis rose by more than 1 cm after the torque
        assert mv["z_range_after_torque"] > 0.01


def test_accuracy_against_the_reference(study):
    _, res, _ = study
    for var in VARIANTS:
        V = res["variants"][var]
        ref_self = V["reference"]["diff_check_rms"]["z"]
        for solver, _ in ALGORITHMS:
            for stab in STABS:
                r = V["runs"][f"{solver}/{stab}"]
                assert r["status"] == "finished"
                bound = Z_RMS_PROJECTED if stab == "projection" else Z_RMS_ANY
                assert r["rms"]["z"] < bound, (var, solver, stab, r["rms"]["z"])
                # the reference is closer to the truth than the runs it judges
                assert ref_self < 0.5 * r["rms"]["z"], (var, solver, stab, ref_self)
                for c in FORCE_COMPONENTS + TORQUE_COMPONENTS + ("vz", "az"):
                    assert np.isfinite(r["rms"][c]) and r["rms"][c] > 0.0
        # with projection Algorithms 1 and 2 are equally accurate (Carpinelli 2016 §6.2)
        e1 = V["runs"]["li-euler/projection"]["rms"]["z"]
        e2 = V["runs"]["li-euler-indep/projection"]["rms"]["z"]
        assert 0.67 < e2 / e1 < 1.5


def test_phase_times_and_findings(study):
    out, res, _ = study
    rep = (out / "report.md").read_text()
    for var in VARIANTS:
        for solver, _ in ALGORITHMS:
            for stab in STABS:
                r = res["variants"][var]["runs"][f"{solver}/{stab}"]
                ph = r["phase_us"]
                assert r["phase_total_us"] == pytest.approx(sum(ph.values()))
                assert (ph["projection"] > 0.0) == (stab == "projection")
                assert ph["evaluation"] > 0.0 and ph["factorisation"] > 0.0
                assert res["bench"][f"{var}/{solver}/{stab}/default"] > 0.0
    f = res["findings"]
    for var, key in (("ideal", "alg2_beats_alg1_ideal"), ("bushings", "alg2_beats_alg1_bushings")):
        x = f[f"{var}/none"]
        assert f[key] is (x["alg2_us"] < x["alg1_us"])
        word = "yes" if f[key] else "no"
        on = "ideal-joints model" if var == "ideal" else "bushings model"
        assert f"{on}: **{word}**" in rep


def test_every_seed_finding_has_a_verdict(study):
    """Each finding of Carpinelli 2016 §6.2 is listed with its criterion, the numbers and
    holds / does not hold / not comparable, and the like-for-like (dense against dense) verdict
    agrees with the bench."""
    out, res, _ = study
    rep = (out / "report.md").read_text()
    rows = res["seed_findings"]
    assert len(rows) == 15
    for k, x in enumerate(rows, 1):
        assert x["verdict"] in ("holds", "does not hold", "not comparable")
        cells = [str(k), x["claim"], x["seed"], x["criterion"], x["numbers"], f"**{x['verdict']}**"]
        assert "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |" in rep
    b = res["bench"]
    like = next(x for x in rows if "like for like" in x["claim"])
    ri = b["ideal/li-euler-indep/none/default"] / b["ideal/li-euler/none/dense"]
    rb = b["bushings/li-euler-indep/none/default"] / b["bushings/li-euler/none/dense"]
    assert (like["verdict"] == "holds") is (ri < 1.0 < rb)
    assert f"{ri:.2f} ideal, {rb:.2f} bushings" in like["numbers"]


def test_report_names_the_projection_it_used(study):
    """The projection runs use li-euler's default projection (eq. 30's system with the factors
    of eq. 22, two corrections), and the report names that, not "eq. 30" alone."""
    out, res, _ = study
    assert res["projection"] == "step"
    assert res["solver_options"]["li-euler"] == {"projection": "step", "projection_solves": 2}
    rep = (out / "report.md").read_text()
    assert ("Algorithm 1 eq. 30's system with the factors of eq. 22 (metric M − hJq̇ − h²Jq, "
            "Φq at q), two corrections") in rep
    assert "| projection: eq. 30's system with the factors of eq. 22" in rep
