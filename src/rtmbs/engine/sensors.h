/* sensors.h -- computed outputs of a model (rtmbs.model.Sensor): vehicle angles, velocities and
 * accelerations in heading axes, steer angles, wheel spins and input values, evaluated from the
 * kinematics and the virtual forces an evaluation of Q has left in the data. */
#ifndef RTMBS_SENSORS_H
#define RTMBS_SENSORS_H

#include "stages.h"

/* sensor kinds (rtmbs.model.description.SENSOR_KINDS, in this order) */
enum {
    RTMBS_SNS_ROLL, RTMBS_SNS_PITCH, RTMBS_SNS_YAW,
    RTMBS_SNS_VX, RTMBS_SNS_VY, RTMBS_SNS_VZ,
    RTMBS_SNS_AX, RTMBS_SNS_AY, RTMBS_SNS_AZ,
    RTMBS_SNS_ROLL_RATE, RTMBS_SNS_PITCH_RATE, RTMBS_SNS_YAW_RATE,
    RTMBS_SNS_SIDESLIP, RTMBS_SNS_STEER, RTMBS_SNS_SPIN, RTMBS_SNS_INPUT,
    RTMBS_SNS_N
};

/* Value of sensor j (row j of the model's sns_spec = kind, body, reference body, input
 * function; sns_par = axis in the body's axes, scale) at time t, from the data of an evaluation
 * of Q at (t, q, qdot) (kinematics kin_*, virtual forces vQ). *ok = 0 for a bad row (unknown
 * kind or body out of range: the value is 0). */
double rtmbs_sensor(const rtmbs_model* m, const rtmbs_data* d, int64_t j, double t, int* ok);

/* out[k] = the named output oidx[k] (k < n) from the data of an evaluation of Q at time t: the
 * data buffer's entry oidx[k] >= 0, or sensor -1 - oidx[k]. Returns 0 if a sensor row is bad. */
int rtmbs_gather_outputs(const rtmbs_model* m, const rtmbs_data* d, double t, const int64_t* oidx,
                         int64_t n, double* out);

#endif /* RTMBS_SENSORS_H */
