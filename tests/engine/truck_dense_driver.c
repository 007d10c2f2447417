/* truck_dense_driver.c -- the truck's dense li-euler or generalized-alpha rollout
 * (dense_rollout.c: li_euler_dense.c, alpha_dense.c) without Python, for
 * tests/engine/test_harness.py to run under AddressSanitizer and UndefinedBehaviorSanitizer.
 *
 *   truck_dense_driver IN OUT
 *
 * IN (float64): kind, m, stab, niter, implicit, jac_what, gamma, h, steps, npar, method (0
 * li-euler, 1 generalized-alpha), alpha_m, alpha_f, gamma_alpha, beta, nvec, q0 (9), qd0 (9),
 * par (npar), vec0 (nvec: the step's vectors at the start, generalized-alpha's a, qddot, lambda;
 * the rest 0). Runs `steps` steps in one rollout from t = 0 keeping the last row; OUT (float64):
 * done, heap allocations while stepping (malloc, calloc, realloc wrapped at link time), the
 * counter table (RTMBS_COUNTSLOTS), q, qdot, lambda (m) and the outputs (RTMBS_TRUCK_NOUT) of the
 * last step. Exit 0 when every step succeeded. */
#include <stdio.h>
#include <stdlib.h>

#include "harness/heap_count.h"
#include "dense_rollout.h"
#include "providers/truck.h"

#define N RTMBS_TRUCK_N
#define NMAX (RTMBS_TRUCK_N + 2)
#define NHEAD 16
#define NVEC (RTMBS_ALPHA_VEC(N, 2) > RTMBS_LI_EULER_VEC(N, 2) ? RTMBS_ALPHA_VEC(N, 2) \
                                                                : RTMBS_LI_EULER_VEC(N, 2))

int main(int argc, char** argv) {
    double head[NHEAD], q[N], qd[N], *par;
    double ws0[3 * N * N + N + 3 * 2 + 2 * N], ws1[3 * N * N + N + 3 * 2 + 2 * N];
    double K[NMAX * NMAX], P[NMAX * NMAX], vec[NVEC] = {0};
    double counter[RTMBS_COUNTSLOTS] = {0}, warning[3 * RTMBS_WARNSLOTS] = {0};
    double row_t[1], row_q[N], row_qd[N], row_qdp[N], row_lam[2], row_y[RTMBS_TRUCK_NOUT];
    double q_good[N], qd_good[N], res[2];
    int64_t piv[NMAX], ppiv[NMAX], oidx[RTMBS_TRUCK_NOUT], npar, nvec, done = 0, k;
    rtmbs_truck tr;
    rtmbs_truck_linear tl;
    rtmbs_provider p;
    rtmbs_data d;
    rtmbs_li_euler_options opt;
    rtmbs_alpha_options aopt;
    rtmbs_rollout ro;
    rtmbs_dense_work w;
    rtmbs_status s;
    long heap0;
    FILE* f;
    if (argc != 3 || !(f = fopen(argv[1], "rb"))) return 2;
    if (fread(head, sizeof(double), NHEAD, f) != NHEAD || fread(q, sizeof(double), N, f) != N ||
        fread(qd, sizeof(double), N, f) != N) return 2;
    npar = (int64_t)head[9];
    nvec = (int64_t)head[15];
    if (nvec < 0 || nvec > NVEC) return 2;
    if (!(par = (double*)malloc((size_t)npar * sizeof(double)))) return 2;
    if (fread(par, sizeof(double), (size_t)npar, f) != (size_t)npar) return 2;
    if (fread(vec, sizeof(double), (size_t)nvec, f) != (size_t)nvec) return 2;
    fclose(f);
    s = head[0] != 0.0 ? rtmbs_truck_linear_bind(&tl, par, npar) : rtmbs_truck_bind(&tr, par, npar);
    if (s != RTMBS_OK) return 3;
    if (head[0] != 0.0)
        rtmbs_truck_linear_provider(&tl, &p);
    else
        rtmbs_truck_provider(&tr, &p);
    if (p.m != (int64_t)head[1]) return 3;
    opt.stab = (int)head[2];
    opt.niter = (int)head[3];
    opt.implicit = (int)head[4];
    opt.jac_what = (int64_t)head[5];
    opt.gamma = head[6];
    opt.h = head[7];
    aopt.h = head[7];
    aopt.am = head[11];
    aopt.af = head[12];
    aopt.g = head[13];
    aopt.b = head[14];
    aopt.jac_what = opt.jac_what;
    aopt.niter = opt.niter;
    aopt.stab = opt.stab;
    opt.rows = NULL; /* (a provider has no redundant rows) */
    aopt.rows = NULL;
    for (k = 0; k < RTMBS_TRUCK_NOUT; k++) oidx[k] = k;
    ro.t_origin = 0.0;
    ro.i0 = 0;
    ro.n_steps = (int64_t)head[8];
    ro.every = ro.n_steps;
    ro.nchan = 0;
    ro.nout = RTMBS_TRUCK_NOUT;
    ro.chan = NULL;
    ro.oidx = oidx;
    ro.inputs = NULL;
    ro.rows.t = row_t;
    ro.rows.q = row_q;
    ro.rows.qd = row_qd;
    ro.rows.qd_prev = row_qdp;
    ro.rows.lam = row_lam;
    ro.rows.y = row_y;
    ro.rows.x = NULL;
    ro.q_good = q_good;
    ro.qd_good = qd_good;
    ro.x_good = NULL;
    w.ws0 = ws0;
    w.ws1 = ws1;
    w.K = K;
    w.P = P;
    w.vec = vec;
    w.piv = piv;
    w.ppiv = ppiv;
    rtmbs_provider_data(&d, counter, warning);
    heap0 = heap_calls;
    s = head[10] != 0.0
            ? rtmbs_dense_rollout(&p, &d, &w, q, qd, RTMBS_DENSE_ALPHA, &aopt, &ro, &done)
            : rtmbs_dense_rollout(&p, &d, &w, q, qd, RTMBS_DENSE_LI_EULER, &opt, &ro, &done);
    res[0] = (double)done;
    res[1] = (double)(heap_calls - heap0);
    if (!(f = fopen(argv[2], "wb"))) return 2;
    fwrite(res, sizeof(double), 2, f);
    fwrite(counter, sizeof(double), RTMBS_COUNTSLOTS, f);
    fwrite(q, sizeof(double), N, f);
    fwrite(qd, sizeof(double), N, f);
    fwrite(row_lam, sizeof(double), (size_t)p.m, f);
    fwrite(row_y, sizeof(double), RTMBS_TRUCK_NOUT, f);
    fclose(f);
    free(par);
    return s == RTMBS_OK && done == ro.n_steps ? 0 : 1;
}
