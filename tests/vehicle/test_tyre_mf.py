"""Steady-state Magic Formula: MFeval reference table, derivatives, symmetry, MF 5.2 / PAC2002."""
import re

import numpy as np
import pytest

from rtmbs.vehicle.tyre import data_path, evaluate, load_tir, magic_formula as mfk
from rtmbs.vehicle.tyre.tir import parse_tir, properties_from_tir

MF61 = data_path("chrono_MagicFormula61_Parameters.tir")
MF52 = data_path("chrono_MagicFormula52_Parameters.tir")
PAC02 = data_path("chrono_Sedan_Pac02Tire.tir")
REF = data_path("ref_mfeval_MF61_chrono_generic.csv")

# output name -> (reference column, absolute floor of the 0.1 % acceptance criterion)
COLUMNS = {"Fx": ("Fx_N", 1.0), "Fy": ("Fy_N", 1.0), "Mx": ("Mx_Nm", 0.1),
           "My": ("My_Nm", 0.1), "Mz": ("Mz_Nm", 0.1), "Re": ("Re_m", 0.0)}
EXTRA = {"t": "t_m", "mux": "mux", "muy": "muy", "Kya": "Kya_Npr", "Kxk": "Kxk_N"}


def with_values(path, **values):
    """Properties of the .tir ``path`` with some ``KEY = value`` lines replaced."""
    text = path.read_text()
    for key, val in values.items():
        text, n = re.subn(rf"(?m)^{key}(\s*)=\s*[^\s$!]+", rf"{key}\g<1>= {val}", text)
        assert n == 1, key
    return properties_from_tir(parse_tir(text, name="modified.tir"))


@pytest.fixture(scope="module")
def ref():
    return np.genfromtxt(REF, delimiter=",", names=True)


@pytest.fixture(scope="module")
def mf61():
    return load_tir(MF61)


def test_reference_table_has_the_documented_grid(ref):
    assert len(ref) == 294
    assert sorted(set(ref["Fz_N"])) == [3376.0, 6752.0, 10128.0]
    assert np.all(ref["Vx_mps"] == 16.6)


@pytest.mark.parametrize("name", list(COLUMNS))
def test_mf61_reproduces_mfeval_every_row(ref, mf61, name):
    col, floor = COLUMNS[name]
    res = evaluate(mf61, ref["Fz_N"], ref["kappa"], ref["alpha_rad"], ref["gamma_rad"], ref["Vx_mps"])
    err = np.abs(res[name] - ref[col])
    # acceptance criterion: 0.1 % or the absolute floor, whichever is larger, on every row
    tol = np.maximum(1e-3 * np.abs(ref[col]), floor)
    bad = np.flatnonzero(err > tol)
    assert bad.size == 0, f"{name}: rows {bad[:10]} off by {err[bad[:10]]}"
    # the table has 10 significant digits: we agree to that level, not just to 0.1 %
    assert np.all(err <= 1e-8 * np.abs(ref[col]) + 1e-9), f"{name}: max error {err.max():.3g}"


@pytest.mark.parametrize("name", list(EXTRA))
def test_mf61_intermediate_quantities_match_mfeval(ref, mf61, name):
    res = evaluate(mf61, ref["Fz_N"], ref["kappa"], ref["alpha_rad"], ref["gamma_rad"], ref["Vx_mps"])
    np.testing.assert_allclose(res[name], ref[EXTRA[name]], rtol=1e-8, atol=1e-12)


def test_single_point_kernel_equals_batch(ref, mf61):
    res = evaluate(mf61, ref["Fz_N"], ref["kappa"], ref["alpha_rad"], ref["gamma_rad"], ref["Vx_mps"])
    out = np.empty(mfk.N_OUT)
    for i in (0, 77, 293):
        out[:] = np.nan
        mfk.mf_steady_state(mf61.params, ref["Fz_N"][i], ref["kappa"][i], ref["alpha_rad"][i],
                            ref["gamma_rad"][i], ref["Vx_mps"][i], out)
        for j, name in enumerate(mfk.OUTPUT_NAMES):
            assert out[j] == res[name][i], name


@pytest.mark.parametrize("path", [MF61, MF52, PAC02])
def test_slip_and_cornering_stiffness_are_the_slopes_at_zero_shifted_slip(path):
    """Kxk = dFx/dkappa at kappa = -SHx and Kya = dFy/dalpha at alpha = -SHy (eqs. 4.E15-16,
    4.E25-26), checked by central differences on the full combined-slip evaluation."""
    props = load_tir(path)
    Fz = 0.8 * props["FNOMIN"]
    dfz = (Fz - props["LFZO"] * props["FNOMIN"]) / (props["LFZO"] * props["FNOMIN"])
    shx = props["PHX1"] + props["PHX2"] * dfz
    h = 1e-6
    fx = evaluate(props, Fz, np.array([-shx - h, -shx + h]), 0.0)["Fx"]
    kxk = float(evaluate(props, Fz, -shx, 0.0)["Kxk"])
    assert (fx[1] - fx[0]) / (2 * h) == pytest.approx(kxk, rel=1e-6)
    # SHy at gamma = 0 (both families): PHY1 + PHY2 dfz; SVy shifts Fy but not its slope
    shy = props["PHY1"] + props["PHY2"] * dfz
    fy = evaluate(props, Fz, 0.0, np.array([-shy - h, -shy + h]))["Fy"]
    kya = float(evaluate(props, Fz, 0.0, -shy)["Kya"])
    assert (fy[1] - fy[0]) / (2 * h) == pytest.approx(kya, rel=1e-6)


def symmetric_mf61():
    """The MF 6.1 set with every coefficient that breaks the symmetry in slip set to zero."""
    zero = ("PHX1 PHX2 PVX1 PVX2 PEX4 RHX1 PHY1 PHY2 PVY1 PVY2 PEY3 RHY1 RHY2 RBY3 RVY1 RVY2 RVY3 "
            "QHZ1 QHZ2 QDZ6 QDZ7 QEZ4 SSZ1").split()
    return with_values(MF61, **{k: 0 for k in zero})


def test_symmetric_set_gives_odd_forces_at_zero_camber():
    props = symmetric_mf61()
    Fz = props["FNOMIN"]
    a = np.array([0.01, 0.05, 0.1, 0.3])
    k = np.array([-0.3, -0.05, 0.0, 0.02, 0.1])[:, None]
    pos = evaluate(props, Fz, k, a)
    neg = evaluate(props, Fz, k, -a)
    scale = np.abs(pos["Fy"]).max()
    np.testing.assert_allclose(neg["Fy"], -pos["Fy"], atol=1e-9 * scale)
    np.testing.assert_allclose(neg["Fx"], pos["Fx"], atol=1e-9 * scale)
    np.testing.assert_allclose(neg["Mz"], -pos["Mz"], atol=1e-9 * np.abs(pos["Mz"]).max())
    kk = np.array([0.01, 0.1, 0.5])
    fx = evaluate(props, Fz, kk, 0.0)["Fx"]
    np.testing.assert_allclose(evaluate(props, Fz, -kk, 0.0)["Fx"], -fx, atol=1e-9 * fx.max())
    zero = evaluate(props, Fz, 0.0, 0.0)
    assert abs(float(zero["Fx"])) < 1e-9 and abs(float(zero["Fy"])) < 1e-9
    assert abs(float(zero["Mz"])) < 1e-9


def test_shifts_of_the_real_set_move_the_zero_force_point():
    """The MF 6.1 set has PHX1, PVX1 != 0: Fx(kappa = 0) equals the shifted formula value, and
    the sign of Fx follows kappa away from the origin."""
    props = load_tir(MF61)
    Fz = props["FNOMIN"]  # dfz = 0
    Fx0 = float(evaluate(props, Fz, 0.0, 0.0)["Fx"])
    # eqs. 4.E9-4.E18 written out at dfz = dpi = gamma = 0, kappa = 0 (so kappax = SHx = PHX1)
    C, D = props["PCX1"], props["PDX1"] * Fz
    B = Fz * props["PKX1"] / (C * D)
    x = props["PHX1"]
    E = props["PEX1"] * (1 - props["PEX4"] * np.sign(x))
    expected = D * np.sin(C * np.arctan(B * x - E * (B * x - np.arctan(B * x)))) + Fz * props["PVX1"]
    assert Fx0 == pytest.approx(expected, rel=1e-8)
    assert abs(Fx0) > 10.0  # the shifts matter here
    k = np.array([0.02, 0.05, 0.1, 0.3, 1.0])
    assert np.all(evaluate(props, Fz, k, 0.0)["Fx"] > 0)
    assert np.all(evaluate(props, Fz, -k, 0.0)["Fx"] < 0)
    # ISO-W data: PKY1 < 0, a positive slip angle gives a negative lateral force
    a = np.array([0.02, 0.1, 0.3])
    assert np.all(evaluate(props, Fz, 0.0, a)["Fy"] < 0)
    assert np.all(evaluate(props, Fz, 0.0, -a)["Fy"] > 0)


@pytest.mark.parametrize("path, family", [(MF52, "MF52"), (PAC02, "MF52"), (MF61, "MF61")])
def test_files_load_and_give_sane_peak_friction_at_nominal_load(path, family):
    props = load_tir(path)
    assert props.family == family
    Fz = props["FNOMIN"]
    k = np.linspace(-1, 1, 4001)
    a = np.linspace(-0.5, 0.5, 4001)
    fx = evaluate(props, Fz, k, 0.0)["Fx"] / Fz
    fy = evaluate(props, Fz, 0.0, a)["Fy"] / Fz
    for mu in (fx.max(), -fx.min(), fy.max(), -fy.min()):
        assert 0.8 < mu < 1.5
    # the driving peak is where the formula puts it: D + SVx = (mux + PVX1 + PVX2 dfz) Fz
    r = evaluate(props, Fz, 0.0, 0.0)
    dfz = (Fz - props["LFZO"] * Fz) / (props["LFZO"] * Fz)
    assert fx.max() == pytest.approx(float(r["mux"]) + props["PVX1"] + props["PVX2"] * dfz, abs=1e-4)


def test_pac2002_file_reads_as_mf52_with_lfzo():
    props = load_tir(PAC02)
    assert props.fittyp is None and props.property_file_format == "PAC2002"
    assert props["LFZO"] == 0.81 and props["FNOMIN"] == 4850
    # mux at Fz = LFZO FNOMIN (dfz = 0) is PDX1; at FNOMIN it is PDX1 + PDX2 dfz
    Fz0p = 0.81 * 4850
    assert float(evaluate(props, Fz0p, 0.0, 0.0)["mux"]) == pytest.approx(1.1739, rel=1e-12)
    dfz = (4850 - Fz0p) / Fz0p
    assert float(evaluate(props, 4850, 0.0, 0.0)["mux"]) == pytest.approx(1.1739 - 0.16395 * dfz)
    # MF 5.2 rolling resistance: Chrono's file had no [ROLLING_COEFFICIENTS]; ours adds QSY1 = 0.01
    # (SOURCES.md), so at LONGVL My = -R0 Fz QSY1 (QSY2-4 = 0: no Fx or speed dependence)
    assert props["QSY1"] == 0.01 and props["QSY2"] == props["QSY3"] == props["QSY4"] == 0.0
    assert float(evaluate(props, 4850, 0.1, 0.0)["My"]) == pytest.approx(-0.344 * 4850 * 0.01,
                                                                          rel=1e-12)


def test_mf52_rolling_resistance_and_relaxation_formulas():
    """MF 5.2 differs from 6.1 in My (Fz, not Fz0 (Fz/Fz0)^QSY7) and in the relaxation lengths
    (PTX*, PTY*); check both against the formulas of the MF-Tyre 5.2 manual."""
    props = load_tir(MF52)
    Fz, Vx = 5000.0, 20.0
    r = evaluate(props, Fz, 0.0, 0.0, 0.0, Vx)
    R0, Fz0, V0 = props["UNLOADED_RADIUS"], props["FNOMIN"], props["LONGVL"]
    my = -R0 * Fz * (props["QSY1"] + props["QSY2"] * float(r["Fx"]) / Fz0
                     + props["QSY3"] * Vx / V0 + props["QSY4"] * (Vx / V0) ** 4)
    assert float(r["My"]) == pytest.approx(my, rel=1e-12)
    dfz = (Fz - Fz0) / Fz0
    sk = (props["PTX1"] + props["PTX2"] * dfz) * np.exp(-props["PTX3"] * dfz) * R0 * Fz / Fz0
    sa = props["PTY1"] * np.sin(2 * np.arctan(Fz / (props["PTY2"] * Fz0))) * R0
    assert float(r["sigma_kappa"]) == pytest.approx(sk, rel=1e-12)
    assert float(r["sigma_alpha"]) == pytest.approx(sa, rel=1e-12)


def test_low_speed_is_finite_continuous_and_force_free_at_standstill(mf61):
    vxlow = mf61["VXLOW"]
    Fz = mf61["FNOMIN"]
    k, a = 0.1, 0.05
    just_below = evaluate(mf61, Fz, k, a, 0.02, vxlow * (1 - 1e-9))
    just_above = evaluate(mf61, Fz, k, a, 0.02, vxlow * (1 + 1e-9))
    for name in ("Fx", "Fy", "Mz", "Mx", "My"):
        assert float(just_below[name]) == pytest.approx(float(just_above[name]), rel=1e-6, abs=1e-6)
    stand = evaluate(mf61, Fz, np.array([-1.0, 0.3, 5.0]), 0.2, 0.02, 0.0)
    for name in mfk.OUTPUT_NAMES:
        assert np.all(np.isfinite(stand[name])), name
    # kappa and all shifts are scaled to 0 at Vx = 0: Fx vanishes, My too
    np.testing.assert_allclose(stand["Fx"], 0.0, atol=1e-9)
    np.testing.assert_allclose(stand["My"], 0.0, atol=0)


def test_limits_clip_the_inputs(mf61):
    """Inputs beyond the file's ranges are clipped (MFeval limit checks): beyond KPUMAX and
    CAMMAX the forces no longer change."""
    Fz = mf61["FNOMIN"]
    a = evaluate(mf61, Fz, mf61["KPUMAX"], 0.05, mf61["CAMMAX"])
    b = evaluate(mf61, Fz, mf61["KPUMAX"] + 0.5, 0.05, mf61["CAMMAX"] + 0.1)
    for name in ("Fx", "Fy", "Mz"):
        assert float(a[name]) == float(b[name])


# --- combined slip of a file without combined-slip coefficients (MFeval's defaults) ---------

def test_pac2002_without_combined_coefficients_matches_mfeval_at_the_issue_points():
    """given chrono_Sedan_Pac02Tire.tir, gives Fx = 1286 N at Fz 4850 N, kappa 0.05,
    alpha 0.2 (pure slip: 4312 N). By hand with its defaults: G_xa = cos(atan(B_xa alpha)),
    B_xa = 20 cos(atan(15 kappa)) = 16, so G_xa = 1/sqrt(1 + 3.2^2) = 0.2983 (Pacejka 2012,
    4.E51-4.E54); at Fz 2425 N, kappa -0.2, alpha -0.15 the pure forces Fx0 = -2978 N and
    Fy0 = 2797 N take G_xa = 1/sqrt(1.9) and G_yk = 1/sqrt(1 + (10 kappa / sqrt(3.25))^2)."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pac = load_tir(PAC02)
    out = evaluate(pac, 4850.0, 0.05, 0.2)
    assert out["Fx"] == pytest.approx(1286.0, abs=1.0)
    assert evaluate(pac, 4850.0, 0.05, 0.0)["Fx"] == pytest.approx(4312.0, abs=1.0)
    out = evaluate(pac, 2425.0, -0.2, -0.15)
    assert out["Fx"] == pytest.approx(-2978.0 / np.sqrt(1.9), abs=2.0)
    assert out["Fy"] == pytest.approx(2797.0 / np.sqrt(1.0 + (2.0 / np.sqrt(3.25)) ** 2), abs=2.0)


def _ellipse_ratio(props):
    """max over a grid of sqrt((Fx/mux Fz)^2 + (Fy/muy Fz)^2), and of the same with the
    pure-slip peaks (each sign) as the semi-axes."""
    Fz = np.array([1000.0, 2425.0, 4850.0, 7000.0])[:, None, None]
    kappa = np.linspace(-1.0, 1.0, 101)[None, :, None]
    alpha = np.linspace(-0.6, 0.6, 101)[None, None, :]
    out = evaluate(props, Fz, kappa, alpha)
    Fx, Fy = out["Fx"], out["Fy"]
    mu = np.sqrt((Fx / (out["mux"] * Fz)) ** 2 + (Fy / (out["muy"] * Fz)) ** 2).max()
    px, py = evaluate(props, Fz, kappa, 0.0)["Fx"], evaluate(props, Fz, 0.0, alpha)["Fy"]
    ax = np.where(Fx > 0, px.max(axis=(1, 2), keepdims=True), -px.min(axis=(1, 2), keepdims=True))
    ay = np.where(Fy > 0, py.max(axis=(1, 2), keepdims=True), -py.min(axis=(1, 2), keepdims=True))
    return mu, np.sqrt((Fx / ax) ** 2 + (Fy / ay) ** 2).max()


def test_defaulted_combined_slip_stays_within_the_friction_ellipse():
    """The sedan's PAC2002 file over Fz 1-7 kN, |kappa| <= 1, |alpha| <= 0.6 rad: within the
    ellipse of semi-axes mux Fz, muy Fz up to 5 % (the vertical shift S_Vy puts the pure-slip
    peak itself up to 3.8 % beyond muy Fz at 1 kN), and within 3 % of the ellipse of the
    pure-slip peaks (the Magic Formula weighting is not an exact ellipse). Without the
    combined-slip terms (all zero: G = 1, as before) the resultant is 1.5 times outside."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pac = load_tir(PAC02)
        text = PAC02.read_text() + "\n[LONGITUDINAL_COEFFICIENTS]\nRBX1 = 0\nRCX1 = 0\n" \
            "[LATERAL_COEFFICIENTS]\nRBY1 = 0\nRCY1 = 0\n"
        off = properties_from_tir(parse_tir(text, name="off.tir"))
    mu, peak = _ellipse_ratio(pac)
    assert mu <= 1.05 and peak <= 1.03
    assert _ellipse_ratio(off)[1] > 1.3


def test_the_c_engine_reads_the_filled_coefficients_too():
    """The C Magic Formula (engine/tyre/magic_formula.c) takes the same parameter array: the
    defaults filled by the reader reach it, and it gives MFeval's 1286 N at the issue's point."""
    import warnings

    from rtmbs.engine import _engine as E

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        pac = load_tir(PAC02)
    out = np.zeros(mfk.N_OUT)
    E.mf_steady_state(pac.params, 4850.0, 0.05, 0.2, 0.0, pac["LONGVL"], out, True)
    assert out[mfk.OUTPUT_NAMES.index("Fx")] == pytest.approx(1286.0, abs=1.0)
