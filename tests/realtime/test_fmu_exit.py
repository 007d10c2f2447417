"""The abort at exit after fmpy ran an rtmbs FMU (issue 13): with the library kept loaded
(rtmbs.io.fmu.keep_fmu_libraries_loaded) repeated processes each simulate the FMU and exit 0.
Without it about one process in 20 aborted here (SIGABRT, 'corrupted double-linked list')."""
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("pythonfmu", reason="pythonfmu not installed (pip install 'rtmbs[fmu]')")
pytest.importorskip("fmpy", reason="fmpy not installed (pip install 'rtmbs[fmu]')")

from rtmbs.io.fmu import export_fmu  # noqa: E402

RUNS = 4
SCRIPT = """
import sys
import fmpy
from rtmbs.io.fmu import keep_fmu_libraries_loaded
keep_fmu_libraries_loaded()
res = fmpy.simulate_fmu(sys.argv[1], stop_time=0.05, step_size=1e-3, validate=False,
                        output=["link2.z"])
print(len(res), repr(float(res["link2.z"][-1])))
"""


def test_repeated_fmpy_processes_exit_cleanly(tmp_path):
    fmu = export_fmu("double-pendulum", "li-euler", 1e-3, tmp_path / "dp.fmu")
    outs = []
    for k in range(RUNS):
        p = subprocess.run([sys.executable, "-c", SCRIPT, str(fmu)], capture_output=True,
                           text=True, timeout=300, cwd=tmp_path)
        assert p.returncode == 0, f"run {k + 1}: exit {p.returncode}: {p.stderr[-500:]}"
        outs.append(p.stdout.split()[-2:])
    assert all(o == outs[0] for o in outs) and outs[0][0] == "51"
