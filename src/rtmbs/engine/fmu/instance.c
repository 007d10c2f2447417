/* instance.c -- one co-simulation instance of an exported model: the li-euler step of the plan,
 * k fixed steps per communication step (as rtmbs.simulate: t_k = t_start + k h), the inputs set
 * as rtmbs.system.CartesianSystem.set_input does, the outputs evaluated at the communication
 * points as rtmbs_step_outputs does after a step. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "instance.h"

rtmbs_fmu* rtmbs_fmu_new(const rtmbs_fmu_plan* p, rtmbs_status* status) {
    rtmbs_fmu* f;
    int64_t n = p->nq, nvec, off;
    double* kfb;
    rtmbs_status s;
    f = (rtmbs_fmu*)calloc(1, sizeof(rtmbs_fmu));
    if (!f) {
        *status = RTMBS_ERR_ALLOC;
        return NULL;
    }
    f->plan = p;
    s = rtmbs_bind_model(&f->model, p->nq, p->nc, p->nrow1, p->nx, p->ibuf, p->ni, p->ilay,
                         p->fbuf, p->nf, p->flay);
    if (s != RTMBS_OK) {
        free(f);
        *status = s;
        return NULL;
    }
    nvec = RTMBS_LI_EULER_VEC(n, p->nc);
    f->nmem = RTMBS_FMU_HEADER + 2 * n + p->nin + p->nout + p->ns + p->nkfb +
              (p->kkt2_shared ? 0 : p->npfb) + 3 * p->wsize + nvec;
    f->mem = (double*)calloc((size_t)f->nmem, sizeof(double));
    if (!f->mem) {
        free(f);
        *status = RTMBS_ERR_ALLOC;
        return NULL;
    }
    off = RTMBS_FMU_HEADER;
    f->q = f->mem + off; off += n;
    f->qd = f->mem + off; off += n;
    f->u = f->mem + off; off += p->nin;
    f->y = f->mem + off; off += p->nout;
    s = rtmbs_bind_data(&f->model, &f->data, f->mem + off, p->ns, p->slay);
    off += p->ns;
    kfb = f->mem + off; off += p->nkfb;
    f->kkt.ib = p->kib;
    f->kkt.idx = p->kidx;
    f->kkt.fb = kfb;
    f->kkt2.ib = p->pib;
    f->kkt2.idx = p->pidx;
    if (p->kkt2_shared) {
        f->kkt2.fb = kfb;
    } else {
        f->kkt2.fb = f->mem + off;
        off += p->npfb;
    }
    f->w0 = f->mem + off; off += p->wsize;
    f->w1 = f->mem + off; off += p->wsize;
    f->wy = f->mem + off; off += p->wsize;
    f->vec = f->mem + off;
    if (s != RTMBS_OK) {
        rtmbs_fmu_free(f);
        *status = s;
        return NULL;
    }
    rtmbs_fmu_reset(f, p->t0);
    *status = RTMBS_OK;
    return f;
}

void rtmbs_fmu_free(rtmbs_fmu* f) {
    if (!f) return;
    free(f->mem);
    free(f);
}

void rtmbs_fmu_reset(rtmbs_fmu* f, double t0) {
    const rtmbs_fmu_plan* p = f->plan;
    int64_t i;
    memset(f->mem, 0, (size_t)f->nmem * sizeof(double));
    memcpy(f->data.buffer, p->sbuf, (size_t)p->ns * sizeof(double));
    if (p->nx) memcpy(f->data.xstate + 1, p->x0, (size_t)p->nx * sizeof(double));
    memcpy(f->kkt.fb, p->kfb, (size_t)p->nkfb * sizeof(double));
    if (!p->kkt2_shared) memcpy(f->kkt2.fb, p->pfb, (size_t)p->npfb * sizeof(double));
    memcpy(f->q, p->q0, (size_t)p->nq * sizeof(double));
    memcpy(f->qd, p->qd0, (size_t)p->nq * sizeof(double));
    for (i = 0; i < p->nin; i++) f->u[i] = p->in_start[i];
    rtmbs_fmu_set_start(f, t0);
}

void rtmbs_fmu_set_start(rtmbs_fmu* f, double t0) {
    f->mem[RTMBS_FMU_T] = t0;
    f->mem[RTMBS_FMU_TSTART] = t0;
    f->mem[RTMBS_FMU_K] = 0.0;
    f->mem[RTMBS_FMU_DIRTY] = 1.0;
}

double rtmbs_fmu_time(const rtmbs_fmu* f) { return f->mem[RTMBS_FMU_T]; }

int rtmbs_fmu_get(rtmbs_fmu* f, int64_t vr, double* value, rtmbs_status* status) {
    const rtmbs_fmu_plan* p = f->plan;
    *status = RTMBS_OK;
    if (vr == 0) {
        *value = f->mem[RTMBS_FMU_T];
        return 0;
    }
    if (vr >= 1 && vr <= p->nin) {
        *value = f->u[vr - 1];
        return 0;
    }
    if (vr > p->nin && vr <= p->nin + p->nout) {
        if (f->mem[RTMBS_FMU_DIRTY] != 0.0) { /* y(t, q, qdot, u) at the communication point */
            *status = rtmbs_step_outputs(&f->model, &f->data, f->mem[RTMBS_FMU_T], f->q, f->qd,
                                         f->wy, p->oidx, p->nout, f->y);
            if (*status != RTMBS_OK) return -1;
            f->mem[RTMBS_FMU_DIRTY] = 0.0;
        }
        *value = f->y[vr - 1 - p->nin];
        return 0;
    }
    return -1;
}

int rtmbs_fmu_set(rtmbs_fmu* f, int64_t vr, double value) {
    const rtmbs_fmu_plan* p = f->plan;
    double* par;
    if (vr < 1 || vr > p->nin) return -1;
    f->u[vr - 1] = value;
    /* the channel's (value, rate, acceleration, time) as CartesianSystem.set_input */
    par = f->data.fun_par + RTMBS_NFUNPAR * p->in_row[vr - 1];
    par[0] = value;
    par[1] = 0.0;
    par[2] = 0.0;
    par[3] = 0.0;
    f->mem[RTMBS_FMU_DIRTY] = 1.0;
    return 0;
}

int rtmbs_fmu_do_step(rtmbs_fmu* f, double t, double dt, char* msg, size_t len) {
    const rtmbs_fmu_plan* p = f->plan;
    const double h = p->opt.h;
    double* mem = f->mem;
    double diag[4], tk, now = mem[RTMBS_FMU_T];
    int64_t n, i, k = (int64_t)mem[RTMBS_FMU_K];
    rtmbs_status s;
    if (mem[RTMBS_FMU_FAILED] != 0.0) {
        snprintf(msg, len, "a step failed before t = %.9g s: reset the instance or set a state",
                 now);
        return -1;
    }
    n = (int64_t)floor(dt / h + 0.5);
    if (n < 1 || fabs((double)n * h - dt) > 1e-9 * (dt > h ? dt : h)) {
        snprintf(msg, len, "communication step %.9g s at t = %.9g s is not a multiple of the "
                 "solver step h = %.9g s", dt, t, h);
        return -1;
    }
    if (fabs(t - now) > 1e-9 * (fabs(now) > 1.0 ? fabs(now) : 1.0)) {
        snprintf(msg, len, "communication point t = %.9g s is not the instance's time %.9g s", t,
                 now);
        return -1;
    }
    for (i = 0; i < n; i++) {
        tk = mem[RTMBS_FMU_TSTART] + (double)k * h;
        s = rtmbs_li_euler_step(&f->model, &f->data, f->w0, f->w1, &f->kkt, &f->kkt2, f->vec,
                                f->q, f->qd, tk, &p->opt, NULL, 0, NULL, diag);
        if (s != RTMBS_OK || diag[0] == 0.0 || diag[2] == 0.0 || rtmbs_diverged(f->q, f->qd, p->nq)) {
            mem[RTMBS_FMU_FAILED] = 1.0;
            mem[RTMBS_FMU_DIRTY] = 1.0;
            if (s != RTMBS_OK)
                snprintf(msg, len, "the step from t = %.9g s failed: engine status %d", tk, (int)s);
            else if (diag[0] == 0.0 || diag[2] == 0.0)
                snprintf(msg, len, "the step from t = %.9g s failed: singular iteration matrix", tk);
            else
                snprintf(msg, len, "the step from t = %.9g s diverged (|q| or |qdot| >= %g or not "
                         "finite)", tk, RTMBS_DIVERGENCE_LIMIT);
            return -1;
        }
        k++;
        mem[RTMBS_FMU_K] = (double)k;
        mem[RTMBS_FMU_T] = mem[RTMBS_FMU_TSTART] + (double)k * h;
    }
    mem[RTMBS_FMU_DIRTY] = 1.0;
    return 0;
}

double* rtmbs_fmu_state_new(const rtmbs_fmu* f) {
    double* s = (double*)malloc((size_t)f->nmem * sizeof(double));
    if (s) rtmbs_fmu_state_get(f, s);
    return s;
}

void rtmbs_fmu_state_get(const rtmbs_fmu* f, double* state) {
    memcpy(state, f->mem, (size_t)f->nmem * sizeof(double));
}

void rtmbs_fmu_state_set(rtmbs_fmu* f, const double* state) {
    memcpy(f->mem, state, (size_t)f->nmem * sizeof(double));
}
