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
