/* joint_torque.c -- drive torque between two bodies about marker_i z: tau = T(t) z on body j
 * (-tau on i) (rtmbs.kernels.elements.joint_torque; rtmbs_axial_torque and rtmbs_axis_and_rate,
 * shared with brake.c and torsion_spring.c, are in base.c). */
#include "base.h"
#include "elements.h"

RTMBS_ELEMENT_KERNEL(rtmbs_element_joint_torque) {
    (void)outs;
    rtmbs_axis_and_rate(m, d, k, bi, bj);
    rtmbs_axial_torque(d, fv, 0.0, with_jac, RTMBS_TMP(d, 12), RTMBS_TMP(d, 11));
    return fv;
}
