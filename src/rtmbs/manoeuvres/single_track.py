"""The linear single-track (bicycle) model of a car built by rtmbs.vehicle.build, from the
car's own data: axle loads from the static equilibrium, each tyre's cornering
stiffness C = |∂Fy/∂α| at α = 0 from the Magic Formula (the car's .tir, at that load), the
on-centre steering ratio with the wheel travel held (the K&C rig), the wheelbase.

Steady state (Gillespie, *Fundamentals of Vehicle Dynamics*, 1992, ch. 6, eqs. 6-12, 6-15 and
6-17; Milliken & Milliken, *Race Car Vehicle Dynamics*, ch. 5):

* road-wheel angle δ = L/R + K a_y, the understeer gradient
  K = m_f/C_f − m_r/C_r  (rad per m/s²; m_f, m_r the axle loads over g, C_f, C_r the axle
  cornering stiffnesses, two tyres each), in deg/g: K · 180/π · g;
* yaw-rate gain r/δ = v / (L + K v²); lateral-acceleration gain a_y/δ = v²/(L + K v²);
* characteristic speed v_ch = √(L/K) (K > 0, the speed of the largest yaw-rate gain).

Left out (the linear model's limits): roll and compliance steer, camber change and camber
thrust, aligning-torque steer through the steering compliance, the lateral load transfer (the
cornering stiffness is concave in the load), and the longitudinal forces."""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..errors import SolverError

G = 9.81


@dataclass(frozen=True)
class SingleTrack:
    """Axle loads m_f, m_r (kg: load/g), axle cornering stiffnesses C_f, C_r (N/rad, two tyres
    each), wheelbase L (m), steering ratio (handwheel / road-wheel angle)."""

    m_f: float
    m_r: float
    C_f: float
    C_r: float
    wheelbase: float
    steering_ratio: float = 1.0

    def __post_init__(self):
        for k in ("m_f", "m_r", "C_f", "C_r", "wheelbase", "steering_ratio"):
            v = getattr(self, k)
            if not (math.isfinite(v) and v > 0):
                raise SolverError(f"SingleTrack.{k}: expected a finite positive number, got {v!r}")

    @property
    def K(self) -> float:
        """Understeer gradient K = m_f/C_f − m_r/C_r, rad per m/s² (Gillespie eq. 6-15)."""
        return self.m_f / self.C_f - self.m_r / self.C_r

    @property
    def K_deg_per_g(self) -> float:
        """K in deg/g."""
        return math.degrees(self.K) * G

    def yaw_rate_gain(self, v: float) -> float:
        """Steady-state r/δ = v/(L + K v²), 1/s per rad of road-wheel angle (Gillespie 6-17)."""
        return v / (self.wheelbase + self.K * v * v)

    def ay_gain(self, v: float) -> float:
        """Steady-state a_y/δ = v²/(L + K v²), m/s² per rad of road-wheel angle."""
        return v * v / (self.wheelbase + self.K * v * v)

    def steer_for_ay(self, v: float, ay: float) -> float:
        """Road-wheel angle δ = (L + K v²) a_y / v² for a steady a_y at speed v (rad)."""
        return ay / self.ay_gain(v)

    @property
    def characteristic_speed(self) -> float:
        """√(L/K) (m/s) for an understeering car; inf if K ≤ 0."""
        return math.sqrt(self.wheelbase / self.K) if self.K > 0 else math.inf


def cornering_stiffness(props, Fz: float, Vx: float, gamma: float = 0.0) -> float:
    """|∂Fy/∂α| at α = κ = 0 (N/rad) of the Magic Formula ``props`` (TyreProperties) at the
    load Fz (N), speed Vx (m/s) and camber gamma (rad): the exact forward-mode partial of
    magic_formula.mf_force_partials."""
    from ..vehicle.tyre import magic_formula as mfk

    out = np.zeros(mfk.N_PARTIALS)
    mfk.mf_force_partials(props.params, float(Fz), 0.0, 0.0, float(gamma), float(Vx), out)
    return abs(float(out[mfk.PARTIAL_NAMES.index("dFy_dalpha")]))


def static_tyre_loads(model) -> dict[str, float]:
    """Vertical tyre loads (N) per corner (fl, fr, rl, rr) at the static equilibrium of a car
    ``model``: :func:`rtmbs.analysis.statics.vehicle_statics` (chassis x, y, yaw and the wheel
    spins held, their multipliers vanish there; a car with stiff bushings, whose full Newton
    stalls, by the reduced Newton)."""
    from ..analysis.statics import vehicle_statics

    corners = vehicle_statics(model)["corners"]
    return {c: float(corners[c]["Fz_N"]) for c in ("fl", "fr", "rl", "rr")}


def steering_ratio(model, rack: float = 2e-4) -> float:
    """Handwheel / mean front road-wheel angle on centre, with the wheel travel held at design
    (:func:`rtmbs.analysis.kc.steering_ratio_on_centre`, the ``rtmbs kc`` rig: rack ±``rack``
    m, central difference)."""
    from ..analysis.kc import steering_ratio_on_centre

    return steering_ratio_on_centre(model, rack)


def single_track_from_car(model, system=None, speed: float = 22.22, tyre=None,
                          gamma: float = 0.0) -> tuple[SingleTrack, dict]:
    """The single-track model of a car ``model`` (rtmbs.vehicle.build; the sedan by
    :func:`~rtmbs.manoeuvres.events.sedan_system`): axle loads from :func:`static_tyre_loads`,
    C per tyre from :func:`cornering_stiffness` at each axle's static load and ``speed`` (the
    .tir ``tyre``, default: the car's own), the ratio from :func:`steering_ratio` (the K&C rig
    of ``model``; ``system`` is not needed and kept for callers), L between the fl and rl wheel
    centres. Returns the model and a dict of the ingredients."""
    from ..kernels.elements.tyre import TYRE_FILES
    from ..vehicle.tyre.tir import load_tir

    if not (math.isfinite(speed) and speed > 0):
        raise SolverError(f"speed: expected a finite positive speed in m/s, got {speed!r}")
    if tyre is None:
        tyre = _car_tyre(model)
    if not hasattr(tyre, "params"):
        from pathlib import Path

        path = TYRE_FILES.get(str(tyre))
        tyre = load_tir(Path(__file__).resolve().parents[1] / "data" / "tyre" / path if path else tyre)
    Fz = static_tyre_loads(model)
    Wf, Wr = Fz["fl"] + Fz["fr"], Fz["rl"] + Fz["rr"]
    Cf = sum(cornering_stiffness(tyre, Fz[c], speed, gamma) for c in ("fl", "fr"))
    Cr = sum(cornering_stiffness(tyre, Fz[c], speed, gamma) for c in ("rl", "rr"))
    L = model.body("fl_wheel").position[0] - model.body("rl_wheel").position[0]
    st = SingleTrack(Wf / G, Wr / G, Cf, Cr, L, steering_ratio(model))
    return st, {"Fz": Fz, "front_load_N": Wf, "rear_load_N": Wr, "C_f": Cf, "C_r": Cr,
                "wheelbase": L, "steering_ratio": st.steering_ratio, "speed": speed}


def _car_tyre(model) -> str:
    """The .tir of the car's fl tyre element (its ``tyre`` parameter)."""
    for f in model.forces:
        if f.type == "tyre" and f.name.startswith("fl"):
            return f.tyre
    raise SolverError("single_track_from_car: the model has no fl tyre element")
