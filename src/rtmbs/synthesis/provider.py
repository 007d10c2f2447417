"""The compiled synthesis providers (Kim and Wang, formulations A and B): the C engine's
``engine/providers/synthesis_joint.c`` (B: recursive relative joint coordinates, eqs. 23-37, any
number of 1-DOF subsystems of one topology, locked or free base) and
``engine/providers/synthesis_cartesian.c`` (A: relative Cartesian coordinates, eqs. 8-22, one
subsystem). :func:`pack_joint` and :func:`pack_cartesian` flatten a
:class:`~rtmbs.synthesis.numpy_provider.SynthesisSystem` into the int64 and float64 vectors those files
read (their layout is written in the headers); :class:`CompiledSynthesis` keeps the vectors,
the warm start and the scratch, and calls the engine: one call fills M, Q (eq. 19) and q̈
(eqs. 1, 20 or 31)."""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..errors import SolverError
from .description import BASE, GROUND


def _flat(arrays, dtype) -> np.ndarray:
    return np.concatenate([np.asarray(a, dtype).ravel() for a in arrays]) if arrays else np.zeros(0, dtype)


def pack_joint(syn) -> tuple[np.ndarray, np.ndarray]:
    """(ints, par) of formulation B (engine/providers/synthesis_joint.h): the subsystems stacked
    (one topology: same tree and cut joints, e.g. the corners of a car); each carries the force
    elements acting on its bodies (elements between the base and the ground go with the first)."""
    sm = syn.sm
    if syn.formulation != "relative-joint" or not sm.subsystems:
        raise SolverError("compiled: formulation B's provider takes 'relative-joint' with one or more subsystems")
    per = []
    for sub, tree in zip(sm.subsystems, syn._trees):
        nb = len(sub.bodies)

        def bidx(k, nb=nb):
            return nb if k == BASE else k

        E, C = tree.edges, tree.cuts
        ech = np.array([bidx(e[3]) for e in E], np.int64)
        edge_of = np.full(nb + 1, -1, np.int64)
        edge_of[ech] = np.arange(len(E))
        per.append(dict(
            dims=(len(E), len(C), len(tree.u), nb, tree.nq, tree.ncut, tree.v),
            ekind=np.array([0 if e[1] == "revolute" else 1 for e in E], np.int64),
            epar=np.array([bidx(e[2]) for e in E], np.int64), ech=ech,
            ek=np.array([e[8] for e in E], np.int64), edge_of=edge_of,
            ckind=np.array([{"spherical": 0, "revolute": 1, "distance": 2}[c[1]] for c in C], np.int64),
            cbi=np.array([bidx(c[2]) for c in C], np.int64), cbj=np.array([bidx(c[3]) for c in C], np.int64),
            u=np.array(tree.u, np.int64),
            esp=[e[4] for e in E], esc=[e[5] for e in E], eax=[e[6] for e in E], eApc=[e[7] for e in E],
            csi=[c[4] for c in C], csj=[c[5] for c in C], cz=[c[6][:, 2] for c in C],
            cx=[c[7][:, 0] for c in C], cy=[c[7][:, 1] for c in C], cL=[c[8] for c in C],
            mass=sub.mass, Jb=sub.inertia))
    for si, d in enumerate(per[1:], 1):
        same = d["dims"] == per[0]["dims"] and all(np.array_equal(d[k], per[0][k])
                                                    for k in ("ekind", "ckind", "epar", "ech", "ek", "u"))
        if not same:
            raise SolverError(f"compiled: subsystem {sm.subsystems[si].bodies[0]} differs in topology from "
                              f"{sm.subsystems[0].bodies[0]}; the provider stacks subsystems of one topology")
    ne, nc, nu, nb, nq, ncut, v = per[0]["dims"]
    F = pack_forces(sm, [len(sub.bodies) for sub in sm.subsystems])
    ns, nf = F["kind"].shape
    ints = _flat([[ns, ne, nc, nu, nf, F["ops"].size, nb, nq, ncut, v, syn.nbase, int(sm.base_free)]]
                 + [d[k] for k in ("ekind", "epar", "ech", "ek", "edge_of", "ckind", "cbi", "cbj", "u")
                    for d in per]
                 + [F[k] for k in ("kind", "bi", "bj", "adr", "len")], np.int64)
    par = _flat([d[k] for k in ("esp", "esc", "eax", "eApc", "csi", "csj", "cz", "cx", "cy", "cL", "mass", "Jb")
                 for d in per]
                + [F[k] for k in ("si", "sj", "dir", "par", "ops", "args")] + _base(sm), float)
    return ints, par


def _base(sm) -> list:
    return [[float(sm.base_mass)], sm.base_inertia, sm.base_r0, sm.base_S, sm.base_A, sm.gravity]


def pack_cartesian(syn) -> tuple[np.ndarray, np.ndarray]:
    """(ints, par) of formulation A (engine/providers/synthesis_cartesian.h): one 1-DOF subsystem."""
    sm = syn.sm
    if syn.formulation != "relative-cartesian" or len(sm.subsystems) != 1:
        raise SolverError("compiled: formulation A's provider takes 'relative-cartesian' with one subsystem")
    sub = sm.subsystems[0]
    nb = len(sub.bodies)

    def bidx(k):
        return nb if k == BASE else k

    P = sub.prims
    kinds = {"sph": 0, "perp": 1, "dist": 2}
    F = pack_forces(sm, [nb])
    ints = _flat([[nb, syn.nbase, sub.theta_body, len(P), F["kind"].shape[1], F["ops"].size],
                  [kinds[p.kind] for p in P], [bidx(p.bi) for p in P], [bidx(p.bj) for p in P]]
                 + [F[k][0] for k in ("kind", "bi", "bj", "adr", "len")], np.int64)
    par = _flat([[p.si for p in P], [p.sj for p in P], [p.length for p in P], sub.theta_e1,
                 sub.theta_axis, sub.theta_x, sub.mass, sub.inertia]
                + [F[k][0] for k in ("si", "sj", "dir", "par")] + [F["ops"], F["args"]] + _base(sm), float)
    return ints, par


def pack_forces(sm, nbs) -> dict:
    """The force elements per subsystem (stacked, padded with kind −1): body keys −2 ground,
    nb base, k body k of that subsystem (``nbs`` bodies per subsystem). An element between two
    subsystems is refused."""
    ns = len(nbs)
    lists = [[] for _ in range(ns)]
    for f in sm.forces:
        subs = {k[0] for k in (f.bi, f.bj) if isinstance(k, tuple)}
        if len(subs) > 1:
            raise SolverError(f"compiled: force element '{f.name}' joins two subsystems; the provider "
                              "takes elements within one subsystem, to the base or the ground")
        lists[subs.pop() if subs else 0].append(f)
    nf = max(1, max(len(x) for x in lists))
    out = dict(kind=np.full((ns, nf), -1, np.int64), bi=np.full((ns, nf), -2, np.int64),
               bj=np.full((ns, nf), -2, np.int64), adr=np.zeros((ns, nf), np.int64),
               len=np.zeros((ns, nf), np.int64), si=np.zeros((ns, nf, 3)), sj=np.zeros((ns, nf, 3)),
               dir=np.zeros((ns, nf, 3)), par=np.zeros((ns, nf, 5)))
    ops, args = [], []
    for s, elems in enumerate(lists):
        nb = nbs[s]

        def fkey(k, nb=nb):
            return -2 if k == GROUND else nb if k == BASE else k[1]

        for e, f in enumerate(elems):
            out["kind"][s, e] = 0 if f.kind == "spring" else 1
            out["bi"][s, e] = fkey(f.bi) if f.kind == "spring" else -2
            out["bj"][s, e] = fkey(f.bj)
            out["si"][s, e], out["sj"][s, e] = f.si, f.sj
            out["par"][s, e] = [f.k, f.c, f.L0, f.F0, f.value]
            out["dir"][s, e] = f.direction
            out["adr"][s, e] = len(ops)
            if f.fun is not None:
                ops += list(np.asarray(f.fun[0], float))
                args += list(np.asarray(f.fun[1], float))
                out["len"][s, e] = len(f.fun[0])
    out["ops"], out["args"] = np.array(ops + [0.0], float), np.array(args + [0.0], float)
    return out


class CompiledSynthesis:
    """One formulation's C provider with its warm start and scratch: :meth:`evaluate` fills
    and returns (M, Q, q̈)."""

    def __init__(self, syn):
        self.iters = int(syn.newton_iterations)
        self.fd_eps = float(syn.fd_eps)
        if syn.formulation == "relative-joint":
            self.ints, self.par = pack_joint(syn)
            self._fn = _engine.synthesis_joint_evaluate
            self._ws_fn = _engine.synthesis_joint_workspace
            n, nscr, niscr = _engine.synthesis_joint_sizes(self.ints, self.par)
            #: the tree coordinates of every subsystem (eq. 23's q), the Newton warm start
            self.warm = (np.zeros((len(syn._trees), syn._trees[0].nq)),)
        else:
            self.ints, self.par = pack_cartesian(syn)
            self._fn = _engine.synthesis_cartesian_evaluate
            self._ws_fn = _engine.synthesis_cartesian_workspace
            n, nscr, niscr = _engine.synthesis_cartesian_sizes(self.ints, self.par)
            sub = syn.sm.subsystems[0]
            #: the bodies' r* and A relative to the base (eq. 8's z), the Newton warm start
            self.warm = (np.array(sub.r0, float), np.array(sub.A0, float))
        if n != syn.n:
            raise SolverError(f"compiled: the provider has {n} coordinates, the system {syn.n}")
        self.scratch = np.zeros(nscr)
        self.iscratch = np.zeros(niscr, np.int64)
        self.work = np.zeros(n * n + 5 * n)
        self.M, self.Q, self.qdd = np.zeros((n, n)), np.zeros(n), np.zeros(n)

    def workspace(self, t, q, qd, what, buf):
        """The protocol workspace ``buf`` (M, Q, Jq, Jq̇; m = 0) as ``what`` asks, in one call: the
        force Jacobians by forward differences in C (2n more evaluations)."""
        self._ws_fn(self.ints, self.par, float(t), np.ascontiguousarray(q, float), np.ascontiguousarray(qd, float),
                    *self.warm, self.iters, self.fd_eps, int(what), self.scratch, self.iscratch, self.work, buf)

    def evaluate(self, t, q, qd):
        self._fn(self.ints, self.par, float(t), np.ascontiguousarray(q, float), np.ascontiguousarray(qd, float),
                 *self.warm, self.iters, self.scratch, self.iscratch, self.M, self.Q, self.qdd)
        return self.M, self.Q, self.qdd
