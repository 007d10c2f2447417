"""Results as ASAM MDF4 files (asammdf), the format of vehicle test benches and HIL rigs."""
from __future__ import annotations

from pathlib import Path

import numpy as np

#: Unit of a derivative channel from the unit of its coordinate.
_RATE = {"m": "m/s", "rad": "rad/s", "deg": "deg/s", "mm": "mm/s", "": ""}


def _rate_unit(u: str) -> str:
    return _RATE.get(u, f"{u}/s" if u else "")


def save_mdf(result, path, units: dict[str, str] | None = None, comment: str | None = None) -> Path:
    """Write ``result`` (:class:`rtmbs.result.Result`) to an MDF4 file.

    Channels (time is the master channel, in s): ``q:<coordinate>``, ``qd:<coordinate>``,
    ``phi_norm``, ``phid_norm``, ``lam:<i>`` and every named output, as in
    :meth:`Result.columns`. Each channel carries its unit (:meth:`Result.units`: from the model
    when the run was saved with it, else from the signal's name, rtmbs.units). ``units``
    overrides: it maps a coordinate or output name to its unit (``{"x": "m", "chassis.yaw":
    "rad"}``); ``qd:`` channels of an overridden coordinate get the rate unit (m -> m/s).
    """
    from asammdf import MDF, Signal

    known = result.units()
    given = result.meta.get("units") or {}  # bare coordinate names, as older results wrote them
    t = np.asarray(result.t, dtype=float)
    names = result.coordinate_names or [f"q{i}" for i in range(result.q.shape[1])]
    units = {**{k: v for k, v in given.items() if k in names}, **(units or {})}
    signals = []

    def add(name, samples, unit="", comment=""):
        signals.append(Signal(samples=np.ascontiguousarray(samples, dtype=float), timestamps=t,
                              name=name, unit=unit, comment=comment))

    for i, c in enumerate(names):
        u = units.get(c, known.get(f"q:{c}", ""))
        ud = _rate_unit(units[c]) if c in units else known.get(f"qd:{c}", "")
        add(f"q:{c}", result.q[:, i], u, f"coordinate {c}")
        add(f"qd:{c}", result.qd[:, i], ud, f"velocity of {c}")
    add("phi_norm", result.phi_norm, "", "2-norm of the constraints Phi (mixed units)")
    add("phid_norm", result.phid_norm, "", "2-norm of Phi_q qd + Phi_t (mixed units)")
    for j in range(result.lam.shape[1] if result.lam.ndim == 2 else 0):
        add(f"lam:{j}", result.lam[:, j], known.get(f"lam:{j}", ""), f"Lagrange multiplier {j}")
    for name, v in result.outputs.items():
        add(name, v, units.get(name, known.get(name, "")), f"output {name}")
    mdf = MDF(version="4.10")
    meta = result.meta or {}
    mdf.append(signals, comment=comment or f"rtmbs: model {meta.get('model', '?')}, solver "
               f"{meta.get('solver', '?')}, h = {meta.get('h', '?')} s")
    path = Path(path)
    mdf.save(path, overwrite=True)
    mdf.close()
    return path
