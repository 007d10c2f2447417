/* functions.c -- input functions of time f(t), fdot(t), fddot(t): constants, smooth steps, ramps,
 * trapezoids, sines, tables, expressions and external channels (codes: rtmbs.kernels.codes FUN_*).
 *
 * Function k is row k of fun_type (model), fun_par (data: channels change during a run) and
 * fun_tab (model); a table is the slice tab_adr[j] .. tab_adr[j] + tab_len[j] - 1 of tab_x, tab_y.
 * An expression's program (rtmbs.model.expression) is stored as a table: opcodes in tab_x,
 * operands in tab_y.
 */
#include <math.h>

#include "functions.h"

/* kinds of input functions (rtmbs.kernels.codes FUN_*) */
#define FUN_CONST 0
#define FUN_STEP 1
#define FUN_RAMP 2
#define FUN_TRAPEZOID 3
#define FUN_SINE 4
#define FUN_TABLE 5
#define FUN_CHANNEL 6
#define FUN_EXPR 7

/* expression opcodes (rtmbs.model.expression) */
#define OP_PUSH 0
#define OP_TIME 1
#define OP_ADD 2
#define OP_SUB 3
#define OP_MUL 4
#define OP_DIV 5
#define OP_NEG 6
#define OP_POW 7 /* POW_CONST: u ** c, c the operand */
#define OP_SIN 8
#define OP_COS 9
#define OP_TAN 10
#define OP_EXP 11
#define OP_LOG 12
#define OP_SQRT 13
#define OP_TANH 14
#define OP_ATAN 15
#define OP_ABS 16

/* deepest stack a program may need (rtmbs.model.expression MAX_DEPTH, checked at compile time) */
#define RTMBS_EXPR_MAX_DEPTH 32

double rtmbs_table_eval(double x, const double* tx, const double* ty, int64_t adr, int64_t n,
                        double* slope) {
    int64_t lo, hi, mid;
    double s;
    if (x <= tx[adr]) {
        *slope = 0.0;
        return ty[adr];
    }
    if (x >= tx[adr + n - 1]) {
        *slope = 0.0;
        return ty[adr + n - 1];
    }
    lo = adr;
    hi = adr + n - 1;
    while (hi - lo > 1) { /* bisection: log2(n) steps, bounded by the table size */
        mid = (lo + hi) / 2;
        if (tx[mid] <= x)
            lo = mid;
        else
            hi = mid;
    }
    s = (ty[hi] - ty[lo]) / (tx[hi] - tx[lo]);
    *slope = s;
    return ty[lo] + s * (x - tx[lo]);
}

/* f(u), f'(u), f''(u) of the one-argument operation op (c: POW's exponent). */
static void unary(int op, double u, double c, double* f0, double* f1, double* f2) {
    double v, dv;
    switch (op) {
    case OP_POW:
        *f1 = c != 0.0 ? c * pow(u, c - 1.0) : 0.0;
        *f2 = c * (c - 1.0) != 0.0 ? c * (c - 1.0) * pow(u, c - 2.0) : 0.0;
        *f0 = pow(u, c);
        return;
    case OP_SIN:
        v = sin(u);
        *f0 = v; *f1 = cos(u); *f2 = -v;
        return;
    case OP_COS:
        v = cos(u);
        *f0 = v; *f1 = -sin(u); *f2 = -v;
        return;
    case OP_TAN:
        v = tan(u);
        dv = 1.0 + v * v;
        *f0 = v; *f1 = dv; *f2 = 2.0 * v * dv;
        return;
    case OP_EXP:
        v = exp(u);
        *f0 = v; *f1 = v; *f2 = v;
        return;
    case OP_LOG:
        *f0 = u > 0.0 ? log(u) : NAN;
        *f1 = 1.0 / u;
        *f2 = -1.0 / (u * u);
        return;
    case OP_SQRT:
        v = u >= 0.0 ? sqrt(u) : NAN;
        *f0 = v; *f1 = 0.5 / v; *f2 = -0.25 / (v * u);
        return;
    case OP_TANH:
        v = tanh(u);
        dv = 1.0 - v * v;
        *f0 = v; *f1 = dv; *f2 = -2.0 * v * dv;
        return;
    case OP_ATAN:
        dv = 1.0 / (1.0 + u * u);
        *f0 = atan(u); *f1 = dv; *f2 = -2.0 * u * dv * dv;
        return;
    case OP_ABS:
        *f0 = fabs(u);
        *f1 = u > 0.0 ? 1.0 : (u < 0.0 ? -1.0 : 0.0);
        *f2 = 0.0;
        return;
    default:
        *f0 = NAN; *f1 = NAN; *f2 = NAN;
        return;
    }
}

/* Value, first and second time derivative of the program ops/args[adr .. adr + n - 1] at t: a
 * stack machine on Taylor triples (u, udot, uddot), so the derivatives are exact (chain and
 * product rules). A program that over- or underflows the stack (never one made by
 * rtmbs.model.expression) gives NaN. */
void rtmbs_expr_eval(double t, const double* ops, const double* args, int64_t adr, int64_t n,
                     double* v, double* v1, double* v2) {
    double st[RTMBS_EXPR_MAX_DEPTH][3];
    double a0, a1, a2, b0, b1, b2, c0, c1, c2, f0, f1, f2, u1, u2;
    int64_t i;
    int sp = 0, op;
    for (i = adr; i < adr + n; i++) {
        op = (int)ops[i];
        if (op == OP_PUSH || op == OP_TIME) {
            if (sp >= RTMBS_EXPR_MAX_DEPTH) goto bad;
            st[sp][0] = op == OP_PUSH ? args[i] : t;
            st[sp][1] = op == OP_PUSH ? 0.0 : 1.0;
            st[sp][2] = 0.0;
            sp++;
        } else if (op <= OP_DIV) {
            if (sp < 2) goto bad;
            sp--;
            b0 = st[sp][0]; b1 = st[sp][1]; b2 = st[sp][2];
            a0 = st[sp - 1][0]; a1 = st[sp - 1][1]; a2 = st[sp - 1][2];
            if (op == OP_ADD) {
                c0 = a0 + b0; c1 = a1 + b1; c2 = a2 + b2;
            } else if (op == OP_SUB) {
                c0 = a0 - b0; c1 = a1 - b1; c2 = a2 - b2;
            } else if (op == OP_MUL) {
                c0 = a0 * b0;
                c1 = a1 * b0 + a0 * b1;
                c2 = a2 * b0 + 2.0 * a1 * b1 + a0 * b2;
            } else {
                c0 = a0 / b0;
                c1 = (a1 - c0 * b1) / b0;
                c2 = (a2 - 2.0 * c1 * b1 - c0 * b2) / b0;
            }
            st[sp - 1][0] = c0; st[sp - 1][1] = c1; st[sp - 1][2] = c2;
        } else if (op == OP_NEG) {
            if (sp < 1) goto bad;
            st[sp - 1][0] = -st[sp - 1][0];
            st[sp - 1][1] = -st[sp - 1][1];
            st[sp - 1][2] = -st[sp - 1][2];
        } else {
            if (sp < 1) goto bad;
            u1 = st[sp - 1][1];
            u2 = st[sp - 1][2];
            unary(op, st[sp - 1][0], args[i], &f0, &f1, &f2);
            st[sp - 1][0] = f0;
            st[sp - 1][1] = u1 != 0.0 ? f1 * u1 : 0.0;
            st[sp - 1][2] = (u1 != 0.0 ? f2 * u1 * u1 : 0.0) + (u2 != 0.0 ? f1 * u2 : 0.0);
        }
    }
    if (sp < 1) goto bad;
    *v = st[0][0]; *v1 = st[0][1]; *v2 = st[0][2];
    return;
bad:
    *v = NAN; *v1 = NAN; *v2 = NAN;
}

void rtmbs_fun_eval(const rtmbs_model* m, const rtmbs_data* d, int64_t k, double t, double* v,
                    double* v1, double* v2) {
    const double* p = d->fun_par + RTMBS_NFUNPAR * k;
    double t0, t1, h0, h1, T, dl, a, dt, tr, th, tf, amp, off, om, ph, slope;
    int64_t j;
    switch (m->fun_type[k]) {
    case FUN_CONST:
        *v = p[0]; *v1 = 0.0; *v2 = 0.0;
        return;
    case FUN_CHANNEL:
        /* value p0 with rate p1 and acceleration p2 at time p3 (a channel set by a Python
         * callable: its Taylor expansion about the last time it was set) */
        dt = t - p[3];
        *v = p[0] + dt * (p[1] + 0.5 * dt * p[2]);
        *v1 = p[1] + dt * p[2];
        *v2 = p[2];
        return;
    case FUN_STEP: /* cubic STEP (as in Adams): from p2 at t <= p0 to p3 at t >= p1 */
        t0 = p[0]; t1 = p[1]; h0 = p[2]; h1 = p[3];
        if (t <= t0) {
            *v = h0; *v1 = 0.0; *v2 = 0.0;
            return;
        }
        if (t >= t1) {
            *v = h1; *v1 = 0.0; *v2 = 0.0;
            return;
        }
        T = t1 - t0;
        dl = (t - t0) / T;
        a = h1 - h0;
        *v = h0 + a * dl * dl * (3.0 - 2.0 * dl);
        *v1 = a * 6.0 * dl * (1.0 - dl) / T;
        *v2 = a * (6.0 - 12.0 * dl) / (T * T);
        return;
    case FUN_RAMP:
        t0 = p[0]; slope = p[1]; off = p[2];
        if (t < t0) { /* from t0 on the slope applies (right derivative at t0) */
            *v = off; *v1 = 0.0; *v2 = 0.0;
            return;
        }
        *v = off + slope * (t - t0); *v1 = slope; *v2 = 0.0;
        return;
    case FUN_TRAPEZOID:
        t0 = p[0]; tr = p[1]; th = p[2]; tf = p[3]; amp = p[4]; off = p[5];
        *v2 = 0.0;
        if (t < t0) {
            *v = off; *v1 = 0.0;
        } else if (t < t0 + tr) {
            *v = off + amp * (t - t0) / tr; *v1 = amp / tr;
        } else if (t <= t0 + tr + th) {
            *v = off + amp; *v1 = 0.0;
        } else if (t < t0 + tr + th + tf) {
            *v = off + amp * (1.0 - (t - t0 - tr - th) / tf); *v1 = -amp / tf;
        } else {
            *v = off; *v1 = 0.0;
        }
        return;
    case FUN_SINE:
        amp = p[0]; om = p[1]; ph = p[2]; off = p[3]; t0 = p[4];
        if (t < t0) {
            *v = off + amp * sin(ph); *v1 = 0.0; *v2 = 0.0;
            return;
        }
        a = om * (t - t0) + ph;
        *v = off + amp * sin(a);
        *v1 = amp * om * cos(a);
        *v2 = -amp * om * om * sin(a);
        return;
    case FUN_TABLE:
        j = m->fun_tab[k];
        *v = rtmbs_table_eval(t, m->tab_x, m->tab_y, m->tab_adr[j], m->tab_len[j], &slope);
        *v1 = slope; *v2 = 0.0;
        return;
    case FUN_EXPR:
        j = m->fun_tab[k];
        rtmbs_expr_eval(t, m->tab_x, m->tab_y, m->tab_adr[j], m->tab_len[j], v, v1, v2);
        return;
    default:
        *v = 0.0; *v1 = 0.0; *v2 = 0.0;
        return;
    }
}
