/* elements.h -- force elements: one file each, one kernel signature.
 *
 * A kernel computes the force f (3) that element k applies at body j's marker point P_j (and -f
 * on body i at the same point) and a couple tau (3) on j (-tau on i), into d->f, d->tau, and with
 * with_jac their Jacobians d->dfdx, d->dfdv, d->dtdx, d->dtdv (3 x 12, x = (dr_i, dpi_i, dr_j,
 * dpi_j) at fixed global velocities v = (rdot_i, omega_i, rdot_j, omega_j)).
 *
 * On entry rtmbs_element_forces (forces.c) has left in d->tmp (32 x 3): row 0 sg_i = A_i s_i,
 * 1 r_Pi, 2 v_Pi, 5 r_Pj, 6 v_Pj, 8 d = r_Pj - r_Pi, 9 ddot, and d->sgj = A_j s_j,
 * d->arm_i = d + sg_i; rows 10.. and d->S, d->Dd, d->Ddd, d->X, d->mf are the kernel's scratch.
 * fv is the value of the element's input function (1 without one); outs its row of frc_out
 * after column 0. The return value is the element's main output (force or torque).
 * Parameters: m->frc_par row k (RTMBS_NFPAR), tables m->frc_tab row k (-1: none).
 */
#ifndef RTMBS_ELEMENTS_H
#define RTMBS_ELEMENTS_H

#include "../stages.h"

#define RTMBS_ELEMENT_KERNEL(name)                                                           \
    double name(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi, int64_t bj,     \
                int with_jac, double fv, double* outs)

RTMBS_ELEMENT_KERNEL(rtmbs_element_spring_damper);  /* elements/spring_damper.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_stop);           /* elements/stop.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_bushing);        /* elements/bushing.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_force);          /* elements/force.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_torque);         /* elements/torque.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_joint_torque);   /* elements/joint_torque.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_brake);          /* elements/brake.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_tyre);           /* tyre/tyre_element.c */
RTMBS_ELEMENT_KERNEL(rtmbs_element_torsion_spring); /* elements/torsion_spring.c */

/* The kernel of element type `type` (RTMBS_F_*), NULL for an unknown type (elements/table.c:
 * the one table of element types, in registry order). */
typedef RTMBS_ELEMENT_KERNEL((*rtmbs_element_kernel));
rtmbs_element_kernel rtmbs_element_kernel_of(int64_t type);

/* 1 if elements of type `type` apply a couple only (no translational Jacobian terms). */
int rtmbs_element_torque_only(int64_t type);

#endif /* RTMBS_ELEMENTS_H */
