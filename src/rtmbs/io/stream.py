"""Results written while a run goes (``rtmbs run --out``): nothing is left to write at the end.

:class:`ResultStream` creates the files before the first step and appends the rows a run hands
to its ``on_rows`` (``rtmbs.solvers.simulate.simulate``): ``result.h5`` (h5py, chunked datasets
resized and appended at most every ``WRITE_EVERY_S`` of wall time, the file flushed after each
append, so that it is readable up to there whatever stops the process) and, on request,
``result.csv`` (rows appended). ``result.mf4`` (asammdf) is written from the run at
:meth:`~ResultStream.finish`. The file layout is :meth:`rtmbs.result.Result.save_hdf5`'s; the
run's status is written at the end (until then the file says it is incomplete).

A write that fails (no space left, quota, a file system that turned read-only) ends in one
:class:`~rtmbs.errors.OutputError` naming the file, what it holds and that it is incomplete.
"""
from __future__ import annotations

import errno
import os
import time
from dataclasses import replace
from pathlib import Path

import numpy as np

from ..errors import OutputError
from ..result import Result
from . import interrupts

#: Formats of ``rtmbs run --format`` and the file each writes.
FORMATS = {"h5": "result.h5", "csv": "result.csv", "mdf": "result.mf4"}
#: Longest wall time between two appends to the files.
WRITE_EVERY_S = 0.5
#: Bytes per HDF5 chunk (rows of a dataset per chunk: this over the row's bytes).
CHUNK_BYTES = 1 << 13
#: Bytes of a CSV value (a float's repr and its comma), for the size estimate.
CSV_VALUE_BYTES = 21
#: Free space kept beyond an append's new chunks (the file's own records and its closing) [bytes].
SPACE_MARGIN = 1 << 16
#: h5py objects of a file whose write failed: never freed, as freeing them makes the HDF5
#: library retry the write, fail again and crash the process at exit.
_BROKEN: list = []
#: Meta of a file still being written: a file left so (the process was killed) says it.
RUNNING = {"status": 0, "message": "incomplete: the run did not close this file (it was still "
                                   "running, or stopped abnormally)"}


def parse_formats(text: str) -> list[str]:
    """``h5,csv,mdf`` (any of them, in any order) as a list; an unknown one is refused."""
    out = []
    for part in (p.strip().lower() for p in str(text).split(",")):
        part = {"hdf5": "h5", "mf4": "mdf", "mdf4": "mdf"}.get(part, part)
        if part not in FORMATS:
            raise OutputError(f"--format {text!r}: unknown format {part!r} (expected h5, csv, "
                              "mdf or a list such as h5,csv)")
        if part not in out:
            out.append(part)
    if not out:
        raise OutputError(f"--format {text!r}: no format given (expected h5, csv, mdf)")
    return out


def expected_bytes(rows: int, width: int, formats) -> dict[str, int]:
    """Bytes each format will take for ``rows`` samples of ``width`` values (HDF5, MDF4: 8 per
    value; CSV: ``CSV_VALUE_BYTES``)."""
    per = {"h5": 8, "csv": CSV_VALUE_BYTES, "mdf": 8}
    return {f: int(rows) * int(width) * per[f] for f in formats}


def human(nbytes: float) -> str:
    """``812 kB``, ``1.7 GB`` (powers of 1000)."""
    for unit, scale in (("GB", 1e9), ("MB", 1e6), ("kB", 1e3)):
        if nbytes >= scale:
            return f"{nbytes / scale:.3g} {unit}"
    return f"{int(nbytes)} bytes"


_CAUSES = {errno.ENOSPC: "no space left on the device", errno.EDQUOT: "disk quota exceeded",
           errno.EROFS: "the file system is read-only", errno.EFBIG: "file too large"}


def _free_bytes(path) -> int | None:
    try:
        st = os.statvfs(os.path.dirname(os.path.abspath(path)))
    except OSError:
        return None
    return st.f_bavail * st.f_frsize


def _errno_of(exc: BaseException) -> int:
    if isinstance(exc, OSError) and exc.errno:
        return exc.errno
    text = str(exc)
    for words, code in (("No space left", errno.ENOSPC), ("quota", errno.EDQUOT),
                        ("Read-only file system", errno.EROFS), ("too large", errno.EFBIG)):
        if words in text:
            return code
    return errno.EIO


def cause_of(exc: BaseException) -> str:
    """The cause of a failed write in words (h5py words errno in its message)."""
    if isinstance(exc, OSError) and exc.errno in _CAUSES:
        return _CAUSES[exc.errno]
    text = str(exc)
    for words, code in (("No space left", errno.ENOSPC), ("quota", errno.EDQUOT),
                        ("Read-only file system", errno.EROFS), ("too large", errno.EFBIG)):
        if words in text:
            return _CAUSES[code]
    first = text.splitlines()[0] if text else type(exc).__name__
    return getattr(exc, "strerror", None) or first


class _H5:
    """``result.h5`` appended by rows."""

    def __init__(self, path: Path, template: Result, units: dict, rows_expected: int):
        import h5py

        self.path = path
        self.f = h5py.File(path, "w")
        self.sets = []
        try:
            self.f.require_group("outputs")
            for key, arr, attr, unit in template.hdf5_datasets(units):
                tail = arr.shape[1:]
                width = int(np.prod(tail)) if tail else 1
                rows = max(1, min(CHUNK_BYTES // (8 * max(width, 1)), rows_expected))
                chunks = (rows,) + tuple(max(1, d) for d in tail)
                maxshape = (None,) + tuple(d if d else None for d in tail)
                d = self.f.create_dataset(key, shape=(0,) + tail, maxshape=maxshape, chunks=chunks,
                                          dtype="f8")
                d.attrs[attr] = unit
                self.sets.append((key, d, rows, 8 * int(np.prod(chunks[1:]))))
            replace(template, meta={**template.meta, **RUNNING}).write_hdf5_meta(self.f, units)
            self.f.flush()
        except (OSError, RuntimeError) as exc:  # no room for the file's own records
            self.broken = True
            self.abandon()
            raise OSError(_errno_of(exc), cause_of(exc), str(self.path)) from None

    def new_bytes(self, n0: int, k: int) -> int:
        """Bytes the chunks allocated by appending ``k`` rows after ``n0`` take."""
        return sum((-(-(n0 + k) // rows) - (-(-n0 // rows))) * row_bytes * rows
                   for _, _, rows, row_bytes in self.sets)

    def append(self, block: Result, n0: int) -> None:
        k = len(block.t)
        free = _free_bytes(self.path)
        full = free is not None and self.new_bytes(n0, k) + SPACE_MARGIN > free
        if full:  # keep the rows that fit, then stop while the file is whole (its last flush)
            lo, hi = 0, k  # the most rows that fit: new_bytes grows with the rows
            while lo < hi:
                mid = (lo + hi + 1) // 2
                lo, hi = (mid, hi) if self.new_bytes(n0, mid) + SPACE_MARGIN <= free else (lo, mid - 1)
            k = lo
            if k == 0:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))
        arrays = dict((key, a[:k]) for key, a, _, _ in block.hdf5_datasets({"t": ""}))
        try:
            for key, d, _, _ in self.sets:
                d.resize(n0 + k, axis=0)
                if k:
                    d[n0:n0 + k] = arrays[key]
            self.f.flush()
        except (OSError, RuntimeError) as exc:  # h5py words a failed write as either
            self.broken = True
            raise OSError(_errno_of(exc), cause_of(exc), str(self.path)) from None
        if full:
            self.partial_rows = k  # (written and flushed: the error counts them)
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(self.path))

    def close(self, meta_of: Result | None) -> None:
        try:
            if meta_of is not None:
                meta_of.write_hdf5_status(self.f)
            self.f.close()
        except (OSError, RuntimeError) as exc:
            self.broken = True
            raise OSError(_errno_of(exc), cause_of(exc), str(self.path)) from None

    broken = False

    def abandon(self) -> None:
        if self.broken:  # its writes fail: keep the objects (module note on _BROKEN)
            _BROKEN.append((self.f, self.sets))
            interrupts.STATE.broken_files = True
            return
        try:
            self.f.close()
        except Exception:  # noqa: BLE001 (a second failure of a file already reported)
            _BROKEN.append((self.f, self.sets))
            interrupts.STATE.broken_files = True


class _CSV:
    """``result.csv`` appended by rows."""

    def __init__(self, path: Path, template: Result):
        self.path = path
        self.fh = path.open("w", newline="")
        template.write_csv_rows(self.fh, header=True)
        self.fh.flush()

    def append(self, block: Result, n0: int) -> None:
        block.write_csv_rows(self.fh)
        self.fh.flush()

    def close(self, meta_of) -> None:
        self.fh.close()

    def abandon(self) -> None:
        try:
            self.fh.close()
        except OSError:
            pass


class ResultStream:
    """The result files of one run in folder ``out`` (module docstring).

    ``formats``: a list of :data:`FORMATS` keys; ``system``: the model (units and geometry go
    into the files); ``meta``: model, solver, h, ...; ``rows``: the samples expected (sizes the
    HDF5 chunks). Use as the run's ``on_rows``, then :meth:`finish` with the run's
    :class:`Result` (also of an interrupted or diverged run)."""

    def __init__(self, out, formats, system, meta: dict | None = None, rows: int = 1 << 14):
        from .meta import attach

        self.out = Path(out)
        self.formats = list(formats)
        self.paths = {f: self.out / FORMATS[f] for f in self.formats}
        self.rows = 0            # rows in the files
        self.t_written = None    # time of the last row in the files
        self._pending: list[Result] = []
        self._last = time.monotonic()
        self._files = []
        self.template = attach(_empty(system, meta or {}), system)
        units = self.template.units()
        try:
            for f in self.formats:
                self._current = self.paths[f]
                if f == "h5":
                    self._files.append(_H5(self.paths[f], self.template, units, rows))
                elif f == "csv":
                    self._files.append(_CSV(self.paths[f], self.template))
        except OSError as exc:
            self._fail(exc, creating=True)
        except KeyboardInterrupt:  # stopped while creating them: nothing to keep
            self.discard()
            raise
        self._track()

    # -- the run's on_rows -------------------------------------------------------------
    def __call__(self, rows: Result) -> None:
        self._pending.append(_copy(rows))
        if time.monotonic() - self._last >= WRITE_EVERY_S:
            self._write()

    def _write(self) -> None:
        self._last = time.monotonic()
        if not self._pending:
            return
        block = _concat(self._pending)
        self._pending = []
        with interrupts.deferred():  # an append is never cut in half by Ctrl-C
            for fobj in self._files:
                self._current = fobj.path
                try:
                    fobj.append(block, self.rows)
                except OSError as exc:
                    k = getattr(fobj, "partial_rows", 0)
                    if k:  # the rows that fitted are in the file
                        self.rows += k
                        self.t_written = float(block.t[k - 1])
                    self._fail(exc)
            self.rows += len(block.t)
            if len(block.t):
                self.t_written = float(block.t[-1])
            self._track()

    # -- the end -----------------------------------------------------------------------
    def finish(self, result: Result) -> list[Path]:
        """Append the rows of ``result`` not yet written, write its status, close the files
        and write ``result.mf4`` if asked; returns the paths, in the order of the formats."""
        self._pending = []
        rest = _slice(result, self.rows, len(result.t))
        with interrupts.writing("results"):
            if len(rest.t):
                self._pending = [rest]
                self._write()
            for fobj in self._files:
                self._current = fobj.path
                try:
                    fobj.close(result)
                except OSError as exc:
                    self._fail(exc)
            self._files = []
            interrupts.STATE.open_files.clear()
            if "mdf" in self.formats:
                from .mdf import save_mdf

                result.meta.setdefault("units", self.template.meta.get("units"))
                self._current = self.paths["mdf"]
                try:
                    save_mdf(result, self.paths["mdf"])
                except OSError as exc:
                    self._fail(exc)
        return [self.paths[f] for f in self.formats]

    def stop(self) -> None:
        """The run ended by an exception: files with no sample are removed, others closed as
        they are (readable up to their last append; their status says incomplete); after a
        failed write (:class:`OutputError` named them), nothing more is done."""
        if self.failed:
            return
        if self.rows == 0:
            self.discard()
            return
        for fobj in self._files:
            fobj.abandon()
        self._files = []
        interrupts.STATE.open_files.clear()

    def discard(self) -> None:
        """Close and remove the files: the run stopped before its first step (nothing to keep)."""
        for fobj in self._files:
            fobj.abandon()
        self._files = []
        interrupts.STATE.open_files.clear()
        for path in self.paths.values():
            try:
                path.unlink()
            except OSError:
                pass

    def _track(self) -> None:
        t = f"t up to {self.t_written:.6g} s" if self.t_written is not None else "no rows yet"
        interrupts.STATE.open_files.clear()
        interrupts.STATE.open_files.update({str(f.path): t for f in self._files})

    failed = False

    def _fail(self, exc: BaseException, creating: bool = False):
        self.failed = True
        for fobj in self._files:
            fobj.abandon()
        self._files = []
        interrupts.STATE.open_files.clear()
        path = self._current
        try:
            size = os.path.getsize(path)
        except OSError:
            size = 0
        if creating:
            raise OutputError(f"result file '{path}': cannot be created ({cause_of(exc)}); "
                              "nothing was run") from None
        held = (f"{self.rows} samples, t up to {self.t_written:.6g} s" if self.t_written is not None
                else "no samples")
        raise OutputError(f"result file '{path}': {cause_of(exc)} after {human(size)} were "
                          f"written ({held}); the partial file is incomplete") from None


def _empty(system, meta: dict) -> Result:
    """A result of no rows with the columns of ``system``'s runs."""
    n, m, nx = system.n, system.m, getattr(system, "nx", 0)
    names = list(system.output_names) + list(getattr(system, "acceleration_names", ()))
    return Result(t=np.zeros(0), q=np.zeros((0, n)), qd=np.zeros((0, n)), lam=np.zeros((0, m)),
                  phi_norm=np.zeros(0), phid_norm=np.zeros(0),
                  outputs={k: np.zeros(0) for k in names},
                  coordinate_names=list(getattr(system, "coordinate_names", [])),
                  x=np.zeros((0, nx)), meta=dict(meta))


def _copy(r: Result) -> Result:
    return Result(t=r.t.copy(), q=r.q.copy(), qd=r.qd.copy(), lam=r.lam.copy(),
                  phi_norm=r.phi_norm.copy(), phid_norm=r.phid_norm.copy(),
                  outputs={k: v.copy() for k, v in r.outputs.items()},
                  coordinate_names=r.coordinate_names, x=r.x.copy())


def _slice(r: Result, a: int, b: int) -> Result:
    return Result(t=r.t[a:b], q=r.q[a:b], qd=r.qd[a:b], lam=r.lam[a:b],
                  phi_norm=r.phi_norm[a:b], phid_norm=r.phid_norm[a:b],
                  outputs={k: v[a:b] for k, v in r.outputs.items()},
                  coordinate_names=r.coordinate_names, x=r.x[a:b], meta=r.meta)


def _concat(blocks: list[Result]) -> Result:
    if len(blocks) == 1:
        return blocks[0]
    cat = np.concatenate
    b0 = blocks[0]
    return Result(t=cat([b.t for b in blocks]), q=cat([b.q for b in blocks]),
                  qd=cat([b.qd for b in blocks]), lam=cat([b.lam for b in blocks]),
                  phi_norm=cat([b.phi_norm for b in blocks]),
                  phid_norm=cat([b.phid_norm for b in blocks]),
                  outputs={k: cat([b.outputs[k] for b in blocks]) for k in b0.outputs},
                  coordinate_names=b0.coordinate_names, x=cat([b.x for b in blocks]))
