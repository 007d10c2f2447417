"""``rtmbs statics`` (rtmbs.analysis.statics) against hand calculations: the tyres carry the
weight, the axle loads follow from the centre of mass by moment balance, the vehicle's
acceleration output vanishes at the equilibrium, and the preloads found for a target ride height
put the car there in an independent solve."""
import json
import subprocess
import sys

import numpy as np
import pytest

from rtmbs.analysis.statics import preloads_for_ride_height, vehicle_statics
from rtmbs.vehicle.build import sedan_model


@pytest.fixture(scope="module")
def statics():
    return vehicle_statics(sedan_model())


def test_corner_loads_carry_the_weight(statics):
    m = sedan_model()
    weight = sum(b.mass for b in m.bodies) * 9.81
    assert statics["total_Fz_N"] == pytest.approx(weight, rel=1e-7)
    assert statics["weight_N"] == pytest.approx(weight, rel=1e-12)


def test_axle_loads_from_the_centre_of_mass(statics):
    m = sedan_model()
    mass = np.array([b.mass for b in m.bodies])
    x_cm = float(mass @ np.array([b.position[0] for b in m.bodies]) / mass.sum())
    xf, xr = m.body("fl_wheel").position[0], m.body("rl_wheel").position[0]
    W = mass.sum() * 9.81
    front = W * (x_cm - xr) / (xf - xr)  # moments about the rear axle
    # contact patches sit within a few mm of below the wheel centres: 0.3 % here
    assert statics["axles"]["front"]["load_N"] == pytest.approx(front, rel=3e-3)
    assert statics["axles"]["rear"]["load_N"] == pytest.approx(W - front, rel=3e-3)
    fl, fr = statics["corners"]["fl"]["Fz_N"], statics["corners"]["fr"]["Fz_N"]
    assert fl == pytest.approx(fr, rel=1e-9)  # a symmetric car


def test_spring_force_is_rate_times_compression(statics):
    c = statics["corners"]["rl"]
    assert c["spring_force_N"] == pytest.approx(40000.0 * (c["spring_free_length_m"] - c["spring_length_m"]))
    # the file's preload (rear_suspension.yaml: 3466 N at the design length)
    assert c["spring_preload_at_design_N"] == pytest.approx(3466.0, abs=1e-3)


def test_preloads_reach_the_target_ride_height():
    pre, adjusted = preloads_for_ride_height(sedan_model(), {"front": 0.325, "rear": "design"})
    assert adjusted["axles"]["front"]["ride_height_m"] == pytest.approx(0.325, abs=1e-4)
    design_rear = adjusted["axles"]["rear"]["design_ride_height_m"]
    assert adjusted["axles"]["rear"]["ride_height_m"] == pytest.approx(design_rear, abs=1e-4)
    # 3.3 mm lower at the front (design 0.3283 m): about 3.3 mm x the front wheel rate (25.5
    # kN/m from rtmbs kc) / the spring's lever (spring 93 kN/m: motion ratio = √(25.5/93) =
    # 0.52), 160 N less preload per spring
    assert 7857.0 - 250.0 < pre["front"]["preload_N"] < 7857.0 - 100.0


def test_cli_writes_json_with_units(tmp_path):
    r = subprocess.run([sys.executable, "-m", "rtmbs.cli", "statics", "sedan", "--json", "--out",
                        str(tmp_path)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert set(doc["corners"]) == {"fl", "fr", "rl", "rr"}
    assert "Fz_N" in doc["corners"]["fl"] and "ride_height_m" in doc["axles"]["front"]
    assert (tmp_path / "statics.md").read_text().startswith("# Static equilibrium of sedan")


def test_cli_bad_ride_height_is_one_line():
    r = subprocess.run([sys.executable, "-m", "rtmbs.cli", "statics", "sedan", "--ride-height",
                        "middle=0.3"], capture_output=True, text=True)
    assert r.returncode != 0 and r.returncode != 70
    assert r.stderr.strip() == ("rtmbs: error: --ride-height: expected front=H and/or rear=H "
                                "(H in m or 'design'), got 'middle=0.3'")


def test_vehicle_acceleration_vanishes_at_the_equilibrium():
    from rtmbs.assembly import static_equilibrium
    from rtmbs.system import compile_model
    from rtmbs.vehicle.build import held_for_statics

    held = compile_model(held_for_statics(sedan_model()))
    q, _ = static_equilibrium(held)
    out = np.zeros(len(held.output_names))
    held.outputs(0.0, q, np.zeros(held.n), out)
    o = dict(zip(held.output_names, out))
    # sum of tyre forces + weight = 0: the centre of mass does not accelerate (against 9.81 m/s^2
    # at the design position, where the tyres carry less than the weight)
    assert abs(o["vehicle.az"]) < 1e-6 and abs(o["vehicle.ax"]) < 1e-6 and abs(o["vehicle.ay"]) < 1e-6


def test_missing_rear_preload_sags_and_is_warned(tmp_path):
    """Without its 3466 N preload P the rear axle sinks until the springs and the bump stops
    carry the load again. On the spring line (travel s): k_s s + k_b (s − c)² = P, with the stop's
    clearance c = 60 mm, rate k_b = 5e6 N/m² (rear_suspension.yaml); s = 71.2 mm, and the wheel
    travel s / MR with MR = √(k_w / k_s) = √(21992 / 40000) (wheel rate from rtmbs info): 96 mm,
    within 5 % (the geometry's non-linearity over that travel)."""
    import shutil
    import warnings

    from rtmbs.vehicle.build import load_vehicle_file
    from rtmbs.vehicle.build.vehicle import SEDAN

    car = tmp_path / "car"
    shutil.copytree(SEDAN, car)
    f = car / "rear_suspension.yaml"
    f.write_text(f.read_text().replace("preload: 3466.0", "preload: 0.0"))
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        st = vehicle_statics(load_vehicle_file(car))
    sag = st["axles"]["rear"]["sag_m"]
    mr = (21992.0 / 40000.0) ** 0.5
    ks, kb, c, P = 40000.0, 5.0e6, 0.060, 3466.0
    # kb s² + (ks − 2 kb c) s + kb c² − P = 0, the root beyond the clearance
    b = ks - 2 * kb * c
    s = (-b + (b * b - 4 * kb * (kb * c * c - P)) ** 0.5) / (2 * kb)
    assert s > c and s == pytest.approx(0.0712, abs=1e-4)
    assert sag == pytest.approx(s / mr, rel=0.05)
    msgs = [str(w.message) for w in rec if "ride height at rest" in str(w.message)]
    assert msgs == [f"sedan: the rear axle sags {1e3 * sag:.0f} mm from its design ride height at "
                    "rest (more than 30 mm): spring preload missing or wrong? (rtmbs statics "
                    "--ride-height rear=design gives it)"]


def test_bushing_car_carries_its_weight(statics):
    """sedan-bushings: the full (q, λ) Newton stalls on the stiff bushings (residual 0.05 N);
    the reduced Newton over the free directions finds the equilibrium."""
    st = vehicle_statics(sedan_model("bushings"))
    weight = st["mass_kg"] * 9.81
    assert st["total_Fz_N"] == pytest.approx(weight, rel=1e-6)
    # the same car with ideal joints: the same masses, so the same axle loads to the bushings' sag
    assert st["axles"]["front"]["load_N"] == pytest.approx(statics["axles"]["front"]["load_N"], rel=2e-3)


def test_one_axle_vehicle_is_refused():
    from rtmbs.errors import ModelError
    from rtmbs.vehicle.build import load_vehicle_file
    from rtmbs.vehicle.build.vehicle import SEDAN_REAR_AXLE

    with pytest.raises(ModelError) as exc:
        vehicle_statics(load_vehicle_file(SEDAN_REAR_AXLE))
    assert str(exc.value) == ("sedan-rear-axle: statics needs a car on four tyres (fl, fr, rl, rr); "
                              "it has rl, rr: a one-axle vehicle stands on an axle rig (rtmbs kc)")
