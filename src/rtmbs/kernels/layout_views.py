"""Compiled views of the packed buffers, GENERATED from rtmbs.kernels.layouts by
``python -m rtmbs.kernels.layouts``: do not edit (tests/core/test_layouts.py checks it)."""
from collections import namedtuple

from numba import njit

from .arena import view1, view2, view3, view4


ModelInts = namedtuple("ModelInts", ("body_qadr", "body_rtype", "body_eprow", "prim_type", "prim_row", "prim_body", "prim_fun", "frc_type", "frc_body", "frc_fun", "frc_tab", "frc_stiff", "fun_type", "fun_tab", "tab_adr", "tab_len", "blk_pair", "frc_blk"))


@njit(cache=True, inline="always")
def model_ints(buf, lay):
    """The fields of the ModelInts buffer by name."""
    return ModelInts(
        view1(buf, lay, 0),  # body_qadr
        view1(buf, lay, 1),  # body_rtype
        view1(buf, lay, 2),  # body_eprow
        view1(buf, lay, 3),  # prim_type
        view1(buf, lay, 4),  # prim_row
        view2(buf, lay, 5),  # prim_body
        view1(buf, lay, 6),  # prim_fun
        view1(buf, lay, 7),  # frc_type
        view2(buf, lay, 8),  # frc_body
        view2(buf, lay, 9),  # frc_fun
        view2(buf, lay, 10),  # frc_tab
        view1(buf, lay, 11),  # frc_stiff
        view1(buf, lay, 12),  # fun_type
        view1(buf, lay, 13),  # fun_tab
        view1(buf, lay, 14),  # tab_adr
        view1(buf, lay, 15),  # tab_len
        view2(buf, lay, 16),  # blk_pair
        view2(buf, lay, 17),  # frc_blk
    )


ModelFloats = namedtuple("ModelFloats", ("body_mass", "body_inertia", "gravity", "prim_vec", "prim_par", "frc_vec", "frc_rot", "frc_par", "tab_x", "tab_y", "tyre_par", "road"))


@njit(cache=True, inline="always")
def model_floats(buf, lay):
    """The fields of the ModelFloats buffer by name."""
    return ModelFloats(
        view1(buf, lay, 0),  # body_mass
        view3(buf, lay, 1),  # body_inertia
        view1(buf, lay, 2),  # gravity
        view3(buf, lay, 3),  # prim_vec
        view2(buf, lay, 4),  # prim_par
        view3(buf, lay, 5),  # frc_vec
        view4(buf, lay, 6),  # frc_rot
        view2(buf, lay, 7),  # frc_par
        view1(buf, lay, 8),  # tab_x
        view1(buf, lay, 9),  # tab_y
        view2(buf, lay, 10),  # tyre_par
        view1(buf, lay, 11),  # road
    )


DataBuffers = namedtuple("DataBuffers", ("fun_par", "xstate", "kin_r", "kin_rd", "kin_A", "kin_G", "kin_dG", "kin_W", "kin_w", "kin_alpha", "kin_dadp", "kin_dadpd", "d2G", "tmp", "S", "Dx", "beta", "f", "tau", "dfdx", "dfdv", "dtdx", "dtdv", "arm_i", "sgj", "Dd", "Ddd", "X", "frc_out", "mf", "vQ", "vK", "vC", "vP", "KL", "warning", "counter"))


@njit(cache=True, inline="always")
def data_buffers(buf, lay):
    """The fields of the DataBuffers buffer by name."""
    return DataBuffers(
        view2(buf, lay, 0),  # fun_par
        view1(buf, lay, 1),  # xstate
        view2(buf, lay, 2),  # kin_r
        view2(buf, lay, 3),  # kin_rd
        view3(buf, lay, 4),  # kin_A
        view3(buf, lay, 5),  # kin_G
        view4(buf, lay, 6),  # kin_dG
        view3(buf, lay, 7),  # kin_W
        view2(buf, lay, 8),  # kin_w
        view2(buf, lay, 9),  # kin_alpha
        view3(buf, lay, 10),  # kin_dadp
        view3(buf, lay, 11),  # kin_dadpd
        view4(buf, lay, 12),  # d2G
        view2(buf, lay, 13),  # tmp
        view3(buf, lay, 14),  # S
        view2(buf, lay, 15),  # Dx
        view1(buf, lay, 16),  # beta
        view1(buf, lay, 17),  # f
        view1(buf, lay, 18),  # tau
        view2(buf, lay, 19),  # dfdx
        view2(buf, lay, 20),  # dfdv
        view2(buf, lay, 21),  # dtdx
        view2(buf, lay, 22),  # dtdv
        view1(buf, lay, 23),  # arm_i
        view1(buf, lay, 24),  # sgj
        view2(buf, lay, 25),  # Dd
        view2(buf, lay, 26),  # Ddd
        view2(buf, lay, 27),  # X
        view2(buf, lay, 28),  # frc_out
        view1(buf, lay, 29),  # mf
        view2(buf, lay, 30),  # vQ
        view3(buf, lay, 31),  # vK
        view3(buf, lay, 32),  # vC
        view4(buf, lay, 33),  # vP
        view3(buf, lay, 34),  # KL
        view2(buf, lay, 35),  # warning
        view1(buf, lay, 36),  # counter
    )
