"""Algorithm 2 (``li-euler-indep``) as one compiled call per step (issue 11).

:func:`li_euler_indep_step` runs the whole step of :mod:`rtmbs.solvers.li_euler_indep` for
B = "partition" on the packed storage of a compiled Cartesian model (seed 000 eqs. 24-28, 18, 30,
Table 2): the evaluations into the packed workspaces ``w0`` (at t, q: M, Q, γ and the Jacobians
in one call) and ``w1`` (at q + Δq), R and
S c, eq. 28 and λ (:func:`_middle`), Δq, the projection (eq. 30 with its own KKT
factors, or S(−Φ) with the factors of Φu), the Euler update of (q, ż), Φu at the new positions
with its pivot check and q̇ = S b + R ż. The kernels are those the Python-driven step calls, in
the same order on the same buffers (which evaluates M, Q, γ and then the Jacobians, Q again,
in two calls), so the numbers are the same bit for bit.

Two rare events, both reported in the returned code:

* ``CHANGED``: (q, q̇) are not what the last step left (the caller wrote them): Φu is factorised
  at q and ż re-mapped from q̇ (q̇ = S b + R B q̇) in the same call, before the step.
* ``REBASE``: the pivot ratio of Φu at the new positions fell below ``rebase_below``
  (= ``rebase_tol`` × its value at the last choice of B). The call stops there, with q, ż, the
  predicted q̇ + Δq̇ (``qd_pred``) and Φq at the new positions in ``w0``; Python then chooses B
  again (rook pivoting of a dense copy of Φq, a sparse re-analysis: allocates), re-maps
  ż = B(q̇ + Δq̇) and computes q̇ = S b + R ż (:meth:`LIEulerIndep._rebase_end`). The seed's step
  is not redone: the rebase only changes how the end state is described.

:func:`li_euler_indep_step_outputs` (the real-time loop's step, ``LIEulerIndep.step_outputs``)
adds the named outputs at the new state (or at the step's start) in the same call;
:mod:`rtmbs.solvers.rollout_indep` runs many steps in one call (``rtmbs.solvers.rollout``).

``vec`` holds the step's arrays (:func:`vector_size`, views by :func:`step_views`): R (n, f),
A R (n, f), H (f, f), A on its entries (na), then the n-vectors S c, r, x, w, Δq̇, Δq, q_p,
q̇_pred, q_last, q̇_last, the f-vectors Δż, ż, the m-vectors 0 and λ, and the projection's
right-hand side (n + m).
"""
from __future__ import annotations

import numpy as np
from numba import njit

from ..kernels.arena import borrowed, c_view
from ..kernels.cartesian import _GAMMA, _M, _PACKED, _PHI, _PHIQ, _Q
from ..kernels.evaluate import cartesian_outputs, evaluate_cartesian, packed_views
from ..kernels.extra_states import advance_extra_states
from ..kernels.layout_views import data_buffers, model_ints
from .basis import b_factor, b_lambda, b_project_T, b_R_Sc, b_velocity, b_zd
from .compiled_step import step_outputs
from .reduced import lambda_rhs, reduced
from .storage import project_kkt

#: bits of the code :func:`li_euler_indep_step` returns
OK, CHANGED, REBASE = 1, 2, 4
#: ``proj`` argument: no projection, eq. 30 with its KKT factors, S(−Φ) with those of Φu
PROJ_NONE, PROJ_KKT, PROJ_T = 0, 1, 2


# -- the kernels of a step (the Python-driven step calls them one by one) -------------------
@njit(cache=True)
def _middle(basis, aidx, phiq, mats, Q, gamma, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd,
            dqd, x, lam, multipliers):
    """One compiled call for the solves of a step: R, S c (eqs. 24-25), eq. 28, and λ."""
    b_R_Sc(basis, phiq, gamma, Rn, Sc)
    hr = reduced(aidx, mats, Q, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd)
    if multipliers:
        lambda_rhs(aidx, Aval, r, dqd, x)
        b_lambda(basis, x, lam, h)
    return hr


@njit(cache=True)
def _position_increment(qd, dqd, h, implicit, dq):
    """Δq = h(q̇ + Δq̇) (``implicit``: the position follows the new velocity, symplectic Euler)
    or Δq = h q̇ (seed 000 Table 2)."""
    for i in range(dq.shape[0]):
        dq[i] = h * (qd[i] + dqd[i]) if implicit else h * qd[i]


@njit(cache=True)
def _euler_update(q, dq, zd, dzd, qd, dqd, qd_pred):
    """q += Δq, ż += Δż, q̇_pred = q̇ + Δq̇ (Table 2), one compiled call."""
    for i in range(q.shape[0]):
        q[i] += dq[i]
        qd_pred[i] = qd[i] + dqd[i]
    for i in range(zd.shape[0]):
        zd[i] += dzd[i]


@njit(cache=True)
def _keep(q, qd, q_last, qd_last):
    for i in range(q.shape[0]):
        q_last[i] = q[i]
        qd_last[i] = qd[i]


@njit(cache=True)
def _unchanged(q, qd, q_last, qd_last):
    return _same(q, q_last) and _same(qd, qd_last)


@njit(cache=True)
def _same(a, b):
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


# -- the whole step -----------------------------------------------------------------------------
def vector_size(n: int, m: int, na: int) -> int:
    """Length of ``vec`` (module docstring) for n coordinates, m constraints, na entries of A."""
    f = n - m
    return 2 * n * f + f * f + na + 10 * n + 2 * f + 2 * m + (n + m)


@njit(cache=True, inline="always")
def _views(vec, n, m, na):
    f = n - m
    o = 0
    Rn = c_view(vec[o:o + n * f], (n, f)); o += n * f
    AR = c_view(vec[o:o + n * f], (n, f)); o += n * f
    H = c_view(vec[o:o + f * f], (f, f)); o += f * f
    Aval = vec[o:o + na]; o += na
    Sc = vec[o:o + n]; o += n
    r = vec[o:o + n]; o += n
    x = vec[o:o + n]; o += n
    w = vec[o:o + n]; o += n
    dqd = vec[o:o + n]; o += n
    dq = vec[o:o + n]; o += n
    qp = vec[o:o + n]; o += n
    qd_pred = vec[o:o + n]; o += n
    q_last = vec[o:o + n]; o += n
    qd_last = vec[o:o + n]; o += n
    dzd = vec[o:o + f]; o += f
    zd = vec[o:o + f]; o += f
    zero_m = vec[o:o + m]; o += m
    lam = vec[o:o + m]; o += m
    prhs = vec[o:o + n + m]
    return (Rn, AR, H, Aval, Sc, r, x, w, dqd, dq, qp, qd_pred, q_last, qd_last, dzd, zd, zero_m,
            lam, prhs)


#: the names of the views of ``vec``, in the order :func:`step_views` returns them
VIEW_NAMES = ("Rn", "AR", "H", "Aval", "Sc", "r", "x", "w", "dqd", "dq", "qp", "qd_pred",
              "q_last", "qd_last", "dzd", "zd", "zero_m", "lam", "prhs")


@njit(cache=True)
def step_views(vec, n, m, na):
    """The views of ``vec`` (:data:`VIEW_NAMES`; from Python: arrays sharing its memory)."""
    return _views(vec, n, m, na)


@njit(cache=True)
def li_euler_indep_step(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X, W, tmp,
                        aidx, kib, kfb, kidx, vec, hpiv, q, qd, m, t, h, jac_what, implicit,
                        multipliers, proj, gb, rebase_below, oidx0, out0):
    """One step of Algorithm 2 (seed 000 Table 2, eqs. 24-28, 18, 30) for B = "partition" on the
    packed workspaces ``w0``, ``w1`` of a compiled Cartesian model: q, q̇ (and ż, λ in ``vec``)
    updated in place. (fa, fb, pidx, cols, X, W, tmp): the basis (``PartitionBasis.args``);
    ``aidx``: the entry index of A and Φq in the packed layout; (kib, kfb, kidx): the projection
    KKT's factors and index (``proj`` = PROJ_KKT); ``gb``: the Baumgarte γ_B of b = −Φt − γ_B Φ
    (0: none). Returns (code: OK | CHANGED | REBASE bits, the pivot ratio of Φu at the new positions
    and its LU's pivot ratio and largest multiplier, the projection KKT's pivot ratio and largest
    multiplier). With REBASE set, q̇ is not yet updated (module docstring). Extra states
    (transient tyres) are read at the step's end (``xstate[0] = h``) and advanced with the inputs
    of the evaluation at t, as in :func:`rtmbs.solvers.compiled_step.li_euler_step`.
    ``out0[k] = data[oidx0[k]]``: the named outputs at the step's start, gathered right after the
    evaluation at t (with ``CHANGED``: evaluated at the (q, q̇) the caller gave, before ż is
    re-mapped); ``oidx0`` empty: none."""
    ibuf = borrowed(ibuf); ilay = borrowed(ilay); fbuf = borrowed(fbuf); flay = borrowed(flay)
    sbuf = borrowed(sbuf); slay = borrowed(slay); w0 = borrowed(w0); w1 = borrowed(w1)
    fa = borrowed(fa); fb = borrowed(fb); pidx = borrowed(pidx); cols = borrowed(cols)
    X = borrowed(X); W = borrowed(W); tmp = borrowed(tmp); aidx = borrowed(aidx)
    kib = borrowed(kib); kfb = borrowed(kfb); kidx = borrowed(kidx); vec = borrowed(vec)
    hpiv = borrowed(hpiv); q = borrowed(q); qd = borrowed(qd)
    n = q.shape[0]
    na = np.intp(aidx[0])
    (Rn, AR, H, Aval, Sc, r, x, w, dqd, dq, qp, qd_pred, q_last, qd_last, dzd, zd, zero_m, lam,
     prhs) = _views(vec, n, m, na)
    basis = (fa, fb, pidx, cols, X, W, tmp)
    pq = (w0, aidx)
    nb = model_ints(ibuf, ilay).body_qadr.shape[0] - 1
    nblk = model_ints(ibuf, ilay).blk_pair.shape[0]
    m1 = data_buffers(sbuf, slay).Dx.shape[0]
    _, Q, phi, _, phit, gamma, _, _ = packed_views(w0, n, m, nb, m1, nblk)
    _, _, phi1, _, _, _, _, _ = packed_views(w1, n, m, nb, m1, nblk)
    xstate = data_buffers(sbuf, slay).xstate
    extra = xstate.shape[0] > 1
    if extra:
        xstate[0] = h
    what_end = _PACKED | _PHIQ | (_PHI if gb != 0.0 else 0)
    bphi = phi if gb != 0.0 else zero_m
    code = 0
    if not _unchanged(q, qd, q_last, qd_last):  # the caller changed the state (rare)
        if oidx0.shape[0]:  # the outputs at the state given, not at the re-mapped q̇
            cartesian_outputs(t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, n, m, oidx0, out0)
        evaluate_cartesian(what_end, t, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w0, n, m)
        b_factor(basis, pq)
        b_zd(basis, qd, zd)
        b_velocity(basis, pq, phit, bphi, gb, zd, qd)
        code |= CHANGED
    # one evaluation at (t, q, q̇): M, Q, γ and the Jacobians (the same numbers as M, Q, γ, then
    # the Jacobians with Q written again, as the Python-driven step evaluates them)
    evaluate_cartesian(_PACKED | _M | _Q | _GAMMA | jac_what, t, q, qd, ibuf, ilay, fbuf, flay,
                       sbuf, slay, w0, n, m)
    if (code & CHANGED) == 0:
        for k in range(oidx0.shape[0]):
            out0[k] = sbuf[oidx0[k]] if oidx0[k] >= 0 else np.nan  # (sensors: C engine only)
    # R, S c, eq. 28 and λ; Δq
    hr = _middle(basis, aidx, pq, w0, Q, gamma, qd, h, Rn, Sc, Aval, AR, H, hpiv, r, w, dzd, dqd,
                 x, lam, multipliers)
    _position_increment(qd, dqd, h, implicit, dq)
    if extra:  # (the evaluations below write no element outputs: those at t are used)
        advance_extra_states(ibuf, ilay, fbuf, flay, sbuf, slay, h)
    ok = hr > 0.0
    pratio, pgrowth = 1.0, 0.0
    if proj != PROJ_NONE:  # eq. 30 at q + Δq
        for i in range(n):
            qp[i] = q[i] + dq[i]
        what1 = _PACKED | _PHI | (_PHIQ if proj == PROJ_KKT else 0)
        evaluate_cartesian(what1, t + h, qp, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, n, m)
        if proj == PROJ_KKT:
            pratio, pgrowth = project_kkt(kib, kfb, kidx, w0, w1, phi1, h, prhs, dq)
            ok &= pratio > 0.0
        else:
            b_project_T(basis, phi1, dq)
    # Euler step of (q, ż); Φu at the new positions, its pivot check, q̇ = S b + R ż
    _euler_update(q, dq, zd, dzd, qd, dqd, qd_pred)
    evaluate_cartesian(what_end, t + h, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w0, n, m)
    ratio, lratio, growth = b_factor(basis, pq)
    if ok:
        code |= OK
    if ratio < rebase_below:
        return code | REBASE, ratio, lratio, growth, pratio, pgrowth
    b_velocity(basis, pq, phit, bphi, gb, zd, qd)
    _keep(q, qd, q_last, qd_last)
    return code, ratio, lratio, growth, pratio, pgrowth


@njit(cache=True)
def li_euler_indep_step_outputs(ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X,
                                W, tmp, aidx, kib, kfb, kidx, vec, hpiv, q, qd, m, t, h, jac_what,
                                implicit, multipliers, proj, gb, rebase_below, oidx, out,
                                at_start):
    """:func:`li_euler_indep_step`, then the named outputs at (t + h, q⁺, q̇⁺) into ``out``
    (``oidx``: ``CartesianSystem.output_index``), evaluated in ``w1`` (the step has used its Φ,
    Φq at q + Δq) as :func:`rtmbs.solvers.compiled_step.li_euler_step_outputs` does. ``out`` is
    left as it was when the step fails, and when it stops for a ``REBASE`` (q̇ is not final yet:
    the caller evaluates them after :meth:`LIEulerIndep._rebase_end`). With ``at_start`` the
    outputs are those at (t, q, q̇), gathered from the step's own evaluation there."""
    k0 = oidx.shape[0] if at_start else 0  # (the outputs at the start: all, or none)
    code, ratio, lratio, growth, pratio, pgrowth = li_euler_indep_step(
        ibuf, ilay, fbuf, flay, sbuf, slay, w0, w1, fa, fb, pidx, cols, X, W, tmp, aidx, kib, kfb,
        kidx, vec, hpiv, q, qd, m, t, h, jac_what, implicit, multipliers, proj, gb, rebase_below,
        oidx[:k0], out[:k0])
    if (not at_start and oidx.shape[0] > 0 and (code & OK) != 0 and ratio > 0.0
            and (code & REBASE) == 0):
        step_outputs(t + h, q, qd, ibuf, ilay, fbuf, flay, sbuf, slay, w1, m, oidx, out)
    return code, ratio, lratio, growth, pratio, pgrowth
