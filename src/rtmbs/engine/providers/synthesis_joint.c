/* synthesis_joint.c -- subsystem synthesis, formulation B (Kim and Wang, eqs. 23-37): see
 * synthesis_joint.h. Every stage walks the tree of one subsystem at a time; the scratch is the
 * caller's (no allocation). */
#include "synthesis_joint.h"

#include <math.h>

#include "../dense_lu.h"

/* a cursor over a vector: the next `len` values */
#define TAKE(dst, base, off, len) ((dst) = (base) + (off), (off) += (len))

/* Bryant angles a (about x, then y, then z) and their rates ad: R = Rx Ry Rz, the columns of H
 * (omega = H ad, in the parent's axes: x, Rx y, Rx Ry z) and hd = Hdot ad =
 * ad1 (w1 x H_1) + ad2 (w2 x H_2) with w1 = ad0 H_0, w2 = w1 + ad1 H_1. */
static void bryant(const double* a, const double* ad, double* R, double* H, double* hd) {
    const double ca = cos(a[0]), sa = sin(a[0]), cb = cos(a[1]), sb = sin(a[1]);
    const double cc = cos(a[2]), sc = sin(a[2]);
    const double Rx[9] = {1.0, 0.0, 0.0, 0.0, ca, -sa, 0.0, sa, ca};
    const double Ry[9] = {cb, 0.0, sb, 0.0, 1.0, 0.0, -sb, 0.0, cb};
    const double Rz[9] = {cc, -sc, 0.0, sc, cc, 0.0, 0.0, 0.0, 1.0};
    double RxRy[9], w1[3], w2[3], c1[3], c2[3], t1[3], t2[3];
    int i;
    rtmbs_syn_mm3(Rx, Ry, RxRy);
    rtmbs_syn_mm3(RxRy, Rz, R);
    for (i = 0; i < 3; i++) {
        H[3 * i] = i == 0 ? 1.0 : 0.0;
        H[3 * i + 1] = Rx[3 * i + 1];
        H[3 * i + 2] = RxRy[3 * i + 2];
    }
    for (i = 0; i < 3; i++) {
        w1[i] = ad[0] * H[3 * i];
        w2[i] = w1[i] + ad[1] * H[3 * i + 1];
        c1[i] = H[3 * i + 1];
        c2[i] = H[3 * i + 2];
    }
    rtmbs_syn_cross(w1, c1, t1);
    rtmbs_syn_cross(w2, c2, t2);
    for (i = 0; i < 3; i++) hd[i] = ad[1] * t1[i] + ad[2] * t2[i];
}

/* every index of the tree, the cuts and the elements in range; the cut rows add up to ncut */
static rtmbs_status check_indices(const rtmbs_synj* sj) {
    const int64_t nb = sj->nb, nq = sj->nq;
    int64_t s, e, c, rows, nc;
    for (s = 0; s < sj->ns; s++) {
        for (e = 0; e < sj->ne; e++) {
            const int64_t i = s * sj->ne + e;
            nc = sj->ekind[i] == 0 ? 1 : 3;
            if (sj->ekind[i] < 0 || sj->ekind[i] > 1 || sj->epar[i] < 0 || sj->epar[i] > nb
                || sj->ech[i] < 0 || sj->ech[i] >= nb || sj->ek[i] < 0 || sj->ek[i] + nc > nq
                || sj->edge_of[s * (nb + 1) + sj->ech[i]] != e)
                return RTMBS_ERR_ARGUMENT;
        }
        rows = 0;
        for (c = 0; c < sj->nc; c++) {
            const int64_t i = s * sj->nc + c;
            if (sj->ckind[i] < 0 || sj->ckind[i] > 2 || sj->cbi[i] < 0 || sj->cbi[i] > nb
                || sj->cbj[i] < 0 || sj->cbj[i] > nb)
                return RTMBS_ERR_ARGUMENT;
            rows += sj->ckind[i] == 0 ? 3 : sj->ckind[i] == 1 ? 5 : 1;
        }
        if (rows != sj->ncut) return RTMBS_ERR_ARGUMENT;
        for (c = 0; c < sj->nu; c++)
            if (sj->u[s * sj->nu + c] < 0 || sj->u[s * sj->nu + c] >= nq) return RTMBS_ERR_ARGUMENT;
        if (rtmbs_syn_forces_check(sj->fkind + s * sj->nf, sj->fbi + s * sj->nf,
                                   sj->fbj + s * sj->nf, sj->fadr + s * sj->nf,
                                   sj->flen + s * sj->nf, sj->nf, nb, sj->nops) != RTMBS_OK)
            return RTMBS_ERR_ARGUMENT;
    }
    return RTMBS_OK;
}

rtmbs_status rtmbs_synj_bind(rtmbs_synj* sj, const int64_t* ints, int64_t nints,
                             const double* par, int64_t npar) {
    int64_t o = 12, f = 0, ns, ne, nc, nu, nf, nb;
    if (nints < 12) return RTMBS_ERR_SIZE;
    sj->ns = ns = ints[0];
    sj->ne = ne = ints[1];
    sj->nc = nc = ints[2];
    sj->nu = nu = ints[3];
    sj->nf = nf = ints[4];
    sj->nops = ints[5];
    sj->nb = nb = ints[6];
    sj->nq = ints[7];
    sj->ncut = ints[8];
    sj->v = ints[9];
    sj->nbase = ints[10];
    sj->free_base = ints[11];
    if (ns < 1 || ne < 1 || nb < 1 || nc < 0 || nf < 1 || sj->nops < 1 || nu != sj->nq - 1
        || sj->ncut != nu || sj->v < 0 || sj->v >= sj->nq || sj->nbase < 1 || sj->nbase > 6
        || (sj->free_base && sj->nbase != 6))
        return RTMBS_ERR_ARGUMENT;
    sj->n = sj->nbase + ns;
    TAKE(sj->ekind, ints, o, ns * ne);
    TAKE(sj->epar, ints, o, ns * ne);
    TAKE(sj->ech, ints, o, ns * ne);
    TAKE(sj->ek, ints, o, ns * ne);
    TAKE(sj->edge_of, ints, o, ns * (nb + 1));
    TAKE(sj->ckind, ints, o, ns * nc);
    TAKE(sj->cbi, ints, o, ns * nc);
    TAKE(sj->cbj, ints, o, ns * nc);
    TAKE(sj->u, ints, o, ns * nu);
    TAKE(sj->fkind, ints, o, ns * nf);
    TAKE(sj->fbi, ints, o, ns * nf);
    TAKE(sj->fbj, ints, o, ns * nf);
    TAKE(sj->fadr, ints, o, ns * nf);
    TAKE(sj->flen, ints, o, ns * nf);
    if (nints < o) return RTMBS_ERR_SIZE;
    if (check_indices(sj) != RTMBS_OK) return RTMBS_ERR_ARGUMENT;
    TAKE(sj->esp, par, f, ns * ne * 3);
    TAKE(sj->esc, par, f, ns * ne * 3);
    TAKE(sj->eax, par, f, ns * ne * 3);
    TAKE(sj->eApc, par, f, ns * ne * 9);
    TAKE(sj->csi, par, f, ns * nc * 3);
    TAKE(sj->csj, par, f, ns * nc * 3);
    TAKE(sj->cz, par, f, ns * nc * 3);
    TAKE(sj->cx, par, f, ns * nc * 3);
    TAKE(sj->cy, par, f, ns * nc * 3);
    TAKE(sj->cL, par, f, ns * nc);
    TAKE(sj->mass, par, f, ns * nb);
    TAKE(sj->Jb, par, f, ns * nb * 9);
    return rtmbs_syn_take_tail(par, npar, f, ns * nf, sj->nops, sj->nbase, &sj->tail);
}

int64_t rtmbs_synj_scratch(const rtmbs_synj* sj) {
    const int64_t nb1 = sj->nb + 1, nq = sj->nq, nu = sj->nu, nc = sj->ncut;
    return nb1 * (9 + 3 + 3 + 3 + 6 * nq + 6 + 36 + 6) + nc * (1 + nq + 1) + 6 * nq + nc * nu
           + 2 * nu + 2 * nq + 6 * sj->nb + 6 * nq + nq * nq + nq + sj->ns * 8;
}

int64_t rtmbs_synj_iscratch(const rtmbs_synj* sj) {
    return sj->nu + 6;
}

/* one subsystem's tree: its views and scratch */
typedef struct tree_ {
    int64_t nb, nq, ne, nc;
    const int64_t *ekind, *epar, *ech, *ek, *edge_of, *ckind, *cbi, *cbj, *u;
    const double *esp, *esc, *eax, *eApc, *csi, *csj, *cz, *cx, *cy, *cL, *mass, *Jb;
    double *A, *r, *rd, *w, *Bb, *Db;       /* body kinematics (eqs. 23-26), index nb the base */
    double *phi, *Pq, *g, *J;               /* cut equations, Phi_q, gamma; J: 6 x nq */
} tree;

/* Eqs. 23-26 along the tree (parents before children), base orientation A0, angular
 * velocity w0 (a frame translating with the base's CG) */
static void kinematics(tree* T, const double* q, const double* qd, const double* A0,
                       const double* w0) {
    const int64_t nb = T->nb, nq = T->nq;
    double U[9], UU[9], R[9], ApR[9], H[9], Hp[9], Pm[9];
    double sg[3], ps[3], Om[3], pd[3], tmp[3], tmp2[3], Hdq[3], hl[3];
    double sq, cq;
    int64_t e, p, c, k, nc, j;
    int i, a;
    for (i = 0; i < 9; i++) T->A[9 * nb + i] = A0[i];
    for (i = 0; i < 3; i++) {
        T->r[3 * nb + i] = 0.0;
        T->rd[3 * nb + i] = 0.0;
        T->w[3 * nb + i] = w0[i];
    }
    for (j = 0; j < 6 * nq; j++) T->Bb[6 * nq * nb + j] = 0.0;
    for (i = 0; i < 6; i++) T->Db[6 * nb + i] = 0.0;
    for (e = 0; e < T->ne; e++) {
        const double* Ap;
        p = T->epar[e];
        c = T->ech[e];
        k = T->ek[e];
        Ap = T->A + 9 * p;
        for (i = 0; i < 3; i++) Hdq[i] = 0.0;
        if (T->ekind[e] == 0) {
            rtmbs_syn_skew(T->eax + 3 * e, U);
            rtmbs_syn_mm3(U, U, UU);
            sq = sin(q[k]);
            cq = cos(q[k]);
            for (i = 0; i < 9; i++) R[i] = (i % 4 == 0 ? 1.0 : 0.0) + sq * U[i] + (1.0 - cq) * UU[i];
            rtmbs_syn_mv3(Ap, T->eax + 3 * e, hl);
            for (i = 0; i < 3; i++) H[3 * i] = hl[i];     /* H: 3 x nc, stored with stride 3 */
            nc = 1;
        } else {
            bryant(q + k, qd + k, R, Hp, tmp);
            rtmbs_syn_mm3(Ap, Hp, H);
            nc = 3;
            rtmbs_syn_mv3(Ap, tmp, Hdq);
        }
        rtmbs_syn_mm3(Ap, R, ApR);
        rtmbs_syn_mm3(ApR, T->eApc + 9 * e, T->A + 9 * c);
        rtmbs_syn_mv3(Ap, T->esp + 3 * e, sg);
        for (i = 0; i < 3; i++) ps[i] = T->r[3 * p + i] + sg[i];
        rtmbs_syn_mv3(T->A + 9 * c, T->esc + 3 * e, tmp);
        for (i = 0; i < 3; i++) T->r[3 * c + i] = ps[i] - tmp[i];
        for (i = 0; i < 3; i++) {
            Om[i] = 0.0;
            for (a = 0; a < nc; a++) Om[i] += H[3 * i + a] * qd[k + a];
        }
        for (i = 0; i < 3; i++) T->w[3 * c + i] = T->w[3 * p + i] + Om[i];
        rtmbs_syn_cross(T->w + 3 * p, sg, tmp);
        for (i = 0; i < 3; i++) pd[i] = T->rd[3 * p + i] + tmp[i];
        for (i = 0; i < 3; i++) tmp2[i] = T->r[3 * c + i] - ps[i];
        rtmbs_syn_cross(T->w + 3 * c, tmp2, tmp);
        for (i = 0; i < 3; i++) T->rd[3 * c + i] = pd[i] + tmp[i];
        rtmbs_syn_cross(T->w + 3 * p, Om, tmp);
        for (i = 0; i < 3; i++) Hdq[i] += tmp[i];
        for (j = 0; j < 6 * nq; j++) T->Bb[6 * nq * c + j] = T->Bb[6 * nq * p + j];
        rtmbs_syn_skew(ps, Pm);
        for (a = 0; a < nc; a++)
            for (i = 0; i < 3; i++) {
                T->Bb[6 * nq * c + nq * i + k + a] = Pm[3 * i] * H[a] + Pm[3 * i + 1] * H[3 + a]
                                                     + Pm[3 * i + 2] * H[6 + a];
                T->Bb[6 * nq * c + nq * (3 + i) + k + a] = H[3 * i + a];
            }
        rtmbs_syn_cross(pd, Om, tmp);
        rtmbs_syn_mv3(Pm, Hdq, tmp2);
        for (i = 0; i < 3; i++) {
            T->Db[6 * c + i] = T->Db[6 * p + i] + tmp[i] + tmp2[i];
            T->Db[6 * c + 3 + i] = T->Db[6 * p + 3 + i] + Hdq[i];
        }
    }
}

/* a body point: position p, velocity v, Jacobian J (3 x nq, into J + off) and the acceleration
 * term c (eq. 26's point form) */
static void body_point(const tree* T, int64_t k, const double* s, double* p, double* v,
                       double* J, double* c) {
    const int64_t nq = T->nq;
    const double* B = T->Bb + 6 * nq * k;
    const double* D = T->Db + 6 * k;
    double sg[3], tmp[3], P[9];
    int64_t j;
    int i;
    rtmbs_syn_mv3(T->A + 9 * k, s, sg);
    for (i = 0; i < 3; i++) p[i] = T->r[3 * k + i] + sg[i];
    rtmbs_syn_cross(T->w + 3 * k, sg, tmp);
    for (i = 0; i < 3; i++) v[i] = T->rd[3 * k + i] + tmp[i];
    rtmbs_syn_skew(p, P);
    for (i = 0; i < 3; i++)
        for (j = 0; j < nq; j++)
            J[nq * i + j] = B[nq * i + j] - (P[3 * i] * B[nq * 3 + j] + P[3 * i + 1] * B[nq * 4 + j]
                                             + P[3 * i + 2] * B[nq * 5 + j]);
    rtmbs_syn_cross(T->w + 3 * k, v, tmp);
    for (i = 0; i < 3; i++)
        c[i] = D[i] - (P[3 * i] * D[3] + P[3 * i + 1] * D[4] + P[3 * i + 2] * D[5]) + tmp[i];
}

/* the cut equations Phi, Phi_q and gamma (spherical, revolute, distance) */
static void cuts(tree* T) {
    const int64_t nq = T->nq;
    double pi[3], vi[3], ci[3], pj[3], vj[3], cj[3], d[3], a[3], b[3], ab[3], ad[3], bd[3];
    double t1[3], t2[3], dd[3];
    double *Ji = T->J, *Jj = T->J + 3 * nq;
    int64_t c, i = 0, j, bi, bj;
    int x, mm;
    for (c = 0; c < T->nc; c++) {
        bi = T->cbi[c];
        bj = T->cbj[c];
        body_point(T, bi, T->csi + 3 * c, pi, vi, Ji, ci);
        body_point(T, bj, T->csj + 3 * c, pj, vj, Jj, cj);
        for (x = 0; x < 3; x++) d[x] = pj[x] - pi[x];
        if (T->ckind[c] <= 1) {
            for (x = 0; x < 3; x++) {
                T->phi[i + x] = d[x];
                for (j = 0; j < nq; j++) T->Pq[nq * (i + x) + j] = Jj[nq * x + j] - Ji[nq * x + j];
                T->g[i + x] = ci[x] - cj[x];
            }
            i += 3;
        }
        if (T->ckind[c] == 1) {
            const double *Bi = T->Bb + 6 * nq * bi, *Bj = T->Bb + 6 * nq * bj;
            for (mm = 0; mm < 2; mm++) {
                rtmbs_syn_mv3(T->A + 9 * bi, T->cz + 3 * c, a);
                rtmbs_syn_mv3(T->A + 9 * bj, mm == 0 ? T->cx + 3 * c : T->cy + 3 * c, b);
                rtmbs_syn_cross(a, b, ab);
                T->phi[i] = rtmbs_syn_dot3(a, b);
                for (j = 0; j < nq; j++)
                    T->Pq[nq * i + j] = (ab[0] * Bi[nq * 3 + j] + ab[1] * Bi[nq * 4 + j]
                                         + ab[2] * Bi[nq * 5 + j])
                                        - (ab[0] * Bj[nq * 3 + j] + ab[1] * Bj[nq * 4 + j]
                                           + ab[2] * Bj[nq * 5 + j]);
                rtmbs_syn_cross(T->w + 3 * bi, a, ad);
                rtmbs_syn_cross(T->w + 3 * bj, b, bd);
                rtmbs_syn_cross(T->w + 3 * bi, ad, t1);
                rtmbs_syn_cross(T->w + 3 * bj, bd, t2);
                T->g[i] = rtmbs_syn_dot3(b, t1) + rtmbs_syn_dot3(a, t2) + 2.0 * rtmbs_syn_dot3(ad, bd);
                rtmbs_syn_cross(T->Db + 6 * bi + 3, a, t1);
                rtmbs_syn_cross(T->Db + 6 * bj + 3, b, t2);
                T->g[i] = -(T->g[i] + rtmbs_syn_dot3(b, t1) + rtmbs_syn_dot3(a, t2));
                i++;
            }
        }
        if (T->ckind[c] == 2) {
            T->phi[i] = 0.5 * (rtmbs_syn_dot3(d, d) - T->cL[c] * T->cL[c]);
            for (j = 0; j < nq; j++) {
                T->Pq[nq * i + j] = 0.0;
                for (x = 0; x < 3; x++) T->Pq[nq * i + j] += d[x] * (Jj[nq * x + j] - Ji[nq * x + j]);
            }
            for (x = 0; x < 3; x++) {
                dd[x] = vj[x] - vi[x];
                t1[x] = cj[x] - ci[x];
            }
            T->g[i] = -(rtmbs_syn_dot3(dd, dd) + rtmbs_syn_dot3(d, t1));
            i++;
        }
    }
}

/* carve n values off the scratch */
static double* carve(double** cur, int64_t n) {
    double* p = *cur;
    *cur += n;
    return p;
}

/* All stages of subsystem s (eqs. 23-37): position (Newton on the cut equations), velocity,
 * RHS, forces, mass/force (composite recursion, eq. 29), effective mass and force (eqs. 33-37).
 * Out: M_yy (36), Q_y (6), M* (1), Q*_q (1), g_E (6), M_check (36), P_check (6), Q0 (6). */
static rtmbs_status subsystem(const rtmbs_synj* sj, int64_t s, double t, const double* q,
                              const double* qd, double* qt, int64_t iters, double* scr,
                              int64_t* piv, const double* Ab, const double* w0, double* Myy,
                              double* Qy, double* Ms, double* Qq, double* gEh, double* Mc,
                              double* Pc, double* Q0) {
    const int64_t nb = sj->nb, nq = sj->nq, nu = sj->nu, ncut = sj->ncut, ne = sj->ne, v = sj->v;
    const int64_t nb1 = nb + 1;
    const double zero3[3] = {0.0, 0.0, 0.0};
    tree T;
    double *Pu, *Rv, *cvec, *qdt, *zero, *gf, *K, *Fc, *Myq, *Mqq, *Pq2, *cur = scr;
    double rg[3], Rs[9], RsRs[9], Jg[9], AJ[9], f[3], nn[3], tmp[3], tmp2[3], Qh[6], B[18], KB[18];
    double blk[9], Muv_Rv, RMR, Muv_c, R_Pu, RMc, acc, m;
    int64_t e, p, c, k, nc, a, ea, ka, na, i, j, l, it;
    rtmbs_status st;
    T.nb = nb; T.nq = nq; T.ne = ne; T.nc = sj->nc;
    T.ekind = sj->ekind + s * ne; T.epar = sj->epar + s * ne; T.ech = sj->ech + s * ne;
    T.ek = sj->ek + s * ne; T.edge_of = sj->edge_of + s * nb1;
    T.ckind = sj->ckind + s * sj->nc; T.cbi = sj->cbi + s * sj->nc; T.cbj = sj->cbj + s * sj->nc;
    T.u = sj->u + s * nu;
    T.esp = sj->esp + s * ne * 3; T.esc = sj->esc + s * ne * 3; T.eax = sj->eax + s * ne * 3;
    T.eApc = sj->eApc + s * ne * 9;
    T.csi = sj->csi + s * sj->nc * 3; T.csj = sj->csj + s * sj->nc * 3;
    T.cz = sj->cz + s * sj->nc * 3; T.cx = sj->cx + s * sj->nc * 3; T.cy = sj->cy + s * sj->nc * 3;
    T.cL = sj->cL + s * sj->nc; T.mass = sj->mass + s * nb; T.Jb = sj->Jb + s * nb * 9;
    T.A = carve(&cur, nb1 * 9); T.r = carve(&cur, nb1 * 3); T.rd = carve(&cur, nb1 * 3);
    T.w = carve(&cur, nb1 * 3); T.Bb = carve(&cur, nb1 * 6 * nq); T.Db = carve(&cur, nb1 * 6);
    T.phi = carve(&cur, ncut); T.Pq = carve(&cur, ncut * nq); T.g = carve(&cur, ncut);
    T.J = carve(&cur, 6 * nq);
    Pu = carve(&cur, ncut * nu); Rv = carve(&cur, nu); cvec = carve(&cur, nu);
    qdt = carve(&cur, nq); zero = carve(&cur, nq); gf = carve(&cur, 6 * nb);
    K = carve(&cur, nb1 * 36); Fc = carve(&cur, nb1 * 6); Myq = carve(&cur, 6 * nq);
    Mqq = carve(&cur, nq * nq); Pq2 = carve(&cur, nq);
    for (j = 0; j < nq; j++) zero[j] = 0.0;
    qt[v] = q[sj->nbase + s];
    /* position: Newton on Phi(u, v) = 0 */
    for (it = 0; it < iters; it++) {
        kinematics(&T, qt, zero, Ab, zero3);
        cuts(&T);
        for (i = 0; i < ncut; i++) {
            for (j = 0; j < nu; j++) Pu[nu * i + j] = T.Pq[nq * i + T.u[j]];
            Rv[i] = -T.phi[i];
        }
        if ((st = rtmbs_syn_solve(Pu, piv, Rv, nu)) != RTMBS_OK) return st;
        for (j = 0; j < nu; j++) qt[T.u[j]] += Rv[j];
    }
    /* velocity: R = Phi_u^-1 Phi_v (one LU for the velocity and RHS stages) */
    kinematics(&T, qt, zero, Ab, zero3);
    cuts(&T);
    for (i = 0; i < ncut; i++) {
        for (j = 0; j < nu; j++) Pu[nu * i + j] = T.Pq[nq * i + T.u[j]];
        Rv[i] = T.Pq[nq * i + v];
    }
    if ((st = rtmbs_syn_solve(Pu, piv, Rv, nu)) != RTMBS_OK) return st;
    /* RHS */
    for (j = 0; j < nq; j++) qdt[j] = 0.0;
    qdt[v] = qd[sj->nbase + s];
    for (j = 0; j < nu; j++) qdt[T.u[j]] = -Rv[j] * qdt[v];
    kinematics(&T, qt, qdt, Ab, w0);
    cuts(&T);
    for (i = 0; i < ncut; i++) cvec[i] = T.g[i];
    rtmbs_dense_lu_solve(Pu, piv, cvec, nu);
    /* forces */
    {
        rtmbs_syn_forces fe;
        fe.nf = sj->nf;
        fe.kind = sj->fkind + s * sj->nf; fe.bi = sj->fbi + s * sj->nf; fe.bj = sj->fbj + s * sj->nf;
        fe.adr = sj->fadr + s * sj->nf; fe.len = sj->flen + s * sj->nf;
        fe.si = sj->tail.fsi + s * sj->nf * 3; fe.sj = sj->tail.fsj + s * sj->nf * 3;
        fe.dir = sj->tail.fdir + s * sj->nf * 3; fe.par = sj->tail.fpar + s * sj->nf * 5;
        fe.ops = sj->tail.fops; fe.args = sj->tail.fargs;
        rtmbs_syn_forces_gf(&fe, t, q, qd, nb, sj->nbase, T.r, T.A, T.rd, T.w, T.mass, 0.0,
                            sj->tail.r0i, sj->tail.S, Ab, sj->tail.grav, w0, gf, Q0);
    }
    /* mass/force: body terms and the composite recursion (eq. 29) */
    for (j = 0; j < nb1 * 36; j++) K[j] = 0.0;
    for (j = 0; j < nb1 * 6; j++) Fc[j] = 0.0;
    for (k = 0; k < nb; k++) {
        double* Kk = K + 36 * k;
        rtmbs_syn_mm3(T.A + 9 * k, T.Jb + 9 * k, AJ);
        rtmbs_syn_mmt3(AJ, T.A + 9 * k, Jg);
        for (i = 0; i < 3; i++) rg[i] = T.r[3 * k + i];
        rtmbs_syn_skew(rg, Rs);
        rtmbs_syn_mm3(Rs, Rs, RsRs);
        m = T.mass[k];
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) {
                Kk[6 * i + j] = i == j ? m : 0.0;
                Kk[6 * i + 3 + j] = -m * Rs[3 * i + j];
                Kk[6 * (3 + i) + j] = m * Rs[3 * i + j];
                Kk[6 * (3 + i) + 3 + j] = Jg[3 * i + j] - m * RsRs[3 * i + j];
            }
        rtmbs_syn_cross(T.rd + 3 * k, T.w + 3 * k, tmp);
        for (i = 0; i < 3; i++) f[i] = gf[6 * k + i] + m * tmp[i];
        rtmbs_syn_mv3(Jg, T.w + 3 * k, tmp);
        rtmbs_syn_cross(T.w + 3 * k, tmp, tmp2);
        for (i = 0; i < 3; i++) nn[i] = gf[6 * k + 3 + i] - tmp2[i];
        rtmbs_syn_mv3(Rs, f, tmp);
        for (i = 0; i < 3; i++) {
            Qh[i] = f[i];
            Qh[3 + i] = tmp[i] + nn[i];
        }
        for (i = 0; i < 6; i++) {
            acc = 0.0;
            for (j = 0; j < 6; j++) acc += Kk[6 * i + j] * T.Db[6 * k + j];
            Fc[6 * k + i] = Qh[i] - acc;
        }
    }
    for (e = ne - 1; e >= 0; e--) {
        c = T.ech[e];
        p = T.epar[e];
        if (p != nb) {
            for (j = 0; j < 36; j++) K[36 * p + j] += K[36 * c + j];
            for (j = 0; j < 6; j++) Fc[6 * p + j] += Fc[6 * c + j];
        }
    }
    for (j = 0; j < 36; j++) Myy[j] = 0.0;
    for (j = 0; j < 6; j++) gEh[j] = 0.0;             /* P_y until the effective stage */
    for (j = 0; j < 6 * nq; j++) Myq[j] = 0.0;
    for (j = 0; j < nq * nq; j++) Mqq[j] = 0.0;
    for (j = 0; j < nq; j++) Pq2[j] = 0.0;
    for (e = 0; e < ne; e++) {
        p = T.epar[e];
        c = T.ech[e];
        k = T.ek[e];
        nc = T.ekind[e] == 0 ? 1 : 3;
        for (i = 0; i < 6; i++)
            for (a = 0; a < nc; a++) B[3 * i + a] = T.Bb[6 * nq * c + nq * i + k + a];
        if (p == nb) {
            for (j = 0; j < 36; j++) Myy[j] += K[36 * c + j];
            for (j = 0; j < 6; j++) gEh[j] += Fc[6 * c + j];
        }
        for (i = 0; i < 6; i++)
            for (a = 0; a < nc; a++) {
                acc = 0.0;
                for (l = 0; l < 6; l++) acc += K[36 * c + 6 * i + l] * B[3 * l + a];
                KB[3 * i + a] = acc;
                Myq[nq * i + k + a] = acc;
            }
        for (a = 0; a < nc; a++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += B[3 * l + a] * Fc[6 * c + l];
            Pq2[k + a] = acc;
        }
        a = c;
        while (a != nb) {
            int64_t x, y;
            ea = T.edge_of[a];
            ka = T.ek[ea];
            na = T.ekind[ea] == 0 ? 1 : 3;
            for (x = 0; x < na; x++)
                for (y = 0; y < nc; y++) {
                    acc = 0.0;
                    for (l = 0; l < 6; l++) acc += T.Bb[6 * nq * a + nq * l + ka + x] * KB[3 * l + y];
                    blk[3 * x + y] = acc;
                }
            for (x = 0; x < na; x++)
                for (y = 0; y < nc; y++) {
                    Mqq[nq * (ka + x) + k + y] = blk[3 * x + y];
                    Mqq[nq * (k + y) + ka + x] = blk[3 * x + y];
                }
            a = T.epar[ea];
        }
    }
    /* effective mass and force (eqs. 33-37), v = theta */
    Muv_Rv = 0.0; RMR = 0.0; Muv_c = 0.0; R_Pu = 0.0; RMc = 0.0;
    for (i = 0; i < nu; i++) {
        double MR = 0.0, Mcv = 0.0;
        for (j = 0; j < nu; j++) {
            MR += Mqq[nq * T.u[i] + T.u[j]] * Rv[j];
            Mcv += Mqq[nq * T.u[i] + T.u[j]] * cvec[j];
        }
        Muv_Rv += Mqq[nq * T.u[i] + v] * Rv[i];
        Muv_c += Mqq[nq * T.u[i] + v] * cvec[i];
        R_Pu += Rv[i] * Pq2[T.u[i]];
        RMR += Rv[i] * MR;
        RMc += Rv[i] * Mcv;
    }
    *Ms = Mqq[nq * v + v] - 2.0 * Muv_Rv + RMR;
    *Qq = Pq2[v] - Muv_c - R_Pu + RMc;
    for (i = 0; i < 6; i++) {
        double yR = 0.0, yc = 0.0;
        for (j = 0; j < nu; j++) {
            yR += Myq[nq * i + T.u[j]] * Rv[j];
            yc += Myq[nq * i + T.u[j]] * cvec[j];
        }
        Qy[i] = Myq[nq * i + v] - yR;
        gEh[i] = gEh[i] - yc;
    }
    for (i = 0; i < 6; i++) {
        for (j = 0; j < 6; j++) Mc[6 * i + j] = Myy[6 * i + j] - Qy[i] * Qy[j] / *Ms;
        Pc[i] = gEh[i] - Qy[i] * (*Qq / *Ms);
    }
    return RTMBS_OK;
}

/* The base motion: Y0 = T qd_base, Y0dot = T qdd_base + Td; locked orientation: T = S, Td = 0;
 * free base: translation and Bryant x-y-z angles, T = diag(I, H) (Kim and Wang, eq. 25's H) */
static void base_motion(const rtmbs_synj* sj, const double* q, const double* qd, double* T,
                        double* Td, double* w0, double* Ab) {
    const int64_t nb0 = sj->nbase;
    double R[9], H[9];
    int64_t j;
    int i;
    for (j = 0; j < 6 * nb0; j++) T[j] = sj->tail.S[j];
    for (i = 0; i < 6; i++) Td[i] = 0.0;
    for (i = 0; i < 3; i++) w0[i] = 0.0;
    for (i = 0; i < 9; i++) Ab[i] = sj->tail.A0[i];
    if (!sj->free_base) return;
    bryant(q + 3, qd + 3, R, H, Td + 3);
    rtmbs_syn_mm3(R, sj->tail.A0, Ab);
    for (i = 0; i < 3; i++) {
        T[6 * (3 + i) + 3] = H[3 * i];
        T[6 * (3 + i) + 4] = H[3 * i + 1];
        T[6 * (3 + i) + 5] = H[3 * i + 2];
    }
    rtmbs_syn_mv3(H, qd + 3, w0);
}

/* the base body's 6 equations in its nb0 coordinates (Kim & Wang 2005, eq. 19 for the base):
 * A = Tᵀ Mb T (row stride lda) and b = Tᵀ (Pb − Mb Ṫq̇), with scratch MT (6 × nb0) */
static void base_projection(const double* Mb, const double* Pb, const double* T,
                            const double* Td, int64_t nb0, double* MT, double* A, int64_t lda,
                            double* b) {
    int64_t i, j, l, x;
    double acc, r;
    for (i = 0; i < 6; i++)
        for (j = 0; j < nb0; j++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += Mb[6 * i + l] * T[nb0 * l + j];
            MT[nb0 * i + j] = acc;
        }
    for (i = 0; i < nb0; i++) {
        for (j = 0; j < nb0; j++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += T[nb0 * l + i] * MT[nb0 * l + j];
            A[lda * i + j] = acc;
        }
        acc = 0.0;
        for (l = 0; l < 6; l++) {
            r = Pb[l];
            for (x = 0; x < 6; x++) r -= Mb[6 * l + x] * Td[x];
            acc += T[nb0 * l + i] * r;
        }
        b[i] = acc;
    }
}

rtmbs_status rtmbs_synj_evaluate(const rtmbs_synj* sj, double t, const double* q,
                                 const double* qd, double* qt, int64_t iters, double* scratch,
                                 int64_t* iscratch, double* M, double* Q, double* qdd) {
    const int64_t nb0 = sj->nbase, ns = sj->ns, n = sj->n;
    double T[36], Td[6], w0[3], Ab[9], AJ[9], Jg0[9], Mbase[36], Mhat[36], Qbase[6], Phat[6];
    double Myy[36], Qy[6], gEh[6], Mc[36], Pc[6], Q0[6], tmp[3], A2[36], b2[6], MT[36], Yd[6];
    double *Qys, *Mss, *Qqs, acc;
    int64_t s, i, j, l;
    rtmbs_status st;
    Qys = scratch + rtmbs_synj_scratch(sj) - 8 * ns;
    Mss = Qys + 6 * ns;
    Qqs = Mss + ns;
    base_motion(sj, q, qd, T, Td, w0, Ab);
    rtmbs_syn_mm3(Ab, sj->tail.J0, AJ);
    rtmbs_syn_mmt3(AJ, Ab, Jg0);
    for (i = 0; i < 36; i++) Mbase[i] = 0.0;
    for (i = 0; i < 3; i++) {
        Mbase[6 * i + i] = sj->tail.m0;
        for (j = 0; j < 3; j++) Mbase[6 * (3 + i) + 3 + j] = Jg0[3 * i + j];
    }
    for (i = 0; i < 36; i++) Mhat[i] = Mbase[i];
    rtmbs_syn_mv3(Jg0, w0, tmp);
    rtmbs_syn_cross(w0, tmp, Qbase + 3);
    for (i = 0; i < 3; i++) {
        Qbase[i] = sj->tail.m0 * sj->tail.grav[i];
        Qbase[3 + i] = -Qbase[3 + i];
    }
    for (i = 0; i < 6; i++) Phat[i] = Qbase[i];
    for (s = 0; s < ns; s++) {
        st = subsystem(sj, s, t, q, qd, qt + s * sj->nq, iters, scratch, iscratch, Ab, w0, Myy, Qy,
                       &Mss[s], &Qqs[s], gEh, Mc, Pc, Q0);
        if (st != RTMBS_OK) return st;
        for (i = 0; i < 36; i++) {
            Mbase[i] += Myy[i];
            Mhat[i] += Mc[i];
        }
        for (i = 0; i < 6; i++) {
            Qbase[i] += Q0[i] + gEh[i];
            Phat[i] += Q0[i] + Pc[i];
            Qys[6 * s + i] = Qy[i];
        }
    }
    /* the protocol's M, Q (eq. 19 per subsystem) */
    for (i = 0; i < n * n; i++) M[i] = 0.0;
    base_projection(Mbase, Qbase, T, Td, nb0, MT, M, n, Q);
    for (s = 0; s < ns; s++) {
        for (i = 0; i < nb0; i++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += T[nb0 * l + i] * Qys[6 * s + l];
            M[n * i + nb0 + s] = acc;
            M[n * (nb0 + s) + i] = acc;
        }
        M[n * (nb0 + s) + nb0 + s] = Mss[s];
        acc = 0.0;
        for (l = 0; l < 6; l++) acc += Qys[6 * s + l] * Td[l];
        Q[nb0 + s] = Qqs[s] - acc;
    }
    /* the synthesis accelerations: the base equation (eq. 1), then eq. 31 per subsystem */
    base_projection(Mhat, Phat, T, Td, nb0, MT, A2, nb0, b2);
    if ((st = rtmbs_syn_solve(A2, iscratch, b2, nb0)) != RTMBS_OK) return st;
    for (i = 0; i < nb0; i++) qdd[i] = b2[i];
    for (l = 0; l < 6; l++) {
        acc = Td[l];
        for (j = 0; j < nb0; j++) acc += T[nb0 * l + j] * b2[j];
        Yd[l] = acc;
    }
    for (s = 0; s < ns; s++) {
        acc = 0.0;
        for (l = 0; l < 6; l++) acc += Qys[6 * s + l] * Yd[l];
        qdd[nb0 + s] = (Qqs[s] - acc) / Mss[s];
    }
    return RTMBS_OK;
}

static rtmbs_status synj_eval(const rtmbs_syn_call* c, double t, const double* q,
                              const double* qd, double* M, double* Q, double* qdd) {
    return rtmbs_synj_evaluate((const rtmbs_synj*)c->model, t, q, qd, c->warm[0], c->iters,
                               c->scratch, c->iscratch, M, Q, qdd);
}

rtmbs_status rtmbs_synj_workspace(const rtmbs_synj* model, double t, const double* q, const double* qd,
                                  double* qt, int64_t iters, double eps, int what,
                                  double* scratch, int64_t* iscratch, double* work, double* ws) {
    const rtmbs_syn_call c = {model, {qt, NULL}, iters, scratch, iscratch};
    return rtmbs_syn_workspace(synj_eval, &c, model->n, t, q, qd, eps, what, work, ws);
}
