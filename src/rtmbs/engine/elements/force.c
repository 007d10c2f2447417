/* force.c -- applied force on a body at marker_j: f = f(t) e, e a global direction or one fixed
 * in the body (frame: body) (rtmbs.kernels.elements.force; the helper rtmbs_applied is in
 * base.c, shared with torque.c). */
#include "base.h"
#include "elements.h"

RTMBS_ELEMENT_KERNEL(rtmbs_element_force) {
    (void)bi;
    (void)outs;
    return rtmbs_applied(d, 0, bj, with_jac, fv, m->frc_par + m->frc_par_dim[1] * k);
}
