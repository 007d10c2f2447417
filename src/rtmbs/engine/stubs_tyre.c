/* stubs_tyre.c -- TEMPORARY placeholder for the tyre element (tyre/tyre_element.c replaces it). */
#include "elements/elements.h"

RTMBS_ELEMENT_KERNEL(rtmbs_element_tyre) {
    (void)bi; (void)bj; (void)with_jac; (void)fv; (void)outs; (void)m;
    rtmbs_warn(d, RTMBS_WARN_UNSUPPORTED, k, 0.0);
    return 0.0;
}
