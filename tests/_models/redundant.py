"""Hand-written planar protocol models for the redundant-constraint tests.

Bodies are planar bars with coordinates (x, y, θ) of their centre of mass, M = diag(m, m, J),
J = m l²/12, gravity −g along y. Revolute joints: r_i + A(θ_i) s_i − r_j − A(θ_j) s_j = 0 (one or
both components), ground points fixed.

``ParallelogramLinkage(redundant=True)``: parallelogram four-bar (cranks of length a pinned to
ground at (0, 0) and (L, 0), coupler of length L) plus a fifth bar of length a pinned to ground at
(L/2, 0) and to the coupler midpoint: n = 12, m = 12, rank Φq = 11, one degree of freedom
(the classic overconstrained mechanism). ``redundant=False`` keeps all four bodies and drops
the y component of the fifth bar's ground pin (a vertical slot): m = 11, full rank, and on the
branch y = 0 of that slot the same motion (the fifth bar adds no mobility). The two branches
meet only at sin θ = 0 (cranks horizontal), never reached from the rest position θ = −90°
with the swings used in the tests.

Compiled models (``CartesianSystem``) with redundant joint sets: :func:`planar_four_bar` and
:func:`planar_slider_crank` (the built-in loops drawn with revolutes on parallel axes: rank 20 <
m = 23), :func:`stationary_distance` (a redundancy that holds at q0 only).
"""
from __future__ import annotations

import copy

import numpy as np
import yaml

from rtmbs.protocol import (EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ,
                            EVAL_Q, MechanicalSystem, State)
from rtmbs.model import model_from_dict
from rtmbs.models import model_file
from rtmbs.system import compile_model

Y = [0, 1, 0]


class PlanarBars(MechanicalSystem):
    """Planar bars joined by (partial) revolute joints.

    ``bars``: list of (mass, length); ``joints``: list of (i, s_i, j, s_j, components) with
    i or j = -1 for ground (then s is the ground point), components a tuple of 0 (x) and/or 1 (y).
    """

    def __init__(self, bars, joints, g=9.81, name="planar-bars"):
        self.bars = [(float(mb), float(lb)) for mb, lb in bars]
        self.joints = [(i, tuple(map(float, si)), j, tuple(map(float, sj)), tuple(c))
                       for i, si, j, sj, c in joints]
        self.g = g
        self.name = name
        self.n = 3 * len(self.bars)
        self.m = sum(len(c) for *_, c in self.joints)
        M = np.zeros(self.n)
        for k, (mb, lb) in enumerate(self.bars):
            M[3 * k:3 * k + 3] = (mb, mb, mb * lb**2 / 12.0)
        self._Mdiag = M
        self.coordinate_names = [f"bar{k}.{c}" for k in range(len(self.bars)) for c in ("x", "y", "th")]

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            ws.M[:] = 0.0
            ws.M.flat[:: self.n + 1] = self._Mdiag
        if what & EVAL_Q:
            ws.Q[:] = 0.0
            for k, (mb, _) in enumerate(self.bars):
                ws.Q[3 * k + 1] = -mb * self.g
        if what & (EVAL_JAC | EVAL_JAC_STIFF):
            ws.Jq[:] = 0.0
            ws.Jqd[:] = 0.0
        if not what & (EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA):
            return
        if what & EVAL_PHIQ:
            ws.phiq[:] = 0.0
            ws.phit[:] = 0.0
        c, s = np.cos(q[2::3]), np.sin(q[2::3])
        row = 0
        for i, si, j, sj, comps in self.joints:
            px = py = gx = gy = 0.0
            for b, (sx, sy), sign in ((i, si, 1.0), (j, sj, -1.0)):
                if b < 0:
                    px += sign * sx
                    py += sign * sy
                    continue
                ax = c[b] * sx - s[b] * sy          # A(θ) s
                ay = s[b] * sx + c[b] * sy
                px += sign * (q[3 * b] + ax)
                py += sign * (q[3 * b + 1] + ay)
                w2 = qd[3 * b + 2] ** 2
                gx += sign * ax * w2                # γ = Σ ± A s θ̇²
                gy += sign * ay * w2
                if what & EVAL_PHIQ:
                    for k, comp in enumerate(comps):
                        ws.phiq[row + k, 3 * b + comp] += sign
                        ws.phiq[row + k, 3 * b + 2] += sign * (-ay if comp == 0 else ax)
            for k, comp in enumerate(comps):
                if what & EVAL_PHI:
                    ws.phi[row + k] = px if comp == 0 else py
                if what & EVAL_GAMMA:
                    ws.gamma[row + k] = gx if comp == 0 else gy
            row += len(comps)

    def energy(self, q, qd):
        return 0.5 * float(qd @ (self._Mdiag * qd)) + sum(
            mb * self.g * q[3 * k + 1] for k, (mb, _) in enumerate(self.bars))


class ParallelogramLinkage(PlanarBars):
    """Parallelogram four-bar with (``redundant=True``) a fifth parallel bar; see module doc."""

    def __init__(self, redundant=True, a=0.5, L=1.0, masses=(1.0, 1.0, 2.0, 0.5), g=9.81,
                 theta0=np.deg2rad(-40.0), thetad0=0.0):
        h = a / 2
        bars = [(masses[0], a), (masses[1], a), (masses[2], L), (masses[3], a)]
        joints = [
            (0, (-h, 0.0), -1, (0.0, 0.0), (0, 1)),          # crank 0 to ground at (0, 0)
            (1, (-h, 0.0), -1, (L, 0.0), (0, 1)),            # crank 1 to ground at (L, 0)
            (0, (h, 0.0), 2, (-L / 2, 0.0), (0, 1)),         # crank 0 tip to coupler left end
            (1, (h, 0.0), 2, (L / 2, 0.0), (0, 1)),          # crank 1 tip to coupler right end
            (3, (h, 0.0), 2, (0.0, 0.0), (0, 1)),            # fifth bar to coupler midpoint
            (3, (-h, 0.0), -1, (L / 2, 0.0), (0, 1) if redundant else (0,)),  # fifth bar to ground
        ]
        super().__init__(bars, joints, g, name="parallelogram-5bar" if redundant else "parallelogram-slot")
        self.a, self.L = a, L
        self.theta0, self.thetad0 = theta0, thetad0

    def configuration(self, th, thd):
        """Exact (q, q̇) of the mechanism at crank angle θ, rate θ̇ (cranks and fifth bar parallel)."""
        a, L = self.a, self.L
        u = np.array([np.cos(th), np.sin(th)])
        du = np.array([-np.sin(th), np.cos(th)]) * thd
        q = np.concatenate((a / 2 * u, [th], [L, 0] + a / 2 * u, [th],
                            [L / 2, 0] + a * u, [0.0], [L / 2, 0] + a / 2 * u, [th]))
        qd = np.concatenate((a / 2 * du, [thd], a / 2 * du, [thd], a * du, [0.0], a / 2 * du, [thd]))
        return q, qd

    def initial_state(self):
        q, qd = self.configuration(self.theta0, self.thetad0)
        return State(0.0, q, qd)


def random_problem(n, m, r, mass_rank=None, seed=0):
    """(M, Φq, Q, γ) with rank Φq = r ≤ m, M = BBᵀ (+ I when ``mass_rank`` is None) of rank
    ``mass_rank``, γ = Φq a consistent, and M positive definite on null(Φq) (unique q̈)."""
    rng = np.random.default_rng(seed)
    phiq = rng.normal(size=(m, r)) @ rng.normal(size=(r, n))
    if mass_rank is None:
        B = rng.normal(size=(n, n))
        M = B @ B.T + np.eye(n)
    else:
        assert mass_rank >= n - r
        B = rng.normal(size=(n, mass_rank))
        M = B @ B.T
    Q = rng.normal(size=n)
    gamma = phiq @ rng.normal(size=n)
    return M, phiq, Q, gamma


def nullspace_reference(M, phiq, Q, gamma):
    """q̈ by the null-space method, independent of the six formulations:
    q̈ = q̈p + N z, q̈p = Φq⁺γ, (NᵀMN) z = Nᵀ(Q − M q̈p), N an orthonormal basis of null(Φq);
    λ = the minimum-norm solution of Φqᵀλ = Q − M q̈ (numpy lstsq)."""
    U, s, Vt = np.linalg.svd(phiq)
    r = int(np.sum(s > 1e-10 * s[0]))
    N = Vt[r:].T
    qp = np.linalg.lstsq(phiq, gamma, rcond=None)[0]
    z = np.linalg.solve(N.T @ M @ N, N.T @ (Q - M @ qp))
    qdd = qp + N @ z
    lam = np.linalg.lstsq(phiq.T, Q - M @ qdd, rcond=None)[0]
    return qdd, lam, U[:, r:]


# -- compiled models with redundant joint sets -----------------------------------------------
def _yaml(name):
    return yaml.safe_load(model_file(name).read_text())


def _planar(name, markers):
    """``name``.yaml with its spherical and universal joints replaced by revolutes about y (the
    ``markers`` (body, marker) of those joints turned to z along y)."""
    d = _yaml(name)
    d["name"] = f"{name}-planar"
    b = {x["name"]: x for x in d["bodies"]}
    for body, mk in markers:
        b[body]["markers"][mk]["orientation"] = {"z_axis": Y}
    for j in d["joints"]:
        if j["type"] in ("spherical", "universal"):
            j["type"] = "revolute"
    return compile_model(model_from_dict(d))


def planar_four_bar():
    """four-bar.yaml with the spherical and the universal joint replaced by revolutes about y."""
    return _planar("four-bar", (("crank", "tip"), ("coupler", "left"), ("coupler", "right")))


def planar_slider_crank():
    """slider-crank.yaml with the crank pin and the wrist pin as revolutes about y."""
    return _planar("slider-crank", (("crank", "pin"), ("rod", "big_end"), ("rod", "small_end")))


def stationary_distance():
    """A bar hinged about y at the origin, its tip at (1, 0, 0) tied by a 0.5 m distance joint to
    (1.5, 0, 0): at q0 the distance is stationary along the swing, so its row depends on the
    hinge's, but it holds at q0 only (an inconsistent redundancy)."""
    d = {"name": "stationary-distance", "gravity": [0, 0, -9.81],
         "bodies": [{"name": "bar", "mass": 1.0, "inertia": [0.01, 0.08, 0.08],
                     "position": [0.5, 0, 0],
                     "markers": {"hinge": {"position": [0, 0, 0], "frame": "global",
                                           "orientation": {"z_axis": Y}},
                                 "tip": {"position": [1.0, 0, 0], "frame": "global"}}}],
         "ground": {"markers": {"o": {"position": [0, 0, 0], "orientation": {"z_axis": Y}},
                                "far": [1.5, 0, 0]}},
         "joints": [{"name": "hinge", "type": "revolute", "marker_i": "ground.o",
                     "marker_j": "bar.hinge"},
                    {"name": "tie", "type": "distance", "marker_i": "ground.far",
                     "marker_j": "bar.tip", "distance": 0.5}]}
    return compile_model(model_from_dict(copy.deepcopy(d)))
