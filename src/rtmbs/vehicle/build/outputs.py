"""The vehicle outputs every car gets: named outputs of its model (rtmbs.model.Sensor), computed
in the C engine with the other outputs, so that they reach results, the FMU and the real-time
loop. ISO 8855 conventions: x forward, y left, z up; angles z-y-x (roll, pitch, yaw).

=============================  =======  ==================================================
``vehicle.roll|pitch|yaw``     rad      chassis attitude (pitch + nose down)
``vehicle.*_rate``             rad/s    chassis angular velocity in heading axes
``vehicle.vx|vy|vz``           m/s      centre-of-mass velocity in heading axes (vx forward)
``vehicle.ax|ay|az``           m/s²     centre-of-mass acceleration (sum of external forces / mass)
``vehicle.sideslip``           rad      atan2(vy, vx)
``vehicle.handwheel_angle``    rad      handwheel (pinion) angle, + left (``pinion-angle`` drive)
``vehicle.rack_travel``        m        rack travel, + left (``rack-travel`` drive)
``<corner>_wheel.steer``       rad      wheel's steer angle about the chassis z (toe included)
``<corner>_wheel.spin``        rad/s    wheel's angular velocity about its spin axis (+ rolling forward)
=============================  =======  ==================================================

Heading axes: x along the chassis' x axis projected on the ground plane, z vertical (the
intermediate axis system of ISO 8855). The tyre outputs ``<corner>_tyre.Fx|Fy|Fz`` (N, contact
axes: the road plane and the wheel's heading), ``.kappa`` (slip ratio) and ``.alpha`` (slip angle,
rad) come with the tyre element.
"""
from __future__ import annotations

VEHICLE = "vehicle"
BODY_SENSORS = ("roll", "pitch", "yaw", "roll_rate", "pitch_rate", "yaw_rate",
                "vx", "vy", "vz", "ax", "ay", "az", "sideslip")


def add_vehicle_outputs(model, corners: dict, steering=None) -> list[str]:
    """Adds the sensors of the table above to ``model`` (``corners``: axle -> side -> Corner;
    ``steering``: the steering subsystem's spec, or None); returns their names."""
    names = []

    def add(name, kind, **kw):
        model.sensors.append(_sensor(name=name, kind=kind, **kw))
        names.append(name)

    for kind in BODY_SENSORS:
        add(f"{VEHICLE}.{kind}", kind, body="chassis")
    if steering is not None:
        pinion = steering.drive == "pinion-angle"
        name = steering.input or ("handwheel_angle" if pinion else "rack_travel")
        add(f"{VEHICLE}.{'handwheel_angle' if pinion else 'rack_travel'}", "input", input=name,
            unit="rad" if pinion else "m")
    for sides in corners.values():
        for c in sides.values():
            wheel = c.bodies["wheel"]
            axis = tuple(float(v) for v in c.spin_left)
            add(f"{wheel}.steer", "steer", body=wheel, reference="chassis", axis=axis)
            add(f"{wheel}.spin", "spin", body=wheel, axis=axis)
    return names


def _sensor(**kw):
    from ...model.description import Sensor

    return Sensor(**kw)
