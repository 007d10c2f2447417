/* spring_damper.c -- point-to-point spring-damper, linear or tabulated: tension
 * F = k (L - L0) + c Ldot + F0 f(t) along the line of the two marker origins (or F(L - L0) and
 * F(Ldot) from tables) (rtmbs.kernels.elements.spring_damper). */
#include "../functions.h"
#include "base.h"
#include "elements.h"

/* par: stiffness k, damping c, free length L0, preload F0 */
enum { K, C, L0, F0 };

RTMBS_ELEMENT_KERNEL(rtmbs_element_spring_damper) {
    const double* par = m->frc_par + m->frc_par_dim[1] * k;
    const int64_t* tab = m->frc_tab + m->frc_tab_dim[1] * k;
    double L, Ld, F, FL, Fd, FLd;
    int64_t j;
    (void)outs;
    if (with_jac) rtmbs_zero_jacobians(d, 0, 1);
    L = rtmbs_line_length(d, &Ld);
    if (tab[0] >= 0) {
        j = tab[0];
        F = rtmbs_table_eval(L - par[L0], m->tab_x, m->tab_y, m->tab_adr[j], m->tab_len[j], &FL);
    } else {
        F = par[K] * (L - par[L0]);
        FL = par[K];
    }
    if (tab[1] >= 0) {
        j = tab[1];
        Fd = rtmbs_table_eval(Ld, m->tab_x, m->tab_y, m->tab_adr[j], m->tab_len[j], &FLd);
        F += Fd;
    } else {
        F += par[C] * Ld;
        FLd = par[C];
    }
    F += par[F0] * fv;
    rtmbs_line_force(d, F, FL, FLd, L, RTMBS_TMP(d, 10), Ld, with_jac, bi, bj);
    return F;
}
