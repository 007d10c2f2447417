"""The .tir reader: syntax, defaults, families, and the exact error of each kind of broken file."""
import json
import math
import re

import numpy as np
import pytest

from rtmbs.errors import ModelError
from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk
from rtmbs.vehicle.tyre.tir import DEFAULTS, REQUIRED, SECTION_OF, parse_number, parse_tir, properties_from_tir

MF61 = data_path("chrono_MagicFormula61_Parameters.tir")
PAC02 = data_path("chrono_Sedan_Pac02Tire.tir")


def load_text(text, name="bad.tir"):
    return properties_from_tir(parse_tir(text, name=name))


def drop_line(text, key):
    out, n = re.subn(rf"(?m)^{key}\s*=.*\n", "", text)
    assert n == 1
    return out


def set_value(text, key, value):
    out, n = re.subn(rf"(?m)^{key}(\s*)=\s*\S+", rf"{key}\g<1>= {value}", text)
    assert n == 1
    return out


def line_of(text, key):
    return next(i for i, ln in enumerate(text.splitlines(), 1) if ln.startswith(key + " "))


def test_index_constants_follow_param_names():
    for i, name in enumerate(mfk.PARAM_NAMES):
        assert getattr(mfk, "I_" + name) == i
    assert len(set(mfk.PARAM_NAMES)) == mfk.N_PARAM
    # every parameter has a standard section and is either required or has a default
    for name in mfk.PARAM_NAMES[1:]:
        assert name in SECTION_OF
        assert (name in REQUIRED) != (name in DEFAULTS)


@pytest.mark.parametrize("text, value", [("1.0e+00", 1.0), ("-.5", -0.5), ("3.", 3.0),
                                         ("+2E-3", 2e-3), ("-3.7604e-005", -3.7604e-5),
                                         ("1.5D+02", 150.0), ("12", 12.0)])
def test_numbers_are_parsed_robustly(text, value):
    assert parse_number(text) == value


@pytest.mark.parametrize("text", ["1.5x", "", "e5", "1,5", "--1", "'1'"])
def test_non_numbers_are_recognised(text):
    assert parse_number(text) is None


def test_every_numeric_value_of_the_mf61_file_equals_the_chrono_json():
    """The .tir was written from Chrono's JSON: the reader must give back every JSON number."""
    tir = parse_tir(MF61)
    js = json.loads(data_path("chrono_MagicFormula61_Parameters.json").read_text())
    n = 0
    for section, entries in js.items():
        if not isinstance(entries, dict):
            continue
        for key, val in entries.items():
            if isinstance(val, (int, float)):
                e = tir.sections[section][key.upper()]
                assert (e.value, e.quoted) == (float(val), False), key
                n += 1
    assert n > 250


def test_comments_quotes_crlf_and_tables():
    text = ("$ header comment\r\n"
            "[UNITS]\r\n"
            "LENGTH = 'meter'   $ a comment\r\n"
            "FORCE  = \"newton\" ! another\r\n"
            "[MODEL]\r\n"
            "TYRESIDE = 'LEFT $ not a comment'\r\n"
            "FITTYP = 61 ! MF 6.1\r\n"
            "   ! indented comment\r\n"
            "[SHAPE]\r\n"
            "{radial width}\r\n"
            " 1.0 0.0\r\n"
            " .9  1.0\r\n"
            "[DIMENSION]\r\n"
            "unloaded_radius = .3135$no space\r\n")
    tir = parse_tir(text, name="t.tir")
    assert tir.sections["UNITS"]["LENGTH"].value == "meter"
    assert tir.sections["UNITS"]["FORCE"].value == "newton"
    assert tir.sections["MODEL"]["TYRESIDE"].value == "LEFT $ not a comment"
    assert tir.sections["MODEL"]["FITTYP"].value == 61.0
    assert tir.rows["SHAPE"] == ["{radial width}", "1.0 0.0", ".9  1.0"]
    e = tir.sections["DIMENSION"]["UNLOADED_RADIUS"]
    assert (e.value, e.line) == (0.3135, 14)


def test_shipped_pac2002_file_with_crlf_shape_block_and_no_fittyp():
    props = load_tir(PAC02)
    assert props.family == "MF52" and props.tyreside == "LEFT"
    assert props["UNLOADED_RADIUS"] == 0.344 and props["PEX4"] == -3.7604e-5
    assert props.tir.rows["SHAPE"][0] == "{radial width}"


def test_missing_scaling_factors_default_to_one_and_coefficients_to_zero():
    text = MF61.read_text()
    for key in ("LMUY", "LKY", "PHY1", "QSY2"):
        text = drop_line(text, key)
    props = load_text(text, "defaults.tir")
    assert props["LMUY"] == 1.0 and props["LKY"] == 1.0
    assert props["PHY1"] == 0.0 and props["QSY2"] == 0.0
    assert {"LMUY", "LKY", "PHY1", "QSY2"} <= set(props.defaulted)
    full = load_tir(MF61)
    assert "LMUY" not in full.defaulted and full["LMUY"] == 1.0


def test_mf52_without_pressure_keys_has_zero_pressure_increment():
    props = load_tir(data_path("chrono_MagicFormula52_Parameters.tir"))
    assert props["INFLPRES"] == props["NOMPRES"]
    assert props["PKY4"] == 2.0 and "PKY4" in props.defaulted
    assert math.isinf(props["PRESMAX"]) and math.isinf(props["FZMAX"]) is False


@pytest.mark.parametrize("key, section", [("UNLOADED_RADIUS", "DIMENSION"), ("FNOMIN", "VERTICAL"),
                                          ("PCX1", "LONGITUDINAL_COEFFICIENTS"),
                                          ("PDX1", "LONGITUDINAL_COEFFICIENTS"),
                                          ("PKY1", "LATERAL_COEFFICIENTS"),
                                          ("QDZ1", "ALIGNING_COEFFICIENTS"), ("LONGVL", "MODEL")])
def test_missing_required_keyword_names_it_and_the_file(key, section):
    with pytest.raises(ModelError) as exc:
        load_text(drop_line(MF61.read_text(), key), "broken.tir")
    assert str(exc.value) == (f"broken.tir: [{section}] {key}: missing required keyword; "
                              "the Magic Formula needs it (expected a number)")


def test_missing_fittyp_with_a_format_that_does_not_name_the_model():
    with pytest.raises(ModelError) as exc:
        load_text(drop_line(MF61.read_text(), "FITTYP"))
    assert str(exc.value) == (
        "bad.tir: [MODEL] FITTYP: missing, and PROPERTY_FILE_FORMAT 'USER' does not name the "
        "model; expected FITTYP = 6, 21, 61 or 62, or PROPERTY_FILE_FORMAT = 'PAC2002', 'MF_05', "
        "'MF_52', 'MF_61'")


@pytest.mark.parametrize("key, section, raw, message", [
    ("FITTYP", "MODEL", "7", "unknown value 7; expected one of 6, 21, 61, 62 (6/21: MF 5.2, 61: "
                             "MF 6.1, 62: MF 6.2)"),
    ("LENGTH", "UNITS", "'mm'", "unit 'mm' is not supported; expected 'meter' (SI units)"),
    ("PCX1", "LONGITUDINAL_COEFFICIENTS", "1.5x", "value '1.5x' is not a number; expected e.g. "
                                                  "1.0e+00"),
    ("PCX1", "LONGITUDINAL_COEFFICIENTS", "'1.5'", "value '1.5' is a quoted string, not a number; "
                                                   "expected e.g. 1.0e+00"),
], ids=["unknown-fittyp", "unknown-unit", "non-numeric", "quoted-number"])
def test_bad_value_names_its_line_section_and_keyword(key, section, raw, message):
    text = set_value(MF61.read_text(), key, raw)
    with pytest.raises(ModelError) as exc:
        load_text(text)
    assert str(exc.value) == f"bad.tir:{line_of(text, key)} [{section}] {key}: {message}"


def test_line_without_equals_and_bad_header():
    text = MF61.read_text().replace("PDX2                      = -0.11154", "PDX2 -0.11154")
    with pytest.raises(ModelError) as exc:
        load_text(text)
    assert str(exc.value) == (f"bad.tir:{line_of(text, 'PDX2')} [LONGITUDINAL_COEFFICIENTS]: "
                              "line 'PDX2 -0.11154' is not 'KEY = value'")
    text = MF61.read_text().replace("[VERTICAL]", "[VERTICAL")
    with pytest.raises(ModelError) as exc:
        load_text(text)
    n = next(i for i, ln in enumerate(text.splitlines(), 1) if ln == "[VERTICAL")
    assert str(exc.value) == f"bad.tir:{n}: bad section header '[VERTICAL'; expected [NAME]"


def test_non_positive_nominal_load_and_unsupported_camber_scaling():
    with pytest.raises(ModelError) as exc:
        load_text(set_value(MF61.read_text(), "FNOMIN", "0"))
    assert str(exc.value) == "bad.tir: [VERTICAL] FNOMIN: value 0 must be > 0"
    text = set_value(PAC02.read_text(encoding="latin-1"), "LGAY", "0.5")
    with pytest.raises(ModelError) as exc:
        load_text(text)
    assert str(exc.value) == (f"bad.tir:{line_of(text, 'LGAY')} [SCALING_COEFFICIENTS] LGAY: value "
                              "0.5 is not supported; expected 1 (MF 5.2 camber scaling is not modelled)")


def test_unreadable_file():
    with pytest.raises(ModelError) as exc:
        load_tir("/nonexistent/tyre.tir")
    assert str(exc.value) == "/nonexistent/tyre.tir: cannot read tyre property file (No such file or directory)"


def test_params_array_holds_the_file_values():
    props = load_tir(MF61)
    assert props.params.shape == (mfk.N_PARAM,)
    assert props.params[mfk.I_PKY1] == -28.3155 and props.params[mfk.I_FNOMIN] == 6752
    assert props.params[mfk.I_FAMILY] == mfk.FAMILY_MF61
    assert np.all(np.isfinite(props.params[[mfk.I_PCX1, mfk.I_QSX14, mfk.I_SSZ4]]))


# -- encodings and quotes -------------------------------------------------------------------------
def test_a_utf8_byte_order_mark_is_read(tmp_path):
    """An editor's BOM before [MDI_HEADER] made the first line "not 'KEY = value'"."""
    bom = tmp_path / "bom.tir"
    bom.write_bytes(b"\xef\xbb\xbf" + MF61.read_bytes())
    a, b = load_tir(bom), load_tir(MF61)
    np.testing.assert_array_equal(a.params, b.params)
    assert a.family == b.family and a.tyreside == b.tyreside
    assert load_text("\ufeff" + MF61.read_text()).family == b.family  # the text itself, too


def test_bytes_that_are_not_utf8_are_refused_with_the_line_and_column(tmp_path):
    lines = MF61.read_bytes().split(b"\n")
    k = next(i for i, ln in enumerate(lines) if ln.startswith(b"PDY1"))
    lines[k] = b"PDY1 = 0.8 $ 20 \xb0C"  # latin-1 degree sign in a comment
    bad = tmp_path / "latin.tir"
    bad.write_bytes(b"\n".join(lines))
    with pytest.raises(ModelError, match=rf"^latin\.tir:{k + 1}: not UTF-8 text \(byte 0xb0 at "
                       r"column 17\); save the file as UTF-8 or ASCII$"):
        load_tir(bad)
    bom = tmp_path / "bom_latin.tir"
    bom.write_bytes(b"\xef\xbb\xbf\xe9" + MF61.read_bytes())
    with pytest.raises(ModelError, match=r"^bom_latin\.tir:1: not UTF-8 text \(byte 0xe9 at "
                       r"column 1\)"):
        load_tir(bom)


@pytest.mark.parametrize("line, shown", [("TYRESIDE = 'LEFT", "\"'LEFT\" has no closing '"),
                                         ('FILE_TYPE = "tir $ note', "'\"tir $ note' has no "
                                          "closing \"")])
def test_an_unterminated_quote_is_refused_naming_the_key(line, shown):
    key = line.split()[0]
    text = re.sub(rf"(?m)^{key}\s*=.*$", line, MF61.read_text(), count=1)
    lineno = text.splitlines().index(line) + 1
    with pytest.raises(ModelError) as err:
        load_text(text)
    assert str(err.value).startswith(f"bad.tir:{lineno} [")
    assert str(err.value).endswith(f"] {key}: unterminated quote: {shown}")


COMBINED = ("RBX1 RBX2 RBX3 RCX1 REX1 REX2 RHX1 RBY1 RBY2 RBY3 RBY4 RCY1 REY1 REY2 RHY1 RHY2 "
            "RVY1 RVY2 RVY3 RVY4 RVY5 RVY6").split()


def test_missing_combined_slip_coefficients_take_mfeval_defaults_with_one_warning():
    """MFeval's readTIR.m defaults (MF-Tyre 6.1 default file): RBX1 20, RBX2 15, RCX1 1,
    RBY1 10, RBY2 10, RCY1 1, RVY4 20, RVY5 2, RVY6 10, the others 0. The sedan's PAC2002 file
    states exactly these (data/tyre/SOURCES.md): without its lines it is Chrono's file again,
    warned about, and the two give the same parameters."""
    import warnings

    from rtmbs.vehicle.tyre.tir import TyreDefaultsWarning

    text = PAC02.read_text()
    for key in COMBINED:
        text = drop_line(text, key)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        props = load_text(text, "chrono_Sedan_Pac02Tire.tir")
        load_text(text, "chrono_Sedan_Pac02Tire.tir")  # a car loads one file per wheel: one line
        stated = load_tir(PAC02)
    assert [str(w.message) for w in caught] == [
        "chrono_Sedan_Pac02Tire.tir: no combined-slip coefficients RBX1-3, RCX1, REX1-2, RHX1, "
        "RBY1-4, RCY1, REY1-2, RHY1-2, RVY1-6; filled with MFeval's defaults (RBX1 = 20, "
        "RBX2 = 15, RCX1 = 1, RBY1 = 10, RBY2 = 10, RCY1 = 1, RVY4 = 20, RVY5 = 2, RVY6 = 10, "
        "others 0)"]
    assert caught[0].category is TyreDefaultsWarning
    expected = dict(RBX1=20, RBX2=15, RCX1=1, RBY1=10, RBY2=10, RCY1=1, RVY4=20, RVY5=2, RVY6=10)
    assert {k: props[k] for k in COMBINED} == {k: float(expected.get(k, 0)) for k in COMBINED}
    assert set(COMBINED) <= set(props.defaulted)
    assert not set(COMBINED) & set(stated.defaulted)
    assert np.array_equal(stated.params, props.params)


def test_a_file_with_combined_slip_coefficients_keeps_them_and_is_not_warned_about():
    import warnings

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("default")
        props = load_tir(MF61)
    assert caught == []
    text = MF61.read_text()
    for key in ("RBX1", "RBY1", "RVY4"):
        assert props[key] == parse_number(re.search(rf"(?m)^{key}\s*=\s*(\S+)", text)[1])
    with warnings.catch_warnings(record=True) as caught:  # one missing: named alone
        warnings.simplefilter("default")
        load_text(drop_line(text, "RCY1"), "one.tir")
    assert [str(w.message).split(";")[0] for w in caught] == [
        "one.tir: no combined-slip coefficients RCY1"]
