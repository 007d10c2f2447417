"""Which tyre files can run transient (Carpinelli 2015 eqs. 4.22-4.24): those that give relaxation
lengths — MF 6.1 through its carcass stiffnesses, MF 5.2 / PAC2002 through PTX1-3, PTY1-2."""
from __future__ import annotations

import pytest

from rtmbs.errors import ModelError
from rtmbs.model import Model
from rtmbs.system import compile_model
from rtmbs.vehicle.tyre.tir import data_path

Y = {"z_axis": [0, 1, 0]}


def _wheel(tyre: str) -> Model:
    m = Model(name="wheel", gravity=(0, 0, -9.81))
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, 0.3),
               markers={"hub": {"orientation": Y}})
    m.add_force("tyre", "tyre", marker_j="rim.hub", tyre=tyre, transient=True)
    return m


@pytest.mark.parametrize("tyre", ["MF61", "MF52", "PAC2002"])
def test_shipped_files_run_transient(tyre):
    assert compile_model(_wheel(tyre)).nx == 2


def test_a_file_without_relaxation_data_is_refused_with_the_keys_it_needs(tmp_path):
    text = data_path("chrono_MagicFormula61_Parameters.tir").read_text()
    lines = [ln for ln in text.splitlines() if not ln.strip().startswith("LONGITUDINAL_STIFFNESS")]
    path = tmp_path / "no_carcass.tir"
    path.write_text("\n".join(lines) + "\n")
    with pytest.raises(ModelError) as e:
        compile_model(_wheel(str(path)))
    msg = str(e.value)
    assert msg.startswith(f"forces.tyre.transient: '{path}' gives no")
    assert ("gives no relaxation lengths (sigma_kappa, sigma_alpha = nan, 0.724 m at the nominal "
            "load): MF 6.1 needs LONGITUDINAL_STIFFNESS and LATERAL_STIFFNESS, MF 5.2 / PAC2002 "
            "PTX1-3 and PTY1-2") in msg
