"""Eqs. 5.6-5.10: longitudinal forces from a_x (Carpinelli 2015 §5.2.2), against a hand balance."""
import numpy as np
import pytest

from rtmbs.concept import longitudinal as lo


def test_drive_balance_of_one_side():
    # one side of a 1600 kg car at 2 m/s²: the driven wheel pushes half the car plus the
    # rolling resistances (0.012 × 4000 N each) and the spin-up of both wheels (1.2 kg m², r 0.3)
    M, a, r = 1600.0, 2.0, 0.3
    Rr = lo.rolling_resistance(4000.0, a, 0.012, 1.2, r)
    Rf = lo.rolling_resistance(3800.0, a, 0.012, 1.2, r)
    assert Rr == pytest.approx(48.0 + 1.2 * (a / r) / r)
    F = lo.rear_drive_force(M, a, Rr, Rf)
    assert F == pytest.approx(1600.0 + 48.0 + 45.6 + 2 * 1.2 * a / r ** 2)
    assert lo.drive_torque(F, r) == pytest.approx(r * F)


def test_braking_split_and_arrays():
    a = np.array([-3.0, -6.0])
    rear, front = lo.braking_forces(1600.0, a, 10.0, 10.0, rear_share=0.35)
    assert (rear + front) == pytest.approx(0.5 * 1600.0 * a + 20.0)
    assert rear / (rear + front) == pytest.approx([0.35, 0.35])
    with pytest.raises(ValueError, match="rear_share must be in \\[0, 1\\], got 1.5"):
        lo.braking_forces(1600.0, a, 0.0, 0.0, 1.5)


def test_identification_inputs_switch_to_braking():
    W = {"fl": 4000.0, "fr": 4000.0, "rl": 3600.0, "rr": 3600.0}
    a = np.array([2.0, -4.0])
    out = lo.identification_inputs(a, 1600.0, W, 0.01, 1.2, 0.3, braking=[False, True],
                                   rear_share=0.4)
    Rr = lo.rolling_resistance(3600.0, a, 0.01, 1.2, 0.3)
    Rf = lo.rolling_resistance(4000.0, a, 0.01, 1.2, 0.3)
    side = 800.0 * a + Rr + Rf
    assert out["Fx_rl"] == pytest.approx([side[0], 0.4 * side[1]])
    assert out["Fx_fl"] == pytest.approx([-Rf[0], 0.6 * side[1]])
    assert out["drive_torque"] == pytest.approx([0.3 * side[0], 0.0])
    assert out["Fx_rr"] == pytest.approx(out["Fx_rl"])
