"""Configurations and directions that keep Euler parameters on the unit sphere, for finite
differences of the kernels (STYLE.md: perturb Euler parameters on the unit sphere)."""
from __future__ import annotations

import numpy as np

from rtmbs.kernels.codes import ROT_EP


def _euler_parameters(system):
    """The start of each body's four Euler parameters in q (bodies with other coordinates left
    out)."""
    return [system.body_qadr[b] + 3 for b in range(system.nbody)
            if system.body_rtype[b] == ROT_EP]


def on_sphere(system, q):
    """A copy of ``q`` with each body's Euler parameters scaled to unit norm."""
    q = np.array(q, dtype=float)
    for a in _euler_parameters(system):
        q[a:a + 4] /= np.linalg.norm(q[a:a + 4])
    return q


def tangent(system, q, dq):
    """A copy of ``dq`` without the component of each body's δp along its p (``q`` on the
    sphere): a direction that stays on the sphere to first order."""
    dq = np.array(dq, dtype=float)
    for a in _euler_parameters(system):
        p = q[a:a + 4]
        dq[a:a + 4] -= p * (p @ dq[a:a + 4])
    return dq


def tangent_basis(system, q):
    """The coordinate directions projected on the sphere's tangent at ``q`` (:func:`tangent`),
    those that vanish left out."""
    out = [tangent(system, q, e) for e in np.eye(system.n)]
    return [d for d in out if np.linalg.norm(d) > 1e-12]
