/* tyre_element.h -- the tyre force element (Carpinelli 2015 sec. 4.3):
 * 2-point follower enveloping, steady-state Magic Formula, slips from the rim's motion (or from
 * the transient carcass deflections), with its exact Jacobians. */
#ifndef RTMBS_TYRE_ELEMENT_H
#define RTMBS_TYRE_ELEMENT_H

#include <stdint.h>

#include "../rtmbs.h"

/* frc_par layout of a tyre element (tyre_element.TP_*) */
enum {
    RTMBS_TP_ROW,      /* row of the tyre's Magic Formula parameters in tyre_par */
    RTMBS_TP_ROAD_ADR, /* first entry of its packed road in the model's road buffer */
    RTMBS_TP_ROAD_LEN, /* length of the packed road */
    RTMBS_TP_LF,       /* half distance of the two followers, m */
    RTMBS_TP_KZ,       /* radial stiffness, N/m */
    RTMBS_TP_CZ,       /* radial damping, N s/m */
    RTMBS_TP_VMIN,     /* lower bound of the speeds in the slips' denominators, m/s */
    RTMBS_TP_RFREE,    /* free radius, m */
    RTMBS_TP_XSTATE    /* index among the transient tyres (-1: steady state) */
};

/* columns of outs (frc_out columns 1..): TYRE_OUTPUTS, then TYRE_TRANSIENT_INPUTS */
enum {
    RTMBS_TO_FX, RTMBS_TO_FY, RTMBS_TO_FZ, RTMBS_TO_KAPPA, RTMBS_TO_ALPHA, RTMBS_TO_GAMMA,
    RTMBS_TO_RHO, RTMBS_TO_VSX, RTMBS_TO_VSY, RTMBS_TO_VX, RTMBS_TO_SIGMA_KAPPA,
    RTMBS_TO_SIGMA_ALPHA, RTMBS_TO_N
};

/* Force f at the wheel centre and couple tau on the rim (tyre_element.tyre_force).
 *
 * par: the element's frc_par row (RTMBS_TP_*); tyre_par: the model's Magic Formula rows, ntp
 * entries each; road_buf: the model's packed roads; tyre_x: the data's xstate ([h, u0, v0, ...]);
 * rA, vA: wheel centre and its velocity; w: the rim's angular velocity; s: the spin axis
 * (normalised in place); sg: the arm A_j s_j of the wheel centre on the rim. outs (nouts >= 7,
 * 12 for a transient tyre) gets TYRE_OUTPUTS (and the transient inputs). With with_jac the
 * Jacobians' columns 6-11 (3 x 12 row-major; the caller has zeroed them). Without contact f, tau
 * and the Jacobians are left as they are. Returns the radial force Fn (0 without contact). */
double rtmbs_tyre_force(const double* par, const double* tyre_par, int64_t ntp,
                        const double* road_buf, const double* tyre_x, int with_jac,
                        const double* rA, const double* vA, const double* w, double* s,
                        const double* sg, double* f, double* tau, double* dfdx, double* dfdv,
                        double* dtdx, double* dtdv, double* outs, int64_t nouts);

/* The element kernel (kernels/elements/tyre.py kernel; the signature of every force element,
 * elements/elements.h): the spin axis is marker j's z axis, the wheel centre and its velocity
 * are d->tmp rows 5 and 6, the arm d->sgj; outs is the element's frc_out row after column 0
 * (RTMBS_NFOUT - 1 entries). Returns the radial force. */
double rtmbs_element_tyre(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi, int64_t bj,
                          int with_jac, double fv, double* outs);

#endif /* RTMBS_TYRE_ELEMENT_H */
