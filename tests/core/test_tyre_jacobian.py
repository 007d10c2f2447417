"""The tyre element's Jacobians against central differences of Q in every direction.

A free rim (Euler parameters) carries a tyre at a hub marker off its centre of mass (so the
arm terms count); the tyre's share of Q, Jq, Jq̇ is the system's minus that of the same rim
without the tyre. Every column of q (positions and all four Euler parameters: A is the rotation
of p/|p|, exact in every direction) and of q̇ is perturbed, at states that exercise each part
of the element: drive and brake slip, slip angle, camber, a ramp (β ≠ 0) and a random road
with different tracks (lateral slope), speeds below v_min and below VXLOW, steady-state and
transient tyres (deflections set, with and without the solver's step h). Below v_min the
steady-state tyre's Jacobian takes the Magic Formula's low-speed slip reductions' factor |Vx|
with slope 0 (docs/tyre.md): there it is compared at free rolling without slip angle, where that
term vanishes; ``test_mf_dual_kink_band`` checks the convention itself.

Tolerance: central differences with step 1e-6 err by ~h² Q'''/6 (1e-9 of the largest entry
here) plus rounding ~1e-16 |Q|/h; the road tables are piecewise linear (a step crossing a
sample changes a slope: below 1e-6 relative with the sample spacings used). So: the largest
error of each matrix within 1e-6 of its largest entry, and every entry within 1e-5 of itself
plus 1e-8 of the largest entry.
"""
from __future__ import annotations

import math

import numpy as np
import pytest

from rtmbs.model import Model
from rtmbs.system import compile_model
from rtmbs.vehicle.road import from_spec, road_height_packed

R0 = 0.3943          # UNLOADED_RADIUS of the shipped MF 6.1 file
KZ = 314931.2969     # its VERTICAL_STIFFNESS
ARM = np.array([0.01, -0.02, 0.015])  # hub marker in the rim's frame
Y = {"z_axis": [0, 1, 0]}
ISO_ROAD = {"type": "iso8608", "road_class": "D", "length": 50.0, "seed": 3}


def _rim(tyre: bool, transient: bool, road) -> Model:
    m = Model(name="rim", gravity=(0, 0, -9.81))
    m.add_body("rim", 20.0, inertia=[0.8, 1.2, 0.8], position=(0, 0, R0),
               markers={"hub": {"position": list(ARM), "orientation": Y}})
    if tyre:
        m.add_force("tyre", "tyre", marker_j="rim.hub", tyre="MF61", road=road, transient=transient)
    return m


def _rot(v):
    th = float(np.linalg.norm(v))
    if th == 0.0:
        return np.eye(3)
    k = np.asarray(v, float) / th
    K = np.array([[0, -k[2], k[1]], [k[2], 0, -k[0]], [-k[1], k[0], 0]])
    return np.eye(3) + math.sin(th) * K + (1 - math.cos(th)) * K @ K


def _ep(R):
    """Euler parameters of a rotation matrix (e0 > 0)."""
    e0 = 0.5 * math.sqrt(1.0 + np.trace(R))
    return np.array([e0, (R[2, 1] - R[1, 2]) / (4 * e0), (R[0, 2] - R[2, 0]) / (4 * e0),
                     (R[1, 0] - R[0, 1]) / (4 * e0)])


def _state(x, y, R, v, w, road):
    """q, q̇ of the rim with its hub at (x, y) a loaded radius 12 mm short of R0 above the road
    (about 4 kN), axes R, hub velocity v, angular velocity w (global)."""
    a = R @ ARM
    z = road_height_packed(np.asarray(from_spec(road).packed(), float), x, y)[0] + R0 - 0.012
    hub = np.array([x, y, z])
    p = _ep(R)
    e0, e = p[0], p[1:]
    E = np.column_stack([-e, np.array([[e0, -e[2], e[1]], [e[2], e0, -e[0]], [-e[1], e[0], e0]])])
    q = np.concatenate([hub - a, p])
    qd = np.concatenate([np.asarray(v, float) - np.cross(w, a), 0.5 * E.T @ np.asarray(w, float)])
    return q, qd


V = 15.0
W0 = V / (R0 - 0.004)  # free rolling spin
#: name: (hub x, y, rotation vector of the rim, hub velocity, angular velocity, road)
STATES = {
    "drive slip": (0.0, 0.0, (0, 0, 0), (V, 0, 0), (0, 1.06 * W0, 0), None),
    "brake slip, slip angle": (0.0, 0.0, (0, 0, 0.06), (V, 0.2, 0.05), (0.1, 0.93 * W0, 0.2), None),
    "camber, steer": (0.0, 0.0, (0.07, 0, 0.03), (V, -0.4, 0), (0, W0, 0.3), None),
    "ramp (beta)": (0.0, 0.2, (0.03, 0.01, 0.04), (V, 0.4, 1.0), (0.1, 1.02 * W0, 0.1),
                    {"type": "ramp", "start": -5.0, "slope": 0.1, "length": 20.0}),
    "random road (lateral slope)": (10.0, 0.2, (0.03, 0.01, 0.04), (V, 0.4, 0.3),
                                    (0.1, 1.02 * W0, 0.1), ISO_ROAD),
    "below v_min": (0.0, 0.0, (0.04, 0, -0.02), (0.05, 0.02, 0.01), (0.1, 0.3, 0), None),
    "below VXLOW": (0.0, 0.0, (0.04, 0, -0.02), (0.5, 0.1, 0.01), (0.1, 1.3, 0), None),
    "below v_min, rolling freely": (0.0, 0.0, (0.04, 0, -0.02), None, None, None),
}
#: the states each tyre model is checked at
STEADY = [n for n in STATES if n != "below v_min"]
TRANSIENT = [n for n in STATES if n != "below v_min, rolling freely"]


def _free_rolling(R, speed=0.05):
    """Hub velocity along l (V_y = 0) and the spin of κ = 0 (ω_s = V_x/Re at the load of
    the rim placed as in :func:`_state`) for a rim with axes R."""
    from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk

    sysm = compile_model(_rim(True, False, {"type": "flat"}))
    s = R[:, 1]
    l = np.cross(s, [0, 0, 1.0])
    l /= np.linalg.norm(l)
    q, qd = _state(0.0, 0.0, R, speed * l, np.zeros(3), {"type": "flat"})
    out = np.zeros(len(sysm.output_names))
    sysm.outputs(0.0, q, qd, out)
    Fz = out[list(sysm.output_names).index("tyre.Fz")]
    p = load_tir(data_path("chrono_MagicFormula61_Parameters.tir")).params
    Re = mfk.effective_rolling_radius(p, Fz, 0.0, speed, 0.0)[0]
    return speed * l, speed / Re * s


def _tyre_share(with_tyre, without, q, qd):
    Q = with_tyre.forces(q, qd) - without.forces(q, qd)
    Jq, Jqd = with_tyre.force_jacobians(q, qd)
    Jq0, Jqd0 = without.force_jacobians(q, qd)
    return Q, Jq - Jq0, Jqd - Jqd0


def _central(with_tyre, without, q, qd, h=1e-6):
    n = q.size
    Fq, Fqd = np.empty((n, n)), np.empty((n, n))
    for c in range(n):
        d = np.zeros(n)
        d[c] = h
        Fq[:, c] = (_tyre_share(with_tyre, without, q + d, qd)[0]
                    - _tyre_share(with_tyre, without, q - d, qd)[0]) / (2 * h)
        Fqd[:, c] = (_tyre_share(with_tyre, without, q, qd + d)[0]
                     - _tyre_share(with_tyre, without, q, qd - d)[0]) / (2 * h)
    return Fq, Fqd


def _assert_close(an, fd, what):
    scale = np.abs(fd).max()
    err = np.abs(an - fd)
    worst = np.unravel_index(err.argmax(), err.shape)
    assert err.max() <= 1e-6 * scale, (f"{what}: largest error {err.max():.3e} at {worst} "
                                       f"({err.max() / scale:.2e} of the largest entry {scale:.3e})"
                                       f"\nanalytic\n{an}\ndifferences\n{fd}")
    bad = err > 1e-5 * np.abs(fd) + 1e-8 * scale
    assert not bad.any(), (f"{what}: entries {np.argwhere(bad).tolist()}"
                           f"\nanalytic\n{an}\ndifferences\n{fd}")


@pytest.mark.parametrize("transient,name",
                         [(False, n) for n in STEADY] + [(True, n) for n in TRANSIENT],
                         ids=[f"steady-state {n}" for n in STEADY]
                         + [f"transient {n}" for n in TRANSIENT])
def test_tyre_jacobians_match_central_differences_in_every_direction(name, transient):
    x, y, rv, v, w, road = STATES[name]
    road = road or {"type": "flat"}
    step = 1e-6
    if v is None:
        v, w = _free_rolling(_rot(rv))
        step = 1e-8  # at α = 0 the reduction's α |tan α Vx| is α|α|: its difference errs by O(step)
    sysm = compile_model(_rim(True, transient, road))
    bare = compile_model(_rim(False, transient, road))
    q, qd = _state(x, y, _rot(rv), v, w, road)
    steps = (0.0, 1e-3) if transient else (None,)
    out = np.zeros(len(sysm.output_names))
    sysm.outputs(0.0, q, qd, out)
    Fz = out[list(sysm.output_names).index("tyre.Fz")]
    assert 2000.0 < Fz < 8000.0  # in contact, a car's load
    for h in steps:
        if transient:  # deflections u, v and the solver's step (0: at the current deflections)
            sysm.set_extra([2e-3, -3e-3])
            sysm.set_extra_step(h)
        _, Jq, Jqd = _tyre_share(sysm, bare, q, qd)
        Fq, Fqd = _central(sysm, bare, q, qd, step)
        _assert_close(Jq, Fq, f"{name}, h={h}: Jq")
        _assert_close(Jqd, Fqd, f"{name}, h={h}: Jqd")


MF_FILES = ["chrono_MagicFormula61_Parameters.tir", "chrono_MagicFormula52_Parameters.tir",
            "chrono_Sedan_Pac02Tire.tir"]


@pytest.mark.parametrize("fname", MF_FILES)
def test_mf_dual_partials_of_all_outputs_in_all_inputs(fname):
    """mf_dual's ∂(Fx, Fy, Mz, Mx, My)/∂(Fz, κ, α, γ, Vx) against central differences of
    mf_evaluate at random points (a quarter below VXLOW, a third without the low-speed slip
    reduction), rtol 1e-6 plus 1e-7 of the physical scale (Fz per unit input; 0.1 m Fz for the
    moments), as tests/vehicle/test_tyre_mf_partials.py for the (Fz, κ, α) partials."""
    from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk

    props = load_tir(data_path(fname))
    p = props.params
    rows = [mfk.O_FX, mfk.O_FY, mfk.O_MZ, mfk.O_MX, mfk.O_MY]
    out = np.empty(mfk.N_OUT)

    def full(x, sr):
        mfk.mf_evaluate(p, *x, out, True, sr)
        return out[rows].copy()

    rng = np.random.default_rng(1)
    for i in range(150):
        x = np.array([rng.uniform(500, 8000), rng.uniform(-0.3, 0.3), rng.uniform(-0.3, 0.3),
                      rng.uniform(-0.1, 0.1), rng.uniform(0.5, 40) * rng.choice([-1.0, 1.0])])
        if i % 4 == 0:
            x[4] = rng.uniform(-1, 1) * props["VXLOW"]
        sr = bool(i % 3)
        an = np.array(mfk.mf_dual(p, *x, sr, True))
        np.testing.assert_allclose(an[:, 0], full(x, sr), rtol=1e-12, atol=1e-9)
        steps = np.array([1e-4 * x[0], 1e-7, 1e-7, 1e-7, 1e-7 * max(1.0, abs(x[4]))])
        fd = np.column_stack([(full(x + e, sr) - full(x - e, sr)) / (2 * e.sum())
                              for e in np.diag(steps)])
        scale = np.outer([1, 1, 0.1, 0.1, 0.1], [1.0, x[0], x[0], x[0], x[0]])
        bad = np.abs(an[:, 1:] - fd) > 1e-6 * np.abs(fd) + 1e-7 * scale
        assert not bad.any(), f"{fname} at {x.tolist()}, reduction {sr}:\n{an[:, 1:]}\n{fd}"


@pytest.mark.parametrize("fname", MF_FILES[:2])
def test_relaxation_lengths_and_their_partials(fname):
    """relaxation_lengths_dual: the σκ, σα of mf_steady_state, ∂/∂Fz and ∂σα/∂γ against central
    differences (σκ does not depend on γ)."""
    from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk

    p = load_tir(data_path(fname)).params
    out = np.empty(mfk.N_OUT)

    def sig(Fz, g):
        mfk.mf_steady_state(p, Fz, 0.01, 0.02, g, 10.0, out)
        return np.array([out[mfk.O_SIGK], out[mfk.O_SIGA]])

    for Fz in (300.0, 2000.0, 4000.0, 7000.0):
        for g in (-0.05, 0.03):
            sk, sa = mfk.relaxation_lengths_dual(p, Fz, g)
            np.testing.assert_allclose([sk[0], sa[0]], sig(Fz, g), rtol=1e-13)
            dz = (sig(Fz + 1e-2, g) - sig(Fz - 1e-2, g)) / 2e-2
            dg = (sig(Fz, g + 1e-7) - sig(Fz, g - 1e-7)) / 2e-7
            np.testing.assert_allclose([sk[1], sa[1], sa[4]], [dz[0], dz[1], dg[1]], rtol=1e-6)
            assert sk[4] == 0.0 and dg[0] == 0.0


def test_mf_dual_kink_band():
    """Within ``kink_band`` of Vx = 0 (the tyre element passes v_min) the low-speed reduction
    κ |Vx|/VXLOW is differentiated at fixed κ|Vx|: its Vx partial is that of mf_evaluate with
    κ·|Vx| held (at α = 0, where the α reduction vanishes); outside the band, and for the other
    lanes, the partials are unchanged."""
    from rtmbs.vehicle.tyre import data_path, load_tir, magic_formula as mfk

    p = load_tir(data_path(MF_FILES[0])).params
    out = np.empty(mfk.N_OUT)
    rows = [mfk.O_FX, mfk.O_FY, mfk.O_MZ]

    def f(k, V):
        mfk.mf_evaluate(p, 4000.0, k, 0.0, 0.02, V, out, True)
        return out[rows].copy()

    for V in (0.03, -0.06):
        k = 0.4
        band = np.array(mfk.mf_dual(p, 4000.0, k, 0.0, 0.02, V, True, False, 0.1))[:3]
        exact = np.array(mfk.mf_dual(p, 4000.0, k, 0.0, 0.02, V, True, False, 0.0))[:3]
        e = 1e-7
        held = (f(k * abs(V) / abs(V + e), V + e) - f(k * abs(V) / abs(V - e), V - e)) / (2 * e)
        np.testing.assert_allclose(band[:, 5], held, rtol=1e-6, atol=1e-4)
        np.testing.assert_array_equal(band[:, :5], exact[:, :5])
        assert np.abs(band[0, 5] - exact[0, 5]) > 1e3  # the term left out: Kxk κ sgn(Vx)/VXLOW
    far = np.array(mfk.mf_dual(p, 4000.0, 0.4, 0.0, 0.02, 0.3, True, False, 0.1))
    exact = np.array(mfk.mf_dual(p, 4000.0, 0.4, 0.0, 0.02, 0.3, True, False))
    np.testing.assert_array_equal(far, exact)


def test_sedan_jacobians_match_central_differences_in_every_direction():
    """The whole sedan rolling at 80 km/h (four tyres on their wheels, steering, suspension):
    Jq and Jq̇ against central differences of Q in all 231 columns, within 1e-8 of the largest
    entry (measured 3e-11; before the tyres' orientation terms, 6e-2: ∂Q(wheel y)/∂e3 1.27e5
    against 0)."""
    from rtmbs.manoeuvres.events import sedan_system

    sysm, _ = sedan_system(80 / 3.6)
    st = sysm.initial_state()
    q, qd = st.q.copy(), st.qd.copy()
    Jq, Jqd = sysm.force_jacobians(q, qd)
    n, h = sysm.n, 1e-6
    Fq, Fqd = np.empty((n, n)), np.empty((n, n))
    for c in range(n):
        d = np.zeros(n)
        d[c] = h
        Fq[:, c] = (sysm.forces(q + d, qd) - sysm.forces(q - d, qd)) / (2 * h)
        Fqd[:, c] = (sysm.forces(q, qd + d) - sysm.forces(q, qd - d)) / (2 * h)
    for name, an, fd in (("Jq", Jq, Fq), ("Jqd", Jqd, Fqd)):
        err = np.abs(an - fd)
        worst = np.unravel_index(err.argmax(), err.shape)
        assert err.max() <= 1e-8 * np.abs(fd).max(), (
            f"{name}: {err.max():.3e} at {worst} ({an[worst]:.6g} against {fd[worst]:.6g})")
