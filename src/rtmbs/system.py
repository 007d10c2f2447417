"""``compile_model(model) -> CartesianSystem``: flat arrays, index maps and the compiled kernel.

A :class:`CartesianSystem` is a provider of the mechanical-system protocol (``rtmbs.protocol``)
for bodies in dependent Cartesian coordinates: 7 per body with Euler parameters (x, y, z, e0..e3;
seed 003 eq. 4.6) or 6 with zxz Euler angles (seed 002 §2.1).
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import ModelError, did_you_mean
from .kernels import cartesian as kc
from .kernels import functions as kf
from .kernels.arena import pack
from .kernels.evaluate import evaluate_cartesian
from .kernels.rotations import NROT, ROT_EP, ROTATION_NAMES
from .kernels.tyre_element import TYRE_OUTPUTS
from .elements import BY_NAME, ELEMENTS
from .elements.base import PackContext
from .elements.tyre import TYRE_FILES  # noqa: F401  (property files shipped, by short name)

#: named outputs of a bushing: force and torque on body j in marker_i axes
BUSHING_OUTPUTS = BY_NAME["bushing"].outputs
#: per-body acceleration outputs (CartesianSystem.acceleration_outputs)
ACCELERATION_OUTPUTS = ("ax", "ay", "az", "wdx", "wdy", "wdz")
from .model.description import JOINT_EQUATIONS, Input, Model
from .model.registry import joint_primitives
from .model.rotation import quaternion_from_matrix, zxz_from_matrix
from .protocol import EVAL_PHI, EVAL_Q, MechanicalSystem, State, Workspace

#: numeric code of each force element type: its index in the registry (rtmbs.model.registry)
_FORCE_CODE = {el.name: code for code, el in enumerate(ELEMENTS)}
#: constraint primitive of each primitive name of the joint table (rtmbs.model.registry.JOINTS)
_PRIM_CODE = {"point": kc.PRIM_SPH, "perp": kc.PRIM_DOT1, "offset": kc.PRIM_DOT2, "distance": kc.PRIM_DIST,
              "angle": kc.PRIM_ROTDRV}
_FUN_CODE = {"constant": kf.FUN_CONST, "step": kf.FUN_STEP, "ramp": kf.FUN_RAMP,
             "trapezoid": kf.FUN_TRAPEZOID, "sine": kf.FUN_SINE, "table": kf.FUN_TABLE,
             "channel": kf.FUN_CHANNEL}
_EX, _EY, _EZ = np.eye(3)


@dataclass
class _MarkerRef:
    body: int       # body index (nb = ground)
    s: np.ndarray   # origin in body frame
    C: np.ndarray   # axes in body frame (columns)


class _Builder:
    """Collects functions, tables, primitives and force rows while compiling."""

    def __init__(self):
        self.fun_type, self.fun_par, self.fun_tab = [], [], []
        self.tabs: list[tuple[np.ndarray, np.ndarray]] = []
        self.fun_names: dict[str, int] = {}
        self.prims: list[tuple] = []
        self.m = 0

    def table(self, x, y) -> int:
        self.tabs.append((np.asarray(x, float), np.asarray(y, float)))
        return len(self.tabs) - 1

    def function(self, spec, path) -> int:
        """Index of the function for a spec: number, input name or inline Input."""
        if spec is None:
            return -1
        if isinstance(spec, (int, float)):
            return self._add(kf.FUN_CONST, [float(spec)], -1)
        if isinstance(spec, str):
            if spec not in self.fun_names:
                raise ModelError(path, f"unknown input '{spec}'" + did_you_mean(spec, self.fun_names))
            return self.fun_names[spec]
        return self.input(spec)

    def input(self, inp: Input) -> int:
        code = _FUN_CODE[inp.type]
        tab = -1
        if inp.type in ("constant", "channel"):
            par = [inp.value]
        elif inp.type == "step":
            par = [inp.t0, inp.t1, inp.from_, inp.to]
        elif inp.type == "ramp":
            par = [inp.t0, inp.slope, inp.offset]
        elif inp.type == "trapezoid":
            par = [inp.t0, inp.rise, inp.hold, inp.fall, inp.amplitude, inp.offset]
        elif inp.type == "sine":
            par = [inp.amplitude, 2 * np.pi * inp.frequency_hz, inp.phase, inp.offset, inp.t0]
        else:
            par = []
            tab = self.table(inp.t, inp.values)
        k = self._add(code, par, tab)
        if inp.name:
            self.fun_names[inp.name] = k
        return k

    def _add(self, code, par, tab) -> int:
        p = np.zeros(kf.NPAR)
        p[: len(par)] = par
        self.fun_type.append(code)
        self.fun_par.append(p)
        self.fun_tab.append(tab)
        return len(self.fun_type) - 1

    def prim(self, ptype, bi, bj, s_i=None, s_j=None, a_i=None, a_j=None, b_i=None, par=0.0, fun=-1):
        v = np.zeros((6, 3))
        for k, x in enumerate((s_i, s_j, a_i, a_j, b_i)):
            if x is not None:
                v[k] = x
        row = self.m
        self.prims.append((ptype, row, bi, bj, v, par, fun))
        self.m += kc.PRIM_ROWS[ptype]
        return row


class CartesianSystem(MechanicalSystem):
    """A compiled body model. Sizes: ``nbody``, ``n``, ``m``; per-body ``body_names``,
    ``body_qadr`` (first coordinate), ``body_rtype``; per-joint ``joint_rows`` (name -> (first
    row, count)); ``force_names``; ``coordinate_names``; ``output_names``."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self._compile(model)

    # -- compile ------------------------------------------------------------------------------
    def _compile(self, model: Model):
        default_rot = ROTATION_NAMES[model.orientation_coordinates]
        names = [b.name for b in model.bodies]
        seen = set()
        for b in model.bodies:
            if b.name in seen or b.name == "ground":
                raise ModelError(f"bodies.{b.name}", "duplicate body name" if b.name in seen
                                 else "'ground' is reserved for the fixed frame")
            seen.add(b.name)
        nb = len(names)
        self.nbody = nb
        self.body_names = names
        self.body_index = {nm: i for i, nm in enumerate(names)}
        self.body_index["ground"] = nb
        rtype = np.array([ROTATION_NAMES[b.orientation_coordinates] if b.orientation_coordinates
                          else default_rot for b in model.bodies] + [ROT_EP], dtype=np.int64)
        qadr = np.full(nb + 1, -1, dtype=np.int64)
        n = 0
        for i in range(nb):
            qadr[i] = n
            n += 3 + NROT[rtype[i]]
        self.n = n
        # initial pose and velocities
        q0 = np.zeros(n)
        qd0 = np.zeros(n)
        A0 = np.zeros((nb + 1, 3, 3))
        r0 = np.zeros((nb + 1, 3))
        A0[nb] = np.eye(3)
        coord_names = []
        for i, b in enumerate(model.bodies):
            A = b.orientation.as_matrix() if b.orientation else np.eye(3)
            A0[i] = A
            r0[i] = b.position
            a = qadr[i]
            q0[a:a + 3] = b.position
            qd0[a:a + 3] = b.velocity
            w = np.asarray(b.angular_velocity, float)
            if rtype[i] == ROT_EP:
                p = quaternion_from_matrix(A)
                q0[a + 3:a + 7] = p
                e0, e1, e2, e3 = p
                E = np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])
                qd0[a + 3:a + 7] = 0.5 * E.T @ w
                coord_names += [f"{b.name}.{c}" for c in ("x", "y", "z", "e0", "e1", "e2", "e3")]
            else:
                try:
                    ang = zxz_from_matrix(A)
                except ValueError as exc:
                    raise ModelError(f"bodies.{b.name}.orientation", str(exc)) from None
                q0[a + 3:a + 6] = ang
                phi, th, _ = ang
                G = np.array([[0, np.cos(phi), np.sin(phi) * np.sin(th)],
                              [0, np.sin(phi), -np.cos(phi) * np.sin(th)], [1, 0, np.cos(th)]])
                qd0[a + 3:a + 6] = np.linalg.solve(G, w)
                coord_names += [f"{b.name}.{c}" for c in ("x", "y", "z", "phi", "theta", "psi")]
        self.coordinate_names = coord_names
        self.body_qadr = qadr
        self.body_rtype = rtype
        self._q0, self._qd0 = q0, qd0
        # markers
        markers: dict[str, _MarkerRef] = {}
        for i, b in enumerate(list(model.bodies) + [model.ground]):
            bname = names[i] if i < nb else "ground"
            for mk in b.markers:
                key = f"{bname}.{mk.name}"
                if key in markers:
                    raise ModelError(f"bodies.{bname}.markers.{mk.name}", "duplicate marker name")
                C = mk.orientation.as_matrix() if mk.orientation else np.eye(3)
                s = np.asarray(mk.position, float)
                if mk.frame == "global":
                    s = A0[i].T @ (s - r0[i])
                    C = A0[i].T @ C
                markers[key] = _MarkerRef(i, s, C)
            # every body has its centre-of-mass frame as marker "cm"
            markers.setdefault(f"{bname}.cm", _MarkerRef(i, np.zeros(3), np.eye(3)))
        self.markers = markers

        def marker(ref, path) -> _MarkerRef:
            if ref is None:
                raise ModelError(path, "required key is missing")
            if "." not in ref:
                raise ModelError(path, f"marker '{ref}' must be written body.marker")
            bname, _ = ref.split(".", 1)
            if bname not in self.body_index:
                raise ModelError(path, f"unknown body '{bname}'" + did_you_mean(bname, self.body_index))
            if ref not in markers:
                known = [k.split(".", 1)[1] for k in markers if k.startswith(bname + ".")]
                mk = ref.split(".", 1)[1]
                raise ModelError(path, f"unknown marker '{mk}' on body '{bname}'" + did_you_mean(mk, known))
            return markers[ref]

        bld = _Builder()
        for inp in model.inputs:
            if inp.name in bld.fun_names:
                raise ModelError(f"inputs.{inp.name}", "duplicate input name")
            bld.input(inp)
        self.input_names = tuple(i.name for i in model.inputs if i.type == "channel")
        # joints -> primitive rows (seed 003 §4.2.2)
        self.joint_rows: dict[str, tuple[int, int]] = {}
        self.joint_bodies: dict[str, tuple[int, int]] = {}
        for j in model.joints:
            path = f"joints.{j.name}"
            if j.name in self.joint_rows:
                raise ModelError(path, "duplicate joint name")
            mi = marker(j.marker_i, path + ".marker_i")
            mj = marker(j.marker_j, path + ".marker_j")
            if mi.body == mj.body:
                raise ModelError(path, "marker_i and marker_j are on the same body")
            bi, bj = mi.body, mj.body
            axes = {f"{c}{side}": m.C[:, e] for side, m in (("i", mi), ("j", mj)) for e, c in enumerate("xyz")}
            t = j.type
            start = bld.m
            for spec in joint_primitives(t, j.dof):  # the joint table (seed 003 §4.2.2)
                kind, *args = spec.split()
                fun = -1
                if args[-1:] == ["driven"]:
                    args = args[:-1]
                    fun = bld.function(j.function, path + ".function")
                a = [axes[x] for x in args] + [None] * (3 - len(args))
                if kind == "perp":
                    bld.prim(kc.PRIM_DOT1, bi, bj, a_i=a[0], a_j=a[1])
                elif kind == "angle":
                    bld.prim(kc.PRIM_ROTDRV, bi, bj, a_i=a[0], a_j=a[1], b_i=a[2], fun=fun)
                elif kind == "distance":
                    L = j.distance
                    if L is None:  # from the initial configuration
                        pi = r0[bi] + A0[bi] @ mi.s
                        pj = r0[bj] + A0[bj] @ mj.s
                        L = float(np.linalg.norm(pj - pi))
                    if L <= 0:
                        raise ModelError(path + ".distance", f"must be positive, got {L}")
                    bld.prim(kc.PRIM_DIST, bi, bj, s_i=mi.s, s_j=mj.s, par=L)
                else:  # point, offset
                    bld.prim(_PRIM_CODE[kind], bi, bj, s_i=mi.s, s_j=mj.s, a_i=a[0], fun=fun)
            count = bld.m - start
            assert count == JOINT_EQUATIONS[t], (t, count)
            self.joint_rows[j.name] = (start, count)
            self.joint_bodies[j.name] = (bi, bj)
        # Euler-parameter normalisation rows (seed 003 eq. 4.8)
        eprow = np.full(nb + 1, -1, dtype=np.int64)
        for i in range(nb):
            if rtype[i] == ROT_EP:
                eprow[i] = bld.m
                self.joint_rows[f"{names[i]}.euler-parameters"] = (bld.m, 1)
                bld.m += 1
        self.m = bld.m
        # forces
        nf = len(model.forces)
        ftype = np.zeros(nf, np.int64)
        fbody = np.zeros((nf, 2), np.int64)
        fvec = np.zeros((nf, 2, 3))
        frot = np.zeros((nf, 2, 3, 3))
        fpar = np.zeros((nf, kc.NFPAR))
        ffun = np.full((nf, 2), -1, np.int64)
        ftab = np.full((nf, 2), -1, np.int64)
        fstiff = np.zeros(nf, np.int64)
        self.force_names = []
        ctx = PackContext(table=bld.table, marker=marker, r0=r0, A0=A0)
        for k, fe in enumerate(model.forces):
            path = f"forces.{fe.name}"
            if fe.name in self.force_names:
                raise ModelError(path, "duplicate force name")
            self.force_names.append(fe.name)
            element = BY_NAME[fe.type]  # its module in rtmbs.elements
            ftype[k] = _FORCE_CODE[fe.type]
            fstiff[k] = int(bool(fe.stiff))
            if element.single_body:
                mj = marker(fe.marker_j or fe.marker_i, path + ".marker_j")
                mi = _MarkerRef(nb, np.zeros(3), np.eye(3))
            else:
                mi = marker(fe.marker_i, path + ".marker_i")
                mj = marker(fe.marker_j, path + ".marker_j")
                if mi.body == mj.body:
                    raise ModelError(path, "marker_i and marker_j are on the same body")
            fbody[k] = (mi.body, mj.body)
            fvec[k, 0], fvec[k, 1] = mi.s, mj.s
            frot[k, 0], frot[k, 1] = mi.C, mj.C
            ffun[k, 0] = bld.function(fe.function, path + ".function")
            ctx.path, ctx.par, ctx.tab, ctx.mi, ctx.mj = path, fpar[k], ftab[k], mi, mj
            element.pack(fe, ctx)
        tyres, roads = ctx.tyres, ctx.roads
        self._ntransient = ctx.ntransient
        # flat arrays
        ntab = len(bld.tabs)
        tab_len = np.array([len(x) for x, _ in bld.tabs], np.int64)
        tab_adr = np.concatenate([[0], np.cumsum(tab_len)[:-1]]).astype(np.int64) if ntab else np.zeros(0, np.int64)
        tab_x = np.concatenate([x for x, _ in bld.tabs]) if ntab else np.zeros(1)
        tab_y = np.concatenate([y for _, y in bld.tabs]) if ntab else np.zeros(1)
        npr = len(bld.prims)
        self.fun_type = np.array(bld.fun_type, np.int64) if bld.fun_type else np.zeros(0, np.int64)
        self.fun_par = np.array(bld.fun_par) if bld.fun_par else np.zeros((0, kf.NPAR))
        self.fun_names = dict(bld.fun_names)
        body_mass = np.zeros(nb + 1)
        body_inertia = np.zeros((nb + 1, 3, 3))
        for i, b in enumerate(model.bodies):
            body_mass[i] = b.mass
            body_inertia[i] = np.asarray(b.inertia, float)
        self.prim_type = np.array([p[0] for p in bld.prims], np.int64)
        self.prim_row = np.array([p[1] for p in bld.prims], np.int64)
        self.prim_body = np.array([(p[2], p[3]) for p in bld.prims], np.int64).reshape(npr, 2)
        self.body_eprow = eprow
        blk_pair, frc_blk = _virtual_blocks(nb, fbody, ftype)
        self.jacobian_blocks = blk_pair
        ints = [qadr, rtype, eprow, self.prim_type, self.prim_row, self.prim_body,
                np.array([p[6] for p in bld.prims], np.int64), ftype, fbody, ffun, ftab, fstiff,
                self.fun_type, np.array(bld.fun_tab, np.int64), tab_adr, tab_len, blk_pair, frc_blk]
        floats = [body_mass, body_inertia, np.asarray(model.gravity, float),
                  np.array([p[4] for p in bld.prims]).reshape(npr, 6, 3),
                  np.array([[p[5], 0.0] for p in bld.prims]).reshape(npr, 2),
                  fvec, frot, fpar, self.fun_par, tab_x, tab_y,
                  np.array(tyres).reshape(len(tyres), -1) if tyres else np.zeros((0, 1)),
                  np.concatenate(roads) if roads else np.zeros(1),
                  np.zeros(max(1, 2 * self._ntransient))]
        scratch = [np.zeros((nb + 1, 3)), np.zeros((nb + 1, 3)), np.zeros((nb + 1, 3, 3)),
                   np.zeros((nb + 1, 3, 4)), np.zeros((nb + 1, 4, 3, 4)), np.zeros((nb + 1, 3, 4)),
                   np.zeros((nb + 1, 3)), np.zeros((nb + 1, 3)), np.zeros((nb + 1, 3, 4)),
                   np.zeros((nb + 1, 3, 4)), np.zeros((4, 4, 3, 4)),
                   np.zeros((32, 3)), np.zeros((20, 3, 3)), np.zeros((max(self.m, 1), 12)),
                   np.zeros(max(self.m, 1)), np.zeros(3), np.zeros(3), np.zeros((3, 12)),
                   np.zeros((3, 12)), np.zeros((3, 12)), np.zeros((3, 12)), np.zeros(3), np.zeros(3),
                   np.zeros((3, 12)), np.zeros((3, 12)), np.zeros((9, 12)),
                   np.zeros((12, 12)), np.zeros((12, 12)), np.zeros((nf, kc.NFOUT)), np.zeros(16),
                   np.zeros((nb + 1, 9)), np.zeros((len(blk_pair), 6, 6)), np.zeros((len(blk_pair), 6, 6)),
                   np.zeros((nb + 1, 2, 3, 4)), np.zeros((2, 6, 7))]
        self._ibuf, self._ilay, iv = pack(ints, np.int64)
        self._fbuf, self._flay, fv = pack(floats, np.float64)
        self._sbuf, self._slay, sv = pack(scratch, np.float64)
        # Python-side views into the packed buffers (writing them writes what the kernel reads)
        self.sysa = (iv[0], iv[1], fv[0], fv[1], iv[2], fv[2], iv[3], iv[4], iv[5], fv[3], fv[4], iv[6],
                     iv[7], iv[8], fv[5], fv[6], fv[7], iv[9], iv[10], iv[11], iv[12], fv[8], iv[13],
                     iv[14], iv[15], fv[9], fv[10])
        self.fun_par = fv[8]
        self.nx = 2 * self._ntransient
        self.extra_state = fv[13][:self.nx]  # carcass deflections (u, v) of the transient tyres
        self._transient_rows = [k for k, fe in enumerate(model.forces) if fe.type == "tyre" and fe.transient]
        for b in range(nb):  # ∂G/∂p of Euler parameters is constant (G = 2E(p) is linear in p)
            if rtype[b] == ROT_EP:
                sv[4][b] = _EP_DG
        self._acc_scratch = (np.zeros((3, 3)), np.zeros((3, 4)), np.zeros((4, 3, 4)), np.zeros((3, 4)),
                             np.zeros(3), np.zeros((3, 4)), np.zeros((3, 4)), np.zeros((4, 4, 3, 4)))
        self.kin = tuple(sv[:11])
        self.scr = tuple(sv[11:28])
        self.force_out = sv[28][:, 0]
        self.force_out_all = sv[28]
        self.output_names = tuple(
            [f"{b}.{c}" for b in names for c in ("x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz")]
            + [f"{f}.force" for f in self.force_names]
            + [f"{fe.name}.{c}" for fe in model.forces if fe.type == "tyre" for c in TYRE_OUTPUTS]
            + [f"{fe.name}.{c}" for fe in model.forces if fe.type == "bushing" for c in BUSHING_OUTPUTS])
        self.acceleration_names = tuple(f"{b}.{c}" for b in names for c in ACCELERATION_OUTPUTS)
        self._tyre_rows = [k for k, fe in enumerate(model.forces) if fe.type == "tyre"]
        self._bushing_rows = [k for k, fe in enumerate(model.forces) if fe.type == "bushing"]
        # sparsity pattern of Φq (fixed: rows touch the coordinates of at most two bodies)
        pat = np.zeros((self.m, n), bool)
        for (pt, row, bi, bj, *_rest) in bld.prims:
            for r in range(row, row + kc.PRIM_ROWS[pt]):
                for b in (bi, bj):
                    if qadr[b] >= 0:
                        pat[r, qadr[b]:qadr[b] + 3 + NROT[rtype[b]]] = True
        for i in range(nb):
            if eprow[i] >= 0:
                pat[eprow[i], qadr[i] + 3:qadr[i] + 7] = True
        self.phiq_pattern = pat
        # M is block diagonal (one block of 3 + nr per body); Jq, Jq̇ couple the two bodies of each
        # force element (and each body with itself through the inertia terms when all terms count)
        mp = np.zeros((n, n), bool)
        for i in range(nb):
            a, w = qadr[i], 3 + NROT[rtype[i]]
            mp[a:a + w, a:a + w] = True
        self.mass_pattern = mp
        self._fbodies = fbody.copy()
        self._fstiff = fstiff.copy()

    # -- protocol --------------------------------------------------------------------------------
    def evaluate(self, t, q, qd, ws: Workspace, what: int) -> None:
        evaluate_cartesian(what, float(t), q, qd, self._ibuf, self._ilay, self._fbuf, self._flay,
                           self._sbuf, self._slay, ws.buf, self.n, self.m)

    def initial_state(self) -> State:
        if not hasattr(self, "_initial"):
            from .assembly import assemble

            # redundant joint sets are accepted here: the fixed-step solvers leave the dependent
            # rows out (solvers.redundancy), the offline ones handle them
            q, qd = assemble(self, self._q0, self._qd0, 0.0, check_redundant=False)
            self._initial = State(0.0, q, qd, np.zeros(self.nx))
        return self._initial.copy()

    # -- extra first-order states: the transient tyres' deflections (seed 003 eqs. 4.22-4.24) ----
    def set_extra(self, x) -> None:
        self.extra_state[:] = x

    def extra_rates(self, t, q, qd, x, out) -> None:
        """du/dt, dv/dt of every transient tyre (eq. 4.23) at (t, q, q̇, x)."""
        from .vehicle.tyre.contact import transient_rates

        self.set_extra(x)
        ws = self._ows if hasattr(self, "_ows") else self.workspace()
        self._ows = ws
        self.evaluate(t, q, qd, ws, EVAL_Q)
        for j, r in enumerate(self._transient_rows):
            vsx, vsy, vx, sk, sa = self.force_out_all[r, 8:13]
            out[2 * j], out[2 * j + 1] = transient_rates(x[2 * j], x[2 * j + 1], vsx, vsy, vx, sk, sa)

    def advance_extra(self, state: State, h: float) -> None:
        """Exact exponential update of the deflections over one step with the inputs of the step's
        start (the last force evaluation of the solver): stable at any speed and step."""
        from .vehicle.tyre.contact import transient_step

        x = state.x
        for j, r in enumerate(self._transient_rows):
            vsx, vsy, vx, sk, sa = self.force_out_all[r, 8:13]
            x[2 * j], x[2 * j + 1] = transient_step(x[2 * j], x[2 * j + 1], vsx, vsy, vx, sk, sa, h)
        self.extra_state[:] = x

    def set_input(self, name: str, value: float) -> None:
        k = self.fun_names.get(name)
        if k is None or self.fun_type[k] != kf.FUN_CHANNEL:
            raise KeyError(f"unknown input channel '{name}'" + did_you_mean(name, self.input_names))
        self.fun_par[k, 0] = value

    def acceleration_outputs(self, t, q, qd, qdd, out) -> None:
        """Per body the centre-of-mass acceleration (ax, ay, az) and the angular acceleration
        ω̇ = G p̈ + α (wdx, wdy, wdz), global axes, from the accelerations q̈."""
        scr = self._acc_scratch
        kc.body_accelerations(np.asarray(q, float), np.asarray(qd, float), np.asarray(qdd, float),
                              self.body_qadr, self.body_rtype, *scr, out)

    def outputs(self, t, q, qd, out) -> None:
        ws = self._ows if hasattr(self, "_ows") else self.workspace()
        self._ows = ws
        self.evaluate(t, q, qd, ws, EVAL_Q)
        kin_r, kin_rd, kin_w = self.kin[0], self.kin[1], self.kin[6]
        k = 0
        for b in range(self.nbody):
            out[k:k + 3] = kin_r[b]
            out[k + 3:k + 6] = kin_rd[b]
            out[k + 6:k + 9] = kin_w[b]
            k += 9
        nf = len(self.force_names)
        out[k:k + nf] = self.force_out
        k += nf
        for r in self._tyre_rows:
            out[k:k + len(TYRE_OUTPUTS)] = self.force_out_all[r, 1:1 + len(TYRE_OUTPUTS)]
            k += len(TYRE_OUTPUTS)
        for r in self._bushing_rows:
            out[k:k + 6] = self.force_out_all[r, 1:7]
            k += 6

    def jacobian_pattern(self, stiff_only: bool = True) -> np.ndarray:
        """Fixed sparsity pattern of Jq and Jq̇ (n×n bool): the coordinate blocks of the two bodies of
        each (stiff) force element, plus the rotation blocks of every body when all terms count."""
        pat = np.zeros((self.n, self.n), bool)
        blocks = [(self.body_qadr[b], 3 + NROT[self.body_rtype[b]]) for b in range(self.nbody)] + [(-1, 0)]
        for k in range(len(self._fstiff)):
            if stiff_only and not self._fstiff[k]:
                continue
            for bi in self._fbodies[k]:
                for bj in self._fbodies[k]:
                    (a, w), (c, v) = blocks[bi], blocks[bj]
                    if a >= 0 and c >= 0:
                        pat[a:a + w, c:c + v] = True
        if not stiff_only:
            pat |= self.mass_pattern
        return pat

    # -- analysis ---------------------------------------------------------------------------------
    def kinetic_energy(self, q, qd) -> float:
        return 0.5 * qd @ self.mass(q) @ qd

    def energy(self, q, qd) -> float:
        """Kinetic + gravitational + linear spring/bushing energy (dampers and drives excluded)."""
        g = self.sysa[5]
        V = 0.0
        for b in range(self.nbody):
            a = self.body_qadr[b]
            V -= self.sysa[2][b] * g @ q[a:a + 3]
        return self.kinetic_energy(q, qd) + V + self._spring_energy(q)

    def _spring_energy(self, q) -> float:
        from .kernels.rotations import rotation_matrix

        E = 0.0
        ftype, fbody, fvec, fpar = self.sysa[12], self.sysa[13], self.sysa[14], self.sysa[16]
        for k in range(len(ftype)):
            if ftype[k] != _FORCE_CODE["spring-damper"] or self.sysa[18][k, 0] >= 0:
                continue
            pts = []
            for side in range(2):
                b = fbody[k, side]
                if self.body_qadr[b] < 0:
                    pts.append(fvec[k, side].copy())
                    continue
                a = self.body_qadr[b]
                A = np.zeros((3, 3))
                rotation_matrix(self.body_rtype[b], q[a + 3:a + 3 + NROT[self.body_rtype[b]]].copy(), A)
                pts.append(q[a:a + 3] + A @ fvec[k, side])
            L = np.linalg.norm(pts[1] - pts[0])
            E += 0.5 * fpar[k, 0] * (L - fpar[k, 2]) ** 2 + fpar[k, 3] * (L - fpar[k, 2])
        return E

    def rank(self, q=None, t=0.0) -> int:
        q = self.initial_state().q if q is None else q
        if self.m == 0:
            return 0
        J = self.constraint_jacobian(q, t)
        s = np.linalg.svd(J, compute_uv=False)
        return int((s > s[0] * max(J.shape) * 1e-12).sum()) if s.size and s[0] > 0 else 0

    def redundant_joints(self, q=None, t=0.0) -> list[tuple[str, int]]:
        """Joints whose equations depend on those before them: [(name, dependent count)]."""
        q = self._q0 if q is None else q
        J = self.constraint_jacobian(q, t)
        scale = max(np.abs(J).max(), 1.0)
        out = []
        rank = 0
        rows = np.zeros((0, self.n))
        for name, (start, count) in self.joint_rows.items():
            rows = np.vstack([rows, J[start:start + count]])
            s = np.linalg.svd(rows, compute_uv=False)
            r = int((s > scale * 1e-9).sum())
            if r < rank + count:
                out.append((name, rank + count - r))
            rank = r
        return out

    def joint_reactions(self, q, qd, t, lam) -> dict[str, np.ndarray]:
        """Reaction on body j of each joint, at marker_j, in global axes: (Fx, Fy, Fz, Tx, Ty, Tz).

        From the multipliers: the generalised reaction is −Φqᵀλ (seed 000 eq. 1), i.e. −Dᵀλ in
        virtual coordinates; the torque is moved from the centre of mass to the marker.
        With redundant constraints λ is the minimum-norm choice, so are the reactions.
        """
        ws = self.workspace()
        self.evaluate(t, q, qd, ws, EVAL_PHI)
        Dx = self.scr[2]
        kin_A = self.kin[2]
        out = {}
        for name, (start, count) in self.joint_rows.items():
            if name not in self.joint_bodies:
                continue
            bi, bj = self.joint_bodies[name]
            v = -(Dx[start:start + count, 6:12].T @ lam[start:start + count])
            F, T = v[:3], v[3:]
            mj = self.markers[self.model.joints[list(self.joint_bodies).index(name)].marker_j]
            sg = kin_A[bj] @ mj.s
            out[name] = np.concatenate([F, T - np.cross(sg, F)])
        return out


def _ep_E(p):
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])


_EP_DG = np.array([2.0 * _ep_E(np.eye(4)[k]) for k in range(4)])  # ∂(2E)/∂p_k


def _virtual_blocks(nb, fbody, ftype):
    """The 6×6 blocks in which forces and inertia terms accumulate their Jacobians in virtual
    coordinates (δr, δπ) before one mapping to q per block (kernels.evaluate): one per body, then
    one per ordered pair of bodies coupled by a force element. Returns (body a, body b, 1 if an
    element with a force writes the block else 0: rotation terms only) per block and, per element, the block of its (i,i), (i,j),
    (j,i), (j,j) couplings (−1 with the ground)."""
    pairs = [(b, b) for b in range(nb)]
    index = {pr: k for k, pr in enumerate(pairs)}
    # blocks with translational terms: written by an element with a force (torque-only elements,
    # like the inertia terms, fill only the rotation rows and columns)
    coupled = set()
    frc_blk = np.full((len(fbody), 4), -1, np.int64)
    for k, (bi, bj) in enumerate(fbody):
        for sa, a in enumerate((bi, bj)):
            for sb, b in enumerate((bi, bj)):
                if a == nb or b == nb:
                    continue
                if (a, b) not in index:
                    index[(a, b)] = len(pairs)
                    pairs.append((a, b))
                frc_blk[k, 2 * sa + sb] = index[(a, b)]
                if not ELEMENTS[ftype[k]].torque_only:
                    coupled.add(index[(a, b)])
    blocks = np.array([(a, b, int(k in coupled)) for k, (a, b) in enumerate(pairs)], np.int64).reshape(-1, 3)
    return blocks, frc_blk


def compile_model(model: Model) -> CartesianSystem:
    """Compile a model description into a :class:`CartesianSystem` (checks every reference)."""
    return CartesianSystem(model)
