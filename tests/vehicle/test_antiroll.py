"""An anti-roll bar from existing elements: two bar halves revolute to the chassis about the lateral
axis, a torsion spring between them (the bar's torsional rate), levers of length L and vertical drop
links (distance joints or spring-dampers) to an axle that rolls about the longitudinal axis. The
roll stiffness at static equilibrium against the hand computation

    rigid drop links:        k_roll = k_t (t / L)²
    drop links of rate k_d:  k_roll = t² / (L² / k_t + 2 / k_d)

(t: lateral spacing of the drop links; a roll moment M puts ±M/t in the links, the bar twists by
(M/t) L² / k_t, each link shortens by (M/t)/k_d)."""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.assembly import static_equilibrium
from rtmbs.model import Model
from rtmbs.system import compile_model

K_T = 800.0      # torsional rate of the whole bar [N m/rad]
L = 0.2          # lever length [m]
T_SPAN = 1.2     # lateral spacing of the drop links [m]
H_BAR, H_AXLE = 0.1, -0.2


def antiroll_model(roll_torque: float, drop_stiffness: float | None = None) -> Model:
    m = Model(name="anti-roll bar", gravity=(0.0, 0.0, 0.0))
    lateral = {"z_axis": [0, 1, 0], "x_axis": [1, 0, 0]}
    m.add_body("axle", 50.0, inertia=[20.0, 1.0, 20.0], position=(0.0, 0.0, H_AXLE))
    m.add_marker("ground", "roll", (0.0, 0.0, H_AXLE), orientation={"z_axis": [1, 0, 0], "x_axis": [0, 1, 0]})
    m.add_marker("axle", "o", frame="global", position=(0.0, 0.0, H_AXLE),
                 orientation={"z_axis": [1, 0, 0], "x_axis": [0, 1, 0]})
    m.add_joint("roll", "revolute", "ground.roll", "axle.o")
    for side, y in (("left", 1.0), ("right", -1.0)):
        bar = f"bar_{side}"
        m.add_body(bar, 1.0, inertia=[0.01, 0.002, 0.01], position=(0.0, 0.3 * y, H_BAR))
        m.add_marker("ground", bar, (0.0, 0.3 * y, H_BAR), orientation=lateral)
        m.add_marker(bar, "pivot", frame="global", position=(0.0, 0.3 * y, H_BAR), orientation=lateral)
        m.add_marker(bar, "centre", frame="global", position=(0.0, 0.0, H_BAR), orientation=lateral)
        m.add_marker(bar, "end", frame="global", position=(L, 0.5 * T_SPAN * y, H_BAR))
        m.add_marker("axle", side, frame="global", position=(L, 0.5 * T_SPAN * y, H_AXLE))
        m.add_joint(f"{bar}_pivot", "revolute", f"ground.{bar}", f"{bar}.pivot")
        if drop_stiffness is None:
            m.add_joint(f"drop_{side}", "distance", f"{bar}.end", f"axle.{side}")
        else:
            m.add_force(f"drop_{side}", "spring-damper", marker_i=f"{bar}.end", marker_j=f"axle.{side}",
                        stiffness=drop_stiffness, damping=0.0)
    m.add_force("bar", "torsion-spring", marker_i="bar_left.centre", marker_j="bar_right.centre",
                stiffness=K_T, damping=0.0)
    m.add_force("moment", "torque", marker_j="axle.cm", direction=(1.0, 0.0, 0.0), function=roll_torque)
    return m


def _roll_angle(system, q):
    a = system.body_qadr[system.body_names.index("axle")] + 3
    e0, e1 = q[a], q[a + 1]
    return 2.0 * math.atan2(e1, e0)


@pytest.mark.parametrize("drop_stiffness", [None, 2e5])
@pytest.mark.parametrize("moment", [30.0, -12.0])
def test_roll_stiffness_of_the_bar_matches_the_hand_computation(drop_stiffness, moment):
    if drop_stiffness is None:
        k_roll = K_T * (T_SPAN / L) ** 2
    else:
        k_roll = T_SPAN ** 2 / (L ** 2 / K_T + 2.0 / drop_stiffness)
    system = compile_model(antiroll_model(moment, drop_stiffness))
    q, _ = static_equilibrium(system)
    phi = _roll_angle(system, q)
    assert abs(phi) > 1e-4  # the bar resists, the axle rolls
    # small angle (|φ| ≈ 1e-3): the geometric non-linearity is O(φ²)
    assert moment / phi == pytest.approx(k_roll, rel=1e-4)
    # the bar carries the link force times the lever: |T_bar| = (M/t) L
    out = np.zeros(len(system.output_names))
    system.outputs(0.0, q, np.zeros(system.n), out)
    assert abs(out[system.output_names.index("bar.force")]) == pytest.approx(abs(moment) / T_SPAN * L, rel=1e-4)


def test_without_the_torsion_spring_the_bar_does_not_resist_roll():
    """The halves turn freely: only the torsion spring couples left and right."""
    m = antiroll_model(5.0)
    m.forces = [f for f in m.forces if f.name != "bar"]
    m.add_force("axle_spring", "torsion-spring", marker_i="ground.roll", marker_j="axle.o", stiffness=1e3)
    system = compile_model(m)
    q, _ = static_equilibrium(system)
    assert 5.0 / _roll_angle(system, q) == pytest.approx(1e3, rel=1e-4)
