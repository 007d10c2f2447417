"""rtmbs against MuJoCo and Exudyn on the three peer mechanisms (shared/benchmarks/peer-mechanisms.md).

    OPENBLAS_NUM_THREADS=1 python benchmarks/peers/bench_peers.py [--rounds 5] [--steps 2000]
        [--solver li-euler-indep:B=partition,stabilize=projection ...] [--out docs/benchmarks/peers.md]

Models: the built-in rtmbs models peer-four-bar, peer-chain, peer-quarter-car; MuJoCo and Exudyn
are built from the same numbers (mujoco_peers.py, exudyn_peers.py). Cases: MuJoCo `mj_step` in a
Python loop and `mujoco.rollout`; Exudyn generalized-α (ρ∞ 0.9) in one `SolveDynamic`; rtmbs
`li-euler` without projection and with its defaults (projection, implicit positions), plus every `--solver NAME[:option=value,...]`;
each of them but the first also as one `rollout` call per run (compiled where the solver has it).

Timing: one untimed warm-up run of every case, then ``rounds`` rounds in which every case
(mechanism × tool) runs once in turn (interleaved); each run is reset to t = 0 (untimed) and
then timed as a whole ``steps``-step run by process CPU time (time.process_time_ns) and wall
time. Tables give the medians over rounds (CPU min in brackets).
Checks, against the rtmbs offline reference (DOP853, rtol 1e-12): four-bar crank angle at 1 s,
chain tip position at 2 s, quarter-car chassis height at 2 s; and at 2 s the joint-closure error
(largest distance between the two points of a joint) and the energy error (E − E_ref)/E_ref(0).
Needs ``pip install -e '.[peers]'`` for MuJoCo and Exudyn; a tool that cannot be imported is skipped
and named in the output.
"""
from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
os.environ.setdefault("OMP_NUM_THREADS", "1")
os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import argparse  # noqa: E402
import pathlib  # noqa: E402
import platform  # noqa: E402
import subprocess  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402

import numpy as np  # noqa: E402

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parent))
import mechanisms as M  # noqa: E402

from rtmbs import simulate  # noqa: E402
from rtmbs.models import peers  # noqa: E402
from rtmbs.solvers.base import get_solver  # noqa: E402
from rtmbs.solvers.rollout import rollout  # noqa: E402

ACCURACY = {"peer-four-bar": ("crank angle at 1 s", "°", 1.0),
            "peer-chain": ("tip position at 2 s", "m", 2.0),
            "peer-quarter-car": ("chassis height at 2 s", "m", 2.0)}


# -- cases: reset() to t = 0 (untimed), run(nstep) (timed), snapshot() of the last state -----------
class RtmbsCase:
    def __init__(self, mech, solver, options, h):
        self.mech, self.h = mech, h
        self.label = "rtmbs `" + solver + "`" + "".join(f" {k}={v}" for k, v in options.items())
        self.slv = get_solver(solver)(mech.system, **options)

    def reset(self):
        self.st = self.mech.system.initial_state()
        self.slv.reset(self.st)

    def run(self, nstep):
        st, slv, h = self.st, self.slv, self.h
        for i in range(nstep):
            slv.step(st, h)
            st.t = (i + 1) * h

    def snapshot(self):
        return M.rtmbs_snapshot(self.mech, self.st.q, self.st.qd)


class RtmbsRolloutCase(RtmbsCase):
    """rtmbs ``rollout``: all steps in one compiled call (the state only, no outputs)."""

    def __init__(self, mech, solver, options, h):
        super().__init__(mech, solver, options, h)
        self.label = self.label.replace("`" + solver + "`", "`" + solver + "` rollout")

    def run(self, nstep):
        rollout(self.slv, self.st, nstep, self.h, outputs=False, every=nstep)


class MujocoStepCase:
    label = "MuJoCo `mj_step` Python loop"

    def __init__(self, mech, h):
        from mujoco_peers import MujocoCase

        self.c = MujocoCase(mech, h)

    def reset(self):
        self.c.reset()

    def run(self, nstep):
        self.c.run(nstep)

    def snapshot(self):
        return self.c.snapshot()


class MujocoRolloutCase(MujocoStepCase):
    label = "MuJoCo `mujoco.rollout`"

    def reset(self):
        self.c.reset()

    def run(self, nstep):
        self.last = self.c.rollout(nstep)

    def snapshot(self):
        self.c.set_state(self.last.reshape(-1, self.last.shape[-1])[-1])
        return self.c.snapshot()


class ExudynCase:
    label = "Exudyn generalized-α ρ∞ 0.9"

    def __init__(self, mech, h):
        from exudyn_peers import ExudynCase as X

        self.c, self.h = X(mech), h

    def reset(self):
        pass  # SolveDynamic starts from the initial values every time

    def run(self, nstep):
        self.c.run(nstep, self.h)

    def snapshot(self):
        return self.c.snapshot()


def parse_solver(text):
    """``NAME[:key=value,...]`` -> (name, options); values become numbers or booleans where they read so."""
    name, _, rest = text.partition(":")
    opts = {}
    for item in filter(None, rest.split(",")):
        k, _, v = item.partition("=")
        low = v.lower()
        if low in ("true", "false"):
            opts[k] = low == "true"
            continue
        try:
            opts[k] = int(v)
        except ValueError:
            try:
                opts[k] = float(v)
            except ValueError:
                opts[k] = v
    return name, opts


def reference(mech, h, steps):
    """Quantities of the rtmbs offline reference: accuracy quantity and energy, at 1 s and 2 s."""
    r = simulate(mech.system, "reference", t_end=steps * h, h=h, method="DOP853", rtol=1e-12, atol=1e-14,
                 accelerations=False)
    _, _, t_acc = ACCURACY[mech.name]
    k = int(round(t_acc / h))
    snap_acc = M.rtmbs_snapshot(mech, r.q[k], r.qd[k])
    snap0 = M.rtmbs_snapshot(mech, r.q[0], r.qd[0])
    snap_end = M.rtmbs_snapshot(mech, r.q[-1], r.qd[-1])
    out = {"value": M.accuracy_quantity(mech, snap_acc), "E0": M.energy(mech, snap0),
           "E_end": M.energy(mech, snap_end), "closure": M.closure(mech, snap_end)}
    if mech.name == "peer-four-bar":  # the stored tight value (Radau rtol 1e-10) must agree
        stored = (peers.FOUR_BAR_CRANK_DEG_1S + 180.0) % 360.0 - 180.0
        out["stored_check"] = float(out["value"][0] - stored)
    return out


def checks(mech, case, ref, h, steps):
    """Accuracy error, closure and energy error at the end of a full run (untimed)."""
    case.reset()
    _, _, t_acc = ACCURACY[mech.name]
    k = int(round(t_acc / h))
    case.run(k)
    err = M.accuracy_error(mech, M.accuracy_quantity(mech, case.snapshot()), ref["value"])
    if k != steps:
        case.reset()
        case.run(steps)
    snap = case.snapshot()
    return {"acc": err, "closure": M.closure(mech, snap), "energy": (M.energy(mech, snap) - ref["E_end"]) / abs(ref["E0"])}


def machine():
    try:
        cpu = next(line.split(":", 1)[1].strip() for line in subprocess.run(
            ["lscpu"], capture_output=True, text=True).stdout.splitlines() if line.startswith("Model name"))
    except (OSError, StopIteration):
        cpu = platform.processor() or "?"

    return (f"{cpu}, {os.cpu_count()} logical CPUs, Python {platform.python_version()}, numpy {np.__version__}, "
            f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS')}")


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--steps", type=int, default=2000)
    ap.add_argument("--h", type=float, default=1e-3)
    ap.add_argument("--solver", action="append", default=[], help="extra rtmbs solver NAME[:option=value,...]")
    ap.add_argument("--models", nargs="+", default=list(peers.PEER_MODELS), choices=peers.PEER_MODELS)
    ap.add_argument("--out", default=None, help="write the Markdown tables here")
    args = ap.parse_args(argv)
    if args.rounds < 1 or args.steps < 1:
        ap.error("--rounds and --steps must be positive")
    h, steps = args.h, args.steps

    notes = []
    tools = []
    try:
        import mujoco
        tools += [MujocoStepCase, MujocoRolloutCase]
        notes.append(f"MuJoCo {mujoco.__version__}")
    except ImportError as exc:
        notes.append(f"MuJoCo skipped (cannot import: {exc})")
    try:
        import exudyn
        tools.append(ExudynCase)
        notes.append(f"Exudyn {exudyn.__version__}")
    except ImportError as exc:
        notes.append(f"Exudyn skipped (cannot import: {exc})")
    solvers = [("li-euler", {"stabilize": "none"}), ("li-euler", {})] + [parse_solver(s) for s in args.solver]

    mechs = {name: M.mechanism(name) for name in args.models}
    cases = []  # (mechanism name, case)
    for name, mech in mechs.items():
        cases += [(name, T(mech, h)) for T in tools]
        cases += [(name, RtmbsCase(mech, s, o, h)) for s, o in solvers]
        cases += [(name, RtmbsRolloutCase(mech, s, o, h)) for s, o in solvers[1:]]
    load0 = os.getloadavg()
    print("reference solutions ...", file=sys.stderr)
    refs = {name: reference(mech, h, steps) for name, mech in mechs.items()}
    print("warm-up and checks ...", file=sys.stderr)
    results, failed = {}, []
    for name, case in list(cases):
        try:
            case.reset()
            case.run(steps)  # warm-up (MuJoCo/Exudyn first call)
            results[(name, case.label)] = {"cpu": [], "wall": [], **checks(mechs[name], case, refs[name], h, steps)}
        except Exception as exc:  # a solver that fails on a mechanism is reported, not timed
            failed.append(f"{case.label} failed on {name}: {type(exc).__name__}: {exc}")
            cases.remove((name, case))
    notes += failed
    for r in range(args.rounds):
        print(f"round {r + 1}/{args.rounds}", file=sys.stderr)
        for name, case in cases:
            case.reset()
            c0, w0 = time.process_time_ns(), time.perf_counter_ns()
            case.run(steps)
            c1, w1 = time.process_time_ns(), time.perf_counter_ns()
            results[(name, case.label)]["cpu"].append((c1 - c0) / steps / 1e3)
            results[(name, case.label)]["wall"].append((w1 - w0) / steps / 1e3)
    load1 = os.getloadavg()
    text = report(mechs, cases, results, refs, args, notes, load0, load1)
    print(text)
    if args.out:
        pathlib.Path(args.out).write_text(text)
    return 0


def report(mechs, cases, results, refs, args, notes, load0, load1):
    labels = list(dict.fromkeys(c.label for _, c in cases))
    med = {k: (float(np.median(v["cpu"])), float(np.min(v["cpu"])), float(np.median(v["wall"]))) for k, v in results.items()}
    base = "MuJoCo `mj_step` Python loop"
    out = [f"Machine: {machine()}; {'; '.join(notes)}.",
           f"Load average (1 min) {load0[0]:.1f} at the start, {load1[0]:.1f} at the end; {args.rounds} interleaved rounds "
           f"of {args.steps} steps, h = {args.h:g} s.", "",
           "CPU µs per step, median over rounds (ratio to MuJoCo `mj_step`):", "",
           "| tool / method | " + " | ".join(mechs) + " |", "| --- |" + " --- |" * len(mechs)]
    for lab in labels:
        cells = []
        for name in mechs:
            if (name, lab) not in med:
                cells.append("—")
                continue
            cpu = med[(name, lab)][0]
            b = med.get((name, base))
            cells.append(f"{cpu:.1f}" + (f" ({cpu / b[0]:.1f}×)" if b else ""))
        out.append(f"| {lab} | " + " | ".join(cells) + " |")
    for name, mech in mechs.items():
        what, unit, _ = ACCURACY[name]
        ref = refs[name]
        out += ["", f"### {name}", "",
                f"Reference ({what}): {np.array2string(ref['value'], precision=9)} {unit}; "
                f"E_ref(0) = {ref['E0']:.9g} J, E_ref(2 s) = {ref['E_end']:.9g} J"
                + (f"; the stored Radau value differs by {ref['stored_check']:.1e}°" if "stored_check" in ref else "") + ".", "",
                f"| tool / method | CPU µs/step median [min] | wall µs/step median | ratio to MuJoCo mj_step (CPU) | "
                f"closure at 2 s (m) | (E − E_ref)/E_ref(0) at 2 s | error of {what} ({unit}) |",
                "| --- | --- | --- | --- | --- | --- | --- |"]
        for lab in labels:
            if (name, lab) not in results:
                continue
            r, (cpu, cmin, wall) = results[(name, lab)], med[(name, lab)]
            b = med.get((name, base))
            out.append(f"| {lab} | {cpu:.1f} [{cmin:.1f}] | {wall:.1f} | {cpu / b[0]:.2f} |" if b else
                       f"| {lab} | {cpu:.1f} [{cmin:.1f}] | {wall:.1f} | — |")
            out[-1] += f" {r['closure']:.2g} | {r['energy']:+.2g} | {r['acc']:.2g} |"
    return "\n".join(out) + "\n"


if __name__ == "__main__":
    sys.exit(main())
