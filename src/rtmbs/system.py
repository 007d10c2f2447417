"""``compile_model(model) -> CartesianSystem``: flat arrays, index maps and the compiled kernel.

A :class:`CartesianSystem` is a provider of the mechanical-system protocol (``rtmbs.protocol``)
for bodies in dependent Cartesian coordinates: 7 per body with Euler parameters (x, y, z, e0..e3;
Carpinelli 2015 eq. 4.6) or 6 with zxz Euler angles (Pękal & Frączek 2016 §2.1).
"""
from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from .errors import ModelError, did_you_mean
from .kernels import codes
from .kernels.layouts import DATA, FIELD_CONSTANTS, MODEL_FLOATS, MODEL_INTS
from .engine import _engine
from .kernels.codes import (NROT, OUT_FORCE, OUT_R, OUT_RD, OUT_SENSOR, OUT_W, ROT_EP, ROTATION_NAMES,
                            TYRE_OUTPUTS, TYRE_TRANSIENT_COLUMNS)
from .kernels.elements import BY_NAME, ELEMENTS
from .kernels.elements.base import PackContext
from .kernels.elements.tyre import TYRE_FILES  # noqa: F401  (property files shipped, by short name)

#: named outputs of a bushing: force and torque on body j in marker_i axes
BUSHING_OUTPUTS = BY_NAME["bushing"].outputs
#: per-body acceleration outputs (CartesianSystem.acceleration_outputs)
ACCELERATION_OUTPUTS = ("ax", "ay", "az", "wdx", "wdy", "wdz")
from .model.expression import compile_expression
from .model.description import JOINT_EQUATIONS, Input, Model
from .model.registry import joint_primitives
from .model.rotation import quaternion_from_matrix, zxz_from_matrix
from .protocol import EVAL_PHI, EVAL_PHIQ, EVAL_Q, MechanicalSystem, State, Workspace
from .tolerances import MODEL_RANK_RTOL

#: numeric code of each force element type: its index in the registry (rtmbs.model.registry)
_FORCE_CODE = {el.name: code for code, el in enumerate(ELEMENTS)}
#: constraint primitive of each primitive name of the joint table (rtmbs.model.registry.JOINTS)
_PRIM_CODE = {"point": codes.PRIM_SPH, "perp": codes.PRIM_DOT1, "offset": codes.PRIM_DOT2, "distance": codes.PRIM_DIST,
              "angle": codes.PRIM_ROTDRV}
_FUN_CODE = {"constant": codes.FUN_CONST, "step": codes.FUN_STEP, "ramp": codes.FUN_RAMP,
             "trapezoid": codes.FUN_TRAPEZOID, "sine": codes.FUN_SINE, "table": codes.FUN_TABLE,
             "expr": codes.FUN_EXPR, "channel": codes.FUN_CHANNEL}
_EX, _EY, _EZ = np.eye(3)

#: The attributes of a compiled system that a run writes, one set per data object (:class:`Data`;
#: MuJoCo's mjData): the engine's DATA buffer (``_sbuf``, its layout ``_slay``, its views
#: ``data``) and the views ``fun_par`` (input functions and channel values), ``extra_state``,
#: ``force_out_all``, ``force_out``; the channels driven by Python callables, the initial state
#: assembled with them, and the scratch workspaces of ``outputs`` and ``extra_rates`` (made at
#: first use). Everything else of a :class:`CartesianSystem` is the model, read-only during a run.
DATA_ATTRIBUTES = ("_sbuf", "_slay", "data", "fun_par", "extra_state", "force_out_all", "force_out",
                   "_input_functions", "_initial", "_outputs_ws", "_rates_ws")

#: Time step of the central differences that give the rate and acceleration of an input driven
#: by a callable returning only its value: δ ≈ ε^¼ balances truncation (δ²) and round-off (ε/δ²),
#: both about 1e-8 relative for a function varying on a time scale of 1 s.
INPUT_FD_STEP = 1.2e-4


def input_function_value(name: str, fn, t: float) -> tuple[float, float, float]:
    """(f, ḟ, f̈) of an input callable at ``t``: its own derivatives when it returns three
    numbers, central differences of its values otherwise; a non-finite value names the input."""
    v = fn(t)
    if np.ndim(v) == 0:
        d = INPUT_FD_STEP
        fp, fm = float(fn(t + d)), float(fn(t - d))
        v = (float(v), (fp - fm) / (2 * d), (fp - 2 * float(v) + fm) / (d * d))
    elif np.shape(v) != (3,):
        raise ValueError(f"input '{name}': f(t) must return a number or (value, rate, "
                         f"acceleration), got shape {np.shape(v)}")
    out = tuple(float(x) for x in v)
    if not all(math.isfinite(x) for x in out):
        raise ValueError(f"input '{name}': f({t:g}) gave {out} (not finite)")
    return out


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
            return self._add(codes.FUN_CONST, [float(spec)], -1)
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
        elif inp.type == "expr":  # the program, stored as a table (the engine's functions.c)
            par = []
            tab = self.table(*compile_expression(inp.expr))
        else:
            par = []
            tab = self.table(inp.t, inp.values)
        k = self._add(code, par, tab)
        if inp.name:
            self.fun_names[inp.name] = k
        return k

    def _add(self, code, par, tab) -> int:
        p = np.zeros(codes.NPAR)
        p[: len(par)] = par
        self.fun_type.append(code)
        self.fun_par.append(p)
        self.fun_tab.append(tab)
        return len(self.fun_type) - 1

    def prim(self, ptype, bi, bj, s_i=None, s_j=None, a_i=None, a_j=None, b_i=None, par=0.0, fun=-1,
             term=None, row=None):
        """Add a primitive (its rows follow the last); a coupler term (``term`` = (c, s0, P))
        shares the given ``row``."""
        v = np.zeros((6, 3))
        for k, x in enumerate((s_i, s_j, a_i, a_j, b_i, term)):
            if x is not None:
                v[k] = x
        row = self.m if row is None else row
        self.prims.append((ptype, row, bi, bj, v, par, fun))
        self.m += codes.PRIM_ROWS[ptype]
        return row


class CartesianSystem(MechanicalSystem):
    """A compiled body model. Sizes: ``nbody``, ``n``, ``m``; per-body ``body_names``,
    ``body_qadr`` (first coordinate), ``body_rtype``; per-joint ``joint_rows`` (name -> (first
    row, count)); ``force_names``; ``coordinate_names``; ``output_names``. It carries one data
    object's attributes (:data:`DATA_ATTRIBUTES`), so that ``evaluate``, ``outputs``,
    ``set_input`` work on it directly; :meth:`new_data` makes more (:class:`Data`)."""

    def __init__(self, model: Model):
        self.model = model
        self.name = model.name
        self._compile(model)

    # -- compile ------------------------------------------------------------------------------
    def _compile(self, model: Model):
        default_rot = ROTATION_NAMES[model.orientation_coordinates]
        if not model.bodies:
            from .model.files import NO_BODIES

            raise ModelError("bodies", NO_BODIES)
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
        # joints -> primitive rows (Carpinelli 2015 §4.2.2)
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
            for spec in joint_primitives(t, j.dof):  # the joint table (Carpinelli 2015 §4.2.2)
                kind, *args = spec.split()
                fun = -1
                if args[-1:] == ["driven"]:
                    args = args[:-1]
                    fun = bld.function(j.function, path + ".function")
                a = [axes[x] for x in args] + [None] * (3 - len(args))
                if kind == "perp":
                    bld.prim(codes.PRIM_DOT1, bi, bj, a_i=a[0], a_j=a[1])
                elif kind == "angle":
                    bld.prim(codes.PRIM_ROTDRV, bi, bj, a_i=a[0], a_j=a[1], b_i=a[2], fun=fun)
                elif kind == "distance":
                    L = j.distance
                    if L is None:  # from the initial configuration
                        pi = r0[bi] + A0[bi] @ mi.s
                        pj = r0[bj] + A0[bj] @ mj.s
                        L = float(np.linalg.norm(pj - pi))
                    if L <= 0:
                        raise ModelError(path + ".distance", f"must be positive, got {L}")
                    bld.prim(codes.PRIM_DIST, bi, bj, s_i=mi.s, s_j=mj.s, par=L)
                else:  # point, offset
                    bld.prim(_PRIM_CODE[kind], bi, bj, s_i=mi.s, s_j=mj.s, a_i=a[0], fun=fun)
            count = bld.m - start
            assert count == JOINT_EQUATIONS[t], (t, count)
            self.joint_rows[j.name] = (start, count)
            self.joint_bodies[j.name] = (bi, bj)
        self._ncoupler_terms = self._couplers(model, bld, markers, r0, A0)
        # Euler-parameter normalisation rows (Carpinelli 2015 eq. 4.8)
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
        fpar = np.zeros((nf, codes.NFPAR))
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
            element = BY_NAME[fe.type]  # its module in rtmbs.kernels.elements
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
        self.fun_par = np.array(bld.fun_par) if bld.fun_par else np.zeros((0, codes.NPAR))
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
        blk_pair, frc_blk = _virtual_blocks(nb, fbody, ftype, fstiff)
        self.jacobian_blocks = blk_pair
        sns_spec, sns_par = self._sensors(model, names)
        ints = dict(body_qadr=qadr, body_rtype=rtype, body_eprow=eprow, prim_type=self.prim_type,
                    prim_row=self.prim_row, prim_body=self.prim_body,
                    prim_fun=np.array([p[6] for p in bld.prims], np.int64), frc_type=ftype,
                    frc_body=fbody, frc_fun=ffun, frc_tab=ftab, frc_stiff=fstiff, fun_type=self.fun_type,
                    fun_tab=np.array(bld.fun_tab, np.int64), tab_adr=tab_adr, tab_len=tab_len,
                    blk_pair=blk_pair, frc_blk=frc_blk, sns_spec=sns_spec)
        floats = dict(body_mass=body_mass, body_inertia=body_inertia, gravity=np.asarray(model.gravity, float),
                      prim_vec=np.array([p[4] for p in bld.prims]).reshape(npr, 6, 3),
                      prim_par=np.array([[p[5], 0.0] for p in bld.prims]).reshape(npr, 2),
                      frc_vec=fvec, frc_rot=frot, frc_par=fpar, tab_x=tab_x, tab_y=tab_y,
                      tyre_par=np.array(tyres).reshape(len(tyres), -1) if tyres else np.zeros((0, 1)),
                      road=np.concatenate(roads) if roads else np.zeros(1), sns_par=sns_par)
        self._ibuf, self._ilay, self.arrays_int = MODEL_INTS.pack(ints)
        self._fbuf, self._flay, self.arrays = MODEL_FLOATS.pack(floats)
        for a in (self._ibuf, self._ilay, self._fbuf, self._flay, *vars(self.arrays_int).values(),
                  *vars(self.arrays).values()):  # the model is read-only
            a.flags.writeable = False
        self.nx = 2 * self._ntransient
        self._fun_par0 = self.fun_par.copy()
        # Dx / beta: a row per constraint, then one per coupler term (kernels.codes PRIM_CPL)
        self._data_sizes = (nb, max(self.m + self._ncoupler_terms, 1), nf, len(blk_pair))
        self._transient_rows = [k for k, fe in enumerate(model.forces) if fe.type == "tyre" and fe.transient]
        vars(self).update(self._fresh_data())
        self.output_names = tuple(
            [f"{b}.{c}" for b in names for c in ("x", "y", "z", "vx", "vy", "vz", "wx", "wy", "wz")]
            + [f"{f}.force" for f in self.force_names]
            + [f"{fe.name}.{c}" for fe in model.forces if fe.type == "tyre" for c in TYRE_OUTPUTS]
            + [f"{fe.name}.{c}" for fe in model.forces if fe.type == "bushing" for c in BUSHING_OUTPUTS]
            + [sn.name for sn in model.sensors])
        self.sensor_units = {sn.name: sn.unit for sn in model.sensors}
        self.acceleration_names = tuple(f"{b}.{c}" for b in names for c in ACCELERATION_OUTPUTS)
        self._tyre_rows = [k for k, fe in enumerate(model.forces) if fe.type == "tyre"]
        self._bushing_rows = [k for k, fe in enumerate(model.forces) if fe.type == "bushing"]
        self.output_map = self._output_map()
        self.output_map.flags.writeable = False
        self.output_index = self._output_index()
        self.output_index.flags.writeable = False
        # sparsity pattern of Φq (fixed: a row touches the coordinates of two bodies, a coupler row
        # those of the bodies of its joints)
        pat = np.zeros((self.m, n), bool)
        for (pt, row, bi, bj, *_rest) in bld.prims:
            for r in range(row, row + (codes.PRIM_ROWS[pt] or 1)):  # a coupler term: its row
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
        ms = np.zeros((n, n), bool)
        for i in range(nb):
            a, w = qadr[i], 3 + NROT[rtype[i]]
            mp[a:a + w, a:a + w] = True
            ms[range(a, a + 3), range(a, a + 3)] = True
            ms[a + 3:a + w, a + 3:a + w] = True
        self.mass_pattern = mp
        #: the entries M can hold within its blocks: m I₃ on the translations and the rotation
        #: block, nothing between them (r is the centre of mass: the engine's ``rtmbs_inertia``,
        #: mass.c, writes zeros there). The KKT matrices of ``li-euler`` are patterned on it: 8-33 % fewer
        #: multiply-adds in their LU than on the full blocks (docs/benchmarks.md).
        self.mass_structure = ms
        self._fbodies = fbody.copy()
        self._fstiff = fstiff.copy()

    def _couplers(self, model, bld, markers, r0, A0) -> int:
        """One row Σ c_k (s_k − s_k0) − offset = 0 per coupler (PRIM_CPL terms); the number of terms.
        Rotation terms wrap the row with the period 2π g, g the largest value of which every
        rotation coefficient is an integer multiple (the angles are known modulo 2π only)."""
        joints = {j.name: j for j in model.joints}
        nterms = 0
        for cp in model.couplers:
            path = f"couplers.{cp.name}"
            if cp.name in self.joint_rows:
                raise ModelError(path, "duplicate name (joints and couplers share their names)")
            terms = []
            for jn, c in cp.terms():
                j = joints.get(jn)
                if j is None:
                    raise ModelError(path + ".joints", f"unknown joint '{jn}'" + did_you_mean(jn, joints))
                if j.type not in ("revolute", "prismatic", "cylindrical"):
                    raise ModelError(path + ".joints", f"joint '{jn}' is a {j.type} joint: a coupler needs "
                                     "a revolute (rotation about marker_i z), prismatic or cylindrical "
                                     "(translation along marker_i z) joint")
                mi, mj = markers[j.marker_i], markers[j.marker_j]
                Bi, Bj = A0[mi.body] @ mi.C, A0[mj.body] @ mj.C
                if j.type == "revolute":
                    al, be = Bi[:, 0] @ Bj[:, 0], Bi[:, 1] @ Bj[:, 0]
                    if np.hypot(al, be) < 1e-6:
                        raise ModelError(path + ".joints", f"joint '{jn}': marker_j x is along marker_i z: "
                                         "no angle about marker_i z")
                    terms.append((True, c, float(np.arctan2(be, al)), mi, mj))
                else:
                    d = (r0[mj.body] + A0[mj.body] @ mj.s) - (r0[mi.body] + A0[mi.body] @ mi.s)
                    terms.append((False, c, float(Bi[:, 2] @ d), mi, mj))
            period = _wrap_period([c for rot, c, *_ in terms if rot], path)
            row = bld.m
            bld.m += 1
            for k, (rot, c, s0, mi, mj) in enumerate(terms):
                if k == 0:
                    s0 += cp.offset / c
                term = (c, s0, period if k == len(terms) - 1 else 0.0)
                if rot:
                    bld.prim(codes.PRIM_CPL, mi.body, mj.body, a_i=mi.C[:, 0], a_j=mj.C[:, 0], b_i=mi.C[:, 1],
                             par=1.0, term=term, row=row)
                else:
                    bld.prim(codes.PRIM_CPL, mi.body, mj.body, s_i=mi.s, s_j=mj.s, a_i=mi.C[:, 2], par=0.0,
                             term=term, row=row)
            nterms += len(terms)
            self.joint_rows[cp.name] = (row, 1)
        return nterms

    # -- data (one per run) -------------------------------------------------------------------------
    def _fresh_data(self) -> dict:
        """Every per-run attribute (:data:`DATA_ATTRIBUTES`), new: the engine's DATA buffer
        (:mod:`rtmbs.kernels.layouts`: kinematics, scratch and element outputs, the input functions
        with their channels at their initial values, the extra states at zero) and the views into
        it, no input callables, no initial state yet, no scratch workspaces yet."""
        nb, m1, nf, nblk = self._data_sizes
        z = np.zeros
        arrays = dict(
            fun_par=self._fun_par0, xstate=z(1 + self.nx), kin_r=z((nb + 1, 3)), kin_rd=z((nb + 1, 3)),
            kin_A=z((nb + 1, 3, 3)), kin_G=z((nb + 1, 3, 4)), kin_dG=z((nb + 1, 4, 3, 4)),
            kin_W=z((nb + 1, 3, 4)), kin_w=z((nb + 1, 3)), kin_alpha=z((nb + 1, 3)),
            kin_dadp=z((nb + 1, 3, 4)), kin_dadpd=z((nb + 1, 3, 4)), d2G=z((4, 4, 3, 4)),
            tmp=z((32, 3)), S=z((20, 3, 3)), Dx=z((m1, 12)), beta=z(m1), f=z(3), tau=z(3),
            dfdx=z((3, 12)), dfdv=z((3, 12)), dtdx=z((3, 12)), dtdv=z((3, 12)), arm_i=z(3), sgj=z(3),
            Dd=z((3, 12)), Ddd=z((3, 12)), X=z((9, 12)), frc_out=z((nf, codes.NFOUT)), mf=z(16),
            vQ=z((nb + 1, 9)), vK=z((nblk, 6, 6)), vC=z((nblk, 6, 6)), vP=z((nb + 1, 2, 3, 4)),
            KL=z((2, 6, 7)), warning=z((FIELD_CONSTANTS["RTMBS_WARNSLOTS"], 3)),
            left_worst=np.array([0.0, -1.0]), counter=z(FIELD_CONSTANTS["RTMBS_COUNTSLOTS"]))
        buf, lay, views = DATA.pack(arrays)
        for b in range(nb):  # ∂G/∂p of Euler parameters is constant (G = 2E(p) is linear in p)
            if self.body_rtype[b] == ROT_EP:
                views.kin_dG[b] = _EP_DG
        own = dict(
            _sbuf=buf, _slay=lay, data=views, fun_par=views.fun_par,
            # xstate: [h, u0, v0, u1, ...]: the solver's step h (0 outside a fixed step) for the
            # transient tyres' end-of-step deflections, then the carcass deflections (u, v) per tyre
            extra_state=views.xstate[1:1 + self.nx], force_out_all=views.frc_out,
            force_out=views.frc_out[:, 0],
            _input_functions={},  # channel index -> (name, f(t)): set_input_functions
            _initial=None, _outputs_ws=None, _rates_ws=None)
        assert tuple(own) == DATA_ATTRIBUTES
        return own

    def new_data(self) -> "Data":
        """A new :class:`Data` of this compiled model: its own engine buffer, input channels (at
        their initial values), extra states (zero) and scratch. Runs on different data objects
        are independent; the model (sizes, names, index maps, the read-only model buffers) is
        read from this object, not copied."""
        return Data(self)

    # -- protocol --------------------------------------------------------------------------------
    def evaluate(self, t, q, qd, ws: Workspace, what: int) -> None:
        # contiguous q, q̇ (no copy when they are): one compiled specialisation, not one per layout
        q = np.ascontiguousarray(q, dtype=np.float64)
        qd = np.ascontiguousarray(qd, dtype=np.float64)
        if self._input_functions:
            self.apply_input_functions(t)
        _engine.evaluate(int(what), float(t), q, qd, self._ibuf, self._ilay, self._fbuf, self._flay,
                         self._sbuf, self._slay, ws.buf, self.n, self.m)

    @property
    def packed_layout(self) -> "PackedLayout":
        """Where M, Φq, Jq, Jq̇ live in a packed workspace (``evaluate`` with ``_PACKED``)."""
        if "_packed" not in self.__dict__:
            self._packed = PackedLayout(self)
        return self._packed

    def evaluate_packed(self, t, q, qd, buf, what: int) -> None:
        """:meth:`evaluate` into a packed workspace buffer (:attr:`packed_layout`)."""
        q = np.ascontiguousarray(q, dtype=np.float64)
        qd = np.ascontiguousarray(qd, dtype=np.float64)
        if self._input_functions:
            self.apply_input_functions(t)
        _engine.evaluate(int(what) | codes._PACKED, float(t), q, qd, self._ibuf, self._ilay, self._fbuf,
                         self._flay, self._sbuf, self._slay, buf, self.n, self.m)

    def kernel_buffers(self) -> tuple:
        """The packed buffers the compiled kernels take: (ints, int layout, floats, float layout,
        data, data layout) (the engine's calls, ``rtmbs.engine._engine``)."""
        return (self._ibuf, self._ilay, self._fbuf, self._flay, self._sbuf, self._slay)

    def initial_state(self) -> State:
        if self._initial is None:
            from .assembly import assemble

            # redundant joint sets are accepted here: the fixed-step solvers leave the dependent
            # rows out (solvers.redundancy), the offline ones handle them
            q, qd = assemble(self, self._q0, self._qd0, 0.0, check_redundant=False)
            self._initial = State(0.0, q, qd, np.zeros(self.nx))
        return self._initial.copy()

    # -- extra first-order states: the transient tyres' deflections (Carpinelli 2015 eqs. 4.22-4.24) ----
    def set_extra(self, x) -> None:
        """The extra states; also clears the step of :meth:`set_extra_step` (deflections as given)."""
        self.extra_state[:] = x
        self.data.xstate[0] = 0.0

    def set_extra_step(self, h: float) -> None:
        """Step length of the fixed-step solver about to step (0: none). With h > 0 the transient
        tyres use their deflections at the step's end, advanced with the slip velocities of the
        evaluated state (``contact.transient_slips_lowspeed``): the linearly implicit solvers
        see the deflections' stiff coupling through the velocity Jacobian."""
        self.data.xstate[0] = h

    def extra_rates(self, t, q, qd, x, out) -> None:
        """du/dt, dv/dt of every transient tyre (eq. 4.23) at (t, q, q̇, x)."""
        from .vehicle.tyre.contact import transient_rates

        self.set_extra(x)
        if self._rates_ws is None:
            self._rates_ws = self.workspace()
        ws = self._rates_ws
        self.evaluate(t, q, qd, ws, EVAL_Q)
        for j, r in enumerate(self._transient_rows):
            vsx, vsy, vx, sk, sa = self.force_out_all[r, TYRE_TRANSIENT_COLUMNS]
            out[2 * j], out[2 * j + 1] = transient_rates(x[2 * j], x[2 * j + 1], vsx, vsy, vx, sk, sa)

    def advance_extra(self, state: State, h: float) -> None:
        """Exact exponential update of the deflections over one step with the inputs of the step's
        start (the last force evaluation of the solver): stable at any speed and step
        (the engine's ``extra_states.c``, which the compiled steps call)."""
        self.extra_state[:] = state.x
        _engine.advance_extra_states(*self.kernel_buffers(), float(h))
        state.x[:] = self.extra_state

    def set_input(self, name: str, value: float) -> None:
        k = self._channel(name)
        self.fun_par[k, :4] = (value, 0.0, 0.0, 0.0)

    def _channel(self, name: str) -> int:
        k = self.fun_names.get(name)
        if k is None or self.fun_type[k] != codes.FUN_CHANNEL:
            raise KeyError(f"unknown input channel '{name}'" + did_you_mean(name, self.input_names))
        return k

    def set_input_functions(self, functions: dict | None) -> None:
        """Drive input channels by Python callables ``f(t)`` for offline runs: each
        returns the value, or ``(value, rate, acceleration)``; without the derivatives they are
        taken by central differences (step ``INPUT_FD_STEP``). Every ``evaluate`` from Python sets
        the channels at its own t exactly; a compiled step sees their Taylor expansion about
        the time of :meth:`apply_input_functions` (``simulate`` calls it at each step's start:
        value error O(h³) at the step's end). ``None`` or ``{}`` removes them."""
        funs = {}
        for name, fn in (functions or {}).items():
            k = self._channel(name)
            if not callable(fn):
                raise TypeError(f"input '{name}': expected a callable f(t), got {type(fn).__name__}")
            funs[k] = (name, fn)
        self._input_functions = funs
        self._initial = None  # the initial state is assembled with them

    def apply_input_functions(self, t: float) -> None:
        """Set every channel driven by a callable to its value and derivatives at ``t``."""
        for k, (name, fn) in self._input_functions.items():
            self.fun_par[k, :4] = (*input_function_value(name, fn, float(t)), t)

    def acceleration_outputs(self, t, q, qd, qdd, out) -> None:
        """Per body the centre-of-mass acceleration (ax, ay, az) and the angular acceleration
        ω̇ = G p̈ + α (wdx, wdy, wdz), global axes, from the accelerations q̈."""
        _engine.body_accelerations(np.ascontiguousarray(q, float), np.ascontiguousarray(qd, float),
                                   np.ascontiguousarray(qdd, float), *self.kernel_buffers(),
                                   self.n, self.m, out)

    def outputs(self, t, q, qd, out, extra_step: float = 0.0) -> None:
        """The named outputs (``output_names``) at (t, q, q̇), one compiled call
        (the C engine's ``rtmbs_outputs``); transient tyres at the state's
        deflections, or with ``extra_step`` = h at those of the end of a step h
        (:meth:`set_extra_step`: the forces that step applies)."""
        if self._outputs_ws is None:  # a packed workspace (Q only is evaluated)
            self._outputs_ws = np.zeros(self.packed_layout.size)
        h, self.data.xstate[0] = self.data.xstate[0], extra_step
        q = np.ascontiguousarray(q, dtype=np.float64)
        qd = np.ascontiguousarray(qd, dtype=np.float64)
        _engine.outputs(float(t), q, qd, *self.kernel_buffers(), self._outputs_ws, self.n, self.m,
                        self.output_index, out)
        self.data.xstate[0] = h

    def _sensors(self, model, names: list) -> tuple[np.ndarray, np.ndarray]:
        """(sns_spec, sns_par) of the model's sensors (rtmbs.model.Sensor; engine/sensors.h):
        kind, body, reference, input function; the axis in the body's axes at the initial
        orientation, or the scale of an input."""
        from .model.description import SENSOR_KINDS

        kinds = list(SENSOR_KINDS)
        spec = np.zeros((len(model.sensors), 4), np.int64)
        par = np.zeros((len(model.sensors), 3))
        seen = set()
        for j, sn in enumerate(model.sensors):
            path = f"sensors.{sn.name}"
            if sn.name in seen:
                raise ModelError(path, "a sensor of this name is defined twice")
            seen.add(sn.name)
            body = ref = fun = -1
            for key in ("body", "reference"):
                nm = getattr(sn, key)
                if nm and nm not in names:
                    raise ModelError(f"{path}.{key}", f"unknown body '{nm}'" + did_you_mean(nm, names))
            if sn.body:
                body = names.index(sn.body)
            if sn.reference:
                ref = names.index(sn.reference)
            if sn.kind == "input":
                if sn.input not in self.fun_names:
                    raise ModelError(f"{path}.input", f"unknown input '{sn.input}'"
                                     + did_you_mean(sn.input, self.fun_names))
                fun = self.fun_names[sn.input]
                par[j, 0] = sn.scale
            elif sn.kind in ("steer", "spin"):
                ori = model.bodies[body].orientation
                A0 = ori.as_matrix() if ori else np.eye(3)
                axis = np.asarray(sn.axis, float)
                par[j] = A0.T @ (axis / np.linalg.norm(axis))
            spec[j] = (kinds.index(sn.kind), body, ref, fun)
        return spec, par

    def _output_map(self) -> np.ndarray:
        """Source of each output name (:data:`rtmbs.kernels.codes.OUT_R` ...): per body the
        position, velocity and angular velocity, per element its main value, per tyre its
        outputs, per bushing its force and torque."""
        rows = []
        for b in range(self.nbody):
            rows += [(src, b, c) for src in (OUT_R, OUT_RD, OUT_W) for c in range(3)]
        rows += [(OUT_FORCE, k, 0) for k in range(len(self.force_names))]
        for r in self._tyre_rows:
            rows += [(OUT_FORCE, r, 1 + c) for c in range(len(TYRE_OUTPUTS))]
        for r in self._bushing_rows:
            rows += [(OUT_FORCE, r, 1 + c) for c in range(len(BUSHING_OUTPUTS))]
        rows += [(OUT_SENSOR, j, 0) for j in range(self.arrays_int.sns_spec.shape[0])]
        omap = np.array(rows, np.int64).reshape(-1, 3)
        assert len(omap) == len(self.output_names)
        return omap

    def _output_index(self) -> np.ndarray:
        """Where each output's source (:attr:`output_map`) lives in the data buffer: its flat
        index (the same for every data object of the model: one layout)."""
        src = {OUT_R: self.data.kin_r, OUT_RD: self.data.kin_rd, OUT_W: self.data.kin_w,
               OUT_FORCE: self.data.frc_out}
        base = self._sbuf.__array_interface__["data"][0]
        idx = np.empty(len(self.output_map), np.int64)
        for k, (s, i, j) in enumerate(self.output_map):
            if s == OUT_SENSOR:  # computed by the engine (engine/sensors.c): -1 - its row
                idx[k] = -1 - i
                continue
            a = src[s]
            assert a.base is self._sbuf and a.dtype == self._sbuf.dtype
            off = a.__array_interface__["data"][0] - base + i * a.strides[0] + j * a.strides[1]
            idx[k] = off // self._sbuf.itemsize
        return idx

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
        g = self.arrays.gravity
        V = 0.0
        for b in range(self.nbody):
            a = self.body_qadr[b]
            V -= self.arrays.body_mass[b] * g @ q[a:a + 3]
        return self.kinetic_energy(q, qd) + V + self._spring_energy(q)

    def _spring_energy(self, q) -> float:
        E = 0.0
        ftype, fbody = self.arrays_int.frc_type, self.arrays_int.frc_body
        fvec, fpar, ftab = self.arrays.frc_vec, self.arrays.frc_par, self.arrays_int.frc_tab
        for k in range(len(ftype)):
            if ftype[k] != _FORCE_CODE["spring-damper"] or ftab[k, 0] >= 0:
                continue
            pts = []
            for side in range(2):
                b = fbody[k, side]
                if self.body_qadr[b] < 0:
                    pts.append(fvec[k, side].copy())
                    continue
                a = self.body_qadr[b]
                A = _rotation_matrix(self.body_rtype[b], q[a + 3:a + 3 + NROT[self.body_rtype[b]]])
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
        return int((s > s[0] * MODEL_RANK_RTOL).sum()) if s.size and s[0] > 0 else 0

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
            r = int((s > scale * MODEL_RANK_RTOL).sum())
            if r < rank + count:
                out.append((name, rank + count - r))
            rank = r
        return out

    def joint_reactions(self, q, qd, t, lam) -> dict[str, np.ndarray]:
        """Reaction on body j of each joint, at marker_j, in global axes: (Fx, Fy, Fz, Tx, Ty, Tz).

        From the multipliers: the generalised reaction is −Φqᵀλ (Carpinelli 2016 eq. 1), i.e. −Dᵀλ in
        virtual coordinates; the torque is moved from the centre of mass to the marker.
        With redundant constraints λ is the minimum-norm choice, so are the reactions.
        """
        ws = self.workspace()
        self.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)  # (D of the rows comes with Φq)
        Dx = self.data.Dx
        kin_A = self.data.kin_A
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


class Data(CartesianSystem):
    """A data object of a compiled model (``model.new_data()``; MuJoCo's mjData beside mjModel,
    Pinocchio's Data beside Model): the :data:`DATA_ATTRIBUTES`, made new from the model. Every
    other attribute (sizes, names, index maps, patterns, the read-only model buffers) is the
    model's (:attr:`compiled`): looked up there at first use and kept as a reference, never
    copied (a step then reads it at the cost of the model's own attributes). A data object is a
    system in its own right: a solver made on it evaluates, steps and publishes its outputs in
    its own buffers, so runs on different data objects of one model are independent (the model's
    own data, that ``model.evaluate`` uses, is one more of them)."""

    def __init__(self, model: CartesianSystem):
        model = model.compiled if isinstance(model, Data) else model
        self.compiled = model
        # the protocol's class-level defaults (n = 0, m = 0, name, ...) would hide the model's
        # values from __getattr__
        for name in _PROTOCOL_DEFAULTS:
            setattr(self, name, getattr(model, name))
        vars(self).update(model._fresh_data())

    def __getattr__(self, name):
        # (only for names this object does not have yet: the model's; every per-run name is set
        # in __init__, so none of them is ever taken from the model)
        model = vars(self).get("compiled")
        if model is None or name in DATA_ATTRIBUTES or name.startswith("__"):
            raise AttributeError(f"'{type(self).__name__}' object has no attribute '{name}'")
        value = getattr(model, name)
        setattr(self, name, value)
        return value

    @property
    def packed_layout(self) -> "PackedLayout":
        return self.compiled.packed_layout


#: the protocol's class-level defaults (``MechanicalSystem``): a data object holds the model's
_PROTOCOL_DEFAULTS = tuple(k for k, v in vars(MechanicalSystem).items()
                           if not k.startswith("_") and not callable(v) and not isinstance(v, property))


def _wrap_period(coefficients, path, most=1000) -> float:
    """2π g for the largest g = min|c|/n (n ≤ ``most``) of which every coefficient is an integer
    multiple (0: no rotation term)."""
    if not coefficients:
        return 0.0
    c = np.abs(np.asarray(coefficients, float))
    for n in range(1, most + 1):
        x = c / (c.min() / n)
        if np.all(np.abs(x - np.round(x)) < 1e-9 * np.maximum(1.0, x)):
            return 2.0 * np.pi * c.min() / n
    raise ModelError(path, f"the coefficients of its rotation terms {list(coefficients)} are not integer "
                     f"multiples of one value (ratios of integers up to {most}): a coupler of angles "
                     "known modulo 2π needs them")


def _rotation_matrix(rtype, p):
    """Rotation matrix of a body's orientation coordinates: normalised Euler parameters,
    A = (2e0² − 1)I + 2(e eᵀ + e0 ẽ) (Nikravesh 1988, eq. 6.19), or zxz Euler angles,
    A = Rz(φ) Rx(θ) Rz(ψ) (the engine's ``rotations.c``)."""
    if rtype == ROT_EP:
        e0, e = p[0], np.asarray(p[1:4], float)
        n2 = float(p @ p)
        ex = np.array([[0.0, -e[2], e[1]], [e[2], 0.0, -e[0]], [-e[1], e[0], 0.0]])
        return (2.0 * e0 * e0 / n2 - 1.0) * np.eye(3) + 2.0 / n2 * (np.outer(e, e) + e0 * ex)
    c1, s1, c2, s2, c3, s3 = (f(x) for x in p[:3] for f in (np.cos, np.sin))
    return np.array([[c1 * c3 - s1 * c2 * s3, -c1 * s3 - s1 * c2 * c3, s1 * s2],
                     [s1 * c3 + c1 * c2 * s3, -s1 * s3 + c1 * c2 * c3, -c1 * s2],
                     [s2 * s3, s2 * c3, c2]])


def _ep_E(p):
    e0, e1, e2, e3 = p
    return np.array([[-e1, e0, -e3, e2], [-e2, e3, e0, -e1], [-e3, -e2, e1, e0]])


_EP_DG = np.array([2.0 * _ep_E(np.eye(4)[k]) for k in range(4)])  # ∂(2E)/∂p_k


def _virtual_blocks(nb, fbody, ftype, fstiff):
    """The 6×6 blocks in which forces and inertia terms accumulate their Jacobians in virtual
    coordinates (δr, δπ) before one mapping to q per block (the engine's forces.c): one per body, then
    one per ordered pair of bodies coupled by a force element. Returns (body a, body b, 1 if an
    element with a force writes the block else 0: rotation terms only, 1 if a stiff element
    writes it else 0: zero in the stiff Jacobians) per block and, per element, the block of its
    (i,i), (i,j), (j,i), (j,j) couplings (−1 with the ground)."""
    pairs = [(b, b) for b in range(nb)]
    index = {pr: k for k, pr in enumerate(pairs)}
    # blocks with translational terms: written by an element with a force (torque-only elements,
    # like the inertia terms, fill only the rotation rows and columns)
    coupled, stiff = set(), set()
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
                if fstiff[k]:
                    stiff.add(index[(a, b)])
    blocks = np.array([(a, b, int(k in coupled), int(k in stiff)) for k, (a, b) in enumerate(pairs)],
                      np.int64).reshape(-1, 4)
    return blocks, frc_blk


class PackedLayout:
    """The packed workspace of a :class:`CartesianSystem` (memory O(non-zeros)), as
    the engine's ``rtmbs_packed_workspace`` (evaluate.c) carves it: M one SEG × SEG block per body, Φq two
    SEG-wide segments per row (one per body; coupler term e on its own row m + e; the
    normalisation row of a body at columns 3..6), Jq and Jq̇ one SEG × SEG block per virtual block
    (``jacobian_blocks``); Q, Φ, Φt, γ as in the dense workspace; a last entry that stays 0.

    ``coo[name]`` = (rows, cols, index into the buffer) of every stored entry of M, Jq, Jq̇ and
    Φq (an entry of a coupler row may come from several terms: they add up)."""

    def __init__(self, system: CartesianSystem):
        S = codes.SEG
        n, m, nb = system.n, system.m, system.nbody
        m1, nblk = system._data_sizes[1], system._data_sizes[3]
        sizes = dict(M=nb * S * S, Q=n, phi=m, phiq=m1 * 2 * S, phit=m, gamma=m, Jq=nblk * S * S,
                     Jqd=nblk * S * S)
        self.offsets, off = {}, 0
        for k, v in sizes.items():
            self.offsets[k] = off
            off += v
        self.size = off + 1
        self.n, self.m = n, m
        qadr, rtype = system.body_qadr, system.body_rtype
        width = [3 + NROT[rtype[b]] for b in range(nb)]
        coo = {k: ([], [], []) for k in ("M", "Jq", "Jqd", "phiq")}
        summed = []  # per Φq entry: 1 on coupler rows (terms add up), else 0

        def block(name, base, ra, ca, wa, wb):
            for r in range(wa):
                for c in range(wb):
                    for lst, v in zip(coo[name], (ra + r, ca + c, base + S * r + c)):
                        lst.append(v)

        for b in range(nb):
            block("M", self.offsets["M"] + S * S * b, qadr[b], qadr[b], width[b], width[b])
        for k, (ba, bb, *_) in enumerate(system.jacobian_blocks):
            for name in ("Jq", "Jqd"):
                block(name, self.offsets[name] + S * S * k, qadr[ba], qadr[bb], width[ba], width[bb])
        o = self.offsets["phiq"]
        aux = m
        for k, (ty, r0) in enumerate(zip(system.prim_type, system.prim_row)):
            if ty == codes.PRIM_CPL:
                rows, prow, aux = [r0], [aux], aux + 1
            else:
                rows = list(range(r0, r0 + codes.PRIM_ROWS[ty]))
                prow = rows
            for r, pr in zip(rows, prow):
                for side in range(2):
                    b = system.prim_body[k, side]
                    if b < nb and qadr[b] >= 0:
                        block("phiq", o + 2 * S * pr + S * side, r, qadr[b], 1, width[b])
                        summed += [int(ty == codes.PRIM_CPL)] * width[b]
        for b in range(nb):
            r = system.body_eprow[b]
            if r >= 0:
                block("phiq", o + 2 * S * r + 3, r, qadr[b] + 3, 1, 4)
                summed += [0] * 4
        self.coo = {k: tuple(np.array(v, np.int64) for v in lists) for k, lists in coo.items()}
        self.phiq_summed = np.array(summed, bool)

    def index_maps(self):
        """(M, Jq) dicts (i, j) -> buffer index, and the Φq dict (i, j) -> list of buffer indices
        (summed in order; the last writer wins where a row sees one body on both sides, as the
        dense writer does)."""
        mi = {(int(i), int(j)): int(e) for i, j, e in zip(*self.coo["M"])}
        ji = {(int(i), int(j)): int(e) for i, j, e in zip(*self.coo["Jq"])}
        pq: dict = {}
        for i, j, e, add in zip(*self.coo["phiq"], self.phiq_summed):
            if add:
                pq.setdefault((int(i), int(j)), []).append(int(e))
            else:
                pq[(int(i), int(j))] = [int(e)]
        return mi, ji, pq

    def dense(self, buf, ws: Workspace) -> Workspace:
        """The dense view: scatter a packed buffer into ``ws`` (cleared first), for tests and
        offline tools."""
        ws.buf[:] = 0.0
        for name in ("M", "Jq", "Jqd"):
            i, j, e = self.coo[name]
            getattr(ws, name)[i, j] = buf[e]
        i, j, e = self.coo["phiq"]
        add = self.phiq_summed
        ws.phiq[i[~add], j[~add]] = buf[e[~add]]
        np.add.at(ws.phiq, (i[add], j[add]), buf[e[add]])
        for name in ("Q", "phi", "phit", "gamma"):
            o = self.offsets[name]
            v = getattr(ws, name)
            v[:] = buf[o:o + v.shape[0]]
        return ws


def compile_model(model: Model) -> CartesianSystem:
    """Compile a model description into a :class:`CartesianSystem` (checks every reference)."""
    return CartesianSystem(model)
