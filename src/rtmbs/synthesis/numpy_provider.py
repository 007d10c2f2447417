"""The subsystem-synthesis provider of the mechanical-system protocol (Kim & Wang 2005 §2, eqs. 1-2).

Coordinates q = [base coordinates; θ of each subsystem], velocities q̇. The base coordinates are
the translations its joint to the ground allows (orientation locked: Ŷ0 = S ẋ0), or for a free
base (no joint) its translation and Bryant x-y-z angles (Ŷ0 = [ṙ0; ω0] = T(q) q̇, Ẏ0 = T q̈ + Ṫq̇;
formulation B). m = 0, so the fixed-step solvers (ab3, explicit-euler, li-euler,
rosenbrock-grk4t) and the reference solver run it as an ODE M(q) q̈ = Q(q, q̇, t) with

    M = [Tᵀ(M̂0 + Σ M̄_EE)T   Tᵀ M_Eθ ],   Q = [Tᵀ(Q̂0 + Σ ĝ_E − (M̂0 + Σ M̄_EE)Ṫq̇)]   (eq. 19)
        [M_Eθᵀ T             M_θθ    ]        [g_θ − M_Eθᵀ Ṫq̇                      ]

whose Schur complement on the θ blocks is the base equation (eq. 1):
:meth:`SynthesisSystem.accelerations` solves it that way (eqs. 1, 20-22). The dependent relative
coordinates are kept between calls and corrected by a fixed number of Newton iterations.
Force Jacobians (for li-euler and rosenbrock-grk4t) are forward differences of Q (2n extra
evaluations; with ``compiled=True`` inside the one C call of :meth:`SynthesisSystem.evaluate`).
"""
from __future__ import annotations

import numpy as np

from ..errors import ModelError, SolverError
from ..engine import _engine
from ..model.rotation import quaternion_from_matrix
from ..protocol import EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_Q, MechanicalSystem, State
from . import recursive as rb
from . import relative_cartesian as rc
from .description import BASE, GROUND, SynthesisModel
from .linalg import skew, solve, zeros

FORMULATIONS = ("relative-cartesian", "relative-joint")


class SynthesisSystem(MechanicalSystem):
    """Base body + subsystems in formulation A (``relative-cartesian``: relative Cartesian
    coordinates, introduced θ, Kim & Wang 2005 §3) or B (``relative-joint``: recursive relative joint
    coordinates, cut joints, coordinate partitioning, §4; ``cut``: extra joints to cut)."""

    def __init__(self, smodel: SynthesisModel, formulation: str = "relative-cartesian",
                 newton_iterations: int = 4, fd_eps: float = 1e-7, cut=(), compiled: bool = False):
        if formulation not in FORMULATIONS:
            raise SolverError(f"formulation: unknown '{formulation}' (known: {', '.join(FORMULATIONS)})")
        if not (isinstance(newton_iterations, int) and newton_iterations >= 1):
            raise SolverError(f"newton_iterations: expected an integer >= 1, got {newton_iterations!r}")
        if smodel.base_free and formulation != "relative-joint":
            raise SolverError(f"formulation: a free base (no joint to the ground, 6 DOF) is built for "
                              f"'relative-joint' only, not '{formulation}'")
        self.sm = smodel
        self.formulation = formulation
        self.newton_iterations = newton_iterations
        self.fd_eps = fd_eps
        self.name = f"{smodel.name} [synthesis {formulation}]"
        self.nbase = smodel.base_S.shape[1]
        self.n = self.nbase + sum(s.ndof for s in smodel.subsystems)
        self.m = 0
        self.coordinate_names = list(smodel.base_coordinate_names) + [f"{s.theta_joint}.theta"
                                                                      for s in smodel.subsystems]
        if formulation == "relative-cartesian":
            self._warm = [(s.r0.copy(), s.A0.copy()) for s in smodel.subsystems]
        else:
            self._trees = [rb.Tree(s, cut) for s in smodel.subsystems]
            self._warm = [(np.zeros(tr.nq),) for tr in self._trees]
        self._check_regular()
        self.compiled = bool(compiled)
        if self.compiled:                       # the C providers (A: one subsystem; B: stacked): Table 2
            from .provider import CompiledSynthesis
            self._provider = CompiledSynthesis(self)
        b = smodel.base
        names = [f"{b}.{c}" for c in ("x", "y", "z", "vx", "vy", "vz")]
        for s in smodel.subsystems:
            names += [f"{nm}.{c}" for nm in s.bodies for c in ("x", "y", "z")]
        self.output_names = tuple(names)

    def _check_regular(self):
        """Ψ_z (A) or Φ_u (B) must be regular at the initial configuration: otherwise θ (the angle
        of the first revolute joint to the base) cannot be the independent coordinate."""
        A0 = self.sm.base_A
        for si, sub in enumerate(self.sm.subsystems):
            if self.formulation == "relative-cartesian":
                J = rc.constraints(sub, sub.r0, sub.A0, 0.0)[1]
            else:
                tree = self._trees[si]
                q = np.zeros(tree.nq)
                J = rb.cut_constraints(tree, rb.kinematics(tree, sub, A0, q, q), q)[1][:, tree.u]
            sv = np.linalg.svd(J, compute_uv=False)
            if sv[-1] < 1e-10 * sv[0]:
                what = "Ψ_z" if self.formulation == "relative-cartesian" else "Φ_u"
                raise ModelError(f"synthesis.dof.{sub.bodies[0]}", f"{what} is singular at the initial "
                                 f"configuration (σ_min/σ_max = {sv[-1] / sv[0]:.1e}): the angle of joint "
                                 f"'{sub.theta_joint}' cannot be the independent coordinate")

    # -- the stages ------------------------------------------------------------------------------
    def terms(self, t, q, qd, iterations=None, counted=False):
        """Every quantity of one evaluation at (t, q, q̇): per subsystem the stage results and its
        bodies' global kinematics, and the base terms. With ``counted`` q, q̇ are object arrays
        of Op (the warm start is not updated)."""
        sm = self.sm
        it = self.newton_iterations if iterations is None else iterations
        mark = _Marks() if counted else (lambda stage: None)
        S = sm.base_S
        nb0 = self.nbase
        x0, xd0 = q[:nb0], qd[:nb0]
        r0 = sm.base_r0 + S[:3] @ x0
        v0 = S[:3] @ xd0
        A0, w0, Tb, Td = self._base_motion(q, qd)
        subs = []
        off = nb0
        for si, sub in enumerate(sm.subsystems):
            th, thd = q[off], qd[off]
            off += sub.ndof
            warm = self._warm[si]
            if counted:
                from .opcount import wrap
                warm = tuple(wrap(w) for w in warm)
            if self.formulation == "relative-cartesian":
                mark(None)
                r, A = rc.position(sub, warm[0], warm[1], th, it)
                mark("position")
                if not counted:
                    self._warm[si] = (r, A)
                Pz, N, y = rc.velocity(sub, r, A, th, thd)
                mark("velocity")
                gam, p = rc.gamma_hat(sub, r, A, y, th, thd, Pz)
                mark("RHS")
                bodies = []
                for k in range(len(sub.bodies)):
                    Ak = A0 @ A[k]
                    bodies.append((A0 @ r[k], Ak, A0 @ y[6 * k:6 * k + 3], Ak @ y[6 * k + 3:6 * k + 6]))
                subs.append(dict(r=r, A=A, N=N, y=y, p=p, theta=th, thetad=thd, bodies=bodies))
            else:
                tree = self._trees[si]
                qt = warm[0].copy()
                qt[tree.v] = th
                mark(None)
                qt = rb.position(tree, sub, A0, qt, it)
                mark("position")
                if not counted:
                    self._warm[si] = (qt,)
                Pu, R, qdt = rb.velocity(tree, sub, A0, qt, thd)
                mark("velocity")
                kin, c = rb.rhs(tree, sub, A0, qt, qdt, Pu, w0)
                mark("RHS")
                bodies = [(kin["r"][k], kin["A"][k], kin["rd"][k], kin["w"][k]) for k in range(len(sub.bodies))]
                subs.append(dict(q=qt, qd=qdt, R=R, c=c, kin=kin, theta=th, thetad=thd, bodies=bodies))
        # forces (gravity, elements): f and the torque about the CG (global) per body; base Q̂0
        Q0 = zeros(6, q)
        Q0[:3] += sm.base_mass * sm.gravity
        gf = [zeros((len(s.bodies), 6), q) for s in sm.subsystems]
        for si, sub in enumerate(sm.subsystems):
            for k in range(len(sub.bodies)):
                gf[si][k, :3] += sub.mass[k] * sm.gravity

        def state(key, s):
            """Global position and velocity of body point s, and a function adding a force there."""
            if key == GROUND:
                return s, 0.0 * s, None
            if key == BASE:
                sg0 = A0 @ s

                def add(F):
                    Q0[:3] += F
                    Q0[3:] += skew(sg0) @ F                 # moment about the CG, global axes
                return r0 + sg0, v0 + skew(w0) @ sg0, add
            si, k = key
            rk, Ak, rdk, wk = subs[si]["bodies"][k]
            sg = Ak @ s
            P = r0 + rk + sg
            V = v0 + rdk + skew(wk) @ sg

            def add(F):
                gf[si][k, :3] += F
                gf[si][k, 3:] += skew(sg) @ F
            return P, V, add

        for fe in sm.forces:
            if fe.kind == "spring":
                Pi, Vi, addi = state(fe.bi, fe.si)
                Pj, Vj, addj = state(fe.bj, fe.sj)
                dv = Pj - Pi
                L = (dv @ dv) ** 0.5 if not counted else _sqrt(dv @ dv)
                Ld = (dv @ (Vj - Vi)) / L
                T = fe.k * (L - fe.L0) + fe.c * Ld + fe.F0
                F = (T / L) * dv
                if addi is not None:
                    addi(F)
                if addj is not None:
                    addj(-F)
            else:
                _, _, addj = state(fe.bj, fe.sj)
                mag = fe.value if fe.fun is None else _fun_value(fe.fun, t)
                addj(mag * fe.direction)
        Mb = zeros((6, 6), q)
        Mb[:3, :3] = sm.base_mass * np.eye(3)
        Jg0 = A0 @ sm.base_inertia @ A0.T
        Mb[3:, 3:] = Jg0
        Q0[3:] -= skew(w0) @ (Jg0 @ w0)
        Mfull_base = Mb.copy()
        Qfull_base = Q0.copy()
        Mc_sum, Pc_sum = Mb.copy(), Q0.copy()
        for si, sub in enumerate(sm.subsystems):
            d = subs[si]
            if self.formulation == "relative-cartesian":
                g = gf[si].copy()
                for k in range(len(sub.bodies)):            # torque in body axes for eq. 9
                    g[k, 3:] = d["bodies"][k][1].T @ gf[si][k, 3:]
                MEE, MEG, MGG, gE, gG = rc.mass_force(sub, d["r"], d["A"], d["y"], A0, g)
                mark("mass/force")
                MEt, Mtt, gt, Mc, Pc, gEh = rc.effective(MEE, MEG, MGG, gE, gG, d["N"], d["p"])
            else:
                tree = self._trees[si]
                MEE, Myq, Mqq, Py, Pq = rb.mass_force(tree, sub, d["kin"], gf[si])
                mark("mass/force")
                MEt, Mtt, gt, Mc, Pc, gEh = rb.effective(tree, MEE, Myq, Mqq, Py, Pq, d["R"], d["c"])
            d.update(MEE=MEE, MEt=MEt, Mtt=Mtt, gt=gt, Mc=Mc, Pc=Pc, gEh=gEh)
            Mfull_base = Mfull_base + MEE
            Qfull_base = Qfull_base + gEh
            Mc_sum = Mc_sum + Mc
            Pc_sum = Pc_sum + Pc
            mark("effective mass/force")
            mark(None)
        return dict(subs=subs, S=Tb, Td=Td, A0=A0, w0=w0, Mbase=Mfull_base, Qbase=Qfull_base, Mhat=Mc_sum, Phat=Pc_sum,
                    counts=getattr(mark, "counts", None))

    def _base_motion(self, q, qd):
        """The base orientation A0, angular velocity ω0 and Ŷ0 = T q̇_base, Ẏ0 = T q̈_base + Td.
        Locked orientation: A0 constant, ω0 = 0, T = S, Td = 0. Free base: q_base = [r0 − r0(0);
        α, β, γ], the Bryant x-y-z angles of A0 = Rx(α)Ry(β)Rz(γ)A0(0) (singular at β = ±90°),
        ω0 = H(α, β)[α̇; β̇; γ̇] with H's columns e_x, Rx e_y, RxRy e_z, T = diag(I, H),
        Td = [0; Ḣ q̇] (eq. 25's H for the base's joint to the ground)."""
        sm = self.sm
        if not sm.base_free:
            z = zeros(3, q)
            return sm.base_A, z, sm.base_S, zeros(6, q)
        a, ad = q[3:6], qd[3:6]
        R, H = rb._bryant(a[0], a[1], a[2])
        w1 = ad[0] * H[:, 0]
        w2 = w1 + ad[1] * H[:, 1]
        T = zeros((6, 6), q)
        T[:3, :3] = np.eye(3)
        T[3:, 3:] = H
        Td = zeros(6, q)
        Td[3:] = ad[1] * (skew(w1) @ H[:, 1]) + ad[2] * (skew(w2) @ H[:, 2])
        return R @ sm.base_A, H @ ad, T, Td

    def _compiled(self, t, q, qd):
        return self._provider.evaluate(t, q, qd)

    def accelerations(self, t, q, qd, tm=None):
        """q̈ by synthesis: the base equation (eq. 1) with the effective masses and forces, then
        θ̈ of each subsystem (eq. 20)."""
        if tm is None and self.compiled:
            return self._compiled(t, q, qd)[2].copy()
        tm = self.terms(t, q, qd) if tm is None else tm
        S, Td = tm["S"], tm["Td"]
        xdd = solve(S.T @ tm["Mhat"] @ S, S.T @ (tm["Phat"] - tm["Mhat"] @ Td))
        Yd = S @ xdd + Td
        out = [xdd]
        for d in tm["subs"]:
            out.append(solve(d["Mtt"], d["gt"] - d["MEt"].T @ Yd))
        return np.concatenate(out)

    def _MQ(self, t, q, qd):
        if self.compiled:
            M, Q, _ = self._compiled(t, q, qd)
            return M.copy(), Q.copy(), None
        tm = self.terms(t, q, qd)
        S, n, nb0 = tm["S"], self.n, self.nbase
        M = np.zeros((n, n))
        Q = np.zeros(n)
        Td = tm["Td"]
        M[:nb0, :nb0] = S.T @ tm["Mbase"] @ S
        Q[:nb0] = S.T @ (tm["Qbase"] - tm["Mbase"] @ Td)
        off = nb0
        for sub, d in zip(self.sm.subsystems, tm["subs"]):
            k = sub.ndof
            M[:nb0, off:off + k] = S.T @ d["MEt"]
            M[off:off + k, :nb0] = M[:nb0, off:off + k].T
            M[off:off + k, off:off + k] = d["Mtt"]
            Q[off:off + k] = d["gt"] - d["MEt"].T @ Td
            off += k
        return M, Q, tm

    # -- protocol ----------------------------------------------------------------------------------
    def evaluate(self, t, q, qd, ws, what):
        if self.compiled:                       # one C call, the difference Jacobians included
            self._provider.workspace(t, q, qd, what, ws.buf)
            return
        q = np.asarray(q, float)
        qd = np.asarray(qd, float)
        M, Q, _ = self._MQ(t, q, qd)
        if what & EVAL_M:
            ws.M[:] = M
        if what & EVAL_Q:
            ws.Q[:] = Q
        if what & (EVAL_JAC | EVAL_JAC_STIFF):
            for k in range(self.n):
                e = self.fd_eps * max(1.0, abs(q[k]))
                dq = q.copy()
                dq[k] += e
                ws.Jq[:, k] = (self._MQ(t, dq, qd)[1] - Q) / e
                e = self.fd_eps * max(1.0, abs(qd[k]))
                dqd = qd.copy()
                dqd[k] += e
                ws.Jqd[:, k] = (self._MQ(t, q, dqd)[1] - Q) / e
            self._MQ(t, q, qd)  # leave the warm start at q

    def initial_state(self) -> State:
        sm = self.sm
        qd = np.zeros(self.n)
        qd[:self.nbase] = sm.base_S[:3].T @ sm.base_v0
        qd[self.nbase:] = sm.theta_rate0
        return State(0.0, np.zeros(self.n), qd)

    def outputs(self, t, q, qd, out) -> None:
        tm = self.terms(t, np.asarray(q, float), np.asarray(qd, float))
        S = self.sm.base_S
        r0 = self.sm.base_r0 + S[:3] @ q[:self.nbase]
        out[:3] = r0
        out[3:6] = S[:3] @ qd[:self.nbase]
        k = 6
        for d in tm["subs"]:
            for rr, _, _, _ in d["bodies"]:
                out[k:k + 3] = r0 + rr
                k += 3

    def energy(self, q, qd) -> float:
        """Kinetic + gravitational + spring energy (dampers, time-varying forces excluded)."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        tm = self.terms(0.0, q, qd)
        M = self._MQ(0.0, q, qd)[0]
        sm = self.sm
        r0 = sm.base_r0 + sm.base_S[:3] @ q[:self.nbase]
        V = -sm.base_mass * sm.gravity @ r0
        pos = {}
        for si, (sub, d) in enumerate(zip(sm.subsystems, tm["subs"])):
            for k in range(len(sub.bodies)):
                rk = r0 + d["bodies"][k][0]
                V -= sub.mass[k] * sm.gravity @ rk
                pos[(si, k)] = (rk, d["bodies"][k][1])

        def point(key, s):
            if key == GROUND:
                return s
            if key == BASE:
                return r0 + tm["A0"] @ s
            rk, Ak = pos[key]
            return rk + Ak @ s

        for fe in sm.forces:
            if fe.kind == "spring":
                L = np.linalg.norm(point(fe.bj, fe.sj) - point(fe.bi, fe.si))
                V += 0.5 * fe.k * (L - fe.L0) ** 2 + fe.F0 * L
            elif fe.fun is None:
                V -= fe.value * fe.direction @ point(fe.bj, fe.sj)
        return 0.5 * qd @ M @ qd + V

    # -- cross-checks with the Cartesian model of the same description -------------------------
    def cartesian_state(self, cart, q, qd):
        """(q, q̇) of the Cartesian model ``cart`` (Euler parameters) at the synthesis state."""
        tm = self.terms(0.0, np.asarray(q, float), np.asarray(qd, float))
        sm = self.sm
        r0 = sm.base_r0 + sm.base_S[:3] @ q[:self.nbase]
        v0 = sm.base_S[:3] @ qd[:self.nbase]
        qc, qdc = np.zeros(cart.n), np.zeros(cart.n)
        for b, name in enumerate(cart.body_names):
            key = sm.body_of[name]
            if key == BASE:
                r, A, v, w = r0, tm["A0"], v0, tm["w0"]
            else:
                si, k = key
                rk, A, rdk, w = tm["subs"][si]["bodies"][k]
                r, v = r0 + rk, v0 + rdk
            a = cart.body_qadr[b]
            p = quaternion_from_matrix(A)
            e0, e1, e2, e3 = p
            E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
            qc[a:a + 3], qc[a + 3:a + 7] = r, p
            qdc[a:a + 3], qdc[a + 3:a + 7] = v, 0.5 * E.T @ w
        return qc, qdc

    def body_accelerations(self, t, q, qd):
        """{body: (r̈ global, ω̇ global)} from the synthesis accelerations (eqs. 8, 18)."""
        q, qd = np.asarray(q, float), np.asarray(qd, float)
        tm = self.terms(t, q, qd)
        qdd = self.accelerations(t, q, qd, tm)
        sm = self.sm
        Yd0 = tm["S"] @ qdd[:self.nbase] + tm["Td"]
        a0, wd0 = Yd0[:3], Yd0[3:]
        out = {sm.base: (a0, wd0)}
        off = self.nbase
        for si, (sub, d) in enumerate(zip(sm.subsystems, tm["subs"])):
            thdd = qdd[off:off + sub.ndof]
            off += sub.ndof
            if self.formulation == "relative-cartesian":        # eq. 18, then eq. 8 (h_i0 = 0)
                yd = d["N"] @ thdd + d["p"]
                for k, nm in enumerate(sub.bodies):
                    Ak = sm.base_A @ d["A"][k]
                    out[nm] = (a0 + sm.base_A @ yd[6 * k:6 * k + 3], Ak @ yd[6 * k + 3:6 * k + 6])
            else:                                               # eqs. 32, 26
                tree, kin = self._trees[si], d["kin"]
                qddt = np.zeros(tree.nq)
                qddt[tree.v] = thdd[0]
                qddt[tree.u] = d["c"] - d["R"][:, 0] * thdd[0]
                for k, nm in enumerate(sub.bodies):
                    Yd = kin["B"][k] @ qddt + kin["D"][k]
                    Yd[:3] += a0
                    Yd[3:] += wd0
                    wd = Yd[3:]
                    rk, _, rdk, w = d["bodies"][k]
                    out[nm] = (Yd[:3] - np.cross(rk, wd) - np.cross(rdk, w), wd)
        return out


class _Marks:
    """Operation counts per stage (Table 1): ``mark(stage)`` books the operations since the last
    mark to ``stage`` (``None``: to no stage)."""

    def __init__(self):
        from . import opcount as oc

        self.oc = oc
        self.counts: dict[str, list[int]] = {}
        self.last = oc._COUNTER.snapshot()

    def __call__(self, stage):
        now = self.oc._COUNTER.snapshot()
        if stage is not None:
            c = self.counts.setdefault(stage, [0, 0, 0])
            for i in range(3):
                c[i] += now[i] - self.last[i]
        self.last = now


def _fun_value(fun, t) -> float:
    """f(t) of an applied force's expression program (ops, args), by the engine's stack machine."""
    ops, args = (np.ascontiguousarray(a, float) for a in fun)
    return _engine.expr_eval(float(t), ops, args, 0, ops.size)[0]


def _sqrt(x):
    from .opcount import sqrt

    return sqrt(x)


def build(model, base: str, dof=None, **options) -> SynthesisSystem:
    """A :class:`SynthesisSystem` from a model (a :class:`~rtmbs.model.Model`, a YAML path or a
    built-in name), ``base`` the base body's name."""
    from ..model import Model, load_model_file
    from .description import subsystem_model

    if not isinstance(model, Model):
        from ..models import model_file

        path = model_file(str(model)) or model
        model = load_model_file(path)
    return SynthesisSystem(subsystem_model(model, base, dof), **options)
