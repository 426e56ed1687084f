export { startTraceIntake, TRACE_INTAKE_VERSION, type TraceIntake } from './worker.ts';
export { TraceIntakeEnv, traceIntakeConfigFromEnv } from './config.ts';
