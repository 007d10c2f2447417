"""The bad-input corpus: every example users reported (and more of each class), each
a command line with small broken files, run through ``rtmbs.cli.main``. Each must end with a
non-zero exit code, no traceback and the exact one-line message naming the option, file or key
and the cause (argparse's line for a bad number on the command line).

``python tests/core/test_bad_input.py`` prints how each case ends today (ok / traceback / silent
/ misleading) and the counts per class, e.g. against another checkout with
``PYTHONPATH=/other/src``.
"""
from __future__ import annotations

import contextlib
import io
import json
import re
import socket
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
import yaml

from rtmbs.cli import main
from rtmbs.models import model_file
from rtmbs.vehicle.tyre import data_path

MF61 = data_path("chrono_MagicFormula61_Parameters.tir")
NUMBER = "expected a finite number > 0"


@dataclass
class Case:
    id: str
    issue: str          # the issue's class of the example: traceback | silent | misleading
    argv: list          # {name} placeholders are paths made by make_files()
    expect: str | None  # the stderr line; "re:..." a regular expression; None: accepted (code 0)
    code: int = 1


def _model(files: Path, name: str, change) -> str:
    d = yaml.safe_load(model_file("double-pendulum").read_text())
    d["forces"] = [
        {"name": "spring", "type": "spring-damper", "marker_i": "ground.pivot",
         "marker_j": "link2.top", "stiffness": 100.0, "damping": 1.0},
        {"name": "stop", "type": "stop", "marker_i": "ground.pivot", "marker_j": "link2.top",
         "min_length": 0.5, "max_length": 2.0, "stiffness": 1e5}]
    change(d)
    path = files / f"{name}.yaml"
    path.write_text(yaml.safe_dump(d))
    return str(path)


def _tir(files: Path, name: str, key: str, value: str) -> str:
    lines = MF61.read_text().splitlines()
    lines = [f"{key:<26}= {value}" if ln.split("=")[0].strip() == key else ln for ln in lines]
    path = files / f"{name}.tir"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def _tir_line(path: str, key: str) -> int:
    return next(i for i, ln in enumerate(Path(path).read_text().splitlines(), 1)
                if ln.split("=")[0].strip() == key)


def make_files(tmp: Path) -> dict:
    """The broken (and good) files of the corpus in ``tmp``; returns their placeholders."""
    f = {"tmp": str(tmp)}
    blocker = tmp / "blocker.txt"  # a file where a folder is expected: no one can write there
    blocker.write_text("not a folder\n")
    f["blocker"] = str(blocker)
    (tmp / "a_folder").mkdir()
    f["folder"] = str(tmp / "a_folder")
    (tmp / "empty_result").mkdir()
    f["empty_result"] = str(tmp / "empty_result")
    (tmp / "zero.h5").write_bytes(b"")
    f["zero_h5"] = str(tmp / "zero.h5")
    f["missing"] = str(tmp / "no_such_result")
    inputs = tmp / "points.csv"
    inputs.write_text("Fz_N,kappa,alpha_rad,gamma_rad,Vx_mps\n4000,0,0,0,0\n4000,0,0.05,0,10\n")
    f["inputs"] = str(inputs)
    f["tir"] = str(MF61)
    f["vxlow0"] = _tir(tmp, "vxlow0", "VXLOW", "0")
    f["pcy10"] = _tir(tmp, "pcy10", "PCY1", "0")
    f["vxlow_line"] = _tir_line(f["vxlow0"], "VXLOW")
    f["pcy1_line"] = _tir_line(f["pcy10"], "PCY1")
    inf, nan = float("inf"), float("nan")
    b = lambda d, i: d["bodies"][i]  # noqa: E731
    f["inertia_inf"] = _model(tmp, "inertia_inf", lambda d: b(d, 0).update(inertia=[inf, 1.0, 1.0]))
    f["inertia_missing"] = _model(tmp, "inertia_missing", lambda d: b(d, 0).pop("inertia"))
    f["x_parallel_z"] = _model(tmp, "x_parallel_z", lambda d: b(d, 0)["markers"]["top"].update(
        orientation={"z_axis": [0, 1, 0], "x_axis": [0, 2, 0]}))
    f["gravity_nan"] = _model(tmp, "gravity_nan", lambda d: d.update(gravity=[0, 0, nan]))
    f["stiffness_nan"] = _model(tmp, "stiffness_nan", lambda d: d["forces"][0].update(stiffness=nan))
    f["velocity_inf"] = _model(tmp, "velocity_inf", lambda d: b(d, 1).update(velocity=[inf, 0, 0]))
    f["stop_min_max"] = _model(tmp, "stop_min_max", lambda d: d["forces"][1].update(min_length=2.5))
    f["mass_nan"] = _model(tmp, "mass_nan", lambda d: b(d, 0).update(mass=nan))
    f["damping_neg"] = _model(tmp, "damping_neg", lambda d: d["forces"][0].update(damping=-3.0))
    f["exponent_0"] = _model(tmp, "exponent_0", lambda d: d["forces"][1].update(exponent=0.0))
    # -- more cases --------------------------------------------------------------------------
    f["no_bodies"] = _model(tmp, "no_bodies", lambda d: d.update(bodies=[], joints=[], forces=[]))
    f["mass_true"] = _model(tmp, "mass_true", lambda d: b(d, 0).update(mass=True))
    f["inertia_bool"] = _model(tmp, "inertia_bool", lambda d: b(d, 1).update(inertia=[1.0, False, 1.0]))
    f["mass_tiny"] = _model(tmp, "mass_tiny", lambda d: b(d, 0).update(mass=1e-12))
    f["free_length_neg"] = _model(tmp, "free_length_neg",
                                  lambda d: d["forces"][0].update(free_length=-0.5))
    dup = tmp / "dup_key.yaml"  # a second 'joints' list at the end: YAML kept only the last
    text = Path(f["mass_true"]).read_text().replace("mass: true", "mass: 1.0")
    dup.write_text(text + "joints: []\n")
    f["dup_key"] = str(dup)
    f["dup_first"] = text.splitlines().index("joints:") + 1
    f["dup_second"] = len(text.splitlines()) + 1
    lines = MF61.read_bytes().split(b"\n")
    side = next(i for i, ln in enumerate(lines) if ln.startswith(b"TYRESIDE"))
    (tmp / "quote.tir").write_bytes(b"\n".join(lines[:side] + [b"TYRESIDE = 'LEFT"]
                                               + lines[side + 1:]))
    f["quote_tir"], f["quote_line"] = str(tmp / "quote.tir"), side + 1
    pcy = next(i for i, ln in enumerate(lines) if ln.startswith(b"PCY1"))
    (tmp / "latin.tir").write_bytes(b"\n".join(lines[:pcy] + [b"PCY1 = 1.4 $ \xb0 latin-1"]
                                               + lines[pcy + 1:]))
    f["latin_tir"], f["latin_line"] = str(tmp / "latin.tir"), pcy + 1
    nan_inputs = tmp / "nan_points.csv"
    nan_inputs.write_text("Fz_N,kappa,alpha_rad,gamma_rad,Vx_mps\n4000,0,0,0,0\n4000,0,nan,0,10\n")
    f["nan_inputs"] = str(nan_inputs)
    (tmp / "fine_road.csv").write_text("x,z\n0,0\n1e-6,0\n1e6,0\n")
    f["fine_road"] = str(tmp / "fine_road.csv")
    busy = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    busy.bind(("127.0.0.1", 0))
    f["busy_socket"] = busy  # kept open by the caller while the cases run
    f["port"] = busy.getsockname()[1]
    (tmp / "busy.yaml").write_text(f"listen: 127.0.0.1:{f['port']}\n")
    f["udp_busy"] = str(tmp / "busy.yaml")
    (tmp / "broken.yaml").write_text("listen: [127.0.0.1\n")
    f["udp_broken"] = str(tmp / "broken.yaml")
    (tmp / "age.yaml").write_text("listen: 127.0.0.1:0\nmax_age: soon\n")
    f["udp_age"] = str(tmp / "age.yaml")
    return f


def _num(cmd, flag, value, what=NUMBER):
    return f"rtmbs {cmd}: error: argument {flag}: {what}, got '{value}'"


DP = "double-pendulum"
RUN = ["run", DP, "--no-progress"]
CASES = [
    # -- numbers on the command line ------------------------------------------------------
    Case("run-h-0", "traceback", RUN + ["--h", "0"], _num("run", "--h", "0"), 2),
    Case("run-h-nan", "traceback", RUN + ["--h", "nan"], _num("run", "--h", "nan"), 2),
    Case("run-h-negative", "traceback", RUN + ["--h=-1e-3"], _num("run", "--h", "-1e-3"), 2),
    Case("run-h-negative-no-equals", "misleading", RUN + ["--h", "-1e-3"],
         _num("run", "--h", "-1e-3"), 2),
    Case("run-h-minus-inf-no-equals", "new", RUN + ["--h", "-inf"], _num("run", "--h", "-inf"), 2),
    Case("realtime-priority-200", "silent", ["realtime", DP, "--priority", "200"],
         _num("realtime", "--priority", "200",
              "expected a SCHED_FIFO priority, a whole number from 1 to 99"), 2),
    Case("realtime-priority-0", "new", ["realtime", DP, "--priority", "0"],
         _num("realtime", "--priority", "0",
              "expected a SCHED_FIFO priority, a whole number from 1 to 99"), 2),
    Case("run-t-end-negative", "traceback", RUN + ["--t-end=-1"], _num("run", "--t-end", "-1"), 2),
    Case("run-t-end-1e12", "traceback", RUN + ["--t-end", "1e12"],
         r"re:rtmbs: error: simulate: 1000000000000000 steps keeping every 1 need [\d.e+]+ GiB for "
         r"the results \(more than [\d.]+ GiB, half of this machine's memory\); raise save_every "
         r"\(rtmbs run --save-every\), a longer h or a shorter t_end"),
    Case("run-h-inf", "silent", RUN + ["--h", "inf"], _num("run", "--h", "inf"), 2),
    Case("run-step-longer-than-t-end", "silent", RUN + ["--t-end", "0.1", "--h", "0.5"],
         "rtmbs: error: --t-end 0.1 s is shorter than one step (--h 0.5 s): nothing to run"),
    Case("run-save-every-0", "new", RUN + ["--save-every", "0"],
         _num("run", "--save-every", "0", "expected a whole number >= 1"), 2),
    Case("bench-h-0", "new", ["bench", DP, "--h", "0"], _num("bench", "--h", "0"), 2),
    Case("realtime-h-nan", "new", ["realtime", DP, "--h", "nan"], _num("realtime", "--h", "nan"), 2),
    Case("realtime-duration-negative", "new", ["realtime", DP, "--duration=-1"],
         _num("realtime", "--duration", "-1", "expected a finite number >= 0"), 2),
    Case("realtime-duration-shorter-than-step", "new",
         ["realtime", DP, "--duration", "1e-4", "--h", "1e-3"],
         "rtmbs: error: duration = 0.0001 s is less than one step (h = 0.001 s): nothing to run "
         "(duration 0 runs no step on purpose)"),
    Case("export-fmu-h-inf", "new", ["export-fmu", DP, "--h", "inf", "-o", "{tmp}/m.fmu"],
         _num("export-fmu", "--h", "inf"), 2),
    Case("road-dx-0", "new", ["road", "plot", "--dx", "0", "--out", "{tmp}/road"],
         _num("road plot", "--dx", "0"), 2),
    Case("road-height-nan", "new", ["road", "plot", "--type", "bump", "--height", "nan",
                                    "--out", "{tmp}/road"],
         _num("road plot", "--height", "nan", "expected a finite number"), 2),
    Case("tyre-curves-loads-nan", "new", ["tyre", "curves", "{tir}", "--loads", "1,nan",
                                          "--out", "{tmp}/curves"],
         "rtmbs: error: --loads: '1,nan' is not a comma-separated list of finite numbers > 0"),
    # -- files ------------------------------------------------------------------------------
    Case("run-out-unwritable", "traceback", RUN + ["--t-end", "0.01", "--out", "{blocker}/sub"],
         "rtmbs: error: output folder '{blocker}/sub': cannot write there (Not a directory)"),
    Case("plot-out-unwritable", "traceback", ["plot", "{result}", "link2.z", "--out",
                                              "{blocker}/p.png"],
         "rtmbs: error: output file '{blocker}/p.png': cannot write its folder (output folder "
         "'{blocker}': a file of that name exists)"),
    Case("tyre-eval-out-unwritable", "traceback",
         ["tyre", "eval", "{tir}", "--inputs", "{inputs}", "--out", "{blocker}/f.csv"],
         "rtmbs: error: output file '{blocker}/f.csv': cannot write its folder (output folder "
         "'{blocker}': a file of that name exists)"),
    Case("tyre-curves-out-unwritable", "new", ["tyre", "curves", "{tir}", "--out", "{blocker}"],
         "rtmbs: error: output folder '{blocker}': a file of that name exists"),
    Case("export-fmu-out-unwritable", "traceback", ["export-fmu", DP, "-o", "{blocker}/m.fmu"],
         "rtmbs: error: output file '{blocker}/m.fmu': cannot write its folder (output folder "
         "'{blocker}': a file of that name exists)"),
    Case("export-fmu-out-folder", "new", ["export-fmu", DP, "-o", "{folder}"],
         "rtmbs: error: output file '{folder}': is a folder, expected a file name"),
    Case("study-out-unwritable", "traceback", ["study", "truck", "--quick", "--out", "{blocker}/s"],
         "rtmbs: error: output folder '{blocker}/s': cannot write there (Not a directory)"),
    Case("road-out-unwritable", "new", ["road", "plot", "--type", "flat", "--out", "{blocker}"],
         "rtmbs: error: output folder '{blocker}': a file of that name exists"),
    Case("realtime-out-unwritable", "new", ["realtime", DP, "--duration", "0.01", "--out",
                                            "{blocker}"],
         "rtmbs: error: output folder '{blocker}': a file of that name exists"),
    Case("model-path-is-a-folder", "traceback", ["run", "{folder}", "--no-progress"],
         "rtmbs: error: {folder}: is a folder, expected a YAML model file"),
    Case("plot-missing-result", "traceback", ["plot", "{missing}", "link2.z"],
         "rtmbs: error: result '{missing}': not found (expected a folder written by 'rtmbs run' "
         "or its result.h5)"),
    Case("plot-empty-result-folder", "traceback", ["plot", "{empty_result}", "link2.z"],
         "rtmbs: error: result '{empty_result}': no result.h5 in that folder (written by "
         "'rtmbs run --out')"),
    Case("plot-empty-result-file", "new", ["plot", "{zero_h5}", "link2.z"],
         r"re:rtmbs: error: result '{zero_h5}': not a readable result file \(.+\)"),
    Case("udp-port-in-use", "traceback", ["realtime", DP, "--udp", "{udp_busy}", "--duration",
                                          "0.01"],
         "rtmbs: error: busy.yaml.listen: cannot listen on 127.0.0.1:{port} (Address already "
         "in use)"),
    Case("udp-config-malformed", "new", ["realtime", DP, "--udp", "{udp_broken}"],
         r"re:rtmbs: error: {udp_broken}: malformed UDP configuration: .+"),
    Case("udp-max-age-not-a-number", "new", ["realtime", DP, "--udp", "{udp_age}"],
         "rtmbs: error: age.yaml.max_age: expected a time > 0 s, got 'soon'"),
    # -- model values ---------------------------------------------------------------------
    Case("inertia-infinite", "traceback", ["info", "{inertia_inf}"],
         "rtmbs: error: {inertia_inf}: bodies.link1.inertia: inertia must be finite, got "
         "[inf, 1.0, 1.0]"),
    Case("inertia-missing", "silent", ["info", "{inertia_missing}"],
         "rtmbs: error: {inertia_missing}: bodies.link1.inertia: required key is missing: the "
         "inertia about the centre of mass, body axes [kg m²] (3 principal moments, 6 values or "
         "a 3×3 matrix); there is no default"),
    Case("x-axis-parallel-to-z-axis", "traceback", ["info", "{x_parallel_z}"],
         "rtmbs: error: {x_parallel_z}: bodies.link1.markers.top.orientation: x_axis [0.0, 2.0, "
         "0.0] is parallel to z_axis [0.0, 1.0, 0.0]; expected an x_axis across z_axis"),
    Case("gravity-nan", "misleading", ["run", "{gravity_nan}", "--no-progress"],
         "rtmbs: error: {gravity_nan}: gravity.[2]: Input should be a finite number"),
    Case("stiffness-nan", "misleading", ["run", "{stiffness_nan}", "--no-progress"],
         "rtmbs: error: {stiffness_nan}: forces.spring: stiffness must be finite, got nan"),
    Case("velocity-infinite", "misleading", ["run", "{velocity_inf}", "--no-progress"],
         "rtmbs: error: {velocity_inf}: bodies.link2.velocity.[0]: Input should be a finite "
         "number"),
    Case("stop-min-greater-than-max", "misleading", ["run", "{stop_min_max}", "--no-progress"],
         "rtmbs: error: {stop_min_max}: forces.stop: min_length 2.5 is greater than max_length 2"),
    Case("mass-nan", "new", ["run", "{mass_nan}", "--no-progress"],
         "rtmbs: error: {mass_nan}: bodies.link1.mass: Input should be a finite number"),
    Case("damping-negative", "new", ["run", "{damping_neg}", "--no-progress"],
         "rtmbs: error: {damping_neg}: forces.spring: damping must be >= 0, got -3.0"),
    Case("stop-exponent-0", "new", ["run", "{exponent_0}", "--no-progress"],
         "rtmbs: error: {exponent_0}: forces.stop: exponent must be > 0, got 0.0"),
    Case("model-without-bodies", "silent", ["run", "{no_bodies}", "--no-progress"],
         "rtmbs: error: {no_bodies}: bodies: a model needs at least one body; none given "
         "(nothing would move)"),
    Case("mass-true", "silent", ["run", "{mass_true}", "--no-progress"],
         "rtmbs: error: {mass_true}: bodies.link1.mass: expected a number, got true (a boolean)"),
    Case("inertia-false", "new", ["info", "{inertia_bool}"],
         "rtmbs: error: {inertia_bool}: bodies.link2.inertia: expected a number, got false (a "
         "boolean)"),
    Case("mass-1e-12", "traceback", ["run", "{mass_tiny}", "--no-progress"],
         "rtmbs: error: {mass_tiny}: bodies.link1.mass: mass 1e-12 kg is below 1e-06 kg, the "
         "lightest body rtmbs accepts (the mass matrix would be numerically singular): give the "
         "body a plausible mass or merge it into the body it rides on"),
    Case("free-length-negative", "silent", ["run", "{free_length_neg}", "--no-progress"],
         "rtmbs: error: {free_length_neg}: forces.spring: free_length must be >= 0 (a distance "
         "between the markers' origins), got -0.5"),
    Case("duplicate-yaml-key", "silent", ["run", "{dup_key}", "--no-progress"],
         "rtmbs: error: {dup_key}: duplicate key 'joints' at lines {dup_first} and {dup_second} "
         "(a key may appear once in a mapping: YAML would keep only the last)"),
    Case("tir-unterminated-quote", "silent", ["tyre", "eval", "{quote_tir}", "--inputs",
                                              "{inputs}", "--out", "{tmp}/f.csv"],
         "rtmbs: error: quote.tir:{quote_line} [MODEL] TYRESIDE: unterminated quote: \"'LEFT\" "
         "has no closing '"),
    Case("tir-not-utf8", "silent", ["tyre", "eval", "{latin_tir}", "--inputs", "{inputs}",
                                    "--out", "{tmp}/f.csv"],
         "rtmbs: error: latin.tir:{latin_line}: not UTF-8 text (byte 0xb0 at column 14); save "
         "the file as UTF-8 or ASCII"),
    Case("tyre-eval-inputs-nan", "silent", ["tyre", "eval", "{tir}", "--inputs", "{nan_inputs}",
                                            "--out", "{tmp}/f.csv"],
         "rtmbs: error: {nan_inputs}:3: column 'alpha_rad': value 'nan' is not a finite number"),
    Case("road-1e9-m-at-1-mm", "traceback", ["road", "plot", "--type", "bump", "--height", "0.02",
                                             "--length", "1e9", "--dx", "1e-3",
                                             "--out", "{tmp}/road"],
         "rtmbs: error: road.dx: length 1e+09 m at dx = 0.001 m needs 1e+12 samples per track, "
         "more than the limit of 50,000,000 (rtmbs.vehicle.road.MAX_ROAD_POINTS, 0.8 GB): use a "
         "larger dx or a shorter road"),
    Case("road-csv-tiny-spacing", "traceback", ["road", "plot", "--type", "csv", "--file",
                                                "{fine_road}", "--out", "{tmp}/road"],
         "rtmbs: error: road file {fine_road}: length 1e+06 m at dx = 1e-06 m needs 1e+12 "
         "samples per track, more than the limit of 50,000,000 "
         "(rtmbs.vehicle.road.MAX_ROAD_POINTS, 0.8 GB): use a larger dx or a shorter road"),
    Case("tir-vxlow-0", "silent", ["tyre", "eval", "{vxlow0}", "--inputs", "{inputs}", "--out",
                                   "{tmp}/f.csv"],
         "rtmbs: error: vxlow0.tir:{vxlow_line} [MODEL] VXLOW: value 0 must be > 0 (the speed "
         "scale of the low-speed slip damping; 0 gives NaN forces at standstill)"),
    Case("tir-pcy1-0", "silent", ["tyre", "eval", "{pcy10}", "--inputs", "{inputs}", "--out",
                                  "{tmp}/f.csv"],
         "rtmbs: error: pcy10.tir:{pcy1_line} [LATERAL_COEFFICIENTS] PCY1: value 0 must be > 0 "
         "(the shape factor of Fy; 0 removes all lateral force)"),
    # -- accepted, with valid output ----------------------------------------------------------
    Case("realtime-duration-0-json", "silent", ["realtime", DP, "--duration", "0", "--json"],
         None, 0),
]


def run_case(case: Case, files: dict):
    """(exit code, stdout, stderr, exception escaping main or None)."""
    argv = [a.format(**files) for a in case.argv]
    out, err = io.StringIO(), io.StringIO()
    code, exc = None, None
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as e:
            code = e.code
        except BaseException as e:  # noqa: BLE001 - a traceback is what the corpus looks for
            exc = e
    return code, out.getvalue(), err.getvalue(), exc


def outcome(case: Case, files: dict, code, out: str, err: str, exc) -> str:
    """ok | traceback | silent | misleading: how the case ended."""
    if exc is not None or "Traceback" in err or "internal error" in err:
        return "traceback"
    if case.expect is None:
        if code != case.code:
            return "misleading"
        try:
            json.loads(out, parse_constant=lambda c: (_ for _ in ()).throw(ValueError(c)))
        except ValueError:
            return "silent"
        return "ok"
    if code == 0:
        return "silent"
    expect = case.expect.format(**files)
    lines = err.strip().splitlines()
    last = lines[-1] if lines else ""
    good = (re.fullmatch(expect[3:], last) is not None if expect.startswith("re:")
            else last == expect)
    return "ok" if good and code == case.code else "misleading"


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("bad_input")
    f = make_files(tmp)
    assert main(["run", DP, "--t-end", "0.01", "--no-progress", "--out", str(tmp / "res")]) == 0
    f["result"] = str(tmp / "res")
    yield f
    f["busy_socket"].close()


@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_bad_input_is_a_named_one_line_error(case, files):
    code, out, err, exc = run_case(case, files)
    if exc is not None:
        raise exc
    assert "Traceback" not in err and "internal error" not in err, err
    if case.expect is None:  # accepted: strict JSON (null, never NaN)
        assert code == case.code, err
        summary = json.loads(out, parse_constant=lambda c: pytest.fail(f"{c} in {out}"))
        assert summary["steps"] == 0 and summary["status"] == 1
        return
    assert code == case.code, err
    last = err.strip().splitlines()[-1]
    expect = case.expect.format(**files)
    if expect.startswith("re:"):
        assert re.fullmatch(expect[3:], last), last
    else:
        assert last == expect


# -- cases that do not fit the table --------------------------------------------------------------
def test_the_redundant_joint_notice_is_one_warning_line_and_in_the_json_summary(tmp_path, capsys):
    """It reached the user as a raw Python warning (file:line and a stray source line) and was
    missing from the --json summary's warnings."""
    def repeat_shoulder(d):
        d["joints"].append(dict(d["joints"][0], name="shoulder_again"))
        d["forces"] = []

    path = _model(tmp_path, "redundant", repeat_shoulder)
    capsys.readouterr()
    assert main(["run", path, "--t-end", "0.01", "--json", "--no-progress"]) == 0
    cap = capsys.readouterr()
    notice = ("'double-pendulum': rank(Φq) = 12 < m = 17; redundant and left out of the solver's "
              "equations: joint 'shoulder_again' equations 0, 1, 2, 3, 4 (dot-1, spherical-x, "
              "spherical-y, spherical-z rows)")
    assert cap.err.strip().splitlines() == [f"rtmbs: warning: {notice}"]
    assert json.loads(cap.out)["warnings"] == [notice]


def test_a_linalg_error_escaping_a_command_names_the_model(monkeypatch, capsys):
    """A singular factorisation ended in "internal error: LinAlgError: ..." with exit 70."""
    import numpy as np

    import rtmbs.cli.commands

    def singular(args):
        raise np.linalg.LinAlgError("SparseLU.analyse: zero or non-finite pivot in row 3")

    monkeypatch.setattr(rtmbs.cli.commands, "cmd_info", singular)
    assert main(["info", "my-model.yaml"]) == 1
    assert capsys.readouterr().err.strip() == (
        "rtmbs: error: my-model.yaml: the equations of motion could not be solved "
        "(SparseLU.analyse: zero or non-finite pivot in row 3): check the model's masses and "
        "inertias (none near zero or far apart), that no joint repeats another or locks a body "
        "the solver must move, and that the initial positions satisfy the joints")


def test_duplicate_keys_are_refused_in_vehicle_and_subsystem_files(tmp_path, capsys):
    import shutil

    from rtmbs.vehicle.build.vehicle import SEDAN

    car = tmp_path / "car"
    shutil.copytree(SEDAN, car)
    sub = car / "front_suspension.yaml"
    text = sub.read_text()
    first = next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith("spring:"))
    sub.write_text(text + "spring: {stiffness: 1.0, preload: 0.0}\n")
    second = len(text.splitlines()) + 1
    assert main(["info", str(car)]) == 1
    assert capsys.readouterr().err.strip() == (
        f"rtmbs: error: {sub}: duplicate key 'spring' at lines {first} and {second} (a key may "
        "appear once in a mapping: YAML would keep only the last)")


def test_booleans_are_refused_in_vehicle_files():
    from pydantic import ValidationError

    from rtmbs.vehicle.build.schema import Chassis, Part

    for bad in (dict(mass=True), dict(mass=1.0, inertia=[1.0, True, 1.0])):
        with pytest.raises(ValidationError, match="expected a number, got true"):
            Part(**bad)
    with pytest.raises(ValidationError, match="expected a number, got false"):
        Chassis(mass=1.0, inertia=[1.0, 1.0, False], centre_of_mass=[0, 0, 0])


def test_the_strict_yaml_loader():
    from rtmbs.model.strict_yaml import DuplicateKeyError, safe_load

    assert safe_load("a: &m {p: 1}\nb: {<<: *m, p: 2}\n") == {"a": {"p": 1}, "b": {"p": 2}}
    with pytest.raises(DuplicateKeyError, match=r"^duplicate key 'n' at lines 2 and 3 "):
        safe_load("x:\n  - n: 1\n    n: 2\n")
    with pytest.raises(yaml.YAMLError):  # callers catching yaml.YAMLError keep working
        safe_load("a: 1\na: 2\n")


def test_no_bodies_and_bad_priority_through_the_api():
    from rtmbs.errors import ModelError, SolverError
    from rtmbs.model import Model
    from rtmbs.models import load_model
    from rtmbs.realtime.loop import run_realtime
    from rtmbs.system import compile_model

    with pytest.raises(ModelError, match=r"^bodies: a model needs at least one body"):
        compile_model(Model(name="empty"))
    with pytest.raises(SolverError, match=r"^priority 200: expected a SCHED_FIFO priority"):
        run_realtime(load_model(DP), "li-euler", h=1e-3, duration=0.0, priority=200)


if __name__ == "__main__":
    import tempfile
    from collections import Counter

    with tempfile.TemporaryDirectory() as tmp:
        fl = make_files(Path(tmp))
        main(["run", DP, "--t-end", "0.01", "--no-progress", "--out", f"{tmp}/res"])
        fl["result"] = f"{tmp}/res"
        counts = Counter()
        for c in CASES:
            got = outcome(c, fl, *run_case(c, fl))
            counts[(c.issue, got)] += 1
            print(f"{c.id:<40} issue: {c.issue:<10} now: {got}")
        fl["busy_socket"].close()
    print()
    for (issue, got), n in sorted(counts.items()):
        print(f"{issue:<10} -> {got:<10} {n}")
    print("not ok:", sum(n for (_, got), n in counts.items() if got != "ok"), "of", len(CASES))
