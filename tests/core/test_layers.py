"""The package layout (docs/architecture.md): the import-linter contracts of pyproject.toml hold
for this tree, no module imports itself through others, the top level stays small and only the
``rtmbs.cli`` package reads command lines."""
import ast
import os
import subprocess
import sys
from pathlib import Path

import grimp  # installed with import-linter (the `test` extra)

import rtmbs

ROOT = Path(__file__).resolve().parents[2]
CONTRACTS = ("rtmbs layers: cli -> studies -> runs/fmu -> io/realtime/vehicle dynamics -> solvers",
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


PACKAGE = Path(rtmbs.__file__).resolve().parent
#: what reading a command line looks like in Python: argparse, getopt, click, sys.argv
COMMAND_LINE_NAMES = {"argparse", "getopt", "optparse", "click", "typer"}


def command_line_uses(path: Path, root: Path = PACKAGE) -> list[str]:
    """The lines of ``path`` that import a command-line parser or read ``sys.argv``."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names = [a.name.split(".")[0] for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0:
            names = [(node.module or "").split(".")[0]]
        elif (isinstance(node, ast.Attribute) and node.attr == "argv"
              and isinstance(node.value, ast.Name) and node.value.id == "sys"):
            names = ["sys.argv"]
        else:
            continue
        found += [f"{path.relative_to(root)}:{node.lineno}: {n}" for n in names
                  if n in COMMAND_LINE_NAMES or n == "sys.argv"]
    return found


def test_only_the_cli_package_reads_command_lines():
    outside = [use for path in sorted(PACKAGE.rglob("*.py"))
               if PACKAGE / "cli" not in path.parents for use in command_line_uses(path)]
    assert outside == []


def test_the_check_finds_a_command_line_parser(tmp_path):
    """The check above can fail: a module importing argparse and reading sys.argv is found."""
    mod = tmp_path / "stray.py"
    mod.write_text("import argparse\nimport sys\nprint(sys.argv)\n")
    assert command_line_uses(mod, tmp_path) == ["stray.py:1: argparse", "stray.py:3: sys.argv"]


def test_at_most_eight_top_level_modules():
    """Besides ``__init__`` and the packages, ``src/rtmbs`` holds at most eight modules."""
    modules = sorted(p.name for p in PACKAGE.glob("*.py") if p.name != "__init__.py")
    assert len(modules) <= 8, modules
