/* magic_formula.h -- steady-state Magic Formula (MF 6.1 and MF 5.2 / PAC2002) over a flat
 * parameter array (rtmbs.vehicle.tyre.magic_formula).
 *
 * Pacejka, Tire and Vehicle Dynamics, 3rd ed. (2012), sec. 4.3.2 and Appendix 3 (eqs. 4.E1-4.E78),
 * with the details of MFeval 4.3.1 ("TNO-compatible" mode); docs/tyre.md lists the departures
 * from the book. The parameter array p is one row of the model's tyre_par (what
 * rtmbs.vehicle.tyre.tir.load_tir builds), indexed by RTMBS_MF_I_<NAME> below.
 */
#ifndef RTMBS_TYRE_MAGIC_FORMULA_H
#define RTMBS_TYRE_MAGIC_FORMULA_H

/* parameter families (p[RTMBS_MF_I_FAMILY]) */
#define RTMBS_MF_FAMILY_MF52 0.0 /* MF 5.2 and PAC2002 */
#define RTMBS_MF_FAMILY_MF61 1.0 /* MF 6.1 (and 6.2's steady state) */

#define RTMBS_MF_EPS 1e-6    /* small number of eq. 4.E6a */
#define RTMBS_MF_N_RE_ITER 6 /* fixed-point updates of the effective rolling radius */

/* the parameters, in the order of magic_formula.PARAM_NAMES: X(name) */
#define RTMBS_MF_PARAMS(X)                                                                       \
    X(FAMILY)                                                                                    \
    X(LONGVL) X(VXLOW)                                                                           \
    X(UNLOADED_RADIUS)                                                                           \
    X(INFLPRES) X(NOMPRES)                                                                       \
    X(FNOMIN) X(VERTICAL_STIFFNESS) X(BREFF) X(DREFF) X(FREFF) X(Q_RE0) X(Q_V1) X(PFZ1)          \
    X(LONGITUDINAL_STIFFNESS) X(LATERAL_STIFFNESS) X(PCFX1) X(PCFX2) X(PCFX3) X(PCFY1)           \
    X(PCFY2) X(PCFY3)                                                                            \
    X(FZMIN) X(FZMAX) X(KPUMIN) X(KPUMAX) X(ALPMIN) X(ALPMAX) X(CAMMIN) X(CAMMAX) X(PRESMIN)     \
    X(PRESMAX)                                                                                   \
    X(LFZO) X(LCX) X(LMUX) X(LEX) X(LKX) X(LHX) X(LVX) X(LCY) X(LMUY) X(LEY) X(LKY) X(LHY)       \
    X(LVY) X(LTR) X(LRES) X(LXAL) X(LYKA) X(LVYKA) X(LS) X(LKYC) X(LKZC) X(LVMX) X(LMX) X(LMY)   \
    X(LSGKP) X(LSGAL)                                                                            \
    X(PCX1) X(PDX1) X(PDX2) X(PDX3) X(PEX1) X(PEX2) X(PEX3) X(PEX4) X(PKX1) X(PKX2) X(PKX3)      \
    X(PHX1) X(PHX2) X(PVX1) X(PVX2) X(PPX1) X(PPX2) X(PPX3) X(PPX4) X(RBX1) X(RBX2) X(RBX3)      \
    X(RCX1) X(REX1) X(REX2) X(RHX1) X(PTX1) X(PTX2) X(PTX3)                                      \
    X(QSX1) X(QSX2) X(QSX3) X(QSX4) X(QSX5) X(QSX6) X(QSX7) X(QSX8) X(QSX9) X(QSX10) X(QSX11)    \
    X(QSX12) X(QSX13) X(QSX14) X(PPMX1)                                                          \
    X(PCY1) X(PDY1) X(PDY2) X(PDY3) X(PEY1) X(PEY2) X(PEY3) X(PEY4) X(PEY5) X(PKY1) X(PKY2)      \
    X(PKY3) X(PKY4) X(PKY5) X(PKY6) X(PKY7) X(PHY1) X(PHY2) X(PHY3) X(PVY1) X(PVY2) X(PVY3)      \
    X(PVY4) X(PPY1) X(PPY2) X(PPY3) X(PPY4) X(PPY5) X(RBY1) X(RBY2) X(RBY3) X(RBY4) X(RCY1)      \
    X(REY1) X(REY2) X(RHY1) X(RHY2) X(RVY1) X(RVY2) X(RVY3) X(RVY4) X(RVY5) X(RVY6) X(PTY1)      \
    X(PTY2)                                                                                      \
    X(QSY1) X(QSY2) X(QSY3) X(QSY4) X(QSY5) X(QSY6) X(QSY7) X(QSY8)                              \
    X(QBZ1) X(QBZ2) X(QBZ3) X(QBZ4) X(QBZ5) X(QBZ9) X(QBZ10) X(QCZ1) X(QDZ1) X(QDZ2) X(QDZ3)     \
    X(QDZ4) X(QDZ6) X(QDZ7) X(QDZ8) X(QDZ9) X(QDZ10) X(QDZ11) X(QEZ1) X(QEZ2) X(QEZ3) X(QEZ4)    \
    X(QEZ5) X(QHZ1) X(QHZ2) X(QHZ3) X(QHZ4) X(PPZ1) X(PPZ2) X(SSZ1) X(SSZ2) X(SSZ3) X(SSZ4)

enum {
#define RTMBS_X(name) RTMBS_MF_I_##name,
    RTMBS_MF_PARAMS(RTMBS_X)
#undef RTMBS_X
    RTMBS_MF_N_PARAM
};

/* outputs of rtmbs_mf_steady_state (magic_formula.OUTPUT_NAMES) */
enum {
    RTMBS_MF_O_FX, RTMBS_MF_O_FY, RTMBS_MF_O_MX, RTMBS_MF_O_MY, RTMBS_MF_O_MZ, RTMBS_MF_O_RE,
    RTMBS_MF_O_T, RTMBS_MF_O_MUX, RTMBS_MF_O_MUY, RTMBS_MF_O_KYA, RTMBS_MF_O_KXK,
    RTMBS_MF_O_SIGK, RTMBS_MF_O_SIGA, RTMBS_MF_N_OUT
};

/* outputs of rtmbs_mf_force_partials (magic_formula.PARTIAL_NAMES) */
enum {
    RTMBS_MF_D_FX, RTMBS_MF_D_FY, RTMBS_MF_D_MZ, RTMBS_MF_D_FX_FZ, RTMBS_MF_D_FX_K,
    RTMBS_MF_D_FX_A, RTMBS_MF_D_FY_FZ, RTMBS_MF_D_FY_K, RTMBS_MF_D_FY_A, RTMBS_MF_D_MZ_FZ,
    RTMBS_MF_D_MZ_K, RTMBS_MF_D_MZ_A, RTMBS_MF_N_PARTIALS
};

/* A dual number: value and its partials with respect to the Magic Formula's five inputs, lanes
 * (value, d/dFz, d/dkappa, d/dalpha, d/dgamma, d/dVx) (magic_formula L_*). */
typedef struct rtmbs_dual_ {
    double v[6];
} rtmbs_dual;

enum { RTMBS_MF_L_FZ = 1, RTMBS_MF_L_KAPPA, RTMBS_MF_L_ALPHA, RTMBS_MF_L_GAMMA, RTMBS_MF_L_VX };

/* Steady-state forces and moments at one operating point into out[RTMBS_MF_O_*] (N_OUT values):
 * load Fz_in [N], slip kappa_in, slip angle alpha_in [rad] (ISO-W), camber gamma_in [rad], speed
 * Vx [m/s]. slip_reduction 0 skips the low-speed reduction of kappa and alpha (transient slips). */
void rtmbs_mf_steady_state(const double* p, double Fz_in, double kappa_in, double alpha_in,
                           double gamma_in, double Vx, double* out, int slip_reduction);

/* rtmbs_mf_steady_state; with full = 0 only Fx, Fy, Mz, t, mux, muy, Kya, Kxk. */
void rtmbs_mf_evaluate(const double* p, double Fz_in, double kappa_in, double alpha_in,
                       double gamma_in, double Vx, double* out, int full, int slip_reduction);

/* (Mx, My) of rtmbs_mf_steady_state for given Fx, Fy, inputs limited the same way. */
void rtmbs_mf_moments(const double* p, double Fz_in, double kappa_in, double gamma_in, double Vx,
                      double Fx, double Fy, double* Mx, double* My);

/* Effective rolling radius Re (returned) and spin speed *omega at slip kappa (Pacejka eq. 2.5,
 * Besselink et al. 2010 eqs. 1, 7): N_RE_ITER fixed-point updates from Re = 0.965 R0. */
double rtmbs_effective_rolling_radius(const double* p, double Fz, double kappa, double Vx,
                                      double dpi, double* omega);

/* The same with dRe/dFz (*dRz) and dRe/dVx (*dRv) carried through the updates. */
double rtmbs_effective_rolling_radius_d(const double* p, double Fz, double kappa, double Vx,
                                        double dpi, double* omega, double* dRz, double* dRv);

/* Fx, Fy, Mz, Mx, My (out[0..4]) of rtmbs_mf_evaluate as dual numbers: exact partials in one
 * forward-mode pass (magic_formula.mf_dual); without `moments` Mx = My = 0; within kink_band of
 * Vx = 0 the low-speed reductions' factors |Vx| get the slope 0. */
void rtmbs_mf_dual(const double* p, double Fz_in, double kappa_in, double alpha_in,
                   double gamma_in, double Vx, int slip_reduction, int moments, double kink_band,
                   rtmbs_dual* out);

/* Fx, Fy, Mz and their partials in (Fz, kappa, alpha) into out[RTMBS_MF_D_*]. */
void rtmbs_mf_force_partials(const double* p, double Fz_in, double kappa_in, double alpha_in,
                             double gamma_in, double Vx, double* out, int slip_reduction);

/* Relaxation lengths (sigma_kappa, sigma_alpha) as dual numbers (lanes Fz and gamma). */
void rtmbs_relaxation_lengths_dual(const double* p, double Fz_in, double gamma_in,
                                   rtmbs_dual* sig_k, rtmbs_dual* sig_a);

#endif /* RTMBS_TYRE_MAGIC_FORMULA_H */
