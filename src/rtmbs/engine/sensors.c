/* sensors.c -- computed outputs (sensors.h).
 *
 * Angles: roll phi, pitch theta, yaw psi of a body by the z-y-x sequence of ISO 8855
 * (A = Rz(psi) Ry(theta) Rx(phi), body to global): phi = atan2(A32, A33), theta = -asin(A31),
 * psi = atan2(A21, A11) (yaw in (-pi, pi]).
 * Heading axes (ISO 8855 intermediate axis system): x_h the body's x axis projected on the
 * horizontal plane (cos psi, sin psi, 0), y_h = (-sin psi, cos psi, 0), z_h vertical.
 * Velocity and acceleration are those of the centre of mass of all moving bodies:
 * v_G = sum m_i rdot_i / M, and by Newton's second law for the system a_G = sum F_ext / M, the
 * sum of the translational virtual forces of every body (weights and element forces: internal
 * element forces cancel in pairs; exact while no joint ties a body to the ground).
 * Sideslip beta = atan2(v_y, v_x) of v_G in heading axes. Rates: the body's angular velocity in
 * heading axes (the yaw rate is omega_z). Steer: the angle about the reference body's z of the
 * body's axis a (a wheel's spin axis, turned to point left), delta = atan2(-a_x, a_y) in the
 * reference's axes. Spin: omega . (A a), the angular velocity about the body's axis a.
 */
#include <math.h>

#include "functions.h"
#include "sensors.h"

static void heading(const double* A, double* c, double* s) {
    double n = sqrt(A[0] * A[0] + A[3] * A[3]);
    if (n > 0.0) {
        *c = A[0] / n;
        *s = A[3] / n;
    } else { /* x axis vertical: heading undefined, global axes */
        *c = 1.0;
        *s = 0.0;
    }
}

double rtmbs_sensor(const rtmbs_model* m, const rtmbs_data* d, int64_t j, double t, int* ok) {
    const int64_t nb = m->size.nbody;
    const int64_t* sp = m->sns_spec + 4 * j;
    const double* par = m->sns_par + 3 * j;
    const int64_t kind = sp[0], b = sp[1], ref = sp[2];
    const double *A, *w;
    double c, s, v[3] = {0.0, 0.0, 0.0}, mass = 0.0, a[3], ar[3];
    int64_t i, k;
    *ok = 1;
    if (kind == RTMBS_SNS_INPUT) {
        double f, f1, f2;
        if (sp[3] < 0 || sp[3] >= m->size.nfun) goto bad;
        rtmbs_fun_eval(m, d, sp[3], t, &f, &f1, &f2);
        return par[0] * f;
    }
    if (kind < 0 || kind >= RTMBS_SNS_N || b < 0 || b >= nb) goto bad;
    A = d->kin_A + 9 * b;
    w = d->kin_w + 3 * b;
    heading(A, &c, &s);
    switch (kind) {
    case RTMBS_SNS_ROLL:
        return atan2(A[7], A[8]);
    case RTMBS_SNS_PITCH:
        return asin(A[6] > 1.0 ? -1.0 : (A[6] < -1.0 ? 1.0 : -A[6]));
    case RTMBS_SNS_YAW:
        return atan2(A[3], A[0]);
    case RTMBS_SNS_ROLL_RATE:
        return c * w[0] + s * w[1];
    case RTMBS_SNS_PITCH_RATE:
        return -s * w[0] + c * w[1];
    case RTMBS_SNS_YAW_RATE:
        return w[2];
    case RTMBS_SNS_STEER:
    case RTMBS_SNS_SPIN:
        for (k = 0; k < 3; k++) a[k] = A[3 * k] * par[0] + A[3 * k + 1] * par[1] + A[3 * k + 2] * par[2];
        if (kind == RTMBS_SNS_SPIN) return w[0] * a[0] + w[1] * a[1] + w[2] * a[2];
        if (ref < 0 || ref >= nb) goto bad;
        A = d->kin_A + 9 * ref; /* a in the reference's axes: A_ref^T a */
        for (k = 0; k < 3; k++) ar[k] = A[k] * a[0] + A[3 + k] * a[1] + A[6 + k] * a[2];
        if (ar[1] < 0.0) {
            ar[0] = -ar[0];
            ar[1] = -ar[1];
        }
        return atan2(-ar[0], ar[1]);
    default:
        break;
    }
    /* velocity or acceleration of the centre of mass of the moving bodies */
    for (i = 0; i < nb; i++) {
        const double mi = m->body_mass[i];
        const int acc = kind == RTMBS_SNS_AX || kind == RTMBS_SNS_AY || kind == RTMBS_SNS_AZ;
        for (k = 0; k < 3; k++) v[k] += acc ? d->vQ[9 * i + k] : mi * d->kin_rd[3 * i + k];
        mass += mi;
    }
    if (!(mass > 0.0)) goto bad;
    for (k = 0; k < 3; k++) v[k] /= mass;
    switch (kind) {
    case RTMBS_SNS_VX:
    case RTMBS_SNS_AX:
        return c * v[0] + s * v[1];
    case RTMBS_SNS_VY:
    case RTMBS_SNS_AY:
        return -s * v[0] + c * v[1];
    case RTMBS_SNS_VZ:
    case RTMBS_SNS_AZ:
        return v[2];
    default: /* RTMBS_SNS_SIDESLIP */
        return atan2(-s * v[0] + c * v[1], c * v[0] + s * v[1]);
    }
bad:
    *ok = 0;
    return 0.0;
}

int rtmbs_gather_outputs(const rtmbs_model* m, const rtmbs_data* d, double t, const int64_t* oidx,
                         int64_t n, double* out) {
    int64_t k;
    int ok = 1, good;
    for (k = 0; k < n; k++) {
        out[k] = oidx[k] >= 0 ? d->buffer[oidx[k]] : rtmbs_sensor(m, d, -1 - oidx[k], t, &good);
        if (oidx[k] < 0 && !good) ok = 0;
    }
    return ok;
}
