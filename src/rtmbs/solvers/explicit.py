"""Explicit Euler on the index-1 form (seed 000 eqs. 11-12, 14): the non-stiff baseline.

    [M Φqᵀ; Φq 0][q̈; λ] = [Q; γ]               (eq. 12; γ ← γ − 2α(Φq q̇ + Φt) − β²Φ, eq. 4)
    q ← q + h q̇,   q̇ ← q̇ + h q̈                 (eq. 11, both from the values at step i)

Per step: 1 evaluation (M, Q, Φq, Φt, γ [, Φ]), 1 factorisation of size n + m, 1 solve; with
``stabilize="projection"`` one more evaluation of Φ(q + h q̇, t + h) and one more solve with the
same factors (eq. 30 with λ-column scaled by h is the same matrix).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..protocol import EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from .base import Solver, register_solver
from .factorisation import kkt_correction, kkt_rhs_solve, make_kkt
from .sparse import choose_linear_solver
from .stabilization import baumgarte_index1, check_choice, check_positive, evaluate, pop_options


@njit(cache=True)
def _update(q, qd, dq, rhs, h):
    n = q.shape[0]
    for i in range(n):
        q[i] += dq[i]
        qd[i] += h * rhs[i]


@register_solver("explicit-euler")
class ExplicitEuler(Solver):
    """Explicit Euler with the index-1 acceleration solve (seed 000 eq. 12).

    Options
    -------
    stabilize : "projection" (default) | "none" | "baumgarte"
        The non-iterative projection of the positions (eq. 30) or Baumgarte at index 1 (eq. 4,
        ``alpha``, ``beta`` in 1/s); ignored when m = 0.
    alpha, beta : float, default 10.0
    linear_solver : "auto" | "dense" | "sparse", as for ``li-euler`` ([M Φqᵀ; Φq 0] on the fixed
        patterns of M and Φq)
    """

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(stabilize="projection", alpha=10.0, beta=10.0,
                                                 linear_solver="auto"))
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        self.sparse = choose_linear_solver(self.name, system, o["linear_solver"])
        check_choice(self.name, "stabilize", o["stabilize"], ("none", "baumgarte", "projection"))
        check_positive(self.name, "alpha", o["alpha"], allow_zero=True)
        check_positive(self.name, "beta", o["beta"], allow_zero=True)
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        self.alpha = float(o["alpha"])
        self.beta = float(o["beta"])

    def _reset(self, state: State) -> None:
        n, m = self.system.n, self.system.m
        self.rhs = np.zeros(n + m)
        self.rhs2 = np.zeros(n + m)
        self.c = np.zeros(m)
        self.dq = np.zeros(n)
        self.qp = np.zeros(n)
        self.ws1 = self.system.workspace()
        what = EVAL_M | EVAL_Q
        if m:
            what |= EVAL_PHIQ | EVAL_GAMMA
        if self.stabilize == "baumgarte":
            what |= EVAL_PHI
        self.what = what
        self.lam = np.zeros(m)
        # [M Φqᵀ; Φq 0], dense or on the fixed patterns (analysed here, at the initial state)
        self.kkt = make_kkt(self.system, self.sparse)
        if self.kkt.sparse:
            ws = self.ws
            self.system.evaluate(state.t, state.q, state.qd, ws, what)
            self.kkt.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
        self._nan0 = self.kkt.nanalyse

    def _sparse_factors(self):
        return self.kkt.factors() if hasattr(self, "kkt") else ()

    @property
    def nanalyse(self) -> int:
        """Re-analyses of the sparse factors since ``reset`` (0 on the dense path)."""
        return self.kkt.nanalyse - self._nan0

    def _step_impl(self, state: State, h: float):
        ws = self.ws
        self._tic()
        evaluate(self, ws, state.t, state.q, state.qd, self.what)
        self._toc("evaluation")
        ratio = self.kkt.factor(ws.M, ws.M, ws.M, 0.0, 0.0, ws.phiq, 1.0, ws.phiq)
        self.nfactor += 1
        self._toc("factorisation")
        if self.stabilize == "baumgarte":
            baumgarte_index1(ws.gamma, ws.phiq, state.qd, ws.phit, ws.phi, self.alpha, self.beta,
                             self.c)
            c = self.c
        else:
            c = ws.gamma
        fa, fb = self.kkt.args[:2]
        kkt_rhs_solve(fa, fb, ws.Q, c, self.rhs)
        self.nsolve += 1
        np.multiply(state.qd, h, out=self.dq)
        self._toc("solve")
        if self.stabilize == "projection":
            np.add(state.q, self.dq, out=self.qp)
            evaluate(self, self.ws1, state.t + h, self.qp, state.qd, EVAL_PHI)
            kkt_correction(fa, fb, self.ws1.phi, self.rhs2, self.dq)
            self.nsolve += 1
            self._toc("projection")
        _update(state.q, state.qd, self.dq, self.rhs, h)
        self.lam[:] = self.rhs[self.system.n:]
        state.t += h
        self._toc("other")
        return ratio > 0.0
