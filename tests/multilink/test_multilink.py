"""Rear multilink models (Carpinelli 2015 §4.1-4.2, Table 4.1): sizes, YAML files, statics, settling,
kinematics and drive.

Tolerances (stated once):
* settling: after 3.5 s of ``li-euler`` + projection (h = 1 ms) from a vertical kick of the
  chassis (about 0.3 m/s), its height equals the static solution within SETTLE_TOL = 0.1 mm (the
  kick moves it by about 26 mm; the body mode decays with ζ ≈ 0.2-0.3 at 1.3 Hz);
* the two variants' static chassis heights differ by less than RIDE_TOL = 4 mm (stiff bushings);
* the design position is the static equilibrium of the ideal model within 0.5 mm (spring preload).
"""
import math

import numpy as np
import pytest

from rtmbs.analysis.sizes import sizes
from rtmbs.assembly import assemble_velocities, static_equilibrium
from rtmbs.errors import ModelError
from rtmbs.model import load_model_file
from rtmbs.models import BUILTIN, model_file
from rtmbs.models import multilink as ml
from rtmbs.protocol import EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from rtmbs.solvers.simulate import simulate

SETTLE_TOL = 1e-4
RIDE_TOL = 4e-3
DESIGN_TOL = 5e-4
TABLE_4_1 = {"bushings": (77, 31, 31, 46), "ideal": (77, 66, 66, 11)}


@pytest.fixture(scope="module")
def systems():
    return {v: BUILTIN[f"multilink-{v}"][0]() for v in ml.VARIANTS}


@pytest.fixture(scope="module")
def statics(systems):
    return {v: static_equilibrium(s) for v, s in systems.items()}


def _z(system, q, body="chassis"):
    return q[system.body_qadr[system.body_index[body]] + 2]


@pytest.mark.parametrize("variant", ml.VARIANTS)
def test_sizes_of_table_4_1(systems, variant):
    s = systems[variant]
    n, m, rank, f = TABLE_4_1[variant]
    assert sizes(s) == {"n": n, "m": m, "rank": rank, "f": f}
    assert s.body_names == list(ml.BODY_ORDER)  # Carpinelli 2015 §4.2.1 order of q
    rows = {name: c for name, (_, c) in s.joint_rows.items()}
    driveline = ("diff_cylindrical", "inner_ujoint", "outer_ujoint", "wheel_bearing")
    assert sum(rows[j] for j in driveline) == 17
    # the seed's 4 chassis constraints: orientation lock + the chassis Euler-parameter row
    assert rows["chassis_lock"] + rows["chassis.euler-parameters"] == 4
    links = sum(c for name, c in rows.items() if name.split("_inner")[0].split("_outer")[0] in ml.LINKS)
    assert links == (35 if variant == "ideal" else 0)
    assert s.redundant_joints() == []


def test_ideal_rank_holds_away_from_design(systems, statics):
    s = systems["ideal"]
    q = ml.wheel_travel(s, 0.06)["q"]
    assert s.rank(q) == 66 and s.redundant_joints(q) == []
    assert s.rank(statics["ideal"][0]) == 66


@pytest.mark.parametrize("variant", ml.VARIANTS)
def test_yaml_file_is_what_the_builder_makes(variant):
    path = model_file(f"multilink-{variant}")
    assert path is not None and path.name == f"multilink-{variant}.yaml"
    assert load_model_file(path).model_dump(mode="json") == ml.multilink_model(variant).model_dump(mode="json")


def test_unknown_variant_and_stand_in_road_errors():
    with pytest.raises(ModelError, match=r"^variant: unknown multilink variant 'ideals' "
                                         r"\(did you mean 'ideal'\? known: bushings, ideal\)$"):
        ml.multilink_model("ideals")
    with pytest.raises(ModelError, match=r"^road: the stand-in tyre runs on the flat road z = 0 only, "
                                         r"got type 'square-bump' \(use tyre='MF61'\)$"):
        ml.multilink_model("ideal", tyre="stand-in", road={"type": "square-bump"})


@pytest.mark.parametrize("variant", ml.VARIANTS)
def test_static_equilibrium_balances_the_weight(systems, statics, variant):
    s = systems[variant]
    q, lam = statics[variant]
    ws = s.workspace()
    s.evaluate(0.0, q, np.zeros(s.n), ws, EVAL_Q | EVAL_PHI | EVAL_PHIQ)
    weight = ml.TOTAL_MASS * ml.G
    assert np.abs(ws.Q - ws.phiq.T @ lam).max() < 1e-6 * weight
    assert np.abs(ws.phi).max() < 1e-9
    # the tyre alone carries the whole quarter car (independent of the solver's residual)
    out = np.zeros(len(s.output_names))
    s.outputs(0.0, q, np.zeros(s.n), out)
    Fz = out[s.output_names.index("tyre.Fz")]
    assert Fz == pytest.approx(weight, rel=2e-3)


def test_ride_heights(systems, statics):
    zi = _z(systems["ideal"], statics["ideal"][0])
    zb = _z(systems["bushings"], statics["bushings"][0])
    design = _z(systems["ideal"], systems["ideal"].initial_state().q)
    assert abs(zi - design) < DESIGN_TOL
    assert abs(zb - zi) < RIDE_TOL
    # the wheel centre sits at the design loaded radius in both
    for v in ml.VARIANTS:
        assert _z(systems[v], statics[v][0], "rim") == pytest.approx(ml.WHEEL_CENTRE_Z, abs=3e-4)


def test_stand_in_tyre_gives_the_same_ride_height(statics, systems):
    s = ml.build("ideal", tyre="stand-in")
    assert sizes(s) == sizes(systems["ideal"])
    q, _ = static_equilibrium(s)
    assert abs(_z(s, q) - _z(systems["ideal"], statics["ideal"][0])) < 2e-3


@pytest.mark.parametrize("variant", ml.VARIANTS)
def test_settles_to_the_static_equilibrium(systems, statics, variant):
    s = systems[variant]
    st = s.initial_state()
    qd0 = np.zeros(s.n)
    a = s.body_qadr[s.body_index["chassis"]]
    qd0[a + 2] = -1.0  # the minimum-norm projection keeps about a third of it on the chassis
    qd = assemble_velocities(s, st.q, qd0)
    res = simulate(s, "li-euler", t_end=3.5, h=1e-3, state=State(0.0, st.q, qd),
                   stabilize="projection", save_every=50)
    z = res.q[:, a + 2]
    z_static = _z(s, statics[variant][0])
    assert np.abs(z - z_static).max() > 10 * 1e-3  # the kick did move the car
    assert abs(z[-1] - z_static) < SETTLE_TOL
    assert res.phi_norm.max() < 1e-6  # one non-iterative projection per step (Carpinelli 2016 eq. 30)


def _camber_toe(system, q):
    """Camber and toe-in (deg) from the rim's revolute axis (independent of wheel_travel)."""
    from rtmbs.model.rotation import matrix_from_quaternion

    r = system.body_qadr[system.body_index["rim"]]
    s_body = system.markers["rim.hub"].C[:, 2]
    s = matrix_from_quaternion(q[r + 3:r + 7]) @ s_body
    return math.degrees(math.asin(-s[2])), math.degrees(math.atan2(s[0], s[1]))


def test_wheel_travel_kinematics(systems):
    """Camber gain −20…−35 °/m in bump (front-view swing arm 1.6-2.9 m), toe-in change within
    ±0.3° over ±50 mm (mild roll understeer: toe-in in bump), damper motion ratio 0.6-0.9."""
    s = systems["ideal"]
    r = {tr: ml.wheel_travel(s, tr) for tr in (-0.05, -0.01, 0.0, 0.01, 0.05)}
    assert r[0.0]["camber_deg"] == pytest.approx(ml.CAMBER_DEG, abs=1e-9)
    assert r[0.0]["toe_in_deg"] == pytest.approx(ml.TOE_IN_DEG, abs=1e-9)
    for tr, k in r.items():
        q = k["q"]
        # rigid links: the hard points at both ends keep their design distance
        for ln in ml.LINKS:
            inner, outer = (np.array(p) for p in ml.HARD_POINTS[ln])
            mi, mo = s.markers[f"{ln}.inner"], s.markers[f"{ln}.outer"]
            b = s.body_qadr[s.body_index[ln]]
            from rtmbs.model.rotation import matrix_from_quaternion

            A = matrix_from_quaternion(q[b + 3:b + 7])
            L = np.linalg.norm(A @ (mo.s - mi.s))
            assert L == pytest.approx(np.linalg.norm(outer - inner), abs=1e-9)
        # camber and toe read from the rim agree with those from the knuckle
        c, t = _camber_toe(s, q)
        assert c == pytest.approx(k["camber_deg"], abs=1e-6)
        assert t == pytest.approx(k["toe_in_deg"], abs=1e-6)
        assert _z(s, q, "rim") - _z(s, r[0.0]["q"], "rim") == pytest.approx(tr, abs=1e-10)
    gain = (r[0.01]["camber_deg"] - r[-0.01]["camber_deg"]) / 0.02
    assert -35.0 < gain < -20.0
    assert r[0.05]["camber_deg"] < r[0.0]["camber_deg"] < r[-0.05]["camber_deg"]
    assert 0.0 < r[0.05]["toe_in_deg"] - ml.TOE_IN_DEG < 0.3
    assert -0.3 < r[-0.05]["toe_in_deg"] - ml.TOE_IN_DEG < 0.0
    mr = (r[-0.01]["damper_length"] - r[0.01]["damper_length"]) / 0.02
    assert 0.6 < mr < 0.9
    assert abs(r[0.05]["wheel_y"] - r[-0.05]["wheel_y"]) < 0.01  # small track change


@pytest.mark.parametrize("torque", [300.0, -300.0])
def test_drive_torque_moves_the_car_its_way(systems, torque):
    """Drive torque about +y (the spin axis of the left wheel) pushes the car forward; the
    acceleration is that of rigid rolling, T / (R (M + J/R²)), less rolling resistance."""
    s = systems["ideal"]
    s.set_input("drive_torque", torque)
    try:
        res = simulate(s, "li-euler", t_end=0.6, h=1e-3, stabilize="projection", save_every=100)
    finally:
        s.set_input("drive_torque", 0.0)
    vx = res.outputs["chassis.vx"]
    R = ml.WHEEL_CENTRE_Z
    J = 1.25  # rim spin inertia (ml: _axis_inertia(1.25, ...)); shafts add < 1 %
    a_rigid = torque / (R * (ml.TOTAL_MASS + J / R ** 2))
    a = (vx[-1] - vx[1]) / (res.t[-1] - res.t[1])
    assert np.sign(vx[-1]) == np.sign(torque)
    assert 0.85 < a / a_rigid < 1.0
    assert np.sign(res.outputs["rim.wy"][-1]) == np.sign(torque)  # rolling, not spinning backwards


def test_road_reaches_the_tyre(statics, systems):
    """A 20 mm plateau under the wheel (square bump from x = −1 to 1 m) lifts the static wheel
    centre by 20 mm: the builder's ``road`` is the tyre element's road."""
    s = ml.build("ideal", road={"type": "square-bump", "height": 0.02, "length": 2.0, "start": -1.0})
    q, _ = static_equilibrium(s)
    lift = _z(s, q, "rim") - _z(systems["ideal"], statics["ideal"][0], "rim")
    assert lift == pytest.approx(0.02, abs=2e-4)
