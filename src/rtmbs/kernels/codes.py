"""The codes and sizes a compiled model stores, shared by ``compile_model`` (rtmbs.system), the
element ``pack`` functions and the engine (``src/rtmbs/engine/rtmbs.h``, ``stages.h``,
``tyre/tyre_element.h``; ``rtmbs.engine._engine.constants()`` gives the engine's values, and
tests/engine compares them): constraint primitives, input functions, orientation coordinates,
what-flags of an evaluation, named-output sources and the tyre element's parameter and output
columns. Plain Python: importing it compiles nothing.
"""
from __future__ import annotations

# -- primitive constraints (rows; Nikravesh 1988, ch. 7; Carpinelli 2015 §4.1) ------------------------
PRIM_SPH = 0     # r_Pj − r_Pi = 0                                   (3 rows)
PRIM_DOT1 = 1    # a_iᵀ a_j = 0                                      (1 row)
PRIM_DOT2 = 2    # a_iᵀ (r_Pj − r_Pi) − s(t) = 0                     (1 row)
PRIM_DIST = 3    # dᵀd − L(t)² = 0                                    (1 row)
PRIM_ROTDRV = 4  # cos θ(t) (b_iᵀ a_j) − sin θ(t) (a_iᵀ a_j) = 0     (1 row)
PRIM_CPL = 5     # one term c·(s − s0) of a coupler row Σ c_k (s_k − s_k0) = 0   (shares its row)
PRIM_ROWS = (3, 1, 1, 1, 1, 0)
# A coupler (rtmbs.model.Coupler) is one constraint row made of consecutive PRIM_CPL terms with the
# same prim_row, each on the two bodies of one joint: s = θ = atan2(y_iᵀx_j, x_iᵀx_j) (revolute:
# prim_par[k, 0] = 1; vectors x_i, x_j, y_i in prim_vec rows 2, 3, 4) or s = z_iᵀ(r_Pj − r_Pi)
# (prismatic/cylindrical: prim_par[k, 0] = 0; s_i, s_j, z_i in rows 0, 1, 2); prim_vec[k, 5] =
# (c, s0, P): the sum is wrapped into [−P/2, P/2) when P > 0 (on the last term). The D row and
# bias of term number e (counting coupler terms in order) live in Dx / beta row m + e.

# -- force elements (their codes: rtmbs.model.registry; their pack: rtmbs.kernels.elements) -------
NFOUT = 13         # columns of the per-element outputs (main value, tyre outputs, transient inputs)
NFPAR = 32

# what-flags (same values as rtmbs.protocol); _PACKED: write M, Φq, Jq, Jq̇ into their fixed
# patterns (the packed workspace, CartesianSystem.packed_layout), not densely
_M, _Q, _PHI, _PHIQ, _GAMMA, _JAC, _JACS, _PACKED = 1, 2, 4, 8, 16, 32, 64, 128
#: column width of one body's segment in the packed Φq (3 + at most 4 rotation coordinates) and
#: of one body block in the packed M, Jq, Jq̇ (7×7 per block)
SEG = 7

# -- input functions (the engine's functions.c) --------------------------------------------------
FUN_CONST, FUN_STEP, FUN_RAMP, FUN_TRAPEZOID, FUN_SINE, FUN_TABLE, FUN_CHANNEL, FUN_EXPR = range(8)
NPAR = 8

# -- orientation coordinates (Euler parameters, Carpinelli 2015 eqs. 4.4-4.8; zxz angles, Pękal & Frączek 2016 §2.1) --
ROT_EP = 0
ROT_ZXZ = 1
NROT = (4, 3)
ROTATION_NAMES = {"euler-parameters": ROT_EP, "euler-angles-zxz": ROT_ZXZ}

#: sources of the named outputs (``CartesianSystem.output_map``): body position, velocity,
#: angular velocity (row = body, col = axis), force-element output (row = element, col = column)
OUT_R, OUT_RD, OUT_W, OUT_FORCE, OUT_SENSOR = range(5)  # a sensor: computed by the C engine only

# -- the tyre element (Carpinelli 2015 §4.3; the engine's tyre/tyre_element.c) ------------------------
#: frc_par layout of a tyre element
TP_ROW, TP_ROAD_ADR, TP_ROAD_LEN, TP_LF, TP_KZ, TP_CZ, TP_VMIN, TP_RFREE, TP_XSTATE = range(9)
#: extra outputs of a tyre element (frc_out columns 1..)
TYRE_OUTPUTS = ("Fx", "Fy", "Fz", "kappa", "alpha", "gamma", "rho")
#: further per-element values (after TYRE_OUTPUTS) that drive the transient states (eq. 4.23)
TYRE_TRANSIENT_INPUTS = ("Vsx", "Vsy", "Vx", "sigma_kappa", "sigma_alpha")
#: column of each of those values in ``outs`` (frc_out column 1 + it), by name
_COL = {name: c for c, name in enumerate(TYRE_OUTPUTS + TYRE_TRANSIENT_INPUTS)}
TO_FX, TO_FY, TO_FZ = _COL["Fx"], _COL["Fy"], _COL["Fz"]
TO_KAPPA, TO_ALPHA, TO_GAMMA, TO_RHO = _COL["kappa"], _COL["alpha"], _COL["gamma"], _COL["rho"]
TO_VSX, TO_VSY, TO_VX = _COL["Vsx"], _COL["Vsy"], _COL["Vx"]
TO_SIGMA_KAPPA, TO_SIGMA_ALPHA = _COL["sigma_kappa"], _COL["sigma_alpha"]
#: the frc_out columns of TYRE_TRANSIENT_INPUTS (contiguous, in that order)
TYRE_TRANSIENT_COLUMNS = slice(1 + TO_VSX, 1 + TO_SIGMA_ALPHA + 1)
