/**
 * The test kit: what integration tests and benchmarks share. The root has no side effects; the rest
 * by subpath: `/stack` (the stack's endpoints), `/bus` (bus configuration and collectors on the
 * stack), `/identifier/*` (the identifier's stack harness, probe driver, recorded traces, labelled
 * fault scenarios), `/loop/*` (the closed loop: the whole immune system as processes, trials, report).
 */
export { sleep, waitFor } from './wait.ts';
export { freePort, LogFollower, ManagedProcess, ProcessStartError, logMessage, type LogRecord, type ProcessSpec } from './processes.ts';
export { TcpProxy } from './tcp-proxy.ts';
