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
