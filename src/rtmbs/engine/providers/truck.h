/* truck.h -- the planar truck of Simeon, Grupp, Fuehrer and Rentrop (1994) as a provider of the
 * evaluation interface (rtmbs.models.truck): M, Q, Phi, Phi_q, gamma and the analytic force
 * Jacobians written into a protocol workspace (rtmbs.protocol.WORKSPACE_FIELDS, in order
 * M (n x n), Q (n), phi (m), phiq (m x n), phit (m), gamma (m), Jq (n x n), Jqd (n x n)).
 *
 * The model is one float64 parameter vector, laid out by rtmbs.models.truck.pack_params:
 *
 *     nonlinear: [m, ne, nroad, mass (9), body (6 x 4), hinge (4), road (nroad), elem (ne x 16)]
 *     linear:    [nroad, mass (9), q_eq (9), K, D, K_stiff, D_stiff (9 x 9 each),
 *                 x_rear, x_front, k_tyre (2), d_tyre (2), hinge (4), road (nroad)]
 *
 * body rows (road, rear wheel, front wheel, chassis, cabin, loading area): index of the x, z,
 * theta coordinate (-1: none) and the fixed x; elem columns: RTMBS_TRUCK_E_*; road: RTMBS_TRUCK_R_*
 * then the road coordinates where the bumps start; hinge: the hinge point H on the chassis and on
 * the loading area, relative to each centre of mass (a, b, a_load, b_load). */
#ifndef RTMBS_PROVIDERS_TRUCK_H
#define RTMBS_PROVIDERS_TRUCK_H

#include <stdint.h>

#include "../rtmbs.h"
#include "provider.h"

#define RTMBS_TRUCK_N 9
/* named outputs (rtmbs.models.truck.OUTPUT_NAMES) */
#define RTMBS_TRUCK_NOUT 8

/* element table columns: law (0 linear, 1 pneumatic), axis (0 x, 1 z), body and point (a, b)
 * of side A and side B, stiffness k (pneumatic: static absolute pressure p_s), damping d,
 * free length l0 (pneumatic: design length), area A, static volume V_s, polytropic exponent,
 * atmospheric pressure, stiff flag (1: in the stiff Jacobian) */
enum {
    RTMBS_TRUCK_E_LAW, RTMBS_TRUCK_E_AXIS, RTMBS_TRUCK_E_BA, RTMBS_TRUCK_E_AA, RTMBS_TRUCK_E_BBA,
    RTMBS_TRUCK_E_BB, RTMBS_TRUCK_E_AB, RTMBS_TRUCK_E_BBB, RTMBS_TRUCK_E_K, RTMBS_TRUCK_E_D,
    RTMBS_TRUCK_E_L0, RTMBS_TRUCK_E_A, RTMBS_TRUCK_E_VS, RTMBS_TRUCK_E_KAPPA, RTMBS_TRUCK_E_PA,
    RTMBS_TRUCK_E_STIFF, RTMBS_TRUCK_E_NCOL
};

/* road parameters: kind (0 flat, 1 cosine bumps, 2 sine), speed [m/s], height [m], length [m],
 * number of bumps, then the bump starts [m] */
enum {
    RTMBS_TRUCK_R_TYPE, RTMBS_TRUCK_R_SPEED, RTMBS_TRUCK_R_HEIGHT, RTMBS_TRUCK_R_LENGTH,
    RTMBS_TRUCK_R_NB, RTMBS_TRUCK_R_XI0
};

/* the nonlinear truck: views into its parameter vector */
typedef struct rtmbs_truck_ {
    int64_t m, ne, nroad;
    const double *mass, *body, *hinge, *road, *elem;
} rtmbs_truck;

/* the linearised truck (M qdd = -K (q - q_eq) - D qd + f(t)) */
typedef struct rtmbs_truck_linear_ {
    int64_t nroad;
    const double *mass, *q_eq, *K, *D, *K_stiff, *D_stiff, *x_wheel, *k_tyre, *d_tyre, *hinge;
    const double* road;
} rtmbs_truck_linear;

/* Views of a parameter vector of `len` values; RTMBS_ERR_SIZE if it is too short for its own
 * header, RTMBS_ERR_ARGUMENT for a header out of range (m not 0 or 2, a negative count). */
rtmbs_status rtmbs_truck_bind(rtmbs_truck* tr, const double* par, int64_t len);
rtmbs_status rtmbs_truck_linear_bind(rtmbs_truck_linear* tr, const double* par, int64_t len);

/* The workspace length for n = 9 and m constraints. */
int64_t rtmbs_truck_workspace_size(int64_t m);

/* Fill what `what` asks (RTMBS_EVAL_*) of the workspace `ws` (at least
 * rtmbs_truck_workspace_size(m) values) at (t, q, qd) (Simeon et al. 1994, eqs. 1-2).
 * RTMBS_ERR_NONFINITE when a pneumatic spring's volume is not positive. */
rtmbs_status rtmbs_truck_evaluate(const rtmbs_truck* tr, double t, const double* q,
                                  const double* qd, int what, double* ws);
rtmbs_status rtmbs_truck_linear_evaluate(const rtmbs_truck_linear* tr, double t, const double* q,
                                         const double* qd, int what, double* ws);

/* Spring deflections s of every element at (t, q) (for the energy): s_out has ne values. */
void rtmbs_truck_deflections(const rtmbs_truck* tr, double t, const double* q, double* s_out);

/* The named outputs (rtmbs.models.truck.OUTPUT_NAMES) at (t, q) into out (RTMBS_TRUCK_NOUT
 * values): chassis heave and pitch, cabin heave, load pitch, the hinge gap
 * g(q) = r_H(load) - r_H(chassis) (Simeon 1994, eq. 2), the road height under the rear and
 * the front wheel (x_wheel: their x). */
void rtmbs_truck_outputs(const double* hinge, const double* x_wheel, const double* road, double t,
                         const double* q, double* out);

/* The nonlinear (tr) or linearised (tl) truck as a provider of the evaluation interface
 * (provider.h): p reads tr or tl, which must outlive it. */
void rtmbs_truck_provider(const rtmbs_truck* tr, rtmbs_provider* p);
void rtmbs_truck_linear_provider(const rtmbs_truck_linear* tl, rtmbs_provider* p);

/* Road height u [m] at road coordinate xi = x + v t, and its slope du/dxi into *slope. */
double rtmbs_truck_road(const double* road, double xi, double* slope);

#endif /* RTMBS_PROVIDERS_TRUCK_H */
