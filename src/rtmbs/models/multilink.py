"""Rear-left multilink suspension of a rear-drive passenger car (Carpinelli 2015 §4.1-4.2, Carpinelli 2016 §6.1).

Eleven bodies in Euler parameters (n = 77), in the order of Carpinelli 2015 §4.2.1: upper arm, leading
arm, control arm, trailing arm, lower arm, knuckle, rim, differential outshaft, halfshaft,
chassis, subframe. The chassis only translates (orientation lock + its Euler-parameter row: the
the paper's 4 chassis constraints) and carries a quarter of the sprung mass; the subframe hangs on 4
bushings; the driveline is outshaft–chassis cylindrical (y), outshaft–halfshaft and halfshaft–rim
universal, rim–knuckle revolute (17 equations). Two variants (Carpinelli 2015 Table 4.1):

==================  ======  ======  ======  ==============================================
variant             n       m       f       link connections
==================  ======  ======  ======  ==============================================
``bushings``        77      31      46      10 bushings (5 to the subframe, 5 to the knuckle)
``ideal``           77      66      11      5 universal (subframe) + 5 spherical (knuckle)
==================  ======  ======  ======  ==============================================

The industrial hard points of the paper are not published: the geometry, masses, rates and
dampers below are **a plausible design of ours** (docs/models/multilink.md), not the paper's data.
Vehicle frame ISO 8855: origin on the road under the rear-axle centre, x forward, y left, z up.
"""
from __future__ import annotations

import math

import numpy as np

from ..model.description import Model

G = 9.81
VARIANTS = ("bushings", "ideal")
#: Order of the bodies in q (Carpinelli 2015 §4.2.1).
BODY_ORDER = ("upper_arm", "leading_arm", "control_arm", "trailing_arm", "lower_arm", "knuckle",
              "rim", "outshaft", "halfshaft", "chassis", "subframe")
LINKS = BODY_ORDER[:5]

# -- tyre (read from the shipped MF 6.1 file: UNLOADED_RADIUS, VERTICAL_STIFFNESS/DAMPING) --------
TYRE_FILE = "MF61"
TYRE_RADIUS = 0.3943              # m, UNLOADED_RADIUS
TYRE_KZ = 314931.2969             # N/m, VERTICAL_STIFFNESS
TYRE_CZ = 500.0                   # N s/m, VERTICAL_DAMPING
#: Stand-in tyre (until the ``tyre`` force element exists): a ground-rim bushing at the wheel
#: centre, vertical rate and damping of the file, horizontal carcass-like rates (our choice).
STANDIN_K = (2.0e5, 1.5e5, TYRE_KZ)
STANDIN_C = (3000.0, 3000.0, TYRE_CZ)

# -- masses (kg) and inertias (kg m², about the centre of mass, global axes at design) ------------
MASS = {
    "upper_arm": 1.2, "leading_arm": 1.0, "control_arm": 0.8, "trailing_arm": 2.0,
    "lower_arm": 3.5, "knuckle": 8.0, "rim": 22.0, "outshaft": 1.5, "halfshaft": 4.0,
    "chassis": 360.0, "subframe": 15.0,
}
TOTAL_MASS = sum(MASS.values())
#: Static tyre deflection and design wheel-centre height (car at rest on a flat road).
STATIC_DEFLECTION = TOTAL_MASS * G / TYRE_KZ
WHEEL_CENTRE_Z = TYRE_RADIUS - STATIC_DEFLECTION
#: Static camber (negative: top inboard) and toe-in of the wheel at design, degrees.
CAMBER_DEG = -1.0
TOE_IN_DEG = 0.15

_zw = WHEEL_CENTRE_Z
#: Hard points (m, vehicle frame, design position). Links: (subframe end, knuckle end).
HARD_POINTS = {
    "wheel_centre": (0.0, 0.800, _zw),
    # links                                      inner (subframe)        outer (knuckle)
    "upper_arm": ((-0.020, 0.400, 0.550), (-0.030, 0.700, 0.560)),
    "leading_arm": ((0.300, 0.460, 0.563), (0.060, 0.690, 0.545)),
    "control_arm": ((-0.200, 0.330, 0.409), (-0.160, 0.715, 0.400)),
    "trailing_arm": ((0.360, 0.520, 0.297), (0.100, 0.725, 0.255)),
    "lower_arm": ((-0.020, 0.300, 0.280), (-0.040, 0.735, 0.235)),
    # shock absorber (coil-over): lower arm -> chassis
    "damper_lower": (-0.030, 0.640, 0.250),
    "damper_upper": (-0.060, 0.600, 0.780),
    # subframe mounts (subframe - chassis bushings)
    "subframe_mounts": ((0.380, 0.450, 0.450), (0.380, 0.120, 0.450),
                        (-0.280, 0.450, 0.450), (-0.280, 0.120, 0.450)),
    # driveline: differential output (cylindrical), inner and outer universal joints
    "diff_output": (0.0, 0.150, 0.400),
    "inner_ujoint": (0.0, 0.200, 0.400),
    "outer_ujoint_offset": 0.100,  # inboard of the wheel centre along the spin axis
}
CENTRES = {"knuckle": (0.0, 0.730, _zw + 0.010), "chassis": (-0.050, 0.450, 0.650),
           "subframe": (0.050, 0.300, 0.450), "outshaft": (0.0, 0.175, 0.400)}

# -- force elements -----------------------------------------------------------------------------------
#: Subframe-chassis bushings (each of 4): N/m, N s/m, N m/rad, N m s/rad in vehicle axes.
SUBFRAME_BUSHING = dict(stiffness=(1.5e6, 1.5e6, 0.8e6), damping=(1500.0, 1500.0, 1000.0),
                        rotational_stiffness=(500.0, 500.0, 500.0),
                        rotational_damping=(5.0, 5.0, 5.0))
#: Link bushings (bushings model, 10): marker z along the link; N/m, N s/m, N m/rad, N m s/rad.
LINK_BUSHING = dict(stiffness=(4.0e6, 4.0e6, 8.0e6), damping=(800.0, 800.0, 800.0),
                    rotational_stiffness=(100.0, 100.0, 100.0),
                    rotational_damping=(0.05, 0.05, 0.05))
SPRING_RATE = 55000.0             # N/m (coil spring on the damper line)
DAMPER_RATE = 3500.0              # N s/m (linear damper)
#: Spring force at the design position (compression, N): sets the free length so that the
#: design position is (close to) the static equilibrium (computed once by static_equilibrium of
#: the ideal model; docs/models/multilink.md).
SPRING_PRELOAD = 5033.0
BUMP_TRAVEL = 0.060               # damper compression before the bump stop engages, m
REBOUND_TRAVEL = 0.080            # damper extension before the rebound stop engages, m
STOP = dict(stiffness=5.0e6, exponent=2.0, damping=500.0)  # N/m², -, N s/m


def _unit(v):
    v = np.asarray(v, float)
    return v / np.linalg.norm(v)


def spin_axis() -> np.ndarray:
    """Wheel spin axis at design (points outboard, +y), from static camber and toe-in."""
    g, d = math.radians(CAMBER_DEG), math.radians(TOE_IN_DEG)
    return np.array([math.sin(d) * math.cos(g), math.cos(d) * math.cos(g), -math.sin(g)])


def _rod_inertia(m, a, b, radius):
    """Thin cylinder between a and b (global axes)."""
    u = _unit(np.subtract(b, a))
    L = float(np.linalg.norm(np.subtract(b, a)))
    it = m * (3 * radius ** 2 + L ** 2) / 12.0
    ia = 0.5 * m * radius ** 2
    return (it * (np.eye(3) - np.outer(u, u)) + ia * np.outer(u, u)).round(9).tolist()


def _axis_inertia(i_axis, i_diam, s):
    s = _unit(s)
    return (i_diam * (np.eye(3) - np.outer(s, s)) + i_axis * np.outer(s, s)).round(9).tolist()


def _cross_axes(u):
    """Cross axes of a universal joint on a link of axis u: z_i (subframe) horizontal ⊥ u,
    z_j (link) = u × z_i, so that the link's spin about u is blocked (no redundant row)."""
    u = _unit(u)
    zi = _unit(np.cross(u, (0.0, 0.0, 1.0)))
    zj = _unit(np.cross(u, zi))
    return zi, zj


def _p(v):
    return tuple(round(float(x), 9) for x in v)


#: Tyre used when ``tyre=None``: the ``tyre`` element with the shipped MF 6.1 file.
DEFAULT_TYRE = TYRE_FILE


def multilink_model(variant: str = "ideal", tyre: str | None = None, road: dict | None = None,
                    transient: bool = False) -> Model:
    """The rear-left multilink (description). ``variant``: ``bushings`` or ``ideal``.

    ``tyre`` (the one switch of the tyre model): a property-file name (``"MF61"``, default) or a
    ``.tir`` path for the ``tyre`` force element (Carpinelli 2015 §4.3) on ``road`` (mapping of
    rtmbs.vehicle.road, default ``{type: flat}``; ``transient`` as the element's key); or
    ``"stand-in"``: a ground-rim bushing at the wheel centre acting as a linear tyre spring on
    the flat road z = 0 (no rolling; horizontal carcass-like rates), for tests of the suspension
    alone.
    """
    if variant not in VARIANTS:
        from ..errors import ModelError, did_you_mean

        raise ModelError("variant", f"unknown multilink variant '{variant}'"
                         + did_you_mean(variant, VARIANTS))
    tyre = DEFAULT_TYRE if tyre is None else tyre
    hp = HARD_POINTS
    wc = np.array(hp["wheel_centre"])
    s = spin_axis()
    ex = np.eye(3)[0]
    m = Model(name=f"multilink-{variant}", gravity=(0.0, 0.0, -G),
              description=(f"Rear-left multilink of a rear-drive car, {variant} variant (Carpinelli 2015 "
                           "§4.1-4.2); plausible design, not the paper's data "
                           "(docs/models/multilink.md)"))
    # -- bodies in the paper's order ------------------------------------------------------------
    for ln in LINKS:
        a, b = hp[ln]
        r = 0.018 if ln in ("lower_arm", "trailing_arm") else 0.012
        m.add_body(ln, MASS[ln], inertia=_rod_inertia(MASS[ln], a, b, r),
                   position=_p(0.5 * (np.add(a, b))))
    m.add_body("knuckle", MASS["knuckle"], inertia=[0.08, 0.06, 0.07], position=CENTRES["knuckle"])
    m.add_body("rim", MASS["rim"], inertia=_axis_inertia(1.25, 0.75, s), position=_p(wc))
    uo = wc - hp["outer_ujoint_offset"] * s
    m.add_body("outshaft", MASS["outshaft"], inertia=[0.003, 0.0012, 0.003],
               position=CENTRES["outshaft"])
    u1 = np.array(hp["inner_ujoint"])
    m.add_body("halfshaft", MASS["halfshaft"], inertia=_rod_inertia(MASS["halfshaft"], u1, uo, 0.02),
               position=_p(0.5 * (u1 + uo)))
    m.add_body("chassis", MASS["chassis"], inertia=[120.0, 450.0, 500.0], position=CENTRES["chassis"])
    m.add_body("subframe", MASS["subframe"], inertia=[0.6, 0.4, 0.9], position=CENTRES["subframe"])

    def mk(body, name, pos, z=None, x=None):
        kw = {"frame": "global"}
        if z is not None:
            kw["orientation"] = {"z_axis": _p(z), **({"x_axis": _p(x)} if x is not None else {})}
        m.add_marker(body, name, _p(pos), **kw)
        return f"{body}.{name}"

    # -- links --------------------------------------------------------------------------------------
    for ln in LINKS:
        a, b = (np.array(p) for p in hp[ln])
        u = _unit(b - a)
        if variant == "ideal":
            zi, zj = _cross_axes(u)
            m.add_joint(f"{ln}_inner", "universal", mk("subframe", ln, a, zi), mk(ln, "inner", a, zj))
            m.add_joint(f"{ln}_outer", "spherical", mk(ln, "outer", b), mk("knuckle", ln, b))
        else:
            m.add_force(f"{ln}_inner", "bushing", marker_i=mk("subframe", ln, a, u),
                        marker_j=mk(ln, "inner", a, u), **LINK_BUSHING)
            m.add_force(f"{ln}_outer", "bushing", marker_i=mk(ln, "outer", b, u),
                        marker_j=mk("knuckle", ln, b, u), **LINK_BUSHING)
    # -- driveline (17 equations) -------------------------------------------------------------------
    ey = np.array([0.0, 1.0, 0.0])
    dc = np.array(hp["diff_output"])
    h = _unit(uo - u1)
    m.add_joint("diff_cylindrical", "cylindrical", mk("chassis", "diff", dc, ey, ex),
                mk("outshaft", "diff", dc, ey, ex))
    # Cardan crosses: both yokes of the halfshaft along x (in phase), the outshaft's and the
    # rim's crosses normal to them and to their own spin axes
    yoke = _unit(ex - h * (ex @ h))
    m.add_joint("inner_ujoint", "universal", mk("outshaft", "ujoint", u1, _unit(np.cross(ey, yoke))),
                mk("halfshaft", "inner", u1, yoke))
    m.add_joint("outer_ujoint", "universal", mk("halfshaft", "outer", uo, yoke),
                mk("rim", "ujoint", uo, _unit(np.cross(s, yoke))))
    m.add_joint("wheel_bearing", "revolute", mk("knuckle", "spindle", wc, s, ex),
                mk("rim", "hub", wc, s, ex))
    # -- chassis: translation only --------------------------------------------------------------
    m.add_joint("chassis_lock", "orientation-lock", "ground.origin", "chassis.cm")
    m.add_marker("ground", "origin", (0.0, 0.0, 0.0))
    # -- subframe mounts ------------------------------------------------------------------------------
    for k, p in enumerate(hp["subframe_mounts"], start=1):
        m.add_force(f"subframe_mount_{k}", "bushing", marker_i=mk("chassis", f"mount_{k}", p),
                    marker_j=mk("subframe", f"mount_{k}", p), **SUBFRAME_BUSHING)
    # -- shock absorber: coil spring + damper + bump/rebound stop, chassis -> lower arm ------------
    dl, du = np.array(hp["damper_lower"]), np.array(hp["damper_upper"])
    L = float(np.linalg.norm(du - dl))
    ci, cj = mk("chassis", "damper", du), mk("lower_arm", "damper", dl)
    m.add_force("spring", "spring-damper", marker_i=ci, marker_j=cj, stiffness=SPRING_RATE,
                damping=0.0, free_length=round(L + SPRING_PRELOAD / SPRING_RATE, 9))
    m.add_force("damper", "spring-damper", marker_i=ci, marker_j=cj, stiffness=0.0,
                damping=DAMPER_RATE)
    m.add_force("stops", "stop", marker_i=ci, marker_j=cj, min_length=round(L - BUMP_TRAVEL, 9),
                max_length=round(L + REBOUND_TRAVEL, 9), **STOP)
    # -- driveline loads ---------------------------------------------------------------------------------
    add_drive_and_brake(m, ("chassis.diff", "outshaft.diff"), ("knuckle.spindle", "rim.hub"))
    # -- tyre ----------------------------------------------------------------------------------------
    _add_tyre(m, tyre, road, transient, wc, s, ex)
    return m


def add_drive_and_brake(m: Model, drive: tuple[str, str], brake: tuple[str, str]) -> None:
    """A driven and braked wheel: the input channels ``drive_torque`` and ``brake_torque`` (0 at
    the start), a joint torque ``drive`` = drive_torque between the markers ``drive`` (i, j) and a
    brake ``brake`` of torque brake_torque between the markers ``brake`` (i, j)."""
    m.add_input("drive_torque", "channel", value=0.0)
    m.add_input("brake_torque", "channel", value=0.0)
    m.add_force("drive", "joint-torque", marker_i=drive[0], marker_j=drive[1],
                function="drive_torque")
    m.add_force("brake", "brake", marker_i=brake[0], marker_j=brake[1], function="brake_torque")


def _add_tyre(m: Model, tyre: str, road, transient, wc, s, ex):
    """The one place that chooses the tyre element."""
    if tyre == "stand-in":
        if road and road.get("type", "flat") != "flat":
            from ..errors import ModelError

            raise ModelError("road", f"the stand-in tyre runs on the flat road z = 0 only, got "
                             f"type '{road.get('type')}' (use tyre='{TYRE_FILE}')")
        # linear tyre spring at the wheel centre: preload = weight at the design deflection
        m.add_marker("ground", "contact", _p(wc))
        m.add_marker("rim", "tyre", _p(wc), frame="global")
        m.add_force("tyre", "bushing", marker_i="ground.contact", marker_j="rim.tyre",
                    stiffness=STANDIN_K, damping=STANDIN_C,
                    preload_force=(0.0, 0.0, round(TYRE_KZ * STATIC_DEFLECTION, 9)))
        return
    m.add_marker("knuckle", "wheel", _p(wc), frame="global",
                 orientation={"z_axis": _p(s), "x_axis": _p(ex)})
    m.add_marker("rim", "wheel", _p(wc), frame="global",
                 orientation={"z_axis": _p(s), "x_axis": _p(ex)})
    m.add_force("tyre", "tyre", marker_i="knuckle.wheel", marker_j="rim.wheel", tyre=tyre,
                road=road or {"type": "flat"}, transient=bool(transient))


def wheel_travel(system, travel, q=None) -> dict:
    """Kinematics of the ideal-joints model at a wheel-centre travel (m, + = bump) relative to
    the chassis and subframe held at their design poses: camber and toe-in (degrees, ISO 8855,
    left wheel), wheel-centre lateral position (m) and shock-absorber length (m).

    Offline: Newton with the minimum-norm correction on Φ(q) = 0 plus the rows chassis (x, y, z),
    subframe (x, y, z, e1, e2, e3) = design and rim z = design + travel (the rim spin stays free).
    """
    from ..model.rotation import matrix_from_quaternion
    from ..protocol import EVAL_PHI, EVAL_PHIQ

    q0 = system.initial_state().q if q is None else np.asarray(q, float)
    q = q0.copy()
    ia = system.body_index
    fixed = [system.body_qadr[ia["chassis"]] + c for c in range(3)]
    fixed += [system.body_qadr[ia["subframe"]] + c for c in (0, 1, 2, 4, 5, 6)]
    rz = system.body_qadr[ia["rim"]] + 2
    rows = fixed + [rz]
    target = q0[rows].copy()
    target[-1] += travel
    E = np.zeros((len(rows), system.n))
    E[np.arange(len(rows)), rows] = 1.0
    ws = system.workspace()
    zero = np.zeros(system.n)
    for _ in range(30):
        system.evaluate(0.0, q, zero, ws, EVAL_PHI | EVAL_PHIQ)
        r = np.concatenate([ws.phi, q[rows] - target])
        if np.abs(r).max() < 1e-12:
            break
        q -= np.linalg.lstsq(np.vstack([ws.phiq, E]), r, rcond=None)[0]
    else:
        from ..errors import AssemblyError

        raise AssemblyError(f"wheel travel {travel} m: the linkage does not reach it "
                            f"(residual {np.abs(r).max():.3g})")
    k = system.body_qadr[ia["knuckle"]]
    A = matrix_from_quaternion(q[k + 3:k + 7])
    A0 = matrix_from_quaternion(q0[k + 3:k + 7])
    s = A @ A0.T @ spin_axis()
    mi = system.markers["chassis.damper"]
    mj = system.markers["lower_arm.damper"]

    def point(body, ref):
        a = system.body_qadr[ia[body]]
        return q[a:a + 3] + matrix_from_quaternion(q[a + 3:a + 7]) @ ref.s

    return {"camber_deg": math.degrees(math.asin(-s[2])),
            "toe_in_deg": math.degrees(math.atan2(s[0], s[1])),
            "wheel_y": float(q[rz - 1]),
            "damper_length": float(np.linalg.norm(point("chassis", mi) - point("lower_arm", mj))),
            "q": q}


def build(variant: str = "ideal", **kw):
    """The compiled system (``rtmbs info multilink-ideal``)."""
    from ..system import compile_model

    return compile_model(multilink_model(variant, **kw))
