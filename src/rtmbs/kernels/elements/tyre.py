"""Tyre on a rim (Carpinelli 2015 §4.3): 2-point follower enveloping and the Magic Formula, in
the engine's ``tyre/tyre_element.c``; marker_j on the rim (origin at the wheel centre, z the spin
axis), marker_i (optional) on the wheel carrier, for reference. Named outputs:
:data:`~rtmbs.kernels.codes.TYRE_OUTPUTS`."""
from __future__ import annotations

from pathlib import Path

import numpy as np

from ...errors import ModelError
from .. import codes as te
from .base import ElementType
from ...vehicle.tyre.tir import SHIPPED as TYRE_FILES  # noqa: F401  (shipped .tir files by short name)


def pack(fe, ctx):
    """The tyre's row of frc_par (te.TP_*), its .tir parameters (``ctx.tyres``), its packed road
    (``ctx.roads``) and, if transient, its index among the transient tyres (``ctx.ntransient``)."""
    from ...vehicle.road import from_spec
    from ...vehicle.tyre import magic_formula as mfk
    from ...vehicle.tyre.tir import data_path, load_tir

    path, par = ctx.path, ctx.par
    if fe.marker_i:
        ctx.marker(fe.marker_i, path + ".marker_i")
    src = TYRE_FILES.get(fe.tyre)
    tir_path = data_path(src) if src else Path(fe.tyre)
    if not src and not tir_path.exists():
        raise ModelError(f"{path}.tyre", f"'{fe.tyre}' is neither a shipped tyre "
                         f"({', '.join(TYRE_FILES)}) nor an existing .tir file")
    props = load_tir(tir_path)
    p = np.asarray(props.params, float)
    par[te.TP_XSTATE] = -1
    if fe.transient:
        # relaxation lengths at the nominal load: MF 6.1 from the carcass stiffnesses, MF 5.2 /
        # PAC2002 from PTX1-3, PTY1-2 (magic_formula.mf_steady_state)
        out = np.zeros(mfk.N_OUT)
        mfk.mf_steady_state(p, p[mfk.I_FNOMIN], 0.0, 0.0, 0.0, 10.0, out)
        sig = out[[mfk.O_SIGK, mfk.O_SIGA]]
        if not np.all(np.isfinite(sig) & (sig > 0.0)):
            raise ModelError(f"{path}.transient", f"'{fe.tyre}' gives no relaxation lengths "
                             f"(sigma_kappa, sigma_alpha = {sig[0]:.3g}, {sig[1]:.3g} m at the "
                             "nominal load): MF 6.1 needs LONGITUDINAL_STIFFNESS and "
                             "LATERAL_STIFFNESS, MF 5.2 / PAC2002 PTX1-3 and PTY1-2")
        par[te.TP_XSTATE] = ctx.ntransient
        ctx.ntransient += 1
    road = from_spec(fe.road or {"type": "flat"}, where=f"{path}.road").packed()
    rfree = p[mfk.I_UNLOADED_RADIUS]
    par[te.TP_ROW] = len(ctx.tyres)
    par[te.TP_ROAD_ADR] = sum(len(r) for r in ctx.roads)
    par[te.TP_ROAD_LEN] = len(road)
    par[te.TP_LF] = fe.follower_half_length or 0.3 * rfree
    kz = fe.stiffness if fe.stiffness is not None else p[mfk.I_VERTICAL_STIFFNESS]
    par[te.TP_KZ] = float(kz)
    par[te.TP_CZ] = float(fe.damping) if fe.damping is not None else 500.0
    par[te.TP_VMIN] = 0.1
    par[te.TP_RFREE] = rfree
    ctx.tyres.append(p)
    ctx.roads.append(np.asarray(road, float))


ELEMENT = ElementType("tyre", pack, outputs=te.TYRE_OUTPUTS, single_body=True)
