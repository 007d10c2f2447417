/* table.c -- the one table of force element types, in registry order (the codes RTMBS_F_* of
 * stages.h: an element type's index in rtmbs.model.registry). Adding
 * an element = one C file and one row here. */
#include "elements.h"

typedef struct element_type_ {
    int64_t code;                /* RTMBS_F_* (checked: the row's index) */
    rtmbs_element_kernel kernel; /* its kernel */
    int torque_only;             /* a couple only, from rotations and angular velocities */
} element_type;

static const element_type element_types[] = {
    {RTMBS_F_SPRING_DAMPER, rtmbs_element_spring_damper, 0},
    {RTMBS_F_STOP, rtmbs_element_stop, 0},
    {RTMBS_F_BUSHING, rtmbs_element_bushing, 0},
    {RTMBS_F_FORCE, rtmbs_element_force, 0},
    {RTMBS_F_TORQUE, rtmbs_element_torque, 1},
    {RTMBS_F_JOINT_TORQUE, rtmbs_element_joint_torque, 1},
    {RTMBS_F_BRAKE, rtmbs_element_brake, 1},
    {RTMBS_F_TYRE, rtmbs_element_tyre, 0},
    {RTMBS_F_TORSION_SPRING, rtmbs_element_torsion_spring, 1},
};

#define NTYPES ((int64_t)(sizeof(element_types) / sizeof(element_types[0])))

rtmbs_element_kernel rtmbs_element_kernel_of(int64_t type) {
    return type >= 0 && type < NTYPES ? element_types[type].kernel : NULL;
}

int rtmbs_element_torque_only(int64_t type) {
    return type >= 0 && type < NTYPES ? element_types[type].torque_only : 0;
}
