"""The peer mechanisms in MuJoCo: minimal coordinates (a kinematic tree), loops closed by
`connect` equalities (soft, MuJoCo's default solref/solimp), springs as spatial tendons
(stiffness, damping, springlength = free length), integrator Euler, h = 1 ms, contacts off.

Every body frame sits at its tree joint with the world's axes at t = 0, so qpos = qpos0 is the
t = 0 state and the inertia is the full tensor of the rtmbs model (``fullinertia``).
"""
from __future__ import annotations

import numpy as np

# (body, parent, joint type, joint point "body.marker", axis) per mechanism; the joint point is on
# the child body. Loops are closed by connect equalities at the listed points, on (body1, body2).
TREES = {
    "peer-four-bar": dict(
        tree=[("crank", "world", "hinge", "crank.A", (0, 1, 0)),
              ("coupler", "crank", "hinge", "coupler.B", (0, 1, 0)),   # planar: a hinge at B
              ("rocker", "world", "hinge", "rocker.D", (0, 1, 0))],
        connect=[("coupler", "rocker", "coupler.C")],
        qvel={}),
    "peer-chain": dict(
        tree=[(f"rod{i}", "world" if i == 0 else f"rod{i - 1}", "ball", f"rod{i}.top", None) for i in range(10)],
        connect=[],
        qvel={"rod0": (0.0, 0.0, 2.0)}),   # the whole chain rotates rigidly: only the root ball moves
    "peer-quarter-car": dict(
        tree=[("chassis", "world", "slide", "chassis.cm", (0, 0, 1)),
              ("lower_arm", "chassis", "hinge", "lower_arm.pivot", (1, 0, 0)),
              ("upper_arm", "chassis", "hinge", "upper_arm.pivot", (1, 0, 0)),
              ("knuckle", "lower_arm", "ball", "knuckle.lower_ball", None),
              ("wheel", "knuckle", "hinge", "wheel.hub", (0, 1, 0)),
              ("tie_rod", "chassis", "ball", "tie_rod.inner", None)],
        connect=[("upper_arm", "knuckle", "upper_arm.ball"), ("tie_rod", "knuckle", "tie_rod.outer")],
        qvel={"chassis": (-0.5,)}),
}


def _v(x):
    return " ".join(f"{float(a):.17g}" for a in x)


def mjcf(mech, h: float = 1e-3) -> str:
    spec = TREES[mech.name]
    origin = {"world": np.zeros(3)}
    children: dict[str, list] = {}
    for body, parent, jtype, ref, axis in spec["tree"]:
        origin[body] = mech.points[ref][1]
        children.setdefault(parent, []).append((body, jtype, axis))
    sites: dict[str, list[str]] = {}
    site_names = {}
    for k, (i, j, *_rest) in enumerate(mech.springs):
        for end, ref in (("a", i), ("b", j)):
            body, p = mech.points[ref]
            body = "world" if body == "ground" else body
            nm = f"s{k}{end}"
            site_names[(k, end)] = nm
            sites.setdefault(body, []).append(f'<site name="{nm}" pos="{_v(p - origin[body])}"/>')

    def emit(parent, depth):
        out = []
        for body, jtype, axis in children.get(parent, []):
            b = mech.bodies[body]
            I = b.inertia
            pad = "  " * depth
            out.append(f'{pad}<body name="{body}" pos="{_v(origin[body] - origin[parent])}">')
            jax = f' axis="{_v(axis)}"' if axis is not None else ""
            out.append(f'{pad}  <joint name="j_{body}" type="{jtype}"{jax}/>')
            out.append(f'{pad}  <inertial pos="{_v(b.com - origin[body])}" mass="{b.mass!r}" '
                       f'fullinertia="{_v([I[0, 0], I[1, 1], I[2, 2], I[0, 1], I[0, 2], I[1, 2]])}"/>')
            out += [pad + "  " + s for s in sites.get(body, [])]
            out += emit(body, depth + 1)
            out.append(f"{pad}</body>")
        return out

    eq = [f'<connect body1="{a}" body2="{b}" anchor="{_v(mech.points[ref][1] - origin[a])}"/>'
          for a, b, ref in spec["connect"]]
    tendons = [f'<spatial stiffness="{k!r}" damping="{c!r}" springlength="{L0!r}">'
               f'<site site="{site_names[(n, "a")]}"/><site site="{site_names[(n, "b")]}"/></spatial>'
               for n, (_i, _j, k, c, L0) in enumerate(mech.springs)]
    return "\n".join([
        f'<mujoco model="{mech.name}">',
        f'  <option timestep="{h!r}" integrator="Euler" gravity="0 0 -9.81"><flag contact="disable"/></option>',
        "  <worldbody>", *["    " + s for s in sites.get("world", [])], *emit("world", 2), "  </worldbody>",
        "  <equality>", *["    " + e for e in eq], "  </equality>",
        "  <tendon>", *["    " + t for t in tendons], "  </tendon>",
        "</mujoco>"])


class MujocoCase:
    """One mechanism in MuJoCo: ``reset()`` to t = 0, ``run(nstep)`` by mj_step in Python,
    ``rollout(nstep)`` by mujoco.rollout, ``snapshot()`` for the common measures."""

    def __init__(self, mech, h: float = 1e-3):
        import mujoco

        self.mj = mujoco
        self.mech = mech
        self.model = mujoco.MjModel.from_xml_string(mjcf(mech, h))
        self.data = mujoco.MjData(self.model)
        self.qvel0 = np.zeros(self.model.nv)
        for body, v in TREES[mech.name]["qvel"].items():
            adr = self.model.jnt_dofadr[self.model.joint(f"j_{body}").id]
            self.qvel0[adr:adr + len(v)] = v
        self.reset()
        size = mujoco.mj_stateSize(self.model, mujoco.mjtState.mjSTATE_FULLPHYSICS)
        self.state0 = np.empty(size)
        mujoco.mj_getState(self.model, self.data, self.state0, mujoco.mjtState.mjSTATE_FULLPHYSICS)

    def reset(self):
        self.mj.mj_resetData(self.model, self.data)
        self.data.qvel[:] = self.qvel0
        self.mj.mj_forward(self.model, self.data)

    def run(self, nstep: int):
        m, d, step = self.model, self.data, self.mj.mj_step
        for _ in range(nstep):
            step(m, d)

    def rollout(self, nstep: int):
        from mujoco import rollout

        state, _ = rollout.rollout(self.model, self.data, self.state0, nstep=nstep)
        return state

    def set_state(self, state):
        self.mj.mj_setState(self.model, self.data, state, self.mj.mjtState.mjSTATE_FULLPHYSICS)
        self.mj.mj_forward(self.model, self.data)

    def snapshot(self) -> dict:
        m, d = self.model, self.data
        self.mj.mj_forward(m, d)  # after mj_step, xpos/xmat are those of the step's start
        snap = {}
        res = np.zeros(6)
        for name in self.mech.bodies:
            i = m.body(name).id
            self.mj.mj_objectVelocity(m, d, self.mj.mjtObj.mjOBJ_BODY, i, res, 0)  # at the centre of mass, world axes
            snap[name] = (d.xipos[i].copy(), d.xmat[i].reshape(3, 3).copy(), res[3:].copy(), res[:3].copy())
        return snap
