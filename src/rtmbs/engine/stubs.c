/* stubs.c -- TEMPORARY placeholders while the engine is ported stage by stage: each returns zero
 * and counts RTMBS_WARN_UNSUPPORTED. Deleted as the real stages land (never in a release). */
#include "elements/base.h"
#include "elements/elements.h"
#include "functions.h"

#define STUB_ELEMENT(name)                                                                   \
    RTMBS_ELEMENT_KERNEL(name) {                                                             \
        (void)bi; (void)bj; (void)with_jac; (void)fv; (void)outs; (void)m;                   \
        rtmbs_warn(d, RTMBS_WARN_UNSUPPORTED, k, 0.0);                                       \
        return 0.0;                                                                          \
    }
STUB_ELEMENT(rtmbs_element_spring_damper)
STUB_ELEMENT(rtmbs_element_stop)
STUB_ELEMENT(rtmbs_element_bushing)
STUB_ELEMENT(rtmbs_element_force)
STUB_ELEMENT(rtmbs_element_torque)
STUB_ELEMENT(rtmbs_element_joint_torque)
STUB_ELEMENT(rtmbs_element_brake)
STUB_ELEMENT(rtmbs_element_torsion_spring)

rtmbs_element_kernel rtmbs_element_kernel_of(int64_t type) { (void)type; return NULL; }
int rtmbs_element_torque_only(int64_t type) {
    return type == RTMBS_F_TORQUE || type == RTMBS_F_JOINT_TORQUE || type == RTMBS_F_BRAKE ||
           type == RTMBS_F_TORSION_SPRING;
}
void rtmbs_zero_jacobians(rtmbs_data* d, int force, int torque) { (void)d; (void)force; (void)torque; }
void rtmbs_marker_axis(const rtmbs_model* m, const rtmbs_data* d, int64_t b, const double* C, int col,
                       double* out) { (void)m; (void)d; (void)b; (void)C; (void)col; (void)out; }
double rtmbs_line_length(rtmbs_data* d, double* Ld) { (void)d; *Ld = 0.0; return 0.0; }
void rtmbs_line_force(rtmbs_data* d, double F, double FL, double FLd, double L, const double* u,
                      double Ld, int with_jac, int64_t bi, int64_t bj) {
    (void)d; (void)F; (void)FL; (void)FLd; (void)L; (void)u; (void)Ld; (void)with_jac; (void)bi; (void)bj;
}
double rtmbs_table_eval(double x, const double* tx, const double* ty, int64_t adr, int64_t n,
                        double* slope) { (void)x; (void)tx; (void)ty; (void)adr; (void)n; *slope = 0.0; return 0.0; }
void rtmbs_fun_eval(const rtmbs_model* m, const rtmbs_data* d, int64_t k, double t, double* v,
                    double* v1, double* v2) { (void)m; (void)d; (void)k; (void)t; *v = 1.0; *v1 = 0.0; *v2 = 0.0; }
