"""``reference`` with ``method="ida"``: SUNDIALS IDA on the stabilised index-2 form, sparse.

The sparse, fast reference for large models. IDA (variable-order, variable-step
BDF, Hindmarsh et al. 2005; through ``scikit-sundae``) integrates the equations of motion
(Carpinelli 2016 eq. 1) in the stabilised index-2 form of Gear, Gupta and Leimkuhler (GGL; Hairer &
Wanner VII.1), y = (q, v, λ, μ, x):

    q' − v + Φqᵀ μ = 0              (n)   μ = 0 on the exact solution
    M v' + Φqᵀ λ − Q(q, v, t) = 0   (n)
    Φ(q, t) = 0                     (m)
    Φq v + Φt = 0                   (m)
    x' − r(t, q, v, x) = 0          (nx)  extra first-order states (``extra_rates``)

λ and μ are algebraic (index 2): they are left out of the error test (atol = ALG_ATOL), as
usual for index-2 DAEs (Brenan, Campbell & Petzold §5.4). The iteration matrix ∂F/∂y + cj ∂F/∂y'
is assembled from the model's M, Φq, Jq = ∂Q/∂q and Jq̇ = ∂Q/∂q̇ on a fixed sparsity pattern
(``mass_pattern``, ``phiq_pattern``, ``jacobian_pattern`` of the compiled systems; dense blocks
otherwise) and factorised by SuperLU_MT (one thread):

    [ cj I        −I           0     Φqᵀ ]
    [ −Jq         cj M − Jq̇    Φqᵀ   0   ]
    [ Φq          0            0     0   ]
    [ 0           Φq           0     0   ]

(``jacobian="model"``: the curvature terms (Mv')_q, (Φqᵀλ)_q, (Φqᵀμ)_q and (Φq v)_q are left
out, and Jq lacks some tyre terms (docs/tyre.md); the rows of x hold cj I). ``jacobian="fd"``:
the q columns of rows F1, F2, F4 are forward differences of the residual, the columns grouped by
a colouring of their pattern (Curtis, Powell & Reid 1974: one residual per colour, 116 for the
sedan's n = 231), the other blocks as above (Jq̇ is exact on the multilink and to 1.3 % in one
entry on the sedan; differencing the v columns too, ``FD_V_COLUMNS``, cost more than it saved).
Outputs on the grid t0 + k·h are IDA's interpolants
(of the BDF order), projected onto Φ = 0 and Φq q̇ + Φt = 0 like the other methods' outputs
(``projection``; sparse LU); ``meta`` keeps the constraint error before the projection.
"""
from __future__ import annotations

import time
import warnings

import numpy as np
import scipy.sparse as sp

from ..errors import SolverError
from ..protocol import EVAL_JAC, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State
from ..result import Result
from ..tolerances import FD_FLOOR, FD_REL
from .base import RunFailure as _Failure

#: Absolute tolerance of the algebraic variables λ, μ: excludes them from IDA's error test.
ALG_ATOL = 1e30
#: IDA's limit of internal steps between two outputs.
MAX_STEPS_PER_OUTPUT = 50_000
#: IDA's first step (s) unless ``first_step`` is given. IDA's own estimate, 0.5 over the
#: weighted norm of ẏ0, collapses when a component starts near zero with a nonzero rate (its
#: error weight is 1/atol = 1e12): the sedan with rolling resistance got 1e-14 s, where the
#: index-2 iteration matrix (cj ~ 1e14 beside Φq of order 1) is too ill-conditioned for Newton,
#: and IDA failed at t = 7e-14 s. From 1 µs the error test sets the step (up or down) as usual.
IDA_FIRST_STEP = 1e-6
#: ``jacobian="fd"`` differences the v columns (−Jq̇ in rows F2) too, not only the q columns.
FD_V_COLUMNS = False


def _patterns(sys, ws, t, q, qd):
    """Bool patterns (M, Φq, Jq and Jq̇): the provider's fixed ones when it declares them, dense
    otherwise, joined with the nonzeros found at the initial state (never smaller than used)."""
    n, m = sys.n, sys.m
    sys.evaluate(t, q, qd, ws, EVAL_M | EVAL_PHIQ | EVAL_JAC)
    if hasattr(sys, "mass_pattern") and hasattr(sys, "phiq_pattern") \
            and hasattr(sys, "jacobian_pattern"):
        pm = np.array(sys.mass_pattern, bool)
        pp = np.array(sys.phiq_pattern, bool).reshape(m, n)
        pj = np.array(sys.jacobian_pattern(stiff_only=False), bool)
    else:
        pm, pp, pj = np.ones((n, n), bool), np.ones((m, n), bool), np.ones((n, n), bool)
    return (pm | (ws.M != 0), pp | (ws.phiq != 0),
            pj | (ws.Jq != 0) | (ws.Jqd != 0))


class GGLJacobian:
    """∂F/∂y + cj ∂F/∂y' of the GGL residual on a fixed CSC pattern: the values are
    ``A @ src + cj · B @ src`` with src = [M, Φq, Jq, Jq̇, 1] (flattened) and two constant
    sparse gather matrices A and B built once."""

    def __init__(self, n: int, m: int, nx: int, pm, pp, pj, qb=None, diff_v: bool = False):
        N = 2 * n + 2 * m + nx
        oM, oP, oJ, oD = 0, n * n, n * n + m * n, 2 * n * n + m * n
        one = 2 * n * n + m * n + n * n
        rows, cols, src, ca, cb = [], [], [], [], []

        def add(r, c, s, a, b):
            r, c, s = np.broadcast_arrays(*(np.asarray(a_, np.int64) for a_ in (r, c, s)))
            rows.append(r.ravel())
            cols.append(c.ravel())
            src.append(s.ravel())
            k = rows[-1].size
            ca.append(np.full(k, a, float))
            cb.append(np.full(k, b, float))

        i = np.arange(n)
        iq, iv, il, iu, ix = 0, n, 2 * n, 2 * n + m, 2 * n + 2 * m
        add(iq + i, iq + i, one, 0.0, 1.0)            # ∂F1/∂q' = I  (cj I)
        add(iq + i, iv + i, one, -1.0, 0.0)           # ∂F1/∂v = −I
        r, c = np.nonzero(pp)
        add(iq + c, iu + r, oP + r * n + c, 1.0, 0.0)  # ∂F1/∂μ = Φqᵀ
        r, c = np.nonzero(pj)
        add(iv + r, iq + c, oJ + r * n + c, -1.0, 0.0)  # ∂F2/∂q ≈ −Jq
        add(iv + r, iv + c, oD + r * n + c, -1.0, 0.0)  # ∂F2/∂v = −Jq̇ ...
        r, c = np.nonzero(pm)
        add(iv + r, iv + c, oM + r * n + c, 0.0, 1.0)   # ... + cj M
        r, c = np.nonzero(pp)
        add(iv + c, il + r, oP + r * n + c, 1.0, 0.0)  # ∂F2/∂λ = Φqᵀ
        add(il + r, iq + c, oP + r * n + c, 1.0, 0.0)  # ∂F3/∂q = Φq
        add(iu + r, iv + c, oP + r * n + c, 1.0, 0.0)  # ∂F4/∂v ≈ Φq
        j = np.arange(nx)
        add(ix + j, ix + j, one, 0.0, 1.0)            # ∂F5/∂x' = I  (cj I)
        fd = qb is not None
        if fd:  # the q columns' full structure: (Φqᵀμ)_q, (M v')_q, (Φqᵀλ)_q, Jq, (Φq v)_q
            r, c = np.nonzero(qb)
            add(r, iq + c, one, 0.0, 0.0)             # values: coloured differences
        rows, cols, src = np.concatenate(rows), np.concatenate(cols), np.concatenate(src)
        key, inv = np.unique(cols * N + rows, return_inverse=True)  # CSC order: column, row
        nnz, nsrc = key.size, one + 1
        A = sp.csr_matrix((np.concatenate(ca), (inv, src)), shape=(nnz, nsrc))
        self.B = sp.csr_matrix((np.concatenate(cb), (inv, src)), shape=(nnz, nsrc))
        self.pattern = sp.csc_matrix((np.ones(nnz), (key % N, key // N)), shape=(N, N))
        self.src = np.zeros(nsrc)
        self.src[one] = 1.0
        self.n, self.m = n, m
        self.fd = fd
        self.ncolours, self.nd = 0, 0
        if fd:  # differenced: q columns in rows F1, F2, F4 (+ v columns in rows F2: −Jq̇)
            kr, kc = key % N, key // N
            f124 = (kr < 2 * n) | ((kr >= iu) & (kr < il + 2 * m))
            sel = (kc < n) & f124
            if diff_v:
                sel |= (kc >= n) & (kc < 2 * n) & (kr >= n) & (kr < 2 * n)
            sel = np.nonzero(sel)[0]
            # the colouring sees every row F1, F2, F4 a differenced column changes
            cp = np.vstack((qb[:2 * n], qb[iu:iu + m]))
            if diff_v:
                vb = np.vstack((np.eye(n, dtype=bool), pj, pp))
                cp = np.hstack((cp, vb))
            A = sp.diags(np.where(np.isin(np.arange(nnz), sel), 0.0, 1.0)) @ A
            self.colour = colour_columns(cp)
            self.ncolours = int(self.colour.max(initial=-1)) + 1
            self.nd = cp.shape[1]
            self.fd_pos, self.fd_row, self.fd_col = sel, kr[sel], kc[sel]
            self.fd_colour = self.colour[self.fd_col]
        self.A = A.tocsr()

    def values(self, ws, cj: float, out: np.ndarray) -> None:
        """The nonzeros (CSC order) from the workspace's M, Φq, Jq, Jq̇ into ``out``."""
        n, m, s = self.n, self.m, self.src
        s[:n * n] = ws.M.ravel()
        s[n * n:n * n + m * n] = ws.phiq.ravel()
        s[n * n + m * n:2 * n * n + m * n] = ws.Jq.ravel()
        s[2 * n * n + m * n:3 * n * n + m * n] = ws.Jqd.ravel()
        out[:] = self.A @ s + cj * (self.B @ s)

    def fd_values(self, residual, t, y, yp, r0, cj: float, ws, out: np.ndarray) -> None:
        """``values`` with the q columns of rows F1, F2, F4 (and the v columns of rows F2 with
        ``diff_v``) replaced by forward differences of ``residual(t, y, yp, res)`` (``r0``: its
        value at y), one residual per colour; step δ_j = FD_REL · max(|y_j|, FD_FLOOR) (as the
        dense methods' ``jacobian="fd"``)."""

        n = self.nd
        self.values(ws, cj, out)
        d = FD_REL * np.maximum(np.abs(y[:n]), FD_FLOOR)
        d = (y[:n] + d) - y[:n]  # the step actually taken in floating point
        D = np.empty((self.ncolours, y.size))
        yy, rr = y.copy(), np.empty(y.size)
        for c in range(self.ncolours):
            cols = np.nonzero(self.colour == c)[0]
            yy[cols] = y[cols] + d[cols]
            residual(t, yy, yp, rr)
            D[c] = rr - r0
            yy[cols] = y[cols]
        out[self.fd_pos] += D[self.fd_colour, self.fd_row] / d[self.fd_col]


def q_block_pattern(sys, ws, t: float, q, pm, pp, pj, seed: int = 0) -> np.ndarray:
    """Bool pattern (2n + 2m, n) of ∂F/∂q of the GGL rows F1..F4 (``jacobian="fd"``): F2 −Jq
    (the declared ``pj``), F3 Φq, and the curvature terms of F1 (Φqᵀμ)_q, F2 (M v')_q +
    (Φqᵀλ)_q and F4 (Φq v)_q where they are nonzero in central differences at two random points
    near q (random μ, λ, v', v; M, Φq and Φt only, no forces), inside their structural bound
    (coordinates of one constraint row, Φqᵀ·Φq; M's pattern): the bound alone is far denser (the
    sedan's chassis rows couple with every body: 161 colours instead of 116)."""

    n, m = pp.shape[1], pp.shape[0]
    ppi = pp.astype(np.int64)
    bound = np.vstack(((ppi.T @ ppi) > 0, ((ppi.T @ ppi) > 0) | pm, pp))  # F1, F2, F4
    rng = np.random.default_rng(seed)

    def curvature(qq, a, lam, mu, v):
        sys.evaluate(t, qq, v, ws, EVAL_M | EVAL_PHI | EVAL_PHIQ)
        return np.concatenate((ws.phiq.T @ mu, ws.M @ a + ws.phiq.T @ lam, ws.phiq @ v + ws.phit))

    found = np.zeros_like(bound)
    q = np.asarray(q, float)
    for _ in range(2):
        qq = q + 1e-3 * np.maximum(np.abs(q), 1.0) * rng.standard_normal(n)
        args = rng.standard_normal(n), rng.standard_normal(m), rng.standard_normal(m), \
            rng.standard_normal(n)
        C = np.empty((2 * n + m, n))
        for j in range(n):
            e = np.zeros(n)
            e[j] = 1e3 * FD_REL * max(abs(qq[j]), FD_FLOOR)
            C[:, j] = curvature(qq + e, *args) - curvature(qq - e, *args)
        found |= np.abs(C) > 1e-10 * np.abs(C).max(initial=0.0)
    found &= bound
    found[n:2 * n] |= pj
    return np.vstack((found[:2 * n], pp, found[2 * n:]))


def colour_columns(pattern: np.ndarray) -> np.ndarray:
    """Greedy colouring of the columns of a bool pattern (rows × columns) for forward
    differences: two columns get the same colour only if no row has nonzeros in both (Curtis,
    Powell & Reid 1974); columns by decreasing count of nonzeros. Returns each column's colour."""
    nc = pattern.shape[1]
    colour = np.full(nc, -1, np.int64)
    used: list[np.ndarray] = []  # rows taken by each colour
    for j in np.argsort(-pattern.sum(axis=0), kind="stable"):
        rows = pattern[:, j]
        for c, taken in enumerate(used):
            if not (taken & rows).any():
                colour[j] = c
                taken |= rows
                break
        else:
            colour[j] = len(used)
            used.append(rows.copy())
    return colour


def sksundae_ida():
    try:
        from sksundae.ida import IDA
    except ImportError as exc:  # pragma: no cover - a dependency of rtmbs
        raise SolverError("solver 'reference': method 'ida' needs the package scikit-sundae "
                          "(pip install scikit-sundae)") from exc
    return IDA


def solve_ida(slv, state: State, t_end: float, h: float, progress: bool) -> Result:
    """The run of :meth:`ReferenceSolver.solve` with ``method="ida"`` (``slv``: the solver, reset
    to ``state``; its options rtol, atol, max_step, first_step, jacobian, projection)."""
    IDA = slv._method_cls
    sys, ws = slv.system, slv.ws
    n, m, nx = sys.n, sys.m, sys.nx
    N = 2 * n + 2 * m + nx
    t0 = float(state.t)
    nsteps = int(round((t_end - t0) / h))
    grid = t0 + np.arange(nsteps + 1) * h
    x0 = np.asarray(state.x, float) if nx else np.zeros(0)
    if x0.shape != (nx,):
        raise SolverError(f"solver 'reference': state.x has shape {x0.shape}, expected ({nx},)")
    slv.nfev = slv.njev = slv.nlu = slv.nproj = slv.nfev_jac = 0
    slv._lstsq = False
    slv._sparse_kkt = True
    cnt = dict(res=0, jac=0, res_jac=0)
    bad = dict(t=None)
    wall0 = time.perf_counter()
    rates = np.zeros(nx)

    def residual(t, y, yp, res):
        q, v = y[:n], y[n:2 * n]
        if nx:
            sys.set_extra(y[2 * n + 2 * m:])
        sys.evaluate(t, q, v, ws, EVAL_M | EVAL_Q | EVAL_PHI | EVAL_PHIQ)
        lam, mu = y[2 * n:2 * n + m], y[2 * n + m:2 * n + 2 * m]
        res[:n] = yp[:n] - v + ws.phiq.T @ mu
        res[n:2 * n] = ws.M @ yp[n:2 * n] + ws.phiq.T @ lam - ws.Q
        res[2 * n:2 * n + m] = ws.phi
        res[2 * n + m:2 * n + 2 * m] = ws.phiq @ v + ws.phit
        if nx:
            sys.extra_rates(t, q, v, y[2 * n + 2 * m:], rates)
            res[2 * n + 2 * m:] = yp[2 * n + 2 * m:] - rates

    def resfn(t, y, yp, res):
        residual(t, y, yp, res)
        cnt["res"] += 1
        if bad["t"] is None and not np.isfinite(res).all():
            bad["t"] = t

    rec = _Recorder(slv, nsteps + 1)
    status, message, kdone = 1, "finished", 0
    bar = None
    phi_raw = phid_raw = dq0 = dqd0 = 0.0
    jac_colours = None
    try:
        q0, qd0, _ = slv.project(t0, np.asarray(state.q, float), np.asarray(state.qd, float))
        dq0 = float(np.abs(q0 - state.q).max(initial=0.0))
        dqd0 = float(np.abs(qd0 - state.qd).max(initial=0.0))
        if nx:
            sys.set_extra(x0)
        qdd0, lam0 = slv.accelerations(t0, q0, qd0)
        rec.record(0, t0, q0, qd0, x0)
        kdone = 1
        if nsteps > 0:
            fd = slv.jacobian == "fd"
            pats = _patterns(sys, ws, t0, q0, qd0)
            jac = GGLJacobian(n, m, nx, *pats,
                              qb=q_block_pattern(sys, ws, t0, q0, *pats) if fd else None,
                              diff_v=FD_V_COLUMNS)
            r0 = np.empty(N)
            jac_colours = jac.ncolours if fd else None
            opts = dict(rtol=slv.rtol, max_num_steps=MAX_STEPS_PER_OUTPUT,
                        atol=np.concatenate((np.full(2 * n, slv.atol), np.full(2 * m, ALG_ATOL),
                                             np.full(nx, slv.atol))),
                        algebraic_idx=list(range(2 * n, 2 * n + 2 * m)) or None,
                        linsolver="sparse", sparsity=jac.pattern, nthreads=1,
                        max_step=0.0 if not np.isfinite(slv.max_step) else slv.max_step,
                        first_step=(min(IDA_FIRST_STEP, h) if slv.first_step is None
                                    else float(slv.first_step)))
            def jacfn(t, y, yp, res, cj, JJ):
                if nx:
                    sys.set_extra(y[2 * n + 2 * m:])
                if fd:  # F(y) here, then one residual per colour in fd_values
                    residual(t, y, yp, r0)
                    cnt["res_jac"] += 1 + jac.ncolours
                sys.evaluate(t, y[:n], y[n:2 * n], ws, EVAL_M | EVAL_PHIQ | EVAL_JAC)
                if fd:
                    jac.fd_values(residual, t, y, yp, r0, cj, ws, JJ)
                else:
                    jac.values(ws, cj, JJ)
                cnt["jac"] += 1
                if not np.isfinite(JJ).all():
                    how = "finite differences of the residual, " if fd else ""
                    raise FloatingPointError(
                        f"non-finite Jacobian ({how}jacobian='{slv.jacobian}') at t = {t:.9g} s")
            opts["jacfn"] = jacfn
            with warnings.catch_warnings():  # "custom sparse Jacobian ... ignored": intended
                warnings.simplefilter("ignore", UserWarning)
                ida = IDA(resfn, **opts)
            if nx:
                sys.extra_rates(t0, q0, qd0, x0, rates)
            y0 = np.concatenate((q0, qd0, lam0, np.zeros(m), x0))
            yp0 = np.concatenate((qd0, qdd0, np.zeros(2 * m), rates.copy()))
            ida.init_step(t0, y0, yp0)
            if progress:
                from tqdm import tqdm

                bar = tqdm(total=float(grid[-1] - t0), unit="s", mininterval=0.5, leave=False,
                           desc=f"reference ida {sys.name}")
            while kdone <= nsteps:
                bad["t"] = None
                try:
                    r = ida.step(grid[kdone])
                except FloatingPointError as exc:
                    raise _Failure(str(exc), grid[kdone - 1]) from None
                if not r.success:
                    why = str(r.message)
                    if bad["t"] is not None:
                        why = f"non-finite forces or accelerations from t = {bad['t']:.9g} s ({why})"
                    why += ("; Newton used the model's Jacobian (jacobian='model', without "
                            "curvature terms): try a smaller max_step or jacobian='fd'"
                            if slv.jacobian == "model" else
                            "; Newton used coloured finite differences in q (jacobian='fd'): "
                            "try a smaller max_step")
                    raise _Failure(f"IDA: {why}", float(r.t))
                y = r.y
                if not np.isfinite(y).all():
                    raise _Failure("non-finite state", float(r.t))
                if np.abs(y[:2 * n]).max() > 1e8:
                    raise _Failure("state beyond 1e+08 (diverged)", float(r.t))
                if m:
                    sys.evaluate(grid[kdone], y[:n], y[n:2 * n], ws, EVAL_PHI | EVAL_PHIQ)
                    phi_raw = max(phi_raw, float(np.abs(ws.phi).max()))
                    phid_raw = max(phid_raw, float(np.abs(ws.phiq @ y[n:2 * n] + ws.phit).max()))
                rec.record(kdone, grid[kdone], y[:n], y[n:2 * n], y[2 * n + 2 * m:])
                kdone += 1
                if bar is not None:
                    bar.update(h)
    except _Failure as exc:
        status = -1
        t_last = rec.T[kdone - 1] if kdone else t0
        message = exc.message(f"ida, rtol = {slv.rtol:g}", t_last)
    finally:
        if bar is not None:
            bar.close()
        slv._sparse_kkt = False
    slv.nfev, slv.njev, slv.nfev_jac = cnt["res"], cnt["jac"], cnt["res_jac"]
    slv.nlu = cnt["jac"]
    slv.status = status
    return rec.result(kdone, meta=dict(
        model=sys.name, solver=slv.name, method="ida", formulation="ggl", h=h, rtol=slv.rtol,
        atol=slv.atol, max_step=slv.max_step, projection=slv.projection, grid="dense",
        kkt="sparse-lu", jacobian=slv.jacobian, nfev=slv.nfev, njev=slv.njev, nlu=slv.nlu,
        nfev_jac=cnt["res_jac"], colours=jac_colours, steps=None, nproj=slv.nproj,
        phi_raw_max=phi_raw, phid_raw_max=phid_raw,
        initial_correction=dict(q=dq0, qd=dqd0),
        wall_s=time.perf_counter() - wall0, status=status, message=message))


class _Recorder:
    """Output arrays on the grid: projected state, λ from the KKT system, ‖Φ‖, ‖Φ̇‖, outputs
    (as the ``record`` of :meth:`ReferenceSolver.solve`)."""

    def __init__(self, slv, nout: int):
        sys = slv.system
        n, m, nx = sys.n, sys.m, sys.nx
        self.slv = slv
        self.out_names = list(sys.output_names)
        self.acc_names = list(getattr(sys, "acceleration_names", ()))
        self.T = np.empty(nout)
        self.Q, self.QD, self.X = np.empty((nout, n)), np.empty((nout, n)), np.empty((nout, nx))
        self.LAM = np.zeros((nout, m))
        self.PHI, self.PHID = np.zeros(nout), np.zeros(nout)
        self.OUT = np.empty((nout, len(self.out_names)))
        self.ACC = np.empty((nout, len(self.acc_names)))

    def record(self, k, t, q, qd, x):
        slv = self.slv
        sys, ws = slv.system, slv.ws
        if sys.nx:
            sys.set_extra(x)
        q, qd, _ = slv.project(t, q, qd)
        qdd, lam = slv.accelerations(t, q, qd)
        self.T[k], self.Q[k], self.QD[k], self.X[k] = t, q, qd, x
        if sys.m:
            self.LAM[k] = lam
            slv.lam = lam
            sys.evaluate(t, q, qd, ws, EVAL_PHI | EVAL_PHIQ)
            self.PHI[k] = np.linalg.norm(ws.phi)
            self.PHID[k] = np.linalg.norm(ws.phiq @ qd + ws.phit)
        if self.out_names:
            buf = np.zeros(len(self.out_names))
            sys.outputs(t, q, qd, buf)
            self.OUT[k] = buf
        if self.acc_names:
            buf = np.zeros(len(self.acc_names))
            sys.acceleration_outputs(t, q, qd, qdd, buf)
            self.ACC[k] = buf
        if not (np.isfinite(q).all() and np.isfinite(qd).all() and np.isfinite(x).all()):
            raise _Failure("non-finite state at an output point", t)

    def result(self, k: int, meta: dict) -> Result:
        sys = self.slv.system
        return Result(
            t=self.T[:k].copy(), q=self.Q[:k].copy(), qd=self.QD[:k].copy(),
            lam=self.LAM[:k].copy(), phi_norm=self.PHI[:k].copy(), phid_norm=self.PHID[:k].copy(),
            outputs={**{nm: self.OUT[:k, j].copy() for j, nm in enumerate(self.out_names)},
                     **{nm: self.ACC[:k, j].copy() for j, nm in enumerate(self.acc_names)}},
            coordinate_names=list(getattr(sys, "coordinate_names", [])), x=self.X[:k].copy(),
            meta=meta)
