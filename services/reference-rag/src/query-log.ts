import { mkdirSync, writeFileSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';

export interface QueryLogLine {
  query: string;
  count: number;
  first_seen: string;
  last_seen: string;
}

export interface QueryLogLimits {
  /** Most distinct queries kept; past it the least recently seen is dropped (default 10,000). */
  maxEntries?: number;
  /** A query not seen for this long is dropped (default 7 days). */
  maxAgeMs?: number;
}

export const DEFAULT_QUERY_LOG_MAX_ENTRIES = 10_000;
export const DEFAULT_QUERY_LOG_MAX_AGE_MS = 7 * 24 * 3600_000;

/**
 * Counts the queries the RAG serves and writes them as JSONL (one distinct query per line, with its
 * count), the input the sentinel's probe selection reads. Written atomically (temp file + rename).
 * Bounded: every distinct query is remembered, so without a cap the public query face would grow the
 * heap and the file without end; the least recently seen queries go first.
 */
export class QueryLog {
  /** In order of last use: a query seen again moves to the end, so the first entry is the oldest. */
  private readonly counts = new Map<string, QueryLogLine>();
  private readonly maxEntries: number;
  private readonly maxAgeMs: number;
  private dirty = false;

  constructor(
    private readonly path: string | undefined,
    limits: QueryLogLimits = {},
  ) {
    this.maxEntries = limits.maxEntries ?? DEFAULT_QUERY_LOG_MAX_ENTRIES;
    this.maxAgeMs = limits.maxAgeMs ?? DEFAULT_QUERY_LOG_MAX_AGE_MS;
    if (path !== undefined) mkdirSync(dirname(path), { recursive: true });
  }

  get size(): number {
    return this.counts.size;
  }

  record(query: string, at = new Date()): void {
    const key = query.trim();
    const line = this.counts.get(key);
    if (line === undefined) this.counts.set(key, { query: key, count: 1, first_seen: at.toISOString(), last_seen: at.toISOString() });
    else {
      line.count++;
      line.last_seen = at.toISOString();
      this.counts.delete(key);
      this.counts.set(key, line);
    }
    while (this.counts.size > this.maxEntries) this.counts.delete(this.counts.keys().next().value!);
    this.expire(at);
    this.dirty = true;
  }

  /** Drops the queries last seen before `now - maxAgeMs` (the oldest are first in the map). */
  expire(now = new Date()): void {
    const cutoff = now.getTime() - this.maxAgeMs;
    for (const [key, line] of this.counts) {
      if (Date.parse(line.last_seen) >= cutoff) break;
      this.counts.delete(key);
      this.dirty = true;
    }
  }

  lines(): QueryLogLine[] {
    return [...this.counts.values()].sort((a, b) => b.count - a.count || a.query.localeCompare(b.query));
  }

  flush(now = new Date()): void {
    this.expire(now);
    if (this.path === undefined || !this.dirty) return;
    const tmp = `${this.path}.tmp`;
    writeFileSync(
      tmp,
      this.lines()
        .map((line) => JSON.stringify(line))
        .join('\n') + '\n',
    );
    renameSync(tmp, this.path);
    this.dirty = false;
  }
}
