"""Generate :mod:`rtmbs.kernels.element_kernels.dispatch` from the registry: ``python -m rtmbs.kernels.element_kernels.generate``.

numba cannot call a function chosen at run time from a table, so the dispatcher is source code:
one branch per registered element, in registry order (tests/core/test_elements.py fails when the
committed file differs from what this writes)."""
from __future__ import annotations

import sys
from pathlib import Path

from ...model.registry import FORCE_TYPES, element_module

ARGS = ("k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, "
        "Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf")
PATH = Path(__file__).with_name("dispatch.py")


def _const(name: str) -> str:
    return "F_" + name.upper().replace("-", "_")


def source() -> str:
    from ..elements import ELEMENTS

    lines = ['"""Generated from rtmbs.model.registry by ``python -m rtmbs.kernels.element_kernels.generate``: do not edit."""',
             "from numba import njit", ""]
    for name in FORCE_TYPES:
        m = element_module(name)
        lines.append(f"from .{m} import kernel as _{m}")
    lines += ["", "# numeric codes of the force element types (their index in the registry)"]
    lines += [f"{_const(name)} = {code}" for code, name in enumerate(FORCE_TYPES)]
    lines += ["", "", '@njit(cache=True, fastmath={"contract"})', f"def element_kernel(ty, {ARGS}):",
              '    """Force, couple and Jacobians of element k of type ``ty`` (see rtmbs.kernels.element_kernels.helpers)."""']
    for code, name in enumerate(FORCE_TYPES):
        lines.append(f"    {'if' if code == 0 else 'elif'} ty == {code}:")
        lines.append(f"        return _{element_module(name)}({ARGS})")
    lines += ["    return 0.0", "", "", '@njit(cache=True, inline="always")', "def torque_only(ty):",
              '    """Whether elements of type ``ty`` apply a couple only (no translational Jacobian terms)."""']
    codes = [str(code) for code, el in enumerate(ELEMENTS) if el.torque_only]
    lines.append(f"    return {' or '.join(f'ty == {c}' for c in codes) if codes else 'False'}")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else PATH
    out.write_text(source())
    print(f"wrote {out}")
