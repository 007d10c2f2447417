"""Outputs of the three peer mechanisms (shared/benchmarks/peer-mechanisms.md; models
``peer-four-bar``, ``peer-chain``, ``peer-quarter-car``): marker positions, the four-bar's crank
angle, total mechanical energy, joint-closure error, and the tight reference values the accuracy
tests use. Offline helpers (numpy over stored results), not for the real-time loop.
"""
from __future__ import annotations

import numpy as np
from scipy.spatial.transform import Rotation

from ..errors import ModelError, did_you_mean
from ..kernels.codes import NROT, ROT_EP

PEER_MODELS = ("peer-four-bar", "peer-chain", "peer-quarter-car")

#: Crank angle atan2(B_z, B_x) of ``peer-four-bar`` at t = 1 s, degrees, unwrapped from its value
#: −160° (≡ θ0 = 200°) at t = 0. Computed by ``simulate(system, "reference", t_end=2, h=1e-3)``
#: (Radau, rtol 1e-10, atol 1e-12, mass-metric projection): −129.0331137010°; DOP853 at rtol 1e-12
#: gives −129.0331137011°, and an independent minimal-coordinate ODE of the planar four-bar
#: (θ only, Lagrange's equation, DOP853 rtol 1e-12; tests/models/test_peers.py) −129.0331137011°.
FOUR_BAR_CRANK_DEG_1S = -129.033113701
#: The same at t = 2 s (same three computations agree to 1e-8°).
FOUR_BAR_CRANK_DEG_2S = -72.08134072

#: joint types whose marker origins coincide (their position error is the closure error)
_POINT_JOINTS = ("spherical", "revolute", "universal", "fixed")


def rotation_matrix(rtype: int, p) -> np.ndarray:
    """Rotation matrix of a body's orientation coordinates: Euler parameters (e0, e1, e2, e3),
    normalised (Nikravesh 1988, eq. 6.19), or z-x-z Euler angles A = R_z(φ) R_x(θ) R_z(ψ)."""
    if rtype == ROT_EP:
        return Rotation.from_quat([p[1], p[2], p[3], p[0]]).as_matrix()
    return Rotation.from_euler("ZXZ", p).as_matrix()


def marker_position(system, q, ref: str) -> np.ndarray:
    """Global position of marker ``body.marker`` of a compiled body model at coordinates ``q``;
    ``q`` may be one state (n,) or a series (N, n), giving (3,) or (N, 3)."""
    if ref not in system.markers:
        raise ModelError("marker", f"unknown marker '{ref}'" + did_you_mean(ref, list(system.markers)))
    mk = system.markers[ref]
    Q = np.atleast_2d(np.asarray(q, float))
    if mk.body == system.nbody:  # ground
        out = np.tile(mk.s, (len(Q), 1))
    else:
        a, rt = system.body_qadr[mk.body], system.body_rtype[mk.body]
        out = np.empty((len(Q), 3))
        for k, qk in enumerate(Q):
            out[k] = qk[a:a + 3] + rotation_matrix(rt, qk[a + 3:a + 3 + NROT[rt]]) @ mk.s
    return out[0] if np.ndim(q) == 1 else out


def crank_angle(system, q) -> np.ndarray:
    """Crank angle of ``peer-four-bar``: atan2(B_z, B_x) of the crank tip B (rad), unwrapped
    along the series ``q`` (N, n)."""
    B = marker_position(system, np.atleast_2d(q), "crank.B")
    return np.unwrap(np.arctan2(B[:, 2], B[:, 0]))


def mechanical_energy(system, q, qd) -> np.ndarray:
    """Total mechanical energy ½q̇ᵀM(q)q̇ + Σ m g·z + Σ linear spring energies (with preload and
    free length), per state of a series (N, n) or for one state. Dampers are not in it: it is
    conserved by the undamped ``peer-four-bar`` and ``peer-chain`` (kinetic + gravity only) and
    decreases by the dampers' work on ``peer-quarter-car``; exact for linear springs, not for
    tabulated ones, bushings' rotations, stops or tyres (CartesianSystem.energy)."""
    if np.ndim(q) == 1:
        return float(system.energy(np.asarray(q, float), np.asarray(qd, float)))
    return np.array([system.energy(a, b) for a, b in zip(np.asarray(q, float), np.asarray(qd, float))])


def closure_error(system, q) -> np.ndarray:
    """Largest distance between the two marker origins of any spherical, revolute, universal or
    fixed joint (m): the loop/joint-closure error, comparable with a peer's `connect` equality.
    One state (n,) gives a float, a series (N, n) an array (N,)."""
    Q = np.atleast_2d(np.asarray(q, float))
    err = np.zeros(len(Q))
    for j in system.model.joints:
        if j.type in _POINT_JOINTS:
            d = marker_position(system, Q, j.marker_i) - marker_position(system, Q, j.marker_j)
            err = np.maximum(err, np.linalg.norm(d, axis=1))
    return float(err[0]) if np.ndim(q) == 1 else err


def tip_position(system, q) -> np.ndarray:
    """Free end of ``peer-chain`` (marker rod9.bottom), global."""
    return marker_position(system, q, "rod9.bottom")
