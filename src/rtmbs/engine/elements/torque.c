/* torque.c -- applied torque on a body: tau = f(t) e about a global or body-fixed axis
 * (rtmbs.kernels.elements.torque; see force.c). */
#include "base.h"
#include "elements.h"

RTMBS_ELEMENT_KERNEL(rtmbs_element_torque) {
    (void)bi;
    (void)outs;
    return rtmbs_applied(d, 1, bj, with_jac, fv, m->frc_par + m->frc_par_dim[1] * k);
}
