"""Small models written with the :class:`rtmbs.model.Model` API, shared by several test files.

* :func:`free_body`: one torque-free asymmetric body (no gravity), spinning about all three axes.
* :func:`wheel`: a 380 kg carrier that may only translate, carrying a 20 kg rim on a revolute
  axle with the shipped MF 6.1 tyre, rolling at ``v``.
* :func:`differential`: an open differential (carrier driven at a constant speed, two half
  shafts, a coupler θ_L + θ_R − 2 θ_c = 0), compiled: a model with coupler rows.
"""
from __future__ import annotations

from rtmbs.model import Model
from rtmbs.system import compile_model

R0 = 0.3943          # UNLOADED_RADIUS of the shipped MF 6.1 file
Y = {"z_axis": [0, 1, 0]}


def free_body(coords) -> Model:
    """``coords``: the body's orientation coordinates (``euler-parameters``, ``euler-angles-zxz``)."""
    m = Model(name="free", gravity=(0, 0, 0))
    m.add_body("box", 2.0, inertia=[0.3, 0.5, 0.7], orientation={"euler_zxz": [0.3, 1.1, -0.4]},
               angular_velocity=(1.0, 4.0, 0.5), velocity=(0.1, 0.0, 0.0), orientation_coordinates=coords)
    return m


def wheel(v=10.0, drive=None, road=None, height=R0 - 0.012, name="wheel", **tyre) -> Model:
    """The carrier's orientation is locked; the rim spins at v / (height + 4 mm) (about the
    rolling radius, so the slip starts small). ``drive``: a joint torque's function between
    carrier and rim; ``road``: the tyre's road (flat by default); ``tyre``: more options of the
    tyre element (``transient``, ``damping``)."""
    m = Model(name=name, gravity=(0, 0, -9.81))
    m.add_body("carrier", 380.0, inertia=[10, 10, 10], position=(0, 0, height), velocity=(v, 0, 0),
               markers={"hub": {"orientation": Y}})
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, height), velocity=(v, 0, 0),
               angular_velocity=(0, v / (height + 0.004), 0), markers={"hub": {"orientation": Y}})
    m.add_joint("lock", "orientation-lock", "ground.cm", "carrier.cm")
    m.add_joint("axle", "revolute", "carrier.hub", "rim.hub")
    m.add_force("tyre", "tyre", marker_i="carrier.hub", marker_j="rim.hub", tyre="MF61",
                road=road or {"type": "flat"}, **tyre)
    if drive is not None:
        m.add_force("drive", "joint-torque", marker_i="carrier.hub", marker_j="rim.hub", function=drive)
    return m


def differential(T_left, J_left=0.02, J_right=0.05, w_carrier=6.0):
    """Carrier driven at a constant speed, two half shafts, all revolute to the ground about the
    global y axis; coupler θ_L + θ_R − 2 θ_c = 0; a torque ``T_left`` on the left shaft."""
    m = Model(name="diff", gravity=(0.0, 0.0, -9.81))
    axis = {"z_axis": [0, 1, 0], "x_axis": [1, 0, 0]}
    for b, J, y in (("carrier", 0.1, 0.0), ("left", J_left, 0.5), ("right", J_right, -0.5)):
        m.add_body(b, 2.0, inertia=[0.1, J, 0.1], position=(0.0, y, 0.0), angular_velocity=(0.0, w_carrier, 0.0))
        m.add_marker("ground", b, (0.0, y, 0.0), orientation=axis)
        m.add_marker(b, "o", orientation=axis)
        m.add_joint(f"{b}_pin", "revolute", f"ground.{b}", f"{b}.o")
    m.add_joint("drive", "motion", "ground.carrier", "carrier.o", dof="rotation",
                function={"type": "ramp", "slope": w_carrier})
    m.add_coupler("diff", ["left_pin", "right_pin", "carrier_pin"], coefficients=[1, 1, -2])
    m.add_force("tq", "joint-torque", marker_i="ground.left", marker_j="left.o", function=T_left)
    return compile_model(m)
