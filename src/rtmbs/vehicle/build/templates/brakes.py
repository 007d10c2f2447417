"""Brakes: the ``brake`` element on each wheel (upright spindle → wheel hub), brake torque
−T_b·tanh(Ω/omega_eps) with T_b the input of the wheel's axle (N m per wheel)."""
from __future__ import annotations


def build(model, spec, corners_by_axle: dict) -> None:
    for axle in ("front", "rear"):
        b = getattr(spec, axle)
        if b is None:
            continue
        if b.input not in {i.name for i in model.inputs}:
            model.add_input(b.input, "channel", value=0.0)
        for corner in corners_by_axle[axle].values():
            side = corner.side
            model.add_force(side.name("brake"), "brake", marker_i=f"{corner.bodies['upright']}.spindle",
                            marker_j=f"{corner.bodies['wheel']}.hub", function=b.input,
                            omega_eps=b.omega_eps)
