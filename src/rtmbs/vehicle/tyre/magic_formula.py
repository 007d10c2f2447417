"""Steady-state Magic Formula (MF 6.1 and MF 5.2 / PAC2002) over a flat parameter array.

The equations are those of Pacejka, *Tire and Vehicle Dynamics*, 3rd ed. (2012), §4.3.2 and
Appendix 3 (eqs. 4.E1-4.E78), with the details MFeval 4.3.1 (M. Furlan, "TNO-compatible" mode:
limit checks on, alpha_star off, turn slip off) uses to match TNO MF-Tyre; Carpinelli 2015 §4.3.2
(eqs. 4.17-4.18) gives the general form. ``docs/tyre.md`` lists every departure from the book.

The evaluation is the engine's (``src/rtmbs/engine/tyre/magic_formula.c``, bound in
:mod:`rtmbs.engine._engine`); this module names its parameters and outputs. One call of
:func:`mf_steady_state` evaluates all outputs for one operating point and allocates nothing:
``p`` is the array built by :func:`rtmbs.vehicle.tyre.tir.load_tir` (indices ``I_*`` below),
``out`` receives the ``N_OUT`` values indexed by ``O_*``.
"""
from __future__ import annotations

from ...engine._engine import (effective_rolling_radius, effective_rolling_radius_d,  # noqa: F401
                              mf_dual, mf_evaluate, mf_force_partials, mf_moments,
                              mf_steady_state, mf_steady_state_batch,
                              relaxation_lengths_dual)

# Parameter families (value of p[I_FAMILY]).
FAMILY_MF52 = 0.0   # MF 5.2 and PAC2002 (FITTYP 6 or 21, or PROPERTY_FILE_FORMAT 'PAC2002')
FAMILY_MF61 = 1.0   # MF 6.1 (FITTYP 61; FITTYP 62 uses the same steady-state equations)

EPS = 1e-6  # small number of eq. 4.E6a, guards the B factors against a zero denominator
N_RE_ITER = 6  # fixed number of fixed-point updates of the effective rolling radius

# Outputs written by mf_steady_state, in this order.
OUTPUT_NAMES = ("Fx", "Fy", "Mx", "My", "Mz", "Re", "t", "mux", "muy", "Kya", "Kxk",
                "sigma_kappa", "sigma_alpha")
N_OUT = len(OUTPUT_NAMES)
O_FX, O_FY, O_MX, O_MY, O_MZ, O_RE, O_T, O_MUX, O_MUY, O_KYA, O_KXK, O_SIGK, O_SIGA = range(13)

PARAM_NAMES = (
    # derived
    "FAMILY",
    # MODEL
    "LONGVL", "VXLOW",
    # DIMENSION
    "UNLOADED_RADIUS",
    # OPERATING_CONDITIONS
    "INFLPRES", "NOMPRES",
    # VERTICAL
    "FNOMIN", "VERTICAL_STIFFNESS", "BREFF", "DREFF", "FREFF", "Q_RE0", "Q_V1", "PFZ1",
    # STRUCTURAL
    "LONGITUDINAL_STIFFNESS", "LATERAL_STIFFNESS", "PCFX1", "PCFX2", "PCFX3", "PCFY1", "PCFY2",
    "PCFY3",
    # ranges
    "FZMIN", "FZMAX", "KPUMIN", "KPUMAX", "ALPMIN", "ALPMAX", "CAMMIN", "CAMMAX", "PRESMIN",
    "PRESMAX",
    # SCALING_COEFFICIENTS
    "LFZO", "LCX", "LMUX", "LEX", "LKX", "LHX", "LVX", "LCY", "LMUY", "LEY", "LKY", "LHY", "LVY",
    "LTR", "LRES", "LXAL", "LYKA", "LVYKA", "LS", "LKYC", "LKZC", "LVMX", "LMX", "LMY", "LSGKP",
    "LSGAL",
    # LONGITUDINAL_COEFFICIENTS
    "PCX1", "PDX1", "PDX2", "PDX3", "PEX1", "PEX2", "PEX3", "PEX4", "PKX1", "PKX2", "PKX3",
    "PHX1", "PHX2", "PVX1", "PVX2", "PPX1", "PPX2", "PPX3", "PPX4", "RBX1", "RBX2", "RBX3",
    "RCX1", "REX1", "REX2", "RHX1", "PTX1", "PTX2", "PTX3",
    # OVERTURNING_COEFFICIENTS
    "QSX1", "QSX2", "QSX3", "QSX4", "QSX5", "QSX6", "QSX7", "QSX8", "QSX9", "QSX10", "QSX11",
    "QSX12", "QSX13", "QSX14", "PPMX1",
    # LATERAL_COEFFICIENTS
    "PCY1", "PDY1", "PDY2", "PDY3", "PEY1", "PEY2", "PEY3", "PEY4", "PEY5", "PKY1", "PKY2",
    "PKY3", "PKY4", "PKY5", "PKY6", "PKY7", "PHY1", "PHY2", "PHY3", "PVY1", "PVY2", "PVY3",
    "PVY4", "PPY1", "PPY2", "PPY3", "PPY4", "PPY5", "RBY1", "RBY2", "RBY3", "RBY4", "RCY1",
    "REY1", "REY2", "RHY1", "RHY2", "RVY1", "RVY2", "RVY3", "RVY4", "RVY5", "RVY6", "PTY1",
    "PTY2",
    # ROLLING_COEFFICIENTS
    "QSY1", "QSY2", "QSY3", "QSY4", "QSY5", "QSY6", "QSY7", "QSY8",
    # ALIGNING_COEFFICIENTS
    "QBZ1", "QBZ2", "QBZ3", "QBZ4", "QBZ5", "QBZ9", "QBZ10", "QCZ1", "QDZ1", "QDZ2", "QDZ3",
    "QDZ4", "QDZ6", "QDZ7", "QDZ8", "QDZ9", "QDZ10", "QDZ11", "QEZ1", "QEZ2", "QEZ3", "QEZ4",
    "QEZ5", "QHZ1", "QHZ2", "QHZ3", "QHZ4", "PPZ1", "PPZ2", "SSZ1", "SSZ2", "SSZ3", "SSZ4",
)
N_PARAM = len(PARAM_NAMES)

# Index of each parameter in the flat array (a test checks they follow PARAM_NAMES).
I_FAMILY = 0
I_LONGVL = 1
I_VXLOW = 2
I_UNLOADED_RADIUS = 3
I_INFLPRES = 4
I_NOMPRES = 5
I_FNOMIN = 6
I_VERTICAL_STIFFNESS = 7
I_BREFF = 8
I_DREFF = 9
I_FREFF = 10
I_Q_RE0 = 11
I_Q_V1 = 12
I_PFZ1 = 13
I_LONGITUDINAL_STIFFNESS = 14
I_LATERAL_STIFFNESS = 15
I_PCFX1 = 16
I_PCFX2 = 17
I_PCFX3 = 18
I_PCFY1 = 19
I_PCFY2 = 20
I_PCFY3 = 21
I_FZMIN = 22
I_FZMAX = 23
I_KPUMIN = 24
I_KPUMAX = 25
I_ALPMIN = 26
I_ALPMAX = 27
I_CAMMIN = 28
I_CAMMAX = 29
I_PRESMIN = 30
I_PRESMAX = 31
I_LFZO = 32
I_LCX = 33
I_LMUX = 34
I_LEX = 35
I_LKX = 36
I_LHX = 37
I_LVX = 38
I_LCY = 39
I_LMUY = 40
I_LEY = 41
I_LKY = 42
I_LHY = 43
I_LVY = 44
I_LTR = 45
I_LRES = 46
I_LXAL = 47
I_LYKA = 48
I_LVYKA = 49
I_LS = 50
I_LKYC = 51
I_LKZC = 52
I_LVMX = 53
I_LMX = 54
I_LMY = 55
I_LSGKP = 56
I_LSGAL = 57
I_PCX1 = 58
I_PDX1 = 59
I_PDX2 = 60
I_PDX3 = 61
I_PEX1 = 62
I_PEX2 = 63
I_PEX3 = 64
I_PEX4 = 65
I_PKX1 = 66
I_PKX2 = 67
I_PKX3 = 68
I_PHX1 = 69
I_PHX2 = 70
I_PVX1 = 71
I_PVX2 = 72
I_PPX1 = 73
I_PPX2 = 74
I_PPX3 = 75
I_PPX4 = 76
I_RBX1 = 77
I_RBX2 = 78
I_RBX3 = 79
I_RCX1 = 80
I_REX1 = 81
I_REX2 = 82
I_RHX1 = 83
I_PTX1 = 84
I_PTX2 = 85
I_PTX3 = 86
I_QSX1 = 87
I_QSX2 = 88
I_QSX3 = 89
I_QSX4 = 90
I_QSX5 = 91
I_QSX6 = 92
I_QSX7 = 93
I_QSX8 = 94
I_QSX9 = 95
I_QSX10 = 96
I_QSX11 = 97
I_QSX12 = 98
I_QSX13 = 99
I_QSX14 = 100
I_PPMX1 = 101
I_PCY1 = 102
I_PDY1 = 103
I_PDY2 = 104
I_PDY3 = 105
I_PEY1 = 106
I_PEY2 = 107
I_PEY3 = 108
I_PEY4 = 109
I_PEY5 = 110
I_PKY1 = 111
I_PKY2 = 112
I_PKY3 = 113
I_PKY4 = 114
I_PKY5 = 115
I_PKY6 = 116
I_PKY7 = 117
I_PHY1 = 118
I_PHY2 = 119
I_PHY3 = 120
I_PVY1 = 121
I_PVY2 = 122
I_PVY3 = 123
I_PVY4 = 124
I_PPY1 = 125
I_PPY2 = 126
I_PPY3 = 127
I_PPY4 = 128
I_PPY5 = 129
I_RBY1 = 130
I_RBY2 = 131
I_RBY3 = 132
I_RBY4 = 133
I_RCY1 = 134
I_REY1 = 135
I_REY2 = 136
I_RHY1 = 137
I_RHY2 = 138
I_RVY1 = 139
I_RVY2 = 140
I_RVY3 = 141
I_RVY4 = 142
I_RVY5 = 143
I_RVY6 = 144
I_PTY1 = 145
I_PTY2 = 146
I_QSY1 = 147
I_QSY2 = 148
I_QSY3 = 149
I_QSY4 = 150
I_QSY5 = 151
I_QSY6 = 152
I_QSY7 = 153
I_QSY8 = 154
I_QBZ1 = 155
I_QBZ2 = 156
I_QBZ3 = 157
I_QBZ4 = 158
I_QBZ5 = 159
I_QBZ9 = 160
I_QBZ10 = 161
I_QCZ1 = 162
I_QDZ1 = 163
I_QDZ2 = 164
I_QDZ3 = 165
I_QDZ4 = 166
I_QDZ6 = 167
I_QDZ7 = 168
I_QDZ8 = 169
I_QDZ9 = 170
I_QDZ10 = 171
I_QDZ11 = 172
I_QEZ1 = 173
I_QEZ2 = 174
I_QEZ3 = 175
I_QEZ4 = 176
I_QEZ5 = 177
I_QHZ1 = 178
I_QHZ2 = 179
I_QHZ3 = 180
I_QHZ4 = 181
I_PPZ1 = 182
I_PPZ2 = 183
I_SSZ1 = 184
I_SSZ2 = 185
I_SSZ3 = 186
I_SSZ4 = 187

#: Layout of ``out`` of :func:`mf_force_partials`.
PARTIAL_NAMES = ("Fx", "Fy", "Mz", "dFx_dFz", "dFx_dkappa", "dFx_dalpha", "dFy_dFz",
                 "dFy_dkappa", "dFy_dalpha", "dMz_dFz", "dMz_dkappa", "dMz_dalpha")
N_PARTIALS = len(PARTIAL_NAMES)
(D_FX, D_FY, D_MZ, D_FX_FZ, D_FX_K, D_FX_A, D_FY_FZ, D_FY_K, D_FY_A, D_MZ_FZ, D_MZ_K,
 D_MZ_A) = range(12)
#: lanes of a dual number of :func:`mf_dual` (0 is the value)
L_FZ, L_KAPPA, L_ALPHA, L_GAMMA, L_VX = 1, 2, 3, 4, 5


def effective_rolling_radius_dfz(p, Fz, kappa, Vx, dpi):
    """:func:`effective_rolling_radius` (Re, omega) and dRe/dFz, the derivative carried through
    the same N_RE_ITER fixed-point updates (:func:`effective_rolling_radius_d` without dRe/dVx)."""
    return effective_rolling_radius_d(p, Fz, kappa, Vx, dpi)[:3]
