"""Forward-mode partial derivatives of the Magic Formula (mf_force_partials) against central
differences of mf_evaluate, for the three shipped tyre files, and dRe/dFz of the rolling radius.

Tolerances: a central difference with step h has a truncation error ~h² f'''/6 (below 1e-8
relative with the steps used: 1e-4 Fz for the load, 1e-7 for the slips) and a rounding error
~10 eps |f| / h (≤ 1e-4 N per unit slip, 1e-11 N/N for the load). At α = 0 in the low-speed
range the reduced slip angle α (|Vx| + |tan α Vx|)/VXLOW has a term α|α| whose central
difference errs by O(h) relative (1e-7). So: rtol 1e-6 on each partial, plus an absolute floor
of 1e-7 of its physical scale (Fx, Fy: Fz per unit input, Mz: 0.1 m Fz per unit input; per N
of load: 1, 0.1 m) for partials that are nearly zero.
"""
import numpy as np
import pytest

from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk

FILES = ["chrono_MagicFormula61_Parameters.tir", "chrono_MagicFormula52_Parameters.tir",
         "chrono_Sedan_Pac02Tire.tir"]
H_SLIP = 1e-7


def operating_points(props, n=400, seed=0):
    """Random (Fz, kappa, alpha, gamma, Vx): loads 500-8000 N, |kappa|, |alpha| < 0.3,
    |gamma| < 0.1, speeds 0.5-40 m/s of both signs; every 4th point in the low-speed range
    |Vx| < VXLOW, every 5th at kappa = alpha = 0 exactly."""
    rng = np.random.default_rng(seed)
    Fz = rng.uniform(500.0, 8000.0, n)
    kappa = rng.uniform(-0.3, 0.3, n)
    alpha = rng.uniform(-0.3, 0.3, n)
    gamma = rng.uniform(-0.1, 0.1, n)
    Vx = rng.uniform(0.5, 40.0, n) * rng.choice([-1.0, 1.0], n)
    Vx[::4] = rng.uniform(-1.0, 1.0, Vx[::4].size) * props["VXLOW"]
    kappa[::5] = 0.0
    alpha[::5] = 0.0
    return Fz, kappa, alpha, gamma, Vx


def forces(p, Fz, kappa, alpha, gamma, Vx):
    out = np.empty(mfk.N_OUT)
    mfk.mf_evaluate(p, Fz, kappa, alpha, gamma, Vx, out, False)
    return np.array([out[mfk.O_FX], out[mfk.O_FY], out[mfk.O_MZ]])


def test_partial_layout_constants():
    assert mfk.N_PARTIALS == 12 == len(mfk.PARTIAL_NAMES)
    consts = {"D_FX": "Fx", "D_FY": "Fy", "D_MZ": "Mz"}
    for out in ("FX", "FY", "MZ"):
        for var, vname in (("FZ", "Fz"), ("K", "kappa"), ("A", "alpha")):
            consts[f"D_{out}_{var}"] = f"d{out[0]}{out[1].lower()}_d{vname}"
    assert sorted(getattr(mfk, c) for c in consts) == list(range(12))
    for c, name in consts.items():
        assert mfk.PARTIAL_NAMES[getattr(mfk, c)] == name, c


@pytest.mark.parametrize("fname", FILES)
def test_partials_match_central_differences_and_values_match_mf_evaluate(fname):
    props = load_tir(data_path(fname))
    p = props.params
    out = np.empty(mfk.N_PARTIALS)
    n_low = n_zero = 0
    for Fz, k, a, g, Vx in zip(*operating_points(props)):
        mfk.mf_force_partials(p, Fz, k, a, g, Vx, out)
        f0 = forces(p, Fz, k, a, g, Vx)
        # the values are those of mf_evaluate (same operations in the same order)
        np.testing.assert_allclose(out[:3], f0, rtol=1e-12, atol=1e-9)
        hF = 1e-4 * Fz
        fd = np.column_stack([
            (forces(p, Fz + hF, k, a, g, Vx) - forces(p, Fz - hF, k, a, g, Vx)) / (2 * hF),
            (forces(p, Fz, k + H_SLIP, a, g, Vx) - forces(p, Fz, k - H_SLIP, a, g, Vx)) / (2 * H_SLIP),
            (forces(p, Fz, k, a + H_SLIP, g, Vx) - forces(p, Fz, k, a - H_SLIP, g, Vx)) / (2 * H_SLIP),
        ])  # rows Fx, Fy, Mz; columns d/dFz, d/dkappa, d/dalpha
        an = out[3:].reshape(3, 3)
        scale = np.array([[1.0, Fz, Fz], [1.0, Fz, Fz], [0.1, 0.1 * Fz, 0.1 * Fz]])
        tol = 1e-6 * np.abs(fd) + 1e-7 * scale
        where = f"{fname} at Fz={Fz!r}, kappa={k!r}, alpha={a!r}, gamma={g!r}, Vx={Vx!r}"
        assert np.all(np.abs(an - fd) <= tol), f"{where}:\n{an}\n{fd}"
        assert np.all(np.isfinite(out)), where
        n_low += abs(Vx) < props["VXLOW"]
        n_zero += k == 0.0 and a == 0.0
    assert n_low >= 90 and n_zero >= 70  # the special ranges were visited


@pytest.mark.parametrize("fname", FILES)
def test_slopes_are_not_trivially_zero(fname):
    """At a generic point the partials of Fx, Fy are non-zero (a test of the differences alone
    would pass for a function returning zeros where the differences are zero too), the cross
    partials dFx/dalpha and dFy/dkappa too: the PAC2002 file states MFeval's combined-slip
    coefficients (RBX1 = 20, RBY1 = 10; with zeros they would vanish exactly)."""
    props = load_tir(data_path(fname))
    out = np.empty(mfk.N_PARTIALS)
    mfk.mf_force_partials(props.params, 0.8 * props["FNOMIN"], 0.03, 0.04, 0.02, 20.0, out)
    cross = [mfk.D_FX_A, mfk.D_FY_K]
    pure = [mfk.D_FX_FZ, mfk.D_FX_K, mfk.D_FY_FZ, mfk.D_FY_A, mfk.D_MZ_FZ, mfk.D_MZ_K, mfk.D_MZ_A]
    assert np.all(out[pure] != 0.0)
    assert props["RBX1"] != 0.0 and props["RBY1"] != 0.0
    assert np.all(out[cross] != 0.0)
    # Kxk, Kya are the slopes near zero slip: same sign and order as the partials there
    r = np.empty(mfk.N_OUT)
    mfk.mf_force_partials(props.params, props["FNOMIN"], 0.0, 0.0, 0.0, 20.0, out)
    mfk.mf_evaluate(props.params, props["FNOMIN"], 0.0, 0.0, 0.0, 20.0, r, False)
    assert 0.5 < out[mfk.D_FX_K] / r[mfk.O_KXK] < 1.5
    assert 0.5 < out[mfk.D_FY_A] / r[mfk.O_KYA] < 1.5


def test_clipped_inputs_have_zero_partials():
    props = load_tir(data_path(FILES[0]))
    p = props.params
    out = np.empty(mfk.N_PARTIALS)
    mfk.mf_force_partials(p, props["FZMAX"] + 100.0, props["KPUMAX"] + 0.2, props["ALPMAX"] + 0.1,
                          0.0, 20.0, out)
    assert out[mfk.D_FX_FZ] == out[mfk.D_FX_K] == out[mfk.D_FX_A] == 0.0
    assert out[mfk.D_FY_FZ] == out[mfk.D_FY_K] == out[mfk.D_FY_A] == 0.0
    assert out[mfk.D_MZ_FZ] == out[mfk.D_MZ_K] == out[mfk.D_MZ_A] == 0.0
    # negative load: no force, no slope
    mfk.mf_force_partials(p, -50.0, 0.1, 0.1, 0.0, 20.0, out)
    assert np.all(out == 0.0)


@pytest.mark.parametrize("fname", FILES)
def test_standstill_and_zero_slip_give_finite_partials(fname):
    """Vx = 0 (all shifts reduced to 0) and kappa = alpha = 0 (the roots of eqs. 4.E77-4.E78 may
    vanish): finite values; the alpha-partials there still match central differences."""
    props = load_tir(data_path(fname))
    p = props.params
    out = np.empty(mfk.N_PARTIALS)
    for Vx in (0.0, 1e-3, 0.5 * props["VXLOW"], 10.0):
        for Fz in (500.0, props["FNOMIN"]):
            mfk.mf_force_partials(p, Fz, 0.0, 0.0, 0.0, Vx, out)
            assert np.all(np.isfinite(out)), (Vx, Fz, out)
            fd = (forces(p, Fz, 0.0, H_SLIP, 0.0, Vx) - forces(p, Fz, 0.0, -H_SLIP, 0.0, Vx)) / (2 * H_SLIP)
            an = out[[mfk.D_FX_A, mfk.D_FY_A, mfk.D_MZ_A]]
            np.testing.assert_allclose(an, fd, rtol=1e-6, atol=1e-7 * Fz)


@pytest.mark.parametrize("fname", FILES)
def test_rolling_radius_derivative_matches_differences(fname):
    props = load_tir(data_path(fname))
    p = props.params
    for Fz in (500.0, 3000.0, 8000.0):
        for Vx in (-30.0, 0.0, 5.0, 40.0):
            Re, omega, dRe = mfk.effective_rolling_radius_dfz(p, Fz, 0.0, Vx, 0.0)
            assert (Re, omega) == mfk.effective_rolling_radius(p, Fz, 0.0, Vx, 0.0)
            h = 1e-3 * Fz
            fd = (mfk.effective_rolling_radius(p, Fz + h, 0.0, Vx, 0.0)[0]
                  - mfk.effective_rolling_radius(p, Fz - h, 0.0, Vx, 0.0)[0]) / (2 * h)
            assert dRe < 0.0  # more load, smaller radius
            assert dRe == pytest.approx(fd, rel=1e-6)
