"""Simplified and overconstrained McPherson struts (Pękal & Frączek 2016 §4.1, after Haug 1989).

Five bodies in absolute coordinates with zxz Euler angles (n = 30), 4 degrees of freedom: the
control-arm swing, the rack travel and the spins of the strut rod and of the tie rod about their
own axes (the two local mobilities the paper mentions). Dimensions, masses (1 kg), inertias
(0.1 kg m²), loads (Fz = 38 N on body 1, Fy = 2 + 0.01 sin t N on body 5) and gravity
(−9.80665 m/s² along z) are the paper's; the joint types and axes are our reading of its
figures, documented in docs/models/mcpherson.md.

===========================  ===============  ==========  =====
model                        n                m           rank
===========================  ===============  ==========  =====
``mcpherson_simplified``     30               26          26
``mcpherson_overconstrained``  30             31          26
===========================  ===============  ==========  =====

The overconstrained strut hinges the control arm to the ground with two coaxial revolute joints
(at P1A and P1B); the simplified one keeps only the one at P1A.
"""
from __future__ import annotations

import numpy as np

from ..model.description import Model

G = 9.80665
MASS = 1.0
INERTIA = (0.1, 0.1, 0.1)

#: Characteristic points (global, initial configuration; x forward, y outboard, z up), built
#: from the paper's distances: |P1P2| = 0.3, |P1P1A| = |P1P1B| = 0.025, |P3P4| = 0.45,
#: |P3P5| = 0.1, |P3P6| = 0.25, |P2P3| = 0.05, |P6P7| = 0.1, |P5P8| = 0.15, |P7P9| = 0.05,
#: |P10P11| = 0.3, |P9P12| = 0.5, |P12P13| = 0.2.
P = {
    "P1": (0.0, 0.0, 0.0),
    "P1A": (0.025, 0.0, 0.0),
    "P1B": (-0.025, 0.0, 0.0),
    "P2": (0.0, 0.3, 0.0),          # arm outer end: lower ball joint
    "P3": (0.0, 0.3, 0.05),         # bottom of the strut axis on body 2
    "P4": (0.0, 0.3, 0.5),          # top of body 2 (strut tube)
    "P5": (0.0, 0.3, 0.15),         # spindle root
    "P6": (0.0, 0.3, 0.3),          # steering-arm root
    "P7": (-0.1, 0.3, 0.3),         # steering arm, 0.1 behind the axis
    "P8": (0.0, 0.45, 0.15),        # wheel centre (spindle end, no body)
    "P9": (-0.1, 0.25, 0.3),        # outer tie-rod ball, 0.05 inboard of P7
    "P10": (0.0, 0.3, 0.45),        # strut-rod bottom, inside the tube
    "P11": (0.0, 0.3, 0.75),        # strut-rod top mount on the ground
    "P12": (-0.1, -0.25, 0.3),      # inner tie-rod ball on the rack end
    "P13": (-0.1, -0.45, 0.3),      # other rack end
}


def _mid(a, b):
    return tuple(0.5 * (np.array(P[a]) + np.array(P[b])))


#: Body: (name, centre of mass between, zxz orientation (rad)). The orientations keep the
#: nutation at 90° (far from the zxz singularity at 0 and 180°); the arm's body z axis lies along
#: its hinge (global x), so its swing changes ψ only and θ stays at 90° (with its z axis across
#: the hinge, a 160° swing drove θ through 0, where M is singular). Every marker is given in
#: global axes, so the frames matter for the coordinates only, not for the physics.
BODIES = (
    ("arm", ("P1", "P2"), (np.pi / 2, np.pi / 2, 0.0)),   # body 1: lower control arm
    ("upright", ("P3", "P4"), (np.pi / 2, np.pi / 2, 0.0)),  # body 2: strut tube + knuckle
    ("strut_rod", ("P10", "P11"), (np.pi / 2, np.pi / 2, np.pi / 2)),  # body 3
    ("tie_rod", ("P9", "P12"), (0.0, np.pi / 2, np.pi / 2)),  # body 4
    ("rack", ("P12", "P13"), (np.pi / 4, np.pi / 2, 0.0)),   # body 5
)


def _strut(overconstrained: bool) -> Model:
    name = "mcpherson-overconstrained" if overconstrained else "mcpherson-simplified"
    m = Model(name=name, gravity=(0.0, 0.0, -G), orientation_coordinates="euler-angles-zxz",
              description="McPherson strut of Pękal & Frączek 2016 §4.1 (Pękal & Frączek), after Haug (1989)")
    for bname, (a, b), ang in BODIES:
        m.add_body(bname, MASS, inertia=INERTIA, position=_mid(a, b),
                   orientation={"euler_zxz": ang})
    ex, ey, ez = (1.0, 0.0, 0.0), (0.0, 1.0, 0.0), (0.0, 0.0, 1.0)

    def mk(body, pname, z_axis=None, x_axis=None, tag=""):
        nm = pname + tag
        kw = {"frame": "global"}
        if z_axis is not None:
            kw["orientation"] = {"z_axis": z_axis, **({"x_axis": x_axis} if x_axis else {})}
        m.add_marker(body, nm, P[pname], **kw)
        return f"{body}.{nm}"

    # arm hinge(s) to the ground, axis x
    hinges = ("P1A", "P1B") if overconstrained else ("P1A",)
    for k, p in enumerate(hinges):
        m.add_joint(f"arm_hinge_{p}", "revolute", mk("ground", p, ex, ey), mk("arm", p, ex, ey))
    # lower ball joint arm-upright at P2
    m.add_joint("lower_ball", "spherical", mk("arm", "P2"), mk("upright", "P2"))
    # strut: rod slides and turns in the tube along the strut axis (z)
    m.add_joint("strut", "cylindrical", mk("upright", "P10", ez, ex), mk("strut_rod", "P10", ez, ex))
    # top mount: spherical to the ground at P11
    m.add_joint("top_mount", "spherical", mk("ground", "P11"), mk("strut_rod", "P11"))
    # tie rod: balls at P9 (steering arm) and P12 (rack)
    m.add_joint("outer_tie_ball", "spherical", mk("upright", "P9"), mk("tie_rod", "P9"))
    m.add_joint("inner_tie_ball", "spherical", mk("tie_rod", "P12"), mk("rack", "P12"))
    # rack: prismatic to the ground along y
    m.add_joint("rack_slide", "prismatic", mk("ground", "P13", ey, ex), mk("rack", "P13", ey, ex))
    # loads: Fz = 38 N on body 1, Fy = 2 + 0.01 sin t on body 5 (at the centres of mass)
    m.add_force("Fz_arm", "force", marker_j="arm.cm", direction=ez, function=38.0)
    m.add_force("Fy_rack", "force", marker_j="rack.cm", direction=ey,
                function={"type": "sine", "amplitude": 0.01, "frequency_hz": 1.0 / (2.0 * np.pi),
                          "offset": 2.0})
    return m


def mcpherson_simplified() -> Model:
    """Simplified McPherson strut (Pękal & Frączek 2016 Fig. 1): n = 30, m = 26, 4 DOF, no redundancy."""
    return _strut(False)


def mcpherson_overconstrained() -> Model:
    """Overconstrained McPherson strut (Pękal & Frączek 2016 Fig. 2): two coaxial arm hinges, m = 31,
    rank Φq = 26 (5 redundant equations), 4 DOF."""
    return _strut(True)


def build(overconstrained: bool = False):
    """The compiled system (``allow_redundant`` set for the overconstrained strut)."""
    from ..system import compile_model

    sysm = compile_model(mcpherson_overconstrained() if overconstrained else mcpherson_simplified())
    sysm.allow_redundant = bool(overconstrained)
    return sysm
