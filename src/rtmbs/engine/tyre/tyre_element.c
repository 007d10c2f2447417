/* tyre_element.c -- the tyre force element (Carpinelli 2015 sec. 4.3).
 *
 * The element acts on the rim at the wheel centre A (marker origin, marker z = spin axis s,
 * pointing to the vehicle's left so that the ISO-W axes of the .tir data apply):
 *
 *   l = s x n / |s x n| (longitudinal), t = n x l (lateral), n = global z;
 *   road heights under the two followers at A +- lf l give the effective plane angle beta and
 *   height h_eff (Fig. 4.12); plane normal n_e = cos(beta) n - sin(beta) l;
 *   d = direction in the wheel plane towards the road; loaded radius
 *   r = cos(beta) (A_z - h_eff) / (-d . n_e); rho = r_free - r (eq. 4.14);
 *   radial force F_n = k rho + c rhodot along n_e (zero without contact);
 *   V_x = V_A . l, V_y = V_A . t, omega_s = omega . s; kappa, alpha from eqs. 4.15-4.16;
 *   camber gamma = -asin(s . n_e);
 *   (F_x, F_y, M_x, M_y, M_z) = MF(F_n, kappa, -alpha, gamma, V_x) in the frame (l, t, n_e);
 *   force F = F_x l + F_y t + F_n n_e at the contact point C = A + r d, moment M.
 *
 * Jacobians: exact, forward mode, one column at a time (seed: the rim's virtual displacement
 * or velocity e_c), carried through l, t, the followers' heights, beta, h_eff, n_e, d, r, rho,
 * F_n, V_x, V_y, omega_s, gamma, Re and the Magic Formula's partials (rtmbs_mf_dual). Within
 * v_min of V_x = 0 the low-speed slip reductions' factor |V_x| gets the slope 0 (docs/tyre.md).
 *
 * Transient tyres (TP_XSTATE >= 0): slips from the carcass deflections tyre_x[1 + 2k],
 * tyre_x[2 + 2k] with the low-speed damping, at the end of the solver's step tyre_x[0].
 */
#include <math.h>

#include "../elements/base.h"
#include "../road.h"
#include "contact.h"
#include "magic_formula.h"
#include "tyre_element.h"

static double dot3(const double* a, const double* b) {
    return a[0] * b[0] + a[1] * b[1] + a[2] * b[2];
}

static void cross3(const double* a, const double* b, double* out) {
    out[0] = a[1] * b[2] - a[2] * b[1];
    out[1] = a[2] * b[0] - a[0] * b[2];
    out[2] = a[0] * b[1] - a[1] * b[0];
}

/* out = ca a + cb b + cc c */
static void lc3(double ca, const double* a, double cb, const double* b, double cc,
                const double* c, double* out) {
    int i;
    for (i = 0; i < 3; i++) out[i] = ca * a[i] + cb * b[i] + cc * c[i];
}

/* slopes (dh/dx, dh/dy) of the packed road: linear in x per sample interval, linear in y
 * between the tracks at road[2] (left), road[3] (right), held outside them */
static void road_slopes(const double* road, int64_t len, double x, double y, double* hx,
                        double* hy) {
    const double yl = road[2], yr = road[3];
    double zl, zr, w;
    rtmbs_road_height_packed(road, len, x, y, hx);
    zl = rtmbs_road_height_packed(road, len, x, yl, 0);
    zr = rtmbs_road_height_packed(road, len, x, yr, 0);
    w = (y - yr) / (yl - yr);
    *hy = (0.0 < w && w < 1.0) ? (zl - zr) / (yl - yr) : 0.0;
}

/* partials of a Magic Formula output X (a dual of rtmbs_mf_dual, called with -alpha) with
 * respect to the element's scalars (F_n, V_x, omega_s, V_y, gamma), given dkappa/d(V_x, omega_s,
 * F_n) and dalpha/d(V_x, V_y, F_n, gamma) of the slips */
static void coefs(const rtmbs_dual* X, const double* ks, double* c) {
    const double k_vx = ks[0], k_ws = ks[1], k_z = ks[2], a_vx = ks[3], a_vy = ks[4],
                 a_z = ks[5], a_g = ks[6];
    c[0] = X->v[1] + X->v[2] * k_z - X->v[3] * a_z;
    c[1] = X->v[5] + X->v[2] * k_vx - X->v[3] * a_vx;
    c[2] = X->v[2] * k_ws;
    c[3] = -X->v[3] * a_vy;
    c[4] = X->v[4] - X->v[3] * a_g;
}

/* the state of tyre_force that the Jacobian differentiates */
typedef struct tyre_state_ {
    const double* road;
    int64_t road_len;
    double lf, kz, cz;
    int clipped;
    const double *rA, *vA, *w, *s, *sg;
    double l[3], t[3], ne[3], d[3], F[3], rd[3];
    double nl, xf, yf, xr, yr, cb, sb, sn, nd, den, g, r, heff, Fn, Fx, Fy, Mx, My, Mz;
    double cFx[5], cFy[5], cMz[5], cMx[5], cMy[5];
} tyre_state;

/* a . c5 over (dFn, dVx, dws, dVy, dgam) in that order of terms */
static double chain5(const double* c, double dFn, double dVx, double dws, double dVy,
                     double dgam) {
    return c[0] * dFn + c[1] * dVx + c[2] * dws + c[3] * dVy + c[4] * dgam;
}

/* columns 6-11 of df/dx, dtau/dx (seed dr_j = e_c, then dpi_j = e_c) and of df/dv, dtau/dv
 * (drdot_j = e_c, then domega_j = e_c) by forward differentiation of rtmbs_tyre_force, one
 * column per pass (tyre_element._tyre_jacobian) */
static void tyre_jacobian(const tyre_state* S, double* dfdx, double* dfdv, double* dtdx,
                          double* dtdv) {
    static const double ez[3] = {0.0, 0.0, 1.0};
    static const double zero[3] = {0.0, 0.0, 0.0};
    const double *lv = S->l, *tv = S->t, *nev = S->ne, *dv = S->d, *sv = S->s;
    const double *Fv = S->F, *rdv = S->rd, *vAv = S->vA, *wv = S->w, *sgv = S->sg;
    const double lf = S->lf, nl = S->nl, cb = S->cb, sb = S->sb, sn = S->sn, nd = S->nd;
    const double den = S->den, g = S->g, r = S->r;
    const double rz = S->rA[2] - S->heff;
    const double cg2 = 1.0 - sn * sn;
    const double cg = sqrt(cg2 > 0.0 ? cg2 : 0.0); /* cos(gamma) */
    const double kfn = S->clipped ? 0.0 : S->kz;
    const double cfn = S->clipped ? 0.0 : S->cz;
    double hfx, hfy, hrx, hry;
    int col, c;
    road_slopes(S->road, S->road_len, S->xf, S->yf, &hfx, &hfy);
    road_slopes(S->road, S->road_len, S->xr, S->yr, &hrx, &hry);
    for (col = 0; col < 12; col++) {
        const int cc = col % 3;
        const int rot = (col % 6) >= 3;
        double e[3], drA_[3], ds_[3], dvA_[3], dw_[3];
        const double *drA, *ds, *dvA, *dw;
        double dm[3], lm, dl[3], dt[3], dhf, dhr, dbeta, dheff, dne[3], dsn, du[3], ddu, dd[3];
        double dden, dg, dr, dFn, dgam, dVx, dVy, dws, dFx, dFy, dMz, dMx, dMy;
        double a1[3], a2[3], dF[3], b1[3], b2[3], drd[3], c1[3], c2[3];
        double *jf, *jt;
        int j;
        e[0] = cc == 0 ? 1.0 : 0.0;
        e[1] = cc == 1 ? 1.0 : 0.0;
        e[2] = cc == 2 ? 1.0 : 0.0;
        /* the column's seed: dA, ds, dV_A, domega */
        if (col < 6) {
            if (rot) {
                cross3(e, sgv, drA_);
                cross3(e, sv, ds_);
                cross3(wv, drA_, dvA_);
                drA = drA_;
                ds = ds_;
                dvA = dvA_;
            } else {
                drA = e;
                ds = zero;
                dvA = zero;
            }
            dw = zero;
        } else {
            drA = zero;
            ds = zero;
            if (rot) {
                cross3(e, sgv, dvA_);
                dvA = dvA_;
                for (c = 0; c < 3; c++) dw_[c] = e[c];
                dw = dw_;
            } else {
                dvA = e;
                dw = zero;
            }
        }
        if (col >= 6) {
            /* a velocity column (drA = ds = 0): every derivative of the contact geometry (dl, dt,
             * dn_e, dd, dr, dg, dsn) is zero, so only the speeds' terms remain; the same values
             * as the general pass below, whose zero terms change no sum */
            dFn = cfn * -(g * dvA[2]);
            dVx = dot3(dvA, lv);
            dVy = dot3(dvA, tv);
            dws = dot3(dw, sv);
            dFx = chain5(S->cFx, dFn, dVx, dws, dVy, 0.0);
            dFy = chain5(S->cFy, dFn, dVx, dws, dVy, 0.0);
            dMz = chain5(S->cMz, dFn, dVx, dws, dVy, 0.0);
            dMx = chain5(S->cMx, dFn, dVx, dws, dVy, 0.0);
            dMy = chain5(S->cMy, dFn, dVx, dws, dVy, 0.0);
            lc3(dFx, lv, dFy, tv, dFn, nev, dF);
            lc3(dMx, lv, dMy, tv, dMz, nev, b1);
            cross3(rdv, dF, c2);
            j = 6 + col % 6;
            for (c = 0; c < 3; c++) {
                dfdv[12 * c + j] = dF[c];
                dtdv[12 * c + j] = c2[c] + b1[c];
            }
            continue;
        }
        /* directions: l = s x e_z / |s x e_z|, t = e_z x l */
        dm[0] = ds[1];
        dm[1] = -ds[0];
        dm[2] = 0.0;
        lm = dot3(lv, dm);
        for (c = 0; c < 3; c++) dl[c] = (dm[c] - lv[c] * lm) / nl;
        dt[0] = -dl[1];
        dt[1] = dl[0];
        dt[2] = 0.0;
        /* followers' heights, beta, h_eff (Fig. 4.12), n_e */
        dhf = hfx * (drA[0] + lf * dl[0]) + hfy * (drA[1] + lf * dl[1]);
        dhr = hrx * (drA[0] - lf * dl[0]) + hry * (drA[1] - lf * dl[1]);
        dbeta = cb * cb * (dhf - dhr) / (2.0 * lf);
        dheff = 0.5 * (dhf + dhr);
        lc3(-sb * dbeta, ez, -cb * dbeta, lv, -sb, dl, dne);
        /* d = -(n_e - sn s)/|...|, den = -d . n_e, loaded radius r = cos(beta)(A_z - h_eff)/den */
        dsn = dot3(dne, sv) + dot3(nev, ds);
        lc3(-1.0, dne, dsn, sv, sn, ds, du);
        ddu = dot3(dv, du);
        for (c = 0; c < 3; c++) dd[c] = (du[c] - dv[c] * ddu) / nd;
        dden = -(dot3(dd, nev) + dot3(dv, dne));
        dg = (-sb * dbeta - g * dden) / den;
        dr = dg * rz + g * (drA[2] - dheff);
        dFn = -kfn * dr + cfn * (-dg * vAv[2] - g * dvA[2]);
        dgam = cg > 0.0 ? -dsn / cg : 0.0;
        dVx = dot3(dvA, lv) + dot3(vAv, dl);
        dVy = dot3(dvA, tv) + dot3(vAv, dt);
        dws = dot3(dw, sv) + dot3(wv, ds);
        dFx = chain5(S->cFx, dFn, dVx, dws, dVy, dgam);
        dFy = chain5(S->cFy, dFn, dVx, dws, dVy, dgam);
        dMz = chain5(S->cMz, dFn, dVx, dws, dVy, dgam);
        dMx = chain5(S->cMx, dFn, dVx, dws, dVy, dgam);
        dMy = chain5(S->cMy, dFn, dVx, dws, dVy, dgam);
        /* F = Fx l + Fy t + Fn n_e, tau = r d x F + Mx l + My t + Mz n_e */
        lc3(dFx, lv, dFy, tv, dFn, nev, a1);
        lc3(S->Fx, dl, S->Fy, dt, S->Fn, dne, a2);
        for (c = 0; c < 3; c++) dF[c] = a1[c] + a2[c];
        lc3(dMx, lv, dMy, tv, dMz, nev, b1);
        lc3(S->Mx, dl, S->My, dt, S->Mz, dne, b2);
        for (c = 0; c < 3; c++) drd[c] = dr * dv[c] + r * dd[c];
        cross3(drd, Fv, c1);
        cross3(rdv, dF, c2);
        j = 6 + col % 6;
        jf = col < 6 ? dfdx : dfdv;
        jt = col < 6 ? dtdx : dtdv;
        for (c = 0; c < 3; c++) {
            jf[12 * c + j] = dF[c];
            jt[12 * c + j] = c1[c] + c2[c] + b1[c] + b2[c];
        }
    }
}

double rtmbs_tyre_force(const double* par, const double* tyre_par, int64_t ntp,
                        const double* road_buf, const double* tyre_x, int with_jac,
                        const double* rA, const double* vA, const double* w, double* s,
                        const double* sg, double* f, double* tau, double* dfdx, double* dfdv,
                        double* dtdx, double* dtdv, double* outs, int64_t nouts) {
    static const double ez[3] = {0.0, 0.0, 1.0};
    const double* p = tyre_par + ntp * (int64_t)par[RTMBS_TP_ROW];
    const double* road = road_buf + (int64_t)par[RTMBS_TP_ROAD_ADR];
    const int64_t road_len = (int64_t)par[RTMBS_TP_ROAD_LEN];
    const double lf = par[RTMBS_TP_LF], kz = par[RTMBS_TP_KZ], cz = par[RTMBS_TP_CZ];
    const double vmin = par[RTMBS_TP_VMIN], rfree = par[RTMBS_TP_RFREE];
    const int64_t xs = (int64_t)par[RTMBS_TP_XSTATE];
    const int transient = xs >= 0;
    tyre_state S;
    double ns, hf, hr, beta, rho, rhod, Vx, Vy, ws, Re, re_z = 0.0, re_v = 0.0, kappa, alpha;
    double sn_c, gamma, Mc[3];
    double ks[7] = {0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}; /* k_vx k_ws k_z a_vx a_vy a_z a_g */
    rtmbs_dual dm[5];
    int64_t c;
    int i;
    for (c = 0; c < nouts; c++) outs[c] = 0.0;
    ns = sqrt(dot3(s, s)); /* unit spin axis even if the Euler parameters drift off |p| = 1 */
    for (i = 0; i < 3; i++) s[i] /= ns;
    cross3(s, ez, S.l);
    S.nl = sqrt(dot3(S.l, S.l));
    if (S.nl < 1e-9) return 0.0; /* spin axis vertical: no rolling contact defined */
    for (i = 0; i < 3; i++) S.l[i] /= S.nl;
    cross3(ez, S.l, S.t);
    S.xf = rA[0] + lf * S.l[0];
    S.yf = rA[1] + lf * S.l[1];
    S.xr = rA[0] - lf * S.l[0];
    S.yr = rA[1] - lf * S.l[1];
    hf = rtmbs_road_height_packed(road, road_len, S.xf, S.yf, 0);
    hr = rtmbs_road_height_packed(road, road_len, S.xr, S.yr, 0);
    rtmbs_two_point_follower(hf, hr, rA[2], rfree, lf, &beta, &S.heff);
    S.cb = cos(beta);
    S.sb = sin(beta);
    for (i = 0; i < 3; i++) S.ne[i] = S.cb * ez[i] - S.sb * S.l[i];
    S.sn = dot3(S.ne, s);
    for (i = 0; i < 3; i++) S.d[i] = -(S.ne[i] - S.sn * s[i]);
    S.nd = sqrt(dot3(S.d, S.d));
    for (i = 0; i < 3; i++) S.d[i] /= S.nd;
    S.den = -dot3(S.d, S.ne);
    S.g = S.cb / S.den;
    S.r = S.g * (rA[2] - S.heff);
    rho = rfree - S.r;
    if (rho <= 0.0) return 0.0;
    rhod = -S.g * vA[2];
    S.Fn = kz * rho + cz * rhod;
    S.clipped = S.Fn < 0.0;
    if (S.clipped) S.Fn = 0.0;
    Vx = dot3(vA, S.l);
    Vy = dot3(vA, S.t);
    ws = dot3(w, s);
    if (with_jac) /* with dRe/dFn, dRe/dVx: Re enters kappa (and Vsx) */
        Re = rtmbs_effective_rolling_radius_d(p, S.Fn, 0.0, Vx, 0.0, 0, &re_z, &re_v);
    else
        Re = rtmbs_effective_rolling_radius(p, S.Fn, 0.0, Vx, 0.0, 0);
    rtmbs_slip_quantities(Vx, Vy, ws, Re, vmin, &kappa, &alpha);
    sn_c = 1.0 < S.sn ? 1.0 : S.sn;
    gamma = -asin(sn_c > -1.0 ? sn_c : -1.0);
    if (transient) {
        /* slips from the carcass deflections u, v (eq. 4.24) with their low-speed damping, at
         * the end of the solver's step tyre_x[0]; relaxation lengths sigma_kappa(Fn),
         * sigma_alpha(Fn, gamma); the deflections' inputs are kept for eq. 4.23 */
        rtmbs_dual sig_k, sig_a;
        double sk, sa, Vsx, tr[8];
        rtmbs_relaxation_lengths_dual(p, S.Fn, gamma, &sig_k, &sig_a);
        sk = sig_k.v[0];
        sa = sig_a.v[0];
        Vsx = Vx - ws * Re;
        if (nouts > RTMBS_TO_SIGMA_ALPHA) {
            outs[RTMBS_TO_VSX] = Vsx;
            outs[RTMBS_TO_VSY] = Vy;
            outs[RTMBS_TO_VX] = Vx;
            outs[RTMBS_TO_SIGMA_KAPPA] = sk;
            outs[RTMBS_TO_SIGMA_ALPHA] = sa;
        }
        rtmbs_transient_slips_lowspeed(tyre_x[1 + 2 * xs], tyre_x[2 + 2 * xs], Vsx, Vy, Vx, sk,
                                       sa, p[RTMBS_MF_I_VXLOW], tyre_x[0], tr);
        kappa = tr[0];
        alpha = tr[1];
        ks[0] = tr[2] * (1.0 - ws * re_v) + tr[3]; /* Vsx = Vx - omega_s Re(Fn, Vx) */
        ks[1] = -Re * tr[2];
        ks[2] = -ws * re_z * tr[2] + tr[4] * sig_k.v[1];
        ks[3] = tr[6];
        ks[4] = tr[5];
        ks[5] = tr[7] * sig_a.v[1];
        ks[6] = tr[7] * sig_a.v[4];
    } else if (with_jac) {
        /* kappa = (omega_s Re - Vx)/s_x, alpha = atan(-Vy/d_d), eqs. 4.15-4.16 */
        const double av = fabs(Vx);
        double sx, dd;
        if (av > vmin) {
            sx = Vx;
            ks[0] = -ws * Re / (Vx * Vx);
            dd = av;
            ks[3] = Vy * (Vx >= 0.0 ? 1.0 : -1.0) / (dd * dd + Vy * Vy);
        } else {
            sx = Vx >= 0.0 ? vmin : -vmin;
            ks[0] = -1.0 / sx;
            dd = vmin;
        }
        ks[0] += ws / sx * re_v;
        ks[1] = Re / sx;
        ks[2] = ws / sx * re_z;
        ks[4] = -dd / (dd * dd + Vy * Vy);
    }
    /* the transient slips are finite at standstill: no further low-speed reduction */
    if (with_jac) { /* one pass gives the five outputs and their partials */
        rtmbs_mf_dual(p, S.Fn, kappa, -alpha, gamma, Vx, !transient, 1, vmin, dm);
        S.Fx = dm[0].v[0];
        S.Fy = dm[1].v[0];
        S.Mz = dm[2].v[0];
        S.Mx = dm[3].v[0];
        S.My = dm[4].v[0];
    } else {
        double mf[RTMBS_MF_N_OUT];
        rtmbs_mf_steady_state(p, S.Fn, kappa, -alpha, gamma, Vx, mf, !transient);
        S.Fx = mf[RTMBS_MF_O_FX];
        S.Fy = mf[RTMBS_MF_O_FY];
        S.Mx = mf[RTMBS_MF_O_MX];
        S.My = mf[RTMBS_MF_O_MY];
        S.Mz = mf[RTMBS_MF_O_MZ];
    }
    for (i = 0; i < 3; i++) {
        S.F[i] = S.Fx * S.l[i] + S.Fy * S.t[i] + S.Fn * S.ne[i];
        Mc[i] = S.Mx * S.l[i] + S.My * S.t[i] + S.Mz * S.ne[i];
        S.rd[i] = S.r * S.d[i];
        f[i] = S.F[i];
    }
    cross3(S.rd, S.F, tau);
    for (i = 0; i < 3; i++) tau[i] += Mc[i];
    outs[RTMBS_TO_FX] = S.Fx;
    outs[RTMBS_TO_FY] = S.Fy;
    outs[RTMBS_TO_FZ] = S.Fn;
    outs[RTMBS_TO_KAPPA] = kappa;
    outs[RTMBS_TO_ALPHA] = alpha;
    outs[RTMBS_TO_GAMMA] = gamma;
    outs[RTMBS_TO_RHO] = rho;
    if (!with_jac) return S.Fn;
    coefs(&dm[0], ks, S.cFx);
    coefs(&dm[1], ks, S.cFy);
    coefs(&dm[2], ks, S.cMz);
    coefs(&dm[3], ks, S.cMx);
    coefs(&dm[4], ks, S.cMy);
    S.road = road;
    S.road_len = road_len;
    S.lf = lf;
    S.kz = kz;
    S.cz = cz;
    S.rA = rA;
    S.vA = vA;
    S.w = w;
    S.s = s;
    S.sg = sg;
    tyre_jacobian(&S, dfdx, dfdv, dtdx, dtdv);
    return S.Fn;
}

double rtmbs_element_tyre(const rtmbs_model* m, rtmbs_data* d, int64_t k, int64_t bi, int64_t bj,
                          int with_jac, double fv, double* outs) {
    double* sax = d->tmp + 3 * 12; /* spin axis: marker j's z axis */
    const double* C = m->frc_rot + (k * m->frc_rot_dim[1] + 1) * 9;
    (void)bi;
    (void)fv;
    if (with_jac) rtmbs_zero_jacobians(d, 1, 1); /* (without contact the tyre writes none) */
    rtmbs_marker_axis(m, d, bj, C, 2, sax);
    return rtmbs_tyre_force(m->frc_par + k * m->frc_par_dim[1], m->tyre_par, m->tyre_par_dim[1],
                            m->road, d->xstate, with_jac, d->tmp + 3 * 5, d->tmp + 3 * 6,
                            d->kin_w + 3 * bj, sax, d->sgj, d->f, d->tau, d->dfdx, d->dfdv,
                            d->dtdx, d->dtdv, outs, RTMBS_NFOUT - 1);
}
