"""The redundant-constraints study: Pękal & Frączek 2016 Appendix Table 1 (Figs 3-8) and Figs 9-11 on this
machine.

``run_redundant_study(out_dir, quick=False, progress=True)`` integrates the simplified and the
overconstrained McPherson struts of :mod:`rtmbs.models.mcpherson` (Pękal & Frączek 2016 §4.1) over 10 s with
``scipy.integrate.solve_ivp`` RK45 (the paper's ode45) through
:func:`rtmbs.solvers.index1.integrate_index1`, for

* every acceleration formulation of :mod:`rtmbs.solvers.formulations` (Pękal & Frączek 2016 §3; where one
  does not apply, e.g. ``direct`` (eq. 10) on redundant constraints, the table says why);
* the three stabilisation cases: none, Baumgarte (eq. 9, α̂ = β̂ = 10 as in Pękal & Frączek 2016 §4.1) and
  coordinate partitioning (Newton tolerance 1e-3 × the integrator tolerance, partition chosen
  once at the start, as in §4.1);
* AbsTol = RelTol ∈ {1e-3, 1e-6, 1e-8, 1e-10}.

Per case: the mean wall time inside ``solve_ivp`` over ``repeats`` runs (the paper: mean of 10),
the number of right-hand-side evaluations, the largest ‖Φ‖ and ‖Φq q̇ + Φt‖, and the largest
error of the independent coordinates against an offline reference solution (the ``reference``
solver: DOP853, rtol = atol = 1e-12, coordinate projection). The constraint norms at position,
velocity and acceleration level of least-squares 2 on the simplified strut at the tightest
tolerance are plotted as in Figs 9-11. ``report.md``, ``results.json`` (every number),
``trajectories.npz`` (q on the output grid of every run, keyed ``strut/stab/tol/formulation``,
with ``t``, ``q_ref`` and the ``independent`` indices) and the PNGs go to ``out_dir``.

``quick=True``: 2 s, tolerances 1e-3 and 1e-6, one repeat (every formulation, strut and
stabilisation still runs, so every code path is exercised).
"""
from __future__ import annotations

import json
import math
import os
import platform
import time
from pathlib import Path

import numpy as np

from ..errors import FormulationNotApplicable, RtmbsError, SimulationDiverged
from ..model.description import Orientation
from ..models.mcpherson import build, mcpherson_overconstrained, mcpherson_simplified
from ..protocol import EVAL_GAMMA, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q
from ..solvers.formulations import get_formulation
from ..solvers.index1 import integrate_index1
from ..solvers.partitioning import NEWTON_TOL_FACTOR, choose_coordinates
from .verdicts import FAILS, HOLDS, Finding, findings_table, fmt_number

#: Formulations in the order of the report (the paper's five, plus the KKT pseudoinverse of
#: eq. 11, which is the paper's "direct" column for the overconstrained strut).
FORMULATION_ORDER = ("direct", "pseudoinverse", "udwadia-kalaba", "least-squares-1",
                     "least-squares-2", "udwadia-phohomsiri")
SHORT = {"direct": "direct", "pseudoinverse": "pinv", "udwadia-kalaba": "UK",
         "least-squares-1": "LS1", "least-squares-2": "LS2", "udwadia-phohomsiri": "UP"}
STABILIZATIONS = ("none", "baumgarte", "partitioning")
STRUTS = (("simplified", False), ("overconstrained", True))
#: Baumgarte parameters α̂ = β̂ = 10 (Pękal & Frączek 2016 §4.1).
ALPHA = BETA = 10.0
#: The formulation and stabilisation cases of Figs 9-11 (Pękal & Frączek 2016 §4.2: least-squares 2,
#: simplified strut, AbsTol = RelTol = 1e-10; here the tightest tolerance of the run).
FIG_FORMULATION = "least-squares-2"
FIG_NUMBERS = {"none": 9, "baumgarte": 10, "partitioning": 11}
#: zxz angles (φ, θ, ψ) of the control arm's frame: the body z axis along the hinge axis
#: (global x), so the arm's swing changes ψ only and θ stays at 90°. The library model now uses
#: the same frame (it first had the arm at (0, 90°, 0), whose swing drove θ through 0, the zxz
#: singularity where M is singular, at t ≈ 2.2 s and 5.2 s); ``arm_frame`` is kept to say so.
ARM_FRAME_HINGE = (np.pi / 2, np.pi / 2, 0.0)
#: A run stops (reported as failed) after this many right-hand sides (guards against a step
#: size collapse, e.g. at a singular M).
MAX_RHS = 100_000
#: Reference solution (offline): DOP853 at these tolerances, and a looser one to estimate its
#: own error.
REF_TOL, REF_CHECK_TOL = 1e-12, 1e-11

#: Pękal & Frączek 2016 Appendix Table 1: mean seconds of 10 runs (MATLAB R2014b, Intel i5 M520), rows
#: tolerance, columns in the order of the text (§4.2: direct, Udwadia-Kalaba, least-squares 1,
#: least-squares 2, Udwadia-Phohomsiri; the figures' legends were lost in the text extraction,
#: the order is inferred from the statements of §4.2, which it matches). The "direct" column of
#: the overconstrained strut is the pseudoinverse form (eq. 11).
PAPER_COLUMNS = ("direct", "udwadia-kalaba", "least-squares-1", "least-squares-2",
                 "udwadia-phohomsiri")
PAPER_TABLE1 = {
    ("simplified", "none"): (3, {1e-10: (3.10, 3.55, 3.58, 3.78, 3.95),
                                 1e-8: (1.33, 1.45, 1.41, 1.50, 1.59),
                                 1e-6: (0.59, 0.60, 0.61, 0.63, 0.67),
                                 1e-3: (0.29, 0.27, 0.27, 0.27, 0.29)}),
    ("overconstrained", "none"): (4, {1e-10: (4.70, 3.62, 3.63, 3.77, 4.02),
                                      1e-8: (1.92, 1.46, 1.48, 1.52, 1.64),
                                      1e-6: (0.84, 0.61, 0.63, 0.64, 0.67),
                                      1e-3: (0.40, 0.27, 0.27, 0.28, 0.30)}),
    ("simplified", "baumgarte"): (5, {1e-10: (10.39, 12.13, 12.19, 12.56, 13.46),
                                      1e-8: (4.35, 5.00, 5.01, 5.17, 5.52),
                                      1e-6: (1.96, 2.22, 2.22, 2.28, 2.46),
                                      1e-3: (0.88, 0.94, 0.94, 0.97, 1.04)}),
    ("overconstrained", "baumgarte"): (6, {1e-10: (15.69, 12.27, 12.37, 12.80, 13.54),
                                           1e-8: (6.51, 5.09, 5.14, 5.31, 5.67),
                                           1e-6: (2.90, 2.55, 2.29, 2.32, 2.49),
                                           1e-3: (1.27, 1.00, 0.95, 0.98, 1.33)}),
    ("simplified", "partitioning"): (7, {1e-10: (6.05, 6.18, 6.22, 6.38, 6.59),
                                         1e-8: (2.45, 2.52, 2.51, 2.59, 2.65),
                                         1e-6: (1.07, 1.05, 1.05, 1.07, 1.12),
                                         1e-3: (0.48, 0.45, 0.47, 0.46, 0.47)}),
    ("overconstrained", "partitioning"): (8, {1e-10: (7.49, 6.45, 6.47, 6.56, 6.86),
                                              1e-8: (3.11, 2.66, 2.64, 2.69, 2.87),
                                              1e-6: (1.35, 1.10, 1.10, 1.13, 1.17),
                                              1e-3: (0.60, 0.46, 0.47, 0.48, 0.49)}),
}


def build_strut(overconstrained: bool, arm_frame: str = "hinge"):
    """The McPherson strut of :mod:`rtmbs.models.mcpherson` as compiled for the study.

    ``arm_frame="hinge"`` (default): the arm's body frame set to :data:`ARM_FRAME_HINGE`;
    ``"library"``: :func:`rtmbs.models.mcpherson.build` unchanged. The library model now has
    that frame itself, so both give the same strut (kept for compatibility)."""
    if arm_frame == "library":
        return build(overconstrained)
    if arm_frame != "hinge":
        raise RtmbsError(f"arm_frame must be 'hinge' or 'library', got {arm_frame!r}")
    from ..system import compile_model

    m = mcpherson_overconstrained() if overconstrained else mcpherson_simplified()
    m.body("arm").orientation = Orientation(euler_zxz=ARM_FRAME_HINGE)
    sysm = compile_model(m)
    sysm.allow_redundant = bool(overconstrained)
    return sysm


class _Budget:
    """``system`` with a cap on the dynamics evaluations (calls asking for M): past ``limit``
    :meth:`evaluate` raises :class:`SimulationDiverged`."""

    def __init__(self, system, limit: int):
        self._sys, self._limit, self.count = system, limit, 0

    def __getattr__(self, name):
        return getattr(self._sys, name)

    def evaluate(self, t, q, qd, ws, what):
        if what & EVAL_M:
            self.count += 1
            if self.count > self._limit:
                raise SimulationDiverged(f"stopped after {self._limit} right-hand sides at "
                                         f"t = {t:.4g} s (step size collapse)", t=t)
        return self._sys.evaluate(t, q, qd, ws, what)


def study_config(quick: bool = False, repeats: int | None = None) -> dict:
    """The settings of a run: ``t_end``, ``tolerances``, ``repeats``, ``dt_out``."""
    if quick:
        return dict(t_end=2.0, tolerances=(1e-3, 1e-6), repeats=repeats or 1, dt_out=0.05)
    return dict(t_end=10.0, tolerances=(1e-3, 1e-6, 1e-8, 1e-10), repeats=repeats or 3,
                dt_out=0.05)


# -- pieces ------------------------------------------------------------------------------
def paper_column(strut: str, formulation: str) -> str | None:
    """The column of Pękal & Frączek 2016 Table 1 a formulation of ours corresponds to (or None)."""
    if formulation == "pseudoinverse":
        return "direct" if strut == "overconstrained" else None
    if formulation == "direct":
        return "direct" if strut == "simplified" else None
    return formulation


def applicability(system, formulation: str):
    """``None`` if ``formulation`` applies at the initial state of ``system``, else the reason
    (the message of :class:`~rtmbs.errors.FormulationNotApplicable`)."""
    st = system.initial_state()
    ws = system.workspace()
    system.evaluate(st.t, st.q, st.qd, ws, EVAL_M | EVAL_Q | EVAL_PHIQ | EVAL_GAMMA)
    try:
        get_formulation(formulation)(ws.M, ws.phiq, ws.Q, ws.gamma)
    except FormulationNotApplicable as exc:
        return str(exc)
    return None


def short_reason(reason: str) -> str:
    """A table-sized reason: "redundant constraints (rank Φq = 26 < m = 31)" and the like."""
    import re

    m = re.search(r"rank\(Φq\) = (\d+) < m = (\d+)", reason)
    if m and "independent constraints" in reason:
        return f"redundant constraints (rank Φq = {m.group(1)} < m = {m.group(2)})"
    m = re.search(r"non-singular mass matrix", reason)
    if m:
        return "singular mass matrix"
    return reason.split(";")[0]


def constraint_norms(system, result, formulation: str, stabilization: str,
                     alpha: float = ALPHA, beta: float = BETA):
    """‖Φ‖₂, ‖Φ̇‖₂ = ‖Φq q̇ + Φt‖₂ and ‖Φ̈‖₂ = ‖Φq q̈ − γ‖₂ at the output times of ``result``.

    q̈ is what the integrator used: the formulation's solution with γ, or with γ̄ of eq. 9 for
    Baumgarte (so there ‖Φ̈‖ = ‖2α̂Φ̇ + β̂²Φ‖, the stabilisation term)."""
    form = get_formulation(formulation)
    ws = system.workspace()
    N = result.t.size
    out = np.zeros((3, N))
    for k in range(N):
        t, q, qd = result.t[k], result.q[k], result.qd[k]
        system.evaluate(t, q, qd, ws, EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ | EVAL_GAMMA)
        phid = ws.phiq @ qd + ws.phit
        g = ws.gamma
        if stabilization == "baumgarte":
            g = g - 2.0 * alpha * phid - beta**2 * ws.phi
        qdd, _ = form(ws.M, ws.phiq, ws.Q, g)
        out[0, k] = np.linalg.norm(ws.phi)
        out[1, k] = np.linalg.norm(phid)
        out[2, k] = np.linalg.norm(ws.phiq @ qdd - ws.gamma)
    return out


def _reference(system, t_end, dt_out, out_dir, log, tag=""):
    """Reference q on the output grid (cached in ``out_dir``) and its estimated own error."""
    key = dict(model=system.name, tag=tag, t_end=t_end, dt_out=dt_out, tol=REF_TOL,
               check=REF_CHECK_TOL, method="DOP853")
    path = Path(out_dir) / f"reference_{system.name}{tag}.npz"
    if path.exists():
        d = np.load(path, allow_pickle=False)
        if json.loads(str(d["key"])) == key:
            return d["t"], d["q"], float(d["self_err"]), float(d["wall"])
    from ..solvers.simulate import simulate

    tic = time.perf_counter()
    ref = simulate(system, "reference", t_end=t_end, h=dt_out, method="DOP853",
                   rtol=REF_TOL, atol=REF_TOL)
    wall = time.perf_counter() - tic
    chk = simulate(system, "reference", t_end=t_end, h=dt_out, method="DOP853",
                   rtol=REF_CHECK_TOL, atol=REF_CHECK_TOL)
    self_err = float(np.abs(ref.q - chk.q).max())
    log(f"reference {system.name}: DOP853 rtol = atol = {REF_TOL:g}, {wall:.1f} s; "
        f"difference to {REF_CHECK_TOL:g}: {self_err:.1e}")
    np.savez(path, t=ref.t, q=ref.q, self_err=self_err, wall=wall, key=json.dumps(key))
    return ref.t, ref.q, self_err, wall


def _fmt_s(x):
    if x is None or not math.isfinite(x):
        return "–"
    return f"{x:.3f}" if x < 10 else f"{x:.1f}"


# -- the study ---------------------------------------------------------------------------
def run_redundant_study(out_dir, quick: bool = False, progress: bool = True,
                        repeats: int | None = None, arm_frame: str = "hinge",
                        max_rhs: int = MAX_RHS, log=print) -> dict:
    """Reproduce Pękal & Frączek 2016 Appendix Table 1 and Figs 9-11 for both McPherson struts; write
    ``report.md``, ``results.json``, ``trajectories.npz`` and PNG plots into ``out_dir`` and
    return the numbers and findings (keys ``config``, ``runs``, ``findings``, ``figures``,
    ``report``).

    ``repeats``: timed runs per case (default 3; quick 1); ``arm_frame``: see
    :func:`build_strut`; ``max_rhs``: a run stops as failed after this many right-hand sides."""
    os.environ.setdefault("MPLBACKEND", "Agg")
    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    cfg = study_config(quick, repeats)
    T, tols, reps, dt = cfg["t_end"], cfg["tolerances"], cfg["repeats"], cfg["dt_out"]
    t_eval = np.linspace(0.0, T, int(round(T / dt)) + 1)
    study_tic = time.perf_counter()

    systems = {name: build_strut(over, arm_frame) for name, over in STRUTS}
    # independent coordinates: those partitioning picks at the start (the same on both struts)
    st0 = systems["simplified"].initial_state()
    ws0 = systems["simplified"].workspace()
    systems["simplified"].evaluate(0.0, st0.q, st0.qd, ws0, EVAL_PHIQ)
    _, indep, _ = choose_coordinates(ws0.phiq)
    names = list(systems["simplified"].coordinate_names)
    indep_names = [names[i] for i in indep]

    # reference: the simplified strut (full-rank KKT, LU); the overconstrained strut has the
    # same motion (the second hinge is coaxial) and is checked against the same solution.
    t_ref, q_ref, ref_self_err, ref_wall = _reference(
        systems["simplified"], T, dt, out, log, tag="" if arm_frame == "hinge" else "_library")
    if t_ref.shape != t_eval.shape or np.abs(t_ref - t_eval).max() > 1e-9:
        raise RtmbsError(f"reference grid ({t_ref.size} points) differs from the output grid "
                         f"({t_eval.size} points); delete {out}/reference_*.npz")

    applies = {(s, f): applicability(systems[s], f) for s, _ in STRUTS for f in FORMULATION_ORDER}

    # warm-up: JIT-compiled kernels and formulation caches, so the first timed run measures steps
    for s, _ in STRUTS:
        for f in FORMULATION_ORDER:
            if applies[(s, f)] is None:
                for stab in STABILIZATIONS:
                    integrate_index1(systems[s], f, stab, rtol=1e-3, atol=1e-3, t_end=0.05,
                                     alpha=ALPHA, beta=BETA, t_eval=np.array([0.0, 0.05]))

    cases = [(s, stab, tol, f) for s, _ in STRUTS for stab in STABILIZATIONS for tol in tols
             for f in FORMULATION_ORDER]
    bar = None
    if progress:
        from tqdm.auto import tqdm

        bar = tqdm(total=sum(reps for c in cases if applies[(c[0], c[3])] is None),
                   desc="redundant study", unit="run")
    runs, results = [], {}
    for s, stab, tol, f in cases:
        row = dict(strut=s, stabilization=stab, tol=tol, formulation=f,
                   paper_column=paper_column(s, f))
        reason = applies[(s, f)]
        if reason is not None:
            row.update(applicable=False, reason=reason, short_reason=short_reason(reason))
            runs.append(row)
            continue
        walls, res = [], None
        try:
            for k in range(reps):
                r = integrate_index1(_Budget(systems[s], max_rhs), f, stab, rtol=tol,
                                     atol=tol, t_end=T, alpha=ALPHA, beta=BETA, t_eval=t_eval)
                walls.append(r.meta["wall_s"])
                if k == 0:
                    res = r
                elif r.meta["nfev"] != res.meta["nfev"]:
                    raise RtmbsError(f"{s} {stab} {f} tol {tol:g}: nfev changed between "
                                     f"repeats ({res.meta['nfev']} then {r.meta['nfev']})")
                if bar is not None:
                    bar.update()
        except (SimulationDiverged, FormulationNotApplicable) as exc:
            row.update(applicable=True, ok=False, reason=str(exc),
                       short_reason=f"failed: {short_reason(str(exc))}")
            runs.append(row)
            continue
        ok = bool(res.meta["status"] >= 0 and res.t.size == t_eval.size)
        err_indep = float(np.abs(res.q[:, indep] - q_ref[:, indep]).max()) if ok else math.inf
        err_all = float(np.abs(res.q - q_ref).max()) if ok else math.inf
        n4 = max(res.t.size // 4, 1)
        row.update(
            applicable=True, ok=ok, repeats=reps, wall_mean=float(np.mean(walls)),
            wall_min=float(np.min(walls)), wall_std=float(np.std(walls)),
            nfev=int(res.meta["nfev"]), err_indep=err_indep, err_all=err_all,
            phi_max=float(res.phi_norm.max()), phid_max=float(res.phid_norm.max()),
            phi_first_quarter=float(res.phi_norm[:n4].max()),
            phi_last_quarter=float(res.phi_norm[-n4:].max()),
            message=str(res.meta.get("message", "")),
        )
        if stab == "partitioning":
            row.update(newton_tol=float(res.meta["newton_tol"]),
                       cond_dep_max=float(res.meta["cond_dep_max"]),
                       newton_iterations_per_call=res.meta["newton_iterations"]
                       / max(res.meta["newton_calls"], 1),
                       newton_max_iterations=int(res.meta["newton_max_iterations"]))
        results[(s, stab, tol, f)] = res
        runs.append(row)
    if bar is not None:
        bar.close()

    # -- figures 9-11: constraint norms, LS2, simplified strut, tightest tolerance -----------
    tol_fig = min(tols)
    norms = {}
    for stab in STABILIZATIONS:
        r = results.get(("simplified", stab, tol_fig, FIG_FORMULATION))
        if r is not None:
            norms[stab] = (r.t, constraint_norms(systems["simplified"], r, FIG_FORMULATION, stab))
    figures = _plot_norms(out, norms, tol_fig)
    figures.append(_plot_times(out, runs, tols))

    findings = _findings(runs, tols, results, indep)
    findings["seed002"] = seed002_findings(runs, tols)
    findings["constraint_norms_fig"] = {
        stab: dict(phi_max=float(v[1][0].max()), phid_max=float(v[1][1].max()),
                   phidd_max=float(v[1][2].max())) for stab, v in norms.items()}
    elapsed = time.perf_counter() - study_tic
    info = dict(
        config=dict(cfg, tolerances=list(tols), alpha=ALPHA, beta=BETA, arm_frame=arm_frame,
                    max_rhs=max_rhs,
                    newton_tol_factor=NEWTON_TOL_FACTOR, method="RK45",
                    independent=indep_names, reference=dict(
                        method="DOP853", tol=REF_TOL, self_err=ref_self_err, wall_s=ref_wall,
                        model="mcpherson-simplified"),
                    elapsed_s=elapsed, machine=_machine()),
        runs=runs, findings=findings, figures=[str(p.name) for p in figures])
    (out / "results.json").write_text(json.dumps(info, indent=1, default=_json_default))
    np.savez_compressed(out / "trajectories.npz", t=t_eval, q_ref=q_ref, independent=indep,
                        **{f"{s}/{stab}/{tol:g}/{f}": r.q
                           for (s, stab, tol, f), r in results.items()})
    report = _report(info)
    (out / "report.md").write_text(report)
    info["report"] = str(out / "report.md")
    log(f"redundant study: {len(runs)} cases in {elapsed:.0f} s -> {out / 'report.md'}")
    return info


def _json_default(x):
    if isinstance(x, (np.integer,)):
        return int(x)
    if isinstance(x, (np.floating,)):
        return float(x)
    if isinstance(x, np.ndarray):
        return x.tolist()
    return str(x)


def _machine() -> str:
    import numpy
    import scipy

    return (f"{platform.machine()}, {os.cpu_count()} cores, Python {platform.python_version()}, "
            f"numpy {numpy.__version__}, scipy {scipy.__version__}, "
            f"OPENBLAS_NUM_THREADS={os.environ.get('OPENBLAS_NUM_THREADS', 'unset')}")


# -- findings ----------------------------------------------------------------------------
def _ok(r):
    return r.get("applicable") and r.get("ok")


def _findings(runs, tols, results, indep) -> dict:
    F: dict = {}
    by = {(r["strut"], r["stabilization"], r["tol"], r["formulation"]): r for r in runs}
    # fastest formulation per case, and per strut: most wins and smallest total time
    fastest_case, wins, total = {}, {}, {}
    for s, _ in STRUTS:
        wins[s] = {f: 0 for f in FORMULATION_ORDER}
        total[s] = {f: 0.0 for f in FORMULATION_ORDER}
        complete = {f: True for f in FORMULATION_ORDER}
        for stab in STABILIZATIONS:
            for tol in tols:
                cand = {f: by[(s, stab, tol, f)]["wall_mean"] for f in FORMULATION_ORDER
                        if _ok(by[(s, stab, tol, f)])}
                for f in FORMULATION_ORDER:
                    if f in cand:
                        total[s][f] += cand[f]
                    else:
                        complete[f] = False
                if cand:
                    best = min(cand, key=cand.get)
                    fastest_case[f"{s}/{stab}/{tol:g}"] = best
                    wins[s][best] += 1
        tot = {f: v for f, v in total[s].items() if complete[f]}
        F[f"fastest_{s}"] = dict(
            by_total=min(tot, key=tot.get) if tot else None,
            by_wins=max(wins[s], key=wins[s].get),
            wins={f: w for f, w in wins[s].items() if w},
            total_s=tot, ranking=sorted(tot, key=tot.get))
    F["fastest_per_case"] = fastest_case
    # the paper's fastest (its Table 1), by wins and by total, in its columns
    for s, _ in STRUTS:
        pw = {c: 0 for c in PAPER_COLUMNS}
        pt = {c: 0.0 for c in PAPER_COLUMNS}
        for stab in STABILIZATIONS:
            _, tab = PAPER_TABLE1[(s, stab)]
            for tol, vals in tab.items():
                best = min(vals)
                for c, v in zip(PAPER_COLUMNS, vals):
                    pt[c] += v
                    if v == best:
                        pw[c] += 1
        F[f"paper_fastest_{s}"] = dict(by_total=min(pt, key=pt.get), wins=pw, total_s=pt,
                                       ranking=sorted(pt, key=pt.get))
    # nfev equal across formulations in each case (Pękal & Frączek 2016 §4.2)
    same = {}
    for s, _ in STRUTS:
        for stab in STABILIZATIONS:
            for tol in tols:
                nf = {by[(s, stab, tol, f)]["nfev"] for f in FORMULATION_ORDER
                      if _ok(by[(s, stab, tol, f)])}
                same[f"{s}/{stab}/{tol:g}"] = sorted(nf)
    F["nfev_per_case"] = same
    F["nfev_same_for_all_formulations"] = all(len(v) <= 1 for v in same.values())
    # spread of trajectories between formulations and between the struts
    spread, strut_diff = {}, {}
    for stab in STABILIZATIONS:
        for tol in tols:
            for s, _ in STRUTS:
                qs = [results[(s, stab, tol, f)].q for f in FORMULATION_ORDER
                      if (s, stab, tol, f) in results and _ok(by[(s, stab, tol, f)])]
                if len(qs) > 1:
                    spread[f"{s}/{stab}/{tol:g}"] = float(max(
                        np.abs(q[:, indep] - qs[0][:, indep]).max() for q in qs[1:]))
            f0 = FIG_FORMULATION
            a = results.get(("simplified", stab, tol, f0))
            b = results.get(("overconstrained", stab, tol, f0))
            if a is not None and b is not None:
                strut_diff[f"{stab}/{tol:g}"] = float(np.abs(a.q - b.q).max())
    F["formulation_spread"] = spread
    F["strut_difference"] = strut_diff
    # stabilisation cost: total mean time per stabilisation (applicable formulations, all tols)
    F["stabilization_total_s"] = {
        s: {stab: float(sum(by[(s, stab, tol, f)]["wall_mean"] for tol in tols
                            for f in FORMULATION_ORDER if _ok(by[(s, stab, tol, f)])))
            for stab in STABILIZATIONS} for s, _ in STRUTS}
    F["stabilization_nfev"] = {
        s: {stab: {f"{tol:g}": by[(s, stab, tol, FIG_FORMULATION)].get("nfev") for tol in tols}
            for stab in STABILIZATIONS} for s, _ in STRUTS}
    F["failed"] = [f"{r['strut']}/{r['stabilization']}/{r['tol']:g}/{r['formulation']}: "
                   f"{r['reason']}" for r in runs if r.get("applicable") and not r.get("ok")]
    return F


# -- Pękal & Frączek 2016 findings: one holds / does-not-hold entry each ------------------------------
#: Every finding of Pękal & Frączek 2016 §4.2 and §5 this study measures: key -> the paper's statement.
#: :func:`seed002_findings` gives each a verdict from the runs; the timing findings are also
#: evaluated on the paper's own Appendix Table 1 by the same rule (the "paper" column).
SEED002_CLAIMS = {
    "direct_fastest_simplified": "direct integration (eq. 10) is the fastest on the simplified "
    "strut (§4.2, §5; sum of the mean times over all stabilisations and tolerances)",
    "uk_ls1_next_simplified": "on the simplified strut Udwadia-Kalaba and least-squares 1 are "
    "slightly less effective than direct: second and third (§4.2)",
    "ls2_behind_uk_ls1_simplified": "least-squares 2 is slightly slower than Udwadia-Kalaba and "
    "least-squares 1 on the simplified strut (§4.2)",
    "up_slowest_simplified": "Udwadia-Phohomsiri is the slowest on the simplified strut (§4.2)",
    "pinv_slowest_overconstrained": "on the overconstrained strut direct integration (its "
    "pseudoinverse form, eq. 11; our `pseudoinverse`) is the least efficient (§4.2, §5)",
    "uk_ls1_fastest_overconstrained": "on the overconstrained strut Udwadia-Kalaba and "
    "least-squares 1 are the two fastest (§4.2, §5)",
    "uk_ls_similar": "Udwadia-Kalaba and both least-squares methods have similar cost (§5)",
    "up_weak_both": "Udwadia-Phohomsiri is slower than Udwadia-Kalaba and both least-squares "
    "methods on both struts (§5; least-squares 2 faster than it, as in Mariti et al.)",
    "none_cheapest": "simulations without stabilisation are faster than with either "
    "stabilisation (§4.2, §5; total time per stabilisation over the paper's five columns)",
    "partitioning_faster_than_baumgarte": "coordinate partitioning (chosen once) is faster than "
    "Baumgarte, about twice (§4.2, §5)",
    "nfev_same": "the number of RHS evaluations is the same for all formulations in each case, "
    "with one exception: overconstrained strut, Baumgarte, tol 1e-3 (§4.2)",
    "none_drifts": "without stabilisation the constraint norms degrade over time (Fig. 9)",
    "stabilized_no_drift": "with Baumgarte or partitioning the norms show no drift-off "
    "(Figs 10-11)",
    "newton_3_to_4": "partitioning's Newton-Raphson needs typically 3 or 4 iterations (§4.2)",
}
#: The criterion of each finding, in words (thresholds ours); "total" is the sum of the mean
#: times over all stabilisations and tolerances of a strut.
SEED002_CRITERIA = {
    "direct_fastest_simplified": "direct has the smallest total on the simplified strut",
    "uk_ls1_next_simplified": "UK and LS1 are second and third by total on the simplified strut",
    "ls2_behind_uk_ls1_simplified": "total LS2 > max(UK, LS1) on the simplified strut",
    "up_slowest_simplified": "UP has the largest total on the simplified strut (all five ran)",
    "pinv_slowest_overconstrained": "pseudoinverse has the largest total on the overconstrained "
    "strut (all five ran)",
    "uk_ls1_fastest_overconstrained": "UK and LS1 are first and second by total on the "
    "overconstrained strut",
    "uk_ls_similar": "largest / smallest total of UK, LS1, LS2 ≤ 1.25 on each strut",
    "up_weak_both": "total UP > each of UK, LS1, LS2 on both struts",
    "none_cheapest": "total without stabilisation < Baumgarte's and partitioning's on both struts",
    "partitioning_faster_than_baumgarte": "total Baumgarte / partitioning > 1 on both struts",
    "nfev_same": "RHS evaluations equal across formulations in every case but overconstrained / "
    "Baumgarte / 1e-3",
    "none_drifts": "max ‖Φ‖ last quarter / first quarter > 2 (LS2, simplified, tightest tol)",
    "stabilized_no_drift": "max ‖Φ‖ last quarter / first quarter ≤ 2 for Baumgarte and "
    "partitioning (same runs)",
    "newton_3_to_4": "mean Newton iterations per call in [2.5, 4.5] in every partitioning run",
}
#: The paper's statements for the findings not read from its Table 1.
SEED002_FIXED = {
    "nfev_same": "same in general; differs only for overconstrained/Baumgarte/1e-3 (Fig. 6)",
    "none_drifts": "‖Φ‖ and ‖Φ̇‖ degrade quickly (Fig. 9)",
    "stabilized_no_drift": "no drift-off (Figs 10, 11)",
    "newton_3_to_4": "typically 3 or 4 iterations",
}


def _times_from_runs(runs) -> dict:
    """(strut, stab, tol, paper column) -> mean seconds of the runs that finished."""
    return {(r["strut"], r["stabilization"], r["tol"], c): r["wall_mean"] for r in runs
            if _ok(r) and (c := paper_column(r["strut"], r["formulation"])) is not None}


def _times_from_paper() -> dict:
    """The same map from Pękal & Frączek 2016 Appendix Table 1."""
    return {(s, stab, tol, c): v for (s, stab), (_, tab) in PAPER_TABLE1.items()
            for tol, vals in tab.items() for c, v in zip(PAPER_COLUMNS, vals)}


def _time_verdicts(times: dict) -> dict:
    """The timing findings from a (strut, stab, tol, column) -> seconds map: key -> (holds,
    value, text). A column missing a case (a failed run) is left out of the totals."""
    out = {}
    cols, stabs = {}, {}
    for s, _ in STRUTS:
        cases = {(st, tol) for (s2, st, tol, _c) in times if s2 == s}
        full = [c for c in PAPER_COLUMNS if all((s, st, tol, c) in times for st, tol in cases)]
        cols[s] = {c: sum(times[(s, st, tol, c)] for st, tol in cases) for c in full}
        stabs[s] = {st: sum(times[(s, st2, tol, c)] for st2, tol in cases if st2 == st
                            for c in full) for st in STABILIZATIONS}
    rank = {s: sorted(cols[s], key=cols[s].get) for s in cols}

    def txt(s):
        return f"{s}: " + ", ".join(f"{SHORT[c]} {cols[s][c]:.2f}" for c in rank[s])

    sim, over = rank["simplified"], rank["overconstrained"]
    out["direct_fastest_simplified"] = (bool(sim) and sim[0] == "direct", sim[:1],
                                        txt("simplified") + " s")
    out["uk_ls1_next_simplified"] = (set(sim[1:3]) == {"udwadia-kalaba", "least-squares-1"},
                                     sim[1:3], "order " + " < ".join(SHORT[c] for c in sim))
    ls = cols["simplified"]
    ok = all(c in ls for c in ("udwadia-kalaba", "least-squares-1", "least-squares-2"))
    out["ls2_behind_uk_ls1_simplified"] = (
        ok and ls["least-squares-2"] > max(ls["udwadia-kalaba"], ls["least-squares-1"]),
        ls.get("least-squares-2"), "order " + " < ".join(SHORT[c] for c in sim))
    out["up_slowest_simplified"] = (bool(sim) and sim[-1] == "udwadia-phohomsiri"
                                    and len(sim) == len(PAPER_COLUMNS), sim[-1:],
                                    f"slowest {SHORT[sim[-1]] if sim else '–'}")
    out["pinv_slowest_overconstrained"] = (
        bool(over) and over[-1] == "direct" and len(over) == len(PAPER_COLUMNS), over[-1:],
        txt("overconstrained") + " s (direct = pseudoinverse)")
    out["uk_ls1_fastest_overconstrained"] = (
        set(over[:2]) == {"udwadia-kalaba", "least-squares-1"}, over[:2],
        "order " + " < ".join(SHORT[c] for c in over))
    spread = {}
    for s in cols:
        v = [cols[s][c] for c in ("udwadia-kalaba", "least-squares-1", "least-squares-2")
             if c in cols[s]]
        spread[s] = max(v) / min(v) if len(v) == 3 else math.inf
    out["uk_ls_similar"] = (all(x <= 1.25 for x in spread.values()), spread,
                            "max/min " + ", ".join(f"{s} {x:.2f}" for s, x in spread.items()))
    weak = {s: "udwadia-phohomsiri" in cols[s] and all(
        c in cols[s] and cols[s][c] < cols[s]["udwadia-phohomsiri"]
        for c in ("udwadia-kalaba", "least-squares-1", "least-squares-2")) for s in cols}
    out["up_weak_both"] = (all(weak.values()), weak, "; ".join(
        f"{s}: UP {cols[s].get('udwadia-phohomsiri', math.nan):.2f} vs UK/LS1/LS2 "
        + "/".join(f"{cols[s].get(c, math.nan):.2f}"
                   for c in ("udwadia-kalaba", "least-squares-1", "least-squares-2"))
        for s in cols))
    st_txt = "; ".join(f"{s}: " + ", ".join(f"{k} {v:.2f}" for k, v in stabs[s].items())
                       for s in stabs) + " s"
    out["none_cheapest"] = (all(d["none"] < min(d["baumgarte"], d["partitioning"])
                                for d in stabs.values()), stabs, st_txt)
    r = {s: d["baumgarte"] / d["partitioning"] if d["partitioning"] > 0 else math.nan
         for s, d in stabs.items()}
    out["partitioning_faster_than_baumgarte"] = (
        all(x > 1 for x in r.values()), r,
        "Baumgarte / partitioning " + ", ".join(f"{s} {x:.2f}" for s, x in r.items()))
    return out


def seed002_findings(runs, tols) -> dict:
    """One entry per :data:`SEED002_CLAIMS` key: ``holds``, ``value``, ``measured`` (text),
    ``claim``, ``seed`` (the paper's numbers; the timing ones by the same rule on its Table 1).

    ``runs``: the study's rows (strut, stabilization, tol, formulation, applicable, ok,
    wall_mean, nfev, phi_first_quarter, phi_last_quarter and, for partitioning,
    newton_iterations_per_call, newton_max_iterations)."""
    ours, paper = _time_verdicts(_times_from_runs(runs)), _time_verdicts(_times_from_paper())
    F = {}

    def put(key, holds, value, measured, seed):
        F[key] = dict(claim=SEED002_CLAIMS[key], criterion=SEED002_CRITERIA[key], seed=seed,
                      holds=bool(holds), value=value, measured=measured)

    for key in SEED002_CLAIMS:
        if key in ours:
            holds, value, text = ours[key]
            p = paper[key]
            put(key, holds, value, text, f"{p[2]} ({'holds' if p[0] else 'does not hold'} "
                "on the paper's Table 1)")
    cases = {}
    for r in runs:
        if _ok(r):
            cases.setdefault((r["strut"], r["stabilization"], r["tol"]), set()).add(r["nfev"])
    differ = sorted(k for k, v in cases.items() if len(v) > 1)
    allowed = {("overconstrained", "baumgarte", 1e-3)}
    put("nfev_same", bool(cases) and set(differ) <= allowed, differ,
        f"{len(cases) - len(differ)} of {len(cases)} cases identical"
        + (("; differ: " + ", ".join(f"{s}/{st}/{t:g}" for s, st, t in differ)) if differ
           else ""), SEED002_FIXED["nfev_same"])
    by = {(r["strut"], r["stabilization"], r["tol"], r["formulation"]): r for r in runs}
    tmin = min(tols)
    grow = {}
    for stab in STABILIZATIONS:
        r = by.get(("simplified", stab, tmin, FIG_FORMULATION))
        grow[stab] = (r["phi_last_quarter"] / max(r["phi_first_quarter"], 1e-300)
                      if r is not None and _ok(r) else math.nan)
    put("none_drifts", grow["none"] > 2, grow["none"],
        f"‖Φ‖ last / first quarter {grow['none']:.3g} (tol {tmin:g})",
        SEED002_FIXED["none_drifts"])
    put("stabilized_no_drift", grow["baumgarte"] <= 2 and grow["partitioning"] <= 2,
        {k: grow[k] for k in ("baumgarte", "partitioning")},
        f"last / first quarter: Baumgarte {grow['baumgarte']:.3g}, partitioning "
        f"{grow['partitioning']:.3g}", SEED002_FIXED["stabilized_no_drift"])
    its = [(r["newton_iterations_per_call"], r["newton_max_iterations"]) for r in runs
           if _ok(r) and r["stabilization"] == "partitioning"]
    if its:
        lo, hi = min(i for i, _ in its), max(i for i, _ in its)
        mx = max(m for _, m in its)
        put("newton_3_to_4", all(2.5 <= i <= 4.5 for i, _ in its), (lo, hi, mx),
            f"mean per call {lo:.2f}-{hi:.2f} over {len(its)} runs, at most {mx}",
            SEED002_FIXED["newton_3_to_4"])
    else:
        put("newton_3_to_4", False, None, "no partitioning run finished",
            SEED002_FIXED["newton_3_to_4"])
    return {k: F[k] for k in SEED002_CLAIMS}


# -- plots -------------------------------------------------------------------------------
def _figure(rows, cols=1, height_per_row=200, width=800):
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    fig = Figure(figsize=(width / 100, (80 + height_per_row * rows) / 100), dpi=100,
                 layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def _plot_norms(out: Path, norms: dict, tol: float) -> list[Path]:
    """Figs 9-11: ‖Φ‖, ‖Φ̇‖, ‖Φ̈‖ over time, one PNG per stabilisation."""
    paths = []
    labels = ("‖Φ‖", "‖dΦ/dt‖ = ‖Φq q' + Φt‖", "‖d²Φ/dt²‖ = ‖Φq q'' − γ‖")
    floor = 1e-18
    for stab, (t, nrm) in norms.items():
        fig = _figure(3)
        axes = fig.subplots(3, 1, sharex=True)
        for ax, lab, y in zip(axes, labels, nrm):
            ax.semilogy(t, np.maximum(y, floor), lw=1.0)
            ax.set_ylabel(lab)
            ax.grid(True, which="both", alpha=0.3)
        axes[-1].set_xlabel("t [s]")
        fig.suptitle(f"Fig. {FIG_NUMBERS[stab]}: constraint norms, simplified strut, "
                     f"{FIG_FORMULATION}, stabilisation '{stab}', tol {tol:g}")
        p = out / f"fig{FIG_NUMBERS[stab]:02d}_norms_{stab}.png"
        fig.savefig(p, dpi=100)
        paths.append(p)
    return paths


def _plot_times(out: Path, runs: list, tols) -> Path:
    """Figs 3-8: mean wall time against tolerance per formulation (log-log), strut × stab."""
    fig = _figure(3, 2, height_per_row=260, width=1000)
    axes = fig.subplots(3, 2, squeeze=False)
    for j, (s, _) in enumerate(STRUTS):
        for i, stab in enumerate(STABILIZATIONS):
            ax = axes[i, j]
            for f in FORMULATION_ORDER:
                pts = [(r["tol"], r["wall_mean"]) for r in runs
                       if r["strut"] == s and r["stabilization"] == stab
                       and r["formulation"] == f and _ok(r)]
                if pts:
                    x, y = zip(*sorted(pts))
                    ax.loglog(x, y, "o-", ms=3, lw=1.0, label=SHORT[f],
                              color=f"C{FORMULATION_ORDER.index(f)}")
            fig_no = PAPER_TABLE1[(s, stab)][0]
            ax.set_title(f"(Fig. {fig_no}) {s}, {stab}", fontsize="medium")
            ax.set_xlabel("AbsTol = RelTol")
            ax.set_ylabel("mean wall time [s]")
            ax.invert_xaxis()
            ax.grid(True, which="both", alpha=0.3)
            ax.legend(fontsize="x-small", ncol=2)
    p = out / "fig03-08_times.png"
    fig.savefig(p, dpi=100)
    return p


# -- report ------------------------------------------------------------------------------
def _report(info: dict) -> str:
    cfg, runs, F = info["config"], info["runs"], info["findings"]
    tols = cfg["tolerances"]
    by = {(r["strut"], r["stabilization"], r["tol"], r["formulation"]): r for r in runs}
    L = []
    w = L.append
    w("# Redundant constraints: Pękal & Frączek 2016 Appendix Table 1 and Figs 9-11 on this machine\n")
    w(f"Generated by `rtmbs.studies.redundant.run_redundant_study` "
      f"({'quick' if cfg['t_end'] < 10 else 'full'} run, {cfg['elapsed_s']:.0f} s). "
      f"Machine: {cfg['machine']}.\n")
    w(f"Both McPherson struts of Pękal & Frączek 2016 §4.1 (`rtmbs.models.mcpherson`: simplified n = 30, "
      f"m = 26; overconstrained n = 30, m = 31, rank 26), {cfg['t_end']:g} s, scipy `solve_ivp` "
      f"RK45 (the paper's ode45), AbsTol = RelTol ∈ {{{', '.join(f'{t:g}' for t in tols)}}}; "
      f"Baumgarte α̂ = β̂ = {cfg['alpha']:g} (the paper's values); coordinate partitioning chosen "
      f"once at the start, Newton tolerance {cfg['newton_tol_factor']:g} × tol. "
      f"Times: mean over **{cfg['repeats']} repeat(s)** of the wall time inside `solve_ivp` "
      f"(the paper: mean of 10, MATLAB R2014b on an i5 M520, so absolute values do not compare). "
      f"RHS: right-hand-side evaluations (identical in every repeat). "
      f"err: max over t and over the independent coordinates "
      f"({', '.join(cfg['independent'])}, radians) of |q − q_ref|, q_ref from the `reference` "
      f"solver ({cfg['reference']['method']}, rtol = atol = {cfg['reference']['tol']:g}, "
      f"projection onto the constraints) on the simplified strut, every {cfg['dt_out']:g} s; "
      f"it differs from the solution at rtol = atol = {REF_CHECK_TOL:g} by "
      f"{cfg['reference']['self_err']:.1e} (an upper estimate of its own error). The "
      f"overconstrained strut moves exactly like the simplified one (coaxial second hinge) and "
      f"is checked against the same reference.\n")
    w("Model: `rtmbs.models.mcpherson` as is; its control arm's body frame lies along the hinge "
      "(zxz angles (90°, 90°, 0)), so θ stays at 90°, away from the zxz singularity, and M stays "
      "regular as the paper requires (docs/studies/redundant.md).\n")

    # -- the paper's findings, each with a verdict
    w("## Findings of Pękal & Frączek 2016, as measured here\n")
    w("Every finding of Pękal & Frączek 2016 §4.2 and §5 this study measures, with its verdict computed from "
      "the runs (`seed002_findings`). The timing findings are judged on the sums of the mean "
      "times over all stabilisations and tolerances of this run, and by the same rule on the "
      "paper's Appendix Table 1 (paper column). Criteria for 'similar' and the like are ours and "
      "stated.\n")
    sf = F["seed002"]
    w("\n".join(findings_table(
        Finding(claim=e["claim"], verdict=HOLDS if e["holds"] else FAILS,
                criterion=e["criterion"], numbers=e["measured"], seed=e["seed"])
        for e in sf.values())))
    w(f"\n{sum(e['holds'] for e in sf.values())} of {len(sf)} hold. Not measured here: that "
      "Udwadia-Kalaba and least-squares 1 cannot be applied with a singular M (§5; M is regular "
      "on both struts, `rtmbs.solvers.formulations` refuses them on a singular M), and the "
      "non-ideal constraints for which the paper recommends Udwadia-Phohomsiri.\n")

    # -- details
    w("## Timing and constraint details\n")
    for s, _ in STRUTS:
        ours, paper = F[f"fastest_{s}"], F[f"paper_fastest_{s}"]
        pc = {f: paper_column(s, f) for f in FORMULATION_ORDER}
        ours_col = pc.get(ours["by_total"])
        agree = ours_col is not None and ours_col == paper["by_total"]
        rank = ", ".join(f"{SHORT[f]} {ours['total_s'][f]:.2f} s" for f in ours["ranking"])
        plab = {c: SHORT[c] for c in PAPER_COLUMNS}
        if s == "overconstrained":
            plab["direct"] = "direct (eq. 11, our pinv)"
        prank = ", ".join(f"{plab[c]} {paper['total_s'][c]:.1f} s" for c in paper["ranking"])
        wins = ", ".join(f"{SHORT[f]} {n}" for f, n in ours["wins"].items())
        pwins = ", ".join(f"{SHORT[c]} {n}" for c, n in paper["wins"].items() if n)
        w(f"* **{s} strut: fastest here `{ours['by_total']}`** (sum of the mean times over all "
          f"stabilisations and tolerances: {rank}; fastest per case: {wins}). "
          f"Paper: `{paper['by_total']}` ({prank}; fastest per case: {pwins}). "
          f"**{'Agrees' if agree else 'Differs'}** with the paper"
          + ("." if agree else f" (our `{ours['by_total']}` is the paper's "
             f"`{ours_col or 'no column'}`)."))
    w(f"* RHS evaluations are the same for every formulation in each case: "
      f"**{'yes' if F['nfev_same_for_all_formulations'] else 'no'}** (the paper: the same in "
      f"general, one exception at 1e-3 with Baumgarte on the overconstrained strut). Per "
      f"stabilisation ({FIG_FORMULATION}): "
      + "; ".join(f"{s}: " + ", ".join(f"{stab} " + "/".join(str(v) for v in d.values())
                                        for stab, d in F["stabilization_nfev"][s].items())
                  for s, _ in STRUTS)
      + f" (tolerances {' / '.join(f'{t:g}' for t in tols)}).")
    st = F["stabilization_total_s"]
    w("* Total time per stabilisation (all formulations and tolerances): "
      + "; ".join(f"{s}: " + ", ".join(f"{k} {v:.2f} s" for k, v in st[s].items())
                  for s, _ in STRUTS)
      + ". The paper's Table 1 has none < partitioning < Baumgarte (e.g. direct, simplified, "
      "1e-10: 3.10 / 6.05 / 10.39 s).")
    cn = F.get("constraint_norms_fig", {})
    if cn:
        w("* Constraint norms (Figs 9-11, simplified strut, least-squares 2, tol "
          f"{min(tols):g}): max ‖Φ‖ / ‖Φ̇‖ / ‖Φ̈‖: "
          + "; ".join(f"{k} {fmt_number(v['phi_max'], 1)} / {fmt_number(v['phid_max'], 1)} / "
                      f"{fmt_number(v['phidd_max'], 1)}" for k, v in cn.items())
          + ".")
        drift = [r for r in runs if _ok(r) and r["strut"] == "simplified"
                 and r["formulation"] == FIG_FORMULATION and r["tol"] == min(tols)]
        d = {r["stabilization"]: r for r in drift}
        if len(d) == 3:
            grows = d["none"]["phi_last_quarter"] > d["none"]["phi_first_quarter"]
            held = (d["partitioning"]["phi_max"] <= 10 * d["partitioning"]["newton_tol"]
                    and d["baumgarte"]["phi_max"] < d["none"]["phi_max"])
            w(f"  Unstabilised ‖Φ‖ {'grows' if grows else 'does not grow'} over the run "
              f"(largest in the last quarter / first quarter: "
              f"{d['none']['phi_last_quarter'] / max(d['none']['phi_first_quarter'], 1e-300):.2g}); "
              f"the stabilised runs {'stay below it' if held else 'do NOT stay below it'} "
              f"(partitioning within 10× its Newton tolerance). "
              + ("As in the paper (Figs 9-11)." if grows and held else "Unlike the paper."))
    sp = F["formulation_spread"]
    if sp:
        w(f"* All applicable formulations give the same trajectory: largest difference of the "
          f"independent coordinates between formulations {max(sp.values()):.1e} rad; between "
          f"the two struts ({FIG_FORMULATION}) {max(F['strut_difference'].values()):.1e}.")
    if F["failed"]:
        w("* Failed runs: " + "; ".join(F["failed"]) + ".")
    na = sorted({(r["strut"], r["formulation"], r["short_reason"]) for r in runs
                 if not r["applicable"]})
    for s, f, why in na:
        w(f"* `{f}`: not applicable on the {s} strut — {why}.")
    w("")

    # -- Table 1
    w("## Table 1: mean wall time [s] / RHS evaluations / err [rad]\n")
    w("Below each of our rows, the paper's seconds (Appendix Table 1) in the matching column; "
      "the paper's \"direct\" is eq. 10 on the simplified strut and the pseudoinverse form "
      "eq. 11 on the overconstrained one.\n")
    for stab in STABILIZATIONS:
        for s, _ in STRUTS:
            fig_no, ptab = PAPER_TABLE1[(s, stab)]
            w(f"### {s} strut, stabilisation: {stab} (paper Fig. {fig_no})\n")
            w("| tol | " + " | ".join(FORMULATION_ORDER) + " |")
            w("|---" * (len(FORMULATION_ORDER) + 1) + "|")
            for tol in sorted(tols, reverse=True):
                cells = []
                for f in FORMULATION_ORDER:
                    r = by[(s, stab, tol, f)]
                    if not r["applicable"]:
                        cells.append(f"not applicable — {r['short_reason']}")
                    elif not r.get("ok"):
                        cells.append(r["short_reason"])
                    else:
                        cells.append(f"{_fmt_s(r['wall_mean'])} / {r['nfev']} / "
                                     f"{fmt_number(r['err_indep'], 1)}")
                w(f"| {tol:g} | " + " | ".join(cells) + " |")
                if tol in ptab:
                    vals = dict(zip(PAPER_COLUMNS, ptab[tol]))
                    pcells = []
                    for f in FORMULATION_ORDER:
                        c = paper_column(s, f)
                        pcells.append(f"*{vals[c]:.2f}*" if c else "")
                    w("| paper | " + " | ".join(pcells) + " |")
            w("")

    # -- constraint norms and partitioning details
    w("## Constraint violation (largest over the run, least-squares 2)\n")
    w("| strut | stabilisation | tol | max ‖Φ‖ | ‖Φ‖ last/first quarter | max ‖Φ̇‖ | "
      "Newton tol | Newton it./call (max) | max cond Φu |")
    w("|---|---|---|---|---|---|---|---|---|")
    for s, _ in STRUTS:
        for stab in STABILIZATIONS:
            for tol in sorted(tols, reverse=True):
                r = by[(s, stab, tol, FIG_FORMULATION)]
                if not _ok(r):
                    continue
                grow = r["phi_last_quarter"] / max(r["phi_first_quarter"], 1e-300)
                part = stab == "partitioning"
                w(f"| {s} | {stab} | {tol:g} | {fmt_number(r['phi_max'], 1)} | {grow:.2g} | "
                  f"{fmt_number(r['phid_max'], 1)} | "
                  + (f"{r['newton_tol']:.0e} | {r['newton_iterations_per_call']:.2f} "
                     f"({r['newton_max_iterations']}) | {r['cond_dep_max']:.2g} |" if part
                     else "– | – | – |"))
    w("")
    w("## Figures\n")
    for p in info["figures"]:
        w(f"![{p}]({p})\n")
    return "\n".join(L) + "\n"
