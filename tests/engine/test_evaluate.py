"""The C evaluation (rtmbs.engine._engine.evaluate, outputs, body_accelerations) against the numba
kernels it replaces (rtmbs.kernels.evaluate.evaluate_cartesian, cartesian_outputs,
rtmbs.kernels.cartesian.body_accelerations) on the built-in models.

Each comparison runs both sides on their own copies of the same data buffer (warmed by one
numba evaluation at another state, so that what an evaluation leaves for the next — stale
velocities of a positions-only evaluation, the inertia p-terms vP a stiff-only Jacobian reuses —
is the same on both sides) and of the same workspace (filled with random numbers, so an entry
one side writes and the other does not is caught). Every entry of the workspace (dense and
packed) and every field of the data buffer is compared, each quantity to a relative tolerance
of RTOL scaled by its largest entry. numba evaluates with fastmath "contract" (fused
multiply-adds), the C engine with -ffp-contract=off: bit equality is not expected.

Two variants per model:

* as compiled: while the element kernels (elements/, stubs in a tree without them) or the input
  functions (functions.c) are stubs, the quantities that depend on them are skipped with the
  reason printed (the engine reports the elements left out as RTMBS_WARN_UNSUPPORTED warnings);
  once they land, everything is compared;
* "pinned": the same model with its input functions made constants equal to 1 (the stubs'
  value), its force elements given a type code no kernel exists for (numba's dispatcher
  returns zero force for it, the engine leaves it out with a warning) and a random anisotropic
  inertia tensor per body (so no inertia Jacobian term vanishes): every quantity is
  compared now, in particular Q, Jq, Jqdot of the inertia and gravity terms mapped through the
  models' virtual blocks (Euler angles included: mcpherson-simplified), and the driven
  constraint rows (DOT2 and ROTDRV drivers, DIST, couplers) with constant drivers.

Run with -s to see the largest relative difference per model.
"""
from __future__ import annotations

import zlib

import numpy as np
import pytest

from rtmbs.kernels import layouts
from rtmbs.kernels.cartesian import body_accelerations
from rtmbs.kernels.evaluate import OUT_FORCE, cartesian_outputs, evaluate_cartesian
from rtmbs.models import load_model

_engine = pytest.importorskip("rtmbs.engine._engine")

RTOL = 1e-12
#: a quantity whose entries are all below this is compared to RTOL * SCALE_FLOOR absolute: the
#: analytically zero ones (the inertia Jacobian of a body with isotropic inertia, which
#: mcpherson-simplified's bodies have) hold round-off of different sign on either side
SCALE_FLOOR = 1e-2
M, Q, PHI, PHIQ, GAMMA, JAC, JACS, PACKED = 1, 2, 4, 8, 16, 32, 64, 128
ALL = M | Q | PHI | PHIQ | GAMMA | JAC
#: every flag alone, everything, and the combinations the solvers ask for (rtmbs.solvers:
#: index1 _EVAL_DYN, the compiled steps' what0/what_end/what1, the reference solvers)
WHATS = (0, M, Q, PHI, PHIQ, GAMMA, JAC, JACS, ALL, ALL | JACS,
         M | Q, M | Q | PHIQ | GAMMA, M | Q | PHI | PHIQ | GAMMA, PHI | PHIQ, PHIQ | GAMMA,
         M | PHIQ | JAC, M | Q | PHIQ | JAC, M | Q | PHIQ | JACS, M | Q | PHI | PHIQ, M | Q | PHI,
         M | PHI | PHIQ, M | PHIQ, M | Q | GAMMA | JAC, M | Q | GAMMA | JACS, M | Q | PHI | JACS)
NSTATES = 3

# engine constants (rtmbs.h)
WARN_UNSUPPORTED = 3
CNT_EVAL, CNT_ELEMENT = 0, 1
UNKNOWN_ELEMENT = 99  # a force element type code without a kernel on either side
FUN_CONST, FUN_CHANNEL = 0, 6  # rtmbs.kernels.functions FUN_*

#: models without force elements (gravity only)
PLAIN = ("double-pendulum", "four-bar", "spatial-chain-10", "peer-four-bar", "peer-chain")
#: with force elements, input functions, motion drivers, couplers, zxz Euler angles
WITH_ELEMENTS = ("mcpherson-simplified",   # zxz Euler angles; point forces driven by functions
                 "slider-crank",           # joint torque on a step function
                 "multilink-bushings",     # bushings, stop, brake, tyre
                 "sedan",                  # couplers (PRIM_CPL with wrap), distance and rotation drivers
                 "concept-ride-7dof",      # motion drivers (DOT2, ROTDRV on constant functions)
                 "concept-trailing-arm-car")
WORKSPACE_DENSE = ("M", "Q", "phi", "phiq", "phit", "gamma", "Jq", "Jqd")
#: data fields not compared: the engine's own warnings and counters (checked separately), and the
#: element kernels' scratch (3-vectors, 3 x 3, 9 x 12, Magic Formula: the C tyre keeps its own
#: on the stack, so these hold other intermediate values than numba's after an evaluation)
ENGINE_ONLY = ("warning", "counter", "tmp", "S", "X", "mf")
KINEMATICS = ("kin_r", "kin_rd", "kin_A", "kin_G", "kin_dG", "kin_W", "kin_w", "kin_alpha",
              "kin_dadp", "kin_dadpd")

_models = {}
_worst = {}


def _model(name):
    if name not in _models:
        _models[name] = load_model(name)
    return _models[name]


def _views(buf, lay, names):
    """Field name -> flat view of a packed buffer (rtmbs.kernels.arena layout rows)."""
    out = {}
    for k, name in enumerate(names):
        off, ndim = int(lay[k, 0]), int(lay[k, 1])
        size = int(np.prod(lay[k, 2:2 + ndim])) if ndim else 1
        out[name] = buf[off:off + size]
    return out


def _workspace_fields(s, packed):
    """Field name -> slice of the workspace buffer (dense: protocol.WORKSPACE_FIELDS order;
    packed: PackedLayout.offsets), and its length."""
    n, m = s.n, s.m
    if packed:
        pl = s.packed_layout
        names = list(pl.offsets)
        ends = [pl.offsets[k] for k in names[1:]] + [pl.size - 1]
        fields = {k: slice(pl.offsets[k], e) for k, e in zip(names, ends)}
        fields["zero"] = slice(pl.size - 1, pl.size)
        return fields, pl.size
    sizes = dict(M=n * n, Q=n, phi=m, phiq=m * n, phit=m, gamma=m, Jq=n * n, Jqd=n * n)
    fields, off = {}, 0
    for k in WORKSPACE_DENSE:
        fields[k] = slice(off, off + sizes[k])
        off += sizes[k]
    assert off == 3 * n * n + n + 3 * m + m * n
    return fields, off


def _reldiff(a, b):
    """max |a - b| over the largest entry of the quantity, at least SCALE_FLOOR."""
    scale = max(np.abs(a).max(initial=0.0), np.abs(b).max(initial=0.0), SCALE_FLOOR)
    return float(np.abs(a - b).max(initial=0.0) / scale)


class Case:
    """A model's buffers, possibly with its functions pinned to 1 and its elements disabled."""

    def __init__(self, name, pinned):
        s = _model(name)
        self.s, self.name, self.pinned = s, name, pinned
        ib, il, fb, fl, sb, sl = s.kernel_buffers()
        self.ib, self.il, self.fb, self.fl, self.sl = ib.copy(), il, fb.copy(), fl, sl
        self.sb = sb.copy()
        mi = _views(self.ib, il, layouts.MODEL_INTS.names)
        self.nfrc = len(mi["frc_type"])
        self.driven = bool((mi["prim_fun"] >= 0).any())
        self.has_functions = len(mi["fun_type"]) > 0
        dv = _views(self.sb, sl, layouts.DATA.names)
        fp = dv["fun_par"].reshape(-1, 8)
        rng = np.random.default_rng(13)
        for k, ty in enumerate(mi["fun_type"]):  # constants and channels (value, rate,
            if ty in (FUN_CONST, FUN_CHANNEL):      # acceleration, time): non-zero derivatives
                fp[k, :4] = (rng.uniform(-0.2, 0.2), rng.uniform(-1, 1), rng.uniform(-1, 1), 0.1)
        if pinned:
            mi["fun_type"][:] = FUN_CONST
            mi["frc_type"][:] = UNKNOWN_ELEMENT
            fp[:, :] = 0.0
            fp[:, 0] = 1.0
            # a general (anisotropic) inertia tensor per body: every term of the inertia
            # Jacobian is non-zero (the built-in models' bodies are often isotropic)
            J = _views(self.fb, fl, layouts.MODEL_FLOATS.names)["body_inertia"].reshape(-1, 3, 3)
            rng = np.random.default_rng(11)
            for b in range(len(J) - 1):
                R = np.linalg.qr(rng.standard_normal((3, 3)))[0]
                J[b] = R @ np.diag(rng.uniform(0.05, 0.5, 3) * max(np.trace(J[b]), 0.3)) @ R.T
            for f in ("dfdx", "dfdv", "dtdx", "dtdv"):  # (what numba accumulates for an element
                dv[f][:] = 0.0                            # without kernel: nothing else writes them)
        self.n, self.m = s.n, s.m

    def data(self, buf):
        return _views(buf, self.sl, layouts.DATA.names)

    def run(self, fn, what, t, q, qd, sbuf, wbuf):
        fn(np.int64(what), float(t), q, qd, self.ib, self.il, self.fb, self.fl, sbuf, self.sl, wbuf,
           self.n, self.m)

    def states(self, seed):
        rng = np.random.default_rng(seed)
        q0 = self.s.initial_state().q
        out = []
        for _ in range(NSTATES + 1):
            out.append((float(rng.uniform(0.0, 2.0)), q0 + 1e-2 * rng.standard_normal(self.n),
                        rng.standard_normal(self.n)))
        return out

    def warm(self, t, q, qd):
        """The base data: one numba evaluation of everything (packed) at another state."""
        base = self.sb.copy()
        fields, size = _workspace_fields(self.s, True)
        self.run(evaluate_cartesian, ALL | PACKED, t, q, qd, base, np.zeros(size))
        return base


def _functions_are_stubs(case, t, q, qd):
    """Whether the engine's input functions are stubs (functions.c not in this build): its Phi
    of a model with driven constraints does not change with the functions' parameters."""
    if not case.driven:
        return False
    fields, size = _workspace_fields(case.s, False)
    phis = []
    for shift in (0.0, 0.25):
        sb = case.sb.copy()
        case.data(sb)["fun_par"][:] += shift
        w = np.zeros(size)
        case.run(_engine.evaluate, PHI, t, q, qd, sb, w)
        phis.append(w[fields["phi"]].copy())
    return bool(np.array_equal(phis[0], phis[1]))


def _compare_model(name, pinned):
    case = Case(name, pinned)
    s = case.s
    states = case.states(zlib.crc32(name.encode()))
    base = case.warm(*states[-1])
    stubbed_functions = (not pinned) and _functions_are_stubs(case, *states[0])
    failures, skipped, worst = [], set(), {}
    for t, q, qd in states[:-1]:
        for packed in (0, PACKED):
            fields, size = _workspace_fields(s, packed)
            w0 = np.random.default_rng(7).standard_normal(size)
            for what in WHATS:
                w_nb, w_c = w0.copy(), w0.copy()
                s_nb, s_c = base.copy(), base.copy()
                case.run(evaluate_cartesian, what | packed, t, q, qd, s_nb, w_nb)
                case.run(_engine.evaluate, what | packed, t, q, qd, s_c, w_c)
                d_nb, d_c, d_0 = case.data(s_nb), case.data(s_c), case.data(base)
                # warnings and counters: one evaluation, every element run or reported unsupported
                do_q = (what & (Q | JAC | JACS)) != 0
                ran = d_c["counter"][CNT_ELEMENT] - d_0["counter"][CNT_ELEMENT]
                unsup = d_c["warning"][3 * WARN_UNSUPPORTED] - d_0["warning"][3 * WARN_UNSUPPORTED]
                assert d_c["counter"][CNT_EVAL] - d_0["counter"][CNT_EVAL] == 1
                assert ran + unsup == (case.nfrc if do_q else 0), (name, what, ran, unsup)
                if pinned:
                    assert ran == 0 and unsup == (case.nfrc if do_q else 0)
                    if do_q and case.nfrc:
                        assert d_c["warning"][3 * WARN_UNSUPPORTED + 1] == case.nfrc - 1
                        assert d_c["warning"][3 * WARN_UNSUPPORTED + 2] == t
                elements_missing = unsup > 0 and not pinned  # (pinned: by design, compared)
                for field, sl in fields.items():
                    if elements_missing and field in ("Q", "Jq", "Jqd"):
                        skipped.add(f"{field}: {int(unsup)} force elements without a C kernel "
                                    "(RTMBS_WARN_UNSUPPORTED)")
                        continue
                    if stubbed_functions and field in ("phi", "phiq", "phit", "gamma"):
                        skipped.add(f"{field}: the engine's input functions are stubs")
                        continue
                    r = _reldiff(w_nb[sl], w_c[sl])
                    worst[field] = max(worst.get(field, 0.0), r)
                    if r > RTOL:
                        failures.append(f"what={what | packed} workspace {field}: rel diff {r:.3g}")
                for field in layouts.DATA.names:
                    if field in ENGINE_ONLY:
                        continue
                    if (elements_missing or stubbed_functions) and field not in KINEMATICS:
                        skipped.add("data fields other than the kinematics: element kernels or "
                                    "input functions are stubs")
                        continue
                    r = _reldiff(d_nb[field], d_c[field])
                    worst["data." + field] = max(worst.get("data." + field, 0.0), r)
                    if r > RTOL:
                        failures.append(f"what={what | packed} data {field}: rel diff {r:.3g}")
    key = f"{name}{' (pinned)' if pinned else ''}"
    _worst[key] = worst
    top = sorted(worst.items(), key=lambda kv: -kv[1])[:4]
    print(f"\n{key}: max rel diff {max(worst.values(), default=0.0):.2e} "
          f"({', '.join(f'{k} {v:.1e}' for k, v in top)})")
    for reason in sorted(skipped):
        print(f"  skipped {reason}")
    assert not failures, f"{name}: {len(failures)} mismatches, e.g. " + "; ".join(failures[:8])
    return skipped


@pytest.mark.parametrize("name", PLAIN)
def test_evaluate_plain(name):
    """Models with gravity only: every workspace entry and data field, nothing skipped."""
    skipped = _compare_model(name, pinned=False)
    assert not skipped


@pytest.mark.parametrize("name", WITH_ELEMENTS)
def test_evaluate_with_elements(name):
    """As compiled: M and the constraint quantities always (unless the input functions are
    stubs); Q, Jq, Jqdot once the element kernels land."""
    _compare_model(name, pinned=False)


@pytest.mark.parametrize("name", WITH_ELEMENTS)
def test_evaluate_pinned(name):
    """Functions pinned to 1, elements without kernel: every quantity, nothing skipped."""
    skipped = _compare_model(name, pinned=True)
    assert not skipped


def test_workspace_too_short():
    s = _model("double-pendulum")
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    q = s.initial_state().q
    for what, size in ((ALL, 3 * s.n ** 2 + s.n + 3 * s.m + s.m * s.n),
                       (ALL | PACKED, s.packed_layout.size)):
        with pytest.raises(RuntimeError, match="too short"):
            _engine.evaluate(what, 0.0, q, q, ib, il, fb, fl, sb.copy(), sl, np.zeros(size - 1),
                             s.n, s.m)
        _engine.evaluate(what, 0.0, q, q, ib, il, fb, fl, sb.copy(), sl, np.zeros(size), s.n, s.m)


@pytest.mark.parametrize("name", ("mcpherson-simplified", "sedan", "double-pendulum"))
def test_outputs(name):
    """_engine.outputs against cartesian_outputs: the body outputs always, the element outputs
    once the element kernels land."""
    s = _model(name)
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    rng = np.random.default_rng(3)
    q0 = s.initial_state().q
    oidx = s.output_index
    force_rows = s.output_map[:, 0] == OUT_FORCE
    for _ in range(NSTATES):
        t, q, qd = float(rng.uniform(0, 2)), q0 + 1e-2 * rng.standard_normal(s.n), rng.standard_normal(s.n)
        outs, datas = [], []
        for fn in (cartesian_outputs, _engine.outputs):
            sbuf, w, out = sb.copy(), np.zeros(s.packed_layout.size), np.full(len(oidx), np.nan)
            fn(t, q, qd, ib, il, fb, fl, sbuf, sl, w, s.n, s.m, oidx, out)
            outs.append(out)
            datas.append(_views(sbuf, sl, layouts.DATA.names))
        unsup = datas[1]["warning"][3 * WARN_UNSUPPORTED] - _views(sb, sl, layouts.DATA.names)["warning"][3 * WARN_UNSUPPORTED]
        assert np.all(np.isfinite(outs[1]))
        rows = ~force_rows if unsup else np.ones(len(oidx), bool)
        r = _reldiff(outs[0][rows], outs[1][rows])
        assert r <= RTOL, (name, r)
        if unsup:
            print(f"\n{name}: element outputs skipped ({int(unsup)} elements without a C kernel)")
    with pytest.raises(RuntimeError, match="argument out of range"):
        _engine.outputs(0.0, q0, q0, ib, il, fb, fl, sb.copy(), sl, np.zeros(s.packed_layout.size),
                        s.n, s.m, np.array([len(sb)], np.int64), np.zeros(1))


@pytest.mark.parametrize("name", ("mcpherson-simplified", "sedan"))
def test_body_accelerations(name):
    """_engine.body_accelerations against rtmbs.kernels.cartesian.body_accelerations (Euler
    parameters and zxz angles)."""
    s = _model(name)
    ib, il, fb, fl, sb, sl = s.kernel_buffers()
    rng = np.random.default_rng(5)
    q0 = s.initial_state().q
    nb = s.nbody
    scr = (np.zeros((3, 3)), np.zeros((3, 4)), np.zeros((4, 3, 4)), np.zeros((3, 4)), np.zeros(3),
           np.zeros((3, 4)), np.zeros((3, 4)), np.zeros((4, 4, 3, 4)))
    mi = _views(ib, il, layouts.MODEL_INTS.names)
    for _ in range(NSTATES):
        q = q0 + 1e-2 * rng.standard_normal(s.n)
        qd, qdd = rng.standard_normal(s.n), rng.standard_normal(s.n)
        a_nb, a_c = np.zeros(6 * nb), np.zeros(6 * nb)
        body_accelerations(q, qd, qdd, mi["body_qadr"], mi["body_rtype"], *scr, a_nb)
        sbuf = sb.copy()
        _engine.body_accelerations(q, qd, qdd, ib, il, fb, fl, sbuf, sl, s.n, s.m, a_c)
        assert np.array_equal(sbuf, sb)  # the data is not touched
        assert _reldiff(a_nb, a_c) <= RTOL
