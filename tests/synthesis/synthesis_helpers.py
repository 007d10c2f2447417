"""Shared helpers of the subsystem-synthesis tests: the SLA quarter car as a Cartesian model and
as a synthesis system, and Cartesian accelerations from the index-1 (KKT) equations."""
import numpy as np

from rtmbs.model import load_model_file
from rtmbs.models import model_file
from rtmbs.protocol import EVAL_ALL
from rtmbs.system import compile_model


def sla_model():
    return load_model_file(model_file("sla-quarter-car"))


def cartesian_accelerations(cart, q, qd, t=0.0):
    """{body: (r̈, ω̇ global)} of the Cartesian model from [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ]."""
    ws = cart.workspace()
    cart.evaluate(t, q, qd, ws, EVAL_ALL)
    n, m = cart.n, cart.m
    K = np.zeros((n + m, n + m))
    K[:n, :n], K[:n, n:], K[n:, :n] = ws.M, ws.phiq.T, ws.phiq
    qdd = np.linalg.solve(K, np.concatenate([ws.Q, ws.gamma]))[:n]
    out = {}
    for b, name in enumerate(cart.body_names):
        a = cart.body_qadr[b]
        e0, e1, e2, e3 = q[a + 3:a + 7]
        E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
        out[name] = (qdd[a:a + 3], 2 * E @ qdd[a + 3:a + 7])
    return out


def compiled(model):
    return compile_model(model)


def random_states(rng, k):
    """k random consistent synthesis states (chassis displacement, LCA angle and their rates)."""
    return [(np.array([rng.uniform(-0.05, 0.05), rng.uniform(-0.15, 0.15)]),
             rng.normal(size=2) * [0.5, 3.0]) for _ in range(k)]
