"""Units on every result: the CSV units row, HDF5 attributes, MDF4 channel units and plot axis
labels carry the unit of each coordinate, output and multiplier (rtmbs/units.py); the results
line of ``rtmbs run`` lists every file written and ``wall_s`` has one meaning."""
from __future__ import annotations

import csv
import json

import numpy as np
import pytest

from rtmbs.cli import main
from rtmbs.io.files import save_result
from rtmbs.io.meta import multiplier_units, system_units
from rtmbs.model.registry import FORCE_TYPES
from rtmbs.units import ELEMENT_MAIN, unit_of

# a hanging pendulum on a revolute joint (about y) with a spring-damper (N) and a torsion
# spring (N m) between the ground and the link
PENDULUM = """
name: hanging
gravity: [0, 0, -9.81]
bodies:
  - name: link
    mass: 2.0
    inertia: [0.17, 0.17, 0.002]
    position: [0, 0, -0.5]
    markers:
      top: {position: [0, 0, 0.5], orientation: {z_axis: [0, 1, 0]}}
      tip: {position: [0, 0, -0.5]}
ground:
  markers:
    pivot: {position: [0, 0, 0], orientation: {z_axis: [0, 1, 0]}}
    anchor: {position: [0, 0, -1.5]}
joints:
  - {name: hinge, type: revolute, marker_i: ground.pivot, marker_j: link.top}
forces:
  - {name: pull, type: spring-damper, marker_i: ground.anchor, marker_j: link.tip,
     stiffness: 100.0, damping: 0.0, free_length: 0.2}
  - {name: twist, type: torsion-spring, marker_i: ground.pivot, marker_j: link.top,
     stiffness: 5.0, damping: 0.0}
"""


@pytest.fixture(scope="module")
def run(tmp_path_factory):
    from rtmbs.models import load_model
    from rtmbs.solvers.simulate import simulate

    d = tmp_path_factory.mktemp("units")
    (d / "hanging.yaml").write_text(PENDULUM)
    system = load_model(str(d / "hanging.yaml"))
    res = simulate(system, "li-euler", t_end=0.02, h=1e-3)
    files = save_result(res, d / "out", mdf=True, system=system)
    return system, res, d / "out", files


def test_every_force_element_type_has_a_unit():
    assert set(ELEMENT_MAIN) == set(FORCE_TYPES)


def test_units_of_names():
    assert unit_of("q:link.z") == "m" and unit_of("qd:link.z") == "m/s"
    assert unit_of("q:link.e2") == "1" and unit_of("q:strut.theta") == "rad"
    assert unit_of("qd:strut.theta") == "rad/s" and unit_of("t") == "s"
    assert unit_of("rim.wy") == "rad/s" and unit_of("rim.az") == "m/s²"
    assert unit_of("tyre.alpha") == "rad" and unit_of("tyre.kappa") == "1"
    assert unit_of("twist.force", {"twist": "torsion-spring"}) == "N m"
    assert unit_of("pull.force", {"pull": "spring-damper"}) == "N"
    assert unit_of("mystery") == ""


def test_multiplier_units_follow_the_joint_primitives_and_carry_the_weight(run):
    system, res, _, _ = run
    u = multiplier_units(system)
    start, count = system.joint_rows["hinge"]
    assert u[start:start + count] == ["N", "N", "N", "N m", "N m"]
    ep = system.joint_rows["link.euler-parameters"][0]
    assert u[ep] == "N m"
    # at rest the hinge's point rows (N) carry the weight and the spring's pull k (L - L0)
    # (the link hangs in equilibrium): the labels sit on the rows of forces
    lam = np.abs(res.lam[1, start:start + 3])
    assert lam.max() == pytest.approx(2.0 * 9.81 + 100.0 * (0.5 - 0.2), rel=1e-3)


def test_csv_has_a_units_row_under_the_names(run):
    _, res, out, _ = run
    with (out / "result.csv").open() as fh:
        rows = list(csv.reader(fh))
    units = dict(zip(rows[0], rows[1]))
    assert units["t"] == "s" and units["q:link.z"] == "m" and units["qd:link.e1"] == "1/s"
    assert units["link.vz"] == "m/s" and units["link.wy"] == "rad/s"
    assert units["pull.force"] == "N" and units["twist.force"] == "N m"
    assert float(rows[2][0]) == 0.0  # samples start on the third row
    back = type(res).load(out / "result.csv")
    assert back.meta["units"]["twist.force"] == "N m"
    np.testing.assert_allclose(back.q, res.q, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(back.outputs["pull.force"], res.outputs["pull.force"], rtol=1e-12)


def test_hdf5_attributes_carry_units(run):
    import h5py

    system, _, out, _ = run
    with h5py.File(out / "result.h5") as f:
        assert f["t"].attrs["unit"] == "s"
        assert f["outputs/twist.force"].attrs["unit"] == "N m"
        assert f["outputs/link.z"].attrs["unit"] == "m"
        names = json.loads(f.attrs["coordinate_names"])
        q_units = json.loads(f["q"].attrs["units"])
        assert q_units[names.index("link.x")] == "m" and q_units[names.index("link.e0")] == "1"
        assert json.loads(f["lam"].attrs["units"]) == multiplier_units(system)
        every = json.loads(f["units"][()])
        assert every == {**system_units(system), "phi_norm": "", "phid_norm": ""}


def test_mdf4_channels_carry_units(run):
    from asammdf import MDF

    _, _, out, files = run
    assert out / "result.mf4" in files
    with MDF(out / "result.mf4") as mdf:
        assert mdf.get("twist.force").unit == "N m"
        assert mdf.get("pull.force").unit == "N"
        assert mdf.get("qd:link.z").unit == "m/s"
        assert mdf.get("lam:0").unit == "N"


def test_plot_axis_labels_carry_units(run, monkeypatch):
    from rtmbs.io import plot

    _, res, _, _ = run
    figs = []
    monkeypatch.setattr(plot, "_save", lambda fig, out: figs.append(fig))
    plot.plot_signals(res, ["link.z", "twist.force", "q:link.e0"], "unused.png")
    labels = [ax.get_ylabel() for ax in figs[0].axes]
    assert labels == ["link.z [m]", "twist.force [N m]", "q:link.e0 [1]"]
    assert figs[0].axes[-1].get_xlabel() == "t [s]"
    plot.compare_plot({"a": res, "b": res}, "twist.force", "unused.png")
    assert [ax.get_ylabel() for ax in figs[1].axes] == ["twist.force [N m]", "difference [N m]"]


def test_run_lists_every_file_and_reports_one_wall_time(tmp_path, capsys):
    from rtmbs.result import Result

    out = tmp_path / "dp"
    args = ["run", "double-pendulum", "--t-end", "0.05", "--out", str(out), "--format", "h5,csv",
            "--mdf", "--no-progress"]
    assert main(args) == 0
    line = capsys.readouterr().out.strip().splitlines()[-1]
    assert line == f"results written to {out}/ (result.h5, result.csv, result.mf4, summary.json)"
    assert main(args + ["--json"]) == 0
    s = json.loads(capsys.readouterr().out.strip().splitlines()[-1])
    assert [p.rsplit("/", 1)[-1] for p in s["files"]] == ["result.h5", "result.csv", "result.mf4",
                                                         "summary.json"]
    assert json.loads((out / "summary.json").read_text())["files"] == s["files"]
    assert s["wall_s"] == Result.load(out).meta["wall_s"] > 0
