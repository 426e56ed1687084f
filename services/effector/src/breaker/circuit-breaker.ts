/** What the breaker looks at before an incident's next repair. */
export interface BreakerInputs {
  /** Failed (and rolled back) repairs of this incident so far. */
  failedRepairs: number;
  /** Repairs started on the same component within the rate window (all incidents). */
  componentStartsInWindow: number;
}

export interface BreakerLimits {
  maxFailedRepairs: number;
  componentRateLimit: number;
  componentRateWindowMs: number;
}

export type BreakerVerdict = { open: false } | { open: true; reason: 'failed_repairs' | 'component_rate_limit'; message: string };

/**
 * Seed 003 §3.5: after N failed repairs of one incident stop trying (escalate to a human), and never
 * repair one component more than the rate limit allows in a window (a flapping fault must not turn
 * the effector into a restart loop).
 */
export function breakerVerdict(inputs: BreakerInputs, limits: BreakerLimits, component: string): BreakerVerdict {
  if (inputs.failedRepairs >= limits.maxFailedRepairs)
    return { open: true, reason: 'failed_repairs', message: `${inputs.failedRepairs} failed repairs (limit ${limits.maxFailedRepairs})` };
  if (inputs.componentStartsInWindow >= limits.componentRateLimit)
    return {
      open: true,
      reason: 'component_rate_limit',
      message: `${inputs.componentStartsInWindow} repairs of ${component} in the last ${Math.round(limits.componentRateWindowMs / 1000)} s (limit ${limits.componentRateLimit})`,
    };
  return { open: false };
}
