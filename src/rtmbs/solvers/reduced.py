"""Algorithm 2's reduced system (Carpinelli 2016 eqs. 26-28, 18) on dense matrices (numpy, the engine's
dense LU); on the fixed pattern of A the C engine forms it inside its step (li_euler_indep.c).

    Rᵀ A R Δż = Rᵀ (hQ + h²Jq q̇) − Rᵀ A h S c,   A = M − hJq̇ − h²Jq             (eq. 28)
    Δq̇ = h S c + R Δż (eq. 26),   hΦqᵀλ = hQ + h²Jq q̇ − A Δq̇                    (eq. 18)
"""
from __future__ import annotations

import numpy as np

from .dense import iteration_matrix, lu_factor, lu_solve


def reduced(M, Jq, Jqd, Q, qd, h, Rn, Sc, A, H, hpiv, r, dzd, dqd) -> float:
    """A (n, n), H = Rᵀ(A R) factorised, Δż of eq. 28, r = hQ + h²Jq q̇ (kept for λ) and
    Δq̇ = h S c + R Δż (eq. 26). Returns the pivot ratio of H."""
    iteration_matrix(M, Jq, Jqd, h, h * h, A)
    H[:, :] = Rn.T @ (A @ Rn)
    hr = lu_factor(H, hpiv)
    np.dot(Jq, qd, out=r)
    r *= h * h
    r += h * Q
    dzd[:] = Rn.T @ (r - h * (A @ Sc))
    lu_solve(H, hpiv, dzd)
    np.dot(Rn, dzd, out=dqd)
    dqd += h * Sc
    return hr


def lambda_rhs(A, r, dqd, x) -> None:
    """x = r − A Δq̇ = hΦqᵀλ (eq. 18)."""
    np.dot(A, dqd, out=x)
    np.subtract(r, x, out=x)
