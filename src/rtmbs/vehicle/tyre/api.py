"""Vectorised front end of the Magic Formula kernels."""
from __future__ import annotations

import numpy as np

from . import magic_formula as mfk


def evaluate(props, Fz, kappa, alpha, gamma=0.0, Vx=None) -> dict[str, np.ndarray]:
    """Steady-state Magic Formula for arrays of inputs (broadcast together).

    ``props``: :class:`~rtmbs.vehicle.tyre.tir.TyreProperties`; ``Fz`` [N], ``kappa`` [-],
    ``alpha`` and ``gamma`` [rad], ``Vx`` [m/s] (default: the file's LONGVL). Returns
    ``{name: array}`` for every name of ``magic_formula.OUTPUT_NAMES``, shaped like the inputs.
    """
    if Vx is None:
        Vx = props["LONGVL"]
    arrays = np.broadcast_arrays(*(np.asarray(a, dtype=float) for a in (Fz, kappa, alpha, gamma, Vx)))
    shape = arrays[0].shape
    flat = [np.ascontiguousarray(a).reshape(-1) for a in arrays]
    out = np.empty((flat[0].size, mfk.N_OUT))
    mfk.mf_steady_state_batch(props.params, *flat, out)
    return {name: out[:, i].reshape(shape) for i, name in enumerate(mfk.OUTPUT_NAMES)}
