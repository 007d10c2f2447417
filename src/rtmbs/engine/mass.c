/* mass.c -- the mass block of a body and its inertia terms.
 *
 * M = blockdiag(m I, G^T J_g G) with J_g = A J' A^T; the weight m g and the inertia torque
 * T = -omega~ J_g omega - J_g alpha are part of Q (Carpinelli 2015 sec. 4.2; Carpinelli 2016 eqs. 1, 3).
 */
#include "stages.h"

/* D[r0:r0+3, c0:c0+3] += v~ (row stride ld) */
static void add_skew(double* D, int64_t ld, int r0, int c0, double v0, double v1, double v2) {
    D[ld * r0 + c0 + 1] -= v2;
    D[ld * r0 + c0 + 2] += v1;
    D[ld * (r0 + 1) + c0] += v2;
    D[ld * (r0 + 1) + c0 + 2] -= v0;
    D[ld * (r0 + 2) + c0] -= v1;
    D[ld * (r0 + 2) + c0 + 1] += v0;
}

/* M_pp = G^T J_g G (symmetric; JG is 3 x nr scratch of row stride 7) into the block at row mr,
 * column mc of M (row stride ld). */
static void rotational_mass(double* M, int64_t ld, int64_t mr, int64_t mc, const double* G,
                            const double* Jg, double* JG, int nr) {
    int a, k, l;
    for (a = 0; a < 3; a++)
        for (l = 0; l < nr; l++)
            JG[7 * a + l] = Jg[3 * a] * G[l] + Jg[3 * a + 1] * G[4 + l] + Jg[3 * a + 2] * G[8 + l];
    for (k = 0; k < nr; k++)
        for (l = k; l < nr; l++) {
            const double v = G[k] * JG[l] + G[4 + k] * JG[7 + l] + G[8 + k] * JG[14 + l];
            M[ld * (mr + 3 + k) + mc + 3 + l] = v;
            M[ld * (mr + 3 + l) + mc + 3 + k] = v;
        }
}

/* Mass block blockdiag(m I, G^T J_g G) of body b at row mr, column mc of M (row stride ld;
 * dense: the body's coordinates, packed: its SEG x SEG block) when `what` asks for M; weight
 * m g and inertia torque T = -omega~ J_g omega - J_g alpha into the virtual forces vQ when it
 * asks for Q or Jacobians, and with `with_jac` dT/dpi, dT/domega into the body's virtual block
 * (plus -J_g dalpha/dp, -J_g dalpha/dpdot into vP for Euler angles, whose alpha != 0).
 * Scratch: S[0] (J_g), S[7], KL[0]. */
void rtmbs_inertia(const rtmbs_model* m, rtmbs_data* d, int64_t b, int64_t mr, int64_t mc,
                   int with_jac, int64_t what, double* M, int64_t ld) {
    const int64_t rtype = m->body_rtype[b];
    const int nr = rtype == RTMBS_ROT_EP ? 4 : 3;
    const double mass = m->body_mass[b];
    const double* Jl = m->body_inertia + 9 * b;
    const double* g = m->gravity;
    const double* A = d->kin_A + 9 * b;
    const double* G = d->kin_G + 12 * b;
    double* Jg = d->S;
    double* JA = d->KL; /* J' A^T (3x3), then J_g G (3 x nr), row stride 7 */
    double *vQ, *K, *C, *X, *Jw, *Ja;
    const double *w, *al;
    double w0, w1, w2, h0, h1, h2;
    int a, c, e;
    for (e = 0; e < 3; e++)
        for (c = 0; c < 3; c++)
            JA[7 * e + c] = Jl[3 * e] * A[3 * c] + Jl[3 * e + 1] * A[3 * c + 1] + Jl[3 * e + 2] * A[3 * c + 2];
    for (a = 0; a < 3; a++)
        for (c = a; c < 3; c++) { /* symmetric */
            Jg[3 * a + c] = A[3 * a] * JA[c] + A[3 * a + 1] * JA[7 + c] + A[3 * a + 2] * JA[14 + c];
            Jg[3 * c + a] = Jg[3 * a + c];
        }
    if (what & RTMBS_EVAL_M) { /* every entry of the block is written */
        for (c = 0; c < 3; c++)
            for (e = 0; e < 3 + nr; e++) {
                M[ld * (mr + c) + mc + e] = e == c ? mass : 0.0;
                if (e >= 3) M[ld * (mr + e) + mc + c] = 0.0;
            }
        rotational_mass(M, ld, mr, mc, G, Jg, JA, nr);
    }
    if (!(what & (RTMBS_EVAL_Q | RTMBS_EVAL_JAC | RTMBS_EVAL_JACS))) return;
    w = d->kin_w + 3 * b;
    al = d->kin_alpha + 3 * b;
    Jw = d->tmp;
    Ja = d->tmp + 3;
    for (a = 0; a < 3; a++) {
        Jw[a] = Jg[3 * a] * w[0] + Jg[3 * a + 1] * w[1] + Jg[3 * a + 2] * w[2];
        Ja[a] = Jg[3 * a] * al[0] + Jg[3 * a + 1] * al[1] + Jg[3 * a + 2] * al[2];
    }
    vQ = d->vQ + 9 * b;
    for (c = 0; c < 3; c++) vQ[c] += mass * g[c];
    vQ[3] += -(w[1] * Jw[2] - w[2] * Jw[1]) - Ja[0];
    vQ[4] += -(w[2] * Jw[0] - w[0] * Jw[2]) - Ja[1];
    vQ[5] += -(w[0] * Jw[1] - w[1] * Jw[0]) - Ja[2];
    if (!with_jac) return;
    vQ[6] += -(w[1] * Jw[2] - w[2] * Jw[1]) - Ja[0];
    vQ[7] += -(w[2] * Jw[0] - w[0] * Jw[2]) - Ja[1];
    vQ[8] += -(w[0] * Jw[1] - w[1] * Jw[0]) - Ja[2];
    /* dT/dpi = omega~[(J_g omega)~ - J_g omega~] + (J_g alpha)~ - J_g alpha~;
     * dT/domega = -omega~ J_g + (J_g omega)~; dT/dalpha = -J_g
     * (h = J_g omega, X = h~ - J_g omega~ row by row; the alpha terms vanish for Euler parameters) */
    w0 = w[0];
    w1 = w[1];
    w2 = w[2];
    h0 = Jw[0];
    h1 = Jw[1];
    h2 = Jw[2];
    K = d->vK + 36 * b;
    C = d->vC + 36 * b;
    X = d->S + 9 * 7;
    for (a = 0; a < 3; a++) {
        const double j0 = Jg[3 * a], j1 = Jg[3 * a + 1], j2 = Jg[3 * a + 2];
        X[3 * a] = j2 * w1 - j1 * w2; /* -(J_g omega~)[a, :] */
        X[3 * a + 1] = j0 * w2 - j2 * w0;
        X[3 * a + 2] = j1 * w0 - j0 * w1;
    }
    add_skew(X, 3, 0, 0, h0, h1, h2);
    for (c = 0; c < 3; c++) { /* column c: K += omega~ X[:, c], C += -omega~ J_g[:, c] + h~[:, c] */
        const double x0 = X[c], x1 = X[3 + c], x2 = X[6 + c];
        const double g0 = Jg[c], g1 = Jg[3 + c], g2 = Jg[6 + c];
        K[6 * 3 + 3 + c] += w1 * x2 - w2 * x1;
        K[6 * 4 + 3 + c] += w2 * x0 - w0 * x2;
        K[6 * 5 + 3 + c] += w0 * x1 - w1 * x0;
        C[6 * 3 + 3 + c] -= w1 * g2 - w2 * g1;
        C[6 * 4 + 3 + c] -= w2 * g0 - w0 * g2;
        C[6 * 5 + 3 + c] -= w0 * g1 - w1 * g0;
    }
    add_skew(C, 6, 3, 3, h0, h1, h2);
    if (rtype != RTMBS_ROT_EP) { /* + (J_g alpha)~ - J_g alpha~ */
        const double a0 = al[0], a1 = al[1], a2 = al[2];
        const double* dap = d->kin_dadp + 12 * b;
        const double* dapd = d->kin_dadpd + 12 * b;
        double* vP = d->vP + 24 * b;
        int col;
        for (a = 0; a < 3; a++) {
            const double j0 = Jg[3 * a], j1 = Jg[3 * a + 1], j2 = Jg[3 * a + 2];
            K[6 * (3 + a) + 3] -= j1 * a2 - j2 * a1;
            K[6 * (3 + a) + 4] -= j2 * a0 - j0 * a2;
            K[6 * (3 + a) + 5] -= j0 * a1 - j1 * a0;
        }
        add_skew(K, 6, 3, 3, Ja[0], Ja[1], Ja[2]);
        for (a = 0; a < 3; a++)
            for (col = 0; col < nr; col++) {
                double s = 0.0, sv = 0.0;
                for (c = 0; c < 3; c++) {
                    s -= Jg[3 * a + c] * dap[4 * c + col];
                    sv -= Jg[3 * a + c] * dapd[4 * c + col];
                }
                vP[4 * a + col] = s;
                vP[12 + 4 * a + col] = sv;
            }
    }
}
