"""Extra first-order states of a compiled Cartesian model: the transient tyres' carcass
deflections u, v (seed 003 eqs. 4.22-4.24), advanced once per fixed step.

The data buffer's ``xstate`` holds [h, u0, v0, u1, v1, ...]: ``h`` is the step of the fixed-step
solver under way (the tyre element then reads its deflections at the step's end; 0: as given),
tyre k (``frc_par[r, TP_XSTATE] = k``) owns entries 1 + 2k, 2 + 2k. The tyre element writes the
inputs of eq. 4.23 (slip velocities, V_x, relaxation lengths) into its ``frc_out`` row
(``TYRE_TRANSIENT_INPUTS``) at every force evaluation; :func:`advance_extra_states` updates the
deflections from them with the exact exponential step of
:func:`rtmbs.vehicle.tyre.contact.transient_step`. The compiled steps call it after their last
force evaluation (``rtmbs.solvers.compiled_step``), ``CartesianSystem.advance_extra`` from
Python: one definition for both.
"""
from __future__ import annotations

from numba import njit

from .tyre_contact import transient_step
from .element_kernels.dispatch import F_TYRE
from .layout_views import data_buffers, model_floats, model_ints
from .tyre_element import TO_SIGMA_ALPHA, TO_SIGMA_KAPPA, TO_VSX, TO_VSY, TO_VX, TP_XSTATE


@njit(cache=True)
def advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h):
    """u, v of every transient tyre over one step ``h`` (eq. 4.23, inputs of the last force
    evaluation held constant: stable at any speed and step)."""
    frc_type = model_ints(ibuf, ilay).frc_type
    frc_par = model_floats(fbuf, flay).frc_par
    d = data_buffers(sbuf, slay)
    x, out = d.xstate, d.frc_out
    for r in range(frc_type.shape[0]):
        if frc_type[r] != F_TYRE or frc_par[r, TP_XSTATE] < 0.0:
            continue
        k = int(frc_par[r, TP_XSTATE])
        o = out[r]  # (column 0 is the element's main output; TYRE_OUTPUTS ... from column 1)
        x[1 + 2 * k], x[2 + 2 * k] = transient_step(
            x[1 + 2 * k], x[2 + 2 * k], o[1 + TO_VSX], o[1 + TO_VSY], o[1 + TO_VX],
            o[1 + TO_SIGMA_KAPPA], o[1 + TO_SIGMA_ALPHA], h)
