"""Simulation results: arrays over time, saved as CSV or HDF5 (h5py)."""
from __future__ import annotations

import csv
import json
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np


@dataclass
class Result:
    """A run: ``t (N,)``, ``q (N, n)``, ``qd (N, n)``, ``lam (N, m)``, constraint norms
    ``phi_norm`` (‖Φ‖₂) and ``phid_norm`` (‖Φq q̇ + Φt‖₂) ``(N,)``, named ``outputs`` ``{name: (N,)}``,
    extra first-order states ``x (N, nx)`` (e.g. transient tyre deflections) and ``meta`` (model,
    solver, h, wall time, status, message)."""

    t: np.ndarray
    q: np.ndarray
    qd: np.ndarray
    lam: np.ndarray
    phi_norm: np.ndarray
    phid_norm: np.ndarray
    outputs: dict[str, np.ndarray] = field(default_factory=dict)
    coordinate_names: list[str] = field(default_factory=list)
    meta: dict = field(default_factory=dict)
    x: np.ndarray | None = None

    def __post_init__(self):
        if self.x is None:
            self.x = np.zeros((len(self.t), 0))

    @property
    def success(self) -> bool:
        return self.meta.get("status", 0) >= 0

    def signal(self, name: str) -> np.ndarray:
        """A named output, a coordinate name (``q:chassis.z``/``chassis.z``) or ``t``."""
        from .errors import did_you_mean

        if name == "t":
            return self.t
        if name in self.outputs:
            return self.outputs[name]
        key = name.removeprefix("q:")
        if key in self.coordinate_names:
            return self.q[:, self.coordinate_names.index(key)]
        if name.startswith("qd:") and name[3:] in self.coordinate_names:
            return self.qd[:, self.coordinate_names.index(name[3:])]
        known = list(self.outputs) + self.coordinate_names
        raise KeyError(f"unknown signal '{name}'" + did_you_mean(name, known))

    def summary(self, wall_s: float) -> dict:
        """The run in one JSON-able dict (``rtmbs run --json``, ``summary.json``): model, solver,
        h, steps, end time, max and final ‖Φ‖, ``wall_s``, status, message and warnings."""
        return {
            "model": self.meta.get("model"), "solver": self.meta.get("solver"),
            "h": self.meta.get("h"), "steps": int(self.meta.get("steps", len(self.t) - 1)),
            "t_end": float(self.t[-1]),
            "max_constraint_norm": float(np.max(self.phi_norm)) if len(self.phi_norm) else 0.0,
            "final_constraint_norm": float(self.phi_norm[-1]) if len(self.phi_norm) else 0.0,
            "wall_s": wall_s, "status": self.meta.get("status"),
            "message": self.meta.get("message"),
            "warnings": list(self.meta.get("warnings", [])),
        }

    # -- files -------------------------------------------------------------------------
    def columns(self) -> dict[str, np.ndarray]:
        names = self.coordinate_names or [f"q{i}" for i in range(self.q.shape[1])]
        cols = {"t": self.t}
        cols.update({f"q:{c}": self.q[:, i] for i, c in enumerate(names)})
        cols.update({f"qd:{c}": self.qd[:, i] for i, c in enumerate(names)})
        cols.update({f"x{i}": self.x[:, i] for i in range(self.x.shape[1])})
        cols["phi_norm"] = self.phi_norm
        cols["phid_norm"] = self.phid_norm
        cols.update(self.outputs)
        return cols

    def save_csv(self, path) -> Path:
        path = Path(path)
        cols = self.columns()
        with path.open("w", newline="") as fh:
            w = csv.writer(fh)
            w.writerow(list(cols))
            w.writerows(np.column_stack(list(cols.values())).tolist())
        return path

    def save_hdf5(self, path) -> Path:
        import h5py

        path = Path(path)
        with h5py.File(path, "w") as f:
            for k in ("t", "q", "qd", "lam", "phi_norm", "phid_norm", "x"):
                f.create_dataset(k, data=getattr(self, k))
            g = f.create_group("outputs")
            for k, v in self.outputs.items():
                g.create_dataset(k, data=v)
            f.attrs["coordinate_names"] = json.dumps(self.coordinate_names)
            f.attrs["meta"] = json.dumps(self.meta, default=str)
        return path

    @classmethod
    def load_hdf5(cls, path) -> "Result":
        import h5py

        with h5py.File(path, "r") as f:
            arrays = {k: f[k][()] for k in ("t", "q", "qd", "lam", "phi_norm", "phid_norm")}
            if "x" in f:
                arrays["x"] = f["x"][()]
            outputs = {k: f["outputs"][k][()] for k in f["outputs"]}
            names = json.loads(f.attrs["coordinate_names"])
            meta = json.loads(f.attrs["meta"])
        return cls(**arrays, outputs=outputs, coordinate_names=names, meta=meta)

    @classmethod
    def load(cls, path) -> "Result":
        path = Path(path)
        if path.is_dir():
            path = path / "result.h5"
        return cls.load_hdf5(path)
