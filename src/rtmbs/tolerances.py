"""Named numerical tolerances shared by ``rtmbs info``, assembly, the redundancy module and the
solvers: the rank cuts of Φq, the static pivot of the sparse LU and the singularity test of
Algorithm 2. One name per decision, with what it measures and why it has that size.

Rank is decided from the singular values σ of Φq (sorted descending): σ ≤ rtol·σmax counts as
zero. There are two cuts on purpose. At an assembled configuration an exact redundancy leaves σ
at round-off, so a tight cut is safe. During a run, drift off the manifold turns a geometric
redundancy into σ ≈ ‖Φ‖, so the solvers need a looser one (docs/redundant.md "Rank tolerance").

Measured at the initial state of the built-in models: the smallest singular value that counts
(σmin/σmax) is 1.4e-2 (multilink-ideal); the five dependent rows of mcpherson-overconstrained
have σ/σmax ≤ 1e-16. Pivot ratios when B is chosen: at least 6.8e-2 (multilink-ideal).

The C engine has its own copies of those it uses in a step (e.g. ``RTMBS_LU_PIVOT_REL`` in
``engine/sparse_lu.h``); tests/engine/test_lu.py checks that they agree.
"""
from __future__ import annotations

#: Rank of Φq at an assembled configuration, as used by ``rtmbs info`` (``analysis.sizes``),
#: ``System.rank``, ``System.redundant_joints``, the redundancy check of ``assemble`` and the
#: reference solver's choice between LU and least squares. σ ≤ MODEL_RANK_RTOL·σmax is zero
#: (``redundant_joints``: σ ≤ MODEL_RANK_RTOL·max(max|Φq_ij|, 1)). 1e-9 lies seven decades
#: below the worst conditioning in the library (1.4e-2) and seven above an exact redundancy
#: (1e-16). It is also three decades above the residual of assembly (POSITION_TOL = 1e-12).
MODEL_RANK_RTOL = 1e-9

#: Rank inside the solvers and the redundant-constraint formulations (``solvers.formulations``,
#: ``partitioning``, ``redundancy``, ``index1``): of Φq, D = Φq M^(-1/2), M̄ and the KKT matrix
#: X. σ ≤ SOLVER_RANK_RTOL·σmax is zero. For eigenvalues of symmetric PSD products the cut is
#: λ ≤ SOLVER_RANK_RTOL²·λmax. The cut is large enough to remove round-off (≈1e-16) and a small
#: drift off the constraint manifold, which turns an exact redundancy into σ ≈ ‖Φ‖. It is small
#: enough for Jacobians that mix lengths of 1 cm and 1 m (condition number ≈ 1e2-1e4).
SOLVER_RANK_RTOL = 1e-6

#: Static pivoting of the sparse LU (``solvers.sparse``): a pivot whose magnitude falls below
#: PIVOT_REL times its value at the analysis is replaced by that bound with its sign. The
#: factors are then flagged, and each solve adds NREFINE iterative-refinement steps. 1e-8 ≈ √eps
#: is SuperLU_DIST's size for replacing tiny pivots: the relative perturbation it leaves is one
#: that two refinement steps remove, and a pivot that has shrunk by eight decades since the
#: analysis means a near-singular matrix, not normal motion.
PIVOT_REL = 1e-8

#: A KKT ordering that condenses substructures onto a hub body (``solvers.sparse``,
#: ``substructure_order``) is kept only if the pivot ratio min|u_kk|/max|u_kk| of its analysis is
#: at least this times that of the plain ordering: its multipliers' pivots are Schur complements
#: of the substructures with the hub held, which vanish when a substructure is over-constrained
#: so (two hubs on the multilink: ratio 1e-38 against 7e-11). On the built-in models the kept
#: ones equal the plain ordering's ratio.
ORDER_PIVOT_RATIO = 1e-3

#: Algorithm 2 (``li-euler-indep``) raises RedundantConstraintError instead of choosing B when
#: the pivot ratio of Φq is below this. The ratio is min|r_kk|/max|r_kk| for the QR, or
#: min|u_kk|/max(|u_kk|, |Φq_ij|) for the rook-pivoted elimination. A ratio this small means Φq
#: is rank deficient, and the dependent coordinates would be solved by dividing by round-off.
#: The built-in models start at ratios of 6.8e-2 or more. The singular configurations that the
#: chains reach report 1e-22 to 1e-28 (docs/benchmarks/step-tails.md).
SINGULAR_PIVOT_RATIO = 1e-12

#: Relative step of the reference solver's ``jacobian="fd"`` (the dense differences of the ODE
#: methods, the coloured ones of ``ida``): δ_j = FD_REL · max(|y_j|, FD_FLOOR), fixed for the
#: run (scipy's own differencing enlarges δ_j without bound on components f does not depend on).
FD_REL = 2.0 ** -26  # sqrt of the double epsilon 2^-52
FD_FLOOR = 1.0
