"""A full or read-only file system under ``rtmbs run --out`` (and any command): one named error (the file, what it
holds, that it is incomplete), exit 1, never exit 70 or a crash; the partial result.h5 reads back
with exactly the samples the error names. Each case runs in a private mount namespace on a small
tmpfs (``unshare -m``, root)."""
import errno
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

import rtmbs
from rtmbs.io.stream import cause_of
from rtmbs.result import Result

_SRC = os.path.dirname(os.path.dirname(rtmbs.__file__))


def _namespaces() -> str:
    """Why the tmpfs cases cannot run here, or '' when they can."""
    if shutil.which("unshare") is None:
        return "no unshare(1) on this machine"
    r = subprocess.run(["unshare", "-m", "sh", "-c", "mount -t tmpfs -o size=64k tmpfs /mnt"],
                       capture_output=True, text=True)
    if r.returncode != 0:
        return f"unshare -m / mount -t tmpfs not permitted here ({r.stderr.strip()[:120]})"
    return ""


needs_namespace = pytest.mark.skipif(bool(_namespaces()), reason=_namespaces() or "-")


def _in_tmpfs(tmp_path, size, script):
    """Run ``script`` (sh) with a ``size`` tmpfs mounted on ``tmp_path/mnt`` in a private mount
    namespace; ``$RTMBS`` runs the command line. Returns (exit code, stderr)."""
    mnt = tmp_path / "mnt"
    mnt.mkdir()
    env = dict(os.environ, PYTHONPATH=_SRC + os.pathsep + os.environ.get("PYTHONPATH", ""),
               RTMBS=f"{sys.executable} -m rtmbs.cli", MNT=str(mnt))
    r = subprocess.run(["unshare", "-m", "sh", "-c",
                        f"mount -t tmpfs -o size={size} tmpfs \"$MNT\" && {script}"],
                       capture_output=True, text=True, env=env, timeout=900)
    return r.returncode, r.stderr


@needs_namespace
def test_a_disk_that_fills_during_the_run_ends_in_one_named_error(tmp_path):
    script = ("$RTMBS run double-pendulum --t-end 1e3 --h 1e-3 --out \"$MNT/out\" --no-progress;"
              " code=$?; cp \"$MNT/out/result.h5\" \"$MNT/../partial.h5\"; exit $code")
    code, err = _in_tmpfs(tmp_path, "2m", script)
    assert code == 1, err  # not 70 (internal error), not a signal (a crash)
    assert "Traceback" not in err and "internal error" not in err
    last = err.strip().splitlines()[-1]
    m = re.fullmatch(r"rtmbs: error: result file '(.+)': no space left on the device after "
                     r"([\d.]+ (?:kB|MB)) were written \((\d+) samples, t up to ([\d.e+-]+) s\); "
                     r"the partial file is incomplete", last)
    assert m, last
    assert m.group(1) == str(tmp_path / "mnt" / "out" / "result.h5")
    res = Result.load(tmp_path / "partial.h5")  # what the error names is what the file holds
    assert len(res.t) == int(m.group(3)) > 0
    assert res.t[-1] == pytest.approx(float(m.group(4)), rel=1e-5)
    np.testing.assert_allclose(np.diff(res.t), 1e-3, rtol=1e-6)


@needs_namespace
def test_a_full_disk_before_the_run_is_named_before_any_step(tmp_path):
    script = ("mkdir \"$MNT/out\"; dd if=/dev/zero of=\"$MNT/fill\" bs=4k 2>/dev/null; "
              "$RTMBS run double-pendulum --t-end 1 --out \"$MNT/out\" --no-progress")
    code, err = _in_tmpfs(tmp_path, "256k", script)
    assert code == 1, err
    assert "Traceback" not in err
    last = err.strip().splitlines()[-1]
    assert re.fullmatch(r"rtmbs: error: (result file '.+/out/result\.h5': cannot be created \(no "
                        r"space left on the device\); nothing was run|output folder '.+/out': "
                        r"cannot write there \(No space left on device\))", last), last


@needs_namespace
def test_a_read_only_file_system_is_named_before_the_run(tmp_path):
    script = "mount -o remount,ro \"$MNT\" && $RTMBS run double-pendulum --out \"$MNT/out\""
    code, err = _in_tmpfs(tmp_path, "1m", script)
    assert code == 1, err
    assert err.strip().splitlines()[-1] == (f"rtmbs: error: output folder '{tmp_path}/mnt/out': "
                                            "cannot write there (Read-only file system)")


@pytest.mark.parametrize("exc, words", [
    (OSError(errno.ENOSPC, "x"), "no space left on the device"),
    (OSError(errno.EDQUOT, "x"), "disk quota exceeded"),
    (OSError(errno.EROFS, "x"), "the file system is read-only"),
    (RuntimeError("Can't flush cache (file write failed: errno = 28, error message = 'No space "
                  "left on device')"), "no space left on the device"),
    (OSError("Unable to synchronously write (Read-only file system)"), "the file system is read-only"),
])
def test_the_causes_of_failed_writes_are_named(exc, words):
    """Quota and a file system turned read-only under an open file cannot be produced on a
    tmpfs here (no quota; remounting read-only with a file open for writing is refused): the
    wording of the errno, also inside h5py's messages, is checked directly."""
    assert cause_of(exc) == words


@pytest.mark.parametrize("exc, line", [
    (OSError(errno.ENOSPC, "No space left on device", "/out/report.md"),
     "'/out/report.md': no space left on the device; the file is incomplete"),
    (RuntimeError("Can't flush cache (file write failed: time = x, filename = '/out/t.h5', file "
                  "descriptor = 5, errno = 28, error message = 'No space left on device')"),
     "'/out/t.h5': no space left on the device; the file is incomplete"),
    (OSError(errno.EROFS, "Read-only file system", "/out/a.png"),
     "'/out/a.png': read-only file system; the file is incomplete"),
    (RuntimeError("not a disk error"), None),
])
def test_any_command_names_a_disk_error_instead_of_an_internal_error(exc, line):
    """The command line's catch-all (a study's report, a sweep's table): not exit 70."""
    from rtmbs.cli import disk_error

    got = disk_error(exc)
    assert (str(got) if got is not None else None) == line
