"""The benchmark library: built-in models by name, and ``load_model`` for names or YAML files.

Each entry documents its source and its n, m, f (``rtmbs models``, ``rtmbs info NAME``).
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable

from ..errors import ModelError, did_you_mean
from ..protocol import MechanicalSystem

_HERE = Path(__file__).parent


def _yaml(name):
    def build():
        from ..model import load_model_file
        from ..system import compile_model

        return compile_model(load_model_file(_HERE / f"{name}.yaml"))

    return build


def _chain():
    from ..system import compile_model
    from .classic import spatial_chain

    return compile_model(spatial_chain(10))


def _truck(variant):
    def build():
        from .truck import truck

        return truck(variant)

    return build


def _mcpherson(over):
    def build():
        from .mcpherson import build as b

        return b(over)

    return build


def _sedan(joints, transient=False):
    def build():
        from ..system import compile_model
        from ..vehicle.build import sedan_model

        m = sedan_model(joints)
        if transient:  # the tyres' carcass deflections as extra states (Carpinelli 2015 eqs. 4.22-4.24)
            for f in m.forces:
                if f.type == "tyre":
                    f.transient = True
            m.name = "sedan-transient"
        return compile_model(m)

    return build


def _sedan_rear_axle():
    from ..system import compile_model
    from ..vehicle.build.vehicle import SEDAN_REAR_AXLE, load_vehicle_file, pitch_held

    return compile_model(pitch_held(load_vehicle_file(SEDAN_REAR_AXLE)))


def _multilink(variant):
    def build():
        from .multilink import build as b

        return b(variant)

    return build


#: name -> (factory, one-line description)
BUILTIN: dict[str, tuple[Callable[[], MechanicalSystem], str]] = {
    "double-pendulum": (_yaml("double-pendulum"), "two links on revolute joints (n=14, m=12, f=2)"),
    "slider-crank": (_yaml("slider-crank"), "spatial slider-crank, closed loop (n=21, m=20, f=1)"),
    "four-bar": (_yaml("four-bar"), "spatial four-bar linkage (n=21, m=20, f=1)"),
    "spatial-chain-10": (_chain, "10 links on spherical joints (n=70, m=40, f=30)"),
    "truck-ode": (_truck("ode"), "planar truck of the truck benchmark, ODE variant (n=9, m=0)"),
    "truck-dae": (_truck("dae"), "planar truck of the truck benchmark, DAE variant (n=9, m=2)"),
    "truck-linear": (_truck("linear"), "planar truck linearised about equilibrium (n=9, m=0)"),
    "mcpherson-simplified": (_mcpherson(False), "McPherson strut of Pękal & Frączek 2016, zxz angles (f=4)"),
    "mcpherson-overconstrained": (_mcpherson(True), "overconstrained McPherson strut, redundant (f=4)"),
    "peer-four-bar": (_yaml("peer-four-bar"), "peer planar Grashof four-bar, undamped (n=21, m=20, f=1)"),
    "peer-chain": (_yaml("peer-chain"), "peer 10-rod chain on spherical joints, spinning (n=70, m=40, f=30)"),
    "peer-quarter-car": (_yaml("peer-quarter-car"), "peer double-wishbone quarter car (n=42, m=38, f=4)"),
    "sedan": (_sedan("ideal"), "mid-size front-drive sedan, ideal joints (n=245, m=229, f=16)"),
    "sedan-bushings": (_sedan("bushings"), "mid-size front-drive sedan, bushings (n=245, m=139, f=106)"),
    "sedan-transient": (_sedan("ideal", transient=True),
                        "the sedan with transient tyres (relaxation lengths; 8 extra states)"),
    "sedan-rear-axle": (_sedan_rear_axle, "the sedan's rear axle, with half shafts, on a rig holding its pitch (n=147, m=138, f=9)"),
    "sla-quarter-car": (_yaml("sla-quarter-car"), "SLA quarter car of Kim & Wang 2005, half-sine bump (n=28, m=26, f=2)"),
    "sla-car": (_yaml("sla-car"), "four-corner SLA car (Kim & Wang 2005 corners), heave-only chassis, bump (n=91, m=86, f=5)"),
}
if (_HERE / "multilink.py").exists():
    BUILTIN["multilink-bushings"] = (_multilink("bushings"), "rear multilink, links on 10 bushings (n=77, m=31, f=46)")
    BUILTIN["multilink-ideal"] = (_multilink("ideal"), "rear multilink, ideal joints (n=77, m=66, f=11)")

BUILTIN.update({
    "concept-quarter-car": (_yaml("concept-quarter-car"),
                            "trailing-arm quarter car, Carpinelli 2015 Fig. 5.5 (n=21, m=16, f=5)"),
    "concept-trailing-arm-car": (_yaml("concept-trailing-arm-car"),
                                 "12-DOF trailing-arm car, Carpinelli 2015 Fig. 5.13 (n=63, m=51, f=12)"),
    "concept-ride-7dof": (_yaml("concept-ride-7dof"), "classic 7-DOF ride model (n=35, m=28, f=7)"),
})


def model_file(name: str) -> Path | None:
    """The YAML file of a built-in model, where it has one."""
    p = _HERE / f"{name}.yaml"
    return p if p.exists() else None


def load_model(name_or_path) -> MechanicalSystem:
    """A compiled system from a built-in name, a YAML model file or a vehicle file (or the folder
    holding its ``vehicle.yaml``)."""
    s = str(name_or_path)
    if s in BUILTIN:
        return BUILTIN[s][0]()
    p = Path(s)
    if p.suffix.lower() in (".yaml", ".yml") or p.exists():
        from ..model import load_model_file
        from ..system import compile_model
        from ..vehicle.build import is_vehicle_file, load_vehicle_file

        if is_vehicle_file(p):  # a vehicle file (or its folder): docs/vehicle.md
            return compile_model(load_vehicle_file(p))
        return compile_model(load_model_file(p))
    raise ModelError("MODEL", f"'{s}' is neither a built-in model nor a model file" + did_you_mean(s, BUILTIN))
