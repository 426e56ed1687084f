import { z } from 'zod';

/** UTC instant in RFC 3339 form, as every time in the probe file. */
const UtcTimestamp = z.string().datetime({ message: 'must be an RFC 3339 UTC timestamp such as 2026-11-29T00:00:00Z' });

/**
 * A golden probe: a query whose answer the sentinel checks against the online and the baseline
 * RAG on a schedule. Probes are data, versioned: changing a probe's query bumps its version.
 */
export const GoldenProbeSchema = z
  .object({
    id: z.string().regex(/^[a-z0-9][a-z0-9._-]{2,127}$/, 'must be 3-128 chars of a-z, 0-9, ".", "_" or "-"'),
    version: z.number().int().min(1),
    query: z.string().trim().min(3).max(2000),
    /** Knowledge ids the answer must come from; what makes the probe attributable. */
    expected_sources: z.array(z.string().min(1)).min(1),
    /** How much a wrong answer to this query costs the business, 0..1. */
    business_value: z.number().min(0).max(1),
    /** 'head' for frequent queries, or the long-tail cluster the probe represents. */
    cluster: z.string().min(1),
    created_at: UtcTimestamp,
    retired_at: UtcTimestamp.nullable().default(null),
    /** Why the probe was retired, e.g. 'always-stable (FCS > 0.95)'. */
    retired_reason: z.string().optional(),
  })
  .strict();

export type GoldenProbe = z.infer<typeof GoldenProbeSchema>;

export function isActive(probe: GoldenProbe, at: Date = new Date()): boolean {
  return probe.retired_at === null || Date.parse(probe.retired_at) > at.getTime();
}
