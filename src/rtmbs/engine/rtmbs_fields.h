/* rtmbs_fields.h -- every array of the model and of the data, declared once.
 *
 * The one table of fields (MuJoCo's mjxmacro.h is the pattern): each row names a field, its
 * number of dimensions, its unit and its meaning.  The C structs of rtmbs.h expand these rows;
 * the Python side (rtmbs.kernels.layouts) reads this file to pack the model buffers and to carve
 * its views of the data, in the same order.  Adding a field is one row here.
 *
 * Model fields are packed by Python (rtmbs.system.compile_model) into two flat buffers, one of
 * int64 and one of double, with a layout table of k x 6 entries (offset, ndim, d0, d1, d2, d3)
 * in row order; rtmbs_bind_model() turns buffer + layout into the pointers of rtmbs_model.
 * Data fields carry size expressions in the sizes of rtmbs_sizes (nbody, nrow1, nfrc, nblk,
 * nfun, nx), from which rtmbs_data_layout() computes the same layout table.
 */
#ifndef RTMBS_FIELDS_H
#define RTMBS_FIELDS_H

#define RTMBS_NFUNPAR 8   /* parameters of an input function (rtmbs.kernels.codes NPAR) */
#define RTMBS_NFOUT 13    /* outputs of a force element (rtmbs.kernels.codes NFOUT) */
#define RTMBS_NFPAR 32    /* parameters of a force element (rtmbs.kernels.codes NFPAR) */
#define RTMBS_WARNSLOTS 8 /* rows of the warning table (rtmbs.h: rtmbs_warning) */
#define RTMBS_COUNTSLOTS 16 /* counters (rtmbs.h: rtmbs_counter) */

/* ModelInts: int64_t, constant during a run.  FIELD(name, ndim, unit, meaning) */
#define RTMBS_MODEL_INTS(FIELD) \
    FIELD(body_qadr, 1, "", "first coordinate of each body (nb + 1; -1 for the ground)") \
    FIELD(body_rtype, 1, "", "rotation coordinates of each body (kernels.rotations ROT_*)") \
    FIELD(body_eprow, 1, "", "row of the Euler-parameter normalisation constraint (-1: none)") \
    FIELD(prim_type, 1, "", "constraint primitive of each primitive (kernels.cartesian PRIM_*)") \
    FIELD(prim_row, 1, "", "first constraint row of each primitive") \
    FIELD(prim_body, 2, "", "bodies i, j of each primitive") \
    FIELD(prim_fun, 1, "", "input function driving the primitive (-1: none)") \
    FIELD(frc_type, 1, "", "force element code") \
    FIELD(frc_body, 2, "", "bodies i, j of each force element") \
    FIELD(frc_fun, 2, "", "input functions of each force element (-1: none)") \
    FIELD(frc_tab, 2, "", "tables of each force element (-1: none)") \
    FIELD(frc_stiff, 1, "", "1 if the element's Jacobians enter the iteration matrix") \
    FIELD(fun_type, 1, "", "kind of each input function (kernels.functions FUN_*)") \
    FIELD(fun_tab, 1, "", "table of each input function (-1: none)") \
    FIELD(tab_adr, 1, "", "first entry of each table in tab_x, tab_y") \
    FIELD(tab_len, 1, "", "entries of each table") \
    FIELD(blk_pair, 2, "", "virtual Jacobian blocks: body a, body b, 1 if translational terms, 1 if a stiff element writes it") \
    FIELD(frc_blk, 2, "", "block of the (i,i), (i,j), (j,i), (j,j) couplings of each element") \
    FIELD(sns_spec, 2, "", "sensors (computed outputs): kind (sensors.h RTMBS_SNS_*), body, reference body, input function") \

/* ModelFloats: double, constant during a run.  FIELD(name, ndim, unit, meaning) */
#define RTMBS_MODEL_FLOATS(FIELD) \
    FIELD(body_mass, 1, "kg", "mass of each body, kg") \
    FIELD(body_inertia, 3, "kg m2", "inertia tensor at the centre of mass in body axes, kg m2") \
    FIELD(gravity, 1, "m/s2", "gravity vector, m/s2") \
    FIELD(prim_vec, 3, "", "marker points and axes of each primitive in body axes") \
    FIELD(prim_par, 2, "", "scalar parameters of each primitive (distance ...)") \
    FIELD(frc_vec, 3, "m", "marker points of each force element in body axes, m") \
    FIELD(frc_rot, 4, "", "marker axes of each force element in body axes") \
    FIELD(frc_par, 2, "", "parameters of each force element (kernels.cartesian NFPAR)") \
    FIELD(tab_x, 1, "", "abscissae of all tables") \
    FIELD(tab_y, 1, "", "ordinates of all tables") \
    FIELD(tyre_par, 2, "", "Magic Formula parameters of each tyre") \
    FIELD(road, 1, "", "packed road descriptions") \
    FIELD(sns_par, 2, "", "axis of each sensor in its body's axes (steer, spin), or its scale (input)") \

/* DataBuffers: double, one per run.  FIELD(name, ndim, d0, d1, d2, d3, unit, meaning); the
   dimensions are expressions in the sizes of rtmbs_sizes (see rtmbs.h) */
#define RTMBS_DATA(FIELD) \
    FIELD(fun_par, 2, nfun, RTMBS_NFUNPAR, 1, 1, "", "parameters of the input functions; channels hold their current value") \
    FIELD(xstate, 1, (nx + 1), 1, 1, 1, "", "extra first-order states (transient tyre deflections u, v)") \
    FIELD(kin_r, 2, (nbody + 1), 3, 1, 1, "m", "centre-of-mass position of each body, m") \
    FIELD(kin_rd, 2, (nbody + 1), 3, 1, 1, "m/s", "centre-of-mass velocity, m/s") \
    FIELD(kin_A, 3, (nbody + 1), 3, 3, 1, "", "rotation matrix body -> global") \
    FIELD(kin_G, 3, (nbody + 1), 3, 4, 1, "", "G(p): omega = G pdot") \
    FIELD(kin_dG, 4, (nbody + 1), 4, 3, 4, "", "dG/dp") \
    FIELD(kin_W, 3, (nbody + 1), 3, 4, 1, "", "Gdot") \
    FIELD(kin_w, 2, (nbody + 1), 3, 1, 1, "rad/s", "angular velocity, global axes, rad/s") \
    FIELD(kin_alpha, 2, (nbody + 1), 3, 1, 1, "", "Gdot pdot (angular acceleration at pdd = 0)") \
    FIELD(kin_dadp, 3, (nbody + 1), 3, 4, 1, "", "dalpha/dp") \
    FIELD(kin_dadpd, 3, (nbody + 1), 3, 4, 1, "", "dalpha/dpdot") \
    FIELD(d2G, 4, 4, 4, 3, 4, "", "second derivatives of G (Euler angles)") \
    FIELD(tmp, 2, 32, 3, 1, 1, "", "3-vector scratch") \
    FIELD(S, 3, 20, 3, 3, 1, "", "3x3 scratch") \
    FIELD(Dx, 2, nrow1, 12, 1, 1, "", "virtual-coordinate constraint Jacobian rows (12 columns: body i, body j)") \
    FIELD(beta, 1, nrow1, 1, 1, 1, "", "gamma of each constraint row in virtual coordinates") \
    FIELD(f, 1, 3, 1, 1, 1, "", "force of the current element") \
    FIELD(tau, 1, 3, 1, 1, 1, "", "torque of the current element") \
    FIELD(dfdx, 2, 3, 12, 1, 1, "", "df/d(dr_i, dpi_i, dr_j, dpi_j)") \
    FIELD(dfdv, 2, 3, 12, 1, 1, "", "df/d velocities") \
    FIELD(dtdx, 2, 3, 12, 1, 1, "", "dtau/d positions") \
    FIELD(dtdv, 2, 3, 12, 1, 1, "", "dtau/d velocities") \
    FIELD(arm_i, 1, 3, 1, 1, 1, "", "lever arm of the element on body i") \
    FIELD(sgj, 1, 3, 1, 1, 1, "", "marker j point in global axes") \
    FIELD(Dd, 2, 3, 12, 1, 1, "", "line Jacobian of a point-to-point element") \
    FIELD(Ddd, 2, 3, 12, 1, 1, "", "its time derivative") \
    FIELD(X, 2, 9, 12, 1, 1, "", "9x12 scratch") \
    FIELD(frc_out, 2, nfrc, RTMBS_NFOUT, 1, 1, "", "outputs of each force element (kernels.cartesian NFOUT columns)") \
    FIELD(mf, 1, 16, 1, 1, 1, "", "Magic Formula scratch") \
    FIELD(vQ, 2, (nbody + 1), 9, 1, 1, "", "forces in virtual coordinates per body (with a copy for Jacobians)") \
    FIELD(vK, 3, nblk, 6, 6, 1, "", "dQ/dq blocks in virtual coordinates") \
    FIELD(vC, 3, nblk, 6, 6, 1, "", "dQ/dqdot blocks in virtual coordinates") \
    FIELD(vP, 4, (nbody + 1), 2, 3, 4, "", "Euler-angle inertia terms -J_g dalpha/dp, -J_g dalpha/dpdot") \
    FIELD(KL, 3, 2, 6, 7, 1, "", "block mapping scratch") \
    FIELD(warning, 2, RTMBS_WARNSLOTS, 3, 1, 1, "", "warnings: count, last index, last time (rtmbs_warning rows)") \
    FIELD(left_worst, 1, 2, 1, 1, 1, "", "left-out redundant constraint rows: largest |Phi| of a violated one, its row (RTMBS_WARN_REDUNDANT)") \
    FIELD(counter, 1, RTMBS_COUNTSLOTS, 1, 1, 1, "", "operation counters (rtmbs_counter): identical for every step of a fixed-cost solver") \

#endif /* RTMBS_FIELDS_H */
