"""A random model that uses every joint type, force type and both orientation coordinates."""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from rtmbs.model import Model


def _rot(rng):
    return {"matrix": Rotation.random(random_state=rng.integers(1 << 30)).as_matrix().tolist()}


def random_model(seed=0, nbody=6, rotation="mixed") -> Model:
    rng = np.random.default_rng(seed)
    m = Model(name=f"random-{seed}", gravity=(0.3, -0.2, -9.81))
    m.add_input("drive", "sine", amplitude=2.0, frequency_hz=0.7, phase=0.3, offset=0.5)
    m.add_input("lift", "step", t0=0.0, t1=2.0, **{"from": 0.1, "to": 0.4})
    m.add_input("chan", "channel", value=3.0)
    for b in range(nbody):
        coords = rotation if rotation != "mixed" else ("euler-parameters" if b % 2 == 0 else "euler-angles-zxz")
        J = np.diag(rng.uniform(0.5, 1.0, 3))
        markers = {f"m{k}": {"position": rng.uniform(-0.5, 0.5, 3).tolist(), "orientation": _rot(rng)}
                   for k in range(4)}
        ori = _rot(rng)
        if coords == "euler-angles-zxz":  # keep away from the sin θ = 0 singularity
            ori = {"euler_zxz": [rng.uniform(-3, 3), rng.uniform(0.5, 2.6), rng.uniform(-3, 3)]}
        m.add_body(f"b{b}", float(rng.uniform(0.5, 3)), inertia=J.tolist(),
                   position=rng.uniform(-1, 1, 3).tolist(), orientation=ori,
                   velocity=rng.uniform(-1, 1, 3).tolist(), angular_velocity=rng.uniform(-2, 2, 3).tolist(),
                   markers=markers, orientation_coordinates=coords)
    for k in range(4):
        m.add_marker("ground", f"g{k}", rng.uniform(-1, 1, 3).tolist(), orientation=_rot(rng))
    types = ["spherical", "revolute", "cylindrical", "prismatic", "universal", "fixed", "distance",
             "orientation-lock"]
    for k, t in enumerate(types):
        i, j = rng.choice(nbody + 1, 2, replace=False)
        mi = f"b{i}.m{k % 4}" if i < nbody else f"ground.g{k % 4}"
        mj = f"b{j}.m{(k + 1) % 4}" if j < nbody else f"ground.g{(k + 1) % 4}"
        m.add_joint(f"j_{t}", t, mi, mj, **({"distance": 0.7} if t == "distance" else {}))
    m.add_joint("drv_rot", "motion", "b0.m1", "b1.m2", dof="rotation", function="drive")
    m.add_joint("drv_tr", "motion", "b2.m0", "ground.g1", dof="translation", function="lift")
    m.add_joint("drv_dist", "distance", "b3.m3", "b4.m0", distance=0.5)
    pairs = [(0, 1), (1, 2), (2, 3), (3, 4), (4, 5), (5, 0)]
    for k, (i, j) in enumerate(pairs):
        if k % 3 == 0:
            m.add_force(f"bush{k}", "bushing", marker_i=f"b{i}.m{k % 4}", marker_j=f"b{j}.m{(k + 2) % 4}",
                        stiffness=rng.uniform(1e3, 1e4, 3).tolist(), damping=rng.uniform(10, 100, 3).tolist(),
                        rotational_stiffness=rng.uniform(100, 1000, 3).tolist(),
                        rotational_damping=rng.uniform(1, 10, 3).tolist(),
                        preload_force=[1.0, -2.0, 3.0], preload_torque=[0.5, 0.1, -0.2])
        elif k % 3 == 1:
            m.add_force(f"spring{k}", "spring-damper", marker_i=f"b{i}.m{k % 4}", marker_j=f"b{j}.m{(k + 1) % 4}",
                        stiffness=2e3, damping=30.0, free_length=0.3, preload=10.0)
        else:
            m.add_force(f"table{k}", "spring-damper", marker_i=f"b{i}.m{k % 4}", marker_j=f"b{j}.m{(k + 3) % 4}",
                        force_table={"deflection": [-2, -0.5, 0, 0.5, 2], "force": [-9e3, -1e3, 0, 2e3, 1e4]},
                        damping_table={"velocity": [-5, 0, 5], "force": [-500, 0, 800]}, free_length=0.2)
    m.add_force("stop", "stop", marker_i="b0.m3", marker_j="b5.m1", min_length=5.0, max_length=6.0,
                stiffness=1e5, exponent=1.5, damping=50.0)
    m.add_force("stop2", "stop", marker_i="b1.m3", marker_j="b4.m1", min_length=0.0, max_length=0.01,
                stiffness=1e5, exponent=2.0, damping=20.0)
    m.add_force("f_glob", "force", marker_j="b1.m0", direction=(1, 2, 3), function="drive")
    m.add_force("f_body", "force", marker_j="b2.m1", direction=(0, 1, 1), frame="body", function="chan")
    m.add_force("t_glob", "torque", marker_j="b3.m2", direction=(1, 0, 0), function=4.0)
    m.add_force("t_body", "torque", marker_j="b4.m3", direction=(1, 1, 0), frame="body", function="drive")
    m.add_force("drive_t", "joint-torque", marker_i="b5.m0", marker_j="b0.m2", function="drive")
    m.add_force("brake", "brake", marker_i="b2.m2", marker_j="b3.m1", function=50.0, omega_eps=2.0)
    return m
