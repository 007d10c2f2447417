/* road.h -- road height and longitudinal slope from a packed two-track table
 * (rtmbs.vehicle.road.road_height_packed). Every road (flat, bumps, ramps, ISO 8608, CSV)
 * arrives as the same packed layout [x0, dx, y_left, y_right, N, z_left (N), z_right (N)]. */
#ifndef RTMBS_ROAD_H
#define RTMBS_ROAD_H

#include <stdint.h>

#define RTMBS_ROAD_HEADER 5

/* Height z at (x, y) (returned) and slope dz/dx (*slope) of the packed table of length len:
 * linear in x within a sample interval, linear in y between the tracks, held beyond the table
 * ends and beyond the tracks. Fixed cost (no search). */
double rtmbs_road_height_packed(const double* table, int64_t len, double x, double y,
                                double* slope);

#endif /* RTMBS_ROAD_H */
