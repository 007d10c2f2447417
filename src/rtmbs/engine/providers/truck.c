/* truck.c -- the planar truck (Simeon, Grupp, Fuehrer and Rentrop 1994, eqs. 1-2; the
 * linearisation of its section 4.1) as a provider of the evaluation interface: see truck.h. */
#include "truck.h"

#include <math.h>

#define N RTMBS_TRUCK_N
#define PI 3.14159265358979323846
#define G_ACC 9.81

enum { ROAD = 0, REAR = 1, FRONT = 2, CHASSIS = 3, LOAD = 5 };

/* every body's coordinate indices in -1 .. 8, every element's bodies in 0 .. 5 (side A may be
 * the road, side B not), axis 0 or 1, law 0 or 1 */
static rtmbs_status check_tables(const rtmbs_truck* tr) {
    int64_t b, e;
    int c;
    for (b = 0; b < 6; b++)
        for (c = 0; c < 3; c++)
            if (tr->body[4 * b + c] < -1.0 || tr->body[4 * b + c] > N - 1)
                return RTMBS_ERR_ARGUMENT;
    for (e = 0; e < tr->ne; e++) {
        const double* E = tr->elem + RTMBS_TRUCK_E_NCOL * e;
        const double ax = E[RTMBS_TRUCK_E_AXIS], law = E[RTMBS_TRUCK_E_LAW];
        if (E[RTMBS_TRUCK_E_BA] < 0.0 || E[RTMBS_TRUCK_E_BA] > 5.0 || E[RTMBS_TRUCK_E_BB] < 1.0
            || E[RTMBS_TRUCK_E_BB] > 5.0 || (ax != 0.0 && ax != 1.0) || (law != 0.0 && law != 1.0))
            return RTMBS_ERR_ARGUMENT;
    }
    return RTMBS_OK;
}

rtmbs_status rtmbs_truck_bind(rtmbs_truck* tr, const double* par, int64_t len) {
    int64_t off;
    if (len < 3) return RTMBS_ERR_SIZE;
    tr->m = (int64_t)par[0];
    tr->ne = (int64_t)par[1];
    tr->nroad = (int64_t)par[2];
    if ((tr->m != 0 && tr->m != 2) || tr->ne < 0 || tr->nroad <= RTMBS_TRUCK_R_NB)
        return RTMBS_ERR_ARGUMENT;
    off = 3;
    tr->mass = par + off;
    off += N;
    tr->body = par + off;
    off += 6 * 4;
    tr->hinge = par + off;
    off += 4;
    tr->road = par + off;
    off += tr->nroad;
    tr->elem = par + off;
    off += tr->ne * RTMBS_TRUCK_E_NCOL;
    if (len < off || tr->nroad < RTMBS_TRUCK_R_XI0 + (int64_t)tr->road[RTMBS_TRUCK_R_NB])
        return RTMBS_ERR_SIZE;
    return check_tables(tr);
}

rtmbs_status rtmbs_truck_linear_bind(rtmbs_truck_linear* tr, const double* par, int64_t len) {
    int64_t off;
    if (len < 1) return RTMBS_ERR_SIZE;
    tr->nroad = (int64_t)par[0];
    if (tr->nroad <= RTMBS_TRUCK_R_NB) return RTMBS_ERR_ARGUMENT;
    off = 1;
    tr->mass = par + off;
    off += N;
    tr->q_eq = par + off;
    off += N;
    tr->K = par + off;
    off += N * N;
    tr->D = par + off;
    off += N * N;
    tr->K_stiff = par + off;
    off += N * N;
    tr->D_stiff = par + off;
    off += N * N;
    tr->x_wheel = par + off;
    off += 2;
    tr->k_tyre = par + off;
    off += 2;
    tr->d_tyre = par + off;
    off += 2;
    tr->hinge = par + off;
    off += 4;
    tr->road = par + off;
    off += tr->nroad;
    if (len < off || tr->nroad < RTMBS_TRUCK_R_XI0 + (int64_t)tr->road[RTMBS_TRUCK_R_NB])
        return RTMBS_ERR_SIZE;
    return RTMBS_OK;
}

int64_t rtmbs_truck_workspace_size(int64_t m) {
    return 3 * N * N + N + 3 * m + m * N;
}

double rtmbs_truck_road(const double* road, double xi, double* slope) {
    int kind = (int)road[RTMBS_TRUCK_R_TYPE];
    int64_t i, nb;
    double H, Lb, w, s;
    *slope = 0.0;
    if (kind == 1) {
        H = road[RTMBS_TRUCK_R_HEIGHT];
        Lb = road[RTMBS_TRUCK_R_LENGTH];
        nb = (int64_t)road[RTMBS_TRUCK_R_NB];
        for (i = 0; i < nb; i++) {
            s = xi - road[RTMBS_TRUCK_R_XI0 + i];
            if (0.0 <= s && s <= Lb) {
                w = 2.0 * PI / Lb;
                *slope = 0.5 * H * w * sin(w * s);
                return 0.5 * H * (1.0 - cos(w * s));
            }
        }
        return 0.0;
    }
    if (kind == 2) {
        w = 2.0 * PI / road[RTMBS_TRUCK_R_LENGTH];
        *slope = road[RTMBS_TRUCK_R_HEIGHT] * w * cos(w * xi);
        return road[RTMBS_TRUCK_R_HEIGHT] * sin(w * xi);
    }
    return 0.0;
}

/* sgn times the x (axis 0) or z (axis 1) coordinate P of point (a, b) of `body` into *P, its
 * rate into *Pd; adds sgn dP/dq into grad and sgn d2P/dtheta2 into hess[i_theta] */
static void point(const double* B, const double* q, const double* qd, int body, double a,
                  double b, int axis, double sgn, double* grad, double* hess, double* P,
                  double* Pd) {
    const double* row = B + 4 * body;
    int ix = (int)row[0], iz = (int)row[1], ith = (int)row[2];
    double th = 0.0, thd = 0.0, c, s, base, based, dth, d2, p, pd;
    if (ith >= 0) {
        th = q[ith];
        thd = qd[ith];
    }
    c = cos(th);
    s = sin(th);
    if (axis == 0) {
        base = row[3];
        based = 0.0;
        if (ix >= 0) {
            base = q[ix];
            based = qd[ix];
            grad[ix] += sgn;
        }
        dth = -a * s - b * c;
        d2 = -a * c + b * s;
        p = base + a * c - b * s;
    } else {
        base = 0.0;
        based = 0.0;
        if (iz >= 0) {
            base = q[iz];
            based = qd[iz];
            grad[iz] += sgn;
        }
        dth = a * c - b * s;
        d2 = -a * s - b * c;
        p = base + a * s + b * c;
    }
    pd = based;
    if (ith >= 0) {
        grad[ith] += sgn * dth;
        hess[ith] += sgn * d2;
        pd += dth * thd;
    }
    *P = sgn * p;
    *Pd = sgn * pd;
}

/* deflection s, its rate, gradient and theta-curvature of element e (Truck benchmark eq. 1) */
static void deflection(const rtmbs_truck* tr, double t, const double* q, const double* qd,
                       const double* E, double* grad, double* hess, double* s, double* sd) {
    int axis = (int)E[RTMBS_TRUCK_E_AXIS], bA = (int)E[RTMBS_TRUCK_E_BA];
    int bB = (int)E[RTMBS_TRUCK_E_BB];
    double sA, sAd, sB, sBd, du, v = tr->road[RTMBS_TRUCK_R_SPEED];
    int i;
    for (i = 0; i < N; i++) {
        grad[i] = 0.0;
        hess[i] = 0.0;
    }
    if (bA == ROAD) {
        sA = -rtmbs_truck_road(tr->road, tr->body[4 * bB + 3] + v * t, &du);
        sAd = -v * du;
    } else {
        point(tr->body, q, qd, bA, E[RTMBS_TRUCK_E_AA], E[RTMBS_TRUCK_E_BBA], axis, -1.0, grad,
              hess, &sA, &sAd);
    }
    point(tr->body, q, qd, bB, E[RTMBS_TRUCK_E_AB], E[RTMBS_TRUCK_E_BBB], axis, 1.0, grad, hess,
          &sB, &sBd);
    *s = sA + sB;
    *sd = sAd + sBd;
}

void rtmbs_truck_deflections(const rtmbs_truck* tr, double t, const double* q, double* s_out) {
    double grad[N], hess[N], zero[N], sd;
    int64_t e;
    int i;
    for (i = 0; i < N; i++) zero[i] = 0.0;
    for (e = 0; e < tr->ne; e++)
        deflection(tr, t, q, zero, tr->elem + RTMBS_TRUCK_E_NCOL * e, grad, hess, &s_out[e], &sd);
}

static void diagonal_mass(const double* mass, double* M) {
    int i, j;
    for (i = 0; i < N; i++) {
        for (j = 0; j < N; j++) M[N * i + j] = 0.0;
        M[N * i + i] = mass[i];
    }
}

rtmbs_status rtmbs_truck_evaluate(const rtmbs_truck* tr, double t, const double* q,
                                  const double* qd, int what, double* ws) {
    const int64_t m = tr->m;
    double *M = ws, *Q = M + N * N, *phi = Q + N, *phiq = phi + m, *phit = phiq + m * N;
    double *gamma = phit + m, *Jq = gamma + m, *Jqd = Jq + N * N;
    double grad[N], hess[N], s, sd, f, fs, fsd, A, Vs, kap, V, ratio, gk, gc, gcd, gl, gld, acc;
    const int jac_all = (what & RTMBS_EVAL_JAC) != 0;
    const int jac = jac_all || (what & RTMBS_EVAL_JACS) != 0;
    rtmbs_status status = RTMBS_OK;
    int64_t e;
    int i, k, l, r;
    if (what & RTMBS_EVAL_M) diagonal_mass(tr->mass, M);
    if (jac)
        for (i = 0; i < N * N; i++) {
            Jq[i] = 0.0;
            Jqd[i] = 0.0;
        }
    if ((what & RTMBS_EVAL_Q) || jac) {
        if (what & RTMBS_EVAL_Q) {
            for (i = 0; i < N; i++) Q[i] = 0.0;
            /* gravity on the z coordinates */
            Q[0] = -tr->mass[0] * G_ACC;
            Q[1] = -tr->mass[1] * G_ACC;
            Q[2] = -tr->mass[2] * G_ACC;
            Q[4] = -tr->mass[4] * G_ACC;
            Q[7] = -tr->mass[7] * G_ACC;
        }
        for (e = 0; e < tr->ne; e++) {
            const double* E = tr->elem + RTMBS_TRUCK_E_NCOL * e;
            deflection(tr, t, q, qd, E, grad, hess, &s, &sd);
            /* force law: f pushes the two points apart (compression positive) */
            if ((int)E[RTMBS_TRUCK_E_LAW] == 1) {
                A = E[RTMBS_TRUCK_E_A];
                Vs = E[RTMBS_TRUCK_E_VS];
                kap = E[RTMBS_TRUCK_E_KAPPA];
                V = Vs + A * (s - E[RTMBS_TRUCK_E_L0]);
                if (!(V > 0.0)) status = RTMBS_ERR_NONFINITE;
                ratio = pow(Vs / V, kap);
                f = A * (E[RTMBS_TRUCK_E_K] * ratio - E[RTMBS_TRUCK_E_PA]);
                fs = -kap * A * A * E[RTMBS_TRUCK_E_K] * ratio / V;
            } else {
                f = E[RTMBS_TRUCK_E_K] * (E[RTMBS_TRUCK_E_L0] - s);
                fs = -E[RTMBS_TRUCK_E_K];
            }
            fsd = -E[RTMBS_TRUCK_E_D];
            f += fsd * sd;
            if (what & RTMBS_EVAL_Q)
                for (i = 0; i < N; i++) Q[i] += f * grad[i];
            if (jac && (jac_all || E[RTMBS_TRUCK_E_STIFF] > 0.0)) {
                for (k = 0; k < N; k++) {
                    gk = grad[k];
                    if (gk == 0.0) continue;
                    for (l = 0; l < N; l++) {
                        Jq[N * k + l] += gk * (fs * grad[l] + fsd * hess[l] * qd[l]);
                        Jqd[N * k + l] += gk * fsd * grad[l];
                    }
                }
                for (k = 0; k < N; k++) Jq[N * k + k] += f * hess[k];
            }
        }
    }
    /* the hinge constraint g(q) = r_H(load) - r_H(chassis) (eq. 2) */
    if (m > 0 && (what & (RTMBS_EVAL_PHI | RTMBS_EVAL_PHIQ | RTMBS_EVAL_GAMMA))) {
        for (r = 0; r < 2; r++) {
            for (i = 0; i < N; i++) {
                grad[i] = 0.0;
                hess[i] = 0.0;
            }
            point(tr->body, q, qd, CHASSIS, tr->hinge[0], tr->hinge[1], r, -1.0, grad, hess, &gc,
                  &gcd);
            point(tr->body, q, qd, LOAD, tr->hinge[2], tr->hinge[3], r, 1.0, grad, hess,
                  &gl, &gld);
            if (what & RTMBS_EVAL_PHI) phi[r] = gc + gl;
            if (what & RTMBS_EVAL_PHIQ) {
                for (i = 0; i < N; i++) phiq[N * r + i] = grad[i];
                phit[r] = 0.0;
            }
            if (what & RTMBS_EVAL_GAMMA) {
                acc = 0.0;
                for (i = 0; i < N; i++) acc += hess[i] * qd[i] * qd[i];
                gamma[r] = -acc;
            }
        }
    }
    return status;
}

rtmbs_status rtmbs_truck_linear_evaluate(const rtmbs_truck_linear* tr, double t, const double* q,
                                         const double* qd, int what, double* ws) {
    double *M = ws, *Q = M + N * N, *Jq = Q + N, *Jqd = Jq + N * N;
    double acc, u, du, v = tr->road[RTMBS_TRUCK_R_SPEED];
    int i, j, w;
    if (what & RTMBS_EVAL_M) diagonal_mass(tr->mass, M);
    if (what & RTMBS_EVAL_Q) {
        for (i = 0; i < N; i++) {
            acc = 0.0;
            for (j = 0; j < N; j++)
                acc -= tr->K[N * i + j] * (q[j] - tr->q_eq[j]) + tr->D[N * i + j] * qd[j];
            Q[i] = acc;
        }
        /* f(t): the road enters through the tyres (rear wheel coordinate 0, front 1) */
        for (w = 0; w < 2; w++) {
            u = rtmbs_truck_road(tr->road, tr->x_wheel[w] + v * t, &du);
            Q[w] += tr->k_tyre[w] * u + tr->d_tyre[w] * v * du;
        }
    }
    if (what & (RTMBS_EVAL_JAC | RTMBS_EVAL_JACS)) {
        const double* K = (what & RTMBS_EVAL_JAC) ? tr->K : tr->K_stiff;
        const double* D = (what & RTMBS_EVAL_JAC) ? tr->D : tr->D_stiff;
        for (i = 0; i < N * N; i++) {
            Jq[i] = -K[i];
            Jqd[i] = -D[i];
        }
    }
    return RTMBS_OK;
}

void rtmbs_truck_outputs(const double* hinge, const double* x_wheel, const double* road, double t,
                         const double* q, double* out) {
    const double a = hinge[0], b = hinge[1], al = hinge[2], bl = hinge[3];
    const double c = cos(q[3]), s = sin(q[3]), cl = cos(q[8]), sl = sin(q[8]);
    const double v = road[RTMBS_TRUCK_R_SPEED];
    double du;
    out[0] = q[2];
    out[1] = q[3];
    out[2] = q[4];
    out[3] = q[8];
    out[4] = (q[6] + al * cl - bl * sl) - (a * c - b * s);
    out[5] = (q[7] + al * sl + bl * cl) - (q[2] + a * s + b * c);
    out[6] = rtmbs_truck_road(road, x_wheel[0] + v * t, &du);
    out[7] = rtmbs_truck_road(road, x_wheel[1] + v * t, &du);
}

/* the outputs oidx of the truck whose hinge, wheel x and road are given */
static rtmbs_status pick_outputs(const double* hinge, const double* x_wheel, const double* road,
                                 double t, const double* q, const int64_t* oidx, int64_t nout,
                                 double* out) {
    double all[RTMBS_TRUCK_NOUT];
    int64_t k;
    rtmbs_truck_outputs(hinge, x_wheel, road, t, q, all);
    for (k = 0; k < nout; k++) {
        if (oidx[k] < 0 || oidx[k] >= RTMBS_TRUCK_NOUT) return RTMBS_ERR_ARGUMENT;
        out[k] = all[oidx[k]];
    }
    return RTMBS_OK;
}

static rtmbs_status truck_provider_evaluate(const void* ctx, double t, const double* q,
                                            const double* qd, int what, double* ws) {
    return rtmbs_truck_evaluate((const rtmbs_truck*)ctx, t, q, qd, what, ws);
}

static rtmbs_status truck_provider_outputs(const void* ctx, double t, const double* q,
                                           const double* qd, const int64_t* oidx, int64_t nout,
                                           double* out) {
    const rtmbs_truck* tr = (const rtmbs_truck*)ctx;
    const double x_wheel[2] = {tr->body[4 * REAR + 3], tr->body[4 * FRONT + 3]};
    (void)qd;
    return pick_outputs(tr->hinge, x_wheel, tr->road, t, q, oidx, nout, out);
}

static rtmbs_status truck_linear_provider_evaluate(const void* ctx, double t, const double* q,
                                                   const double* qd, int what, double* ws) {
    return rtmbs_truck_linear_evaluate((const rtmbs_truck_linear*)ctx, t, q, qd, what, ws);
}

static rtmbs_status truck_linear_provider_outputs(const void* ctx, double t, const double* q,
                                                  const double* qd, const int64_t* oidx,
                                                  int64_t nout, double* out) {
    const rtmbs_truck_linear* tl = (const rtmbs_truck_linear*)ctx;
    (void)qd;
    return pick_outputs(tl->hinge, tl->x_wheel, tl->road, t, q, oidx, nout, out);
}

void rtmbs_truck_provider(const rtmbs_truck* tr, rtmbs_provider* p) {
    p->n = N;
    p->m = tr->m;
    p->nout = RTMBS_TRUCK_NOUT;
    p->evaluate = truck_provider_evaluate;
    p->outputs = truck_provider_outputs;
    p->ctx = tr;
}

void rtmbs_truck_linear_provider(const rtmbs_truck_linear* tl, rtmbs_provider* p) {
    p->n = N;
    p->m = 0;
    p->nout = RTMBS_TRUCK_NOUT;
    p->evaluate = truck_linear_provider_evaluate;
    p->outputs = truck_linear_provider_outputs;
    p->ctx = tl;
}
