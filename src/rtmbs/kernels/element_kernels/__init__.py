"""The numba force element kernels, kept for the solvers' numba steps (rtmbs.kernels.evaluate);
the engine's ``elements/*.c`` replace them. Deleted with the numba steps (issue 29)."""
