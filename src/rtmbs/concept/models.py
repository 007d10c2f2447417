"""Concept models of Carpinelli 2015 §5 as model descriptions (:class:`rtmbs.model.Model`) for
:func:`rtmbs.system.compile_model` (docs/concept.md).

==============================  ====  ====  ====  ==========================================
model                           n     m     f     bodies / constraints
==============================  ====  ====  ====  ==========================================
``quarter_car_model``           21    16    5     chassis (translates), trailing arm, rim
                                                  (Fig. 5.5)
``trailing_arm_car_model``      63    51    12    sprung mass (x, z, roll, pitch), 4 arms,
                                                  4 rims (Fig. 5.13)
``ride_model_7dof``             35    28    7     sprung mass (bounce, roll, pitch), 4
                                                  unsprung masses on prismatic joints
``identification_model``        35    31    4     sprung mass + 4 arms, wheel-centre heights
                                                  driven (§5.2.2; m = 29, f = 6 with
                                                  ``lock_y_yaw=False``)
==============================  ====  ====  ====  ==========================================

Design parameters of a trailing-arm corner (§5.1.2): ``d`` and ``e``, the instant centre's
longitudinal and vertical offsets from the unsprung centre of mass (+x forward for a rear
corner, rearward for a front one; +z up), ``K``, ``L0``, ``C``: the rate, free length and
damping of the spring-damper between the arm (at the wheel centre) and the sprung mass (a point
``SPRING_LENGTH`` above it). The spring acts at the wheel centre, so ``K`` and ``C`` are wheel
rates. The instant centre does not move with travel (the paper's assumption).

Masses of the quarter car from ``multilink-ideal`` (seed: "links' masses split equally between
sprung and unsprung"): sprung = chassis + subframe + outshaft + ½ links + ½ halfshaft; arm =
knuckle + ½ links (at their outer ends) + ½ halfshaft (at the outer joint); rim = rim. The tyre
(MF 6.1 file) and the road are those of the detailed model.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..errors import ModelError, did_you_mean
from ..model.description import Model
from ..models import multilink as ml

G = ml.G
#: Design length of the concept spring-damper (wheel centre to its sprung-mass end), m.
SPRING_LENGTH = 0.35
TYRE = ml.TYRE_FILE
TYRE_RADIUS = ml.TYRE_RADIUS
TYRE_KZ = ml.TYRE_KZ
QUARTER_PARAMS = ("d_r", "e_r", "K_r", "L0_r", "C_r")


# -- masses from the detailed model -----------------------------------------------------------------
@dataclass(frozen=True)
class CornerMasses:
    """Sprung, arm and rim masses [kg], arm centre of mass (x, y, z) [m] and inertias [kg m²]."""

    sprung: float
    arm: float
    arm_cg: tuple
    arm_inertia: tuple
    rim: float
    rim_inertia: tuple


def detailed_masses() -> CornerMasses:
    """The quarter car's masses from ``multilink-ideal`` (module docstring)."""
    M = ml.MASS
    links = ml.LINKS
    half_links = 0.5 * sum(M[k] for k in links)
    sprung = M["chassis"] + M["subframe"] + M["outshaft"] + half_links + 0.5 * M["halfshaft"]
    wc = np.array(ml.HARD_POINTS["wheel_centre"])
    uo = wc - ml.HARD_POINTS["outer_ujoint_offset"] * ml.spin_axis()
    parts = [(M["knuckle"], np.array(ml.CENTRES["knuckle"]))]
    parts += [(0.5 * M[k], np.array(ml.HARD_POINTS[k][1])) for k in links]
    parts += [(0.5 * M["halfshaft"], uo)]
    m_arm = sum(p[0] for p in parts)
    cg = sum(p[0] * p[1] for p in parts) / m_arm
    J = np.diag([0.08, 0.06, 0.07])  # the knuckle's, plus the point masses about the arm's CG
    for mass, p in parts:
        r = p - cg
        J = J + mass * (r @ r * np.eye(3) - np.outer(r, r))
    return CornerMasses(sprung=sprung, arm=m_arm, arm_cg=tuple(float(x) for x in np.round(cg, 9)),
                        arm_inertia=tuple(float(x) for x in np.round(np.diag(J), 9)),
                        rim=M["rim"], rim_inertia=(0.75, 1.25, 0.75))


def _check_params(params: dict | None, defaults: dict, where: str) -> dict:
    """``defaults`` updated by ``params``; an unknown name or a bad value is a ModelError."""
    out = dict(defaults)
    for k, v in (params or {}).items():
        if k not in defaults:
            raise ModelError(f"{where}.{k}", "unknown parameter" + did_you_mean(k, list(defaults)))
        try:
            v = float(v)
        except (TypeError, ValueError):
            raise ModelError(f"{where}.{k}", f"expected a number, got {v!r}") from None
        if not np.isfinite(v):
            raise ModelError(f"{where}.{k}", f"must be finite, got {v}")
        out[k] = v
    for k in ("K", "C", "L0"):
        for name, v in out.items():
            if name.split("_")[0] == k and not v > 0:
                raise ModelError(f"{where}.{name}", f"must be > 0, got {v}")
    return out


def static_spring_force(sprung_load: float, masses: CornerMasses, d: float) -> float:
    """Spring compression [N] holding a corner at rest: moment balance of arm + rim about the
    instant centre with the tyre load under the wheel centre,
    F_s = W_s + m_arm g x_u/(x_u + d) (x_u: arm centre of mass ahead of the wheel centre)."""
    x_u = abs(masses.arm_cg[0] - ml.HARD_POINTS["wheel_centre"][0])
    return sprung_load + masses.arm * G * x_u / (x_u + d)


def quarter_defaults(masses: CornerMasses | None = None) -> dict:
    """Plausible starting design of the quarter car (not identified): IC 0.6 m ahead of and
    0.1 m above the unsprung CG, 30 kN/m, 2 kN s/m, free length for the design ride height."""
    masses = masses or detailed_masses()
    d, K = 0.6, 30000.0
    L0 = SPRING_LENGTH + static_spring_force(masses.sprung * G, masses, d) / K
    return {"d_r": d, "e_r": 0.10, "K_r": K, "L0_r": round(float(L0), 9), "C_r": 2000.0}


def ic_geometry(d: float, e: float, masses: CornerMasses | None = None,
                contact_x: float | None = None) -> dict:
    """The instant centre of a rear corner with parameters (d, e): its position, and e (height
    above the ground) and d (horizontal distance from the contact patch) of eqs. 5.1-5.4."""
    masses = masses or detailed_masses()
    cg = np.array(masses.arm_cg)
    ic = cg + np.array([d, 0.0, e])
    cx = ml.HARD_POINTS["wheel_centre"][0] if contact_x is None else contact_x
    return {"ic": ic, "e": float(ic[2]), "d": float(ic[0] - cx), "r": float(ml.WHEEL_CENTRE_Z)}


def _p(v):
    return tuple(round(float(x), 9) for x in v)


def _add_corner(m: Model, tag: str, sprung: str, wc, ic, masses: CornerMasses, K, C, L0,
                tyre: str, road: dict, transient: bool, arm_cg=None):
    """Arm ``arm_<tag>`` on a revolute (axis y) at ``ic`` to ``sprung``, rim ``rim_<tag>`` on a
    revolute at ``wc``, spring-damper, tyre, brake (arm -> rim)."""
    wc = np.asarray(wc, float)
    cg = wc if arm_cg is None else np.asarray(arm_cg, float)
    ey, ex = (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)
    axes = {"orientation": {"z_axis": ey, "x_axis": ex}, "frame": "global"}
    arm, rim = f"arm_{tag}", f"rim_{tag}"
    m.add_body(arm, masses.arm, inertia=list(masses.arm_inertia), position=tuple(cg))
    m.add_body(rim, masses.rim, inertia=list(masses.rim_inertia), position=tuple(wc))
    m.add_marker(sprung, f"ic_{tag}", _p(ic), **axes)
    m.add_marker(arm, "ic", _p(ic), **axes)
    m.add_joint(f"pivot_{tag}", "revolute", f"{sprung}.ic_{tag}", f"{arm}.ic")
    m.add_marker(arm, "spindle", _p(wc), **axes)
    m.add_marker(rim, "hub", _p(wc), **axes)
    m.add_joint(f"bearing_{tag}", "revolute", f"{arm}.spindle", f"{rim}.hub")
    m.add_marker(sprung, f"spring_{tag}", _p(wc + (0.0, 0.0, SPRING_LENGTH)), frame="global")
    m.add_marker(arm, "spring", _p(wc), frame="global")
    m.add_force(f"spring_{tag}", "spring-damper", marker_i=f"{sprung}.spring_{tag}",
                marker_j=f"{arm}.spring", stiffness=K, damping=C, free_length=L0)
    m.add_marker(sprung, f"drive_{tag}", _p(wc), **axes)
    m.add_marker(arm, "wheel", _p(wc), **axes)
    m.add_marker(rim, "wheel", _p(wc), **axes)
    m.add_force(f"tyre_{tag}", "tyre", marker_i=f"{arm}.wheel", marker_j=f"{rim}.wheel",
                tyre=tyre, road=road or {"type": "flat"}, transient=bool(transient))


def quarter_car_model(params: dict | None = None, road: dict | None = None, tyre: str = TYRE,
                      transient: bool = False) -> Model:
    """The trailing-arm quarter car (Fig. 5.5): n = 21, m = 16, f = 5.

    ``params``: any of d_r, e_r, K_r, L0_r, C_r (defaults :func:`quarter_defaults`). Inputs
    ``drive_torque`` (chassis -> rim, about y: the paper's chassis -> arm -> rim) and
    ``brake_torque`` (arm -> rim), channels like ``multilink-ideal``'s. Chassis body at the
    detailed chassis' centre of mass, so ``chassis.z`` compares directly.
    """
    masses = detailed_masses()
    p = _check_params(params, quarter_defaults(masses), "params")
    wc = np.array(ml.HARD_POINTS["wheel_centre"])
    geo = ic_geometry(p["d_r"], p["e_r"], masses)
    m = Model(name="concept-quarter-car", gravity=(0.0, 0.0, -G),
              description="Trailing-arm quarter car of Carpinelli 2015 Fig. 5.5 (docs/concept.md)")
    m.add_body("chassis", masses.sprung, inertia=[120.0, 450.0, 500.0],
               position=ml.CENTRES["chassis"])
    m.add_marker("ground", "origin", (0.0, 0.0, 0.0))
    m.add_joint("chassis_lock", "orientation-lock", "ground.origin", "chassis.cm")
    _add_corner(m, "rl", "chassis", wc, geo["ic"], masses, p["K_r"], p["C_r"], p["L0_r"], tyre,
                road, transient, arm_cg=masses.arm_cg)
    # the paper's body names: arm and rim
    _rename(m, {"arm_rl": "arm", "rim_rl": "rim", "tyre_rl": "tyre", "spring_rl": "spring"})
    ml.add_drive_and_brake(m, ("chassis.drive_rl", "rim.hub"), ("arm.spindle", "rim.hub"))
    return m


def _rename(m: Model, names: dict):
    """Rename bodies and forces (and the marker references to them)."""
    def ref(s):
        b, _, k = s.partition(".")
        return f"{names.get(b, b)}.{k}" if k else s

    for b in m.bodies:
        b.name = names.get(b.name, b.name)
    for j in m.joints:
        j.marker_i, j.marker_j = ref(j.marker_i), ref(j.marker_j)
    for f in m.forces:
        f.name = names.get(f.name, f.name)
        f.marker_i = ref(f.marker_i) if f.marker_i else f.marker_i
        f.marker_j = ref(f.marker_j) if f.marker_j else f.marker_j


# -- full vehicle ------------------------------------------------------------------------------------
#: Full-car layout (our choice; Carpinelli 2015 §5.2 gives none): wheelbase, track, sprung mass, its
#: CG (x from the rear axle, height) and inertias.
WHEELBASE = 2.70
TRACK = 1.60
SPRUNG_MASS = 1530.0
SPRUNG_CG = (1.35, 0.0, 0.55)
SPRUNG_INERTIA = (500.0, 2100.0, 2300.0)
CORNERS = ("fl", "fr", "rl", "rr")
CAR_PARAMS = ("I_xx", "I_yy", "L0_rl", "L0_rr", "L0_fl", "L0_fr", "K_f", "K_r", "C_f", "C_r",
              "d_f", "e_f", "d_r", "e_r")


@dataclass(frozen=True)
class CarLayout:
    """What the full-car concept models take from the car they stand for (the paper's "assessed
    parameters", §5.2.2): sprung mass, centre of mass and inertias (I_xx, I_yy are identified,
    I_zz is kept), per axle (``"f"``, ``"r"``) the arm and rim masses (:class:`CornerMasses`;
    its ``arm_cg`` unused) and the arm centre of mass as an (x, z) offset from the wheel centre,
    the design wheel centres per corner, the tyre file and the tyre's vertical rate."""

    name: str
    sprung_mass: float
    sprung_cg: tuple
    sprung_inertia: tuple
    axles: dict
    arm_offset: dict
    wheel_centres: dict
    tyre: str = TYRE
    tyre_kz: float = TYRE_KZ

    def static_sprung_loads(self) -> dict:
        """Sprung weight [N] on each corner from the moment balance about the axles."""
        xf = self.wheel_centres["fl"][0]
        xr = self.wheel_centres["rl"][0]
        share_f = (self.sprung_cg[0] - xr) / (xf - xr)
        return {c: 0.5 * (share_f if c[0] == "f" else 1.0 - share_f) * self.sprung_mass * G
                for c in CORNERS}

    @property
    def total_mass(self) -> float:
        return self.sprung_mass + 2.0 * sum(a.arm + a.rim for a in self.axles.values())


def default_layout(masses: CornerMasses | None = None) -> CarLayout:
    """The concept car's own layout (``WHEELBASE``, ``TRACK``, ``SPRUNG_*``, the quarter car's
    corner masses on both axles, wheel centres at the static tyre deflection)."""
    masses = masses or detailed_masses()
    cg0 = np.array(masses.arm_cg) - np.array(ml.HARD_POINTS["wheel_centre"])
    wcs = {}
    for c in CORNERS:
        front = c[0] == "f"
        share = SPRUNG_CG[0] / WHEELBASE if front else 1.0 - SPRUNG_CG[0] / WHEELBASE
        W = 0.5 * share * SPRUNG_MASS * G + (masses.arm + masses.rim) * G
        x = WHEELBASE if front else 0.0
        y = 0.5 * TRACK if c[1] == "l" else -0.5 * TRACK
        wcs[c] = (x, y, TYRE_RADIUS - W / TYRE_KZ)
    return CarLayout(name="concept", sprung_mass=SPRUNG_MASS, sprung_cg=SPRUNG_CG,
                     sprung_inertia=SPRUNG_INERTIA, axles={"f": masses, "r": masses},
                     arm_offset={"f": (-cg0[0], cg0[2]), "r": (cg0[0], cg0[2])},
                     wheel_centres=wcs)


def corner_positions(masses: CornerMasses | None = None, layout: CarLayout | None = None) -> dict:
    """Wheel centres of the four corners and the sprung weight each carries (rear axle at
    x = 0 in the default layout, wheel centres at the static tyre deflection)."""
    layout = layout or default_layout(masses)
    Ws = layout.static_sprung_loads()
    return {c: (np.array(layout.wheel_centres[c], float), Ws[c]) for c in CORNERS}


def car_defaults(masses: CornerMasses | None = None, layout: CarLayout | None = None) -> dict:
    """Plausible starting design of the full trailing-arm car (free lengths for the design
    ride height)."""
    layout = layout or default_layout(masses)
    p = {"I_xx": layout.sprung_inertia[0], "I_yy": layout.sprung_inertia[1], "K_f": 30000.0,
         "K_r": 30000.0, "C_f": 2500.0, "C_r": 2500.0, "d_f": 0.8, "e_f": 0.05, "d_r": 0.6,
         "e_r": 0.10}
    for c, (wc, Ws) in corner_positions(layout=layout).items():
        K = p[f"K_{c[0]}"]
        p[f"L0_{c}"] = round(SPRING_LENGTH + Ws / K, 9)
    return p


def _sprung_body(m: Model, name: str, inertia, layout: CarLayout | None = None):
    """The sprung body; I_zz at most I_xx + I_yy (the triangle inequality: an identified I_xx,
    I_yy may be small; the yaw is held in the full-car models, so I_zz does not act)."""
    layout = layout or default_layout()
    ixx, iyy, izz = (float(v) for v in inertia)
    m.add_body(name, layout.sprung_mass, inertia=[ixx, iyy, min(izz, ixx + iyy)],
               position=tuple(layout.sprung_cg))
    m.add_marker("ground", "origin", (0.0, 0.0, 0.0))


def _lock_y_yaw(m: Model, body: str):
    """Two equations: the sprung CG's y (a translation driver held at 0) and its yaw (the body
    x axis kept in the global xz-plane: a rotation driver held at 0)."""
    m.add_marker("ground", "y_axis", (0.0, 0.0, 0.0), orientation={"z_axis": (0.0, 1.0, 0.0)})
    m.add_marker(body, "cg_lock", (0.0, 0.0, 0.0))
    m.add_joint(f"{body}_y", "motion", "ground.y_axis", f"{body}.cg_lock", dof="translation",
                function=0.0)
    m.add_joint(f"{body}_yaw", "motion", "ground.origin", f"{body}.cg_lock", dof="rotation",
                function=0.0)


def _arm_cg(layout: CarLayout, c: str, wc) -> np.ndarray:
    dx, dz = layout.arm_offset[c[0]]
    return np.asarray(wc, float) + np.array([dx, 0.0, dz])


def _ic(p: dict, c: str, cg) -> np.ndarray:
    """Instant centre of corner ``c``: (d, e) from the arm's centre of mass, ahead of a rear
    wheel and behind a front one for d > 0."""
    a = c[0]
    sgn = -1.0 if a == "f" else 1.0
    return cg + np.array([sgn * p[f"d_{a}"], 0.0, p[f"e_{a}"]])


def trailing_arm_car_model(params: dict | None = None, road: dict | None = None,
                           tyre: str | None = None, transient: bool = False,
                           layout: CarLayout | None = None) -> Model:
    """The 12-DOF full trailing-arm car (Fig. 5.13): n = 63, m = 51, f = 12.

    ``params``: any of :data:`CAR_PARAMS` (defaults :func:`car_defaults`). Inputs
    ``drive_torque`` (per rear wheel, sprung mass -> rim), ``brake_front`` and ``brake_rear``
    (per wheel, arm -> rim). Rear ICs ahead of the wheels, front ICs behind them for d > 0.
    ``layout``: the car's masses and wheel centres (default :func:`default_layout`; the
    sedan's: :func:`rtmbs.concept.table53.sedan_layout`); ``tyre`` overrides its tyre file.
    """
    layout = layout or default_layout()
    p = _check_params(params, car_defaults(layout=layout), "params")
    m = Model(name="concept-trailing-arm-car", gravity=(0.0, 0.0, -G),
              description="12-DOF trailing-arm car of Carpinelli 2015 Fig. 5.13 (docs/concept.md)")
    _sprung_body(m, "body", (p["I_xx"], p["I_yy"], layout.sprung_inertia[2]), layout)
    _lock_y_yaw(m, "body")
    for c, (wc, _) in corner_positions(layout=layout).items():
        a = c[0]
        cg = _arm_cg(layout, c, wc)
        _add_corner(m, c, "body", wc, _ic(p, c, cg), layout.axles[a], p[f"K_{a}"], p[f"C_{a}"],
                    p[f"L0_{c}"], tyre or layout.tyre, road, transient, arm_cg=cg)
    m.add_input("drive_torque", "channel", value=0.0)
    m.add_input("brake_front", "channel", value=0.0)
    m.add_input("brake_rear", "channel", value=0.0)
    for c in CORNERS:
        if c[0] == "r":
            m.add_force(f"drive_{c}", "joint-torque", marker_i=f"body.drive_{c}",
                        marker_j=f"rim_{c}.hub", function="drive_torque")
        m.add_force(f"brake_{c}", "brake", marker_i=f"arm_{c}.spindle", marker_j=f"rim_{c}.hub",
                    function="brake_front" if c[0] == "f" else "brake_rear")
    return m


def ride_model_7dof(K: float = 30000.0, C: float = 2500.0, tyre_rate: float = TYRE_KZ,
                    tyre_damping: float = 500.0) -> Model:
    """The classic 7-DOF ride model: sprung mass (bounce, roll, pitch; x, y, yaw held) and four
    unsprung masses on vertical prismatic joints, linear tyre springs to the flat ground:
    n = 35, m = 28, f = 7. It carries no anti-features (the paper's point, §5.2.1)."""
    masses = detailed_masses()
    m = Model(name="concept-ride-7dof", gravity=(0.0, 0.0, -G),
              description="Classic 7-DOF ride model (docs/concept.md)")
    _sprung_body(m, "body", SPRUNG_INERTIA)
    _lock_y_yaw(m, "body")
    m.add_marker("ground", "x_axis", (0.0, 0.0, 0.0), orientation={"z_axis": (1.0, 0.0, 0.0)})
    m.add_joint("body_x", "motion", "ground.x_axis", "body.cg_lock", dof="translation",
                function=0.0)
    mu = masses.arm + masses.rim
    for c, (wc, Ws) in corner_positions(masses).items():
        u = f"wheel_{c}"
        m.add_body(u, mu, inertia=[1.0, 1.5, 1.0], position=tuple(wc))
        vert = {"orientation": {"z_axis": (0.0, 0.0, 1.0), "x_axis": (1.0, 0.0, 0.0)},
                "frame": "global"}
        m.add_marker("body", f"slide_{c}", tuple(wc), **vert)
        m.add_marker(u, "slide", tuple(wc), **vert)
        m.add_joint(f"slide_{c}", "prismatic", f"body.slide_{c}", f"{u}.slide")
        m.add_marker("body", f"spring_{c}", tuple(wc + (0.0, 0.0, SPRING_LENGTH)), frame="global")
        m.add_marker(u, "spring", tuple(wc), frame="global")
        m.add_force(f"spring_{c}", "spring-damper", marker_i=f"body.spring_{c}",
                    marker_j=f"{u}.spring", stiffness=K, damping=C,
                    free_length=round(SPRING_LENGTH + Ws / K, 9))
        ground = (wc[0], wc[1], wc[2] - TYRE_RADIUS)
        m.add_marker("ground", f"contact_{c}", ground)
        m.add_force(f"tyre_{c}", "spring-damper", marker_i=f"ground.contact_{c}",
                    marker_j=f"{u}.spring", stiffness=tyre_rate, damping=tyre_damping,
                    free_length=TYRE_RADIUS)
    return m


def identification_model(params: dict | None = None, wheel_z: dict | None = None,
                         lock_y_yaw: bool = True, layout: CarLayout | None = None) -> Model:
    """The 5-body identification model of §5.2.2: sprung mass + 4 arms (no rims, no tyres), the
    wheel-centre heights driven (``motion`` joints, ground -> arm at the wheel centre, inputs
    ``z_wc_<corner>``: channels, or functions given in ``wheel_z``): n = 35, m = 29, f = 6;
    with ``lock_y_yaw`` m = 31, f = 4. Longitudinal forces (eqs. 5.6-5.10) enter as inputs
    ``Fx_<corner>`` (global x, at the contact point under the wheel centre) and the drive
    torques as ``drive_torque`` (sprung mass -> rear arms, eq. 5.8). ``layout`` as for
    :func:`trailing_arm_car_model`."""
    layout = layout or default_layout()
    p = _check_params(params, car_defaults(layout=layout), "params")
    m = Model(name="concept-identification", gravity=(0.0, 0.0, -G),
              description="5-body identification model of Carpinelli 2015 §5.2.2 (docs/concept.md)")
    _sprung_body(m, "body", (p["I_xx"], p["I_yy"], layout.sprung_inertia[2]), layout)
    if lock_y_yaw:
        _lock_y_yaw(m, "body")
    ey, ex = (0.0, 1.0, 0.0), (1.0, 0.0, 0.0)
    axes = {"orientation": {"z_axis": ey, "x_axis": ex}, "frame": "global"}
    up = {"orientation": {"z_axis": (0.0, 0.0, 1.0), "x_axis": ex}}
    m.add_input("drive_torque", "channel", value=0.0)
    for c, (wc, _) in corner_positions(layout=layout).items():
        a = c[0]
        cg = _arm_cg(layout, c, wc)
        ic = _ic(p, c, cg)
        arm = f"arm_{c}"
        masses = layout.axles[a]
        m.add_body(arm, masses.arm + masses.rim, inertia=list(masses.arm_inertia),
                   position=tuple(cg))
        m.add_marker("body", f"ic_{c}", tuple(ic), **axes)
        m.add_marker(arm, "ic", tuple(ic), **axes)
        m.add_joint(f"pivot_{c}", "revolute", f"body.ic_{c}", f"{arm}.ic")
        m.add_marker(arm, "wc", tuple(wc), **up, frame="global")
        m.add_marker("ground", f"wc_{c}", (float(wc[0]), float(wc[1]), 0.0), **up)
        fn = (wheel_z or {}).get(c)
        if fn is None:
            m.add_input(f"z_wc_{c}", "channel", value=float(wc[2]))
            fn = f"z_wc_{c}"
        m.add_joint(f"wc_driver_{c}", "motion", f"ground.wc_{c}", f"{arm}.wc", dof="translation",
                    function=fn)
        m.add_marker("body", f"spring_{c}", tuple(wc + (0.0, 0.0, SPRING_LENGTH)), frame="global")
        m.add_force(f"spring_{c}", "spring-damper", marker_i=f"body.spring_{c}",
                    marker_j=f"{arm}.wc", stiffness=p[f"K_{a}"], damping=p[f"C_{a}"],
                    free_length=p[f"L0_{c}"])
        # the longitudinal force acts at the contact point (below the wheel centre by the loaded
        # radius): with the drive torque body -> arm (eq. 5.8) the arm then carries what the
        # rim and tyre pass to it in the full model
        m.add_marker(arm, "contact", (float(wc[0]), float(wc[1]), 0.0), frame="global")
        m.add_input(f"Fx_{c}", "channel", value=0.0)
        m.add_force(f"Fx_{c}", "force", marker_j=f"{arm}.contact", direction=(1.0, 0.0, 0.0),
                    function=f"Fx_{c}")
        if a == "r":
            m.add_marker("body", f"drive_{c}", tuple(wc), **axes)
            m.add_marker(arm, "drive", tuple(wc), **axes)
            m.add_force(f"drive_{c}", "joint-torque", marker_i=f"body.drive_{c}",
                        marker_j=f"{arm}.drive", function="drive_torque")
    return m


MODELS = {"concept-quarter-car": quarter_car_model,
          "concept-trailing-arm-car": trailing_arm_car_model,
          "concept-ride-7dof": ride_model_7dof,
          "concept-identification": identification_model}


def detailed_side_view_ic(travel: float = 0.01) -> dict:
    """Side-view instant centre of ``multilink-ideal``'s knuckle from its kinematics (wheel travel
    ±``travel`` about design, chassis held): d = 1/(dθ/dz) (θ the knuckle pitch about +y, d
    signed, + ahead), e = r − (dx/dz) d (dx/dz the wheel-centre path); the equivalent trailing
    arm's anti-squat (e − r)/d and anti-lift e/d (eqs. 5.1-5.2) and its (d_r, e_r) for
    :func:`quarter_car_model`."""
    from ..model.rotation import matrix_from_quaternion
    from ..system import compile_model

    s = compile_model(ml.multilink_model("ideal", tyre="stand-in"))
    ia = s.body_index

    def pose(dz):
        q = ml.wheel_travel(s, dz)["q"]
        r, k = s.body_qadr[ia["rim"]], s.body_qadr[ia["knuckle"]]
        A = matrix_from_quaternion(q[k + 3:k + 7])
        return q[r], q[r + 2], float(np.arctan2(A[0, 2], A[2, 2]))

    (xp, zp, pp), (xm, zm, pm) = pose(travel), pose(-travel)
    dxdz, dpdz = (xp - xm) / (zp - zm), (pp - pm) / (zp - zm)
    # a point rotating by θ about y around the IC (x_ic, z_ic): dz = θ x_ic, dx = θ (r − z_ic)
    d = 1.0 / dpdz                      # signed: < 0 behind the wheel centre
    r = float(ml.WHEEL_CENTRE_Z)
    e = r - dxdz * d
    mm = detailed_masses()
    wc = ml.HARD_POINTS["wheel_centre"]
    return {"d": float(d), "e": float(e), "r": r, "anti_squat": float((e - r) / d),
            "anti_lift": float(e / d), "dx_dz": float(dxdz), "dpitch_dz": float(dpdz),
            "d_r": float(d + wc[0] - mm.arm_cg[0]), "e_r": float(e - mm.arm_cg[2])}
