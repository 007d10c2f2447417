"""Classic test mechanisms built in Python (the others ship as YAML files beside this one)."""
from __future__ import annotations

import numpy as np

from ..model import Model


def spatial_chain(nbody: int = 10, link: float = 0.3) -> Model:
    """A chain of ``nbody`` links joined by spherical joints, hanging from the ground and swinging
    sideways: n = 7·nbody, m = 3·nbody + nbody, f = 3·nbody."""
    m = Model(name=f"spatial-chain-{nbody}",
              description=f"{nbody} links on spherical joints, released from a tilted line")
    d = np.array([np.sin(0.6), 0.0, -np.cos(0.6)])  # the chain starts tilted by 0.6 rad
    m.add_marker("ground", "anchor", (0.0, 0.0, 0.0))
    Jt = link ** 2 / 12.0
    for k in range(nbody):
        c = (k + 0.5) * link * d
        m.add_body(f"link{k}", 0.5, inertia=[0.5 * Jt, 0.5 * Jt, 0.25 * Jt],
                   position=tuple(c), orientation={"z_axis": tuple(-d)},
                   velocity=(0.0, 0.2 * (k + 1), 0.0),
                   markers={"top": {"position": (0, 0, -link / 2)}, "bottom": {"position": (0, 0, link / 2)}})
        parent = "ground.anchor" if k == 0 else f"link{k - 1}.bottom"
        m.add_joint(f"ball{k}", "spherical", parent, f"link{k}.top")
    return m


def parallelogram_chain(nloop: int, link: float = 1.0, mass: float = 1.0,
                        omega0: float = 4.0) -> Model:
    """A chain of ``nloop`` parallelogram four-bars (``parallelogram-chain-20.yaml`` for any N):
    N + 1 rockers pinned to the ground at x = 0, L, …, N·L and N couplers joining their tips,
    every link a uniform rod (thin: I = m L²/12, axial 1e-4), in the x-z plane with hinge axes
    along y, gravity −z; at t = 0 the rockers stand vertical turning at θ̇ = ``omega0``.
    One degree of freedom, ((N+1) m L²/3 + N m L²) θ̈ = −g ((N+1) m L/2 + N m L) cos θ; Φq loses
    rank whenever the rockers lie flat (θ = 0, π). n = 7(2N + 1), m = 5(3N + 1) + 2N (the planar
    loops are redundant in space)."""
    L, w = float(link), float(omega0)
    m = Model(name=f"parallelogram-chain-{nloop}",
              description=f"Chain of {nloop} parallelogram four-bars passing its flat (singular) "
                          "position twice per turn")
    m.gravity = (0.0, 0.0, -9.81)
    hinge = {"z_axis": (0.0, 1.0, 0.0)}
    J, Jax = mass * L ** 2 / 12.0, 1e-4
    for i in range(nloop + 1):
        m.add_marker("ground", f"p{i}", (i * L, 0.0, 0.0), orientation=hinge)
    for i in range(nloop + 1):
        m.add_body(f"rocker{i}", mass, inertia=[J, J, Jax], position=(i * L, 0.0, 0.5 * L),
                   velocity=(-0.5 * L * w, 0.0, 0.0), angular_velocity=(0.0, -w, 0.0),
                   markers={"base": {"position": (i * L, 0.0, 0.0), "frame": "global",
                                     "orientation": hinge},
                            "tip": {"position": (i * L, 0.0, L), "frame": "global",
                                    "orientation": hinge}})
    for i in range(nloop):
        m.add_body(f"coupler{i}", mass, inertia=[Jax, J, J], position=((i + 0.5) * L, 0.0, L),
                   velocity=(-L * w, 0.0, 0.0),
                   markers={"left": {"position": (i * L, 0.0, L), "frame": "global",
                                     "orientation": hinge},
                            "right": {"position": ((i + 1) * L, 0.0, L), "frame": "global",
                                      "orientation": hinge}})
    for i in range(nloop + 1):
        m.add_joint(f"pivot{i}", "revolute", f"ground.p{i}", f"rocker{i}.base")
    for i in range(nloop):
        m.add_joint(f"left{i}", "revolute", f"rocker{i}.tip", f"coupler{i}.left")
        m.add_joint(f"right{i}", "revolute", f"rocker{i + 1}.tip", f"coupler{i}.right")
    return m
