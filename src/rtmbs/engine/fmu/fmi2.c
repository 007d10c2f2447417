/* fmi2.c -- the FMI 2.0 co-simulation API of an exported model (instance.c does the work).
 *
 * Compiled with the FMI 2.0 headers (fmi2Functions.h and the two it includes: the standard's
 * interface definitions, taken from an FMI tool such as fmpy at export time) and model_data.c.
 * Value references: 1 .. nin the inputs, nin + 1 .. nin + nout the outputs (0: time).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi2Functions.h"
#include "instance.h"

typedef struct {
    rtmbs_fmu* fmu;
    fmi2CallbackLogger logger;
    fmi2ComponentEnvironment env;
    char name[128];
    int debug;
} component;

static void log_msg(component* c, fmi2Status status, const char* category, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    if (!c->logger || (status == fmi2OK && !c->debug)) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->logger(c->env, c->name, status, category, buf); /* (the messages hold no '%') */
}

const char* fmi2GetTypesPlatform(void) { return fmi2TypesPlatform; }
const char* fmi2GetVersion(void) { return fmi2Version; }

fmi2Status fmi2SetDebugLogging(fmi2Component c, fmi2Boolean loggingOn, size_t nCategories,
                               const fmi2String categories[]) {
    (void)nCategories; (void)categories;
    if (!c) return fmi2Error;
    ((component*)c)->debug = loggingOn ? 1 : 0;
    return fmi2OK;
}

fmi2Component fmi2Instantiate(fmi2String instanceName, fmi2Type fmuType, fmi2String fmuGUID,
                              fmi2String fmuResourceLocation,
                              const fmi2CallbackFunctions* functions, fmi2Boolean visible,
                              fmi2Boolean loggingOn) {
    component* c;
    rtmbs_status s;
    (void)fmuResourceLocation; (void)visible;
    c = (component*)calloc(1, sizeof(component));
    if (!c) return NULL;
    if (functions) {
        c->logger = functions->logger;
        c->env = functions->componentEnvironment;
    }
    c->debug = loggingOn ? 1 : 0;
    strncpy(c->name, instanceName ? instanceName : "rtmbs", sizeof c->name - 1);
    if (fmuType != fmi2CoSimulation) {
        log_msg(c, fmi2Error, "logStatusError", "this FMU supports co-simulation only");
        free(c);
        return NULL;
    }
    if (!fmuGUID || strcmp(fmuGUID, rtmbs_fmu_the_plan.token) != 0) {
        log_msg(c, fmi2Error, "logStatusError", "GUID %s is not this FMU's (%s)",
                fmuGUID ? fmuGUID : "(null)", rtmbs_fmu_the_plan.token);
        free(c);
        return NULL;
    }
    c->fmu = rtmbs_fmu_new(&rtmbs_fmu_the_plan, &s);
    if (!c->fmu) {
        log_msg(c, fmi2Error, "logStatusError", "instantiation failed: engine status %d", (int)s);
        free(c);
        return NULL;
    }
    return (fmi2Component)c;
}

void fmi2FreeInstance(fmi2Component c) {
    if (!c) return;
    rtmbs_fmu_free(((component*)c)->fmu);
    free(c);
}

fmi2Status fmi2SetupExperiment(fmi2Component c, fmi2Boolean toleranceDefined, fmi2Real tolerance,
                               fmi2Real startTime, fmi2Boolean stopTimeDefined,
                               fmi2Real stopTime) {
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    if (!c) return fmi2Error;
    rtmbs_fmu_set_start(((component*)c)->fmu, startTime);
    return fmi2OK;
}

fmi2Status fmi2EnterInitializationMode(fmi2Component c) { return c ? fmi2OK : fmi2Error; }
fmi2Status fmi2ExitInitializationMode(fmi2Component c) { return c ? fmi2OK : fmi2Error; }
fmi2Status fmi2Terminate(fmi2Component c) { return c ? fmi2OK : fmi2Error; }

fmi2Status fmi2Reset(fmi2Component c) {
    if (!c) return fmi2Error;
    rtmbs_fmu_reset(((component*)c)->fmu, rtmbs_fmu_the_plan.t0);
    return fmi2OK;
}

fmi2Status fmi2GetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       fmi2Real value[]) {
    component* m = (component*)c;
    rtmbs_status s;
    size_t i;
    if (!c) return fmi2Error;
    for (i = 0; i < nvr; i++)
        if (rtmbs_fmu_get(m->fmu, (int64_t)vr[i], &value[i], &s) != 0) {
            if (s != RTMBS_OK)
                log_msg(m, fmi2Error, "logStatusError", "outputs at t = %.9g s: engine status %d",
                        rtmbs_fmu_time(m->fmu), (int)s);
            else
                log_msg(m, fmi2Error, "logStatusError", "no Real variable %u", vr[i]);
            return fmi2Error;
        }
    return fmi2OK;
}

fmi2Status fmi2SetReal(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                       const fmi2Real value[]) {
    component* m = (component*)c;
    size_t i;
    if (!c) return fmi2Error;
    for (i = 0; i < nvr; i++)
        if (rtmbs_fmu_set(m->fmu, (int64_t)vr[i], value[i]) != 0) {
            log_msg(m, fmi2Error, "logStatusError", "variable %u is not an input", vr[i]);
            return fmi2Error;
        }
    return fmi2OK;
}

static fmi2Status no_variables(fmi2Component c, size_t nvr) {
    if (!c) return fmi2Error;
    if (nvr) {
        log_msg((component*)c, fmi2Error, "logStatusError", "this FMU has Real variables only");
        return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status fmi2GetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Integer value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}
fmi2Status fmi2GetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          fmi2Boolean value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}
fmi2Status fmi2GetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         fmi2String value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}
fmi2Status fmi2SetInteger(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Integer value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}
fmi2Status fmi2SetBoolean(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                          const fmi2Boolean value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}
fmi2Status fmi2SetString(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                         const fmi2String value[]) {
    (void)vr; (void)value;
    return no_variables(c, nvr);
}

/* -- FMU states: a copy of the instance's block of changing values ------------------------------ */
fmi2Status fmi2GetFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
    component* m = (component*)c;
    if (!c || !FMUstate) return fmi2Error;
    if (*FMUstate) {
        rtmbs_fmu_state_get(m->fmu, (double*)*FMUstate);
        return fmi2OK;
    }
    *FMUstate = (fmi2FMUstate)rtmbs_fmu_state_new(m->fmu);
    return *FMUstate ? fmi2OK : fmi2Error;
}

fmi2Status fmi2SetFMUstate(fmi2Component c, fmi2FMUstate FMUstate) {
    if (!c || !FMUstate) return fmi2Error;
    rtmbs_fmu_state_set(((component*)c)->fmu, (const double*)FMUstate);
    return fmi2OK;
}

fmi2Status fmi2FreeFMUstate(fmi2Component c, fmi2FMUstate* FMUstate) {
    (void)c;
    if (FMUstate) {
        free(*FMUstate);
        *FMUstate = NULL;
    }
    return fmi2OK;
}

fmi2Status fmi2SerializedFMUstateSize(fmi2Component c, fmi2FMUstate FMUstate, size_t* size) {
    (void)FMUstate;
    if (!c) return fmi2Error;
    *size = (size_t)((component*)c)->fmu->nmem * sizeof(double);
    return fmi2OK;
}

fmi2Status fmi2SerializeFMUstate(fmi2Component c, fmi2FMUstate FMUstate,
                                 fmi2Byte serializedState[], size_t size) {
    component* m = (component*)c;
    if (!c || !FMUstate || size != (size_t)m->fmu->nmem * sizeof(double)) return fmi2Error;
    memcpy(serializedState, FMUstate, size);
    return fmi2OK;
}

fmi2Status fmi2DeSerializeFMUstate(fmi2Component c, const fmi2Byte serializedState[],
                                   size_t size, fmi2FMUstate* FMUstate) {
    component* m = (component*)c;
    if (!c || !FMUstate || size != (size_t)m->fmu->nmem * sizeof(double)) {
        if (c) log_msg(m, fmi2Error, "logStatusError", "a serialized state of another size");
        return fmi2Error;
    }
    if (!*FMUstate) *FMUstate = (fmi2FMUstate)malloc(size);
    if (!*FMUstate) return fmi2Error;
    memcpy(*FMUstate, serializedState, size);
    return fmi2OK;
}

fmi2Status fmi2GetDirectionalDerivative(fmi2Component c, const fmi2ValueReference vUnknown_ref[],
                                        size_t nUnknown, const fmi2ValueReference vKnown_ref[],
                                        size_t nKnown, const fmi2Real dvKnown[],
                                        fmi2Real dvUnknown[]) {
    (void)vUnknown_ref; (void)nUnknown; (void)vKnown_ref; (void)nKnown; (void)dvKnown;
    (void)dvUnknown;
    if (c) log_msg((component*)c, fmi2Error, "logStatusError", "no directional derivatives");
    return fmi2Error;
}

/* -- co-simulation -------------------------------------------------------------------------- */
fmi2Status fmi2SetRealInputDerivatives(fmi2Component c, const fmi2ValueReference vr[], size_t nvr,
                                       const fmi2Integer order[], const fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    if (c) log_msg((component*)c, fmi2Error, "logStatusError", "no input derivatives");
    return fmi2Error;
}

fmi2Status fmi2GetRealOutputDerivatives(fmi2Component c, const fmi2ValueReference vr[],
                                        size_t nvr, const fmi2Integer order[], fmi2Real value[]) {
    (void)vr; (void)nvr; (void)order; (void)value;
    if (c) log_msg((component*)c, fmi2Error, "logStatusError", "no output derivatives");
    return fmi2Error;
}

fmi2Status fmi2DoStep(fmi2Component c, fmi2Real currentCommunicationPoint,
                      fmi2Real communicationStepSize, fmi2Boolean noSetFMUStatePriorToCurrentPoint) {
    component* m = (component*)c;
    char msg[256];
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!c) return fmi2Error;
    if (rtmbs_fmu_do_step(m->fmu, currentCommunicationPoint, communicationStepSize, msg,
                          sizeof msg) != 0) {
        log_msg(m, fmi2Error, "logStatusError", "%s", msg);
        return fmi2Error;
    }
    return fmi2OK;
}

fmi2Status fmi2CancelStep(fmi2Component c) {
    (void)c;
    return fmi2Error; /* doStep never returns fmi2Pending */
}

fmi2Status fmi2GetStatus(fmi2Component c, const fmi2StatusKind s, fmi2Status* value) {
    (void)c; (void)s; (void)value;
    return fmi2Discard;
}
fmi2Status fmi2GetRealStatus(fmi2Component c, const fmi2StatusKind s, fmi2Real* value) {
    if (!c) return fmi2Error;
    if (s == fmi2LastSuccessfulTime) {
        *value = rtmbs_fmu_time(((component*)c)->fmu);
        return fmi2OK;
    }
    return fmi2Discard;
}
fmi2Status fmi2GetIntegerStatus(fmi2Component c, const fmi2StatusKind s, fmi2Integer* value) {
    (void)c; (void)s; (void)value;
    return fmi2Discard;
}
fmi2Status fmi2GetBooleanStatus(fmi2Component c, const fmi2StatusKind s, fmi2Boolean* value) {
    (void)c; (void)s; (void)value;
    return fmi2Discard;
}
fmi2Status fmi2GetStringStatus(fmi2Component c, const fmi2StatusKind s, fmi2String* value) {
    (void)c; (void)s; (void)value;
    return fmi2Discard;
}
