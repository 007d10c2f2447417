/* plan.c -- read a li-euler step plan (rtmbs.engine.dump: magic, then named typed records). */
#include "plan.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static size_t type_size(char type) { return type == 'u' ? 4u : 8u; }

int rtmbs_plan_read(const char* path, rtmbs_plan* p, char* err, int nerr) {
    FILE* f = fopen(path, "rb");
    char magic[8];
    memset(p, 0, sizeof(*p));
    if (!f) {
        snprintf(err, (size_t)nerr, "%s: cannot open", path);
        return -1;
    }
    if (fread(magic, 1, 8, f) != 8 || memcmp(magic, "RTMBSPLN", 8) != 0) {
        snprintf(err, (size_t)nerr, "%s: not an rtmbs plan (magic)", path);
        fclose(f);
        return -1;
    }
    for (;;) {
        unsigned char head[32];
        rtmbs_plan_record* r;
        size_t got = fread(head, 1, 32, f);
        if (got == 0) break;
        if (got != 32 || p->nrec == RTMBS_PLAN_MAXREC) {
            snprintf(err, (size_t)nerr, "%s: truncated or too many records", path);
            fclose(f);
            return -1;
        }
        r = &p->rec[p->nrec];
        memcpy(r->name, head, 24);
        r->name[23] = '\0';
        r->type = (char)head[24];
        if (fread(&r->count, 8, 1, f) != 1 || r->count < 0 ||
            (r->type != 'i' && r->type != 'u' && r->type != 'd')) {
            snprintf(err, (size_t)nerr, "%s: bad record %s", path, r->name);
            fclose(f);
            return -1;
        }
        r->values = malloc(r->count ? (size_t)r->count * type_size(r->type) : 8u);
        if (!r->values || fread(r->values, type_size(r->type), (size_t)r->count, f) != (size_t)r->count) {
            snprintf(err, (size_t)nerr, "%s: truncated record %s", path, r->name);
            fclose(f);
            return -1;
        }
        p->nrec++;
    }
    fclose(f);
    return 0;
}

void* rtmbs_plan_get(const rtmbs_plan* p, const char* name, char type, int64_t* count) {
    int k;
    for (k = 0; k < p->nrec; k++)
        if (strcmp(p->rec[k].name, name) == 0 && p->rec[k].type == type) {
            if (count) *count = p->rec[k].count;
            return p->rec[k].values;
        }
    return NULL;
}

void rtmbs_plan_free(rtmbs_plan* p) {
    int k;
    for (k = 0; k < p->nrec; k++) free(p->rec[k].values);
    p->nrec = 0;
}

#define NEED(ptr, name, type, count)                                               \
    if (!((ptr) = rtmbs_plan_get(p, name, type, count))) {                         \
        snprintf(err, (size_t)nerr, "plan has no %s", name);                       \
        return -1;                                                                 \
    }

int rtmbs_plan_bind_step(const rtmbs_plan* p, rtmbs_plan_step* st, char* err, int nerr) {
    int64_t *sizes, *ibuf, *ilay, *flay, *slay, *wsize, *rows, ni, nf, ns, nx0, nrows;
    double *fbuf, *sbuf, *options, *q0, *qd0, *x0, *t0;
    rtmbs_status s;
    NEED(sizes, "sizes", 'i', NULL);
    NEED(ibuf, "ibuf", 'i', &ni);
    NEED(ilay, "ilay", 'i', NULL);
    NEED(fbuf, "fbuf", 'd', &nf);
    NEED(flay, "flay", 'i', NULL);
    NEED(sbuf, "sbuf", 'd', &ns);
    NEED(slay, "slay", 'i', NULL);
    NEED(st->kkt.ib, "kib", 'u', NULL);
    NEED(st->kkt.fb, "kfb", 'd', NULL);
    NEED(st->kkt.idx, "kidx", 'u', NULL);
    NEED(st->kkt2.ib, "pib", 'u', NULL);
    NEED(st->kkt2.fb, "pfb", 'd', NULL);
    NEED(st->kkt2.idx, "pidx", 'u', NULL);
    NEED(options, "options", 'd', NULL);
    NEED(wsize, "wsize", 'i', NULL);
    NEED(q0, "q0", 'd', &st->nq);
    NEED(qd0, "qd0", 'd', NULL);
    NEED(x0, "x0", 'd', &nx0);
    NEED(t0, "t0", 'd', NULL);
    (void)slay;
    s = rtmbs_bind_model(&st->model, sizes[0], sizes[1], sizes[2], sizes[3], ibuf, ni, ilay, fbuf,
                         nf, flay);
    if (s != RTMBS_OK) {
        snprintf(err, (size_t)nerr, "model: status %d", (int)s);
        return -1;
    }
    st->data = rtmbs_make_data(&st->model);
    if (!st->data || st->data->nbuffer != ns) {
        snprintf(err, (size_t)nerr, "data: %s",
                 st->data ? "layout differs from the plan's" : "out of memory");
        return -1;
    }
    memcpy(st->data->buffer, sbuf, (size_t)ns * sizeof(double)); /* channels at their initial values */
    memcpy(st->data->xstate + 1, x0, (size_t)nx0 * sizeof(double));
    st->opt.h = options[0];
    st->opt.jac_what = (int64_t)options[1];
    st->opt.implicit = (int)options[2];
    st->opt.stab = (int)options[3];
    st->opt.niter = (int)options[4];
    st->opt.gamma = options[5];
    st->nc = st->model.size.nc;
    st->opt.rows = NULL; /* the row map of a model with redundant rows (record "rows") */
    if ((rows = rtmbs_plan_get(p, "rows", 'i', &nrows)) != NULL) {
        if (rtmbs_rows_bind(&st->rows, rows, nrows, st->nc) != -1) {
            snprintf(err, (size_t)nerr, "rows: not a row map of the model's %lld rows",
                     (long long)st->nc);
            return -1;
        }
        st->opt.rows = &st->rows;
    }
    st->wsize = wsize[0];
    st->q0 = q0;
    st->qd0 = qd0;
    st->t0 = t0[0];
    return 0;
}
