"""Any car of ``rtmbs.vehicle.build`` ready for an event: built rolling at the event's speed
from its own vehicle file (no file per speed), and the dimensions the events need taken from
the car rather than the sedan's: the overall width over the tyres (ISO 3888-1 lane widths) and
the on-centre steering ratio (the K&C rig, :func:`rtmbs.analysis.kc.steering_ratio_on_centre`).

The initial state of a car at speed v (vehicle file key ``speed``, set here): every body moves
at (v, 0, 0) and each wheel (with its half shafts) spins at v / R_e about its axle, R_e the
tyre's effective rolling radius (``vehicle.build.vehicle._rolling``); the assembly projects
these velocities onto the joints, so the driveline and the steering follow consistently."""
from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from ..errors import ModelError

#: the built-in cars: name -> joints variant of the sedan's files
BUILTIN_CARS = {"sedan": "ideal", "sedan-bushings": "bushings"}
#: tyre width (m) assumed when a .tir has no [DIMENSION] WIDTH
DEFAULT_TYRE_WIDTH = 0.2


@dataclass(frozen=True)
class Car:
    """A car compiled at a speed: ``system`` (compiled), ``model`` (description), ``name``,
    ``path`` (its vehicle.yaml), ``speed`` (m/s)."""

    system: object
    model: object
    name: str
    path: Path
    speed: float


def vehicle_file(car: str) -> tuple[Path, str | None]:
    """The vehicle.yaml of ``car`` (a built-in name, a vehicle file or its folder) and the
    joints variant that overrides the file's (None: the file's own)."""
    from ..vehicle.build.vehicle import SEDAN

    if car in BUILTIN_CARS:
        return SEDAN / "vehicle.yaml", BUILTIN_CARS[car]
    path = Path(car).expanduser()
    if path.is_dir():
        path = path / "vehicle.yaml"
    if not path.is_file():
        raise ModelError("CAR", f"'{car}' is neither a built-in car ({', '.join(BUILTIN_CARS)}) "
                         f"nor a vehicle file or folder (looked for {path.resolve()})")
    return path, None


def load_car(car: str, speed: float) -> Car:
    """``car`` compiled rolling straight ahead at ``speed`` m/s (its file's ``speed`` replaced)."""
    from ..system import compile_model
    from ..vehicle.build.vehicle import _read_yaml, vehicle_from_dict

    if not (math.isfinite(speed) and speed >= 0.0):
        raise ModelError("--speed", f"expected a finite speed >= 0, got {speed!r}")
    path, joints = vehicle_file(car)
    data = _read_yaml(path, str(path))
    if not isinstance(data, dict):
        raise ModelError(str(path), "must hold a mapping at the top level")
    data["speed"] = float(speed)
    model = vehicle_from_dict(data, path.parent, str(path), joints)
    name = car if car in BUILTIN_CARS else (data.get("name") or path.parent.name)
    model.name = str(name)
    return Car(compile_model(model), model, str(name), path, float(speed))


def _tyre_props(model):
    from ..vehicle.tyre.tir import load_tir, shipped_or_path

    tyre = next((f.tyre for f in model.forces if f.type == "tyre"), None)
    if tyre is None:
        raise ModelError(model.name, "the car has no tyre element")
    return load_tir(shipped_or_path(tyre))


def tracks(model) -> dict[str, float]:
    """Front and rear track (m): the lateral distance between the design wheel centres."""
    out = {}
    for axle, p in (("front", "f"), ("rear", "r")):
        names = {b.name for b in model.bodies}
        if f"{p}l_wheel" in names and f"{p}r_wheel" in names:
            out[axle] = abs(model.body(f"{p}l_wheel").position[1]
                            - model.body(f"{p}r_wheel").position[1])
    if not out:
        raise ModelError(model.name, "the car has no fl/fr or rl/rr wheels")
    return out


def overall_width(model) -> tuple[float, str]:
    """The width over the tyres (m): the larger track plus the tyre's section width ([DIMENSION]
    WIDTH of its .tir, else :data:`DEFAULT_TYRE_WIDTH`), and how it was found. The sedan:
    1.596 m + 0.245 m = 1.841 m (the events' former fixed 1.85 m)."""
    t = max(tracks(model).values())
    tir = _tyre_props(model)
    e = tir.tir.find("WIDTH", "DIMENSION")
    if e is not None and isinstance(e.value, float) and e.value > 0:
        return t + e.value, f"track {t:.3f} m + tyre width {e.value:.3f} m ({tir.name})"
    return t + DEFAULT_TYRE_WIDTH, (f"track {t:.3f} m + {DEFAULT_TYRE_WIDTH} m ({tir.name} has no "
                                    "[DIMENSION] WIDTH)")


def wheelbase(model) -> float:
    """Distance between the front-left and rear-left design wheel centres (m)."""
    return model.body("fl_wheel").position[0] - model.body("rl_wheel").position[0]
