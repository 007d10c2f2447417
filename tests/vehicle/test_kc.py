"""K&C sweeps (rtmbs.analysis.kc, ``rtmbs kc``) against hand computations on an SLA."""
from __future__ import annotations

import csv
import math

import numpy as np
import pytest
import yaml

from rtmbs.analysis.kc import kc_sweep, parse_range
from rtmbs.errors import ModelError
from rtmbs.vehicle.build import sedan_model, vehicle_from_dict
from rtmbs.vehicle.build.vehicle import SEDAN

# Test SLA (left side, suspension frame): both arms horizontal and of length L = 0.3 m, pivot
# axes along x, upright balls on one vertical line: a parallelogram in the y-z plane. The tie
# rod is parallel to the arms and as long (chassis end fixed), so the upright only translates.
# A vertical spring of rate K on the lower arm at a = 0.15 m from its pivot axis, h = 0.4 m long.
L, A, H, K, PRELOAD = 0.3, 0.15, 0.4, 85000.0, 6000.0
PIVOT_LOWER_Z = -0.2
SLA = {
    "template": "double-wishbone",
    "position": [2.776, 0.0, 0.4519],
    "hard_points": {
        "upper_arm_front": [0.1, 0.45, 0.1], "upper_arm_back": [-0.1, 0.45, 0.1],
        "upper_arm_upright": [0.0, 0.45 + L, 0.1],
        "lower_arm_front": [0.2, 0.45, PIVOT_LOWER_Z], "lower_arm_back": [-0.2, 0.45, PIVOT_LOWER_Z],
        "lower_arm_upright": [0.0, 0.45 + L, PIVOT_LOWER_Z],
        "tie_rod_inner": [-0.15, 0.45, -0.05], "tie_rod_outer": [-0.15, 0.45 + L, -0.05],
        "spring_chassis": [0.0, 0.45 + A, PIVOT_LOWER_Z + H],
        "spring_arm": [0.0, 0.45 + A, PIVOT_LOWER_Z],
        "wheel_centre": [0.0, 0.80, -0.05]},
    "alignment": {"camber_deg": 0.0, "toe_in_deg": 0.0},
    "bodies": {"upright": {"mass": 1.4, "inertia": [0.014, 0.015, 0.003], "centre": [0.0, 0.76, -0.05]},
               "upper_arm": {"mass": 1.0, "inertia": [0.006, 0.002, 0.008], "centre": [0.0, 0.6, 0.1]},
               "lower_arm": {"mass": 1.6, "inertia": [0.015, 0.02, 0.035], "centre": [0.0, 0.6, -0.2]}},
    "spring": {"stiffness": K, "preload": PRELOAD},
    "damper": {"damping": 5000.0},
}


def sla_vehicle() -> dict:
    """The sedan with the test SLA at the front (no steering, no front bar)."""
    data = yaml.safe_load((SEDAN / "vehicle.yaml").read_text())
    subs = data["subsystems"]
    for role in ("steering", "front_antiroll"):
        subs.pop(role)
    subs["front_suspension"] = SLA
    return data


def sla_model():
    return vehicle_from_dict(sla_vehicle(), SEDAN, "sla")


def hand_force(z):
    """Fz(z) of the test SLA by virtual work: θ = asin(z/L), spring length l(θ) between the
    chassis point (a, h) and the arm point (a cosθ, a sinθ) about the lower pivot,
    Fz = −F(l)·(dl/dθ)/(dz/dθ) with F = K·(l0 − l) the compression force, dz/dθ = L cosθ."""
    th = np.arcsin(z / L)
    u, v = A - A * np.cos(th), H - A * np.sin(th)
    ell = np.hypot(u, v)
    dl = (u * A * np.sin(th) - v * A * np.cos(th)) / ell
    return -K * (H + PRELOAD / K - ell) * dl / (L * np.cos(th))


def test_parallel_equal_arms_keep_camber_and_toe_and_follow_the_arc():
    z = np.linspace(-0.08, 0.08, 9)
    r = kc_sweep(sla_model(), "front-left", z)
    t = r.travel
    assert np.allclose(t["travel"], 1e3 * z, atol=1e-9)
    assert np.abs(t["camber"]).max() < 1e-7
    assert np.abs(t["toe_in"]).max() < 1e-7
    arc = 1e3 * (np.sqrt(L ** 2 - z ** 2) - L)
    assert np.allclose(t["track_change"], arc, atol=1e-7)
    # the wheel plane translates: the contact point moves like the wheel centre
    assert np.allclose(t["track_change_contact"], arc, atol=1e-7)
    assert np.allclose(t["Fz"], hand_force(z), rtol=1e-8, atol=1e-6)


def test_wheel_rate_at_design_is_k_times_motion_ratio_squared():
    """At design, dl/dz = −a/L (motion ratio a/L) and d²l/dz² = 0 (the spring is normal to the
    arm), so the wheel rate is K·(a/L)² and the load is the preload times a/L."""
    r = kc_sweep(sla_model(), "front-left", [-1e-4, 0.0, 1e-4])
    assert r.summary["Fz_N"] == pytest.approx(PRELOAD * A / L, rel=1e-9)
    assert r.summary["wheel_rate_N_per_m"] == pytest.approx(K * (A / L) ** 2, rel=1e-5)
    assert r.summary["camber_gain_deg_per_m"] == pytest.approx(0.0, abs=1e-5)
    assert r.steering is None  # tie rods on the chassis: nothing to steer


@pytest.fixture(scope="module")
def sedan_front():
    m = sedan_model()
    z, rack = np.linspace(-0.06, 0.06, 5), np.linspace(-0.02, 0.02, 5)
    return {c: kc_sweep(m, c, z, rack) for c in ("front-left", "front-right")}


def test_sedan_design_alignment_and_mirror(sedan_front):
    left, right = sedan_front["front-left"], sedan_front["front-right"]
    # the file's alignment (camber −0.5°, toe-in +0.1°) read back with the stated conventions
    assert left.summary["camber_deg"] == pytest.approx(-0.5, abs=1e-8)
    assert left.summary["toe_in_deg"] == pytest.approx(0.1, abs=1e-8)
    for col in ("camber", "toe_in", "track_change", "track_change_contact", "Fz", "wheel_rate"):
        assert np.allclose(left.travel[col], right.travel[col], rtol=1e-8, atol=1e-8), col
    assert np.allclose(left.travel["steer"], -right.travel["steer"], atol=1e-8)
    # the spring carries load at design and stiffens in bump
    assert left.summary["Fz_N"] > 0 and left.summary["wheel_rate_N_per_m"] > 0


def test_sedan_steering_sign_and_mirror(sedan_front):
    """Tie rods behind the wheel centre (x = −0.15 m): the rack moving left pulls the steering
    arms left, the fronts of the wheels turn right, so the steer angle falls with rack travel."""
    left, right = sedan_front["front-left"].steering, sedan_front["front-right"].steering
    assert np.all(left["steer_gain"] < 0)
    # left wheel at +r is the mirror of the right wheel at −r
    assert np.allclose(left["steer"], -right["steer"][::-1], atol=1e-8)
    assert np.allclose(left["steer_other"], right["steer"], atol=1e-10)
    # the toe-in of the design appears as the angle at zero rack travel (left wheel: −toe-in)
    assert left["steer"][2] == pytest.approx(-0.1, abs=1e-8)


def test_sedan_steering_ratio_from_the_pinion(sedan_front):
    """The sedan's pinion (rack travel = −0.0075 m/rad): the handwheel column is the rack travel
    over the ratio, and the steering ratio at centre is close to the secant ratio handwheel /
    mean road-wheel angle (toe-in removed) at ±20 mm of rack; a plausible sedan value, 15-20."""
    st, s = sedan_front["front-left"].steering, sedan_front["front-left"].summary
    ratio = yaml.safe_load((SEDAN / "steering.yaml").read_text())["ratio"]
    assert np.allclose(st["handwheel"], np.degrees(1e-3 * st["rack_travel"] / ratio), rtol=1e-12)
    mean = 0.5 * (st["steer"] + st["steer_other"])      # the toe-ins cancel in the mean
    assert mean[2] == pytest.approx(0.0, abs=1e-8)
    secant = st["handwheel"][[0, 4]] / mean[[0, 4]]
    assert np.all(secant > 0)                            # a left turn steers left
    assert s["steering_ratio"] == pytest.approx(secant.mean(), rel=0.03)
    assert 15.0 < s["steering_ratio"] < 20.0
    assert s["rack_travel_per_turn_mm"] == pytest.approx(47.12, abs=0.01)


def test_bad_corner_mode_and_range_are_named():
    m = sla_model()
    with pytest.raises(ModelError) as e:
        kc_sweep(m, "front-lft")
    assert str(e.value) == ("--corner: unknown corner 'front-lft' (did you mean 'front-left'? "
                            "known: front-left, front-right, rear-left, rear-right)")
    with pytest.raises(ModelError, match=r"^--mode: unknown mode 'diagonal'"):
        kc_sweep(m, "front-left", mode="diagonal")
    with pytest.raises(ModelError, match=r"^--travel: expected START:STOP:COUNT"):
        parse_range("-0.08:0.08", "--travel")
    with pytest.raises(ModelError, match=r"^--travel: need START < 0 < STOP"):
        parse_range("0.01:0.08:5", "--travel")
    assert np.allclose(parse_range("-0.08:0.08:33", "--travel"), np.linspace(-0.08, 0.08, 33))


def test_cli_writes_tables_matching_the_api(tmp_path):
    from rtmbs.cli import main

    data = sla_vehicle()
    for role, sub in data["subsystems"].items():  # subsystem files from the sedan's folder
        if isinstance(sub, dict) and "file" in sub:
            sub["file"] = str(SEDAN / sub["file"])
    vf = tmp_path / "vehicle.yaml"
    vf.write_text(yaml.safe_dump(data))
    out = tmp_path / "kc"
    assert main(["kc", str(vf), "--corner", "front-right", "--travel", "-0.04:0.04:5",
                 "--out", str(out)]) == 0
    rows = list(csv.reader(open(out / "travel.csv")))
    assert rows[0][:3] == ["travel", "camber", "toe_in"] and rows[1][:3] == ["mm", "deg", "deg"]
    vals = np.array(rows[2:], float)
    z = np.linspace(-0.04, 0.04, 5)
    assert np.allclose(vals[:, rows[0].index("Fz")], hand_force(z), rtol=1e-8)
    assert np.allclose(vals[:, rows[0].index("track_change")], 1e3 * (np.sqrt(L ** 2 - z ** 2) - L),
                       atol=1e-6)
    assert (out / "travel.png").stat().st_size > 0 and (out / "kc.md").exists()
    assert not (out / "steering.csv").exists()
    assert main(["kc", str(vf), "--corner", "middle", "--out", str(out)]) == 1
    assert math.isfinite(vals.sum())


def sla_rates(P: dict) -> tuple:
    """Velocity analysis of an SLA at design from its hard points ``P`` alone (numpy, no rtmbs):
    lower arm turning at unit rate about its pivot axis, upper arm at ω_U about its own, upright
    (angular velocity w) carried by the two ball joints and held by the tie rod (its length
    constant). Returns (w, wheel-centre velocity vW, lower-arm axis uL)."""
    uL = P["lower_arm_front"] - P["lower_arm_back"]
    uL /= np.linalg.norm(uL)
    uU = P["upper_arm_front"] - P["upper_arm_back"]
    uU /= np.linalg.norm(uU)
    B, C, T, W = P["lower_arm_upright"], P["upper_arm_upright"], P["tie_rod_outer"], P["wheel_centre"]
    vB = np.cross(uL, B - P["lower_arm_back"])

    def skew(a):
        return np.array([[0, -a[2], a[1]], [a[2], 0, -a[0]], [-a[1], a[0], 0]])

    # unknowns x = (ω_U, w): vC = ω_U uU × (C − P_U) = vB + w × (C − B);  e_T · (vB + w × (T − B)) = 0
    eT = T - P["tie_rod_inner"]
    M = np.zeros((4, 4))
    rhs = np.zeros(4)
    M[:3, 0] = np.cross(uU, C - P["upper_arm_back"])
    M[:3, 1:] = skew(C - B)  # −w × (C − B) = (C − B) × w
    rhs[:3] = vB
    M[3, 1:] = -eT @ skew(T - B)  # eT · (w × r) = −eT · (r × w)
    rhs[3] = -eT @ vB
    w = np.linalg.solve(M, rhs)[1:]
    return w, vB + np.cross(w, W - B), uL


def sla_motion_ratio(front: dict, arm_point=None) -> tuple:
    """From :func:`sla_rates`: (dl/dz of the spring, d(wheel-centre y)/dz) and, given
    ``arm_point`` (on the lower arm, same frame), that point's velocity per unit wheel travel."""
    P = {k: np.asarray(v, float) for k, v in front["hard_points"].items()}
    _, vW, uL = sla_rates(P)
    e = P["spring_arm"] - P["spring_chassis"]
    e /= np.linalg.norm(e)
    dl = e @ np.cross(uL, P["spring_arm"] - P["lower_arm_back"])
    if arm_point is not None:
        v = np.cross(uL, np.asarray(arm_point, float) - P["lower_arm_back"]) / vW[2]
        return dl / vW[2], vW[1] / vW[2], v
    return dl / vW[2], vW[1] / vW[2]


def sla_bump_steer(front: dict, tie_rod_inner=None) -> float:
    """Bump steer d(toe-in)/dz of a left corner at design, deg/m, from :func:`sla_rates`: the
    upright's yaw rate per unit wheel-centre travel, −w_z/v_Wz (toe-in + = the front of a left
    wheel turning right), the wheel's small alignment angles neglected."""
    P = {k: np.asarray(v, float) for k, v in front["hard_points"].items()}
    if tie_rod_inner is not None:
        P["tie_rod_inner"] = np.asarray(tie_rod_inner, float)
    w, vW, _ = sla_rates(P)
    return float(np.degrees(-w[2] / vW[2]))


def test_sedan_front_force_and_track_at_design_from_the_hard_points(sedan_front):
    """The sedan's own front SLA: by virtual work the load at design is preload·(−dl/dz) and
    the wheel rate k·(dl/dz)² plus the preload's geometric term (not computed here: the check
    is loose on it); the lateral slope of the wheel centre is d(track)/dz at design."""
    front = yaml.safe_load((SEDAN / "front_suspension.yaml").read_text())
    dl_dz, dy_dz = sla_motion_ratio(front)
    r = sedan_front["front-left"]
    preload, k = front["spring"]["preload"], front["spring"]["stiffness"]
    assert r.summary["Fz_N"] == pytest.approx(-preload * dl_dz, rel=1e-7)
    z, y = r.travel["travel"] * 1e-3, r.travel["track_change"] * 1e-3
    slope = (y[3] - y[1]) / (z[3] - z[1])  # central difference over ±30 mm
    assert slope == pytest.approx(dy_dz, abs=2e-3)
    assert r.summary["wheel_rate_N_per_m"] == pytest.approx(k * dl_dz ** 2, rel=0.02)  # +1.3 %


def test_stiff_bushings_approach_the_kinematic_hand_results():
    """The bushing variant of the test SLA (quasi-static compliance path) with bushings 1e9 N/m
    stiff and free about the pivot axes: the same hand results as the ideal joints, within the
    bushings' deflections (a few kN / 1e9 N/m)."""
    data = sla_vehicle()
    data["subsystems"]["front_suspension"] = dict(SLA, bushings={"arm": {
        "stiffness": [1e9, 1e9, 1e9], "damping": [0.0, 0.0, 0.0],
        "rotational_stiffness": [1e7, 1e7, 0.0], "rotational_damping": [0.0, 0.0, 0.0]}})
    m = vehicle_from_dict(data, SEDAN, "sla", joints="bushings")
    z = np.array([-0.04, -1e-4, 0.0, 1e-4, 0.04])
    r = kc_sweep(m, "front-left", z)
    assert np.abs(r.travel["camber"]).max() < 3e-4  # measured 1e-4 deg
    assert np.allclose(r.travel["track_change"], 1e3 * (np.sqrt(L ** 2 - z ** 2) - L), atol=5e-4)
    assert np.allclose(r.travel["Fz"], hand_force(z), rtol=5e-5)
    assert r.summary["wheel_rate_N_per_m"] == pytest.approx(K * (A / L) ** 2, rel=1e-4)


def test_single_wheel_travel_adds_the_antiroll_bar_rate_by_hand():
    """Single-wheel travel twists the front bar (parallel travel does not): the difference of
    the wheel rates at design is k_bar·(dφ/dz)², φ the bar half's rotation about y, from the
    drop link (a rigid distance) between the bar arm's end E and the lower-arm point D:
    e·(φ̇ ŷ × (E − bearing) − v_D) = 0."""
    front = yaml.safe_load((SEDAN / "front_suspension.yaml").read_text())
    bar = yaml.safe_load((SEDAN / "front_antiroll.yaml").read_text())
    H = {k: np.asarray(v, float) for k, v in bar["hard_points"].items()}
    _, _, vD = sla_motion_ratio(front, H["drop_link_lower"])
    e = H["arm_end"] - H["drop_link_lower"]
    dphi = (e @ vD) / (e @ np.cross([0.0, 1.0, 0.0], H["arm_end"] - H["bar_bearing"]))
    m = sedan_model()
    z, rack = [-1e-4, 0.0, 1e-4], [-1e-3, 0.0, 1e-3]
    single = kc_sweep(m, "front-left", z, rack, mode="single").summary["wheel_rate_N_per_m"]
    parallel = kc_sweep(m, "front-left", z, rack).summary["wheel_rate_N_per_m"]
    assert single - parallel == pytest.approx(bar["stiffness"] * dphi ** 2, rel=1e-4)


def test_cli_names_an_unknown_model_and_a_bad_travel(capsys, tmp_path):
    from rtmbs.cli import main

    assert main(["kc", "sedna", "--corner", "front-left", "--out", str(tmp_path)]) == 1
    err = capsys.readouterr().err
    assert "MODEL: 'sedna' is neither a built-in vehicle (sedan, sedan-bushings) nor a vehicle file" in err
    assert main(["kc", "sedan", "--corner", "front-left", "--travel", "-0.08:0.08",
                 "--out", str(tmp_path)]) == 1
    assert "--travel: expected START:STOP:COUNT" in capsys.readouterr().err


def test_sedan_front_bump_steer_near_its_target(sedan_front):
    """The sedan's front tie-rod inner points (ours, docs/models/sedan.md) were placed for a bump
    steer of about −2 deg/m (slight toe-out in bump, roll understeer), linear over the travel.
    The rig's value at design against the velocity analysis of the hard points (the alignment's
    0.1° toe and −0.5° camber neglected there), and the toe over ±60 mm of travel. The same
    hand computation gives Chrono's original inner point (−0.200, 0.420, −0.120) its −36 deg/m."""
    front = yaml.safe_load((SEDAN / "front_suspension.yaml").read_text())
    by_hand = sla_bump_steer(front)
    r = sedan_front["front-left"]
    assert r.summary["bump_steer_deg_per_m"] == pytest.approx(by_hand, abs=0.1)
    assert -4.0 < by_hand < 0.0
    assert sla_bump_steer(front, [-0.200, 0.420, -0.120]) == pytest.approx(-36.0, abs=0.5)
    # linear: toe-in within 0.15 deg of the design's 0.1 deg at −60...+60 mm (Chrono's: 2 deg)
    assert np.abs(r.travel["toe_in"] - 0.1).max() < 0.15
    # the inner point sits on the rack: its x and z are the rack centre's (steering.yaml)
    rack = yaml.safe_load((SEDAN / "steering.yaml").read_text())["hard_points"]["rack_centre"]
    inner = front["hard_points"]["tie_rod_inner"]
    assert (inner[0], inner[2]) == (rack[0], rack[2])
