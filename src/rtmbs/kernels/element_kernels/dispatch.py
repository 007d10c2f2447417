"""Generated from rtmbs.model.registry by ``python -m rtmbs.kernels.element_kernels.generate``: do not edit."""
from numba import njit

from .spring_damper import kernel as _spring_damper
from .stop import kernel as _stop
from .bushing import kernel as _bushing
from .force import kernel as _force
from .torque import kernel as _torque
from .joint_torque import kernel as _joint_torque
from .brake import kernel as _brake
from .tyre import kernel as _tyre
from .torsion_spring import kernel as _torsion_spring

# numeric codes of the force element types (their index in the registry)
F_SPRING_DAMPER = 0
F_STOP = 1
F_BUSHING = 2
F_FORCE = 3
F_TORQUE = 4
F_JOINT_TORQUE = 5
F_BRAKE = 6
F_TYRE = 7
F_TORSION_SPRING = 8


@njit(cache=True, fastmath={"contract"})
def element_kernel(ty, k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf):
    """Force, couple and Jacobians of element k of type ``ty`` (see rtmbs.kernels.element_kernels.helpers)."""
    if ty == 0:
        return _spring_damper(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 1:
        return _stop(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 2:
        return _bushing(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 3:
        return _force(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 4:
        return _torque(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 5:
        return _joint_torque(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 6:
        return _brake(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 7:
        return _tyre(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    elif ty == 8:
        return _torsion_spring(k, bi, bj, with_jac, fv, par, frc_rot, frc_tab, funs, kin_A, kin_w, fjac, arm_i, sgj, tmp, S, Dd, Ddd, X, tyre_par, road_buf, tyre_x, outs, mf)
    return 0.0


@njit(cache=True, inline="always")
def torque_only(ty):
    """Whether elements of type ``ty`` apply a couple only (no translational Jacobian terms)."""
    return ty == 4 or ty == 5 or ty == 6 or ty == 8
