"""Linearly implicit Euler in independent coordinates, Algorithm 2 (Carpinelli 2016 eqs. 24-28, Table 2).

State (q, ż). With T = [S R] = [Φq; B]⁻¹ (eq. 24), b = −Φt and c = γ (eq. 23):

    q̇ = S b + R ż                                                               (eq. 24)
    Rᵀ A R Δż = Rᵀ (hQ + h²Jq q̇) − Rᵀ A h S c,   A = M − hJq̇ − h²Jq             (eq. 28)
    Δq = h q̇ [+ projection, eq. 30],   q ← q + Δq,   ż ← ż + Δż                   (Table 2/3)

``state.qd`` is kept equal to S b + R ż at the new positions (so callers see velocities that
satisfy the velocity constraints); ż is internal (``self.zd``). The multipliers follow from eq. 18:
hλ = Sᵀ(hQ + h²Jq q̇ − A Δq̇) with Δq̇ = h S c + R Δż (one transposed solve; ``multipliers``).

Choice of B (``B=``): ``rtmbs.solvers.basis`` ("qr", Carpinelli 2015 eqs. 4.11-4.12: [Φq; B] factorised;
"partition" (default), coordinate partitioning: only Φu is factorised, dense or on its fixed
pattern). This module is the method; the basis supplies the factorisation of T⁻¹ (or Φu), R, S c,
q̇ = S b + R ż, ż = B q̇, λ and the projection with T.

Beyond the paper: the pivot ratio of that factorisation (min|u_kk|/max|u_kk|) is a cheap
conditioning estimate, checked every step. When it falls below ``rebase_tol`` times its value at
the last choice of B, B is chosen again at the current configuration (QR or partitioning of the
current Φq) and ż is re-mapped, ż = B q̇ with q̇ = q̇ᵢ + Δq̇. That event (counted in ``nrebase``)
costs one QR or one full-pivot elimination and one more factorisation; steps without it have
the fixed cost below. A sparse Φu is analysed again only when the partition changed; a rebase
that re-chooses the same one keeps its ordering and pivot sequence (``nrebase_same``).

Linear algebra (``linear_solver``, ``storage``): for B = "partition" on a compiled Cartesian model
(the default there) the whole step is one call of the C engine (``src/rtmbs/engine/
li_euler_indep.c``, partition.c: Φu on its fixed pattern, A on the mass | force Jacobian pattern,
H = Rᵀ(A R) skipping the zeros of R, M, Jq, Jq̇ and Φq read from packed workspaces of memory
O(non-zeros), ``rtmbs.solvers.storage``), ``fused_step``; ``instrument`` times it whole (phase
"other"). A rebase is finished in Python after that call (:meth:`LIEulerIndep._rebase_end`:
the partition chosen again with numpy, Φu analysed, the engine's sparse LU). ``step_outputs``
adds the named outputs to that call and ``rollout`` runs the steps in the engine
(:mod:`rtmbs.solvers.rollout_indep`, ``rollout_runner``). Any other system, B = "qr",
``linear_solver="dense"`` or ``storage="dense"`` steps from Python on dense matrices (numpy and
the engine's dense LU: ``basis``, ``reduced``). A step that has diverged (|q| or the predicted
q̇ at least 1e8, or not finite) and fails the pivot check fails: B is not chosen again there.

Cost per step: evaluations 3 (+1 projection), factorisations 2 (+1 projection="kkt"),
solves f + 4 (+1 projection, −1 without multipliers).
"""
from __future__ import annotations

import numpy as np

from ..engine import _engine
from ..errors import RedundantConstraintError, SolverError
from ..protocol import (
    EVAL_GAMMA, EVAL_JAC, EVAL_JAC_STIFF, EVAL_M, EVAL_PHI, EVAL_PHIQ, EVAL_Q, State,
)
from ..tolerances import SINGULAR_PIVOT_RATIO
from .base import Solver, register_solver, time_after
from .basis import make_basis
from .dense import kkt_correction, kkt_factor
from .factorisation import make_kkt
from .li_euler import is_compiled_cartesian, sparse_in_engine
from .reduced import lambda_rhs, reduced
from .rollout import DIVERGENCE_LIMIT
from .rollout_indep import CHANGED, OK, REBASE, run as run_rollout
from .sparse import H_ANALYSIS, PackedKKTMap
from .stabilization import Projector, check_choice, check_positive, pop_options
from .storage import StepStorage, entry_index

#: ``proj`` argument of the engine's step: no projection, eq. 30 with its KKT factors, S(−Φ) with
#: those of Φu (src/rtmbs/engine/li_euler_indep.h)
PROJ_NONE, PROJ_KKT, PROJ_T = 0, 1, 2

#: the views of the engine step's ``vec``, in its order (li_euler_indep.h)
VIEW_NAMES = ("Rn", "AR", "H", "Aval", "Sc", "r", "x", "w", "dqd", "dq", "qp", "qd_pred",
              "q_last", "qd_last", "dzd", "zd", "zero_m", "lam", "prhs")


def vector_size(n: int, m: int, na: int) -> int:
    """Length of the engine step's ``vec`` for n coordinates, m constraints, na entries of A."""
    f = n - m
    return 2 * n * f + f * f + na + 10 * n + 2 * f + 2 * m + (n + m)


def step_views(vec, n: int, m: int, na: int) -> tuple:
    """The views of ``vec`` named :data:`VIEW_NAMES` (arrays sharing its memory)."""
    f = n - m
    shapes = ((n, f), (n, f), (f, f), (na,)) + ((n,),) * 10 + ((f,), (f,), (m,), (m,), (n + m,))
    out, o = [], 0
    for shape in shapes:
        size = int(np.prod(shape))
        out.append(vec[o:o + size].reshape(shape))
        o += size
    return tuple(out)

@register_solver("li-euler-indep")
class LIEulerIndep(Solver):
    """Linearly implicit Euler in independent coordinates (Carpinelli 2016 Algorithm 2).

    Options
    -------
    B : "partition" (default, coordinate partitioning) | "qr" (Carpinelli 2015 eqs. 4.11-4.12)
    jacobian : "stiff" (default) | "all"
    stabilize : "projection" (default, eq. 30) | "none" | "baumgarte" (b = −Φt − γ_B Φ, eq. 5);
        ignored when m = 0
    projection_solve : "kkt" (eq. 30, default) | "T" (Δq* − Δq = S(−Φ): reuses [Φq; B]'s factors)
    baumgarte_gamma : float or None (1/h)
    position_update : "implicit" (default: Δq = h(q̇ + Δq̇), positions follow the new velocity; runs
        the whip of ``spatial-chain-10`` where the paper's form diverges) | "explicit" (Δq = h q̇,
        Carpinelli 2016 Table 2)
    independent : list of f coordinate indices (B="partition" only): the initial independent
        coordinates instead of the automatic choice (a rebase then chooses automatically)
    rebase : bool, default True; rebase_tol : float, default 0.1
    multipliers : bool, default True (compute λ)
    linear_solver : "auto" (sparse for B="partition" on a compiled model, else dense) | "dense" |
        "sparse" (B="partition" on a compiled model only: the engine's step, Φu by its sparse LU
        with its pattern, ordering and pivots fixed at each choice of B)
    storage : "auto" (default: on the sparse path M, Φq, Jq, Jq̇ are evaluated into packed
        workspaces, their blocks only, ``rtmbs.solvers.storage``) | "packed" (the same, an error
        where it is not available) | "dense" (dense workspaces and the dense path)

    With packed storage the step is one call of the engine (``fused_step``, ``kernel_args``,
    :meth:`count_steps`), with its outputs
    (:meth:`step_outputs`), and ``rollout`` is compiled (``rollout_runner``).
    """

    #: the bound step's diag = (code, Φu's pivot ratio at the new positions, ...): ``ratio``
    RATIO_SLOT = 1

    def __init__(self, system, instrument: bool = False, **options):
        super().__init__(system, instrument, **options)
        o = pop_options(self.name, options, dict(
            B="partition", jacobian="stiff", stabilize="projection", projection_solve="kkt",
            baumgarte_gamma=None, rebase=True, rebase_tol=0.1, multipliers=True,
            independent=None, linear_solver="auto",
            position_update="implicit", storage="auto"))
        check_choice(self.name, "position_update", o["position_update"], ("explicit", "implicit"))
        self.implicit = o["position_update"] == "implicit"
        check_choice(self.name, "B", o["B"], ("qr", "partition"))
        check_choice(self.name, "jacobian", o["jacobian"], ("stiff", "all"))
        check_choice(self.name, "stabilize", o["stabilize"], ("none", "projection", "baumgarte"))
        check_choice(self.name, "projection_solve", o["projection_solve"], ("kkt", "T"))
        check_positive(self.name, "rebase_tol", o["rebase_tol"])
        check_choice(self.name, "linear_solver", o["linear_solver"], ("auto", "dense", "sparse"))
        if o["linear_solver"] == "sparse" and o["B"] != "partition":
            raise SolverError(f"solver '{self.name}': option linear_solver='sparse' needs "
                              f"B='partition' (B={o['B']!r} is dense only)")
        check_choice(self.name, "storage", o["storage"], ("auto", "packed", "dense"))
        # the sparse path is the engine's step, on packed storage ("dense": the dense path)
        self.sparse = (o["B"] == "partition" and o["storage"] != "dense"
                       and sparse_in_engine(self.name, self.system, o["linear_solver"]))
        can_pack = self.sparse and is_compiled_cartesian(self.system)  # (not a ReducedSystem)
        if o["storage"] == "packed" and not can_pack:
            raise SolverError(
                f"solver '{self.name}': option storage='packed' needs the sparse path "
                f"(B='partition', linear_solver 'auto' or 'sparse') on a compiled Cartesian "
                f"model; '{system.name}' is not (use 'auto' or 'dense')")
        self.packed = can_pack and o["storage"] != "dense"
        self.jac_all = o["jacobian"] == "all"
        if o["baumgarte_gamma"] is not None:
            check_positive(self.name, "baumgarte_gamma", o["baumgarte_gamma"], allow_zero=True)
        self.B_mode = o["B"]
        self.jac_flag = EVAL_JAC_STIFF if o["jacobian"] == "stiff" else EVAL_JAC
        self.stabilize = o["stabilize"] if system.m > 0 else "none"
        self.projection_solve = o["projection_solve"]
        self.baumgarte_gamma = o["baumgarte_gamma"]
        self.rebase = bool(o["rebase"])
        self.rebase_tol = float(o["rebase_tol"])
        self.multipliers = bool(o["multipliers"])
        self.nrebase = 0
        ind = o["independent"]
        if ind is not None:
            if self.B_mode != "partition":
                raise SolverError(f"solver '{self.name}': option independent= needs B='partition'")
            ind = [int(i) for i in ind]
            f = system.n - system.m
            if len(ind) != f or len(set(ind)) != f or not all(0 <= i < system.n for i in ind):
                raise SolverError(
                    f"solver '{self.name}': option independent={ind!r}, expected {f} distinct "
                    f"coordinate indices in 0..{system.n - 1}")
        self.independent = ind
        # the whole step in one call of the engine (li_euler_indep.c; ``instrument`` times it
        # whole, phase "other"). (Not ``fused``: rollout.compiled() takes a solver with
        # ``fused`` for li-euler's kernel.)
        self.fused_step = self.packed
        self.extra_in_step = self.fused_step  # (the compiled step advances the transient tyres)

    # -- setup ---------------------------------------------------------------------------
    def _reset(self, state: State) -> None:
        sysm, n, m = self.system, self.system.n, self.system.m
        f = n - m
        if f < 0:
            raise SolverError(f"solver '{self.name}': system '{sysm.name}' has more "
                              f"constraints (m = {m}) than coordinates (n = {n})")
        self.f = f
        self.nrebase = 0
        pp = np.asarray(sysm.phiq_pattern, bool) if self.sparse else None
        self.basis = make_basis(self.B_mode, n, m, pp)
        # M, Φq, Jq, Jq̇ in two flat buffers (packed blocks or dense workspaces, storage.py)
        self._ws = None
        st = self.st = StepStorage(sysm, self.packed)
        # A of eq. 28 on its pattern (mass | force Jacobian) when sparse, dense otherwise; the
        # kernels read M, Jq, Jq̇ (sparse) and Φq (partition) through ``idx`` from ``st.w0``
        if self.sparse:
            # (M's own structure where the system gives it: the entries between translations
            # and rotations are zero, so A R and Rᵀ A R skip them)
            ap = np.asarray(getattr(sysm, "mass_structure", sysm.mass_pattern), bool) | np.asarray(
                sysm.jacobian_pattern(not self.jac_all), bool)
            self.idx = entry_index(ap, pp, st.layout)
            self.aidx, self.mats = self.idx, st.w0
            # the step's arrays as views of one buffer (the compiled step's ``vec``): Rn, AR,
            # H, Aval (A on its entries), Sc, r, x, w, dqd, dq, qp, qd_pred, q_last, qd_last,
            # dzd, zd, zero_m, lam, prhs
            na = int(self.idx[0])
            self.vec = np.zeros(vector_size(n, m, na))
            for name, view in zip(VIEW_NAMES, step_views(self.vec, n, m, na)):
                setattr(self, name, view)
        else:
            ws = st.ws0
            self.idx = None
            self.aidx, self.mats = None, (ws.M, ws.Jq, ws.Jqd)
            self.Rn = np.zeros((n, f))
            self.Aval = np.zeros((n, n))  # A = M − hJq̇ − h²Jq, dense
            self.Sc = np.zeros(n)
            self.H = np.zeros((f, f))
            self.r, self.x, self.w, self.dqd, self.dq, self.qp, self.qd_pred = (
                np.zeros(n) for _ in range(7))
            self.dzd = np.zeros(f)
            self.zd = np.zeros(f)
            self.q_last = np.zeros(n)
            self.qd_last = np.zeros(n)
            self.zero_m = np.zeros(m)
            self.lam = np.zeros(m)
        self.pq = (st.w0, self.idx) if self.sparse else st.ws0.phiq
        self.hpiv = np.zeros(f, np.int64)
        self.what_end = EVAL_PHIQ | (EVAL_PHI if self.stabilize == "baumgarte" else 0)
        self.what0 = EVAL_M | EVAL_Q | EVAL_GAMMA
        self.ratio = 1.0
        self.ratio_ref = 1.0
        self._h = None
        self._kernel_basis = None
        # projection (eq. 30): [M hΦqᵀ; Φq 0], sparse on the path of Φu, analysed here
        kkt = self.stabilize == "projection" and self.projection_solve == "kkt"
        self.proj = Projector(n, m, make_kkt(sysm, self.sparse)) if kkt else None
        self.proj_idx = None
        if kkt and not self.sparse:  # the dense [M hΦqᵀ; Φq 0], its pivots
            self.P, self.ppiv = np.zeros((n + m, n + m)), np.zeros(n + m, np.int64)
        if kkt and self.proj.kkt.sparse:
            k = self.proj.kkt
            self.proj_idx = PackedKKTMap(k.kkt.map, st.layout).idx
            st.evaluate(self, 0, state.t, state.q, state.qd, EVAL_M | EVAL_PHIQ)
            k.ratio = k.kkt.factor_packed(self.proj_idx, st.w0, 0.0, 0.0, H_ANALYSIS, st.w0)
            k.args = (k.lu.ib, k.lu.fb, k.idx)
        # B at q0 (Carpinelli 2015 eqs. 4.11-4.12 or partitioning), ż0 = B q̇0, q̇0 = S b + R ż0
        st.evaluate(self, 0, state.t, state.q, state.qd, self.what_end)
        self._choose_B(state.t, self.independent)
        self._map_velocity(state.qd, state.qd)
        self.q_last[:], self.qd_last[:] = state.q, state.qd

    # dense views of the step's buffers (tests, offline tools): with packed storage a scatter
    # of the blocks into a dense workspace made at first use
    @property
    def ws(self):
        st = self.__dict__.get("st")
        if st is not None:
            return st.dense_view(0)
        return self._workspace_at_first_use()

    @ws.setter
    def ws(self, value):
        self._ws = value

    @property
    def ws1(self):
        return self.st.dense_view(1)

    def _gb(self, h):
        if self.stabilize != "baumgarte":
            return 0.0
        if self.baumgarte_gamma is not None:
            return float(self.baumgarte_gamma)
        return 1.0 / h if h else 0.0

    def _choose_B(self, t, independent=None) -> None:
        """Choose B at the configuration whose Φq is in ``st.w0`` and factorise (a dense copy of
        Φq is made here when the storage is packed: a rebase may allocate)."""
        phiq = self.st.phiq_dense(self.idx) if self.idx is not None else self.st.ws0.phiq
        sel = self.basis.choose(phiq, independent)
        if sel < SINGULAR_PIVOT_RATIO:
            raise RedundantConstraintError(
                f"solver '{self.name}': the constraint Jacobian of '{self.system.name}' is rank "
                f"deficient at t = {t:g} (pivot ratio {sel:.3g}); expected full row rank "
                f"m = {self.system.m}" + ("" if t == 0 else
                "; full rank at the start, so this is Algorithm 2's drift (it gains energy on "
                "spinning chains: spatial-chain-10 stopped at 2.3 s, peer-chain at 6.8 s): use "
                "li-euler"))
        try:
            self.basis.prepare(phiq)
        except np.linalg.LinAlgError:
            raise RedundantConstraintError(
                f"solver '{self.name}': Φu of '{self.system.name}' is singular for the chosen "
                f"dependent coordinates; expected full row rank m = {self.system.m}") from None
        self.ratio = self.ratio_ref = self._factor_T()
        self._rebase_below = self.rebase_tol * self.ratio_ref if self.rebase else -np.inf
        if self.fused_step:
            if self.basis.args is not self._kernel_basis:
                self._set_kernel_args()  # the factors of Φu are new arrays after a new analysis
            self._bind_fused()  # (and the rebase bound is new)

    def _factor_T(self) -> float:
        # sparse Φu: static pivots (never a re-analysis); a degraded Φu shows in the ratio: rebase
        ratio, lratio, growth = self.basis.factor(self.pq)
        lu = self.basis.lu if self.sparse else None
        if lu is not None:
            lu.ratio, lu.growth = lratio, growth
        self.nfactor += 1
        return ratio

    # views of the basis for callers and tests
    @property
    def B(self):
        return self.basis.B

    @property
    def cols(self):
        return self.basis.cols

    @property
    def splu(self):
        """The SparseLU of Φu (None on the dense path), its statistics those of the last step
        (the bound step keeps them in ``diag``: taken here)."""
        lu = getattr(self.__dict__.get("basis"), "lu", None)
        if lu is not None and self.bound is not None:
            self._take_diagnostics(*self.diag[1:6])
        return lu

    def _sparse_factors(self):
        if not hasattr(self, "basis"):
            return ()
        kkt = self.proj.kkt.factors() if self.proj is not None else ()
        return (*self.basis.factors(), *kkt, _Retired(self.basis))

    @property
    def nrebase_same(self) -> int:
        """Rebases (of ``nrebase``) that re-chose the partition of the last analysis of Φu: its
        analysis kept, refactorised, the reference pivots reset (``PartitionBasis.prepare``)."""
        return getattr(self.__dict__.get("basis"), "nsame", 0)

    @property
    def nanalyse(self) -> int:
        """Analyses of the sparse factors after ``reset``, not counting those of a rebase (the
        projection matrix's: none is ever repeated; 0 on the dense path)."""
        return self.proj.nanalyse - 1 if self.proj is not None and self.proj.kkt.sparse else 0

    def _map_velocity(self, qd_src, qd_out, h=None) -> None:
        """ż = B q̇_src, then q̇_out = S b + R ż (at the factorised configuration)."""
        self.basis.zd(qd_src, self.zd)
        self._velocity(qd_out, self._gb(h or self._h))

    def _velocity(self, qd, gb) -> None:
        st = self.st
        self.basis.velocity(self.pq, st.phit, st.phi if gb else self.zero_m, gb, self.zd, qd)
        self.nsolve += 1

    # -- the step in one call of the engine (li_euler_indep.c) -----------------------------------
    def _set_kernel_args(self) -> None:
        """The arrays the engine's step takes before (q, q̇, ...): the model's buffers,
        the packed workspaces, the basis, the entry index, the projection's factors (empty
        arrays without eq. 30's KKT), ``vec`` and the pivots of H."""
        if self.proj_idx is not None:
            lu = self.proj.kkt.lu
            factors = (lu.ib, lu.fb, self.proj_idx)
        else:
            factors = (np.zeros(0, np.uint32), np.zeros(0), np.zeros(0, np.uint32))
        st = self.st
        self._kernel_basis = self.basis.args
        self.kernel_args = (*self.system.kernel_buffers(), st.w0, st.w1, *self.basis.args,
                            self.aidx, *factors, self.vec, self.hpiv)
        self._no_outputs = (np.zeros(0, np.int64), np.zeros(0))  # (no outputs at the start)
        self._m = self.system.m
        if self.stabilize != "projection":
            self._proj_mode = PROJ_NONE
        else:
            self._proj_mode = PROJ_KKT if self.projection_solve == "kkt" else PROJ_T
        self._mult = self.multipliers and self.system.m > 0
        self._options = (self.jac_flag, self.implicit, self._mult, self._proj_mode)
        # evaluations, factorisations and solves of a step (module docstring)
        proj = self.stabilize == "projection"
        kkt = proj and self.projection_solve == "kkt"
        self._step_counts = (3 + proj, 2 + kkt, self.f + 1 + (2 if self._mult else 1) + proj + 1)

    def _bind_fused(self) -> None:
        """Bind the engine's step (li_euler_indep.c; :meth:`Solver.bind_step`, kind
        "li-euler-indep") with the present basis, options and rebase bound. Its ``diag`` = (code,
        Φu's pivot ratio at the new positions, its LU's pivot ratio and largest multiplier, the
        projection KKT's), set here to the solver's present values."""
        n = self.system.n
        gb = -1.0 if self.stabilize == "baumgarte" and self.baumgarte_gamma is None else \
            self._gb(1.0)  # (−1: 1/h at every step)
        self.bind_step("li-euler-indep", self.kernel_args + (
            np.zeros(n), np.zeros(n), self._m, 0.0, 1e-3, *self._options, gb, self._rebase_below,
            *self._no_outputs), self._step_counts, ndiag=6)
        lu = self.basis.lu
        k = self.proj.kkt.lu if self.proj_idx is not None else None
        self.diag[1:6] = (self._ratio, lu.ratio, lu.growth, k.ratio if k else 0.0,
                          k.growth if k else 0.0)

    def step(self, state: State, h: float) -> bool:
        """:meth:`Solver.step` with the bound step, a rebase finished here."""
        if self.bound is None or self.instrument:
            return super().step(state, h)
        ok = self._step_bound(state, h)
        if not ok:
            self.status = -1
        return ok

    def _step_bound(self, state: State, h: float, out=None, at_start=False) -> bool:
        """One call of the bound step (with ``out``: and the named outputs); a step that stopped
        for a rebase (REBASE) is finished here: B chosen again, q̇ updated, then the outputs at
        its end from Python (``system.outputs``)."""
        self._h = h
        b = self.bound
        if out is None:
            ok = b.step(state.q, state.qd, state.x, state.t, h)
        else:
            ok = b.step_outputs(state.q, state.qd, state.x, state.t, h, out, at_start)
        state.t = time_after(state.t, h)
        if ok is True or ok is False:
            return ok
        code = int(self.diag[0])
        if not self._finish_rebase(state.t, state.q, state.qd, h):
            return False
        ok = bool(code & OK) and self.ratio > 0.0
        if ok and out is not None and not at_start:
            self.system.outputs(state.t, state.q, state.qd, out)
        return ok

    def _take_diagnostics(self, ratio, lratio, growth, pratio, pgrowth) -> None:
        """The pivot statistics of a compiled step: Φu's pivot ratio at the new positions, its
        LU's pivot ratio and growth, the projection KKT's pivot ratio and growth."""
        lu = self.basis.lu
        lu.ratio, lu.growth = lratio, growth
        if self.proj_idx is not None:
            k = self.proj.kkt
            k.lu.ratio, k.lu.growth = pratio, pgrowth
            k.ratio = self.proj.ratio = pratio
        if self.bound is not None:
            self.diag[1:6] = ratio, lratio, growth, pratio, pgrowth
        self.ratio = ratio

    def step_outputs(self, state: State, h: float, out, at_start: bool = False) -> bool:
        """:meth:`Solver.step_outputs` as one call of the bound step; a step that rebases
        evaluates the outputs at its end from Python (``system.outputs``, after the rebase's
        velocity update). Otherwise the step, then ``system.outputs``."""
        if self.bound is None or self.instrument or len(out) != self._nout:
            return super().step_outputs(state, h, out, at_start)
        ok = self._step_bound(state, h, out, bool(at_start))
        if not ok:
            self.status = -1
        return ok

    @property
    def rollout_runner(self):
        """The compiled rollout (:func:`rtmbs.solvers.rollout_indep.run`) on the compiled step;
        None otherwise (``rtmbs.solvers.rollout`` then loops over :meth:`step` in Python)."""
        return run_rollout if self.fused_step else None

    def _finish_rebase(self, t1, q, qd, h) -> bool:
        """:meth:`_rebase_end` after a ``REBASE``, unless the step has diverged (q or the
        predicted q̇ not finite or at least ``DIVERGENCE_LIMIT``): then the step has failed (q̇
        is left as it was; B chosen at such a configuration would be rank deficient)."""
        if not (np.abs(q).max(initial=0.0) < DIVERGENCE_LIMIT
                and np.abs(self.qd_pred).max(initial=0.0) < DIVERGENCE_LIMIT):
            return False
        self._rebase_end(t1, q, qd, h)
        return True

    def _rebase_end(self, t1, q, qd, h) -> None:
        """The end of a step whose pivot check failed (``REBASE``): B chosen again at q (its Φq
        is in ``st.w0``), ż = B(q̇ + Δq̇), q̇ = S b + R ż; as :meth:`_step_end` does. The
        velocity solve is counted in :meth:`count_steps`."""
        self.nrebase += 1
        self._choose_B(t1)
        self.basis.zd(self.qd_pred, self.zd)
        gb = self._gb(h)
        st = self.st
        self.basis.velocity(self.pq, st.phit, st.phi if gb else self.zero_m, gb, self.zd, qd)
        self.q_last[:], self.qd_last[:] = q, qd

    def count_steps(self, k: int, changed: int = 0) -> None:
        """Count ``k`` steps of the fixed cost (module docstring; a compiled step, or a compiled
        rollout of them), ``changed`` of which re-mapped ż first (the caller changed the state:
        one evaluation, factorisation and solve more). A rebase (``nrebase``, one more
        factorisation) is counted by ``_choose_B``."""
        ne, nf, ns = self._step_counts
        self.nstep += k
        self.neval += k * ne + changed
        self.nfactor += k * nf + changed
        self.nsolve += k * ns + changed

    # -- step ----------------------------------------------------------------------------
    def _step_impl(self, state: State, h: float):
        if self.fused_step:  # (instrumented: Solver.step's path to the engine's step)
            self._tic()
            ok = self._step_bound(state, h)
            self._toc("other")
            self.nstep -= 1  # (Solver.step counts it)
            return ok
        st = self.st
        q, qd, t = state.q, state.qd, state.t
        self._h = h
        if not (np.array_equal(q, self.q_last) and np.array_equal(qd, self.qd_last)):
            # the caller changed the state: re-factorise at q and take ż from its q̇ (rare)
            st.evaluate(self, 0, t, q, qd, self.what_end)
            self.ratio = self._factor_T()
            self._map_velocity(qd, qd, h)
        self._tic()
        st.evaluate(self, 0, t, q, qd, self.what0)
        self._toc("evaluation")
        st.evaluate(self, 0, t, q, qd, self.jac_flag)
        self._toc("jacobians")
        hr = self._middle(qd, h)
        if self.implicit:  # Δq = h(q̇ + Δq̇): positions follow the new velocity, else Δq = h q̇
            np.add(qd, self.dqd, out=self.dq)
            self.dq *= h
        else:
            np.multiply(qd, h, out=self.dq)
        self._toc("solve")
        ok = hr > 0.0
        if self.stabilize == "projection":
            np.add(q, self.dq, out=self.qp)
            kkt = self.projection_solve == "kkt"
            st.evaluate(self, 1, t + h, self.qp, qd, EVAL_PHI | (EVAL_PHIQ if kkt else 0))
            if kkt:  # Newton step at q + Δq (see li_euler.py): quadratic in Φ(q + Δq)
                ok &= self._project(h)
                self.nfactor += 1
            else:
                self.basis.project_T(st.phi1, self.dq)
            self.nsolve += 1
            self._toc("projection")
        return self._step_end(state, q, qd, t, h, ok)

    def _project(self, h) -> bool:
        """The projection of eq. 30 at the projected positions: [M(q) hΦqᵀ; Φq 0] with Φq(q + Δq)
        factorised, the correction of [0; −Φ] added to Δq (dense path)."""
        st = self.st
        M, phiq1 = st.ws0.M, st.ws1.phiq
        ratio = kkt_factor(self.P, self.ppiv, M, M, M, 0.0, 0.0, phiq1, h, phiq1)
        kkt_correction(self.P, self.ppiv, st.ws1.phi, self.proj.rhs, self.dq)
        self.proj.kkt.ratio = self.proj.ratio = ratio
        return ratio > 0.0

    def _middle(self, qd, h) -> float:
        """R, S c (eqs. 24-25), eq. 28 and λ (eq. 18) on the dense path."""
        mult = self.multipliers and self.system.m > 0
        st = self.st
        ws = st.ws0
        self.basis.R_Sc(self.pq, st.gamma, self.Rn, self.Sc)
        hr = reduced(ws.M, ws.Jq, ws.Jqd, st.Q, qd, h, self.Rn, self.Sc, self.Aval, self.H,
                     self.hpiv, self.r, self.dzd, self.dqd)
        if mult:
            lambda_rhs(self.Aval, self.r, self.dqd, self.x)
            self.basis.lam(self.x, self.lam, h)
        self.nsolve += self.f + 1
        self.nfactor += 1
        self.nsolve += 2 if mult else 1
        self._toc("factorisation")
        return hr

    def _step_end(self, state, q, qd, t, h, ok):
        # Euler step of (q, ż) (Table 2), predicted dependent velocities for a re-mapping
        q += self.dq
        np.add(qd, self.dqd, out=self.qd_pred)
        self.zd += self.dzd
        t1 = time_after(t, h)  # (state.t: moved by Solver.step)
        self._toc("other")
        # T at the new positions, conditioning check, q̇ = S b + R ż
        self.st.evaluate(self, 0, t1, q, qd, self.what_end)
        self._toc("evaluation")
        self.ratio = self._factor_T()
        if self.ratio < self._rebase_below:  # (−inf without ``rebase``)
            if not (np.abs(q).max(initial=0.0) < DIVERGENCE_LIMIT
                    and np.abs(self.qd_pred).max(initial=0.0) < DIVERGENCE_LIMIT):
                return False  # diverged: failed, not rebased (as :meth:`_finish_rebase`)
            self.nrebase += 1
            self._choose_B(t1)
            self.basis.zd(self.qd_pred, self.zd)
        self._toc("factorisation")
        self._velocity(qd, self._gb(h))
        self.q_last[:], self.qd_last[:] = q, qd
        self._toc("solve")
        return ok and self.ratio > 0.0


class _Retired:
    """Fallbacks of the Φu factors replaced at a rebase (so that ``nfallback`` keeps them)."""

    last_fallback = -1

    def __init__(self, basis):
        self.nfallback = getattr(basis, "nretired", 0)
