"""Conversions between rotation matrices, Euler parameters and zxz Euler angles (numpy)."""
from __future__ import annotations

import numpy as np


def matrix_from_quaternion(p) -> np.ndarray:
    p = np.asarray(p, float)
    e0, e1, e2, e3 = p / np.linalg.norm(p)
    return np.array([
        [2 * (e0 * e0 + e1 * e1) - 1, 2 * (e1 * e2 - e0 * e3), 2 * (e1 * e3 + e0 * e2)],
        [2 * (e1 * e2 + e0 * e3), 2 * (e0 * e0 + e2 * e2) - 1, 2 * (e2 * e3 - e0 * e1)],
        [2 * (e1 * e3 - e0 * e2), 2 * (e2 * e3 + e0 * e1), 2 * (e0 * e0 + e3 * e3) - 1],
    ])


def quaternion_from_matrix(A) -> np.ndarray:
    """Euler parameters (e0 ≥ 0) of a rotation matrix (Shepperd's method)."""
    A = np.asarray(A, float)
    tr = np.trace(A)
    cands = [tr, A[0, 0], A[1, 1], A[2, 2]]
    i = int(np.argmax(cands))
    if i == 0:
        e0 = 0.5 * np.sqrt(1 + tr)
        e = np.array([A[2, 1] - A[1, 2], A[0, 2] - A[2, 0], A[1, 0] - A[0, 1]]) / (4 * e0)
        p = np.array([e0, *e])
    else:
        j, k = [(1, 2), (2, 0), (0, 1)][i - 1]
        ei = 0.5 * np.sqrt(1 + 2 * A[i - 1, i - 1] - tr)
        p = np.zeros(4)
        p[i] = ei
        p[0] = (A[k, j] - A[j, k]) / (4 * ei)
        p[1 + j] = (A[j, i - 1] + A[i - 1, j]) / (4 * ei)
        p[1 + k] = (A[k, i - 1] + A[i - 1, k]) / (4 * ei)
    if p[0] < 0:
        p = -p
    return p / np.linalg.norm(p)


def matrix_from_zxz(a) -> np.ndarray:
    phi, th, psi = a

    def rz(x):
        c, s = np.cos(x), np.sin(x)
        return np.array([[c, -s, 0], [s, c, 0], [0, 0, 1.0]])

    c, s = np.cos(th), np.sin(th)
    rx = np.array([[1.0, 0, 0], [0, c, -s], [0, s, c]])
    return rz(phi) @ rx @ rz(psi)


def zxz_from_matrix(A) -> np.ndarray:
    """zxz angles (φ, θ, ψ) with θ in (0, π); raises near the singularity sin θ = 0."""
    A = np.asarray(A, float)
    th = np.arccos(np.clip(A[2, 2], -1.0, 1.0))
    if abs(np.sin(th)) < 1e-6:
        raise ValueError("orientation is at the zxz Euler-angle singularity (sin θ = 0): "
                         "use euler-parameters for this body or tilt its body frame")
    phi = np.arctan2(A[0, 2], -A[1, 2])
    psi = np.arctan2(A[2, 0], A[2, 1])
    return np.array([phi, th, psi])


def matrix_from_z_axis(z, x=None) -> np.ndarray:
    """A frame whose z axis is along ``z`` and x axis as close as possible to ``x``."""
    z = np.asarray(z, float) / np.linalg.norm(z)
    if x is None:
        x = np.array([1.0, 0, 0]) if abs(z[0]) < 0.9 else np.array([0, 1.0, 0])
    x = np.asarray(x, float)
    x = x - z * (x @ z)
    if np.linalg.norm(x) < 1e-9:
        raise ValueError("x_axis is parallel to z_axis")
    x /= np.linalg.norm(x)
    y = np.cross(z, x)
    return np.column_stack([x, y, z])
