"""``rtmbs tyre`` through ``rtmbs.cli.main``: eval against the MFeval table, curves, errors."""
import numpy as np

from rtmbs.cli import main
from rtmbs.vehicle.tyre import data_path, load_tir

MF61 = data_path("chrono_MagicFormula61_Parameters.tir")
REF = data_path("ref_mfeval_MF61_chrono_generic.csv")
IN_COLS = ["Fz_N", "kappa", "alpha_rad", "gamma_rad", "Vx_mps"]
OUT_COLS = ["Fx_N", "Fy_N", "Mx_Nm", "My_Nm", "Mz_Nm", "Re_m"]


def test_eval_reproduces_the_reference_table_end_to_end(tmp_path, capsys):
    out = tmp_path / "sub" / "forces.csv"
    # the reference CSV has extra columns (phit, t, mu ...): they are ignored
    assert main(["tyre", "eval", str(MF61), "--inputs", str(REF), "--out", str(out)]) == 0
    assert "294 rows" in capsys.readouterr().out
    got = np.genfromtxt(out, delimiter=",", names=True)
    ref = np.genfromtxt(REF, delimiter=",", names=True)
    assert list(got.dtype.names) == IN_COLS + OUT_COLS
    for c in IN_COLS:
        np.testing.assert_array_equal(got[c], ref[c])
    for c, floor in zip(OUT_COLS, (1.0, 1.0, 0.1, 0.1, 0.1, 0.0)):
        err = np.abs(got[c] - ref[c])
        assert np.all(err <= np.maximum(1e-3 * np.abs(ref[c]), floor)), c
        assert np.all(err <= 1e-8 * np.abs(ref[c]) + 1e-9), c


def test_eval_extra_columns(tmp_path):
    inp = tmp_path / "in.csv"
    inp.write_text("Vx_mps,gamma_rad,alpha_rad,kappa,Fz_N\n16.6,0,0,0,6752\n")
    out = tmp_path / "out.csv"
    assert main(["tyre", "eval", str(MF61), "--inputs", str(inp), "--out", str(out), "--extra"]) == 0
    got = np.genfromtxt(out, delimiter=",", names=True)
    props = load_tir(MF61)
    assert "sigma_alpha_m" in got.dtype.names
    # at Fz = FNOMIN, dpi = 0: mux = PDX1, Kxk = FNOMIN PKX1
    assert float(got["mux"]) == props["PDX1"]
    assert float(got["Kxk_N"]) == float(f"{6752 * props['PKX1']:.10g}")


def test_eval_missing_column_is_named(tmp_path, capsys):
    inp = tmp_path / "in.csv"
    inp.write_text("Fz_N,kappa,alpha_rad,gamma_rad\n4000,0,0,0\n")
    rc = main(["tyre", "eval", str(MF61), "--inputs", str(inp), "--out", str(tmp_path / "o.csv")])
    assert rc == 1
    assert capsys.readouterr().err.strip() == (
        f"rtmbs: error: {inp}: missing column 'Vx_mps'; expected columns "
        "Fz_N, kappa, alpha_rad, gamma_rad, Vx_mps")
    assert not (tmp_path / "o.csv").exists()


def test_eval_bad_tir_file_is_reported(tmp_path, capsys):
    bad = tmp_path / "bad.tir"
    bad.write_text(MF61.read_text().replace("FITTYP                    = 61", "FITTYP = 99"))
    rc = main(["tyre", "eval", str(bad), "--inputs", str(REF), "--out", str(tmp_path / "o.csv")])
    assert rc == 1
    assert "bad.tir:17 [MODEL] FITTYP: unknown value 99" in capsys.readouterr().err


def test_curves_writes_plots_and_a_summary_with_the_file_stiffness(tmp_path):
    out = tmp_path / "curves"
    pac = data_path("chrono_Sedan_Pac02Tire.tir")
    assert main(["tyre", "curves", str(pac), "--out", str(out), "--loads", "1"]) == 0
    for png in ("longitudinal.png", "lateral.png"):
        assert (out / png).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    text = (out / "summary.md").read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| 4850 |"))
    cells = [c.strip() for c in row.strip("|").split("|")]
    # slip stiffness from the file by hand (eq. 4.E15): Fz (PKX1 + PKX2 dfz) exp(PKX3 dfz)
    dfz = (4850 - 0.81 * 4850) / (0.81 * 4850)
    kxk = 4850 * (22.303 + 0.48896 * dfz) * np.exp(0.21253 * dfz)
    assert float(cells[5]) == float(f"{kxk:.4g}")
    assert 0.8 < float(cells[1]) < 1.5 and 0.8 < float(cells[3]) < 1.5
    # the defaulted coefficients are listed: QSY5-8 (not in the file), not QSY1-4 (ours, given)
    line = next(ln for ln in text.splitlines() if ln.startswith("Parameters not in the file"))
    defaulted = set(line.split(":", 1)[1].rstrip(".").replace(",", " ").split())
    assert "MF52" in text and {"QSY5", "QSY6", "QSY7", "QSY8"} <= defaulted
    assert not {"QSY1", "QSY2", "QSY3", "QSY4"} & defaulted


def test_help_has_examples(capsys):
    for argv in (["tyre", "--help"], ["tyre", "eval", "--help"], ["tyre", "curves", "--help"]):
        try:
            main(argv)
        except SystemExit as exc:
            assert exc.code == 0
        assert "example" in capsys.readouterr().out
