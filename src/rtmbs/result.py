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

    def summary(self, wall_s: float | None = None) -> dict:
        """The run in one JSON-able dict (``rtmbs run --json``, ``summary.json``): model, solver,
        h, steps, end time, max and final ‖Φ‖, ``wall_s``, status, message and warnings.

        ``wall_s`` has one meaning: the wall-clock seconds of the integration as the solver
        measured it (``meta['wall_s']``: the steps and their recording, without building the
        model, compiling or writing files); the argument is used only for a result without it."""
        wall_s = self.meta.get("wall_s", wall_s)
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

    def units(self) -> dict[str, str]:
        """``{column or lam:<i>: unit}`` (:func:`rtmbs.units.signal_units`)."""
        from .units import signal_units

        return signal_units(self)

    def save_csv(self, path) -> Path:
        """One column per :meth:`columns` name: the names on the first row, their units on the
        second (``s``, ``m``, ``N m``; empty for none), the samples below."""
        path = Path(path)
        with path.open("w", newline="") as fh:
            self.write_csv_rows(fh, header=True)
        return path

    def write_csv_rows(self, fh, header: bool = False) -> None:
        """The rows of :meth:`save_csv` into the open text file ``fh`` (with the two header rows
        when ``header``): ``rtmbs.io.stream`` appends a run's rows as they come."""
        cols = self.columns()
        w = csv.writer(fh)
        if header:
            units = self.units()
            w.writerow(list(cols))
            w.writerow([units.get(c, "") for c in cols])
        if len(self.t):
            w.writerows(np.column_stack(list(cols.values())).tolist())

    @classmethod
    def load_csv(cls, path) -> "Result":
        """A result from :meth:`save_csv` (with or without its units row): t, q, qd, x,
        constraint norms and outputs; no multipliers (the CSV has none)."""
        path = Path(path)
        with path.open(newline="") as fh:
            rows = list(csv.reader(fh))
        if not rows or "t" not in rows[0]:
            raise ValueError(f"{path}: not a result CSV (no 't' column in the first row)")
        head, body = rows[0], rows[1:]
        units = {}
        if body and body[0] and not _is_number(body[0][head.index("t")]):
            units = {c: u for c, u in zip(head, body[0]) if u}
            body = body[1:]
        data = np.array(body, dtype=float).reshape(len(body), len(head))
        col = {c: data[:, i] for i, c in enumerate(head)}
        coords = [c[2:] for c in head if c.startswith("q:")]
        q = np.column_stack([col[f"q:{c}"] for c in coords]) if coords else np.zeros((len(data), 0))
        qd = np.column_stack([col[f"qd:{c}"] for c in coords]) if coords else np.zeros_like(q)
        xs = [c for c in head if c[:1] == "x" and c[1:].isdigit()]
        run = {"t", "phi_norm", "phid_norm", *xs, *(f"q:{c}" for c in coords), *(f"qd:{c}" for c in coords)}
        nan = np.full(len(data), np.nan)
        return cls(t=col["t"], q=q, qd=qd, lam=np.zeros((len(data), 0)),
                   phi_norm=col.get("phi_norm", nan), phid_norm=col.get("phid_norm", nan),
                   outputs={c: v for c, v in col.items() if c not in run}, coordinate_names=coords,
                   meta={"units": units, "source": str(path)},
                   x=np.column_stack([col[c] for c in xs]) if xs else None)

    def save_hdf5(self, path) -> Path:
        import h5py

        path = Path(path)
        units = self.units()
        with h5py.File(path, "w") as f:
            f.require_group("outputs")
            for key, arr, attr, unit in self.hdf5_datasets(units):
                f.create_dataset(key, data=arr).attrs[attr] = unit
            self.write_hdf5_meta(f, units)
        return path

    def hdf5_datasets(self, units: dict) -> list[tuple[str, np.ndarray, str, str]]:
        """Every array of the HDF5 file: (its path in the file, the array, the name of its unit
        attribute, the attribute): ``unit`` (one string) or ``units`` (a JSON list, one per
        column). ``units``: :meth:`units`."""
        names = self.coordinate_names or [f"q{i}" for i in range(self.q.shape[1])]
        per_column = {"t": units["t"], "q": [units.get(f"q:{c}", "") for c in names],
                      "qd": [units.get(f"qd:{c}", "") for c in names],
                      "lam": [units.get(f"lam:{i}", "") for i in range(self.lam.shape[1])],
                      "phi_norm": "", "phid_norm": "", "x": [""] * self.x.shape[1]}
        out = []
        for k in ("t", "q", "qd", "lam", "phi_norm", "phid_norm", "x"):
            u = per_column[k]
            out.append((k, getattr(self, k), "unit" if isinstance(u, str) else "units",
                        u if isinstance(u, str) else json.dumps(u)))
        out += [(f"outputs/{k}", v, "unit", units.get(k, "")) for k, v in self.outputs.items()]
        return out

    def write_hdf5_meta(self, f, units: dict) -> None:
        """The coordinate names and ``meta`` (attributes), the units and the geometry (JSON
        strings as datasets: attributes are limited to 64 kB) into the open h5py file ``f``."""
        f.attrs["coordinate_names"] = json.dumps(self.coordinate_names)
        self.write_hdf5_status(f)
        f.create_dataset("units", data=json.dumps(units))
        if "geometry" in self.meta:
            f.create_dataset("geometry", data=json.dumps(self.meta["geometry"]))

    def write_hdf5_status(self, f) -> None:
        """``meta`` (status, message, wall time, ...) as the file's ``meta`` attribute."""
        meta = {k: v for k, v in self.meta.items() if k not in ("geometry", "units")}
        f.attrs["meta"] = json.dumps(meta, default=str)

    @classmethod
    def load_hdf5(cls, path) -> "Result":
        import h5py

        with h5py.File(path, "r") as f:
            arrays = {k: f[k][()] for k in ("t", "q", "qd", "lam", "phi_norm", "phid_norm")}
            if "x" in f:
                arrays["x"] = f["x"][()]
            outputs = {k: f["outputs"][k][()] for k in f["outputs"]}
            # a file streamed by a run that stopped between two datasets' appends: the rows
            # every array holds
            n = min([len(a) for a in arrays.values()] + [len(v) for v in outputs.values()])
            arrays = {k: a[:n] for k, a in arrays.items()}
            outputs = {k: v[:n] for k, v in outputs.items()}
            names = json.loads(f.attrs["coordinate_names"])
            meta = json.loads(f.attrs["meta"])
            for key in ("units", "geometry"):
                if key in f:
                    raw = f[key][()]
                    meta[key] = json.loads(raw.decode() if isinstance(raw, bytes) else raw)
        return cls(**arrays, outputs=outputs, coordinate_names=names, meta=meta)

    @classmethod
    def load(cls, path) -> "Result":
        """A result folder (its ``result.h5``, else its ``result.csv``: ``rtmbs export-c``'s
        program writes only that), an HDF5 file or a result CSV."""
        path = Path(path)
        if path.is_dir():
            path = path / "result.h5" if (path / "result.h5").exists() or not (
                path / "result.csv").exists() else path / "result.csv"
        if path.suffix.lower() == ".csv":
            return cls.load_csv(path)
        return cls.load_hdf5(path)


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True
