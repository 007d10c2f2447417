"""The planar truck of Simeon, Grupp, Führer and Rentrop (1994), as used in the truck benchmark §2.

A vertical/pitch model with 9 coordinates (Truck benchmark eq. 1): rear wheel, front wheel, chassis
(heave, pitch), cabin (heave, pitch) and loading area (horizontal, heave, pitch), driven at
constant speed over a vertical road profile. Pneumatic (polytropic) springs with dampers join
the wheels to the chassis, linear tyres join the wheels to the road, the cabin sits on two
spring-damper mounts, and the loading area is held to the chassis by three spring-dampers:
a horizontal and a vertical one at the rear hinge point H and a vertical one at the front
support S.

Variants (``truck(variant)``):

* ``"ode"``: the three loading-area springs (Truck benchmark eq. 1, Fig. 1a);
* ``"dae"``: the two hinge springs replaced by the constraint g(q) = r_H(load) - r_H(chassis)
  = 0, g: R⁹ → R², G = ∂g/∂q ∈ R^{2×9} (Truck benchmark eq. 2, Fig. 1b);
* ``"linear"``: the ODE linearised about its static equilibrium,
  M q̈ = −K (q − q_eq) − D q̇ + f(t) (Truck benchmark §4.1), with the road entering through the tyres.

The original parameter table is not available: the numbers are a documented reconstruction
(``docs/models/truck.md``), the topology is the paper's. Every variant's ``evaluate`` is ONE
call of the C provider (``engine/providers/truck.c``) filling the requested Workspace arrays,
with analytic force Jacobians.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from ..engine import _engine
from ..errors import ModelError
from ..kernels.layouts import FIELD_CONSTANTS
from ..protocol import (
    EVAL_JAC, EVAL_PHI, EVAL_PHIQ, EVAL_Q,
    MechanicalSystem, State,
)

G_ACC = 9.81
N = 9

COORDINATE_NAMES = (
    "rear_wheel.z", "front_wheel.z", "chassis.z", "chassis.theta", "cabin.z", "cabin.theta",
    "load.x", "load.z", "load.theta",
)
OUTPUT_NAMES = ("chassis_heave", "chassis_pitch", "cabin_heave", "load_pitch", "g1", "g2",
                "road_rear", "road_front")

# Body table columns: index of x, z, theta coordinate (-1: not a coordinate), fixed x.
# Body 0 is the road (handled apart).
ROAD, REAR, FRONT, CHASSIS, CABIN, LOAD = range(6)
ROAD_FLAT, ROAD_BUMPS, ROAD_SINE = 0, 1, 2
LAW_LINEAR, LAW_PNEUMATIC = 0, 1

# Element table columns (float64, one row per element).
E_LAW, E_AXIS, E_BA, E_AA, E_BBA, E_BB, E_AB, E_BBB, E_K, E_D, E_L0, E_A, E_VS, E_KAPPA, \
    E_PA, E_STIFF = range(16)
# Road parameter vector.
R_TYPE, R_SPEED, R_HEIGHT, R_LENGTH, R_NB, R_XI0 = range(6)   # bump starts follow at R_XI0..


@dataclass(frozen=True)
class TruckParams:
    """Reconstructed parameters (SI units); see docs/models/truck.md for the table.

    Positions are in a frame moving with the truck (x forward, z up), at the design
    configuration (all angles zero); body points are given relative to the body's centre
    of mass.
    """

    # masses [kg] and pitch inertias [kg m²]
    m_rear: float = 1100.0
    m_front: float = 700.0
    m_chassis: float = 4000.0      # frame + engine + drivetrain (engine rigid to the frame)
    I_chassis: float = 16000.0
    m_cabin: float = 1200.0
    I_cabin: float = 1000.0
    m_load: float = 10000.0        # loading area + design load
    I_load: float = 35000.0
    #: payload beyond the design load (at the load's CoM): the spring preloads and air
    #: pressures stay those of the design load, so the truck settles lower
    m_payload_extra: float = 0.0
    # design positions of the centres of mass (x, z) [m]
    x_rear: float = -2.0
    x_front: float = 2.5
    z_wheel: float = 0.5
    z_chassis: float = 1.0
    x_cabin: float = 3.0
    z_cabin: float = 2.1
    x_load: float = -1.2
    z_load: float = 2.0
    # tyres (linear spring + damper to the road) [N/m], [N s/m]
    k_tyre_rear: float = 4.0e6
    d_tyre_rear: float = 4.0e3
    k_tyre_front: float = 2.0e6
    d_tyre_front: float = 2.0e3
    # pneumatic suspension: F = A (p_s (V_s/V)^κ − p_a), V = V_s + A (s − s_design)
    z_susp_chassis: float = -0.1   # attachment height on the chassis, relative to its CoM
    area_rear: float = 0.16        # effective area [m²]
    area_front: float = 0.08
    vol_rear: float = 0.04         # static volume [m³]
    vol_front: float = 0.025
    kappa: float = 1.3             # polytropic exponent
    p_atm: float = 1.0e5           # [Pa]
    d_susp_rear: float = 40.0e3
    d_susp_front: float = 20.0e3
    # cabin mounts: chassis points (x, z abs. design), linear spring-dampers
    x_cabin_mounts: tuple = (2.4, 3.6)
    z_cabin_mount_chassis: float = 1.15
    z_cabin_mount_cabin: float = 1.25
    k_cabin: float = 1.5e5
    d_cabin: float = 6.0e3
    # loading area: rear hinge H and front support S (x abs. design)
    x_hinge: float = -3.6
    x_support: float = 1.4
    z_load_mount_chassis: float = 1.25
    z_load_mount_load: float = 1.25
    k_support: float = 5.0e6
    d_support: float = 5.0e4
    k_hinge: float = 1.0e9         # ODE only: the two springs the DAE replaces by g(q) = 0
    d_hinge: float = 2.0e5
    # road: three cosine bumps (or flat / sine), constant speed
    road: str = "bumps"
    speed: float = 10.0            # [m/s]
    bump_height: float = 0.2       # [m]
    bump_length: float = 5.0       # [m]
    bump_times: tuple = (10.0, 40.0, 70.0)   # [s] when the front wheel reaches each bump
    sine_amplitude: float = 0.05
    sine_wavelength: float = 10.0
    dampers: bool = True           # False: every damper zero (energy tests)

    def with_(self, **kw) -> "TruckParams":
        return replace(self, **kw)


def _bodies(p: TruckParams) -> np.ndarray:
    """Body table (6 × 4): ix, iz, itheta, fixed x (Truck benchmark coordinates, see COORDINATE_NAMES)."""
    B = np.zeros((6, 4))
    B[ROAD] = (-1, -1, -1, 0.0)
    B[REAR] = (-1, 0, -1, p.x_rear)
    B[FRONT] = (-1, 1, -1, p.x_front)
    B[CHASSIS] = (-1, 2, 3, 0.0)
    B[CABIN] = (-1, 4, 5, p.x_cabin)
    B[LOAD] = (6, 7, 8, p.x_load)
    return B


def _static_loads(p: TruckParams):
    """Lever-rule loads at the design configuration (used only to set preloads)."""
    g = G_ACC
    W_load = p.m_load * g
    # loading area between hinge H and support S
    F_S = W_load * (p.x_load - p.x_hinge) / (p.x_support - p.x_hinge)
    F_H = W_load - F_S
    W_cab = p.m_cabin * g
    x1, x2 = p.x_cabin_mounts
    F_c2 = W_cab * (p.x_cabin - x1) / (x2 - x1)
    F_c1 = W_cab - F_c2
    W_s = (p.m_chassis + p.m_cabin + p.m_load) * g
    x_s = (p.m_cabin * p.x_cabin + p.m_load * p.x_load) / (p.m_chassis + p.m_cabin + p.m_load)
    F_front = W_s * (x_s - p.x_rear) / (p.x_front - p.x_rear)
    F_rear = W_s - F_front
    return dict(F_S=F_S, F_H=F_H, F_c1=F_c1, F_c2=F_c2, F_rear=F_rear, F_front=F_front)


def _elements(p: TruckParams, with_hinge: bool) -> tuple[np.ndarray, list[str]]:
    """Element table: one row per force element (columns E_*)."""
    L = _static_loads(p)
    rows, names = [], []
    damp = 1.0 if p.dampers else 0.0

    def add(name, law, axis, bA, pA, bB, pB, k=0.0, d=0.0, l0=0.0, A=0.0, Vs=0.0, stiff=1):
        r = np.zeros(16)
        r[E_LAW], r[E_AXIS] = law, axis
        r[E_BA], r[E_AA], r[E_BBA] = bA, pA[0], pA[1]
        r[E_BB], r[E_AB], r[E_BBB] = bB, pB[0], pB[1]
        r[E_K], r[E_D], r[E_L0], r[E_A], r[E_VS] = k, d * damp, l0, A, Vs
        r[E_KAPPA], r[E_PA], r[E_STIFF] = p.kappa, p.p_atm, stiff
        rows.append(r)
        names.append(name)

    zc = p.z_chassis
    # tyres: road point below the wheel centre (s = z_wheel - u); free length from the preload
    Fr = L["F_rear"] + p.m_rear * G_ACC
    Ff = L["F_front"] + p.m_front * G_ACC
    add("tyre_rear", LAW_LINEAR, 1, ROAD, (0.0, 0.0), REAR, (0.0, 0.0), p.k_tyre_rear,
        p.d_tyre_rear, p.z_wheel + Fr / p.k_tyre_rear)
    add("tyre_front", LAW_LINEAR, 1, ROAD, (0.0, 0.0), FRONT, (0.0, 0.0), p.k_tyre_front,
        p.d_tyre_front, p.z_wheel + Ff / p.k_tyre_front)
    # pneumatic suspension: wheel centre -> chassis point above it; l0 column = design length,
    # k column = static absolute pressure p_s from the lever-rule axle load
    s_des = zc + p.z_susp_chassis - p.z_wheel
    add("susp_rear", LAW_PNEUMATIC, 1, REAR, (0.0, 0.0), CHASSIS, (p.x_rear, p.z_susp_chassis),
        L["F_rear"] / p.area_rear + p.p_atm, p.d_susp_rear, s_des, p.area_rear, p.vol_rear)
    add("susp_front", LAW_PNEUMATIC, 1, FRONT, (0.0, 0.0), CHASSIS,
        (p.x_front, p.z_susp_chassis), L["F_front"] / p.area_front + p.p_atm, p.d_susp_front,
        s_des, p.area_front, p.vol_front)
    # cabin mounts (soft: not in the stiff Jacobian)
    s_cab = p.z_cabin_mount_cabin - p.z_cabin_mount_chassis
    for nm, x, F in (("cabin_rear", p.x_cabin_mounts[0], L["F_c1"]),
                     ("cabin_front", p.x_cabin_mounts[1], L["F_c2"])):
        add(nm, LAW_LINEAR, 1, CHASSIS, (x, p.z_cabin_mount_chassis - zc), CABIN,
            (x - p.x_cabin, p.z_cabin_mount_cabin - p.z_cabin), p.k_cabin, p.d_cabin,
            s_cab + F / p.k_cabin, stiff=0)
    # loading area: front support S, then the hinge springs at H (ODE only)
    s_ld = p.z_load_mount_load - p.z_load_mount_chassis
    pc_S = (p.x_support, p.z_load_mount_chassis - zc)
    pl_S = (p.x_support - p.x_load, p.z_load_mount_load - p.z_load)
    add("load_support", LAW_LINEAR, 1, CHASSIS, pc_S, LOAD, pl_S, p.k_support, p.d_support,
        s_ld + L["F_S"] / p.k_support)
    if with_hinge:
        pc_H, pl_H = hinge_points(p)
        add("hinge_x", LAW_LINEAR, 0, CHASSIS, pc_H, LOAD, pl_H, p.k_hinge, p.d_hinge, 0.0)
        add("hinge_z", LAW_LINEAR, 1, CHASSIS, pc_H, LOAD, pl_H, p.k_hinge, p.d_hinge,
            s_ld + L["F_H"] / p.k_hinge)
    return np.array(rows), names


def hinge_points(p: TruckParams):
    """Hinge H on the chassis and on the loading area, relative to each CoM (design)."""
    pc_H = (p.x_hinge, p.z_load_mount_chassis - p.z_chassis)
    pl_H = (p.x_hinge - p.x_load, p.z_load_mount_load - p.z_load)
    return pc_H, pl_H


def _road_params(p: TruckParams) -> np.ndarray:
    kinds = {"flat": ROAD_FLAT, "bumps": ROAD_BUMPS, "sine": ROAD_SINE}
    if p.road not in kinds:
        raise ModelError("truck.road", f"unknown road '{p.road}' (expected one of: "
                         f"{', '.join(kinds)})")
    nb = len(p.bump_times)
    r = np.zeros(R_XI0 + max(nb, 1))
    r[R_TYPE] = kinds[p.road]
    r[R_SPEED] = p.speed
    if p.road == "sine":
        r[R_HEIGHT], r[R_LENGTH] = p.sine_amplitude, p.sine_wavelength
    else:
        r[R_HEIGHT], r[R_LENGTH] = p.bump_height, p.bump_length
    r[R_NB] = nb
    for i, tb in enumerate(p.bump_times):
        r[R_XI0 + i] = p.speed * tb + p.x_front    # road coordinate where bump i starts
    return r


def _road(xi, r):
    """Road height u and slope du/dξ at road coordinate ξ = x + v t (the C provider's road)."""
    return _engine.truck_road(r, float(xi))


def road_profile(p: TruckParams, t):
    """Road height under the rear and front wheel at times ``t`` (for plots and docs)."""
    r = _road_params(p)
    t = np.atleast_1d(np.asarray(t, float))
    out = np.zeros((t.size, 2))
    for k, tk in enumerate(t):
        out[k, 0] = _road(p.x_rear + p.speed * tk, r)[0]
        out[k, 1] = _road(p.x_front + p.speed * tk, r)[0]
    return out


def pack_params(masses, B, E, road, hinge, m) -> np.ndarray:
    """The nonlinear truck's parameter vector for the C provider (engine/providers/truck.h):
    [m, ne, nroad, masses, body table, hinge points, road, element table]."""
    return np.concatenate([[float(m), float(E.shape[0]), float(road.size)], masses, B.ravel(),
                           hinge, road, E.ravel()])


def pack_linear_params(masses, q_eq, K, D, Ks, Ds, x_wheel, kt, dt, hinge, road) -> np.ndarray:
    """The linearised truck's parameter vector (engine/providers/truck.h): [nroad, masses, q_eq,
    K, D, K_stiff, D_stiff, x of the rear and front wheel, tyre stiffnesses, tyre dampings,
    hinge points (for the outputs), road]."""
    return np.concatenate([[float(road.size)], masses, q_eq, K.ravel(), D.ravel(), Ks.ravel(),
                           Ds.ravel(), x_wheel, kt, dt, hinge, road])


class StepData:
    """The operation counters and warnings of the truck's compiled li-euler step (a hand-written
    model has no compiled model's data; ``rtmbs.engine.counters`` and ``warnings`` read these
    two tables as they read a compiled model's ``data``)."""

    def __init__(self):
        self.counter = np.zeros(FIELD_CONSTANTS["RTMBS_COUNTSLOTS"])
        self.warning = np.zeros((FIELD_CONSTANTS["RTMBS_WARNSLOTS"], 3))


class _TruckBase(MechanicalSystem):
    n = N
    coordinate_names = COORDINATE_NAMES
    output_names = OUTPUT_NAMES
    #: M is constant (diagonal): solvers may factor it once.
    constant_mass = True
    #: the outputs a compiled rollout takes (indices into ``output_names``)
    output_index = np.arange(len(OUTPUT_NAMES), dtype=np.int64)
    #: the provider code of the engine's truck functions (0 nonlinear, 1 linearised)
    _kind = 0

    def __init__(self, params: TruckParams | None = None):
        self.params = p = params or TruckParams()
        if p.m_load <= 0 or p.m_chassis <= 0:
            raise ModelError("truck.params", "masses must be positive")
        ml = p.m_load + p.m_payload_extra
        self.masses = np.array([p.m_rear, p.m_front, p.m_chassis, p.I_chassis, p.m_cabin,
                                p.I_cabin, ml, ml, p.I_load], float)
        self.B = _bodies(p)
        self.road = _road_params(p)
        pc_H, pl_H = hinge_points(p)
        self.hinge = np.array([pc_H[0], pc_H[1], pl_H[0], pl_H[1]])
        self.q_design = np.array([p.z_wheel, p.z_wheel, p.z_chassis, 0.0, p.z_cabin, 0.0,
                                  p.x_load, p.z_load, 0.0])
        self.data = StepData()

    def compiled_provider(self) -> tuple[int, np.ndarray]:
        """(kind, parameter vector) of the engine's truck provider (engine/providers/truck.h):
        what its compiled li-euler step on dense matrices takes (rtmbs.solvers.li_euler)."""
        return self._kind, self._par

    # -- outputs ---------------------------------------------------------------------
    def outputs(self, t, q, qd, out) -> None:
        """``OUTPUT_NAMES`` at (t, q): the engine's (``rtmbs_truck_outputs``), as its rollout
        takes them."""
        try:
            _engine.truck_outputs(self._kind, self._par, t, q, out)
        except TypeError:                       # a view, another dtype, a list: through a copy
            buf = np.zeros(len(OUTPUT_NAMES))
            _engine.truck_outputs(self._kind, self._par, float(t), np.ascontiguousarray(q, float),
                                  buf)
            out[:] = buf

    def hinge_gap(self, q):
        """g(q) = r_H(load) − r_H(chassis) (the DAE constraint; the hinge spring deflection
        of the ODE)."""
        a, b, al, bl = self.hinge
        c, s = math.cos(q[3]), math.sin(q[3])
        cl, sl = math.cos(q[8]), math.sin(q[8])
        g1 = (q[6] + al * cl - bl * sl) - (a * c - b * s)
        g2 = (q[7] + al * sl + bl * cl) - (q[2] + a * s + b * c)
        return g1, g2

    def initial_state(self) -> State:
        return State(0.0, self.q_eq.copy(), np.zeros(N))

    def energy(self, q, qd) -> float:
        """Kinetic + gravity + spring energy (flat road: the tyre springs see u = 0)."""
        q = np.asarray(q, float)
        qd = np.asarray(qd, float)
        T = 0.5 * float(np.sum(self.masses * qd * qd))
        Vg = G_ACC * float(self.masses[[0, 1, 2, 4, 7]] @ q[[0, 1, 2, 4, 7]])
        Vs = 0.0
        defl = np.zeros(self.E.shape[0])
        _engine.truck_deflections(self._par_flat, 0.0, np.ascontiguousarray(q), defl)
        for e in range(self.E.shape[0]):
            row = self.E[e]
            s = defl[e]
            if int(row[E_LAW]) == LAW_PNEUMATIC:
                A, Vs_, kap, ps, pa = row[E_A], row[E_VS], row[E_KAPPA], row[E_K], row[E_PA]
                V = Vs_ + A * (s - row[E_L0])
                Vs += ps * Vs_ ** kap * V ** (1.0 - kap) / (kap - 1.0) + pa * A * s
            else:
                Vs += 0.5 * row[E_K] * (row[E_L0] - s) ** 2
        return T + Vg + Vs


class _NonlinearTruck(_TruckBase):
    """The nonlinear variants: one kernel, ``self.m`` = 0 (hinge springs) or 2 (hinge constraint)."""

    def _pack(self, road) -> np.ndarray:
        return pack_params(self.masses, self.B, self.E, road, self.hinge, self.m)

    def evaluate(self, t, q, qd, ws, what) -> None:
        try:
            _engine.truck_evaluate(self._par, t, q, qd, what, ws.buf)
        except TypeError:                       # a view or another dtype: copy once
            _engine.truck_evaluate(self._par, float(t), np.ascontiguousarray(q, float),
                                   np.ascontiguousarray(qd, float), int(what), ws.buf)

    def _static_equilibrium(self):
        """Newton (``_newton`` of the variant) on a flat road from the design configuration:
        Q(q, 0, t) = 0, or [Q − Gᵀλ; g] = 0 (protocol sign: M q̈ + Gᵀλ = Q)."""
        self._par_flat = self._pack(_road_params(replace(self.params, road="flat")))
        self._par = self._par_flat
        try:
            return self._newton()
        finally:
            self._par = self._pack(self.road)


class TruckODE(_NonlinearTruck):
    """The unconstrained truck (Truck benchmark eq. 1): loading area on three spring-dampers."""

    m = 0
    name = "truck-ode"

    def __init__(self, params: TruckParams | None = None):
        super().__init__(params)
        self.E, self.element_names = _elements(self.params, with_hinge=True)
        self.q_eq = self._static_equilibrium()

    def _newton(self):
        q = self.q_design.copy()
        zero = np.zeros(N)
        ws = self.workspace()
        for _ in range(50):
            self.evaluate(0.0, q, zero, ws, EVAL_Q | EVAL_JAC)
            dq = np.linalg.solve(ws.Jq, -ws.Q)
            q += dq
            if np.max(np.abs(dq)) < 1e-14 * (1 + np.max(np.abs(q))):
                break
        self.evaluate(0.0, q, zero, ws, EVAL_Q)
        if np.max(np.abs(ws.Q)) > 1e-6:
            raise ModelError("truck.static_equilibrium",
                             f"Newton did not converge (|Q| = {np.max(np.abs(ws.Q)):.3g} N)")
        return q


class TruckDAE(_NonlinearTruck):
    """The constrained truck (Truck benchmark eq. 2): the hinge springs replaced by g(q) = 0 ∈ R²."""

    m = 2
    name = "truck-dae"

    def __init__(self, params: TruckParams | None = None):
        super().__init__(params)
        self.E, self.element_names = _elements(self.params, with_hinge=False)
        self.q_eq, self.lam_eq = self._static_equilibrium()

    def _newton(self):
        q = self.q_design.copy()
        lam = np.zeros(2)
        zero = np.zeros(N)
        ws = self.workspace()
        what = EVAL_Q | EVAL_JAC | EVAL_PHI | EVAL_PHIQ
        for _ in range(200):
            self.evaluate(0.0, q, zero, ws, what)
            # d(Gᵀλ)/dq neglected in the Newton matrix: converges linearly, to the same root
            Kt = np.block([[ws.Jq, -ws.phiq.T], [ws.phiq, np.zeros((2, 2))]])
            r = np.concatenate([ws.Q - ws.phiq.T @ lam, ws.phi])
            dx = np.linalg.solve(Kt, -r)
            q += dx[:N]
            lam += dx[N:]
            if np.max(np.abs(r[:N])) < 1e-9 and np.max(np.abs(r[N:])) < 1e-15:
                break
        self.evaluate(0.0, q, zero, ws, what)
        res = np.max(np.abs(ws.Q - ws.phiq.T @ lam))
        if res > 1e-6:
            raise ModelError("truck.static_equilibrium",
                             f"Newton did not converge (|Q - G^T lambda| = {res:.3g} N)")
        return q, lam


class TruckLinear(_TruckBase):
    """The ODE truck linearised at its static equilibrium (Truck benchmark §4.1):
    K = −∂Q/∂q, D = −∂Q/∂q̇ at (q_eq, 0) from the analytic Jacobians."""

    m = 0
    name = "truck-linear"
    _kind = 1

    def __init__(self, params: TruckParams | None = None):
        super().__init__(params)
        ode = TruckODE(self.params)
        self.E = ode.E
        self.q_eq = ode.q_eq.copy()
        zero = np.zeros(N)
        Jq, Jqd = ode.force_jacobians(self.q_eq, zero, 0.0)
        self.K, self.D = -Jq, -Jqd
        Jq, Jqd = ode.force_jacobians(self.q_eq, zero, 0.0, stiff_only=True)
        self.K_stiff, self.D_stiff = -Jq, -Jqd
        p = self.params
        damp = 1.0 if p.dampers else 0.0
        self.k_tyre = np.array([p.k_tyre_rear, p.k_tyre_front])
        self.d_tyre = np.array([p.d_tyre_rear, p.d_tyre_front]) * damp
        self._par = pack_linear_params(self.masses, self.q_eq, self.K, self.D, self.K_stiff,
                                       self.D_stiff, self.B[[REAR, FRONT], 3], self.k_tyre,
                                       self.d_tyre, self.hinge, self.road)

    def evaluate(self, t, q, qd, ws, what) -> None:
        try:
            _engine.truck_linear_evaluate(self._par, t, q, qd, what, ws.buf)
        except TypeError:                       # a view or another dtype: copy once
            _engine.truck_linear_evaluate(self._par, float(t), np.ascontiguousarray(q, float),
                                          np.ascontiguousarray(qd, float), int(what), ws.buf)

    def energy(self, q, qd) -> float:
        dq = np.asarray(q, float) - self.q_eq
        return 0.5 * float(np.sum(self.masses * qd * qd)) + 0.5 * float(dq @ self.K @ dq)


_VARIANTS = {"ode": TruckODE, "dae": TruckDAE, "linear": TruckLinear}


def truck(variant: str = "ode", params: TruckParams | None = None, **overrides) -> MechanicalSystem:
    """The planar truck of the truck benchmark: ``variant`` is ``"ode"``, ``"dae"`` or ``"linear"``;
    ``overrides`` replace fields of :class:`TruckParams` (e.g. ``road="flat"``)."""
    if variant not in _VARIANTS:
        from ..errors import did_you_mean

        raise ModelError("truck.variant", f"unknown variant '{variant}'"
                         + did_you_mean(variant, _VARIANTS))
    p = params or TruckParams()
    if overrides:
        bad = [k for k in overrides if k not in TruckParams.__dataclass_fields__]
        if bad:
            from ..errors import did_you_mean

            raise ModelError(f"truck.{bad[0]}", "unknown parameter"
                             + did_you_mean(bad[0], TruckParams.__dataclass_fields__))
        p = replace(p, **overrides)
    return _VARIANTS[variant](p)


TRUCK_MODELS = {
    "truck-ode": lambda: truck("ode"),
    "truck-dae": lambda: truck("dae"),
    "truck-linear": lambda: truck("linear"),
}
