"""The subsystem-synthesis tests' models: the SLA quarter car as a Cartesian model (to build
synthesis systems from), the same car with a mirrored second corner, random synthesis states, and
the Cartesian model's body accelerations from the index-1 (KKT) equations."""
import numpy as np

from _models.kkt import accelerations
from rtmbs.model import load_model_file
from rtmbs.models import model_file
from rtmbs.system import compile_model


def sla_model():
    return load_model_file(model_file("sla-quarter-car"))


def cartesian_accelerations(cart, q, qd, t=0.0):
    """{body: (r̈, ω̇ global)} of the Cartesian model from [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ]."""
    qdd, _ = accelerations(cart, t, q, qd)
    out = {}
    for b, name in enumerate(cart.body_names):
        a = cart.body_qadr[b]
        e0, e1, e2, e3 = q[a + 3:a + 7]
        E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
        out[name] = (qdd[a:a + 3], 2 * E @ qdd[a + 3:a + 7])
    return out


def cartesian_reference(syn, cart, t, q, qd):
    """The synthesis state (converged in position) carried to the Cartesian model: its
    accelerations {body: (r̈, ω̇)}, after checking Φ = 0 and Φq q̇ = 0 there to 1e-12."""
    syn.terms(t, q, qd, iterations=30)
    qc, qdc = syn.cartesian_state(cart, q, qd)
    assert np.abs(cart.constraints(qc)).max() < 1e-12
    assert np.abs(cart.constraint_jacobian(qc) @ qdc).max() < 1e-12
    return cartesian_accelerations(cart, qc, qdc, t)


def assert_bodies_match(got, ref, rtol=1e-9):
    """Every body's r̈ and ω̇ of ``got`` equal ``ref``'s to ``rtol`` of its scale."""
    for name, (a, w) in ref.items():
        scale = max(1.0, np.abs(a).max(), np.abs(w).max())
        assert np.abs(got[name][0] - a).max() < rtol * scale, name
        assert np.abs(got[name][1] - w).max() < rtol * scale, name


def compiled(model):
    return compile_model(model)


def random_states(rng, k):
    """k random consistent synthesis states (chassis displacement, LCA angle and their rates)."""
    return [(np.array([rng.uniform(-0.05, 0.05), rng.uniform(-0.15, 0.15)]),
             rng.normal(size=2) * [0.5, 3.0]) for _ in range(k)]


def two_corner_model():
    """The SLA quarter car plus its mirror image (y → −y, bodies suffixed ``_r``) on the same
    chassis: two subsystems on one base (a front axle without anti-roll bar, chassis on the
    vertical slide)."""
    import copy

    m = sla_model()
    M = np.diag([1.0, -1.0, 1.0])

    def mirror_vec(v):
        return tuple(M @ np.asarray(v, float))

    def mirror_marker(mk):
        mk = copy.deepcopy(mk)
        mk.position = mirror_vec(mk.position)
        if mk.orientation is not None and mk.orientation.z_axis is not None:
            mk.orientation.z_axis = mirror_vec(mk.orientation.z_axis)
        return mk

    chassis = m.body("chassis")
    names = [b.name for b in m.bodies if b.name != "chassis"]
    for mk in list(chassis.markers):
        new = mirror_marker(mk)
        new.name = mk.name + "_r"
        chassis.markers.append(new)
    for nm in names:
        b = copy.deepcopy(m.body(nm))
        b.name = nm + "_r"
        b.position = mirror_vec(b.position)
        J = np.asarray(b.inertia, float)
        b.inertia = (M @ J @ M).tolist()
        b.markers = [mirror_marker(mk) for mk in b.markers]
        m.bodies.append(b)
    gmk = [mk for mk in m.ground.markers if mk.name == "tyre_ground"][0]
    new = mirror_marker(gmk)
    new.name = "tyre_ground_r"
    m.ground.markers.append(new)

    def ren(ref):
        body, mk = ref.split(".")
        if body == "ground":
            return f"ground.{mk}_r"
        if body == "chassis":
            return f"chassis.{mk}_r"
        return f"{body}_r.{mk}"

    for j in list(m.joints):
        if j.name == "chassis_slide":
            continue
        jr = copy.deepcopy(j)
        jr.name, jr.marker_i, jr.marker_j = j.name + "_r", ren(j.marker_i), ren(j.marker_j)
        m.joints.append(jr)
    for f in list(m.forces):
        fr = copy.deepcopy(f)
        fr.name = f.name + "_r"
        if f.marker_i:
            fr.marker_i = ren(f.marker_i)
        fr.marker_j = ren(f.marker_j)
        m.forces.append(fr)
    return m
