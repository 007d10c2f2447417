/* model.c -- the model and the data: binding packed buffers, the data layout, make and free.
 *
 * Every loop here expands the field table of rtmbs_fields.h: no field is named twice.
 */
#include <stdlib.h>
#include <string.h>

#include "rtmbs.h"

typedef char rtmbs_check_warnslots[(RTMBS_NWARN <= RTMBS_WARNSLOTS) ? 1 : -1];
typedef char rtmbs_check_countslots[(RTMBS_NCOUNTER <= RTMBS_COUNTSLOTS) ? 1 : -1];

static const int model_int_ndim[] = {
#define RTMBS_X(name, ndim, unit, doc) ndim,
    RTMBS_MODEL_INTS(RTMBS_X)
#undef RTMBS_X
};
static const int model_float_ndim[] = {
#define RTMBS_X(name, ndim, unit, doc) ndim,
    RTMBS_MODEL_FLOATS(RTMBS_X)
#undef RTMBS_X
};

static int64_t layout_size(const int64_t* row) {
    int64_t size = 1;
    int64_t k;
    for (k = 0; k < row[1]; k++) size *= row[2 + k];
    return size;
}

/* A layout row is valid when its ndim matches and it lies inside the buffer. */
static int row_ok(const int64_t* row, int ndim, int64_t nbuf) {
    int64_t size;
    int k;
    if (row[1] != ndim || row[0] < 0) return 0;
    for (k = 0; k < ndim; k++)
        if (row[2 + k] < 0) return 0;
    size = layout_size(row);
    return row[0] + size <= nbuf || (size == 0 && row[0] <= nbuf);
}

static void copy_dims(int64_t* dim, const int64_t* row) {
    int k;
    for (k = 0; k < 4; k++) dim[k] = k < row[1] ? row[2 + k] : 1;
}

rtmbs_status rtmbs_bind_model(rtmbs_model* m, int64_t nq, int64_t nc, int64_t nrow1, int64_t nx,
                              const int64_t* ibuf, int64_t ni, const int64_t* ilay,
                              const double* fbuf, int64_t nf, const int64_t* flay) {
    int k;
    memset(m, 0, sizeof(*m));
    for (k = 0; k < RTMBS_NMODEL_INTS; k++)
        if (!row_ok(ilay + 6 * k, model_int_ndim[k], ni)) return RTMBS_ERR_LAYOUT;
    for (k = 0; k < RTMBS_NMODEL_FLOATS; k++)
        if (!row_ok(flay + 6 * k, model_float_ndim[k], nf)) return RTMBS_ERR_LAYOUT;
#define RTMBS_X(name, ndim, unit, doc)                              \
    m->name = ibuf + ilay[6 * RTMBS_MI_##name];                     \
    copy_dims(m->name##_dim, ilay + 6 * RTMBS_MI_##name);
    RTMBS_MODEL_INTS(RTMBS_X)
#undef RTMBS_X
#define RTMBS_X(name, ndim, unit, doc)                              \
    m->name = fbuf + flay[6 * RTMBS_MF_##name];                     \
    copy_dims(m->name##_dim, flay + 6 * RTMBS_MF_##name);
    RTMBS_MODEL_FLOATS(RTMBS_X)
#undef RTMBS_X
    if (nq < 0 || nc < 0 || nrow1 < 1 || nx < 0) return RTMBS_ERR_ARGUMENT;
    m->size.nq = nq;
    m->size.nc = nc;
    m->size.nbody = m->body_qadr_dim[0] - 1;
    m->size.nprim = m->prim_type_dim[0];
    m->size.nfrc = m->frc_type_dim[0];
    m->size.nfun = m->fun_type_dim[0];
    m->size.ntab = m->tab_adr_dim[0];
    m->size.nblk = m->blk_pair_dim[0];
    m->size.nrow1 = nrow1;
    m->size.nx = nx;
    if (m->size.nbody < 0) return RTMBS_ERR_LAYOUT;
    return RTMBS_OK;
}

void rtmbs_data_layout(const rtmbs_sizes* s, int64_t* lay, int64_t* total) {
    const int64_t nbody = s->nbody, nrow1 = s->nrow1, nfrc = s->nfrc, nblk = s->nblk;
    const int64_t nfun = s->nfun, nx = s->nx;
    int64_t off = 0;
    int64_t* row = lay;
    /* (every size name is used by some row; the casts keep unused ones quiet if rows change) */
    (void)nbody; (void)nrow1; (void)nfrc; (void)nblk; (void)nfun; (void)nx;
#define RTMBS_X(name, ndim, d0, d1, d2, d3, unit, doc)              \
    row[0] = off; row[1] = ndim;                                    \
    row[2] = d0; row[3] = (ndim) > 1 ? (d1) : 0;                    \
    row[4] = (ndim) > 2 ? (d2) : 0; row[5] = (ndim) > 3 ? (d3) : 0; \
    off += (int64_t)(d0) * (d1) * (d2) * (d3) > 0 ? (int64_t)(d0) * (d1) * (d2) * (d3) : 1; \
    row += 6;
    RTMBS_DATA(RTMBS_X)
#undef RTMBS_X
    *total = off > 0 ? off : 1;
}

rtmbs_status rtmbs_bind_data(const rtmbs_model* m, rtmbs_data* d, double* buf, int64_t nbuf,
                             const int64_t* slay) {
    int64_t lay[6 * RTMBS_NDATA];
    int64_t total;
    int k, c;
    rtmbs_data_layout(&m->size, lay, &total);
    if (nbuf < total) return RTMBS_ERR_SIZE;
    if (slay) {
        for (k = 0; k < RTMBS_NDATA; k++)
            for (c = 0; c < 2 + lay[6 * k + 1]; c++)
                if (slay[6 * k + c] != lay[6 * k + c]) return RTMBS_ERR_LAYOUT;
    }
    memset(d, 0, sizeof(*d));
#define RTMBS_X(name, ndim, d0, d1, d2, d3, unit, doc) d->name = buf + lay[6 * RTMBS_D_##name];
    RTMBS_DATA(RTMBS_X)
#undef RTMBS_X
    d->buffer = buf;
    d->nbuffer = nbuf;
    d->owned = 0;
    return RTMBS_OK;
}

/* dG/dp of Euler parameters is constant: G = 2 E(p) is linear in p (Nikravesh 1988, eq. 6.96) */
static void euler_parameter_dG(double* dG) {
    /* E(p) = [-e1  e0 -e3  e2; -e2  e3  e0 -e1; -e3 -e2  e1  e0] */
    static const double E[4][3][4] = {
        {{0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}},
        {{-1, 0, 0, 0}, {0, 0, 0, -1}, {0, 0, 1, 0}},
        {{0, 0, 0, 1}, {-1, 0, 0, 0}, {0, -1, 0, 0}},
        {{0, 0, -1, 0}, {0, 1, 0, 0}, {-1, 0, 0, 0}},
    };
    int k, a, c;
    for (k = 0; k < 4; k++)
        for (a = 0; a < 3; a++)
            for (c = 0; c < 4; c++) dG[12 * k + 4 * a + c] = 2.0 * E[k][a][c];
}

rtmbs_data* rtmbs_make_data(const rtmbs_model* m) {
    int64_t lay[6 * RTMBS_NDATA];
    int64_t total, b;
    rtmbs_data* d;
    double* buf;
    rtmbs_data_layout(&m->size, lay, &total);
    d = (rtmbs_data*)malloc(sizeof(rtmbs_data));
    buf = (double*)calloc((size_t)total, sizeof(double));
    if (!d || !buf) {
        free(d);
        free(buf);
        return NULL;
    }
    rtmbs_bind_data(m, d, buf, total, NULL);
    d->owned = 1;
    for (b = 0; b < m->size.nbody; b++)
        if (m->body_rtype[b] == 0) euler_parameter_dG(d->kin_dG + 48 * b);
    return d;
}

void rtmbs_free_data(rtmbs_data* d) {
    if (!d) return;
    if (d->owned) free(d->buffer);
    free(d);
}

void rtmbs_warn(rtmbs_data* d, rtmbs_warning w, int64_t index, double t) {
    double* row = d->warning + 3 * (int)w;
    row[0] += 1.0;
    row[1] = (double)index;
    row[2] = t;
}

int64_t rtmbs_warning_count(const rtmbs_data* d, rtmbs_warning w) {
    return (int64_t)d->warning[3 * (int)w];
}

void rtmbs_count(rtmbs_data* d, rtmbs_counter c, int64_t by) { d->counter[c] += (double)by; }

int64_t rtmbs_counter_value(const rtmbs_data* d, rtmbs_counter c) {
    return (int64_t)d->counter[c];
}

void rtmbs_step_begin(const rtmbs_data* d, double* snap) {
    int c;
    for (c = 0; c < RTMBS_CNT_STEP; c++) snap[c] = d->counter[c];
}

void rtmbs_step_end(rtmbs_data* d, const double* snap) {
    double* last = d->counter + RTMBS_CNT_LAST;
    int c, changed = 0;
    for (c = 0; c < RTMBS_CNT_STEP; c++) {
        double now = d->counter[c] - snap[c];
        if (now != last[c]) changed = 1;
        last[c] = now;
    }
    if (changed && d->counter[RTMBS_CNT_STEP] > 0.0) d->counter[RTMBS_CNT_COST_CHANGE] += 1.0;
    d->counter[RTMBS_CNT_STEP] += 1.0;
}
