/** The steps of an action at which the kill -9 benchmark and the crash tests stop a replica. */
export const CRASH_POINTS = [
  'after_planned',
  'after_snapshot',
  'after_started',
  'after_execute',
  'after_executed',
  'after_succeeded',
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

/** Test hook for the kill -9 benchmark: SIGKILL this process at a named step (EFFECTOR_TEST_CRASH_AT). */
export function crashPoint(deps: { crashAt?: CrashPoint; onCrash?: (step: CrashPoint) => void }, step: CrashPoint): void {
  if (deps.crashAt !== step) return;
  if (deps.onCrash) deps.onCrash(step);
  else process.kill(process.pid, 'SIGKILL');
}
