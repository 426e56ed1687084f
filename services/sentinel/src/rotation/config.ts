import { z } from 'zod';
import { NamedTokensEnv } from '@rag-immune/worker-runtime';
import { ApiRolesEnv } from './api-roles.ts';

const number = (schema: z.ZodNumber) => z.coerce.number().pipe(schema);
const int = (min: number, max: number) => number(z.number().int().min(min).max(max));

/**
 * The probe-set rotation's environment (issue 38 item 4, the design's monthly refresh, section 3.1),
 * each variable named in the error when it is wrong. Off unless PROBE_ROTATION=1.
 */
export const RotationEnvSchema = z.object({
  PROBE_ROTATION: z.enum(['0', '1']).default('0'),
  /** A new proposal at most this often (the design's monthly refresh). */
  ROTATION_INTERVAL_DAYS: number(z.number().gt(0).max(366)).default(30),
  /** How often the schedule looks whether a proposal is due (and retries one skipped for an incident). */
  ROTATION_CHECK_S: int(1, 86_400).default(3600),
  /** Where proposals are kept; default `<SENTINEL_PROBES_FILE>.proposals.json`, next to the probe set. */
  ROTATION_PROPOSAL_FILE: z.string().min(1).optional(),
  /** Runs a probe needs in the window before its history can retire it (the N of "never moved over N runs"). */
  ROTATION_MIN_RUNS: int(2, 100_000).default(20),
  /** An online FCS that stayed above this over every run never moved: the probe has no warning value. */
  ROTATION_UNMOVING_ABOVE: number(z.number().min(0).max(1)).default(0.95),
  /** At most this share of the active probes is retired by one proposal (a fault-free month cannot empty the set). */
  ROTATION_MAX_RETIRE_SHARE: number(z.number().min(0).max(1)).default(0.25),
  /** Traffic clusters asked at least this often in the window are candidates. */
  ROTATION_MIN_ASKS: int(1, 1_000_000).default(5),
  /** Frequent and fragile candidates added by one proposal, at most. */
  ROTATION_MAX_ADD_FREQUENT: int(0, 100).default(3),
  ROTATION_MAX_ADD_FRAGILE: int(0, 100).default(3),
  /** An answer is weak when its top retrieval score is below this (or nothing was retrieved). */
  ROTATION_LOW_SCORE: number(z.number().min(0).max(1)).default(0.3),
  /** A cluster is fragile when at least this share of its answers were weak (or its segment was flagged). */
  ROTATION_FRAGILE_SHARE: number(z.number().gt(0).max(1)).default(0.2),
  /** User traces read per proposal, at most (newest window first is not needed: counts, not order). */
  ROTATION_MAX_TRACES: int(100, 1_000_000).default(50_000),
  /** The probe-set builder's vetting of each candidate (runs, FCS spread, attribution), as `immune probes build`. */
  ROTATION_BUILDER_RUNS: int(2, 20).default(5),
  ROTATION_FRAGILITY: number(z.number().min(0).max(1)).default(0.02),
  ROTATION_ATTRIBUTION: number(z.number().min(0).max(1)).default(0.6),
  /** The identifier's API: no proposal while it reports an incident that is not closed (unset: no check, a warning). */
  ROTATION_IDENTIFIER_URL: z.string().url().optional(),
  ROTATION_IDENTIFIER_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  /** One token per caller (`name:token,...`); the name is recorded as who accepted or rejected a proposal. */
  SENTINEL_API_TOKENS: NamedTokensEnv.optional(),
  /** `alice=read+operate,bob=read`: read sees proposals, operate accepts or rejects them. Unset: every caller may. */
  SENTINEL_API_ROLES: ApiRolesEnv.optional(),
});

export type RotationEnv = z.infer<typeof RotationEnvSchema>;

export class RotationConfigError extends Error {
  constructor(readonly issues: { key: string; message: string }[]) {
    super(`invalid probe rotation configuration: ${issues.map((i) => `${i.key}: ${i.message}`).join('; ')}`);
    this.name = 'RotationConfigError';
  }
}

export function rotationConfigFromEnv(env: NodeJS.ProcessEnv): RotationEnv {
  const parsed = RotationEnvSchema.safeParse(env);
  if (!parsed.success)
    throw new RotationConfigError(parsed.error.issues.map((issue) => ({ key: String(issue.path[0] ?? '(env)'), message: issue.message })));
  const roles = parsed.data.SENTINEL_API_ROLES;
  if (roles !== undefined) {
    // A role for a caller with no token would lock the intended person out unnoticed.
    const callers = new Set(Object.keys(parsed.data.SENTINEL_API_TOKENS ?? {}));
    const unknown = Object.keys(roles).filter((name) => !callers.has(name));
    if (unknown.length > 0)
      throw new RotationConfigError([
        { key: 'SENTINEL_API_ROLES', message: `names callers with no SENTINEL_API_TOKENS entry: ${unknown.join(', ')}` },
      ]);
  }
  return parsed.data;
}
