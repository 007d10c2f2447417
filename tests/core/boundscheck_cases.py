"""The cases of tests/core/test_boundscheck.py (issue 11): the model evaluation, the outputs, 3 steps
(the last with its outputs, ``step_outputs``) of every fixed-step solver configuration and
3-step ``rollout``s with outputs (li-euler, li-euler-indep, generalized-α), run in a process
with ``NUMBA_BOUNDSCHECK=1`` so that an offset or size mistake in a packed buffer (kernels/arena.py views, kernels/layouts.py,
kernels/evaluate.py workspace_views and packed_views) raises IndexError instead of reading a
neighbour's memory; the solvers' steps run in the C engine (its arguments checked by the binding)
or on numpy.

``python boundscheck_cases.py`` prints ``ok <case>`` per case and exits 1 with the traceback at the
first exception. The test imports :func:`cases` for the list of expected lines, so a case that the
script skipped fails the test. Solvers and models are found by name only.
"""
from __future__ import annotations

import sys
import traceback
import warnings
from pathlib import Path

import numpy as np

H = 1e-3
NSTEPS = 3

#: name -> (sparse: the system has fixed sparsity patterns, ode: m = 0, fused: li-euler's
#: defaults run the whole step as one compiled call and rollout's compiled loop). What the models
#: cover: double-pendulum the smallest compiled model (n = 14: "auto" takes the compiled step);
#: four-bar revolute/spherical/universal joints; multilink-bushings bushings (stiff Jacobians), MF 6.1 tyre, bump stops, drive and brake
#: torques, an input channel, sparse; multilink-ideal-transient the transient tyre (extra
#: states); peer-quarter-car prismatic joint, spring-dampers; spatial-chain-10 many Euler-parameter
#: bodies; mcpherson-simplified zxz Euler angles; mcpherson-overconstrained redundant rows (the
#: solvers' ReducedSystem); truck-dae / truck-ode the hand-written planar truck (m = 2 / m = 0);
#: random-all every registered joint and force type (checked: a new type must be added here;
#: tables, torsion spring, planar joint, motion drivers, a transient tyre, functions), mixed
#: rotation coordinates: evaluation and outputs only (it does not assemble).
MODELS = {
    "double-pendulum": dict(sparse=True, ode=False, fused=True),
    "four-bar": dict(sparse=True, ode=False, fused=True),
    "multilink-bushings": dict(sparse=True, ode=False, fused=True),
    "multilink-ideal-transient": dict(sparse=True, ode=False, fused=True),
    "peer-quarter-car": dict(sparse=True, ode=False, fused=True),
    "spatial-chain-10": dict(sparse=True, ode=False, fused=True),
    "mcpherson-simplified": dict(sparse=True, ode=False, fused=True),
    "mcpherson-overconstrained": dict(sparse=True, ode=False, fused=False),
    "truck-dae": dict(sparse=False, ode=False, fused=False),
    "truck-ode": dict(sparse=False, ode=True, fused=False),
    "random-all": None,  # evaluation and outputs only
}

#: Solver configurations; "sparse" ones need a model with patterns, "ode" ones a model with m = 0.
#: li-euler: every stabilisation, both position updates, both projections, dense and sparse (the
#: sparse ones are the engine's step; instrument=True times the same step).
_LI = [dict(stabilize="none", position_update="explicit"),
       dict(stabilize="none", position_update="implicit"),
       dict(stabilize="projection", position_update="implicit", projection="step"),
       dict(stabilize="projection", position_update="implicit", projection="mass"),
       dict(stabilize="projection", position_update="explicit", projection="step"),
       dict(stabilize="projection", position_update="explicit", projection="mass"),
       dict(stabilize="baumgarte", position_update="explicit"),
       dict(stabilize="ggl", position_update="explicit", ggl_iterations=2)]
_INDEP = [dict(stabilize="none", position_update="explicit"),
          dict(stabilize="projection", projection_solve="kkt"),
          dict(stabilize="projection", projection_solve="T", position_update="explicit"),
          dict(stabilize="baumgarte", multipliers=False)]


def solver_configs():
    """(solver name, options, needs) for every configuration; needs is "", "sparse" or "ode"."""
    out = []
    for ls in ("dense", "sparse"):
        need = "sparse" if ls == "sparse" else ""
        for o in _LI:
            out.append(("li-euler", dict(o, linear_solver=ls), need))
        out.append(("li-euler", dict(jacobian="all", linear_solver=ls), need))
        for o in _INDEP:
            out.append(("li-euler-indep", dict(o, B="partition", linear_solver=ls), need))
        out.append(("li-euler-indep", dict(B="partition", rebase_tol=1e9, linear_solver=ls), need))
        for st in ("none", "baumgarte", "projection"):
            out.append(("explicit-euler", dict(stabilize=st, linear_solver=ls), need))
        for st in ("velocity", "projection", "none"):
            out.append(("generalized-alpha", dict(stabilize=st, linear_solver=ls), need))
        out.append(("generalized-alpha", dict(jacobian="stiff", linear_solver=ls), need))
    out += [("li-euler", dict(o, linear_solver="sparse", instrument=True), "sparse")
            for o in (dict(stabilize="none"), dict(stabilize="projection"),
                      dict(stabilize="projection", projection="mass"),
                      dict(stabilize="baumgarte"), dict(stabilize="ggl", ggl_iterations=2))]
    for o in _INDEP:
        out.append(("li-euler-indep", dict(o, B="qr"), ""))
    out.append(("li-euler-indep", dict(B="qr", rebase_tol=1e9), ""))
    out += [("rosenbrock-grk4t", {}, "ode"), ("ab3", {}, "ode")]
    return out


def _label(name, opts):
    return name + "".join(f" {k}={v}" for k, v in sorted(opts.items()))


def _applies(spec, need):
    # (the sparse configurations are the engine's steps: compiled models only, ``fused``)
    return (need == "" or (need == "sparse" and spec["sparse"] and spec["fused"])
            or (need == "ode" and spec["ode"]))


def cases():
    """The expected output lines, in order."""
    out = []
    for model, spec in MODELS.items():
        out.append(f"eval {model}")
        if spec is None:
            continue
        for name, opts, need in solver_configs():
            if _applies(spec, need):
                out.append(f"step {model} {_label(name, opts)}")
        out.append(f"rollout {model} li-euler {'compiled' if spec['fused'] else 'python'}")
        if not spec["ode"]:
            out.append(f"rollout {model} li-euler-indep {'compiled' if spec['fused'] else 'python'}")
            out.append(f"rollout {model} generalized-alpha {'compiled' if spec['fused'] else 'python'}")
        out += alpha_cases(model, spec)
    return out + explicit_euler_cases()


# -- explicit-euler's compiled rollout (compiled_explicit; its step is in the solver cases) --------
#: one model, a few steps: the rollout kernel compiled with bounds checks (with the inputs, the
#: outputs and the transient tyres' extra states)
EXPLICIT_EULER_MODEL = "multilink-ideal-transient"


def explicit_euler_cases():
    return [f"rollout {EXPLICIT_EULER_MODEL} explicit-euler compiled"]


def run_explicit_euler(models, out) -> None:
    """The compiled rollout of ``explicit-euler`` (default options), after the other cases."""
    if models and EXPLICIT_EULER_MODEL not in models:
        return
    _rollout(_load(EXPLICIT_EULER_MODEL), "explicit-euler", True)
    print(explicit_euler_cases()[0], file=out, flush=True)


# -- running ---------------------------------------------------------------------------------------
def _load(model):
    if model == "random-all":
        sys.path.insert(0, str(Path(__file__).parent))
        from randmodel import random_model

        from rtmbs.system import compile_model

        from rtmbs.model import FORCE_TYPES, JOINT_EQUATIONS

        m = random_model(seed=5)
        # the registered types random_model does not use
        m.add_force("tors", "torsion-spring", marker_i="b1.m0", marker_j="b2.m3", stiffness=40.0,
                    damping=2.0)
        m.add_force("tyre", "tyre", marker_j="b4.m1", tyre="MF61", transient=True)
        m.add_marker("ground", "plane", [0.1, 0.2, 0.3])
        m.add_joint("slide", "planar", "ground.plane", "b5.m2")
        # a coupler (rotation and translation terms) and a bushing with all twelve tables
        m.add_coupler("couple", ["j_revolute", "j_prismatic", "j_cylindrical"], coefficients=[1.0, -0.5, 2.0])
        tab = {a: {"x": [-1.0, 0.0, 1.0], "y": [-2.0, 0.0, 3.0]} for a in "xyz"}
        m.add_force("tbush", "bushing", marker_i="b2.m1", marker_j="b3.m2",
                    force_tables={a: {"deflection": t["x"], "force": t["y"]} for a, t in tab.items()},
                    damping_tables={a: {"velocity": t["x"], "force": t["y"]} for a, t in tab.items()},
                    torque_tables={a: {"angle": t["x"], "torque": t["y"]} for a, t in tab.items()},
                    rotational_damping_tables={a: {"angular_velocity": t["x"], "torque": t["y"]}
                                               for a, t in tab.items()})
        missing = (set(FORCE_TYPES) - {f.type for f in m.forces}) | (
            set(JOINT_EQUATIONS) - {j.type for j in m.joints})
        if missing:
            raise RuntimeError(f"random-all does not use the registered type(s) {sorted(missing)}: "
                               "add them in tests/core/boundscheck_cases.py")
        return compile_model(m)
    if model == "multilink-ideal-transient":
        from rtmbs.models.multilink import build

        return build("ideal", transient=True)
    from rtmbs.models import load_model

    return load_model(model)


def _check_state(st, where):
    if not (np.all(np.isfinite(st.q)) and np.all(np.isfinite(st.qd))):
        raise RuntimeError(f"{where}: non-finite state")


def _evaluate(system, assembled):
    from rtmbs.protocol import EVAL_ALL

    st = system.initial_state() if assembled else _random_state(system)
    ws = system.workspace()
    system.evaluate(st.t, st.q, st.qd, ws, EVAL_ALL)
    out = np.zeros(len(system.output_names))
    system.outputs(st.t, st.q, st.qd, out)
    vals = [ws.M, ws.Q, ws.Jq, ws.Jqd] + ([ws.phi, ws.phiq, ws.gamma] if system.m else []) + [out]
    if hasattr(system, "packed_layout"):  # the same evaluation into the blocks (issue 11)
        buf = np.zeros(system.packed_layout.size)
        system.evaluate_packed(st.t, st.q, st.qd, buf, EVAL_ALL)
        vals.append(buf)
    if system.acceleration_names:
        acc = np.zeros(len(system.acceleration_names))
        system.acceleration_outputs(st.t, st.q, st.qd, np.ones(system.n), acc)
        vals.append(acc)
    if system.nx:
        rates = np.zeros(system.nx)
        system.extra_rates(st.t, st.q, st.qd, np.full(system.nx, 1e-3), rates)
        vals.append(rates)
    # (random-all is evaluated at a random, unassembled pose, its tyre anywhere: only the bounds
    # are checked there)
    if assembled and not all(np.all(np.isfinite(v)) for v in vals):
        raise RuntimeError("non-finite evaluation")


def _random_state(system):
    from rtmbs.protocol import State

    rng = np.random.default_rng(1)
    return State(0.3, system._q0 + 0.01 * rng.standard_normal(system.n),
                 rng.standard_normal(system.n), np.zeros(system.nx))


def _inputs(system, n):
    return {nm: np.linspace(0.0, 50.0, n) for nm in getattr(system, "input_names", ())
            if nm in getattr(system, "fun_names", {})}


def _step(system, name, opts):
    from rtmbs.solvers.base import get_solver

    opts = dict(opts)
    instrument = opts.pop("instrument", False)
    slv = get_solver(name)(system, instrument=instrument, **opts)
    want_sparse = opts.get("linear_solver") == "sparse"
    if hasattr(slv, "sparse") and bool(slv.sparse) != want_sparse:
        raise RuntimeError(f"linear_solver={opts.get('linear_solver')!r} but sparse={slv.sparse}")
    st = system.initial_state()
    slv.reset(st)
    out = np.zeros(len(system.output_names))
    for k in range(NSTEPS):  # the last step with its outputs (the real-time loop's call)
        ok = slv.step_outputs(st, H, out) if k == NSTEPS - 1 else slv.step(st, H)
        if not ok:
            raise RuntimeError(f"step {k + 1} failed")
        _check_state(st, f"step {k + 1}")
    if not np.all(np.isfinite(out)):
        raise RuntimeError("step_outputs: non-finite outputs")
    if "rebase_tol" in opts and slv.system.m and slv.nrebase == 0:
        raise RuntimeError("rebase_tol=1e9 did not re-choose B")


def _rollout(system, name, compiled, **opts):
    from rtmbs.solvers.base import get_solver
    from rtmbs.solvers.rollout import compiled as compiled_rollout
    from rtmbs.solvers.rollout import rollout

    slv = get_solver(name)(system, **opts)
    st = system.initial_state()
    slv.reset(st)
    is_compiled = compiled_rollout(slv) and getattr(slv, "kernel_args", None) is not None
    if is_compiled != compiled:
        raise RuntimeError(f"expected the {'compiled' if compiled else 'Python'} rollout")
    r = rollout(slv, st, NSTEPS, H, inputs=_inputs(slv.system, NSTEPS), outputs=True)
    if r.status != 1 or r.nsteps != NSTEPS or len(r.outputs) != len(system.output_names):
        raise RuntimeError(f"rollout: {r.message}")
    if not all(np.all(np.isfinite(v)) for v in r.outputs.values()):
        raise RuntimeError("rollout: non-finite outputs")


# -- generalized-alpha's compiled step (rtmbs.solvers.compiled_alpha): the outputs at the step's
# start and a rollout saving every second step, on one model (its other cases are above)
ALPHA_MODEL = "multilink-ideal-transient"


def alpha_cases(model, spec):
    """The expected lines of :func:`_run_alpha_cases`."""
    return [f"alpha {model} step_outputs at_start, rollout every 2"] if model == ALPHA_MODEL else []


def _run_alpha_cases(system, model, spec, out):
    from rtmbs.solvers.base import get_solver
    from rtmbs.solvers.rollout import rollout

    if model != ALPHA_MODEL:
        return
    slv = get_solver("generalized-alpha")(system, stabilize="projection", newton_iterations=2)
    if not slv.fused:
        raise RuntimeError("generalized-alpha: expected the compiled step")
    st = system.initial_state()
    slv.reset(st)
    y = np.zeros(len(system.output_names))
    for k in range(NSTEPS):
        if not slv.step_outputs(st, H, y, at_start=True):
            raise RuntimeError(f"step {k + 1} failed")
    r = rollout(slv, st, 2 * NSTEPS, H, inputs=_inputs(system, 2 * NSTEPS), every=2)
    if r.status != 1 or not all(np.all(np.isfinite(v)) for v in r.outputs.values()):
        raise RuntimeError(f"rollout: {r.message}")
    for line in alpha_cases(model, spec):
        print(line, file=out, flush=True)


def run(models=None, out=sys.stdout) -> None:
    """The cases of ``models`` (names of MODELS; all by default), in the order of :func:`cases`."""
    for model, spec in MODELS.items():
        if models and model not in models:
            continue
        system = _load(model)
        if spec is not None:
            has_pattern = hasattr(system, "phiq_pattern")
            if has_pattern != spec["sparse"] or (system.m == 0) != spec["ode"]:
                raise RuntimeError(f"{model}: MODELS says {spec}, the system has patterns="
                                   f"{has_pattern}, m={system.m}")
        _evaluate(system, assembled=spec is not None)
        print(f"eval {model}", file=out, flush=True)
        if spec is None:
            continue
        for name, opts, need in solver_configs():
            if _applies(spec, need):
                _step(system, name, opts)
                print(f"step {model} {_label(name, opts)}", file=out, flush=True)
        _rollout(system, "li-euler", spec["fused"])
        print(f"rollout {model} li-euler {'compiled' if spec['fused'] else 'python'}", file=out,
              flush=True)
        if not spec["ode"]:
            _rollout(system, "li-euler-indep", spec["fused"], B="partition")
            print(f"rollout {model} li-euler-indep {'compiled' if spec['fused'] else 'python'}",
                  file=out, flush=True)
            _rollout(system, "generalized-alpha", spec["fused"])
            print(f"rollout {model} generalized-alpha {'compiled' if spec['fused'] else 'python'}",
                  file=out, flush=True)
        _run_alpha_cases(system, model, spec, out)
    run_explicit_euler(models, out)


def main(argv) -> int:
    """``python boundscheck_cases.py [MODEL ...]``: run the cases (of the models named)."""
    unknown = [a for a in argv if a not in MODELS]
    if unknown:
        print(f"unknown model(s) {unknown}; known: {', '.join(MODELS)}", file=sys.stderr)
        return 2
    warnings.simplefilter("ignore")  # redundant rows, drift notices: not the subject here
    try:
        run(argv)
    except Exception:
        traceback.print_exc()
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
