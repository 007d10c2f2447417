"""Orientation coordinates and their kinematics (numba, no allocation).

Two choices per body (``ROT_EP``, ``ROT_ZXZ``):

* Euler parameters p = (e0, e1, e2, e3), e0 scalar (seed 003 eq. 4.4-4.8):
  A = (2e0² − 1)I + 2(e eᵀ + e0 ẽ), global angular velocity ω = 2E(p) ṗ with
  E = [−e, ẽ + e0 I]; the normalisation pᵀp = 1 is a constraint.
* zxz Euler angles p = (φ, θ, ψ) (seed 002 §2.1): A = Rz(φ) Rx(θ) Rz(ψ),
  ω = G(φ, θ) ṗ with G = [[0, cφ, sφ sθ], [0, sφ, −cφ sθ], [1, 0, cθ]]; singular at sin θ = 0.

For both, :func:`rotation_data` fills A, the map G (ω = G ṗ, 3×nr), its partial derivatives
∂G/∂p_k, W = [∂G/∂p_k ṗ]_k = ∂ω/∂p, the bias α = Ġ ṗ (so ω̇ = G p̈ + α; zero for Euler
parameters) and, for Euler angles, ∂α/∂p and ∂α/∂ṗ (needed by the inertia Jacobian).
Arrays are padded to 4 columns; the number used is ``NROT[rtype]``.
"""
from __future__ import annotations

import math

from numba import njit

from .codes import NROT, ROT_EP, ROT_ZXZ, ROTATION_NAMES  # noqa: F401


@njit(cache=True, inline="always")
def ep_to_matrix(p, A):
    """A = R(p/|p|): the rotation matrix of the *normalised* Euler parameters, so that A (and with
    it every constraint Φ) does not change along p. Its exact derivative is then
    δπ = 2E(p)δp/|p|² in every direction, radial ones included (docs/solvers.md, "Euler
    parameters"); at |p| = 1 this is the seed's A = (2e0² − 1)I + 2(e eᵀ + e0 ẽ) (seed 003 eq. 4.6)."""
    e0, e1, e2, e3 = p[0], p[1], p[2], p[3]
    s = 2.0 / (e0 * e0 + e1 * e1 + e2 * e2 + e3 * e3)
    A[0, 0] = s * (e0 * e0 + e1 * e1) - 1.0
    A[0, 1] = s * (e1 * e2 - e0 * e3)
    A[0, 2] = s * (e1 * e3 + e0 * e2)
    A[1, 0] = s * (e1 * e2 + e0 * e3)
    A[1, 1] = s * (e0 * e0 + e2 * e2) - 1.0
    A[1, 2] = s * (e2 * e3 - e0 * e1)
    A[2, 0] = s * (e1 * e3 - e0 * e2)
    A[2, 1] = s * (e2 * e3 + e0 * e1)
    A[2, 2] = s * (e0 * e0 + e3 * e3) - 1.0


@njit(cache=True, inline="always")
def _ep_E(e0, e1, e2, e3, out, scale):
    """out (3×4) = scale·E(p), E = [−e, ẽ + e0 I]."""
    out[0, 0] = -e1 * scale
    out[0, 1] = e0 * scale
    out[0, 2] = -e3 * scale
    out[0, 3] = e2 * scale
    out[1, 0] = -e2 * scale
    out[1, 1] = e3 * scale
    out[1, 2] = e0 * scale
    out[1, 3] = -e1 * scale
    out[2, 0] = -e3 * scale
    out[2, 1] = -e2 * scale
    out[2, 2] = e1 * scale
    out[2, 3] = e0 * scale


@njit(cache=True, fastmath=False)
def zxz_to_matrix(p, A):
    c1, s1 = math.cos(p[0]), math.sin(p[0])
    c2, s2 = math.cos(p[1]), math.sin(p[1])
    c3, s3 = math.cos(p[2]), math.sin(p[2])
    A[0, 0] = c1 * c3 - s1 * c2 * s3
    A[0, 1] = -c1 * s3 - s1 * c2 * c3
    A[0, 2] = s1 * s2
    A[1, 0] = s1 * c3 + c1 * c2 * s3
    A[1, 1] = -s1 * s3 + c1 * c2 * c3
    A[1, 2] = -c1 * s2
    A[2, 0] = s2 * s3
    A[2, 1] = s2 * c3
    A[2, 2] = c2


@njit(cache=True, fastmath=False)
def _zxz_G(phi, th, G):
    c1, s1 = math.cos(phi), math.sin(phi)
    c2, s2 = math.cos(th), math.sin(th)
    G[0, 0] = 0.0
    G[0, 1] = c1
    G[0, 2] = s1 * s2
    G[1, 0] = 0.0
    G[1, 1] = s1
    G[1, 2] = -c1 * s2
    G[2, 0] = 1.0
    G[2, 1] = 0.0
    G[2, 2] = c2


@njit(cache=True, fastmath=False)
def _zxz_dG(phi, th, dG):
    """dG[k] = ∂G/∂p_k (k = φ, θ, ψ)."""
    c1, s1 = math.cos(phi), math.sin(phi)
    c2, s2 = math.cos(th), math.sin(th)
    dG[:, :, :] = 0.0
    dG[0, 0, 1] = -s1
    dG[0, 0, 2] = c1 * s2
    dG[0, 1, 1] = c1
    dG[0, 1, 2] = s1 * s2
    dG[1, 0, 2] = s1 * c2
    dG[1, 1, 2] = -c1 * c2
    dG[1, 2, 2] = -s2


@njit(cache=True, fastmath=False)
def _zxz_d2G(phi, th, d2G):
    """d2G[k, l] = ∂²G/∂p_k∂p_l."""
    c1, s1 = math.cos(phi), math.sin(phi)
    c2, s2 = math.cos(th), math.sin(th)
    d2G[:, :, :, :] = 0.0
    d2G[0, 0, 0, 1] = -c1
    d2G[0, 0, 0, 2] = -s1 * s2
    d2G[0, 0, 1, 1] = -s1
    d2G[0, 0, 1, 2] = c1 * s2
    d2G[0, 1, 0, 2] = c1 * c2
    d2G[0, 1, 1, 2] = s1 * c2
    d2G[1, 0, 0, 2] = c1 * c2
    d2G[1, 0, 1, 2] = s1 * c2
    d2G[1, 1, 0, 2] = -s1 * s2
    d2G[1, 1, 1, 2] = c1 * s2
    d2G[1, 1, 2, 2] = -c2


@njit(cache=True, fastmath=False)
def rotation_matrix(rtype, p, A):
    if rtype == ROT_EP:
        ep_to_matrix(p, A)
    else:
        zxz_to_matrix(p, A)


@njit(cache=True, inline="always")
def rotation_data(rtype, p, pd, A, G, dG, W, alpha, dadp, dadpd, d2G):
    """Fill A (3×3), G (3×4), dG (4×3×4), W (3×4), alpha (3), dadp, dadpd (3×4) for one body.

    ``d2G`` (4×4×3×4) is scratch. Columns beyond NROT[rtype] are zero.
    """
    rotation_matrix(rtype, p, A)
    if rtype == ROT_EP:
        _ep_E(p[0], p[1], p[2], p[3], G, 2.0)
        for k in range(4):  # E is linear in p: ∂(2E)/∂p_k = 2E(unit_k)
            _ep_E(1.0 if k == 0 else 0.0, 1.0 if k == 1 else 0.0, 1.0 if k == 2 else 0.0,
                  1.0 if k == 3 else 0.0, dG[k], 2.0)
        alpha[:] = 0.0
        dadp[:, :] = 0.0
        dadpd[:, :] = 0.0
        nr = 4
    else:
        G[:, 3] = 0.0
        _zxz_G(p[0], p[1], G)
        _zxz_dG(p[0], p[1], dG)
        _zxz_d2G(p[0], p[1], d2G)
        nr = 3
        for a in range(3):
            alpha[a] = 0.0
            for m in range(4):
                dadp[a, m] = 0.0
                dadpd[a, m] = 0.0
        # α = Σ_k ṗ_k ∂G/∂p_k ṗ ;  ∂α/∂ṗ = W + Ġ ;  ∂α/∂p_m = Σ_k ṗ_k ∂²G/∂p_k∂p_m ṗ
        for a in range(3):
            for k in range(3):
                for l in range(3):
                    alpha[a] += pd[k] * dG[k, a, l] * pd[l]
                    for m in range(3):
                        dadp[a, m] += pd[k] * d2G[k, m, a, l] * pd[l]
            for m in range(3):
                s = 0.0
                for l in range(3):
                    s += dG[m, a, l] * pd[l] + pd[l] * dG[l, a, m]
                dadpd[a, m] = s
    for a in range(3):
        for k in range(4):
            s = 0.0
            if k < nr:
                for l in range(nr):
                    s += dG[k, a, l] * pd[l]
            W[a, k] = s
