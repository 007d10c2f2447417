"""Import layers (issue 11): the import-linter contracts of pyproject.toml hold for this tree, and
no module of the package imports itself through others."""
import os
import subprocess
import sys
from pathlib import Path

import grimp  # installed with import-linter (the `test` extra)

import rtmbs

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ("rtmbs layers: CLI -> studies -> io/realtime -> solvers -> system",
             "no import cycles between the siblings of any package")


def test_import_linter_contracts_are_kept():
    """`lint-imports` from the repository root, on the sources of this tree (not another
    install): exit code 0 and every contract reported KEPT."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(
        [str(ROOT / "src"), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.run(
        [sys.executable, "-c", "import sys; from importlinter.cli import lint_imports_command; "
         "sys.exit(lint_imports_command())", "--no-cache"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300)
    out = proc.stdout + proc.stderr
    assert proc.returncode == 0, out
    report = " ".join(out.split())  # import-linter wraps long contract names
    for name in CONTRACTS:
        assert name in report, out
    assert "0 broken" in report and "KEPT" in report, out


def test_no_module_imports_itself_through_others():
    """For every direct import a -> b (also those inside functions), b does not lead back to a."""
    graph = grimp.build_graph(rtmbs.__name__)
    cycles = []
    for a in sorted(graph.modules):
        for b in sorted(graph.find_modules_directly_imported_by(a)):
            if b == a:  # (a package importing its compiled extension: grimp sees the package)
                continue
            if graph.chain_exists(importer=b, imported=a):
                back = graph.find_shortest_chain(importer=b, imported=a)
                cycles.append(" -> ".join((a,) + tuple(back)))
    assert not cycles, "import cycles:\n" + "\n".join(cycles)
