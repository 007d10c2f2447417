/* synthesis_cartesian.c -- subsystem synthesis, formulation A (Kim and Wang, eqs. 8-22): see
 * synthesis_cartesian.h. The scratch is the caller's (no allocation). */
#include "synthesis_cartesian.h"

#include <math.h>

#include "../dense_lu.h"

#define TAKE(dst, base, off, len) ((dst) = (base) + (off), (off) += (len))

rtmbs_status rtmbs_sync_bind(rtmbs_sync* sc, const int64_t* ints, int64_t nints,
                             const double* par, int64_t npar) {
    int64_t o = 6, f = 0, np_, nf, nb, c, rows = 1;
    if (nints < 6) return RTMBS_ERR_SIZE;
    sc->nb = nb = ints[0];
    sc->nbase = ints[1];
    sc->tb = ints[2];
    sc->np = np_ = ints[3];
    sc->nf = nf = ints[4];
    sc->nops = ints[5];
    if (nb < 1 || sc->nbase < 1 || sc->nbase > 6 || sc->tb < 0 || sc->tb >= nb || np_ < 0
        || nf < 1 || sc->nops < 1)
        return RTMBS_ERR_ARGUMENT;
    sc->n = sc->nbase + 1;
    TAKE(sc->pkind, ints, o, np_);
    TAKE(sc->pbi, ints, o, np_);
    TAKE(sc->pbj, ints, o, np_);
    TAKE(sc->fkind, ints, o, nf);
    TAKE(sc->fbi, ints, o, nf);
    TAKE(sc->fbj, ints, o, nf);
    TAKE(sc->fadr, ints, o, nf);
    TAKE(sc->flen, ints, o, nf);
    if (nints < o) return RTMBS_ERR_SIZE;
    for (c = 0; c < np_; c++) {
        if (sc->pkind[c] < 0 || sc->pkind[c] > 2 || sc->pbi[c] < 0 || sc->pbi[c] > nb
            || sc->pbj[c] < 0 || sc->pbj[c] > nb)
            return RTMBS_ERR_ARGUMENT;
        rows += sc->pkind[c] == 0 ? 3 : 1;
    }
    if (rows != 6 * nb) return RTMBS_ERR_ARGUMENT;
    if (rtmbs_syn_forces_check(sc->fkind, sc->fbi, sc->fbj, sc->fadr, sc->flen, nf, nb,
                               sc->nops) != RTMBS_OK)
        return RTMBS_ERR_ARGUMENT;
    TAKE(sc->psi, par, f, np_ * 3);
    TAKE(sc->psj, par, f, np_ * 3);
    TAKE(sc->pL, par, f, np_);
    TAKE(sc->e1, par, f, 3);
    TAKE(sc->ax, par, f, 3);
    TAKE(sc->xb, par, f, 3);
    TAKE(sc->mass, par, f, nb);
    TAKE(sc->Jb, par, f, nb * 9);
    return rtmbs_syn_take_tail(par, npar, f, nf, sc->nops, sc->nbase, &sc->tail);
}

int64_t rtmbs_sync_scratch(const rtmbs_sync* sc) {
    const int64_t z = 6 * sc->nb;
    return 2 * z * z + 8 * z + sc->nb * 30 + 36 * sc->nb;
}

int64_t rtmbs_sync_iscratch(const rtmbs_sync* sc) {
    return 6 * sc->nb + 6;
}

/* row vector v (3) times -(A skew(s)): the cross product s x (A^T v) */
static void v_dA(const double* v, const double* A, const double* s, double* out) {
    double u[3];
    rtmbs_syn_mtv3(A, v, u);
    rtmbs_syn_cross(s, u, out);
}

/* Psi, Psi_z, Psi_theta (eq. 14) and, with `with_gamma`, gamma-hat (eq. 16) at (r, A, theta),
 * body velocities y (6 nb) */
static void psi_terms(const rtmbs_sync* sc, const double* r, const double* A, double th,
                      const double* y, int with_gamma, double thd, double* psi, double* Pz,
                      double* Pt, double* g) {
    const int64_t nb = sc->nb, z = 6 * nb;
    double P[2][3], V[2][3], Qd[2][3], d[3], ws[3], tmp[3], AS[9], Sk[9], ag[3], bg[3];
    double adg[3], aqg[3], bdg[3], bqg[3], wa[3], e2[3], wv_[3], dw[3], b[3], om[3], xw[3];
    double cth, sth, sg;
    int64_t c, k, bi, bj, row = 0, i;
    int side, a, x;
    for (i = 0; i < z * z; i++) Pz[i] = 0.0;
    for (i = 0; i < z; i++) {
        psi[i] = 0.0;
        Pt[i] = 0.0;
        g[i] = 0.0;
    }
    for (c = 0; c < sc->np; c++) {
        bi = sc->pbi[c];
        bj = sc->pbj[c];
        if (sc->pkind[c] != 1) {
            for (side = 0; side < 2; side++) {
                const double* s = side == 0 ? sc->psi + 3 * c : sc->psj + 3 * c;
                k = side == 0 ? bi : bj;
                for (x = 0; x < 3; x++) {
                    P[side][x] = 0.0;
                    V[side][x] = 0.0;
                    Qd[side][x] = 0.0;
                }
                if (k == nb) {
                    for (x = 0; x < 3; x++) P[side][x] = s[x];
                } else {
                    const double* wv = y + 6 * k + 3;
                    rtmbs_syn_cross(wv, s, ws);
                    rtmbs_syn_mv3(A + 9 * k, s, tmp);
                    for (x = 0; x < 3; x++) P[side][x] = r[3 * k + x] + tmp[x];
                    rtmbs_syn_mv3(A + 9 * k, ws, tmp);
                    for (x = 0; x < 3; x++) V[side][x] = y[6 * k + x] + tmp[x];
                    rtmbs_syn_cross(wv, ws, tmp);
                    rtmbs_syn_mv3(A + 9 * k, tmp, Qd[side]);
                }
            }
            for (x = 0; x < 3; x++) d[x] = P[1][x] - P[0][x];
            if (sc->pkind[c] == 0) {
                for (x = 0; x < 3; x++) psi[row + x] = d[x];
                for (side = 0; side < 2; side++) {
                    const double* s = side == 0 ? sc->psi + 3 * c : sc->psj + 3 * c;
                    k = side == 0 ? bi : bj;
                    if (k == nb) continue;
                    sg = side == 0 ? -1.0 : 1.0;
                    rtmbs_syn_skew(s, Sk);
                    rtmbs_syn_mm3(A + 9 * k, Sk, AS);
                    for (a = 0; a < 3; a++) {
                        Pz[z * (row + a) + 6 * k + a] += sg;
                        for (x = 0; x < 3; x++) Pz[z * (row + a) + 6 * k + 3 + x] += sg * -AS[3 * a + x];
                    }
                }
                if (with_gamma)
                    for (x = 0; x < 3; x++) g[row + x] = Qd[0][x] - Qd[1][x];
                row += 3;
            } else {
                psi[row] = 0.5 * (rtmbs_syn_dot3(d, d) - sc->pL[c] * sc->pL[c]);
                for (side = 0; side < 2; side++) {
                    const double* s = side == 0 ? sc->psi + 3 * c : sc->psj + 3 * c;
                    double dd[3];
                    k = side == 0 ? bi : bj;
                    if (k == nb) continue;
                    for (x = 0; x < 3; x++) dd[x] = side == 0 ? -d[x] : d[x];
                    v_dA(dd, A + 9 * k, s, tmp);
                    for (x = 0; x < 3; x++) {
                        Pz[z * row + 6 * k + x] += dd[x];
                        Pz[z * row + 6 * k + 3 + x] += tmp[x];
                    }
                }
                if (with_gamma) {
                    double dv[3], dq[3];
                    for (x = 0; x < 3; x++) {
                        dv[x] = V[1][x] - V[0][x];
                        dq[x] = Qd[1][x] - Qd[0][x];
                    }
                    g[row] = -(rtmbs_syn_dot3(dv, dv) + rtmbs_syn_dot3(d, dq));
                }
                row += 1;
            }
        } else {
            const double *si = sc->psi + 3 * c, *sj = sc->psj + 3 * c;
            if (bi == nb)
                for (x = 0; x < 3; x++) ag[x] = si[x];
            else
                rtmbs_syn_mv3(A + 9 * bi, si, ag);
            if (bj == nb)
                for (x = 0; x < 3; x++) bg[x] = sj[x];
            else
                rtmbs_syn_mv3(A + 9 * bj, sj, bg);
            psi[row] = rtmbs_syn_dot3(ag, bg);
            if (bi != nb) {
                v_dA(bg, A + 9 * bi, si, tmp);
                for (x = 0; x < 3; x++) Pz[z * row + 6 * bi + 3 + x] += tmp[x];
            }
            if (bj != nb) {
                v_dA(ag, A + 9 * bj, sj, tmp);
                for (x = 0; x < 3; x++) Pz[z * row + 6 * bj + 3 + x] += tmp[x];
            }
            if (with_gamma) {
                for (x = 0; x < 3; x++) {
                    adg[x] = 0.0; aqg[x] = 0.0; bdg[x] = 0.0; bqg[x] = 0.0;
                }
                if (bi != nb) {
                    rtmbs_syn_cross(y + 6 * bi + 3, si, wa);
                    rtmbs_syn_mv3(A + 9 * bi, wa, adg);
                    rtmbs_syn_cross(y + 6 * bi + 3, wa, tmp);
                    rtmbs_syn_mv3(A + 9 * bi, tmp, aqg);
                }
                if (bj != nb) {
                    rtmbs_syn_cross(y + 6 * bj + 3, sj, wa);
                    rtmbs_syn_mv3(A + 9 * bj, wa, bdg);
                    rtmbs_syn_cross(y + 6 * bj + 3, wa, tmp);
                    rtmbs_syn_mv3(A + 9 * bj, tmp, bqg);
                }
                g[row] = -(rtmbs_syn_dot3(bg, aqg) + rtmbs_syn_dot3(ag, bqg)
                           + 2.0 * rtmbs_syn_dot3(adg, bdg));
            }
            row += 1;
        }
    }
    /* the introduced coordinate theta (eq. 13's driving constraint) */
    rtmbs_syn_cross(sc->ax, sc->e1, e2);
    cth = cos(th);
    sth = sin(th);
    for (x = 0; x < 3; x++) {
        wv_[x] = cth * e2[x] - sth * sc->e1[x];
        dw[x] = -sth * e2[x] - cth * sc->e1[x];
    }
    k = sc->tb;
    rtmbs_syn_mv3(A + 9 * k, sc->xb, b);
    psi[row] = rtmbs_syn_dot3(wv_, b);
    v_dA(wv_, A + 9 * k, sc->xb, tmp);
    for (x = 0; x < 3; x++) Pz[z * row + 6 * k + 3 + x] = tmp[x];
    Pt[row] = rtmbs_syn_dot3(dw, b);
    if (with_gamma) {
        double c1[3], c2[3];
        for (x = 0; x < 3; x++) om[x] = y[6 * k + 3 + x];
        rtmbs_syn_cross(om, sc->xb, xw);
        rtmbs_syn_cross(om, xw, tmp);
        rtmbs_syn_mv3(A + 9 * k, tmp, c1);
        rtmbs_syn_mv3(A + 9 * k, xw, c2);
        g[row] = -(rtmbs_syn_dot3(wv_, c1) + 2.0 * thd * rtmbs_syn_dot3(dw, c2)
                   - thd * thd * rtmbs_syn_dot3(wv_, b));
    }
}

rtmbs_status rtmbs_sync_evaluate(const rtmbs_sync* sc, double t, const double* q,
                                 const double* qd, double* rw, double* Aw, int64_t iters,
                                 double* scratch, int64_t* iscratch, double* M, double* Q,
                                 double* qdd) {
    const int64_t nb = sc->nb, z = 6 * nb, nb0 = sc->nbase, n = sc->n;
    double *psi, *Pz, *Pz2, *Pt, *g, *dz, *N, *y, *p, *rg, *Ag, *rdg, *wg, *gf, *MEG, *cur = scratch;
    double Sk[9], SS[9], R[9], Anew[9], Ar[9], ArT[9], AJ[9], tmp[3], tmp2[3], f[3], nn[3];
    double MEE[36], gE[6], Q0[6], MEt[6], gEh[6], Mc[36], Pc[6], Mb[36], A2[36], b2[6], MT[36];
    double zero3[3] = {0.0, 0.0, 0.0}, a, a2, sa, ca, m, Mtt, gt, acc, MGp[6], MGN[6];
    const double th = q[nb0], thd = qd[nb0];
    int64_t k, it, i, j, l;
    int x, w;
    rtmbs_status st;
    psi = cur; cur += z;
    Pz = cur; cur += z * z;
    Pz2 = cur; cur += z * z;
    Pt = cur; cur += z;
    g = cur; cur += z;
    dz = cur; cur += z;
    N = cur; cur += z;
    y = cur; cur += z;
    p = cur; cur += z;
    rg = cur; cur += 3 * nb;
    Ag = cur; cur += 9 * nb;
    rdg = cur; cur += 3 * nb;
    wg = cur; cur += 3 * nb;
    gf = cur; cur += 6 * nb;
    MEG = cur; cur += 36 * nb;
    for (i = 0; i < z; i++) y[i] = 0.0;
    /* position: Newton on Psi(z, theta) = 0, rotations updated by the exponential map */
    for (it = 0; it < iters; it++) {
        psi_terms(sc, rw, Aw, th, y, 0, 0.0, psi, Pz, Pt, g);
        for (i = 0; i < z; i++) dz[i] = -psi[i];
        if ((st = rtmbs_syn_solve(Pz, iscratch, dz, z)) != RTMBS_OK) return st;
        for (k = 0; k < nb; k++) {
            const double* dp = dz + 6 * k + 3;
            for (x = 0; x < 3; x++) rw[3 * k + x] += dz[6 * k + x];
            a2 = rtmbs_syn_dot3(dp, dp) + 1e-300;
            a = sqrt(a2);
            sa = sin(a) / a;
            ca = (1.0 - cos(a)) / a2;
            rtmbs_syn_skew(dp, Sk);
            rtmbs_syn_mm3(Sk, Sk, SS);
            for (i = 0; i < 9; i++) R[i] = (i % 4 == 0 ? 1.0 : 0.0) + sa * Sk[i] + ca * SS[i];
            rtmbs_syn_mm3(Aw + 9 * k, R, Anew);
            for (i = 0; i < 9; i++) Aw[9 * k + i] = Anew[i];
        }
    }
    /* velocity (eq. 15: y = N thetadot) and RHS (eq. 16), one LU of Psi_z */
    psi_terms(sc, rw, Aw, th, y, 0, 0.0, psi, Pz, Pt, g);
    if (!(rtmbs_dense_lu_factor(Pz, iscratch, z) > 0.0)) return RTMBS_ERR_SINGULAR;
    for (i = 0; i < z; i++) N[i] = -Pt[i];
    rtmbs_dense_lu_solve(Pz, iscratch, N, z);
    for (i = 0; i < z; i++) y[i] = N[i] * thd;
    psi_terms(sc, rw, Aw, th, y, 1, thd, psi, Pz2, Pt, g);
    for (i = 0; i < z; i++) p[i] = g[i];
    rtmbs_dense_lu_solve(Pz, iscratch, p, z);
    /* forces, global: the bodies' r*, A, rdot*, omega */
    for (k = 0; k < nb; k++) {
        rtmbs_syn_mm3(sc->tail.A0, Aw + 9 * k, Ag + 9 * k);
        rtmbs_syn_mv3(sc->tail.A0, rw + 3 * k, rg + 3 * k);
        rtmbs_syn_mv3(sc->tail.A0, y + 6 * k, rdg + 3 * k);
        rtmbs_syn_mv3(Ag + 9 * k, y + 6 * k + 3, wg + 3 * k);
    }
    {
        rtmbs_syn_forces fe;
        fe.nf = sc->nf;
        fe.kind = sc->fkind; fe.bi = sc->fbi; fe.bj = sc->fbj; fe.adr = sc->fadr; fe.len = sc->flen;
        fe.si = sc->tail.fsi; fe.sj = sc->tail.fsj; fe.dir = sc->tail.fdir; fe.par = sc->tail.fpar;
        fe.ops = sc->tail.fops; fe.args = sc->tail.fargs;
        rtmbs_syn_forces_gf(&fe, t, q, qd, nb, nb0, rg, Ag, rdg, wg, sc->mass, sc->tail.m0, sc->tail.r0i,
                            sc->tail.S, sc->tail.A0, sc->tail.grav, zero3, gf, Q0);
    }
    /* mass/force (eqs. 10-12): M_EE, M_EG (6 x 6 nb), the block-diagonal M_GG, g_E, g_G (in gG
     * = the RHS vector g, reused) */
    for (i = 0; i < 36; i++) MEE[i] = 0.0;
    for (i = 0; i < 6; i++) gE[i] = 0.0;
    for (i = 0; i < 36 * nb; i++) MEG[i] = 0.0;
    for (k = 0; k < nb; k++) {
        const double* J = sc->Jb + 9 * k;
        const double* wk = y + 6 * k + 3;
        double ArTAr[9], AJA[9], AJt[9], ArTA0[9];
        m = sc->mass[k];
        for (x = 0; x < 3; x++) f[x] = gf[6 * k + x];
        rtmbs_syn_mtv3(Ag + 9 * k, gf + 6 * k + 3, nn);
        rtmbs_syn_mv3(J, wk, tmp);
        rtmbs_syn_cross(wk, tmp, tmp2);
        for (x = 0; x < 3; x++) nn[x] -= tmp2[x];
        rtmbs_syn_skew(rw + 3 * k, Sk);
        rtmbs_syn_mm3(sc->tail.A0, Sk, Ar);
        for (i = 0; i < 3; i++)
            for (j = 0; j < 3; j++) ArT[3 * i + j] = Ar[3 * j + i];
        rtmbs_syn_mm3(ArT, Ar, ArTAr);
        rtmbs_syn_mm3(Aw + 9 * k, J, AJ);
        rtmbs_syn_mmt3(AJ, Aw + 9 * k, AJA);
        rtmbs_syn_mm3(ArT, sc->tail.A0, ArTA0);
        for (i = 0; i < 9; i++) AJt[i] = AJ[i];
        for (i = 0; i < 3; i++) {
            MEE[6 * i + i] += m;
            for (j = 0; j < 3; j++) {
                MEE[6 * i + 3 + j] += -m * Ar[3 * i + j];
                MEE[6 * (3 + i) + j] += -m * ArT[3 * i + j];
                MEE[6 * (3 + i) + 3 + j] += m * ArTAr[3 * i + j] + AJA[3 * i + j];
                MEG[6 * nb * i + 6 * k + j] = m * sc->tail.A0[3 * i + j];
                MEG[6 * nb * (3 + i) + 6 * k + j] = -m * ArTA0[3 * i + j];
                MEG[6 * nb * (3 + i) + 6 * k + 3 + j] = AJt[3 * i + j];
            }
        }
        rtmbs_syn_mv3(ArT, f, tmp);
        rtmbs_syn_mv3(Aw + 9 * k, nn, tmp2);
        for (x = 0; x < 3; x++) {
            gE[x] += f[x];
            gE[3 + x] += -tmp[x] + tmp2[x];
        }
        rtmbs_syn_mtv3(sc->tail.A0, f, g + 6 * k);
        for (x = 0; x < 3; x++) g[6 * k + 3 + x] = nn[x];
    }
    /* effective mass and force (eqs. 19, 21, 22) */
    Mtt = 0.0;
    gt = 0.0;
    for (k = 0; k < nb; k++) {
        const double* J = sc->Jb + 9 * k;
        m = sc->mass[k];
        for (x = 0; x < 3; x++) {
            MGN[x] = m * N[6 * k + x];
            MGp[x] = m * p[6 * k + x];
        }
        rtmbs_syn_mv3(J, N + 6 * k + 3, MGN + 3);
        rtmbs_syn_mv3(J, p + 6 * k + 3, MGp + 3);
        for (w = 0; w < 6; w++) {
            Mtt += N[6 * k + w] * MGN[w];
            gt += N[6 * k + w] * (g[6 * k + w] - MGp[w]);
        }
    }
    for (i = 0; i < 6; i++) {
        double en = 0.0, ep = 0.0;
        for (j = 0; j < z; j++) {
            en += MEG[z * i + j] * N[j];
            ep += MEG[z * i + j] * p[j];
        }
        MEt[i] = en;
        gEh[i] = gE[i] - ep;
    }
    for (i = 0; i < 6; i++) {
        for (j = 0; j < 6; j++) Mc[6 * i + j] = MEE[6 * i + j] - MEt[i] * MEt[j] / Mtt;
        Pc[i] = gEh[i] - MEt[i] * (gt / Mtt);
    }
    for (i = 0; i < 36; i++) Mb[i] = 0.0;
    for (i = 0; i < 3; i++) {
        Mb[6 * i + i] = sc->tail.m0;
        for (j = 0; j < 3; j++) Mb[6 * (3 + i) + 3 + j] = sc->tail.J0[3 * i + j];
    }
    /* the protocol's M, Q (eq. 19) */
    for (i = 0; i < 36; i++) A2[i] = Mb[i] + MEE[i];
    for (i = 0; i < 6; i++)
        for (j = 0; j < nb0; j++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += A2[6 * i + l] * sc->tail.S[nb0 * l + j];
            MT[nb0 * i + j] = acc;
        }
    for (i = 0; i < nb0; i++) {
        double sm = 0.0, sq = 0.0;
        for (j = 0; j < nb0; j++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) acc += sc->tail.S[nb0 * l + i] * MT[nb0 * l + j];
            M[n * i + j] = acc;
        }
        for (l = 0; l < 6; l++) {
            sm += sc->tail.S[nb0 * l + i] * MEt[l];
            sq += sc->tail.S[nb0 * l + i] * (Q0[l] + gEh[l]);
        }
        M[n * i + nb0] = sm;
        M[n * nb0 + i] = sm;
        Q[i] = sq;
    }
    M[n * nb0 + nb0] = Mtt;
    Q[nb0] = gt;
    /* the synthesis accelerations: the base equation (eq. 1), then theta (eq. 20) */
    for (i = 0; i < 36; i++) MT[i] = Mb[i] + Mc[i];
    for (i = 0; i < nb0; i++) {
        for (j = 0; j < nb0; j++) {
            acc = 0.0;
            for (l = 0; l < 6; l++) {
                int64_t r2;
                double col = 0.0;
                for (r2 = 0; r2 < 6; r2++) col += MT[6 * l + r2] * sc->tail.S[nb0 * r2 + j];
                acc += sc->tail.S[nb0 * l + i] * col;
            }
            A2[nb0 * i + j] = acc;
        }
        acc = 0.0;
        for (l = 0; l < 6; l++) acc += sc->tail.S[nb0 * l + i] * (Q0[l] + Pc[l]);
        b2[i] = acc;
    }
    if ((st = rtmbs_syn_solve(A2, iscratch, b2, nb0)) != RTMBS_OK) return st;
    acc = 0.0;
    for (l = 0; l < 6; l++) {
        double sx = 0.0;
        for (j = 0; j < nb0; j++) sx += sc->tail.S[nb0 * l + j] * b2[j];
        acc += MEt[l] * sx;
    }
    for (i = 0; i < nb0; i++) qdd[i] = b2[i];
    qdd[nb0] = (gt - acc) / Mtt;
    return RTMBS_OK;
}

static rtmbs_status sync_eval(const rtmbs_syn_call* c, double t, const double* q,
                              const double* qd, double* M, double* Q, double* qdd) {
    return rtmbs_sync_evaluate((const rtmbs_sync*)c->model, t, q, qd, c->warm[0], c->warm[1],
                               c->iters, c->scratch, c->iscratch, M, Q, qdd);
}

rtmbs_status rtmbs_sync_workspace(const rtmbs_sync* model, double t, const double* q, const double* qd,
                                  double* rw, double* Aw, int64_t iters, double eps, int what,
                                  double* scratch, int64_t* iscratch, double* work, double* ws) {
    const rtmbs_syn_call c = {model, {rw, Aw}, iters, scratch, iscratch};
    return rtmbs_syn_workspace(sync_eval, &c, model->n, t, q, qd, eps, what, work, ws);
}
