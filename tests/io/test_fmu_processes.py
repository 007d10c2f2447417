"""200 fresh processes load, run and free the sedan's FMI 2 FMU: no abort, the same numbers.

Each process is a small C program (no Python, so the processes are cheap) that opens the FMU's
binary with dlopen, instantiates it as an FMI tool does, takes 20 communication steps of 1 ms,
prints the first output, frees the instance and closes the library.
"""
from __future__ import annotations

import re
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from rtmbs.fmu.export import export_fmu, fmi_headers

DRIVER = r"""
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include "fmi2Functions.h"

static void logger(fmi2ComponentEnvironment e, fmi2String n, fmi2Status s, fmi2String c,
                   fmi2String m, ...) { (void)e; (void)n; (void)s; (void)c; fprintf(stderr, "%s\n", m); }

int main(int argc, char** argv) {
    fmi2CallbackFunctions cb = {logger, calloc, free, NULL, NULL};
    void* lib = dlopen(argv[1], RTLD_NOW | RTLD_LOCAL);
    fmi2Component c;
    fmi2ValueReference vr = (fmi2ValueReference)atoi(argv[4]);
    fmi2Real y = 0.0;
    int k;
    if (!lib) return 10;
    fmi2InstantiateTYPE* inst = (fmi2InstantiateTYPE*)dlsym(lib, "fmi2Instantiate");
    fmi2SetupExperimentTYPE* setup = (fmi2SetupExperimentTYPE*)dlsym(lib, "fmi2SetupExperiment");
    fmi2EnterInitializationModeTYPE* enter = (fmi2EnterInitializationModeTYPE*)dlsym(lib, "fmi2EnterInitializationMode");
    fmi2ExitInitializationModeTYPE* leave = (fmi2ExitInitializationModeTYPE*)dlsym(lib, "fmi2ExitInitializationMode");
    fmi2DoStepTYPE* step = (fmi2DoStepTYPE*)dlsym(lib, "fmi2DoStep");
    fmi2GetRealTYPE* get = (fmi2GetRealTYPE*)dlsym(lib, "fmi2GetReal");
    fmi2TerminateTYPE* term = (fmi2TerminateTYPE*)dlsym(lib, "fmi2Terminate");
    fmi2FreeInstanceTYPE* freei = (fmi2FreeInstanceTYPE*)dlsym(lib, "fmi2FreeInstance");
    c = inst("p", fmi2CoSimulation, argv[2], argv[3], &cb, fmi2False, fmi2False);
    if (!c) return 11;
    if (setup(c, fmi2False, 0.0, 0.0, fmi2False, 0.0) != fmi2OK || enter(c) != fmi2OK || leave(c) != fmi2OK)
        return 12;
    for (k = 0; k < 20; k++)
        if (step(c, k * 1e-3, 1e-3, fmi2True) != fmi2OK) return 13;
    if (get(c, &vr, 1, &y) != fmi2OK) return 14;
    printf("%.17g\n", y);
    term(c);
    freei(c);
    return dlclose(lib) == 0 ? 0 : 15;
}
"""


def test_200_fresh_processes_load_run_and_free_the_sedan_fmu(tmp_path):
    cc = shutil.which("cc") or shutil.which("gcc")
    if cc is None:
        pytest.skip("no C compiler (cc) to build the FMU driver")
    fmu = export_fmu("sedan", tmp_path / "sedan.fmu", fmi=2)
    root = tmp_path / "fmu"
    zipfile.ZipFile(fmu).extractall(root)
    md = (root / "modelDescription.xml").read_text()
    guid = re.search(r'guid="([^"]+)"', md).group(1)
    ident = re.search(r'modelIdentifier="([^"]+)"', md).group(1)
    vr = re.search(r'<ScalarVariable name="([^"]+)" valueReference="(\d+)"[^>]*causality="output"',
                   md).group(2)
    (tmp_path / "driver.c").write_text(DRIVER)
    exe = tmp_path / "driver"
    r = subprocess.run([cc, "-std=c99", "-O1", f"-I{fmi_headers()}", str(tmp_path / "driver.c"),
                        "-ldl", "-o", str(exe)], capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    lib = root / "binaries" / "linux64" / f"{ident}.so"
    values, codes = set(), []
    for _ in range(200):
        p = subprocess.run([str(exe), str(lib), guid, root.as_uri(), vr], capture_output=True,
                           text=True, timeout=60)
        codes.append(p.returncode)
        values.add(p.stdout.strip())
    assert codes == [0] * 200  # (an abort is a negative return code: a signal)
    assert len(values) == 1 and values != {""}
