/* fmi3.c -- the FMI 3.0 co-simulation API of an exported model (instance.c does the work).
 *
 * Compiled with the FMI 3.0 headers (fmi3Functions.h and the two it includes: the standard's
 * interface definitions, taken from an FMI tool such as fmpy at export time) and model_data.c.
 * Value references: 0 time, 1 .. nin the inputs, nin + 1 .. nin + nout the outputs (Float64).
 * Model exchange, scheduled execution, clocks and event mode are not provided.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fmi3Functions.h"
#include "instance.h"

typedef struct {
    rtmbs_fmu* fmu;
    fmi3LogMessageCallback logger;
    fmi3InstanceEnvironment env;
    int debug;
} instance;

static void log_msg(instance* c, fmi3Status status, const char* category, const char* fmt, ...) {
    char buf[512];
    va_list ap;
    if (!c || !c->logger || (status == fmi3OK && !c->debug)) return;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    c->logger(c->env, status, category, buf);
}

static fmi3Status unsupported(fmi3Instance c, const char* what) {
    log_msg((instance*)c, fmi3Error, "logStatusError", "%s: not provided by this FMU", what);
    return fmi3Error;
}

const char* fmi3GetVersion(void) { return fmi3Version; }

fmi3Status fmi3SetDebugLogging(fmi3Instance c, fmi3Boolean loggingOn, size_t nCategories,
                               const fmi3String categories[]) {
    (void)nCategories; (void)categories;
    if (!c) return fmi3Error;
    ((instance*)c)->debug = loggingOn ? 1 : 0;
    return fmi3OK;
}

fmi3Instance fmi3InstantiateModelExchange(fmi3String instanceName, fmi3String instantiationToken,
                                          fmi3String resourcePath, fmi3Boolean visible,
                                          fmi3Boolean loggingOn,
                                          fmi3InstanceEnvironment instanceEnvironment,
                                          fmi3LogMessageCallback logMessage) {
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible;
    (void)loggingOn;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "this FMU supports co-simulation only");
    return NULL;
}

fmi3Instance fmi3InstantiateCoSimulation(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3Boolean eventModeUsed,
    fmi3Boolean earlyReturnAllowed, const fmi3ValueReference requiredIntermediateVariables[],
    size_t nRequiredIntermediateVariables, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3IntermediateUpdateCallback intermediateUpdate) {
    instance* c;
    rtmbs_status s;
    (void)instanceName; (void)resourcePath; (void)visible; (void)eventModeUsed;
    (void)earlyReturnAllowed; (void)requiredIntermediateVariables;
    (void)nRequiredIntermediateVariables; (void)intermediateUpdate;
    c = (instance*)calloc(1, sizeof(instance));
    if (!c) return NULL;
    c->logger = logMessage;
    c->env = instanceEnvironment;
    c->debug = loggingOn ? 1 : 0;
    if (!instantiationToken || strcmp(instantiationToken, rtmbs_fmu_the_plan.token) != 0) {
        log_msg(c, fmi3Error, "logStatusError", "instantiation token %s is not this FMU's (%s)",
                instantiationToken ? instantiationToken : "(null)", rtmbs_fmu_the_plan.token);
        free(c);
        return NULL;
    }
    c->fmu = rtmbs_fmu_new(&rtmbs_fmu_the_plan, &s);
    if (!c->fmu) {
        log_msg(c, fmi3Error, "logStatusError", "instantiation failed: engine status %d", (int)s);
        free(c);
        return NULL;
    }
    return (fmi3Instance)c;
}

fmi3Instance fmi3InstantiateScheduledExecution(
    fmi3String instanceName, fmi3String instantiationToken, fmi3String resourcePath,
    fmi3Boolean visible, fmi3Boolean loggingOn, fmi3InstanceEnvironment instanceEnvironment,
    fmi3LogMessageCallback logMessage, fmi3ClockUpdateCallback clockUpdate,
    fmi3LockPreemptionCallback lockPreemption, fmi3UnlockPreemptionCallback unlockPreemption) {
    (void)instanceName; (void)instantiationToken; (void)resourcePath; (void)visible;
    (void)loggingOn; (void)clockUpdate; (void)lockPreemption; (void)unlockPreemption;
    if (logMessage)
        logMessage(instanceEnvironment, fmi3Error, "logStatusError",
                   "this FMU supports co-simulation only");
    return NULL;
}

void fmi3FreeInstance(fmi3Instance c) {
    if (!c) return;
    rtmbs_fmu_free(((instance*)c)->fmu);
    free(c);
}

fmi3Status fmi3EnterInitializationMode(fmi3Instance c, fmi3Boolean toleranceDefined,
                                       fmi3Float64 tolerance, fmi3Float64 startTime,
                                       fmi3Boolean stopTimeDefined, fmi3Float64 stopTime) {
    (void)toleranceDefined; (void)tolerance; (void)stopTimeDefined; (void)stopTime;
    if (!c) return fmi3Error;
    rtmbs_fmu_set_start(((instance*)c)->fmu, startTime);
    return fmi3OK;
}

fmi3Status fmi3ExitInitializationMode(fmi3Instance c) { return c ? fmi3OK : fmi3Error; }
fmi3Status fmi3EnterEventMode(fmi3Instance c) { return unsupported(c, "event mode"); }
fmi3Status fmi3Terminate(fmi3Instance c) { return c ? fmi3OK : fmi3Error; }

fmi3Status fmi3Reset(fmi3Instance c) {
    if (!c) return fmi3Error;
    rtmbs_fmu_reset(((instance*)c)->fmu, rtmbs_fmu_the_plan.t0);
    return fmi3OK;
}

fmi3Status fmi3GetFloat64(fmi3Instance c, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, fmi3Float64 values[], size_t nValues) {
    instance* m = (instance*)c;
    rtmbs_status s;
    size_t i;
    if (!c || nValues < nValueReferences) return fmi3Error;
    for (i = 0; i < nValueReferences; i++)
        if (rtmbs_fmu_get(m->fmu, (int64_t)valueReferences[i], &values[i], &s) != 0) {
            if (s != RTMBS_OK)
                log_msg(m, fmi3Error, "logStatusError", "outputs at t = %.9g s: engine status %d",
                        rtmbs_fmu_time(m->fmu), (int)s);
            else
                log_msg(m, fmi3Error, "logStatusError", "no Float64 variable %u",
                        valueReferences[i]);
            return fmi3Error;
        }
    return fmi3OK;
}

fmi3Status fmi3SetFloat64(fmi3Instance c, const fmi3ValueReference valueReferences[],
                          size_t nValueReferences, const fmi3Float64 values[], size_t nValues) {
    instance* m = (instance*)c;
    size_t i;
    if (!c || nValues < nValueReferences) return fmi3Error;
    for (i = 0; i < nValueReferences; i++)
        if (rtmbs_fmu_set(m->fmu, (int64_t)valueReferences[i], values[i]) != 0) {
            log_msg(m, fmi3Error, "logStatusError", "variable %u is not an input",
                    valueReferences[i]);
            return fmi3Error;
        }
    return fmi3OK;
}

/* the variable types this FMU has none of: an error unless asked for no variable */
#define NO_VARIABLES(NAME, TYPE, CONST)                                                        \
    fmi3Status NAME(fmi3Instance c, const fmi3ValueReference valueReferences[],                \
                    size_t nValueReferences, CONST TYPE values[], size_t nValues) {            \
        (void)valueReferences; (void)values; (void)nValues;                                    \
        if (!c) return fmi3Error;                                                               \
        return nValueReferences ? unsupported(c, #NAME) : fmi3OK;                              \
    }
#define NOTHING
NO_VARIABLES(fmi3GetFloat32, fmi3Float32, NOTHING)
NO_VARIABLES(fmi3GetInt8, fmi3Int8, NOTHING)
NO_VARIABLES(fmi3GetUInt8, fmi3UInt8, NOTHING)
NO_VARIABLES(fmi3GetInt16, fmi3Int16, NOTHING)
NO_VARIABLES(fmi3GetUInt16, fmi3UInt16, NOTHING)
NO_VARIABLES(fmi3GetInt32, fmi3Int32, NOTHING)
NO_VARIABLES(fmi3GetUInt32, fmi3UInt32, NOTHING)
NO_VARIABLES(fmi3GetInt64, fmi3Int64, NOTHING)
NO_VARIABLES(fmi3GetUInt64, fmi3UInt64, NOTHING)
NO_VARIABLES(fmi3GetBoolean, fmi3Boolean, NOTHING)
NO_VARIABLES(fmi3GetString, fmi3String, NOTHING)
NO_VARIABLES(fmi3SetFloat32, fmi3Float32, const)
NO_VARIABLES(fmi3SetInt8, fmi3Int8, const)
NO_VARIABLES(fmi3SetUInt8, fmi3UInt8, const)
NO_VARIABLES(fmi3SetInt16, fmi3Int16, const)
NO_VARIABLES(fmi3SetUInt16, fmi3UInt16, const)
NO_VARIABLES(fmi3SetInt32, fmi3Int32, const)
NO_VARIABLES(fmi3SetUInt32, fmi3UInt32, const)
NO_VARIABLES(fmi3SetInt64, fmi3Int64, const)
NO_VARIABLES(fmi3SetUInt64, fmi3UInt64, const)
NO_VARIABLES(fmi3SetBoolean, fmi3Boolean, const)
NO_VARIABLES(fmi3SetString, fmi3String, const)

fmi3Status fmi3GetBinary(fmi3Instance c, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, size_t valueSizes[], fmi3Binary values[],
                         size_t nValues) {
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    return nValueReferences ? unsupported(c, "Binary variables") : fmi3OK;
}
fmi3Status fmi3SetBinary(fmi3Instance c, const fmi3ValueReference valueReferences[],
                         size_t nValueReferences, const size_t valueSizes[],
                         const fmi3Binary values[], size_t nValues) {
    (void)valueReferences; (void)valueSizes; (void)values; (void)nValues;
    return nValueReferences ? unsupported(c, "Binary variables") : fmi3OK;
}
fmi3Status fmi3GetClock(fmi3Instance c, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, fmi3Clock values[]) {
    (void)valueReferences; (void)values;
    return nValueReferences ? unsupported(c, "clocks") : fmi3OK;
}
fmi3Status fmi3SetClock(fmi3Instance c, const fmi3ValueReference valueReferences[],
                        size_t nValueReferences, const fmi3Clock values[]) {
    (void)valueReferences; (void)values;
    return nValueReferences ? unsupported(c, "clocks") : fmi3OK;
}

fmi3Status fmi3GetNumberOfVariableDependencies(fmi3Instance c, fmi3ValueReference valueReference,
                                               size_t* nDependencies) {
    (void)valueReference; (void)nDependencies;
    return unsupported(c, "variable dependencies");
}
fmi3Status fmi3GetVariableDependencies(fmi3Instance c, fmi3ValueReference dependent,
                                       size_t elementIndicesOfDependent[],
                                       fmi3ValueReference independents[],
                                       size_t elementIndicesOfIndependents[],
                                       fmi3DependencyKind dependencyKinds[],
                                       size_t nDependencies) {
    (void)dependent; (void)elementIndicesOfDependent; (void)independents;
    (void)elementIndicesOfIndependents; (void)dependencyKinds; (void)nDependencies;
    return unsupported(c, "variable dependencies");
}

/* -- FMU states: a copy of the instance's block of changing values ------------------------------ */
fmi3Status fmi3GetFMUState(fmi3Instance c, fmi3FMUState* FMUState) {
    instance* m = (instance*)c;
    if (!c || !FMUState) return fmi3Error;
    if (*FMUState) {
        rtmbs_fmu_state_get(m->fmu, (double*)*FMUState);
        return fmi3OK;
    }
    *FMUState = (fmi3FMUState)rtmbs_fmu_state_new(m->fmu);
    return *FMUState ? fmi3OK : fmi3Error;
}

fmi3Status fmi3SetFMUState(fmi3Instance c, fmi3FMUState FMUState) {
    if (!c || !FMUState) return fmi3Error;
    rtmbs_fmu_state_set(((instance*)c)->fmu, (const double*)FMUState);
    return fmi3OK;
}

fmi3Status fmi3FreeFMUState(fmi3Instance c, fmi3FMUState* FMUState) {
    (void)c;
    if (FMUState) {
        free(*FMUState);
        *FMUState = NULL;
    }
    return fmi3OK;
}

fmi3Status fmi3SerializedFMUStateSize(fmi3Instance c, fmi3FMUState FMUState, size_t* size) {
    (void)FMUState;
    if (!c) return fmi3Error;
    *size = (size_t)((instance*)c)->fmu->nmem * sizeof(double);
    return fmi3OK;
}

fmi3Status fmi3SerializeFMUState(fmi3Instance c, fmi3FMUState FMUState,
                                 fmi3Byte serializedState[], size_t size) {
    instance* m = (instance*)c;
    if (!c || !FMUState || size != (size_t)m->fmu->nmem * sizeof(double)) return fmi3Error;
    memcpy(serializedState, FMUState, size);
    return fmi3OK;
}

fmi3Status fmi3DeserializeFMUState(fmi3Instance c, const fmi3Byte serializedState[], size_t size,
                                   fmi3FMUState* FMUState) {
    instance* m = (instance*)c;
    if (!c || !FMUState || size != (size_t)m->fmu->nmem * sizeof(double)) {
        log_msg(m, fmi3Error, "logStatusError", "a serialized state of another size");
        return fmi3Error;
    }
    if (!*FMUState) *FMUState = (fmi3FMUState)malloc(size);
    if (!*FMUState) return fmi3Error;
    memcpy(*FMUState, serializedState, size);
    return fmi3OK;
}

fmi3Status fmi3GetDirectionalDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                        size_t nUnknowns, const fmi3ValueReference knowns[],
                                        size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                        fmi3Float64 sensitivity[], size_t nSensitivity) {
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed;
    (void)sensitivity; (void)nSensitivity;
    return unsupported(c, "directional derivatives");
}
fmi3Status fmi3GetAdjointDerivative(fmi3Instance c, const fmi3ValueReference unknowns[],
                                    size_t nUnknowns, const fmi3ValueReference knowns[],
                                    size_t nKnowns, const fmi3Float64 seed[], size_t nSeed,
                                    fmi3Float64 sensitivity[], size_t nSensitivity) {
    (void)unknowns; (void)nUnknowns; (void)knowns; (void)nKnowns; (void)seed; (void)nSeed;
    (void)sensitivity; (void)nSensitivity;
    return unsupported(c, "adjoint derivatives");
}

fmi3Status fmi3EnterConfigurationMode(fmi3Instance c) { return unsupported(c, "configuration mode"); }
fmi3Status fmi3ExitConfigurationMode(fmi3Instance c) { return unsupported(c, "configuration mode"); }

fmi3Status fmi3GetIntervalDecimal(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, fmi3Float64 intervals[],
                                  fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences; (void)nValueReferences; (void)intervals; (void)qualifiers;
    return unsupported(c, "clocks");
}
fmi3Status fmi3GetIntervalFraction(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, fmi3UInt64 counters[],
                                   fmi3UInt64 resolutions[], fmi3IntervalQualifier qualifiers[]) {
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    (void)qualifiers;
    return unsupported(c, "clocks");
}
fmi3Status fmi3GetShiftDecimal(fmi3Instance c, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, fmi3Float64 shifts[]) {
    (void)valueReferences; (void)nValueReferences; (void)shifts;
    return unsupported(c, "clocks");
}
fmi3Status fmi3GetShiftFraction(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, fmi3UInt64 counters[],
                                fmi3UInt64 resolutions[]) {
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(c, "clocks");
}
fmi3Status fmi3SetIntervalDecimal(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                  size_t nValueReferences, const fmi3Float64 intervals[]) {
    (void)valueReferences; (void)nValueReferences; (void)intervals;
    return unsupported(c, "clocks");
}
fmi3Status fmi3SetIntervalFraction(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                   size_t nValueReferences, const fmi3UInt64 counters[],
                                   const fmi3UInt64 resolutions[]) {
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(c, "clocks");
}
fmi3Status fmi3SetShiftDecimal(fmi3Instance c, const fmi3ValueReference valueReferences[],
                               size_t nValueReferences, const fmi3Float64 shifts[]) {
    (void)valueReferences; (void)nValueReferences; (void)shifts;
    return unsupported(c, "clocks");
}
fmi3Status fmi3SetShiftFraction(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                size_t nValueReferences, const fmi3UInt64 counters[],
                                const fmi3UInt64 resolutions[]) {
    (void)valueReferences; (void)nValueReferences; (void)counters; (void)resolutions;
    return unsupported(c, "clocks");
}

fmi3Status fmi3EvaluateDiscreteStates(fmi3Instance c) { return unsupported(c, "event mode"); }
fmi3Status fmi3UpdateDiscreteStates(fmi3Instance c, fmi3Boolean* discreteStatesNeedUpdate,
                                    fmi3Boolean* terminateSimulation,
                                    fmi3Boolean* nominalsOfContinuousStatesChanged,
                                    fmi3Boolean* valuesOfContinuousStatesChanged,
                                    fmi3Boolean* nextEventTimeDefined,
                                    fmi3Float64* nextEventTime) {
    (void)discreteStatesNeedUpdate; (void)terminateSimulation;
    (void)nominalsOfContinuousStatesChanged; (void)valuesOfContinuousStatesChanged;
    (void)nextEventTimeDefined; (void)nextEventTime;
    return unsupported(c, "event mode");
}

/* -- model exchange: not provided ------------------------------------------------------------ */
fmi3Status fmi3EnterContinuousTimeMode(fmi3Instance c) { return unsupported(c, "model exchange"); }
fmi3Status fmi3CompletedIntegratorStep(fmi3Instance c, fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                                       fmi3Boolean* enterEventMode,
                                       fmi3Boolean* terminateSimulation) {
    (void)noSetFMUStatePriorToCurrentPoint; (void)enterEventMode; (void)terminateSimulation;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3SetTime(fmi3Instance c, fmi3Float64 time) {
    (void)time;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3SetContinuousStates(fmi3Instance c, const fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3GetContinuousStateDerivatives(fmi3Instance c, fmi3Float64 derivatives[],
                                             size_t nContinuousStates) {
    (void)derivatives; (void)nContinuousStates;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3GetEventIndicators(fmi3Instance c, fmi3Float64 eventIndicators[],
                                  size_t nEventIndicators) {
    (void)eventIndicators; (void)nEventIndicators;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3GetContinuousStates(fmi3Instance c, fmi3Float64 continuousStates[],
                                   size_t nContinuousStates) {
    (void)continuousStates; (void)nContinuousStates;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3GetNominalsOfContinuousStates(fmi3Instance c, fmi3Float64 nominals[],
                                             size_t nContinuousStates) {
    (void)nominals; (void)nContinuousStates;
    return unsupported(c, "model exchange");
}
fmi3Status fmi3GetNumberOfEventIndicators(fmi3Instance c, size_t* nEventIndicators) {
    if (!c) return fmi3Error;
    *nEventIndicators = 0;
    return fmi3OK;
}
fmi3Status fmi3GetNumberOfContinuousStates(fmi3Instance c, size_t* nContinuousStates) {
    if (!c) return fmi3Error;
    *nContinuousStates = 0;
    return fmi3OK;
}

/* -- co-simulation -------------------------------------------------------------------------- */
fmi3Status fmi3EnterStepMode(fmi3Instance c) { return c ? fmi3OK : fmi3Error; }

fmi3Status fmi3GetOutputDerivatives(fmi3Instance c, const fmi3ValueReference valueReferences[],
                                    size_t nValueReferences, const fmi3Int32 orders[],
                                    fmi3Float64 values[], size_t nValues) {
    (void)valueReferences; (void)nValueReferences; (void)orders; (void)values; (void)nValues;
    return unsupported(c, "output derivatives");
}

fmi3Status fmi3DoStep(fmi3Instance c, fmi3Float64 currentCommunicationPoint,
                      fmi3Float64 communicationStepSize,
                      fmi3Boolean noSetFMUStatePriorToCurrentPoint,
                      fmi3Boolean* eventHandlingNeeded, fmi3Boolean* terminateSimulation,
                      fmi3Boolean* earlyReturn, fmi3Float64* lastSuccessfulTime) {
    instance* m = (instance*)c;
    char msg[256];
    int r;
    (void)noSetFMUStatePriorToCurrentPoint;
    if (!c) return fmi3Error;
    r = rtmbs_fmu_do_step(m->fmu, currentCommunicationPoint, communicationStepSize, msg,
                          sizeof msg);
    if (eventHandlingNeeded) *eventHandlingNeeded = fmi3False;
    if (terminateSimulation) *terminateSimulation = fmi3False;
    if (earlyReturn) *earlyReturn = fmi3False;
    if (lastSuccessfulTime) *lastSuccessfulTime = rtmbs_fmu_time(m->fmu);
    if (r != 0) {
        log_msg(m, fmi3Error, "logStatusError", "%s", msg);
        return fmi3Error;
    }
    return fmi3OK;
}

fmi3Status fmi3ActivateModelPartition(fmi3Instance c, fmi3ValueReference clockReference,
                                      fmi3Float64 activationTime) {
    (void)clockReference; (void)activationTime;
    return unsupported(c, "scheduled execution");
}
