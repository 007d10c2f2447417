"""A newcomer extends rtmbs where docs/architecture.md says: a force element (one C file, its
table row, prototype and code, one Python module, one registry line; docs/extending.md) and a
command (one module in ``rtmbs/cli/``, one line in ``_PLUGINS``). On a copy of the sources,
rebuilt with ``python setup.py build_ext --inplace`` as the docs say; then the new element moves a
body as the analytic solution says and the new command answers with its ``--help`` example.

The element is ``lift``: a constant force of ``preload`` newtons along global +z at marker_j,
times the element's function, on that body alone. A free 2 kg box under gravity with a 9.81 N
lift falls at g/2: z(t) = z0 − g t²/4."""
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # a rebuild of the engine (about a minute)

LIFT_C = """\
/* lift.c -- a constant force along global +z at marker_j: f = preload * f(t) e_z (no Jacobian:
 * the direction is fixed in the world and the force depends on nothing in the state). */
#include "base.h"
#include "elements.h"

RTMBS_ELEMENT_KERNEL(rtmbs_element_lift) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    (void)bi;
    (void)bj;
    (void)outs;
    if (with_jac) rtmbs_zero_jacobians(d, 1, 1);
    d->f[0] = 0.0;
    d->f[1] = 0.0;
    d->f[2] = par[0] * fv;
    return d->f[2];
}
"""

LIFT_PY = '''\
"""A constant lift force along global +z at marker_j (the newcomer's element)."""
from .base import ElementType


def pack(fe, ctx):
    ctx.par[0] = fe.preload


ELEMENT = ElementType("lift", pack, single_body=True)
'''

MASS_CLI = '''\
"""``rtmbs total-mass``: the total mass of a model's bodies (the newcomer's command)."""
from __future__ import annotations


def register(sub, fmt) -> None:
    p = sub.add_parser("total-mass", help="the total mass of a model's bodies",
                       formatter_class=fmt, epilog="example:\\n  rtmbs total-mass double-pendulum")
    p.add_argument("model", help="built-in name (rtmbs models) or YAML file")
    p.set_defaults(func=cmd_total_mass)


def cmd_total_mass(args) -> int:
    from ..models import load_model

    system = load_model(args.model)
    print(f"{sum(b.mass for b in system.model.bodies):.3f} kg")
    return 0
'''

BOX = """\
name: falling-box
gravity: [0, 0, -9.81]
bodies:
  - name: box
    mass: 2.0
    inertia: [0.1, 0.1, 0.1]
    position: [0, 0, 1.0]
    markers:
      top: {position: [0, 0, 0]}
ground:
  markers:
    origin: {position: [0, 0, 0]}
forces:
  - {name: balloon, type: lift, marker_i: ground.origin, marker_j: box.top, preload: 9.81}
"""


def _edit(path: Path, anchor: str, new: str, after: bool = True):
    """Insert ``new`` after (or before) the one line holding ``anchor``."""
    lines = path.read_text().splitlines(keepends=True)
    hits = [i for i, line in enumerate(lines) if anchor in line]
    assert len(hits) == 1, (path, anchor, hits)
    lines.insert(hits[0] + (1 if after else 0), new)
    path.write_text("".join(lines))


@pytest.fixture(scope="module")
def extended(tmp_path_factory):
    """A copy of the sources with the element and the command added, built in place."""
    tmp = tmp_path_factory.mktemp("newcomer")
    for name in ("setup.py", "pyproject.toml", "README.md"):
        shutil.copy(ROOT / name, tmp / name)
    shutil.copytree(ROOT / "src", tmp / "src",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "*.egg-info"))
    pkg = tmp / "src" / "rtmbs"
    eng = pkg / "engine"
    # the force element, in the five places docs/extending.md names
    (eng / "elements" / "lift.c").write_text(LIFT_C)
    _edit(eng / "elements" / "table.c", "{RTMBS_F_TORSION_SPRING, rtmbs_element_torsion_spring, 1},",
          "    {RTMBS_F_LIFT, rtmbs_element_lift, 0},\n")
    _edit(eng / "elements" / "elements.h", "RTMBS_ELEMENT_KERNEL(rtmbs_element_torsion_spring);",
          "RTMBS_ELEMENT_KERNEL(rtmbs_element_lift);\n")
    _edit(eng / "stages.h", "#define RTMBS_F_TORSION_SPRING 8", "#define RTMBS_F_LIFT 9\n")
    (pkg / "kernels" / "elements" / "lift.py").write_text(LIFT_PY)
    _edit(pkg / "model" / "registry.py", '    ("torsion-spring", True),', '    ("lift", False),\n')
    # the command: a module in cli/ and its line in _PLUGINS
    (pkg / "cli" / "total_mass.py").write_text(MASS_CLI)
    _edit(pkg / "cli" / "entry.py", '"rtmbs.cli.statics",', '    "rtmbs.cli.total_mass",\n')
    build = subprocess.run([sys.executable, "setup.py", "build_ext", "--inplace", "-q"], cwd=tmp,
                           capture_output=True, text=True, timeout=900)
    assert build.returncode == 0, build.stderr[-3000:]
    (tmp / "falling-box.yaml").write_text(BOX)
    return tmp


def _run(tmp: Path, *code_or_args: str, module: bool = False):
    env = {"PYTHONPATH": str(tmp / "src"), "PATH": "/usr/bin:/bin", "OPENBLAS_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "rtmbs.cli", *code_or_args] if module else \
        [sys.executable, "-c", code_or_args[0]]
    return subprocess.run(cmd, cwd=tmp, env=env, capture_output=True, text=True, timeout=300)


def test_the_new_element_lifts_the_box_as_the_analytic_solution_says(extended):
    code = """
import numpy as np, rtmbs
assert rtmbs.__file__.startswith(%r), rtmbs.__file__
from rtmbs.models import load_model
from rtmbs.solvers.simulate import simulate
system = load_model("falling-box.yaml")
res = simulate(system, "li-euler", t_end=0.5, h=1e-4)
np.save("z.npy", np.c_[res.t, res.q[:, 2]])
""" % str(extended / "src")
    proc = _run(extended, code)
    assert proc.returncode == 0, proc.stderr[-3000:]
    t, z = np.load(extended / "z.npy").T
    exact = 1.0 - 9.81 * t ** 2 / 4                     # g − lift/m = g/2 downwards
    assert np.abs(z - exact).max() < 1e-3 * 9.81 / 4   # first order in h: ~ h·a·t
    assert z[-1] > 1.0 - 9.81 * 0.25 / 2 + 0.5          # free fall ends at −0.23 m, this at 0.39


def test_the_new_command_is_listed_and_answers(extended):
    helped = _run(extended, "total-mass", "--help", module=True)
    assert helped.returncode == 0 and "rtmbs total-mass double-pendulum" in helped.stdout
    listed = _run(extended, "--help", module=True)
    assert "total-mass" in listed.stdout
    proc = _run(extended, "total-mass", "double-pendulum", module=True)
    assert (proc.returncode, proc.stdout.strip()) == (0, "2.000 kg"), proc.stderr
