/* road.c -- the road under a tyre: a uniformly sampled two-track table, linear interpolation
 * in x and y (rtmbs.vehicle.road.road_height_packed; docs/roads.md). */
#include "road.h"

/* the height and slope of track `il` (first sample of the track) at interval i, fraction f */
static void track(const double* table, int64_t il, double f, int inside, double inv_dx,
                  double* z, double* s) {
    double dz;
    if (!inside) {
        *z = table[il];
        *s = 0.0;
        return;
    }
    dz = table[il + 1] - table[il];
    *z = table[il] + f * dz;
    *s = dz * inv_dx;
}

double rtmbs_road_height_packed(const double* table, int64_t len, double x, double y,
                                double* slope) {
    const double x0 = table[0], dx = table[1];
    const int64_t n = (len - RTMBS_ROAD_HEADER) / 2; /* = table[4] */
    const double s = (x - x0) / dx;
    int64_t i, il, ir;
    int inside = 1;
    double f, inv_dx, zl, zr, sl, sr, w;
    if (!(s > 0.0)) { /* (also a NaN x: held at the start, never an index from NaN) */
        i = 0;
        f = 0.0;
        inside = 0;
    } else if (s >= (double)(n - 1)) {
        i = n - 1;
        f = 0.0;
        inside = 0;
    } else {
        i = (int64_t)s;
        if (i > n - 2) i = n - 2;
        f = s - (double)i;
    }
    il = RTMBS_ROAD_HEADER + i;
    ir = il + n;
    inv_dx = 1.0 / dx;
    track(table, il, f, inside, inv_dx, &zl, &sl);
    track(table, ir, f, inside, inv_dx, &zr, &sr);
    w = (y - table[3]) / (table[2] - table[3]);
    if (w < 0.0)
        w = 0.0;
    else if (w > 1.0)
        w = 1.0;
    if (slope) *slope = sr + w * (sl - sr);
    return zr + w * (zl - zr);
}
