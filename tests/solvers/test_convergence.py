"""Order of convergence. All the fixed-step methods here are first order (Carpinelli 2016 §3: Euler
forms; Truck benchmark eq. 5: p = 1), so the global error at a fixed time falls like h: the slope of
log(error) against log(h) over four step sizes must be 1 ± 0.15. References: the exact solution
of the linear oscillator, or DOP853 at rtol 1e-11 on the index-1 ODE (reference.py)."""
import numpy as np
import pytest

from rtmbs.solvers.simulate import simulate
from _models.linkages import LinearOscillator, double_pendulum, pendulum, slider_crank
from _models.kkt import reference

HS = [2e-3, 1e-3, 5e-4, 2.5e-4]


def _slope(errors):
    return np.polyfit(np.log(HS), np.log(errors), 1)[0]


def _final_errors(sysm, solver, t_end, q_ref, qd_ref=None, **opts):
    errs = []
    for h in HS:
        nsteps = int(round(t_end / h))
        res = simulate(sysm, solver, t_end=t_end, h=h, save_every=nsteps, **opts)
        assert res.t[-1] == pytest.approx(t_end)
        e = np.abs(res.q[-1] - q_ref).max()
        if qd_ref is not None:
            e = max(e, np.abs(res.qd[-1] - qd_ref).max())
        errs.append(e)
    return np.array(errs)


CONSTRAINED = [
    ("explicit-euler", {"stabilize": "none"}),
    ("explicit-euler", {"stabilize": "baumgarte"}),
    ("li-euler", {"stabilize": "none"}),
    ("li-euler", {"stabilize": "projection"}),
    ("li-euler", {"stabilize": "ggl"}),
    ("li-euler-indep", {"B": "qr", "stabilize": "projection"}),
    ("li-euler-indep", {"B": "partition", "stabilize": "projection"}),
]


@pytest.mark.parametrize("solver,opts", CONSTRAINED, ids=lambda v: str(v))
def test_first_order_on_the_double_pendulum(solver, opts):
    sysm = double_pendulum()
    t_end = 0.5
    q_ref, qd_ref = reference(sysm, sysm.initial_state(), [t_end])
    errs = _final_errors(sysm, solver, t_end, q_ref[-1], qd_ref[-1], **opts)
    assert errs[-1] < 0.05  # the finest step is in the asymptotic range
    assert 0.85 < _slope(errs) < 1.15, errs


@pytest.mark.parametrize("solver,opts", [("li-euler", {}), ("li-euler-indep", {"B": "qr"})],
                         ids=lambda v: str(v))
def test_first_order_on_the_slider_crank(solver, opts):
    sysm = slider_crank()
    t_end = 0.3
    q_ref, _ = reference(sysm, sysm.initial_state(), [t_end])
    errs = _final_errors(sysm, solver, t_end, q_ref[-1], stabilize="projection", **opts)
    assert 0.85 < _slope(errs) < 1.15, errs


@pytest.mark.parametrize("solver,opts", [
    ("explicit-euler", {}),
    ("li-euler", {}),                               # implicit position update for m = 0
    ("li-euler", {"position_update": "explicit"}),
    ("li-euler", {"jacobian": "all"}),
    ("li-euler-indep", {"B": "qr"}),
], ids=lambda v: str(v))
def test_first_order_against_the_exact_oscillator(solver, opts):
    sysm = LinearOscillator()
    t_end = 1.0
    x, v = sysm.exact(t_end)
    errs = _final_errors(sysm, solver, t_end, np.array([x]), np.array([v]), **opts)
    assert 0.85 < _slope(errs) < 1.15, errs


def test_pendulum_multipliers_converge_to_the_reference_tension():
    """λ of both algorithms approaches the exact constraint force of the index-1 problem."""
    from _models.kkt import accelerations

    sysm = pendulum(theta0=1.0)
    t_end = 0.4
    q_ref, qd_ref = reference(sysm, sysm.initial_state(), [t_end])
    _, lam_ref = accelerations(sysm, t_end, q_ref[-1], qd_ref[-1])
    for solver, opts in (("li-euler", {}), ("li-euler-indep", {"B": "qr"}), ("explicit-euler", {})):
        errs = []
        for h in (1e-3, 2.5e-4):
            res = simulate(sysm, solver, t_end=t_end, h=h, save_every=int(round(t_end / h)),
                           stabilize="projection", **opts)
            errs.append(np.abs(res.lam[-1] - lam_ref).max())
        # first order in h: a 4x smaller step gives about 4x smaller error (at least 2.5x)
        assert errs[1] < errs[0] / 2.5, (solver, errs)
        assert errs[1] < 0.02 * np.abs(lam_ref).max(), (solver, errs)
