import { z } from 'zod';

/** One line of a query log: a query users asked, how often, and optionally what it is worth. */
export const QueryLogEntrySchema = z.object({
  query: z.string().trim().min(1),
  count: z.number().int().min(1),
  business_value: z.number().min(0).max(1).optional(),
});

export type QueryLogEntry = z.infer<typeof QueryLogEntrySchema>;

function normaliseQuery(query: string): string {
  return query
    .toLowerCase()
    .replace(/\s+/g, ' ')
    .replace(/[?.!\s]+$/, '')
    .trim();
}

/** Parses a JSONL query log, merging lines that differ only in case, spacing or final punctuation. */
export function parseQueryLog(text: string): QueryLogEntry[] {
  const merged = new Map<string, QueryLogEntry>();
  text.split('\n').forEach((raw, index) => {
    if (raw.trim() === '') return;
    let value: unknown;
    try {
      value = JSON.parse(raw);
    } catch {
      throw new Error(`query log line ${index + 1}: not valid JSON`);
    }
    const parsed = QueryLogEntrySchema.safeParse(value);
    if (!parsed.success)
      throw new Error(`query log line ${index + 1}: ${parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`).join(', ')}`);
    const key = normaliseQuery(parsed.data.query);
    const earlier = merged.get(key);
    if (earlier === undefined) merged.set(key, { ...parsed.data });
    else {
      earlier.count += parsed.data.count;
      if (parsed.data.business_value !== undefined)
        earlier.business_value = Math.max(earlier.business_value ?? 0, parsed.data.business_value);
    }
  });
  return [...merged.values()];
}
