"""LLVM IR of the straight-line LU (the numba back-end's bodies, built with ``llvmlite.ir``).

numba's front end is far slower than linear in the length of a function: a generated Python
function of ``fb[t] -= fb[p] * fb[r]`` lines took 1.3 s to compile at 100 lines, 3.4 s at 200,
17 s at 500 and 56 s at 1000 (the four-bar's 3.8k multiply-adds, split into functions of 3000
lines: 3-6 minutes). So the generated numba module (:func:`rtmbs.codegen.emit.emit_numba_module`)
defines ``@intrinsic``\\ s whose code generation calls these functions: they emit the operations
directly as IR (constant-offset loads and stores, the statistics as ``select``\\ s, no branches),
which numba caches with the module like any compiled function. The order of the floating-point
operations is that of :func:`~rtmbs.solvers.sparse.lu_refactor` / ``_substitute``.

Only ``llvmlite`` is imported here (not numba: the kernel cache's source hash stays unchanged).
"""
from __future__ import annotations

from llvmlite import ir

from .plan import LUPlan

F64 = ir.DoubleType()
I64 = ir.IntType(64)
I1 = ir.IntType(1)


class _Mem:
    """Loads and stores at constant offsets from a double pointer."""

    def __init__(self, builder, ptr):
        self.b, self.ptr = builder, ptr

    def _at(self, off):
        return self.b.gep(self.ptr, [ir.Constant(I64, int(off))], inbounds=True)

    def ld(self, off):
        return self.b.load(self._at(off))

    def st(self, off, v):
        self.b.store(v, self._at(off))


def _fabs(builder):
    return builder.module.declare_intrinsic("llvm.fabs", [F64])


def refactor_ir(builder, fb, plan: LUPlan):
    """lu_refactor on the buffer ``fb`` (double*): scatter, elimination, static pivots, statistics
    (flag, count, row) written to ``fb``. Returns IR values (umax, umin, lmax, bad) with bad an
    i1 (a non-finite pivot)."""
    P, b, m = plan, builder, _Mem(builder, fb)
    ol, st = P.o_lu, P.o_stats
    from ..solvers import sparse as sp

    fabs = _fabs(b)
    zero, inf = ir.Constant(F64, 0.0), ir.Constant(F64, float("inf"))
    umax, umin, lmax = zero, inf, zero
    bad = ir.Constant(I1, 0)
    npert = ir.Constant(I64, 0)
    row = m.ld(st + sp._S_ROW)
    rel = ir.Constant(F64, P.pivot_rel)
    for i, (diag, ents) in enumerate(P.entry_plans()):
        rp_prow = int(P.prow[i])
        for q, es, contrib, dk in ents:  # each entry as one chain (LUPlan.entry_plans)
            v = zero
            if es:
                v = m.ld(es[0])
                for e in es[1:]:
                    v = b.fadd(v, m.ld(e))
            for p, r in contrib:
                v = b.fsub(v, b.fmul(m.ld(ol + p), m.ld(ol + r)))
            if dk >= 0:
                v = b.fdiv(v, m.ld(ol + dk))
                a = b.call(fabs, [v])
                lmax = b.select(b.fcmp_ordered(">", a, lmax), a, lmax)
            m.st(ol + q, v)
        d = m.ld(ol + diag)
        u = b.call(fabs, [d])
        bad = b.or_(bad, b.not_(b.fcmp_ordered("<", u, inf)))
        bound = b.fmul(rel, m.ld(P.o_pref + i))
        low = b.fcmp_ordered("<", u, bound)
        signed = b.select(b.fcmp_ordered("<", d, zero), b.fmul(ir.Constant(F64, -1.0), bound),
                          bound)
        m.st(ol + diag, b.select(low, signed, d))
        u = b.select(low, bound, u)
        npert = b.add(npert, b.zext(low, I64))
        row = b.select(low, ir.Constant(F64, float(rp_prow)), row)
        umax = b.select(b.fcmp_ordered(">", u, umax), u, umax)
        umin = b.select(b.fcmp_ordered("<", u, umin), u, umin)
    m.st(st + sp._S_ROW, row)
    flagged = b.or_(b.icmp_signed(">", npert, ir.Constant(I64, 0)),
                    b.fcmp_ordered(">", lmax, m.ld(st + sp._S_GROWTH_LIMIT)))
    one = ir.Constant(F64, 1.0)
    m.st(st + sp._S_FLAG, b.select(flagged, one, zero))
    count = m.ld(st + sp._S_COUNT)
    m.st(st + sp._S_COUNT, b.select(flagged, b.fadd(count, one), count))
    return umax, umin, lmax, bad


def substitute_ir(builder, fb, bvec, plan: LUPlan):
    """b ← U⁻¹L⁻¹b with the permutations (``_substitute``); ``w`` in fb's work slot."""
    P, b = plan, builder
    m, v = _Mem(b, fb), _Mem(b, bvec)
    ol, ow = P.o_lu, P.ne + P.nnz
    ptr, diag, col = P.ptr.tolist(), P.diag.tolist(), P.col.tolist()
    w = {}  # values of w kept as SSA values (no reloads)
    for i in range(P.N):
        s = v.ld(int(P.prow[i]))
        for p in range(ptr[i], diag[i]):
            s = b.fsub(s, b.fmul(m.ld(ol + p), w[col[p]]))
        w[i] = s
    for i in range(P.N - 1, -1, -1):
        s = w[i]
        for p in range(diag[i] + 1, ptr[i + 1]):
            s = b.fsub(s, b.fmul(m.ld(ol + p), w[col[p]]))
        w[i] = b.fdiv(s, m.ld(ol + diag[i]))
    for i in range(P.N):
        m.st(ow + i, w[i])
    for j in range(P.N):
        v.st(int(P.pcol[j]), w[j])


def couple_ir(builder, fb, bvec, plan: LUPlan):
    """b[dst] += c b[src] in order (the couplings of an augmented KKT matrix)."""
    m, v = _Mem(builder, fb), _Mem(builder, bvec)
    for c, (d, s) in enumerate(zip(plan.cdst.tolist(), plan.csrc.tolist())):
        v.st(d, builder.fadd(v.ld(d), builder.fmul(m.ld(plan.o_cval + c), v.ld(s))))


def residual_ir(builder, fb, bvec, rvec, plan: LUPlan):
    """r[rows[e]] -= ax[e] b[cols[e]] over the entries, in order (r holds b0 on entry)."""
    m, v, r = _Mem(builder, fb), _Mem(builder, bvec), _Mem(builder, rvec)
    for e, (ri, ci) in enumerate(zip(plan.rows.tolist(), plan.cols.tolist())):
        r.st(ri, builder.fsub(r.ld(ri), builder.fmul(m.ld(e), v.ld(ci))))
