"""Known numerical limits of the fixed-step solvers, bounded by one-line warnings that say what
to use instead (measured, docs/solvers.md "Known limits"). Each check is a function of the run's
set-up (solver, step, the model's tyres) or of a solver's counters after the run."""
from __future__ import annotations

import warnings

#: generalized-α with steady-state tyres: force swings of −3.7…5.2 kN on the multilink at 1 ms.
ALPHA_STEADY_TYRE_H = 1e-3
#: explicit Euler with transient tyres (low-speed damping): diverges at 2 ms.
EXPLICIT_TRANSIENT_TYRE_H = 2e-3
#: li-euler-indep re-partitions (each a dense pivoting of Φq, 3-5 ms on the full car) in more
#: than this share of the steps: 29 on a flat road and 246 on ISO class B in 6000 steps.
REBASE_SHARE = 0.002


class KnownLimitWarning(UserWarning):
    """A solver used where it is known to be inaccurate, unstable or not fixed-cost."""


def _tyres(system) -> tuple[int, int]:
    """(steady-state tyres, transient tyres) of a compiled model (0, 0 for others)."""
    every = len(getattr(system, "_tyre_rows", ()))
    transient = len(getattr(system, "_transient_rows", ()))
    return every - transient, transient


def before_run(system, solver_name: str, h: float) -> list[str]:
    """Warn (and return the messages) for a solver/step/model combination known to fail."""
    steady, transient = _tyres(getattr(system, "system", system))
    out = []
    if solver_name == "generalized-alpha" and steady and h >= ALPHA_STEADY_TYRE_H:
        out.append(f"generalized-alpha with {steady} steady-state tyre(s) at h = {h:g} s: the "
                   "tyre forces swing (−3.7…5.2 kN measured on the multilink at 1 ms); use "
                   "li-euler, or transient tyres")
    if solver_name == "explicit-euler" and transient and h >= EXPLICIT_TRANSIENT_TYRE_H:
        out.append(f"explicit-euler with {transient} transient tyre(s) at h = {h:g} s: the "
                   "low-speed damping of the relaxation makes it diverge (measured at 2 ms); "
                   "use li-euler or a step below 2 ms")
    for msg in out:
        warnings.warn(msg, KnownLimitWarning, stacklevel=4)
    return out


def after_run(solver, steps: int) -> list[str]:
    """Warn when li-euler-indep re-partitioned in more than REBASE_SHARE of its steps."""
    nrebase = int(getattr(solver, "nrebase", 0) or 0)
    if getattr(solver, "name", "") != "li-euler-indep" or steps <= 0 \
            or nrebase <= REBASE_SHARE * steps:
        return []
    msg = (f"li-euler-indep re-partitioned {nrebase} times in {steps} steps (each a dense "
           "pivoting of Φq, not fixed-cost): use li-euler, whose cost does not depend on a "
           "partition")
    warnings.warn(msg, KnownLimitWarning, stacklevel=4)
    return [msg]


def divergence_hint(solver_name: str) -> str:
    """What to add to a divergence message of ``solver_name`` (known gaps; '' for none)."""
    if solver_name == "li-euler-indep":
        return ("; Algorithm 2 gains energy on spinning chains (spatial-chain-10 diverged at "
                "2.3 s, peer-chain at 6.8 s at 1 ms): use li-euler")
    return ""
